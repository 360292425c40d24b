//! The narrow surface model-specific dispatch (the `pfmlib-dispatch` crate,
//! libpfm-3 compatibility) needs beyond the public API: which dispatcher
//! serves a PMU, an x86 event encoded for its counting register, and the
//! IA-64 facts of an event from its table. This module is the one adapter
//! between that crate and pfmlib's internals (event strings, tables,
//! engines), so a change of the internals is a change of this file. It
//! serves that crate and changes with it; other users want the public API.

use crate::desc::{AttrRef, Desc};
use crate::event::{attr_name, parse_event};
use crate::library::{Event, Library, Pmu};
use crate::model::{Os, Plm};
use crate::pmu::ia64::{counter_pmc, defs as ia64_defs, facts, model, CounterSetup};
pub use crate::pmu::ia64::{Ia64Ear, Ia64EventType, Ia64Group, Ia64Model};
use crate::pmu::intel_x86::{ev_flag, modifier_id, um_flag, umask_cntmsk};
use crate::pmu::{engine, DISPATCH_IA64, DISPATCH_NEHALEM};
use crate::tables::{EventDesc, PmuDesc};

/// Which dispatcher serves a PMU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dispatcher {
    /// Intel Nehalem / Westmere core PMU, with its uncore.
    Nehalem,
    /// Itanium, Itanium 2 or Montecito.
    Ia64(Ia64Model),
}

/// The dispatcher of a PMU (its table's `dispatch` key), if any.
pub fn dispatcher(pmu: Pmu<'_>) -> Option<Dispatcher> {
    match pmu.desc.dispatcher() {
        DISPATCH_NEHALEM => Some(Dispatcher::Nehalem),
        DISPATCH_IA64 => Some(Dispatcher::Ia64(model(pmu.desc))),
        _ => None,
    }
}

/// The uncore PMU dispatched beside a Nehalem-family core PMU (its table's
/// `uncore` key).
pub fn nehalem_uncore<'a>(lib: &'a Library, core: Pmu<'a>) -> Option<Pmu<'a>> {
    lib.pmu(core.desc.uncore()?)
}

/// Why an event string could not be turned into dispatch facts.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The string does not parse or encode (a libpfm4 error).
    #[error(transparent)]
    Library(crate::error::Error),
    /// It names an event of another PMU (the one named).
    #[error("the event belongs to PMU {0}")]
    OtherPmu(&'static str),
    /// The table lacks what dispatch needs (a table bug).
    #[error("table: {0}")]
    Table(String),
}

/// `pmu::event` unless the string already names a PMU.
fn qualified(pmu: Pmu<'_>, event: &str) -> String {
    if event.contains("::") {
        event.to_string()
    } else {
        format!("{}::{event}", pmu.name())
    }
}

/// An event string parsed for `pmu`, refused when it resolves elsewhere.
fn parse_for(lib: &Library, pmu: Pmu<'_>, event: &str, plm: Plm) -> Result<Desc, SourceError> {
    let d = parse_event(lib.ctx(), &qualified(pmu, event), Os::None, plm)
        .map_err(SourceError::Library)?;
    if d.pmu != pmu.desc {
        return Err(SourceError::OtherPmu(d.pmu.name()));
    }
    Ok(d)
}

/// An x86 event encoded for its counting register.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EncodedEvent {
    /// Fully-qualified string, `pmu::EVENT:...`.
    pub fstr: String,
    /// The event-select register value (`PERFEVTSEL` / `UNC_PERFEVTSEL`).
    pub code: u64,
    /// An offcore-response event: the request/response value of its
    /// `MSR_OFFCORE_RSP_x` (the encoder's second code).
    pub offcore: Option<u64>,
    /// The load latency the string gave with `ldlat=` (none: not given).
    pub ldlat_given: Option<u64>,
    /// PEBS-capable with the unit masks given.
    pub pebs: bool,
    /// Uses the load-latency unit mask.
    pub uses_ldlat_umask: bool,
    /// Counters it may use: bit n generic counter n, bit 32+n fixed counter
    /// n (a unit mask's own counter mask supersedes the event's).
    pub counters: u64,
}

/// Encodes an event string of `pmu` (unprefixed names belong to it) with
/// default privilege levels `plm`, as `pfm check --os none` does.
pub fn encode_event(
    lib: &Library,
    pmu: Pmu<'_>,
    event: &str,
    plm: Plm,
) -> Result<EncodedEvent, SourceError> {
    let mut d = parse_for(lib, pmu, event, plm)?;
    let codes = engine(d.pmu)
        .encode(lib.ctx(), &mut d)
        .map_err(SourceError::Library)?;
    let code = codes
        .first()
        .copied()
        .ok_or_else(|| SourceError::Table(format!("{event}: the engine gave no code")))?;
    let ev = d.event;
    let umask_flags: Vec<u32> = d.umask_attrs().map(|i| d.umask(i).flags()).collect();
    let uses_ldlat_umask = umask_flags.iter().any(|f| f & um_flag::LDLAT != 0);
    let second = codes.get(1).copied();
    let ldlat_named = d
        .attrs
        .iter()
        .any(|a| a.what == AttrRef::Mod(modifier_id::LDLAT as u8));
    Ok(EncodedEvent {
        fstr: format!("{}::{}", d.pmu.name(), d.fstr.as_str()),
        code,
        offcore: second.filter(|_| ev.flags() & ev_flag::OFFCORE != 0),
        ldlat_given: second.filter(|_| uses_ldlat_umask && ldlat_named),
        pebs: ev.flags() & ev_flag::PEBS != 0 && umask_flags.iter().all(|f| f & um_flag::PEBS != 0),
        uses_ldlat_umask,
        counters: d
            .umask_attrs()
            .filter_map(|i| umask_cntmsk(d.umask(i)))
            .reduce(|a, b| a & b)
            .unwrap_or(ev.cntmsk()),
    })
}

/// The IA-64 facts of one event, from its table: what the per-event
/// queries answer and what IA-64 dispatch programs.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Ia64EventFacts {
    /// The PMU model.
    pub model: Ia64Model,
    /// Table name.
    pub name: &'static str,
    /// Event select code.
    pub code: u64,
    /// PMCs that may count it (bit n = PMCn).
    pub counters: u64,
    /// Most occurrences per cycle (thresholds stay below it).
    pub maxincr: u32,
    /// Unit mask hard-wired into the counter (or the EAR).
    pub umask: u32,
    /// EAR kind.
    pub ear: Ia64Ear,
    /// Cache group.
    pub group: Ia64Group,
    /// Set within the cache group.
    pub set: Option<u8>,
    /// Counted accurately under opcode matching.
    pub supports_opcm: bool,
    /// Counted accurately under code range restriction.
    pub supports_iarr: bool,
    /// Counted accurately under data range restriction.
    pub supports_darr: bool,
    /// Takes the Montecito `.all` qualifier.
    pub supports_all: bool,
    /// Montecito event type (`None` on Itanium and Itanium 2).
    pub event_type: Option<Ia64EventType>,
    /// The branch trace buffer event (Itanium, Itanium 2).
    pub btb: bool,
    /// The execution trace buffer event (Montecito).
    pub etb: bool,
    /// Takes the Montecito MESI unit masks.
    pub takes_mesi: bool,
    desc: EventDesc,
}

/// An IA-64 event string, parsed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Ia64ParsedEvent {
    /// The event.
    pub facts: Ia64EventFacts,
    /// MESI unit masks given, bit = mask index.
    pub mesi: u64,
    /// Their names, in the order given.
    pub masks: Vec<&'static str>,
    /// The first attribute that is not a unit mask (modifiers are refused).
    pub modifier: Option<&'static str>,
}

/// The IA-64 facts of an event of an IA-64 table.
fn ia64_table_facts(pmu: PmuDesc, desc: EventDesc) -> Ia64EventFacts {
    let f = facts(desc);
    Ia64EventFacts {
        model: model(pmu),
        name: desc.name(),
        code: desc.code(),
        counters: desc.cntmsk(),
        maxincr: u32::from(f.maxincr),
        umask: f.umask,
        ear: f.ear,
        group: f.group,
        set: f.set,
        supports_opcm: f.opcm,
        supports_iarr: f.iarr,
        supports_darr: f.darr,
        supports_all: f.all,
        event_type: f.ty,
        btb: f.btb,
        etb: f.etb,
        takes_mesi: desc.numasks() > 0,
        desc,
    }
}

/// Is `pmu` an IA-64 PMU (served by the IA-64 engine)?
fn is_ia64(pmu: PmuDesc) -> bool {
    // By name: `DEFS` is a constant, so its address is not one address
    // (an optimised build may give each use its own copy).
    engine(pmu).defs().name == ia64_defs::DEFS.name
}

/// The IA-64 facts of an event; `None` for an event of another family.
pub fn ia64_facts(event: &Event<'_>) -> Option<Ia64EventFacts> {
    let pmu = event.pmu().desc;
    is_ia64(pmu).then(|| ia64_table_facts(pmu, event.desc))
}

/// Parses an IA-64 event string of `pmu` (unprefixed names belong to it).
pub fn ia64_event(
    lib: &Library,
    pmu: Pmu<'_>,
    event: &str,
) -> Result<Ia64ParsedEvent, SourceError> {
    let d = parse_for(lib, pmu, event, Plm::DEFAULT)?;
    let mut mesi = 0u64;
    let mut masks = Vec::new();
    let mut modifier = None;
    for a in &d.attrs {
        if let AttrRef::Umask(i) = a.what {
            mesi |= 1 << i;
            masks.push(d.umask(i).name());
        } else {
            modifier = Some(attr_name(&d, a.what));
            break;
        }
    }
    let facts = ia64_table_facts(pmu.desc, d.event);
    Ok(Ia64ParsedEvent {
        facts,
        mesi,
        masks,
        modifier,
    })
}

/// The per-counter settings of an IA-64 counting monitor.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ia64CounterSettings {
    /// Privilege-level mask (bits 0-3).
    pub plm: u64,
    /// System-wide monitoring (the `pm` bit).
    pub system_wide: bool,
    /// Threshold (already checked against the maximum increment).
    pub thres: u64,
    /// Instruction set (Itanium, Itanium 2; 0 = both).
    pub ism: u64,
    /// MESI states (Montecito; 0 = all).
    pub mesi: u64,
}

/// The counting monitor value of an event, as `pfm check --os none` encodes it.
pub fn ia64_counter_value(ev: &Ia64EventFacts, s: Ia64CounterSettings) -> u64 {
    let setup = CounterSetup {
        plm: s.plm,
        system_wide: s.system_wide,
        thres: s.thres,
        ism: s.ism,
        mesi: s.mesi,
    };
    counter_pmc(ev.model, ev.desc, setup)
}

/// The code of a named event of `pmu` (libpfm-3 tests event classes by code).
pub fn event_code(pmu: Pmu<'_>, name: &str) -> Option<u64> {
    pmu.desc.find_event(name, |_| true).map(|e| e.code())
}
