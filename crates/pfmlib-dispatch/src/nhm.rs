//! Intel Nehalem / Westmere dispatch: four generic and three fixed core
//! counters, the uncore's eight generic and one fixed counter, PEBS with
//! load-latency filtering, and the 16-entry LBR.
//!
//! The steps: request settings ([`Settings::of`]), each event checked,
//! encoded and given its candidate counters ([`prepare`]), totals checked,
//! core and uncore counters assigned (two independent searches), registers
//! programmed ([`program`]).
//!
//! Register values follow the Intel SDM layouts: `IA32_PERFEVTSELx`,
//! `IA32_FIXED_CTR_CTRL` (4 bits per fixed counter: OS, USR, AnyThread, PMI),
//! `IA32_PERF_GLOBAL_CTRL`, `IA32_PEBS_ENABLE` (PEBS bits 0-3, load-latency
//! bits 32-35), `MSR_PEBS_LD_LAT_THRESHOLD`, `MSR_OFFCORE_RSP_0` (and
//! Westmere's `MSR_OFFCORE_RSP_1`) for the offcore-response events,
//! `MSR_LBR_SELECT`, and the uncore `MSR_UNCORE_PERFEVTSELx`,
//! `MSR_UNCORE_FIXED_CTR_CTRL`, `MSR_UNCORE_PERF_GLOBAL_CTRL`.
//!
//! The fully-qualified string of each event shows the modifiers as they are
//! programmed (`c`, `i`, `e`, `t`, `ldlat`; uncore `c`, `i`, `e`, `o`).

use crate::error::{DispatchError, DispatchErrorKind as K};
use crate::request::{
    parse_plm, EventFlag, EventRequest, LbrFilter, LbrParams, PebsParams, Request,
};
use crate::response::{Assignment, Dispatch, Reg, RegValue};
use pfmlib::model_specific::{self as source, EncodedEvent, SourceError};
use pfmlib::regs::{
    FixedCtrCtrl, LbrSelect, PebsEnable, PerfEvtSel, PerfGlobalCtrl, UncFixedCtrCtrl,
    UncPerfEvtSel, UncPerfGlobalCtrl,
};
use pfmlib::{ErrorKind, Library, Plm, Pmu};

const NUM_GEN: u32 = 4;
const NUM_FIXED: u32 = 3;
const NUM_UNC_GEN: u32 = 8;
const LBR_DEPTH: u32 = 16;

/// Which of a core / uncore pair an event string belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// The core PMU (also: no `pmu::` prefix).
    Core,
    /// The uncore PMU.
    Uncore,
}

/// The side an event string names by its `pmu::` prefix (none: the core),
/// or `None` when the prefix names neither PMU (a core PMU without an
/// uncore has only the core side).
fn nehalem_side(event: &str, core: Pmu<'_>, uncore: Option<Pmu<'_>>) -> Option<Side> {
    let Some((prefix, _)) = event.split_once("::") else {
        return Some(Side::Core);
    };
    let prefix = prefix.to_ascii_lowercase();
    if prefix == core.name() {
        Some(Side::Core)
    } else if uncore.is_some_and(|u| prefix == u.name()) {
        Some(Side::Uncore)
    } else {
        None
    }
}

/// Privilege-level bits of a request: level 0 (`k`), levels 1 and 2, level
/// 3 (`u`), the hypervisor (`h`).
const PLM0: u32 = 0x1;
const PLM12: u32 = 0x6;
const PLM3: u32 = 0x8;
const PLM_H: u32 = 0x10;

/// How a register's name shows its index.
#[derive(Clone, Copy)]
enum Naming {
    /// `PMC2`.
    Index,
    /// `OFFCORE_RSP_1`.
    UnderscoreIndex,
    /// `LBR_TOS`: one register.
    Single,
}

/// A model-specific register: its kind, the address of index 0, and how
/// its name carries the index.
struct Msr {
    kind: &'static str,
    addr: u64,
    naming: Naming,
}

impl Msr {
    const fn indexed(kind: &'static str, addr: u64) -> Msr {
        Msr {
            kind,
            addr,
            naming: Naming::Index,
        }
    }

    const fn single(kind: &'static str, addr: u64) -> Msr {
        Msr {
            kind,
            addr,
            naming: Naming::Single,
        }
    }

    /// Register `index` of the kind.
    fn at(&self, index: u32) -> Reg {
        Reg {
            name: match self.naming {
                Naming::Index => format!("{}{index}", self.kind),
                Naming::UnderscoreIndex => format!("{}_{index}", self.kind),
                Naming::Single => self.kind.to_string(),
            },
            reg: self.kind,
            index,
            addr: self.addr + u64::from(index),
        }
    }

    fn value(&self, index: u32, value: u64) -> RegValue {
        RegValue {
            reg: self.at(index),
            value,
        }
    }
}

const PMC: Msr = Msr::indexed("PMC", 0xc1);
const FIXED_CTR: Msr = Msr::indexed("FIXED_CTR", 0x309);
const UNC_PMC: Msr = Msr::indexed("UNC_PMC", 0x3b0);
const UNC_FIXED_CTR: Msr = Msr::single("UNC_FIXED_CTR", 0x394);
const PERFEVTSEL: Msr = Msr::indexed("PERFEVTSEL", 0x186);
const UNC_PERFEVTSEL: Msr = Msr::indexed("UNC_PERFEVTSEL", 0x3c0);
const FIXED_CTR_CTRL: Msr = Msr::single("FIXED_CTR_CTRL", 0x38d);
const PERF_GLOBAL_CTRL: Msr = Msr::single("PERF_GLOBAL_CTRL", 0x38f);
const PEBS_ENABLE: Msr = Msr::single("PEBS_ENABLE", 0x3f1);
const PEBS_LD_LAT_THRESHOLD: Msr = Msr::single("PEBS_LD_LAT_THRESHOLD", 0x3f6);
const UNC_FIXED_CTR_CTRL: Msr = Msr::single("UNC_FIXED_CTR_CTRL", 0x395);
const UNC_PERF_GLOBAL_CTRL: Msr = Msr::single("UNC_PERF_GLOBAL_CTRL", 0x391);
const LBR_SELECT: Msr = Msr::single("LBR_SELECT", 0x1c8);
const LBR_TOS: Msr = Msr::single("LBR_TOS", 0x1c9);
const LBR_FROM_IP: Msr = Msr::indexed("LBR_FROM_IP", 0x680);
const LBR_TO_IP: Msr = Msr::indexed("LBR_TO_IP", 0x6c0);
/// `MSR_OFFCORE_RSP_0` (0x1a6) and, on Westmere, `MSR_OFFCORE_RSP_1` (0x1a7).
const OFFCORE_RSP: Msr = Msr {
    kind: "OFFCORE_RSP",
    addr: 0x1a6,
    naming: Naming::UnderscoreIndex,
};
/// The offcore-response event selects and the `OFFCORE_RSP` register each
/// one takes its request/response mask from: 0xb7 (`OFFCORE_RESPONSE_0`)
/// the first, 0xbb (Westmere's `OFFCORE_RESPONSE_1`) the second.
const OFFCORE_SELECTS: [(u64, u32); 2] = [(0xb7, 0), (0xbb, 1)];

/// A counter an event can use (in register-programming order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ctr {
    Fixed(u32),
    Gen(u32),
    UncFixed,
    UncGen(u32),
}

impl Ctr {
    fn reg(self) -> Reg {
        match self {
            Ctr::Gen(i) => PMC.at(i),
            Ctr::Fixed(i) => FIXED_CTR.at(i),
            Ctr::UncGen(i) => UNC_PMC.at(i),
            Ctr::UncFixed => UNC_FIXED_CTR.at(0),
        }
    }
}

fn err(kind: K, msg: impl Into<String>) -> DispatchError {
    DispatchError::new(kind, msg)
}

/// The request-wide settings.
struct Settings {
    dfl_plm: u32,
    pebs: PebsParams,
    lbr: LbrParams,
}

impl Settings {
    /// Checks the request-wide fields.
    fn of(req: &Request) -> Result<Settings, DispatchError> {
        let dfl_plm = parse_plm(req.dfl_plm.as_deref().unwrap_or("uk"))?;
        if dfl_plm == 0 {
            return Err(err(
                K::Invalid,
                "dfl_plm is empty: give at least one privilege level",
            ));
        }
        if req.ia64.is_some() {
            return Err(err(
                K::Invalid,
                "ia64 parameters given for an Intel Nehalem/Westmere PMU",
            ));
        }
        if req.system_wide || !req.unavail_pmcs.is_empty() {
            return Err(err(
                K::NotSupported,
                "system_wide and unavail_pmcs are IA-64 parameters: Nehalem dispatch does not take them",
            ));
        }
        let params = req.nhm.clone().unwrap_or_default();
        let pebs = params.pebs.unwrap_or_default();
        if pebs.ld_lat_thres != 0 {
            if !pebs.used {
                return Err(err(K::Invalid, "ld_lat_thres needs PEBS: set pebs.used"));
            }
            if pebs.ld_lat_thres <= 3 || pebs.ld_lat_thres > 0xffff {
                return Err(err(
                    K::Invalid,
                    format!("ld_lat_thres={} is out of range: the load-latency threshold must be greater than 3 and at most 65535 core cycles", pebs.ld_lat_thres),
                ));
            }
        }
        Ok(Settings {
            dfl_plm,
            pebs,
            lbr: params.lbr.unwrap_or_default(),
        })
    }
}

/// What every event step reads.
struct Ctx<'a> {
    lib: &'a Library,
    core: Pmu<'a>,
    /// The uncore PMU dispatched beside the core (none on Nehalem EX).
    uncore: Option<Pmu<'a>>,
    settings: Settings,
}

/// One event after encoding, ready to place.
struct Placed {
    event: String,
    fstr: String,
    uncore: bool,
    /// Core: PERFEVTSEL value; uncore: UNC_PERFEVTSEL value.
    sel: u64,
    plm: u32,
    anythr: bool,
    pebs: bool,
    ldlat: bool,
    /// Offcore response: which `OFFCORE_RSP` register and its value.
    offcore: Option<(u32, u64)>,
    candidates: Vec<Ctr>,
}

pub(crate) fn dispatch(
    lib: &Library,
    core: Pmu<'_>,
    req: &Request,
) -> Result<Dispatch, DispatchError> {
    let settings = Settings::of(req)?;
    let uncore = source::nehalem_uncore(lib, core);
    let cx = Ctx {
        lib,
        core,
        uncore,
        settings,
    };
    let placed = req
        .events
        .iter()
        .map(|er| prepare(&cx, er))
        .collect::<Result<Vec<_>, _>>()?;
    check_totals(&placed, &cx.settings.pebs)?;
    check_offcore(&cx, &placed)?;
    let slots = assign(&placed)?;
    let (pmcs, pmds) = program(&placed, &slots, &cx.settings)?;
    let assignments = placed
        .iter()
        .zip(&slots)
        .map(|(p, c)| Assignment {
            event: p.event.clone(),
            fstr: p.fstr.clone(),
            counter: c.reg(),
        })
        .collect();
    Ok(Dispatch {
        assignments,
        pmcs,
        pmds,
        irange: None,
        drange: None,
        irange_is_fine: None,
    })
}

/// Checks, encodes and settles one event: its register value, the
/// counters it may use, and the fully-qualified string of what is programmed.
fn prepare(cx: &Ctx<'_>, er: &EventRequest) -> Result<Placed, DispatchError> {
    let (side, plm) = check_event(cx, er)?;
    let (uncore, pmu) = match (side, cx.uncore) {
        (Side::Uncore, Some(u)) => (true, u),
        _ => (false, cx.core),
    };
    // Core counters filter level 0 (OS) and level 3 (USR); 1 and 2 are refused.
    let enc_plm = Plm::from_bits(plm & (PLM0 | PLM3)).unwrap_or(Plm::DEFAULT);
    let enc = source::encode_event(cx.lib, pmu, &er.event, enc_plm).map_err(|e| match e {
        SourceError::Library(e) => from_encode(e, &er.event),
        SourceError::OtherPmu(other) => err(
            K::Invalid,
            format!("event {:?} resolves to PMU {other}", er.event),
        ),
        SourceError::Table(m) => err(K::Invalid, m),
    })?;
    let sel = if uncore {
        uncore_sel(&enc, er)?
    } else {
        core_sel(&enc, er)?
    };
    let pebs = cx.settings.pebs.used && enc.pebs && !uncore;
    if pebs && (sel.modified || sel.any_thread) {
        return Err(err(
            K::FeatureCombination,
            format!(
                "event {:?}: a PEBS event must not use inv, edge, cnt_mask or anythr",
                er.event
            ),
        ));
    }
    let ldlat = enc.uses_ldlat_umask && !uncore;
    let fstr = qualified(cx, er, &enc, &sel, ldlat)?;
    let offcore = if uncore { None } else { offcore(er, &enc)? };
    let candidates = candidates(&enc, uncore, sel.modified, pebs);
    if candidates.is_empty() {
        return Err(err(
            K::NoAssign,
            format!("event {:?} has no counter that supports it with these settings (fixed counters take no inv, edge or cnt_mask, nor PEBS)", er.event),
        ));
    }
    Ok(Placed {
        event: er.event.clone(),
        fstr,
        uncore,
        sel: sel.value,
        plm,
        anythr: er.flags.contains(&EventFlag::Anythr),
        pebs,
        ldlat,
        offcore,
        candidates,
    })
}

/// The fully-qualified string of an event as programmed: the encoder's,
/// with the request's counter mask and flags in its modifiers and the
/// load-latency threshold of `PEBS_LD_LAT_THRESHOLD` (none when that
/// register is not programmed). A threshold the string gives must be the
/// one programmed.
fn qualified(
    cx: &Ctx<'_>,
    er: &EventRequest,
    enc: &EncodedEvent,
    sel: &Sel,
    ldlat: bool,
) -> Result<String, DispatchError> {
    let pebs = &cx.settings.pebs;
    let threshold = (ldlat && pebs.used && pebs.ld_lat_thres != 0).then_some(pebs.ld_lat_thres);
    if let Some(given) = enc.ldlat_given {
        if threshold.map(u64::from) != Some(given) {
            return Err(err(
                K::FeatureCombination,
                format!(
                    "event {:?}: its string sets ldlat={given} but the programmed threshold is {}: give the threshold in nhm.pebs.ld_lat_thres (with pebs.used)",
                    er.event,
                    threshold.map_or_else(|| "none".to_string(), |t| t.to_string())
                ),
            ));
        }
    }
    let mods: Vec<(&str, Option<u64>)> = if sel.uncore {
        let u = UncPerfEvtSel(sel.value);
        vec![
            ("e", Some(u.edge())),
            ("i", Some(u.inv())),
            ("c", Some(u.cmask())),
            ("o", Some(u.occ_rst())),
        ]
    } else {
        let c = PerfEvtSel(sel.value);
        vec![
            ("e", Some(c.edge())),
            ("i", Some(c.inv())),
            ("c", Some(c.cmask())),
            ("t", Some(c.any_thread())),
            ("ldlat", threshold.map(u64::from)),
        ]
    };
    Ok(with_modifiers(&enc.fstr, &mods))
}

/// `fstr` (`pmu::EVENT[:UMASK...][:name=value...]`) with the value of each
/// modifier of `mods` replaced (`None`: the modifier left out); a modifier
/// the string lacks is appended when its value is not 0.
fn with_modifiers(fstr: &str, mods: &[(&str, Option<u64>)]) -> String {
    let (prefix, rest) = fstr.split_once("::").unwrap_or(("", fstr));
    let mut seen = vec![false; mods.len()];
    let mut parts: Vec<String> = Vec::new();
    for part in rest.split(':') {
        let known = part
            .split_once('=')
            .and_then(|(name, _)| mods.iter().position(|(m, _)| *m == name));
        match known {
            Some(k) => {
                seen[k] = true;
                if let (name, Some(v)) = mods[k] {
                    parts.push(format!("{name}={v}"));
                }
            }
            None => parts.push(part.to_string()),
        }
    }
    for (&(name, value), seen) in mods.iter().zip(seen) {
        match value {
            Some(v) if !seen && v != 0 => parts.push(format!("{name}={v}")),
            _ => {}
        }
    }
    format!("{prefix}::{}", parts.join(":"))
}

/// The `OFFCORE_RSP` register an offcore-response event programs, and its
/// value (the request and response masks of its unit masks).
fn offcore(er: &EventRequest, enc: &EncodedEvent) -> Result<Option<(u32, u64)>, DispatchError> {
    let Some(value) = enc.offcore else {
        return Ok(None);
    };
    let select = PerfEvtSel(enc.code).event_select();
    OFFCORE_SELECTS
        .iter()
        .find(|&&(s, _)| s == select)
        .map(|&(_, msr)| Some((msr, value)))
        .ok_or_else(|| {
            err(
                K::Invalid,
                format!(
                    "event {:?}: no offcore-response register is known for event select {select:#x}",
                    er.event
                ),
            )
        })
}

/// The request fields of one event: which PMU, its privilege levels, and
/// the per-event settings that PMU takes.
fn check_event(cx: &Ctx<'_>, er: &EventRequest) -> Result<(Side, u32), DispatchError> {
    let invalid = |what: String| err(K::Invalid, format!("event {:?}{what}", er.event));
    let side = nehalem_side(&er.event, cx.core, cx.uncore).ok_or_else(|| {
        invalid(match cx.uncore {
            Some(u) => format!(" is not a {} or {} event", cx.core.name(), u.name()),
            None => format!(
                " is not a {} event ({} has no uncore PMU that dispatch programs)",
                cx.core.name(),
                cx.core.info().desc
            ),
        })
    })?;
    let uncore = side == Side::Uncore;
    let plm = match &er.plm {
        Some(p) => parse_plm(p)?,
        None => cx.settings.dfl_plm,
    };
    if uncore {
        if plm != PLM0 | PLM3 {
            return Err(err(
                K::Invalid,
                format!("uncore event {:?}: the uncore counts every privilege level, so its plm must be exactly kernel and user (\"uk\")", er.event),
            ));
        }
    } else if plm & PLM12 != 0 {
        return Err(invalid(
            ": the core counters distinguish only level 0 (k) and the other levels together (u, the USR bit): PLM1 and PLM2 are refused, as for the LBR".into(),
        ));
    } else if plm & PLM_H != 0 || plm == 0 {
        return Err(invalid(
            ": Nehalem core counters filter levels 0 (k) and 3 (u) only".into(),
        ));
    }
    if er.cnt_mask > 255 {
        return Err(invalid(format!(
            ": cnt_mask={} is out of range [0-255]",
            er.cnt_mask
        )));
    }
    if let Some(f) = er
        .flags
        .iter()
        .find(|f| matches!(f, EventFlag::NoQualcheck | EventFlag::AllThreads))
    {
        return Err(invalid(format!(": {f:?} is an IA-64 flag")));
    }
    if er.thres != 0 || er.ism.is_some() {
        return Err(invalid(
            ": thres and ism are IA-64 settings; Nehalem uses cnt_mask".into(),
        ));
    }
    if uncore && er.flags.contains(&EventFlag::Anythr) {
        return Err(invalid(
            ": anythr is a core-PMU flag, not valid for the uncore".into(),
        ));
    }
    if !uncore && er.flags.contains(&EventFlag::OccRst) {
        return Err(invalid(
            ": occ_rst is an uncore flag, not valid for core events".into(),
        ));
    }
    Ok((side, plm))
}

/// libpfm4's error kinds as libpfm-3 ones.
fn from_encode(e: pfmlib::Error, event: &str) -> DispatchError {
    let kind = match e.kind() {
        ErrorKind::NotFound => K::NotFound,
        ErrorKind::Umask => K::Umask,
        ErrorKind::FeatureCombination => K::FeatureCombination,
        _ => K::Invalid,
    };
    err(kind, format!("event {event:?}: {e}"))
}

/// An event-select value with the request's settings applied.
struct Sel {
    value: u64,
    /// Uses inv, edge, a counter mask or occ_rst (no fixed counter then).
    modified: bool,
    any_thread: bool,
    /// An `UNC_PERFEVTSEL` value (else `PERFEVTSEL`).
    uncore: bool,
}

/// The counter mask of a request, refused when the string set another.
fn cnt_mask(er: &EventRequest, have: u64) -> Result<Option<u64>, DispatchError> {
    if er.cnt_mask == 0 {
        return Ok(None);
    }
    if have != 0 && have != u64::from(er.cnt_mask) {
        return Err(err(
            K::FeatureCombination,
            format!(
                "event {:?}: its string sets c={have} but cnt_mask is {}",
                er.event, er.cnt_mask
            ),
        ));
    }
    Ok(Some(u64::from(er.cnt_mask)))
}

/// `PERFEVTSEL`: the encoding plus cnt_mask, inv, edge, anythr.
fn core_sel(enc: &EncodedEvent, er: &EventRequest) -> Result<Sel, DispatchError> {
    let has = |f: EventFlag| er.flags.contains(&f);
    let mut c = PerfEvtSel(enc.code);
    if let Some(m) = cnt_mask(er, c.cmask())? {
        c.set_cmask(m);
    }
    if has(EventFlag::Inv) {
        c.set_inv(1);
    }
    if has(EventFlag::Edge) {
        c.set_edge(1);
    }
    if has(EventFlag::Anythr) {
        c.set_any_thread(1);
    }
    Ok(Sel {
        value: c.0,
        modified: c.inv() != 0 || c.edge() != 0 || c.cmask() != 0,
        any_thread: c.any_thread() != 0,
        uncore: false,
    })
}

/// `UNC_PERFEVTSEL`: the encoding plus cnt_mask, inv, edge, occ_rst.
fn uncore_sel(enc: &EncodedEvent, er: &EventRequest) -> Result<Sel, DispatchError> {
    let has = |f: EventFlag| er.flags.contains(&f);
    let mut u = UncPerfEvtSel(enc.code);
    if let Some(m) = cnt_mask(er, u.cmask())? {
        u.set_cmask(m);
    }
    if has(EventFlag::Inv) {
        u.set_inv(1);
    }
    if has(EventFlag::Edge) {
        u.set_edge(1);
    }
    if has(EventFlag::OccRst) {
        u.set_occ_rst(1);
    }
    Ok(Sel {
        value: u.0,
        modified: u.inv() != 0 || u.edge() != 0 || u.cmask() != 0 || u.occ_rst() != 0,
        any_thread: false,
        uncore: true,
    })
}

/// The counters an event may use, in preference order: fixed counters first
/// (when nothing needs a generic one), then generic counters by index.
fn candidates(enc: &EncodedEvent, uncore: bool, modified: bool, pebs: bool) -> Vec<Ctr> {
    let m = enc.counters;
    let mut v = Vec::new();
    if uncore {
        if m & (1 << 32) != 0 && !modified {
            v.push(Ctr::UncFixed);
        }
        v.extend(
            (0..NUM_UNC_GEN)
                .filter(|i| m & (1 << i) != 0)
                .map(Ctr::UncGen),
        );
    } else {
        if !modified && !pebs && !enc.uses_ldlat_umask {
            v.extend(
                (0..NUM_FIXED)
                    .filter(|j| m & (1 << (32 + j)) != 0)
                    .map(Ctr::Fixed),
            );
        }
        v.extend((0..NUM_GEN).filter(|i| m & (1 << i) != 0).map(Ctr::Gen));
    }
    v
}

/// Counts and PEBS / load-latency rules over all the events.
fn check_totals(placed: &[Placed], pebs: &PebsParams) -> Result<(), DispatchError> {
    let n_core = placed.iter().filter(|p| !p.uncore).count() as u32;
    let n_unc = placed.len() as u32 - n_core;
    if n_core > NUM_GEN + NUM_FIXED || n_unc > NUM_UNC_GEN + 1 {
        return Err(err(
            K::TooMany,
            format!("{n_core} core and {n_unc} uncore events: at most {} core and {} uncore counters exist", NUM_GEN + NUM_FIXED, NUM_UNC_GEN + 1),
        ));
    }
    if pebs.used && !placed.iter().any(|p| p.pebs) {
        return Err(err(
            K::Invalid,
            "pebs.used is set but no event supports PEBS with the unit masks given",
        ));
    }
    if pebs.ld_lat_thres != 0 && !placed.iter().any(|p| p.ldlat && !p.uncore) {
        return Err(err(
            K::Invalid,
            "load-latency filtering needs MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD among the events",
        ));
    }
    if pebs.used && pebs.ld_lat_thres == 0 && placed.iter().any(|p| p.ldlat) {
        return Err(err(
            K::Invalid,
            "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD with PEBS needs a threshold: set pebs.ld_lat_thres (> 3)",
        ));
    }
    Ok(())
}

/// Offcore-response events share their `OFFCORE_RSP` register: two that
/// need different values in one register cannot be counted together.
fn check_offcore(cx: &Ctx<'_>, placed: &[Placed]) -> Result<(), DispatchError> {
    for (k, p) in placed.iter().enumerate() {
        let Some((msr, value)) = p.offcore else {
            continue;
        };
        let clash = placed[..k].iter().find_map(|q| {
            q.offcore
                .filter(|&(m, v)| m == msr && v != value)
                .map(|(_, v)| (q, v))
        });
        if let Some((q, other)) = clash {
            let reg = OFFCORE_RSP.at(msr);
            let hint = if msr == 0 && cx.core.event("OFFCORE_RESPONSE_1").is_some() {
                " (OFFCORE_RESPONSE_1 has its own register, OFFCORE_RSP_1)"
            } else {
                ""
            };
            return Err(err(
                K::FeatureCombination,
                format!(
                    "events {:?} and {:?} both need {} ({:#x}) with different request/response masks ({other:#x}, {value:#x}): it holds one, so count them in separate runs{hint}",
                    q.event, p.event, reg.name, reg.addr
                ),
            ));
        }
    }
    Ok(())
}

/// One counter per event: the core and the uncore events are placed
/// separately (they share no counter).
fn assign(placed: &[Placed]) -> Result<Vec<Ctr>, DispatchError> {
    // Every entry is overwritten: each event is core or uncore.
    let mut slots = vec![Ctr::UncFixed; placed.len()];
    for uncore in [false, true] {
        let idx: Vec<usize> = (0..placed.len())
            .filter(|&i| placed[i].uncore == uncore)
            .collect();
        let cands: Vec<&[Ctr]> = idx.iter().map(|&i| &placed[i].candidates[..]).collect();
        let Some(found) = place(&cands) else {
            let names: Vec<_> = idx.iter().map(|&i| placed[i].event.as_str()).collect();
            return Err(err(
                K::NoAssign,
                format!(
                    "the {} events cannot all be placed on counters (each has its counter constraints): {}",
                    if uncore { "uncore" } else { "core" },
                    names.join(", ")
                ),
            ));
        };
        for (&i, c) in idx.iter().zip(found) {
            slots[i] = c;
        }
    }
    Ok(slots)
}

/// Places every event on a distinct counter of its candidates: most
/// constrained first, each on its first candidate that still leaves a
/// counter for every later event (checked by bipartite matching). This is
/// the assignment a backtracking search in that order finds first, in
/// polynomial time: a request that cannot be placed fails at once.
fn place(cands: &[&[Ctr]]) -> Option<Vec<Ctr>> {
    let mut order: Vec<usize> = (0..cands.len()).collect();
    order.sort_by_key(|&i| cands[i].len());
    let mut taken: Vec<Ctr> = Vec::with_capacity(cands.len());
    if !matchable(cands, &order, &taken) {
        return None;
    }
    let mut slots = vec![None; cands.len()];
    for (k, &i) in order.iter().enumerate() {
        let rest = &order[k + 1..];
        let c = cands[i].iter().copied().find(|&c| {
            if taken.contains(&c) {
                return false;
            }
            taken.push(c);
            let ok = matchable(cands, rest, &taken);
            taken.pop();
            ok
        })?;
        taken.push(c);
        slots[i] = Some(c);
    }
    slots.into_iter().collect()
}

/// Whether the events `rest` can each get a distinct counter among their
/// candidates, none of them `taken` (Kuhn's augmenting paths).
fn matchable(cands: &[&[Ctr]], rest: &[usize], taken: &[Ctr]) -> bool {
    /// Finds a counter for `rest[k]`, moving earlier events when needed.
    fn augment(
        k: usize,
        rest: &[usize],
        cands: &[&[Ctr]],
        taken: &[Ctr],
        owner: &mut Vec<(Ctr, usize)>,
        seen: &mut Vec<Ctr>,
    ) -> bool {
        for &c in cands[rest[k]] {
            if taken.contains(&c) || seen.contains(&c) {
                continue;
            }
            seen.push(c);
            match owner.iter().position(|&(o, _)| o == c) {
                None => {
                    owner.push((c, k));
                    return true;
                }
                Some(p) => {
                    if augment(owner[p].1, rest, cands, taken, owner, seen) {
                        owner[p].1 = k;
                        return true;
                    }
                }
            }
        }
        false
    }
    let mut owner = Vec::with_capacity(rest.len());
    (0..rest.len()).all(|k| augment(k, rest, cands, taken, &mut owner, &mut Vec::new()))
}

/// The registers being programmed.
#[derive(Default)]
struct Registers {
    pmcs: Vec<RegValue>,
    pmds: Vec<Reg>,
    fixed_ctrl: FixedCtrCtrl,
    global: PerfGlobalCtrl,
    pebs_enable: PebsEnable,
    offcore: [Option<u64>; 2],
    unc_fixed_ctrl: UncFixedCtrCtrl,
    unc_global: UncPerfGlobalCtrl,
}

/// Every register: the counters in register order, then the control
/// registers, then the LBR.
fn program(
    placed: &[Placed],
    slots: &[Ctr],
    s: &Settings,
) -> Result<(Vec<RegValue>, Vec<Reg>), DispatchError> {
    let mut r = Registers::default();
    let mut order: Vec<(Ctr, &Placed)> = slots.iter().copied().zip(placed).collect();
    order.sort_by_key(|&(c, _)| c);
    for (ctr, p) in order {
        program_counter(&mut r, ctr, p, s.pebs.ld_lat_thres != 0);
        r.pmds.push(ctr.reg());
    }
    program_controls(&mut r, &s.pebs);
    if s.lbr.used {
        program_lbr(&mut r, &s.lbr, s.dfl_plm)?;
    }
    Ok((r.pmcs, r.pmds))
}

/// One counter's event select and its enable bits.
fn program_counter(r: &mut Registers, ctr: Ctr, p: &Placed, ld_lat: bool) {
    if let Some((msr, value)) = p.offcore {
        if let Some(slot) = r.offcore.get_mut(msr as usize) {
            *slot = Some(value);
        }
    }
    match ctr {
        Ctr::Gen(k) => {
            r.pmcs.push(PERFEVTSEL.value(k, p.sel));
            r.global.set_pmc_en(r.global.pmc_en() | 1 << k);
            if p.pebs {
                r.pebs_enable.set_pebs_en(r.pebs_enable.pebs_en() | 1 << k);
                if p.ldlat && ld_lat {
                    r.pebs_enable
                        .set_ld_lat_en(r.pebs_enable.ld_lat_en() | 1 << k);
                }
            }
        }
        Ctr::Fixed(j) => {
            let mut f = FixedCtrCtrl::default();
            f.set_os0(u64::from(p.plm & PLM0 != 0));
            f.set_usr0(u64::from(p.plm & PLM3 != 0));
            f.set_any0(u64::from(p.anythr));
            f.set_pmi0(1);
            r.fixed_ctrl.0 |= f.for_counter(j).0;
            r.global.set_fixed_en(r.global.fixed_en() | 1 << j);
        }
        Ctr::UncGen(k) => {
            r.pmcs.push(UNC_PERFEVTSEL.value(k, p.sel));
            r.unc_global.set_pmc_en(r.unc_global.pmc_en() | 1 << k);
        }
        Ctr::UncFixed => {
            r.unc_fixed_ctrl.set_en(1);
            r.unc_fixed_ctrl.set_pmi(1);
            r.unc_global.set_fixed_en(1);
        }
    }
}

/// The offcore-response registers in use, then the control registers
/// that have something set (PEBS ones when asked).
fn program_controls(r: &mut Registers, pebs: &PebsParams) {
    for (k, v) in r.offcore.iter().enumerate() {
        if let Some(v) = v {
            r.pmcs.push(OFFCORE_RSP.value(k as u32, *v));
        }
    }
    let mut push = |msr: &Msr, value: u64, wanted: bool| {
        if wanted {
            r.pmcs.push(msr.value(0, value));
        }
    };
    push(&FIXED_CTR_CTRL, r.fixed_ctrl.0, r.fixed_ctrl.0 != 0);
    push(&PERF_GLOBAL_CTRL, r.global.0, r.global.0 != 0);
    push(&PEBS_ENABLE, r.pebs_enable.0, pebs.used);
    push(
        &PEBS_LD_LAT_THRESHOLD,
        u64::from(pebs.ld_lat_thres),
        pebs.used && pebs.ld_lat_thres != 0,
    );
    push(
        &UNC_FIXED_CTR_CTRL,
        r.unc_fixed_ctrl.0,
        r.unc_fixed_ctrl.0 != 0,
    );
    push(&UNC_PERF_GLOBAL_CTRL, r.unc_global.0, r.unc_global.0 != 0);
}

/// `LBR_SELECT` and the LBR registers to read.
fn program_lbr(r: &mut Registers, lbr: &LbrParams, dfl_plm: u32) -> Result<(), DispatchError> {
    let plm = match &lbr.plm {
        Some(p) if !p.is_empty() => parse_plm(p)?,
        _ => dfl_plm,
    };
    if plm & PLM12 != 0 {
        return Err(err(
            K::Invalid,
            "the LBR distinguishes only level 0 (k) and level 3 (u): PLM1 and PLM2 are refused",
        ));
    }
    if plm & PLM_H != 0 || plm == 0 {
        return Err(err(K::Invalid, "LBR plm must be u, k or uk"));
    }
    let mut s = LbrSelect::default();
    s.set_cpl_eq_0(u64::from(plm & PLM0 == 0));
    s.set_cpl_neq_0(u64::from(plm & PLM3 == 0));
    for f in &lbr.filter {
        match f {
            LbrFilter::Jcc => s.set_jcc(1),
            LbrFilter::NearRelCall => s.set_near_rel_call(1),
            LbrFilter::NearIndCall => s.set_near_ind_call(1),
            LbrFilter::NearRet => s.set_near_ret(1),
            LbrFilter::NearIndJmp => s.set_near_ind_jmp(1),
            LbrFilter::NearRelJmp => s.set_near_rel_jmp(1),
            LbrFilter::FarBranch => s.set_far_branch(1),
        }
    }
    r.pmcs.push(LBR_SELECT.value(0, s.0));
    r.pmds.push(LBR_TOS.at(0));
    r.pmds.extend((0..LBR_DEPTH).map(|i| LBR_FROM_IP.at(i)));
    r.pmds.extend((0..LBR_DEPTH).map(|i| LBR_TO_IP.at(i)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The backtracking search `place` replaces: most constrained first,
    /// candidates in order, the first complete assignment found.
    fn backtrack(cands: &[&[Ctr]]) -> Option<Vec<Ctr>> {
        fn go(k: usize, order: &[usize], cands: &[&[Ctr]], slots: &mut [Option<Ctr>]) -> bool {
            let Some(&i) = order.get(k) else {
                return true;
            };
            for &c in cands[i] {
                if slots.contains(&Some(c)) {
                    continue;
                }
                slots[i] = Some(c);
                if go(k + 1, order, cands, slots) {
                    return true;
                }
                slots[i] = None;
            }
            false
        }
        let mut order: Vec<usize> = (0..cands.len()).collect();
        order.sort_by_key(|&i| cands[i].len());
        let mut slots = vec![None; cands.len()];
        go(0, &order, cands, &mut slots).then(|| slots.into_iter().flatten().collect())
    }

    #[test]
    fn placement_is_the_backtracking_search_s_first_answer() {
        let all: Vec<Ctr> = (0..NUM_FIXED)
            .map(Ctr::Fixed)
            .chain((0..NUM_GEN).map(Ctr::Gen))
            .collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..3000 {
            let n = (next() % 8) as usize + 1;
            let sets: Vec<Vec<Ctr>> = (0..n)
                .map(|_| {
                    let mask = next();
                    all.iter()
                        .enumerate()
                        .filter(|(j, _)| mask >> j & 1 != 0)
                        .map(|(_, &c)| c)
                        .collect()
                })
                .collect();
            let cands: Vec<&[Ctr]> = sets.iter().map(Vec::as_slice).collect();
            assert_eq!(place(&cands), backtrack(&cands), "{cands:?}");
        }
    }

    #[test]
    fn modifiers_are_rewritten_or_appended() {
        let mods = [
            ("e", Some(1)),
            ("c", Some(2)),
            ("ldlat", None),
            ("o", Some(0)),
        ];
        assert_eq!(
            with_modifiers("nhm::EV:UM:k=1:e=0:c=0:ldlat=3", &mods),
            "nhm::EV:UM:k=1:e=1:c=2"
        );
        assert_eq!(
            with_modifiers("nhm::EV:0x12", &mods),
            "nhm::EV:0x12:e=1:c=2"
        );
    }
}
