//! Intel Nehalem / Westmere dispatch: four generic and three fixed core
//! counters, the uncore's eight generic and one fixed counter, PEBS with
//! load-latency filtering, and the 16-entry LBR.
//!
//! Register values follow the Intel SDM layouts: `IA32_PERFEVTSELx`,
//! `IA32_FIXED_CTR_CTRL` (4 bits per fixed counter: OS, USR, AnyThread, PMI),
//! `IA32_PERF_GLOBAL_CTRL`, `IA32_PEBS_ENABLE` (PEBS bits 0-3, load-latency
//! bits 32-35), `MSR_PEBS_LD_LAT_THRESHOLD`, `MSR_LBR_SELECT`, and the uncore
//! `MSR_UNCORE_PERFEVTSELx`, `MSR_UNCORE_FIXED_CTR_CTRL`,
//! `MSR_UNCORE_PERF_GLOBAL_CTRL`.

use super::{
    parse_plm, Assignment, Dispatch, DispatchError, DispatchErrorKind as K, EventFlag, LbrFilter,
    Reg, RegValue, Request,
};
use crate::error::ErrorKind;
use crate::event::parse_event;
use crate::model::{AttrCtrl, AttrType, Os, Plm, PmuKind};
use crate::pmu::intel_x86::{ev_flag, um_flag};
use crate::registry::{Library, Pmu};
use crate::regs::{FixedCtrCtrl, LbrSelect, PerfEvtSel, UncPerfEvtSel};

const NUM_GEN: u32 = 4;
const NUM_FIXED: u32 = 3;
const NUM_UNC_GEN: u32 = 8;
const LBR_DEPTH: u32 = 16;

/// A counter an event can use.
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
            Ctr::Gen(i) => reg("PMC", i, 0xc1 + i as u64),
            Ctr::Fixed(i) => reg("FIXED_CTR", i, 0x309 + i as u64),
            Ctr::UncGen(i) => reg("UNC_PMC", i, 0x3b0 + i as u64),
            Ctr::UncFixed => reg("UNC_FIXED_CTR", 0, 0x394),
        }
    }
}

fn reg(kind: &'static str, index: u32, addr: u64) -> Reg {
    let name = match kind {
        "FIXED_CTR_CTRL"
        | "PERF_GLOBAL_CTRL"
        | "PEBS_ENABLE"
        | "PEBS_LD_LAT_THRESHOLD"
        | "LBR_SELECT"
        | "LBR_TOS"
        | "UNC_FIXED_CTR"
        | "UNC_FIXED_CTR_CTRL"
        | "UNC_PERF_GLOBAL_CTRL" => kind.to_string(),
        _ => format!("{kind}{index}"),
    };
    Reg {
        name,
        reg: kind,
        index,
        addr,
    }
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
    candidates: Vec<Ctr>,
}

fn err(kind: K, msg: impl Into<String>) -> DispatchError {
    DispatchError::new(kind, msg)
}

fn from_encode(e: crate::Error, event: &str) -> DispatchError {
    let kind = match e.kind() {
        ErrorKind::NotFound => K::NotFound,
        ErrorKind::Umask => K::Umask,
        ErrorKind::FeatureCombination => K::FeatureCombination,
        _ => K::Invalid,
    };
    err(kind, format!("event {event:?}: {e}"))
}

pub(super) fn dispatch(
    lib: &Library,
    core: Pmu<'_>,
    req: &Request,
) -> Result<Dispatch, DispatchError> {
    let dfl_plm = parse_plm(req.dfl_plm.as_deref().unwrap_or("uk"))?;
    if dfl_plm == 0 {
        return Err(err(
            K::Invalid,
            "dfl_plm is empty: give at least one privilege level",
        ));
    }
    let unc_name = if core.name().starts_with("wsm") {
        "wsm_unc"
    } else {
        "nhm_unc"
    };
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
    let lbr = params.lbr.unwrap_or_default();

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

    let mut placed = Vec::with_capacity(req.events.len());
    for er in &req.events {
        let full = if er.event.contains("::") {
            er.event.clone()
        } else {
            format!("{}::{}", core.name(), er.event)
        };
        let pfx = full
            .split("::")
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let uncore = if pfx == core.name() {
            false
        } else if pfx == unc_name {
            true
        } else {
            return Err(err(
                K::Invalid,
                format!(
                    "event {:?} is not a {} or {unc_name} event",
                    er.event,
                    core.name()
                ),
            ));
        };
        let plm = match &er.plm {
            Some(p) => parse_plm(p)?,
            None => dfl_plm,
        };
        if uncore {
            if plm != 0x9 {
                return Err(err(
                    K::Invalid,
                    format!("uncore event {:?}: the uncore counts every privilege level, so its plm must be exactly kernel and user (\"uk\")", er.event),
                ));
            }
        } else if plm & 0x10 != 0 || plm == 0 {
            return Err(err(
                K::Invalid,
                format!(
                    "event {:?}: Nehalem core counters filter levels 0 (k) and 1-3 (u) only",
                    er.event
                ),
            ));
        }
        if er.cnt_mask > 255 {
            return Err(err(
                K::Invalid,
                format!(
                    "event {:?}: cnt_mask={} is out of range [0-255]",
                    er.event, er.cnt_mask
                ),
            ));
        }
        let has = |f: EventFlag| er.flags.contains(&f);
        if let Some(f) = er
            .flags
            .iter()
            .find(|f| matches!(f, EventFlag::NoQualcheck | EventFlag::AllThreads))
        {
            return Err(err(
                K::Invalid,
                format!("event {:?}: {f:?} is an IA-64 flag", er.event),
            ));
        }
        if er.thres != 0 || er.ism.is_some() {
            return Err(err(
                K::Invalid,
                format!(
                    "event {:?}: thres and ism are IA-64 settings; Nehalem uses cnt_mask",
                    er.event
                ),
            ));
        }
        if uncore && has(EventFlag::Anythr) {
            return Err(err(
                K::Invalid,
                format!(
                    "event {:?}: anythr is a core-PMU flag, not valid for the uncore",
                    er.event
                ),
            ));
        }
        if !uncore && has(EventFlag::OccRst) {
            return Err(err(
                K::Invalid,
                format!(
                    "event {:?}: occ_rst is an uncore flag, not valid for core events",
                    er.event
                ),
            ));
        }

        // Base encoding through the event-string engine.
        let enc_plm = Plm::from_bits(
            if plm & 0x1 != 0 { 0x1 } else { 0 } | if plm & 0xe != 0 { 0x8 } else { 0 },
        )
        .unwrap_or(Plm::DEFAULT);
        let mut d =
            parse_event(lib, &full, Os::None, enc_plm).map_err(|e| from_encode(e, &er.event))?;
        if (d.pmu.kind == PmuKind::Uncore) != uncore {
            return Err(err(
                K::Invalid,
                format!("event {:?} resolves to PMU {}", er.event, d.pmu.name),
            ));
        }
        let codes = crate::pmu::encode_raw(lib, &mut d).map_err(|e| from_encode(e, &er.event))?;
        let ev = &d.pmu.events[d.event];
        let umasks: Vec<_> = d
            .attrs
            .iter()
            .map(|a| &d.pattrs[a.id])
            .filter(|p| p.ctrl == AttrCtrl::Pmu && p.ty == AttrType::Umask)
            .map(|p| &ev.umasks[p.idx as usize])
            .collect();
        let pebs_capable = ev.flags & ev_flag::PEBS != 0
            && (umasks.is_empty() || umasks.iter().all(|u| u.flags & um_flag::PEBS != 0));
        let ldlat = umasks.iter().any(|u| u.flags & um_flag::LDLAT != 0);

        let conflict = |have: u64| {
            err(
                K::FeatureCombination,
                format!(
                    "event {:?}: its string sets c={have} but cnt_mask is {}",
                    er.event, er.cnt_mask
                ),
            )
        };
        let (sel, modified, any) = if uncore {
            let mut u = UncPerfEvtSel(codes[0]);
            if er.cnt_mask != 0 {
                if u.cmask() != 0 && u.cmask() != er.cnt_mask as u64 {
                    return Err(conflict(u.cmask()));
                }
                u.set_cmask(er.cnt_mask as u64);
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
            let modified = u.inv() != 0 || u.edge() != 0 || u.cmask() != 0 || u.occ_rst() != 0;
            (u.0, modified, false)
        } else {
            let mut c = PerfEvtSel(codes[0]);
            if er.cnt_mask != 0 {
                if c.cmask() != 0 && c.cmask() != er.cnt_mask as u64 {
                    return Err(conflict(c.cmask()));
                }
                c.set_cmask(er.cnt_mask as u64);
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
            let modified = c.inv() != 0 || c.edge() != 0 || c.cmask() != 0;
            (c.0, modified, c.any_thread() != 0)
        };
        let use_pebs = pebs.used && pebs_capable && !uncore;
        if use_pebs && (modified || any) {
            return Err(err(
                K::FeatureCombination,
                format!(
                    "event {:?}: a PEBS event must not use inv, edge, cnt_mask or anythr",
                    er.event
                ),
            ));
        }
        let cntmsk = ev.cntmsk;
        let mut candidates = Vec::new();
        if uncore {
            if cntmsk & (1 << 32) != 0 && !modified {
                candidates.push(Ctr::UncFixed);
            }
            candidates.extend(
                (0..NUM_UNC_GEN)
                    .filter(|i| cntmsk & (1 << i) != 0)
                    .map(Ctr::UncGen),
            );
        } else {
            if !modified && !use_pebs && !ldlat {
                candidates.extend(
                    (0..NUM_FIXED)
                        .filter(|j| cntmsk & (1 << (32 + j)) != 0)
                        .map(Ctr::Fixed),
                );
            }
            candidates.extend(
                (0..NUM_GEN)
                    .filter(|i| cntmsk & (1 << i) != 0)
                    .map(Ctr::Gen),
            );
        }
        if candidates.is_empty() {
            return Err(err(
                K::NoAssign,
                format!("event {:?} has no counter that supports it with these settings (fixed counters take no inv, edge or cnt_mask, nor PEBS)", er.event),
            ));
        }
        placed.push(Placed {
            event: er.event.clone(),
            fstr: format!("{}::{}", d.pmu.name, d.fstr),
            uncore,
            sel,
            plm,
            anythr: has(EventFlag::Anythr),
            pebs: use_pebs,
            ldlat,
            candidates,
        });
    }

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

    let slots = assign(&placed).ok_or_else(|| {
        let names: Vec<_> = placed.iter().map(|p| p.event.as_str()).collect();
        err(
            K::NoAssign,
            format!("the events cannot all be placed on counters (each has its counter constraints): {}", names.join(", ")),
        )
    })?;

    // Registers.
    let mut pmcs = Vec::new();
    let mut pmds = Vec::new();
    let mut fixed_ctrl = 0u64;
    let mut global = 0u64;
    let mut unc_global = 0u64;
    let mut unc_fixed_ctrl = 0u64;
    let mut pebs_enable = 0u64;
    let mut order: Vec<(Ctr, usize)> = slots.iter().enumerate().map(|(i, c)| (*c, i)).collect();
    order.sort();
    for (ctr, i) in &order {
        let p = &placed[*i];
        match *ctr {
            Ctr::Gen(k) => {
                pmcs.push(RegValue {
                    reg: reg("PERFEVTSEL", k, 0x186 + k as u64),
                    value: p.sel,
                });
                global |= 1 << k;
                if p.pebs {
                    pebs_enable |= 1 << k;
                    if p.ldlat && pebs.ld_lat_thres != 0 {
                        pebs_enable |= 1 << (32 + k);
                    }
                }
            }
            Ctr::Fixed(j) => {
                let mut f = FixedCtrCtrl::default();
                f.set_os0((p.plm & 0x1 != 0) as u64);
                f.set_usr0((p.plm & 0xe != 0) as u64);
                f.set_any0(p.anythr as u64);
                f.set_pmi0(1);
                fixed_ctrl |= f.0 << (4 * j);
                global |= 1 << (32 + j);
            }
            Ctr::UncGen(k) => {
                pmcs.push(RegValue {
                    reg: reg("UNC_PERFEVTSEL", k, 0x3c0 + k as u64),
                    value: p.sel,
                });
                unc_global |= 1 << k;
            }
            Ctr::UncFixed => {
                unc_fixed_ctrl = 0x5; // enable (bit 0) and PMI (bit 2)
                unc_global |= 1 << 32;
            }
        }
        pmds.push(ctr.reg());
    }
    if fixed_ctrl != 0 {
        pmcs.push(RegValue {
            reg: reg("FIXED_CTR_CTRL", 0, 0x38d),
            value: fixed_ctrl,
        });
    }
    if global != 0 {
        pmcs.push(RegValue {
            reg: reg("PERF_GLOBAL_CTRL", 0, 0x38f),
            value: global,
        });
    }
    if pebs.used {
        pmcs.push(RegValue {
            reg: reg("PEBS_ENABLE", 0, 0x3f1),
            value: pebs_enable,
        });
        if pebs.ld_lat_thres != 0 {
            pmcs.push(RegValue {
                reg: reg("PEBS_LD_LAT_THRESHOLD", 0, 0x3f6),
                value: pebs.ld_lat_thres as u64,
            });
        }
    }
    if unc_fixed_ctrl != 0 {
        pmcs.push(RegValue {
            reg: reg("UNC_FIXED_CTR_CTRL", 0, 0x395),
            value: unc_fixed_ctrl,
        });
    }
    if unc_global != 0 {
        pmcs.push(RegValue {
            reg: reg("UNC_PERF_GLOBAL_CTRL", 0, 0x391),
            value: unc_global,
        });
    }
    if lbr.used {
        let plm = match &lbr.plm {
            Some(p) if !p.is_empty() => parse_plm(p)?,
            _ => dfl_plm,
        };
        if plm & 0x6 != 0 {
            return Err(err(
                K::Invalid,
                "the LBR distinguishes only level 0 (k) and level 3 (u): PLM1 and PLM2 are refused",
            ));
        }
        if plm & 0x10 != 0 || plm == 0 {
            return Err(err(K::Invalid, "LBR plm must be u, k or uk"));
        }
        let mut s = LbrSelect::default();
        s.set_cpl_eq_0((plm & 0x1 == 0) as u64);
        s.set_cpl_neq_0((plm & 0x8 == 0) as u64);
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
        pmcs.push(RegValue {
            reg: reg("LBR_SELECT", 0, 0x1c8),
            value: s.0,
        });
        pmds.push(reg("LBR_TOS", 0, 0x1c9));
        for i in 0..LBR_DEPTH {
            pmds.push(reg("LBR_FROM_IP", i, 0x680 + i as u64));
        }
        for i in 0..LBR_DEPTH {
            pmds.push(reg("LBR_TO_IP", i, 0x6c0 + i as u64));
        }
    }

    let assignments = placed
        .iter()
        .zip(slots.iter())
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

/// Places every event on a distinct counter: most constrained first, fixed
/// counters preferred, lowest index first; backtracks when needed.
fn assign(placed: &[Placed]) -> Option<Vec<Ctr>> {
    let mut order: Vec<usize> = (0..placed.len()).collect();
    order.sort_by_key(|&i| placed[i].candidates.len());
    let mut slots = vec![None; placed.len()];
    let mut used = Vec::new();
    fn go(
        k: usize,
        order: &[usize],
        placed: &[Placed],
        slots: &mut Vec<Option<Ctr>>,
        used: &mut Vec<Ctr>,
    ) -> bool {
        if k == order.len() {
            return true;
        }
        let i = order[k];
        for &c in &placed[i].candidates {
            if used.contains(&c) {
                continue;
            }
            used.push(c);
            slots[i] = Some(c);
            if go(k + 1, order, placed, slots, used) {
                return true;
            }
            used.pop();
            slots[i] = None;
        }
        false
    }
    if go(0, &order, placed, &mut slots, &mut used) {
        slots.into_iter().collect()
    } else {
        None
    }
}
