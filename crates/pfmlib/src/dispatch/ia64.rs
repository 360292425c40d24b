//! IA-64 dispatch (libpfm-3's `pfm_dispatch_events` for Itanium, Itanium 2
//! and Montecito): counter assignment, thresholds, instruction sets, Event
//! Address Registers, branch / execution trace buffers, IP-EAR, opcode
//! matchers and code / data range restriction through debug-register pairs.
//!
//! The steps run in libpfm-3's order and the first error ends the dispatch:
//!
//! | step | Itanium | Itanium 2 | Montecito |
//! |---|---|---|---|
//! | qualifiers, range plm | yes | yes | yes |
//! | counters | PMC4-7 | PMC4-7, cache groups | PMC4-15, cache groups |
//! | I-EAR | PMC10 | PMC10 | PMC37 |
//! | D-EAR | PMC11 | PMC11 | PMC40 |
//! | then | PMC8/9, BTB PMC12, code range PMC13, data range | code range PMC14, PMC13, PMC8/9/15, BTB PMC12 | code range PMC38, PMC41, PMC32-35, ETB PMC39, IP-EAR PMC42 |
//!
//! Where libpfm-3 contradicted the seed documents (a threshold at or above
//! the maximum increment, fine-mode masks cut to 32 bits, the Itanium BTB
//! register overwritten, fine-mode offsets all in slot 0), the documents win.

use super::{
    parse_plm, Assignment, BtbParams, Dispatch, DispatchError, DispatchErrorKind as K,
    EarModeParam, EarParams, EventFlag, Ia64Params, RangeInfo, RangeParams, RangeResult, Reg,
    RegValue, Request,
};
use crate::error::ErrorKind;
use crate::event::parse_event;
use crate::ia64::{Ia64Ear, Ia64Group, Ia64Model};
use crate::model::{AttrCtrl, AttrType, Os, Plm};
use crate::pmu::ia64::{counter_pmc, facts, CounterSetup};
use crate::registry::{Library, Pmu};
use crate::regs::{
    DbrCfg, DbrMask, IbrCfg, Ita2BtbCfg, Ita2DearCfg, Ita2IearCfg, Ita2Opcm, ItaBtbCfg, ItaEarCfg,
    MontIpearCfg, MontOpcmMask, MontOpcmMatch,
};
use crate::tables::{EventDesc, Ia64Desc, PmuDesc};

fn err(kind: K, msg: impl Into<String>) -> DispatchError {
    DispatchError::new(kind, msg)
}

/// One requested event, resolved.
struct Ev {
    /// As requested.
    text: String,
    /// Fully-qualified name (`pmu::EVENT[:MASK...]`).
    fstr: String,
    desc: &'static EventDesc,
    f: &'static Ia64Desc,
    /// Own privilege levels (0: the default).
    plm: u32,
    /// MESI unit masks given, bit = mask index.
    mesi: u64,
    thres: u32,
    ism: u64,
    no_qualcheck: bool,
    all_threads: bool,
}

impl Ev {
    fn code(&self) -> u64 {
        self.desc.code
    }
}

/// Dispatch state: what is emitted so far.
struct Out<'r> {
    model: Ia64Model,
    unavail: &'r [u32],
    pmcs: Vec<(u32, u64)>,
    pmds: Vec<u32>,
}

impl Out<'_> {
    /// Emits a non-counter PMC, refusing one the caller marked unavailable.
    fn emit(&mut self, reg: u32, value: u64) -> Result<(), DispatchError> {
        self.check_avail(reg)?;
        self.pmcs.push((reg, value));
        Ok(())
    }

    fn check_avail(&self, reg: u32) -> Result<(), DispatchError> {
        if self.unavail.contains(&reg) {
            return Err(err(
                K::NoAssign,
                format!(
                    "PMC{reg} is needed ({:?}) but listed in unavail_pmcs",
                    self.model
                ),
            ));
        }
        Ok(())
    }
}

/// Debug-register pairs computed for a set of ranges.
#[derive(Default)]
struct Rr {
    /// (register number, value), two per pair.
    br: Vec<(u32, u64)>,
    infos: [(u64, u64); 4],
}

impl Rr {
    fn result(&self, kind: &'static str) -> RangeResult {
        RangeResult {
            rr_nbr_used: self.br.len() as u32,
            rr_br: self
                .br
                .iter()
                .map(|&(n, v)| RegValue {
                    reg: ia64_reg(kind, n),
                    value: v,
                })
                .collect(),
            rr_infos: self
                .infos
                .iter()
                .map(|&(soff, eoff)| RangeInfo { soff, eoff })
                .collect(),
        }
    }

    fn uses(&self, reg: u32) -> bool {
        self.br.iter().any(|&(r, _)| r == reg)
    }
}

const M56: u64 = (1 << 56) - 1;

/// The mask half of a pair covering 2^p bytes at privilege levels `plm`.
fn dbr_mask(p: u32, plm: u32) -> u64 {
    let mut m = DbrMask::default();
    m.set_mask(if p >= 56 { 0 } else { !((1u64 << p) - 1) & M56 });
    m.set_plm(u64::from(plm));
    m.0
}

fn pow2(p: u32) -> u64 {
    if p >= 64 {
        0
    } else {
        1u64 << p
    }
}

fn align_down(a: u64, p: u32) -> u64 {
    if p >= 64 {
        0
    } else {
        a & !((1u64 << p) - 1)
    }
}

/// Index of the most significant set bit.
fn fls(x: u64) -> u32 {
    63 - x.leading_zeros()
}

/// One validated range: start, end, privilege levels (0: default).
type Range = (u64, u64, u32);

/// Checks up to four ranges; a zero range ends the list.
fn check_intervals(rr: &RangeParams, code: bool) -> Result<Vec<Range>, DispatchError> {
    let mut v = Vec::new();
    for (i, r) in rr.ranges.iter().enumerate() {
        if i == 4 {
            return Err(err(
                if code { K::IrrTooMany } else { K::DrrTooMany },
                format!(
                    "{} {} ranges: at most 4",
                    rr.ranges.len(),
                    if code { "code" } else { "data" }
                ),
            ));
        }
        let (s, e) = (r.start.0, r.end.0);
        if s == 0 && e == 0 {
            break;
        }
        if s >= e {
            return Err(err(
                K::IrrInvalid,
                format!("range [{s:#x}, {e:#x}) is empty or reversed: start must be below end"),
            ));
        }
        if code && (s & 0xf != 0 || e & 0xf != 0) {
            return Err(err(
                K::IrrAlign,
                format!("code range [{s:#x}, {e:#x}) is not bundle-aligned: start and end must be multiples of 16"),
            ));
        }
        let plm = match &r.plm {
            Some(p) => plm4(p)?,
            None => 0,
        };
        v.push((s, e, plm));
    }
    if v.is_empty() {
        return Err(if code {
            err(K::IrrInvalid, "code range restriction asked with no range")
        } else {
            err(K::DrrInvalid, "data range restriction asked with no range")
        });
    }
    Ok(v)
}

/// Covers `[start, end)` with at most `nbr` pairs (recursively: one aligned
/// power-of-two block, then the left and right leftovers), never covering
/// less than asked.
#[allow(clippy::too_many_arguments)]
fn cover(
    start: u64,
    end: u64,
    nbr: u32,
    right: bool,
    reg: &mut u32,
    plm: u32,
    br: &mut Vec<(u32, u64)>,
) {
    if nbr < 1 || end <= start {
        return;
    }
    let size = end - start;
    let mut p = fls(size);
    let c = align_down(end, p);
    let mut l = if c.wrapping_sub(pow2(p)) >= start && c >= pow2(p) {
        c - pow2(p)
    } else {
        p = p.saturating_sub(1);
        if c.checked_add(pow2(p)).is_some_and(|x| x <= end) {
            c
        } else {
            c.wrapping_sub(pow2(p))
        }
    };
    let lsz = l.wrapping_sub(start);
    let rsz = end.wrapping_sub(l.wrapping_add(pow2(p)));
    if !right && lsz != 0 && nbr == 1 {
        p += 1;
        l = end.wrapping_sub(pow2(p));
    } else if right && rsz != 0 && nbr == 1 {
        p += 1;
        l = start;
    }
    let lsz = l.wrapping_sub(start);
    let rsz = end.wrapping_sub(l.wrapping_add(pow2(p)));
    br.push((*reg, l));
    br.push((*reg + 1, dbr_mask(p, plm)));
    *reg += 2;
    let nbr = nbr - 1;
    if nbr > 0 {
        let (mut ln, mut rn) = (nbr / 2, nbr / 2);
        if nbr & 1 != 0 {
            if lsz > rsz {
                ln += 1;
            } else {
                rn += 1;
            }
        }
        cover(start, l, ln, false, reg, plm, br);
        cover(l.wrapping_add(pow2(p)), end, rn, true, reg, plm, br);
    }
}

/// Covers every range with the debug-register pairs left (normal mode).
fn cover_all(
    ranges: &[Range],
    dfl_plm: u32,
    base: u32,
    rr: &mut Rr,
    code: bool,
) -> Result<(), DispatchError> {
    let mut reg = base;
    for (i, &(s, e, plm)) in ranges.iter().enumerate() {
        if rr.br.len() >= 8 || reg >= 8 {
            return Err(err(
                if code { K::IrrTooMany } else { K::DrrTooMany },
                format!(
                    "{} range {} of {} finds no debug-register pair left (4 pairs in all)",
                    if code { "code" } else { "data" },
                    i + 1,
                    ranges.len()
                ),
            ));
        }
        let prev = rr.br.len();
        let plm = if plm != 0 { plm } else { dfl_plm };
        cover(s, e, 4 - reg / 2, false, &mut reg, plm, &mut rr.br);
        let (mut soff, mut eoff) = (0, 0);
        for pair in rr.br[prev..].chunks(2) {
            let base = pair[0].1;
            let m = pair[1].1 & M56;
            let size = (!m).wrapping_add(1) & M56;
            if base <= s {
                soff = s - base;
            }
            if base.wrapping_add(size) >= e {
                eoff = base.wrapping_add(size) - e;
            }
        }
        rr.infos[i] = (soff, eoff);
    }
    Ok(())
}

/// One pair covering the first range: the smallest aligned power-of-two block.
fn cover_single(
    ranges: &[Range],
    dfl_plm: u32,
    base: u32,
    rr: &mut Rr,
) -> Result<(), DispatchError> {
    let (s, e, plm) = ranges[0];
    let size = e - s;
    let l = fls(size);
    let mut m = l;
    if size & (pow2(l) - 1) != 0 {
        if l > 62 {
            return Err(err(
                K::IrrTooBig,
                format!("code range [{s:#x}, {e:#x}) is too big for one debug-register pair"),
            ));
        }
        m += 1;
    }
    let mut found = None;
    while m < 64 {
        let ps = align_down(s, m);
        let pe = ps.wrapping_add(pow2(m));
        if pe >= e {
            found = Some((ps, pe));
            break;
        }
        m += 1;
    }
    let Some((ps, pe)) = found else {
        return Err(err(
            K::IrrInvalid,
            format!("code range [{s:#x}, {e:#x}) cannot be covered by one aligned block"),
        ));
    };
    let plm = if plm != 0 { plm } else { dfl_plm };
    rr.br.push((base, ps));
    rr.br.push((base + 1, dbr_mask(m, plm)));
    rr.infos[0] = (s - ps, pe - e);
    Ok(())
}

/// Fine mode: per range a lower and an upper pair (registers `reg`, `reg+4`).
fn cover_fine(
    ranges: &[Range],
    dfl_plm: u32,
    base: u32,
    rr: &mut Rr,
    boundary_bits: u32,
    erratum: bool,
) -> Result<u32, DispatchError> {
    if ranges.len() > 2 {
        return Err(err(
            K::IrrTooMany,
            format!("{} code ranges in fine mode: at most 2", ranges.len()),
        ));
    }
    let mut reg = base;
    for (i, &(s, e, plm)) in ranges.iter().enumerate() {
        let plm = if plm != 0 { plm } else { dfl_plm };
        let mut m = DbrMask::default();
        m.set_mask(!(pow2(boundary_bits) - 1) & M56);
        m.set_plm(u64::from(plm));
        let lo = if erratum { align_down(s, 5) } else { s };
        let mut hi = e - 0x10;
        if erratum && hi & 0x1f == 0 {
            hi = hi.wrapping_add(0x10);
        }
        rr.br.push((reg, lo));
        rr.br.push((reg + 1, m.0));
        rr.br.push((reg + 4, hi));
        rr.br.push((reg + 5, m.0));
        rr.infos[i] = (s - lo, hi.wrapping_add(0x10).wrapping_sub(e));
        reg += 2;
    }
    Ok(reg)
}

/// Privilege-level letters to a 4-bit IA-64 mask (no hypervisor level).
fn plm4(s: &str) -> Result<u32, DispatchError> {
    let p = parse_plm(s)?;
    if p & 0x10 != 0 {
        return Err(err(
            K::Invalid,
            format!("privilege levels {s:?}: IA-64 has no hypervisor level (use k, 1, 2, u)"),
        ));
    }
    Ok(p)
}

fn opt_plm4(s: &Option<String>) -> Result<u32, DispatchError> {
    match s {
        Some(p) => plm4(p),
        None => Ok(0),
    }
}

/// An IA-64 register of a kind (`PMC`, `PMD`, `IBR`, `DBR`); its number is its address.
fn ia64_reg(kind: &'static str, n: u32) -> Reg {
    Reg {
        name: format!("{kind}{n}"),
        reg: kind,
        index: n,
        addr: u64::from(n),
    }
}

fn pmc_reg(n: u32) -> Reg {
    ia64_reg("PMC", n)
}

fn pmd_reg(n: u32) -> Reg {
    ia64_reg("PMD", n)
}

fn ear_mode(e: Ia64Ear) -> u64 {
    match e {
        Ia64Ear::DearTlb | Ia64Ear::IearTlb => 1,
        Ia64Ear::DearAlat => 2,
        _ => 0,
    }
}

fn param_mode(p: &EarParams) -> u64 {
    match p.mode {
        None | Some(EarModeParam::Cache) => 0,
        Some(EarModeParam::Tlb) => 1,
        Some(EarModeParam::Alat) => 2,
    }
}

/// Resolved EAR configuration: mode, umask, plm (0: default), ism.
struct EarCfg {
    mode: u64,
    umask: u64,
    plm: u32,
    ism: u64,
}

/// EAR methods: parameters given (2, 4), an EAR event only (1), nothing (3).
fn ear_cfg(
    params: Option<&EarParams>,
    evs: &[Ev],
    is: impl Fn(&Ev) -> bool,
    last: bool,
) -> Result<Option<EarCfg>, DispatchError> {
    if let Some(p) = params {
        return Ok(Some(EarCfg {
            mode: param_mode(p),
            umask: p.umask.0,
            plm: opt_plm4(&p.plm)?,
            ism: p.ism.map_or(0, |i| i.code()),
        }));
    }
    let mut it = evs.iter().filter(|e| is(e));
    let ev = if last { it.last() } else { it.next() };
    Ok(ev.map(|e| EarCfg {
        mode: ear_mode(e.f.ear),
        umask: u64::from(e.f.umask),
        plm: 0,
        ism: 0,
    }))
}

/// Resolves the events of a request.
fn resolve(lib: &Library, pmu: &'static PmuDesc, req: &Request) -> Result<Vec<Ev>, DispatchError> {
    let mut evs = Vec::with_capacity(req.events.len());
    for er in &req.events {
        let full = if er.event.contains("::") {
            er.event.clone()
        } else {
            format!("{}::{}", pmu.name, er.event)
        };
        let d = parse_event(lib, &full, Os::None, Plm::DEFAULT).map_err(|e| {
            let kind = match e.kind() {
                ErrorKind::NotFound => K::NotFound,
                ErrorKind::Umask | ErrorKind::Attr => K::Umask,
                _ => K::Invalid,
            };
            err(kind, format!("event {:?}: {}", er.event, e))
        })?;
        if !std::ptr::eq(d.pmu, pmu) {
            return Err(err(
                K::Invalid,
                format!("event {:?} is not an event of PMU {}", er.event, pmu.name),
            ));
        }
        let desc = &pmu.events[d.event];
        let f = facts(desc).map_err(|e| err(K::Invalid, e.to_string()))?;
        let mut mesi = 0u64;
        let mut masks = Vec::new();
        for a in &d.attrs {
            let p = &d.pattrs[a.id];
            match (p.ctrl, p.ty) {
                (AttrCtrl::Pmu, AttrType::Umask) => {
                    mesi |= 1 << p.idx;
                    masks.push(p.name);
                }
                _ => {
                    return Err(err(
                        K::Invalid,
                        format!(
                            "event {:?}: {} is not taken here: give plm, thres and flags as request fields",
                            er.event, p.name
                        ),
                    ))
                }
            }
        }
        let plm = opt_plm4(&er.plm)?;
        let mut fstr = format!("{}::{}", pmu.name, desc.name);
        for m in &masks {
            fstr.push(':');
            fstr.push_str(m);
        }
        if er.cnt_mask != 0 {
            return Err(err(
                K::Invalid,
                format!(
                    "event {:?}: cnt_mask is a Nehalem setting; IA-64 uses thres",
                    er.event
                ),
            ));
        }
        let mut no_qualcheck = false;
        let mut all_threads = false;
        for fl in &er.flags {
            match fl {
                EventFlag::NoQualcheck => no_qualcheck = true,
                EventFlag::AllThreads => all_threads = true,
                other => {
                    return Err(err(
                        K::Invalid,
                        format!("event {:?}: flag {other:?} is not an IA-64 flag (no_qualcheck, all_threads)", er.event),
                    ))
                }
            }
        }
        evs.push(Ev {
            text: er.event.clone(),
            fstr,
            desc,
            f,
            plm,
            mesi,
            thres: er.thres,
            ism: er.ism.map_or(0, |i| i.code()),
            no_qualcheck,
            all_threads,
        });
    }
    Ok(evs)
}

/// Code of a named event of the PMU (for the event classes libpfm-3 tests by code).
fn code_of(pmu: &PmuDesc, name: &str) -> Option<u64> {
    pmu.find_event(name).map(|i| pmu.events[i].code)
}

pub(super) fn dispatch(
    lib: &Library,
    pmu: Pmu<'_>,
    req: &Request,
) -> Result<Dispatch, DispatchError> {
    let p = pmu.desc;
    let model = Ia64Model::from_pmu(p.name)
        .ok_or_else(|| err(K::NotSupported, format!("{} is not an IA-64 PMU", p.name)))?;
    if req.nhm.is_some() {
        return Err(err(K::Invalid, "nhm parameters given for an IA-64 PMU"));
    }
    let evs = resolve(lib, p, req)?;
    let dfl = plm4(req.dfl_plm.as_deref().unwrap_or("uk"))?;
    if dfl == 0 {
        return Err(err(
            K::Invalid,
            "dfl_plm is empty: give at least one privilege level",
        ));
    }
    let ncnt = p.num_cntrs as usize;
    if evs.len() > ncnt {
        return Err(err(
            K::NoAssign,
            format!("{} events for {} counters of {}", evs.len(), ncnt, p.name),
        ));
    }
    for e in &evs {
        if !e.desc.umasks.is_empty() && e.mesi == 0 {
            return Err(err(
                K::Umask,
                format!(
                    "event {:?} needs MESI unit masks: one or more of I, S, E, M",
                    e.text
                ),
            ));
        }
    }
    let no_params = Ia64Params::default();
    let mod_present = req.ia64.is_some()
        || evs
            .iter()
            .any(|e| e.thres != 0 || e.ism != 0 || e.no_qualcheck || e.all_threads);
    let prm = req.ia64.as_ref().unwrap_or(&no_params);
    let sysw = u64::from(req.system_wide);
    let irr_used = prm.irange.is_some();
    let drr_used = prm.drange.is_some();
    let opcm_used = match model {
        Ia64Model::Montecito => prm.opcm1.is_some() || prm.opcm2.is_some(),
        _ => prm.pmc8.is_some() || prm.pmc9.is_some(),
    };
    if model != Ia64Model::Montecito && (prm.opcm1.is_some() || prm.opcm2.is_some()) {
        return Err(err(
            K::Invalid,
            "opcm1/opcm2 are Montecito matchers: use pmc8/pmc9",
        ));
    }
    if model == Ia64Model::Montecito && (prm.pmc8.is_some() || prm.pmc9.is_some()) {
        return Err(err(
            K::Invalid,
            "pmc8/pmc9 are Itanium matchers: Montecito uses opcm1/opcm2",
        ));
    }
    if model == Ia64Model::Montecito && prm.btb.is_some() {
        return Err(err(
            K::Invalid,
            "Montecito has an execution trace buffer: use etb, not btb",
        ));
    }
    if model != Ia64Model::Montecito && (prm.etb.is_some() || prm.ipear.is_some()) {
        return Err(err(K::Invalid, "etb and ipear are Montecito features"));
    }

    // Steps A and B: qualifiers and range privilege levels.
    if mod_present {
        for e in evs.iter().filter(|e| !e.no_qualcheck) {
            let q = e.f.qual;
            let what = if irr_used && q & crate::ia64::qual::IARR == 0 {
                Some("code range restriction")
            } else if drr_used && q & crate::ia64::qual::DARR == 0 {
                Some("data range restriction")
            } else if opcm_used && q & crate::ia64::qual::OPCM == 0 {
                Some("opcode matching")
            } else {
                None
            };
            if let Some(w) = what {
                return Err(err(
                    K::FeatureCombination,
                    format!("{} does not support {w}; add the no_qualcheck flag to count it anyway (unrestricted)", e.fstr),
                ));
            }
        }
        if irr_used || drr_used {
            if let Some(e) = evs.iter().find(|e| e.plm != 0 && e.plm != dfl) {
                return Err(err(
                    K::FeatureCombination,
                    format!("{}: with range restriction every event must use the default privilege levels", e.fstr),
                ));
            }
        }
    }

    let mut out = Out {
        model,
        unavail: &req.unavail_pmcs,
        pmcs: Vec::new(),
        pmds: Vec::new(),
    };

    // Steps C and D: counters.
    let assign = match model {
        Ia64Model::Itanium | Ia64Model::Itanium2 => assign_ita(model, p, &evs, &req.unavail_pmcs)?,
        Ia64Model::Montecito => assign_mont(p, &evs, &req.unavail_pmcs)?,
    };
    for (e, &c) in evs.iter().zip(&assign) {
        if e.all_threads {
            return Err(err(
                K::NotSupported,
                format!("{}: counting all threads (.all) is not supported", e.fstr),
            ));
        }
        if u64::from(e.thres) >= u64::from(e.f.maxincr) {
            return Err(err(
                K::Invalid,
                format!(
                    "{}: threshold {} must be below the event's maximum increment per cycle ({}): valid values are 0-{}",
                    e.fstr,
                    e.thres,
                    e.f.maxincr,
                    e.f.maxincr - 1
                ),
            ));
        }
        let setup = CounterSetup {
            plm: u64::from(if e.plm != 0 { e.plm } else { dfl }),
            system_wide: req.system_wide,
            thres: u64::from(e.thres),
            ism: if model == Ia64Model::Montecito {
                2
            } else {
                e.ism
            },
            mesi: e.mesi,
        };
        out.pmcs.push((c, counter_pmc(model, e.desc, e.f, setup)));
        out.pmds.push(c);
    }

    let cx = Ctx {
        model,
        prm,
        evs: &evs,
        dfl,
        sysw,
    };
    // Step E: instruction EAR.
    iear_step(&cx, &mut out)?;
    // Step F: data EAR.
    let dear_events = dear_step(&cx, drr_used, &mut out)?;
    let mut irr = Rr::default();
    let mut drr = Rr::default();
    let mut fine = false;

    if model == Ia64Model::Itanium {
        // Step G: opcode matchers, raw.
        if let Some(v) = prm.pmc8 {
            out.emit(8, v.0)?;
        }
        if let Some(v) = prm.pmc9 {
            out.emit(9, v.0)?;
        }
        // Step H: branch trace buffer.
        itanium_btb_step(&cx, &mut out)?;
        // Step I: code ranges.
        if let Some(ir) = &prm.irange {
            if ir.no_fine_mode || ir.demand_fetch || ir.prefetch_match {
                // Itanium has no fine mode nor prefetch tagging: the flags change nothing.
            }
            let ranges = check_intervals(ir, true)?;
            cover_all(&ranges, dfl, 0, &mut irr, true)?;
            out.emit(13, 0)?;
        }
        // Step J: data ranges.
        if let Some(dr) = &prm.drange {
            let ranges = check_intervals(dr, false)?;
            cover_all(&ranges, dfl, 0, &mut drr, false)?;
            if !dear_events {
                let mut r = ItaEarCfg::default();
                r.set_plm(u64::from(dfl));
                out.emit(11, r.0)?;
            }
        }
    } else {
        let mont = model == Ia64Model::Montecito;
        // Step G: code ranges.
        if let Some(ir) = &prm.irange {
            fine = code_ranges(p, model, ir, &evs, prm, dfl, &mut irr, &mut out)?;
        }
        // Step H: data-range / code-range tagging.
        if irr_used || drr_used {
            let (o1, o2) = if mont {
                (prm.opcm1.is_some(), prm.opcm2.is_some())
            } else {
                (prm.pmc8.is_some(), prm.pmc9.is_some())
            };
            let op = [
                u8::from(o1) * 2,
                u8::from(o2) * 2,
                u8::from(o1) * 2,
                u8::from(o2) * 2,
            ];
            let mut iod = [0u8; 4];
            if let Some(dr) = &prm.drange {
                let ranges = check_intervals(dr, false)?;
                cover_all(&ranges, dfl, 0, &mut drr, false)?;
                for k in 0..4u32 {
                    if drr.uses(2 * k) {
                        iod[k as usize] |= 1 | op[k as usize];
                    }
                }
            }
            if irr_used {
                for k in 0..4u32 {
                    if (k < 2 || !fine) && irr.uses(2 * k) {
                        iod[k as usize] |= 4 | op[k as usize];
                    }
                }
            }
            const CFG: [u64; 8] = [3, 2, 3, 0, 1, 0, 1, 0];
            let mut r = DbrCfg(0x2078_fefe_fefe);
            r.set_ena_dbrp0(u64::from(iod[0] != 0));
            r.set_ena_dbrp1(u64::from(iod[1] != 0));
            r.set_ena_dbrp2(u64::from(iod[2] != 0));
            r.set_ena_dbrp3(u64::from(iod[3] != 0));
            r.set_cfg_dtag0(CFG[usize::from(iod[0])]);
            r.set_cfg_dtag1(CFG[usize::from(iod[1])]);
            r.set_cfg_dtag2(CFG[usize::from(iod[2])]);
            r.set_cfg_dtag3(CFG[usize::from(iod[3])]);
            out.emit(if mont { 41 } else { 13 }, r.0)?;
        }
        // Step I: opcode matchers.
        if mont {
            mont_opcm(prm, &evs, irr_used, &irr, &mut out)?;
        } else if mod_present {
            ita2_opcm(p, prm, &evs, irr_used, &irr, &mut out)?;
        }
        // Step J: branch / execution trace buffer.
        let found = trace_buffer_step(&cx, &mut out)?;
        // Step K: IP-EAR (Montecito).
        ipear_step(&cx, found, &mut out)?;
    }

    let assignments = evs
        .iter()
        .zip(&assign)
        .map(|(e, &c)| Assignment {
            event: e.text.clone(),
            fstr: e.fstr.clone(),
            counter: pmd_reg(c),
        })
        .collect();
    Ok(Dispatch {
        assignments,
        pmcs: out
            .pmcs
            .iter()
            .map(|&(n, v)| RegValue {
                reg: pmc_reg(n),
                value: v,
            })
            .collect(),
        pmds: out.pmds.iter().map(|&n| pmd_reg(n)).collect(),
        irange: mod_present.then(|| irr.result("IBR")),
        drange: mod_present.then(|| drr.result("DBR")),
        irange_is_fine: (mod_present && model != Ia64Model::Itanium)
            .then_some(!irr.br.is_empty() && fine),
    })
}

/// What the dispatch steps read.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    model: Ia64Model,
    prm: &'a Ia64Params,
    evs: &'a [Ev],
    dfl: u32,
    sysw: u64,
}

/// Step E: the instruction EAR configuration (methods 1, 2 and 4).
fn iear_step(cx: &Ctx<'_>, out: &mut Out<'_>) -> Result<(), DispatchError> {
    let Ctx {
        model,
        prm,
        evs,
        dfl,
        sysw,
        ..
    } = *cx;
    let iear = ear_cfg(
        prm.iear.as_ref(),
        evs,
        |e| matches!(e.f.ear, Ia64Ear::IearCache | Ia64Ear::IearTlb),
        model == Ia64Model::Itanium,
    )?;
    if let Some(c) = iear {
        let plm = u64::from(if c.plm != 0 { c.plm } else { dfl });
        match model {
            Ia64Model::Itanium => {
                if c.mode > 1 {
                    return Err(err(
                        K::Invalid,
                        "Itanium's instruction EAR has no ALAT mode: use cache or tlb",
                    ));
                }
                let mut r = ItaEarCfg::default();
                r.set_plm(plm);
                r.set_pm(sysw);
                r.set_tlb(c.mode & 1);
                r.set_umask(c.umask);
                r.set_ism(c.ism);
                out.emit(10, r.0)?;
                out.pmds.extend([0, 1]);
            }
            Ia64Model::Itanium2 | Ia64Model::Montecito => {
                let mut r = Ita2IearCfg::default();
                r.set_plm(plm);
                r.set_pm(sysw);
                match c.mode {
                    1 => {
                        r.set_tlb_umask(c.umask);
                        r.set_ct(0);
                    }
                    0 => {
                        r.set_cache_umask(c.umask);
                        r.set_ct(1);
                    }
                    _ => {
                        return Err(err(
                            K::Invalid,
                            "the instruction EAR has no ALAT mode: use cache or tlb",
                        ))
                    }
                }
                if model == Ia64Model::Itanium2 {
                    r.set_ism(c.ism);
                    out.emit(10, r.0)?;
                    out.pmds.extend([0, 1]);
                } else {
                    out.emit(37, r.0)?;
                    out.pmds.extend([34, 35]);
                }
            }
        }
    }

    Ok(())
}

/// Step F: the data EAR configuration; says whether a D-EAR event is listed.
fn dear_step(cx: &Ctx<'_>, drr_used: bool, out: &mut Out<'_>) -> Result<bool, DispatchError> {
    let Ctx {
        model,
        prm,
        evs,
        dfl,
        sysw,
    } = *cx;
    let dear_events = evs.iter().any(|e| {
        matches!(
            e.f.ear,
            Ia64Ear::DearCache | Ia64Ear::DearTlb | Ia64Ear::DearAlat
        )
    });
    let dear = ear_cfg(
        prm.dear.as_ref(),
        evs,
        |e| {
            matches!(
                e.f.ear,
                Ia64Ear::DearCache | Ia64Ear::DearTlb | Ia64Ear::DearAlat
            )
        },
        model == Ia64Model::Itanium,
    )?;
    if let Some(c) = &dear {
        let plm = u64::from(if c.plm != 0 { c.plm } else { dfl });
        if model == Ia64Model::Itanium && c.mode == 2 {
            return Err(err(K::Invalid, "Itanium's data EAR has no ALAT mode"));
        }
        match model {
            Ia64Model::Itanium => {
                let mut r = ItaEarCfg::default();
                r.set_plm(plm);
                r.set_pm(sysw);
                r.set_tlb(c.mode & 1);
                r.set_umask(c.umask);
                r.set_ism(c.ism);
                r.set_pt(u64::from(!drr_used));
                out.emit(11, r.0)?;
                out.pmds.extend([2, 3, 17]);
            }
            Ia64Model::Itanium2 | Ia64Model::Montecito => {
                let mut r = Ita2DearCfg::default();
                r.set_plm(plm);
                r.set_pm(sysw);
                r.set_mode(c.mode);
                r.set_umask(c.umask);
                if model == Ia64Model::Itanium2 {
                    r.set_ism(c.ism);
                    out.emit(11, r.0)?;
                    out.pmds.extend([2, 3, 17]);
                } else {
                    r.set_ism(2);
                    out.emit(40, r.0)?;
                    out.pmds.extend([32, 33, 36]);
                }
            }
        }
    }

    Ok(dear_events)
}

/// Itanium step H: the branch trace buffer (methods 1, 2 and 4).
fn itanium_btb_step(cx: &Ctx<'_>, out: &mut Out<'_>) -> Result<(), DispatchError> {
    let Ctx {
        prm,
        evs,
        dfl,
        sysw,
        ..
    } = *cx;
    let found = evs
        .iter()
        .any(|e| e.desc.flags & crate::pmu::ia64::event_flag::BTB != 0);
    if prm.btb.is_some() || found {
        let all = BtbParams {
            tar: true,
            tac: true,
            bac: true,
            tm: 3,
            ptm: 3,
            ppm: 3,
            ..BtbParams::default()
        };
        let b = prm.btb.as_ref().unwrap_or(&all);
        let plm = opt_plm4(&b.plm)?;
        let mut r = ItaBtbCfg::default();
        r.set_plm(u64::from(if plm != 0 { plm } else { dfl }));
        r.set_pm(sysw);
        r.set_tar(u64::from(b.tar));
        r.set_tm(u64::from(b.tm));
        r.set_ptm(u64::from(b.ptm));
        r.set_ppm(u64::from(b.ppm));
        r.set_tac(u64::from(b.tac));
        r.set_bac(u64::from(b.bac));
        out.emit(12, r.0)?;
        out.pmds.extend(8..=16);
    }
    Ok(())
}

/// Itanium 2 / Montecito step J: the branch or execution trace buffer;
/// says whether a branch-trace event is listed.
fn trace_buffer_step(cx: &Ctx<'_>, out: &mut Out<'_>) -> Result<bool, DispatchError> {
    let Ctx {
        model,
        prm,
        evs,
        dfl,
        sysw,
    } = *cx;
    let mont = model == Ia64Model::Montecito;
    let found = evs.iter().any(|e| {
        e.desc.flags & (crate::pmu::ia64::event_flag::BTB | crate::pmu::ia64::event_flag::ETB) != 0
    });
    let params = if mont {
        prm.etb.as_ref()
    } else {
        prm.btb.as_ref()
    };
    let mut bad_dear = evs
        .iter()
        .any(|e| matches!(e.f.ear, Ia64Ear::DearTlb | Ia64Ear::DearAlat));
    if !bad_dear {
        if let Some(d) = &prm.dear {
            bad_dear = matches!(param_mode(d), 1 | 2);
        }
    }
    if found || params.is_some() || bad_dear {
        let dflt = BtbParams {
            tm: 3,
            ptm: 3,
            ppm: 3,
            ..BtbParams::default()
        };
        let b = params.or(if found { Some(&dflt) } else { None });
        let mut v = 0u64;
        if let Some(b) = b {
            let plm = opt_plm4(&b.plm)?;
            let mut r = Ita2BtbCfg::default();
            r.set_plm(u64::from(if plm != 0 { plm } else { dfl }));
            r.set_pm(sysw);
            r.set_ds(if mont { 0 } else { u64::from(b.ds) });
            r.set_tm(u64::from(b.tm));
            r.set_ptm(u64::from(b.ptm));
            r.set_ppm(u64::from(b.ppm));
            r.set_brt(u64::from(b.brt));
            v = r.0;
        }
        if bad_dear && v != 0 {
            return Err(err(
                K::EventIncompatible,
                format!(
                    "branch capture ({}) cannot be used with a data EAR in TLB or ALAT mode: they share the trace buffer's registers",
                    if mont { "ETB" } else { "BTB" }
                ),
            ));
        }
        out.emit(if mont { 39 } else { 12 }, v)?;
        if found || params.is_some() {
            if mont {
                out.pmds.extend([38, 39]);
                out.pmds.extend(48..=63);
            } else {
                out.pmds.extend(8..=16);
            }
        }
    }
    Ok(found)
}

/// Montecito step K: the IP-EAR, which excludes branch capture.
fn ipear_step(cx: &Ctx<'_>, found: bool, out: &mut Out<'_>) -> Result<(), DispatchError> {
    let Ctx { prm, dfl, sysw, .. } = *cx;
    if let Some(ip) = &prm.ipear {
        if prm.etb.is_some() || found {
            return Err(err(
                K::FeatureCombination,
                "the IP-EAR uses the execution trace buffer: it excludes branch capture (etb parameters or an ETB event)",
            ));
        }
        let plm = opt_plm4(&ip.plm)?;
        let mut r = MontIpearCfg::default();
        r.set_plm(u64::from(if plm != 0 { plm } else { dfl }));
        r.set_pm(sysw);
        r.set_mode(4);
        r.set_delay(u64::from(ip.delay));
        out.emit(42, r.0)?;
        out.pmds.extend([38, 39]);
        out.pmds.extend(48..=63);
    }
    Ok(())
}

/// Itanium / Itanium 2: the first valid choice of distinct counters PMC4-PMC7,
/// in lexicographic order, honouring counter masks, unavailable PMCs and the
/// Itanium 2 cache-group rules.
fn assign_ita(
    model: Ia64Model,
    p: &PmuDesc,
    evs: &[Ev],
    unavail: &[u32],
) -> Result<Vec<u32>, DispatchError> {
    if model == Ia64Model::Itanium2 {
        for (i, a) in evs.iter().enumerate() {
            if a.f.group == Ia64Group::None {
                continue;
            }
            for b in &evs[i + 1..] {
                if b.f.group != a.f.group {
                    continue;
                }
                if b.f.set != a.f.set {
                    return Err(err(
                        K::EventSet,
                        format!(
                            "{} and {} are cache events of different sets of one group: they cannot be measured together",
                            a.fstr, b.fstr
                        ),
                    ));
                }
                if a.f.group == Ia64Group::L2d
                    && !matches!(a.f.set, Some(1 | 2))
                    && b.f.umask != 0
                    && b.f.umask != a.f.umask
                {
                    return Err(err(
                        K::NoAssign,
                        format!(
                            "{} and {}: L2 events of this set must share one unit mask",
                            a.fstr, b.fstr
                        ),
                    ));
                }
            }
        }
        cancel_check(
            p,
            evs,
            &[
                "L2_OZQ_CANCELS0_ANY",
                "L2_OZQ_CANCELS1_REL",
                "L2_OZQ_CANCELS2_ACQ",
            ],
        )?;
    }
    let n = evs.len();
    let mut cur = Vec::with_capacity(n);
    if search(model, evs, unavail, &mut cur) {
        Ok(cur)
    } else {
        Err(err(
            K::NoAssign,
            format!(
                "the events cannot all be placed on PMC4-PMC7 (counter constraints{})",
                if unavail.is_empty() {
                    ""
                } else {
                    " and unavailable PMCs"
                }
            ),
        ))
    }
}

fn search(model: Ia64Model, evs: &[Ev], unavail: &[u32], cur: &mut Vec<u32>) -> bool {
    let i = cur.len();
    if i == evs.len() {
        return model != Ia64Model::Itanium2 || groups_ok(evs, cur);
    }
    for c in 4..8u32 {
        if cur.contains(&c) || unavail.contains(&c) || (evs[i].desc.cntmsk >> c) & 1 == 0 {
            continue;
        }
        cur.push(c);
        if search(model, evs, unavail, cur) {
            return true;
        }
        cur.pop();
    }
    false
}

/// Itanium 2: an L1D event must sit on PMC5, an L2 event on PMC4 (whose
/// unit mask the other L2 events of sets other than 1 and 2 must share).
fn groups_ok(evs: &[Ev], asg: &[u32]) -> bool {
    let l1 = evs.iter().any(|e| e.f.group == Ia64Group::L1d);
    let l2 = evs.iter().any(|e| e.f.group == Ia64Group::L2d);
    if l1
        && !evs
            .iter()
            .zip(asg)
            .any(|(e, &c)| c == 5 && e.f.group == Ia64Group::L1d)
    {
        return false;
    }
    if l2 {
        let Some(k) = evs
            .iter()
            .zip(asg)
            .position(|(e, &c)| c == 4 && e.f.group == Ia64Group::L2d)
        else {
            return false;
        };
        if !matches!(evs[k].f.set, Some(1 | 2)) {
            let ku = evs[k].f.umask;
            if evs.iter().zip(asg).any(|(e, &c)| {
                c != 4 && e.f.group == Ia64Group::L2d && e.f.umask != 0 && e.f.umask != ku
            }) {
                return false;
            }
        }
    }
    true
}

/// At most one of the mutually exclusive OzQ cancel events.
fn cancel_check(p: &PmuDesc, evs: &[Ev], names: &[&str]) -> Result<(), DispatchError> {
    let codes: Vec<u64> = names.iter().filter_map(|n| code_of(p, n)).collect();
    let mut seen: Option<&Ev> = None;
    for e in evs {
        if codes.contains(&e.code()) {
            if let Some(first) = seen {
                return Err(err(
                    K::Invalid,
                    format!(
                        "{} and {}: only one L2 OzQ cancel event can be measured at a time",
                        first.fstr, e.fstr
                    ),
                ));
            }
            seen = Some(e);
        }
    }
    Ok(())
}

/// Montecito placement: the L1D event on PMC5, L2D sets on PMC4/5/8 and
/// PMC6/7/9, restricted events next, the rest on the lowest free counters.
fn assign_mont(p: &PmuDesc, evs: &[Ev], unavail: &[u32]) -> Result<Vec<u32>, DispatchError> {
    let n = evs.len();
    let mut l1d: Option<usize> = None;
    for (i, a) in evs.iter().enumerate() {
        if a.f.group != Ia64Group::L1d {
            continue;
        }
        l1d = Some(i);
        if let Some(b) = evs[i + 1..]
            .iter()
            .find(|b| b.f.group == Ia64Group::L1d && b.f.set != a.f.set)
        {
            return Err(err(
                K::EventSet,
                format!(
                    "{} and {} are L1D events of different sets: they cannot be measured together",
                    a.fstr, b.fstr
                ),
            ));
        }
    }
    let (mut s1, mut s2): (Option<Option<u8>>, Option<Option<u8>>) = (None, None);
    let mut in1 = vec![false; n];
    let mut in2 = vec![false; n];
    for (i, e) in evs.iter().enumerate() {
        if e.f.group != Ia64Group::L2d {
            continue;
        }
        let s = e.f.set;
        if s1 == Some(s) {
            in1[i] = true;
        } else if s2 == Some(s) {
            in2[i] = true;
        } else if s1.is_none() {
            s1 = Some(s);
            in1[i] = true;
        } else if s2.is_none() {
            s2 = Some(s);
            in2[i] = true;
        } else {
            return Err(err(
                K::EventSet,
                format!(
                    "{}: L2D events of at most two sets can be measured together",
                    e.fstr
                ),
            ));
        }
    }
    cancel_check(p, evs, &["L2D_OZQ_CANCELS0_ACQ", "L2D_OZQ_CANCELS1_ANY"])?;

    let mut avail: Vec<bool> = (0..16u32)
        .map(|c| c >= 4 && !unavail.contains(&c))
        .collect();
    let mut asg = vec![0u32; n];
    let noassign = |c: u32| {
        err(
            K::NoAssign,
            format!("PMC{c} is needed for a cache event but is unavailable or taken"),
        )
    };
    if let Some(i) = l1d {
        if !avail[5] {
            return Err(noassign(5));
        }
        asg[i] = 5;
        avail[5] = false;
    }
    // The first three events of each L2D set go to that set's counters.
    let sets: [(&[bool], [u32; 3]); 2] = [(&in1, [4, 5, 8]), (&in2, [6, 7, 9])];
    let mut placed = [0usize; 2];
    let mut deferred = Vec::new();
    'events: for i in 0..n {
        for (k, (members, slots)) in sets.iter().enumerate() {
            if placed[k] < 3 && members[i] {
                let c = slots[placed[k]];
                if !avail[c as usize] {
                    return Err(noassign(c));
                }
                asg[i] = c;
                avail[c as usize] = false;
                placed[k] += 1;
                continue 'events;
            }
        }
        if Some(i) != l1d {
            deferred.push(i);
        }
    }
    let mut rest = Vec::new();
    for i in deferred {
        let m = evs[i].desc.cntmsk;
        if m == 0xfff0 {
            rest.push(i);
            continue;
        }
        let Some(c) = (0..16u32).find(|&c| (m >> c) & 1 != 0 && avail[c as usize]) else {
            return Err(err(
                K::NoAssign,
                format!(
                    "{}: none of its counters (mask {m:#x}) is free",
                    evs[i].fstr
                ),
            ));
        };
        asg[i] = c;
        avail[c as usize] = false;
    }
    let mut j = 0u32;
    for i in rest {
        while j < 16 && !avail[j as usize] {
            j += 1;
        }
        if j == 16 {
            return Err(err(
                K::NoAssign,
                format!("{}: no counter left among PMC4-PMC15", evs[i].fstr),
            ));
        }
        asg[i] = j;
        j += 1;
    }
    Ok(asg)
}

/// Itanium 2 / Montecito code-range step; returns whether fine mode is used.
#[allow(clippy::too_many_arguments)]
fn code_ranges(
    p: &PmuDesc,
    model: Ia64Model,
    ir: &RangeParams,
    evs: &[Ev],
    prm: &Ia64Params,
    dfl: u32,
    irr: &mut Rr,
    out: &mut Out<'_>,
) -> Result<bool, DispatchError> {
    let mont = model == Ia64Model::Montecito;
    let ranges = check_intervals(ir, true)?;
    let n = ranges.len();
    let retired = code_of(p, "IA64_INST_RETIRED");
    let mut retired_mask = 0u32;
    let mut retired_count = 0usize;
    for e in evs {
        if Some(e.code()) == retired {
            retired_count += 1;
            if e.f.umask < 4 {
                retired_mask |= 1 << e.f.umask;
            }
        }
    }
    let retired_only = retired_count == evs.len();
    let bb = if mont { 16 } else { 12 };
    let fine = !ir.no_fine_mode && ranges.iter().all(|&(s, e, _)| s >> bb == e >> bb);
    if !fine && !retired_only && n > 1 {
        return Err(err(
            K::IrrTooMany,
            format!("{n} code ranges: outside fine mode only IA64_INST_RETIRED events may use several ranges"),
        ));
    }
    if fine && n > 2 {
        return Err(err(
            K::IrrTooMany,
            format!("{n} code ranges in fine mode: at most 2"),
        ));
    }
    let mut base = 0u32;
    let mut dup = false;
    let prefetch_count;
    if mont {
        let pre: Vec<u64> = ["L1I_PREFETCHES", "L1I_STRM_PREFETCHES", "L2I_PREFETCHES"]
            .iter()
            .filter_map(|n| code_of(p, n))
            .collect();
        let dual: Vec<u64> = [
            "ISB_BUNPAIRS_IN",
            "L1I_FETCH_RAB_HIT",
            "L1I_FETCH_ISB_HIT",
            "L1I_FILLS",
        ]
        .iter()
        .filter_map(|n| code_of(p, n))
        .collect();
        let (mut found, mut f0, mut f1) = (0usize, 0, 0);
        for e in evs {
            if pre.contains(&e.code()) {
                found += 1;
                f1 += 1;
            }
            if dual.contains(&e.code()) {
                found += 1;
                if !ir.demand_fetch && !ir.prefetch_match {
                    return Err(err(
                        K::IrrFlags,
                        format!("{} can be tagged on demand fetches or prefetches: set demand_fetch and/or prefetch_match in the code range", e.fstr),
                    ));
                }
                if ir.demand_fetch {
                    f0 += 1;
                }
                if ir.prefetch_match {
                    f1 += 1;
                }
            }
        }
        prefetch_count = found;
        if found > 0 {
            base = if f0 > 0 { 0 } else { 2 };
            dup = f0 > 0 && f1 > 0;
        }
        let qual = code_of(p, "CPU_OP_CYCLES_QUAL");
        if (base > 0 || dup) && evs.iter().any(|e| Some(e.code()) == qual) {
            return Err(err(
                K::FeatureCombination,
                "CPU_OP_CYCLES_QUAL cannot be measured when prefetch events use the second IBR pair",
            ));
        }
    } else {
        let pre: Vec<u64> = [
            "L1I_PREFETCHES",
            "L1I_STRM_PREFETCHES",
            "L2_INST_PREFETCHES",
        ]
        .iter()
        .filter_map(|n| code_of(p, n))
        .collect();
        prefetch_count = evs.iter().filter(|e| pre.contains(&e.code())).count();
    }
    let erratum = mont || !prm.no_fine_mode_erratum;
    if !fine {
        if retired_only {
            cover_all(&ranges, dfl, 0, irr, true)?;
        } else {
            if mont {
                if prefetch_count + retired_count != evs.len() {
                    return Err(err(
                        K::FeatureCombination,
                        "a code range outside fine mode can only restrict IA64_INST_RETIRED and prefetch events",
                    ));
                }
            } else {
                if prefetch_count > 0 && prefetch_count + retired_count != evs.len() {
                    return Err(err(
                        K::FeatureCombination,
                        "prefetch events under a code range can only be combined with IA64_INST_RETIRED events",
                    ));
                }
                base = if prefetch_count > 0 { 2 } else { 0 };
            }
            cover_single(&ranges, dfl, base, irr)?;
            if mont && dup {
                cover_single(&ranges, dfl, base + 2, irr)?;
            }
        }
    } else {
        if prefetch_count > 0 && n != 1 {
            return Err(err(
                K::IrrTooMany,
                "prefetch events allow a single code range in fine mode",
            ));
        }
        if !mont {
            base = if prefetch_count > 0 { 2 } else { 0 };
        }
        let next = cover_fine(&ranges, dfl, base, irr, bb, erratum)?;
        if mont && dup {
            cover_fine(&ranges, dfl, next, irr, bb, true)?;
        }
    }
    let mut v = IbrCfg(0xdb6);
    if irr.uses(0) {
        v.set_ig_ibrp0(0);
    }
    if irr.uses(2) {
        v.set_ig_ibrp1(0);
    }
    if irr.uses(4) {
        v.set_ig_ibrp2(0);
    }
    if irr.uses(6) {
        v.set_ig_ibrp3(0);
    }
    if !mont && retired_only && (prm.pmc8.is_some() || prm.pmc9.is_some()) {
        let clash = (prm.pmc9.is_some() && (irr.uses(0) || irr.uses(4)))
            || (prm.pmc8.is_some() && (irr.uses(2) || irr.uses(6)));
        if clash {
            return Err(err(
                K::FeatureCombination,
                "the code range needs an IBR pair whose opcode matcher (PMC8/PMC9) is already in use",
            ));
        }
    }
    if fine {
        v.set_fine(1);
    } else if retired_only {
        let ig = [v.ig_ibrp0(), v.ig_ibrp1(), v.ig_ibrp2(), v.ig_ibrp3()];
        for (k, &ignored) in ig.iter().enumerate() {
            if ignored == 0 && (retired_mask >> k) & 1 == 0 {
                return Err(err(
                    K::IrrInvalid,
                    format!("the code range needs IBR pair {k}: measure IA64_TAGGED_INST_RETIRED_IBRP{k} (or narrow the range)"),
                ));
            }
        }
    }
    out.emit(if mont { 38 } else { 14 }, v.0)?;
    Ok(fine)
}

/// Clears the "ignore opcode matcher" bits of the two IBR channels a matcher
/// serves (`lo`, `hi`): a channel is qualified when its tagged event is
/// measured, or when neither channel's tagged event is.
fn enable_channels(reg: &mut u64, evs: &[Ev], lo: (u32, &str), hi: (u32, &str)) {
    let has = |n: &str| evs.iter().any(|e| e.desc.name == n);
    let (h1, h2) = (has(lo.1), has(hi.1));
    if h1 || !h2 {
        *reg &= !(1 << lo.0);
    }
    if h2 || !h1 {
        *reg &= !(1 << hi.0);
    }
}

/// Itanium 2 opcode matchers PMC8, PMC9 and their enables in PMC15.
fn ita2_opcm(
    p: &PmuDesc,
    prm: &Ia64Params,
    evs: &[Ev],
    irr_used: bool,
    irr: &Rr,
    out: &mut Out<'_>,
) -> Result<(), DispatchError> {
    let mut pmc15: u64 = 0xffff_ffff;
    if prm.pmc8.is_some() || (irr_used && !irr.br.is_empty()) {
        let mut r = Ita2Opcm(prm.pmc8.map_or(0xffff_ffff_3fff_ffff, |v| v.0));
        if let Some(ir) = &prm.irange {
            r.set_ig_ad(0);
            r.set_inv(u64::from(ir.inv));
        } else {
            r.set_ig_ad(1);
            r.set_inv(0);
        }
        r.set_enable(1);
        out.emit(8, r.0)?;
        if prm.pmc8.is_some() {
            enable_channels(
                &mut pmc15,
                evs,
                (0, "IA64_TAGGED_INST_RETIRED_IBRP0_PMC8"),
                (2, "IA64_TAGGED_INST_RETIRED_IBRP2_PMC8"),
            );
        }
    }
    if let Some(v) = prm.pmc9 {
        let rc = code_of(p, "IA64_INST_RETIRED_THIS");
        if let Some(e) = evs.iter().find(|e| Some(e.code()) != rc) {
            return Err(err(
                K::FeatureCombination,
                format!(
                    "{}: opcode matcher PMC9 only qualifies IA64_INST_RETIRED events",
                    e.fstr
                ),
            ));
        }
        let mut r = Ita2Opcm(v.0);
        r.set_ig_ad(1);
        r.set_inv(0);
        r.set_enable(1);
        out.emit(9, r.0)?;
        enable_channels(
            &mut pmc15,
            evs,
            (1, "IA64_TAGGED_INST_RETIRED_IBRP1_PMC9"),
            (3, "IA64_TAGGED_INST_RETIRED_IBRP3_PMC9"),
        );
    }
    out.emit(15, pmc15)
}

/// The mask and slot fields of a Montecito matcher.
fn set_opcm(r: &mut MontOpcmMask, o: &super::Opcm) {
    r.set_mask(o.mask.0);
    r.set_b(u64::from(o.b));
    r.set_f(u64::from(o.f));
    r.set_i(u64::from(o.i));
    r.set_m(u64::from(o.m));
}

/// Montecito opcode matchers PMC32-PMC35 (and PMC36 when a channel changes).
fn mont_opcm(
    prm: &Ia64Params,
    evs: &[Ev],
    irr_used: bool,
    irr: &Rr,
    out: &mut Out<'_>,
) -> Result<(), DispatchError> {
    let (u1, u2) = (prm.opcm1.is_some(), prm.opcm2.is_some());
    if !u1 && !u2 && !irr_used {
        return Ok(());
    }
    const PMC36_DFL: u64 = 0xffff_fff0;
    let mut pmc36 = PMC36_DFL;
    if u1 || (irr_used && !irr.br.is_empty()) {
        let mut r = MontOpcmMask(0x030f_01ff_ffff_ffff);
        if let Some(o) = &prm.opcm1 {
            set_opcm(&mut r, o);
        }
        if let Some(ir) = &prm.irange {
            r.set_ig_ad(0);
            r.set_inv(u64::from(ir.inv));
        } else {
            r.set_ig_ad(1);
            r.set_inv(0);
        }
        out.emit(32, r.0)?;
        if let Some(o) = &prm.opcm1 {
            let mut m = MontOpcmMatch::default();
            m.set_match(o.match_.0);
            out.emit(33, m.0)?;
            enable_channels(
                &mut pmc36,
                evs,
                (0, "IA64_TAGGED_INST_RETIRED_IBRP0_PMC32_33"),
                (2, "IA64_TAGGED_INST_RETIRED_IBRP2_PMC32_33"),
            );
        }
    }
    if let Some(o) = &prm.opcm2 {
        let mut r = MontOpcmMask(0x01ff_ffff_ffff);
        set_opcm(&mut r, o);
        let mut m = MontOpcmMatch::default();
        m.set_match(o.match_.0);
        out.check_avail(34)?;
        out.check_avail(35)?;
        out.emit(34, r.0)?;
        out.emit(35, m.0)?;
        enable_channels(
            &mut pmc36,
            evs,
            (1, "IA64_TAGGED_INST_RETIRED_IBRP1_PMC34_35"),
            (3, "IA64_TAGGED_INST_RETIRED_IBRP3_PMC34_35"),
        );
    }
    if pmc36 != PMC36_DFL {
        out.emit(36, pmc36)?;
    }
    Ok(())
}
