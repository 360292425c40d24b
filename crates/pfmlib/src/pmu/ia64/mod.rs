//! The IA-64 family (Itanium, Itanium 2, Montecito): event attributes and
//! the raw encoding of one counting monitor (`PMC4`..), as libpfm-3
//! programs it, and the per-event facts of its model-specific queries.
//!
//! Event strings take the Montecito MESI qualifiers as unit masks (`:M:E`;
//! none means all four states) and the modifiers `k` (privilege level 0),
//! `u` (level 3) and `thres` (below the event's maximum increment per cycle).
//! Without `k`/`u` the default privilege levels apply, all four levels being
//! filterable on IA-64. The model-specific features (EARs, branch trace,
//! opcode matching, ranges) need several registers: the `pfmlib-dispatch`
//! crate programs them, from the facts `crate::model_specific` hands over.

pub(crate) use pfmlib_defs::ia64 as defs;

use super::common::Engine;
use crate::ctx::Ctx;
use crate::desc::{AttrRef, Desc, Offer};
use crate::error::{Error, ErrorKind, Result};
use crate::kernel::PerfAttr;
use crate::model::Os;
use crate::regs::{Ia64Pmc, MontPmc};
use crate::tables::{EventDesc, PmuDesc};
use defs::{EVENT_EXT as X, MODIFIERS};
use pfmlib_defs::{bit, ext, modifier, FamilyDefs};

/// Event flags.
mod event_flag {
    use super::{bit, defs};
    /// The branch trace buffer event (Itanium, Itanium 2).
    pub const BTB: u32 = bit(defs::EVENT_FLAGS, "btb");
    /// The execution trace buffer event (Montecito).
    pub const ETB: u32 = bit(defs::EVENT_FLAGS, "etb");
}

/// Qualifier bits of the `qual` key.
mod qual {
    use super::{bit, defs};
    /// Opcode matching.
    pub const OPCM: u32 = bit(defs::QUALIFIERS, "opcm");
    /// Code range restriction.
    pub const IARR: u32 = bit(defs::QUALIFIERS, "iarr");
    /// Data range restriction.
    pub const DARR: u32 = bit(defs::QUALIFIERS, "darr");
    /// Montecito `.all` thread qualifier.
    pub const ALL: u32 = bit(defs::QUALIFIERS, "all");
}

mod id {
    use super::{modifier, MODIFIERS};
    pub const K: u64 = modifier(MODIFIERS, "k");
    pub const U: u64 = modifier(MODIFIERS, "u");
    pub const THRES: u64 = modifier(MODIFIERS, "thres");
}

/// Which Event Address Register an event drives, and in which mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Ia64Ear {
    /// Not an EAR event.
    None,
    /// Data EAR, cache-miss mode.
    DearCache,
    /// Data EAR, TLB-miss mode.
    DearTlb,
    /// Data EAR, ALAT mode (Itanium 2, Montecito).
    DearAlat,
    /// Instruction EAR, cache-miss mode.
    IearCache,
    /// Instruction EAR, TLB-miss mode.
    IearTlb,
}

/// Cache group of an Itanium 2 / Montecito event (events of different sets of
/// one group cannot be measured together).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Ia64Group {
    /// Not a grouped cache event.
    None,
    /// L1 data cache group.
    L1d,
    /// L2 (data) cache group.
    L2d,
}

/// Montecito event type (`pfm_mont_get_event_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Ia64EventType {
    /// Occurs only while the thread that caused it is active (0).
    Active,
    /// May occur while the thread is inactive (1).
    Floating,
    /// Belongs to no thread (2).
    Causal,
    /// Floating when measured with `.me`, causal otherwise (3).
    SelfFloating,
}

/// The three IA-64 PMU models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Ia64Model {
    /// Itanium (Merced): PMC4-PMC7, BTB.
    Itanium,
    /// Itanium 2 (McKinley, Madison): PMC4-PMC7, BTB, cache groups.
    Itanium2,
    /// Itanium 2 9000 (Montecito): PMC4-PMC15, ETB, IP-EAR, MESI qualifiers.
    Montecito,
}

/// The IA-64 facts of one event (the extra keys of `data/SCHEMA.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ia64Facts {
    /// Most occurrences per cycle; thresholds stay below it.
    pub maxincr: u8,
    /// Unit mask hard-wired into the PMC.
    pub umask: u32,
    /// Counted accurately under opcode matching.
    pub opcm: bool,
    /// Counted accurately under code range restriction.
    pub iarr: bool,
    /// Counted accurately under data range restriction.
    pub darr: bool,
    /// Takes the Montecito `.all` qualifier.
    pub all: bool,
    /// The branch trace buffer event (Itanium, Itanium 2).
    pub btb: bool,
    /// The execution trace buffer event (Montecito).
    pub etb: bool,
    /// Event Address Register kind.
    pub ear: Ia64Ear,
    /// Cache group.
    pub group: Ia64Group,
    /// Set within the cache group.
    pub set: Option<u8>,
    /// Montecito event type.
    pub ty: Option<Ia64EventType>,
}

/// The IA-64 facts of an event of an IA-64 table.
pub(crate) fn facts(ev: EventDesc) -> Ia64Facts {
    const EARS: [Ia64Ear; 6] = [
        Ia64Ear::None,
        Ia64Ear::DearCache,
        Ia64Ear::DearTlb,
        Ia64Ear::DearAlat,
        Ia64Ear::IearCache,
        Ia64Ear::IearTlb,
    ];
    const GROUPS: [Ia64Group; 3] = [Ia64Group::None, Ia64Group::L1d, Ia64Group::L2d];
    const TYPES: [Option<Ia64EventType>; 5] = [
        None,
        Some(Ia64EventType::Active),
        Some(Ia64EventType::Floating),
        Some(Ia64EventType::Causal),
        Some(Ia64EventType::SelfFloating),
    ];
    const MAXINCR: usize = ext(X, "maxincr");
    const PMC_UMASK: usize = ext(X, "pmc_umask");
    const QUAL: usize = ext(X, "qual");
    const EAR: usize = ext(X, "ear");
    const GROUP: usize = ext(X, "group");
    const SET: usize = ext(X, "set");
    const TYPE: usize = ext(X, "type");
    let word = |k| ev.ext(k) as usize;
    let quals = word(QUAL) as u32;
    Ia64Facts {
        maxincr: word(MAXINCR) as u8,
        umask: word(PMC_UMASK) as u32,
        opcm: quals & qual::OPCM != 0,
        iarr: quals & qual::IARR != 0,
        darr: quals & qual::DARR != 0,
        all: quals & qual::ALL != 0,
        btb: ev.flags() & event_flag::BTB != 0,
        etb: ev.flags() & event_flag::ETB != 0,
        ear: EARS.get(word(EAR)).copied().unwrap_or(Ia64Ear::None),
        group: GROUPS.get(word(GROUP)).copied().unwrap_or(Ia64Group::None),
        set: word(SET).checked_sub(1).map(|s| s as u8),
        ty: TYPES.get(word(TYPE)).copied().flatten(),
    }
}

/// The model of an IA-64 PMU (its `model` key).
pub(crate) fn model(pmu: PmuDesc) -> Ia64Model {
    const MODEL: usize = ext(defs::PMU_EXT, "model");
    match pmu.ext(MODEL) {
        0 => Ia64Model::Itanium,
        1 => Ia64Model::Itanium2,
        _ => Ia64Model::Montecito,
    }
}

/// The engine.
pub(crate) struct Ia64;

impl Engine for Ia64 {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// Never on the machines pfmlib runs on.
    fn detect(&self, _pmu: PmuDesc, _host: &crate::host::Host) -> bool {
        false
    }

    /// No perf_events encoding here: the OS attributes are dropped.
    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, ev: EventDesc, _os: Os) -> Offer {
        Offer {
            mods: ev.modmsk(),
            perf: 0,
        }
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        encode(d)
    }

    fn encode_perf(&self, _ctx: &Ctx, d: &mut Desc, _attr: &mut PerfAttr) -> Result<Vec<u64>> {
        Err(Error::new(
            ErrorKind::NotSupported,
            format!(
                "{}: IA-64 PMUs have no Linux perf_events encoding in pfmlib; use --os none",
                d.event_name()
            ),
        ))
    }
}

/// What one counting monitor needs, beyond the event itself.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CounterSetup {
    /// Privilege-level mask (bits 0-3).
    pub plm: u64,
    /// System-wide monitoring (the `pm` bit).
    pub system_wide: bool,
    /// Threshold (already checked against the maximum increment).
    pub thres: u64,
    /// Instruction-set mask (Itanium, Itanium 2; 0 = both).
    pub ism: u64,
    /// MESI states, bit 0 = I .. bit 3 = M (Montecito; 0 = all).
    pub mesi: u64,
}

/// The value of the counting monitor that counts `ev`.
///
/// Itanium and Itanium 2 set the overflow-interrupt bit; Montecito leaves it
/// to the kernel and always selects IA-64 instructions (`ism` = 2). An EAR
/// event counts through its counting event with a zero unit mask (the unit
/// mask goes to the EAR configuration register).
pub(crate) fn counter_pmc(model: Ia64Model, ev: EventDesc, s: CounterSetup) -> u64 {
    let f = facts(ev);
    let umask = if f.ear == Ia64Ear::None {
        u64::from(f.umask)
    } else {
        0
    };
    match model {
        Ia64Model::Itanium | Ia64Model::Itanium2 => {
            let mut r = Ia64Pmc::default();
            r.set_plm(s.plm);
            r.set_oi(1);
            r.set_pm(u64::from(s.system_wide));
            r.set_es(ev.code());
            r.set_umask(umask);
            r.set_thres(s.thres);
            r.set_ism(s.ism);
            r.0
        }
        Ia64Model::Montecito => {
            let mut r = MontPmc::default();
            r.set_plm(s.plm);
            r.set_pm(u64::from(s.system_wide));
            r.set_es(ev.code());
            r.set_umask(umask);
            r.set_thres(s.thres);
            r.set_ism(2);
            let mesi = match (ev.numasks(), s.mesi) {
                (0, _) => 0,
                (_, 0) => 0xf,
                (_, m) => m,
            };
            r.set_mesi(mesi);
            r.0
        }
    }
}

/// Raw encoding: the counting monitor's value, and the fully-qualified string.
fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let f = facts(d.event);
    let (mut k, mut u, mut thres, mut mesi) = (None, None, 0u64, 0u64);
    for a in &d.attrs {
        match a.what {
            AttrRef::Umask(i) => mesi |= 1 << (d.umask(i).code() & 3),
            AttrRef::Mod(m) => match u64::from(m) {
                id::K => k = Some(a.ival != 0),
                id::U => u = Some(a.ival != 0),
                id::THRES => {
                    if a.ival >= u64::from(f.maxincr) {
                        return Err(Error::new(
                            ErrorKind::AttrValue,
                            format!(
                                "thres={} for {} must be below the event's maximum increment per cycle ({}): valid values are 0-{}",
                                a.ival,
                                d.event_name(),
                                f.maxincr,
                                f.maxincr.saturating_sub(1)
                            ),
                        ));
                    }
                    thres = a.ival;
                }
                _ => {}
            },
            _ => {}
        }
    }
    let plm = if k.is_none() && u.is_none() {
        u64::from(d.dfl_plm.bits() & 0xf)
    } else {
        u64::from(k == Some(true)) | (u64::from(u == Some(true)) << 3)
    };
    let setup = CounterSetup {
        plm,
        thres,
        mesi,
        ..CounterSetup::default()
    };
    let value = counter_pmc(model(d.pmu), d.event, setup);
    d.write_fstr(MODIFIERS, |m| match m {
        id::K => Some(plm & 1),
        id::U => Some((plm >> 3) & 1),
        id::THRES => Some(thres),
        _ => None,
    });
    Ok(vec![value])
}
