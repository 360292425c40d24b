//! Code and data range restriction: choosing how the ranges are covered
//! (several pairs, one pair, fine mode), and the configuration registers
//! that enable them.

use super::common::err;
use super::context::{Ctx, State};
use super::cover::{check_intervals, cover_all, cover_fine, cover_single, Range, Rr};
use super::ears::is_dear;
use super::layout::{Coarse, CodeRanges, DataRanges, Erratum, FineCodeRanges};
use super::opcm;
use crate::error::{DispatchError, DispatchErrorKind as K};
use crate::request::RangeParams;
use pfmlib::regs::{DbrCfg, IbrCfg, ItaEarCfg};

/// `IbrCfg` with every IBR pair ignored.
const IBR_CFG_NEUTRAL: u64 = 0xdb6;
/// `DbrCfg` with every pair disabled.
const DBR_CFG_NEUTRAL: u64 = 0x2078_fefe_fefe;

/// The code range step of the model.
pub(super) fn code_ranges(cx: &Ctx<'_>, st: &mut State<'_>) -> Result<(), DispatchError> {
    let Some(ir) = &cx.prm.irange else {
        return Ok(());
    };
    match &cx.layout.code_ranges {
        CodeRanges::Covered { cfg_pmc } => {
            // No fine mode nor prefetch tagging: those flags change nothing.
            let ranges = check_intervals(ir, true)?;
            cover_all(&ranges, cx.dfl, &mut st.irr, true)?;
            st.out.emit(*cfg_pmc, 0)
        }
        CodeRanges::Fine(f) => {
            st.fine = fine_code_ranges(cx, f, ir, st)?;
            Ok(())
        }
    }
}

/// The data range step of the model.
pub(super) fn data_ranges(cx: &Ctx<'_>, st: &mut State<'_>) -> Result<(), DispatchError> {
    match cx.layout.data_ranges {
        DataRanges::ViaDear { dear_pmc } => {
            let Some(dr) = &cx.prm.drange else {
                return Ok(());
            };
            let ranges = check_intervals(dr, false)?;
            cover_all(&ranges, cx.dfl, &mut st.drr, false)?;
            if !cx.evs.iter().any(|e| is_dear(e.f.ear)) {
                let mut r = ItaEarCfg::default();
                r.set_plm(u64::from(cx.dfl));
                st.out.emit(dear_pmc, r.0)?;
            }
            Ok(())
        }
        DataRanges::Tagged { cfg_pmc } => {
            if cx.prm.irange.is_none() && cx.prm.drange.is_none() {
                return Ok(());
            }
            range_tagging(cx, st, cfg_pmc)
        }
    }
}

/// The IA64_INST_RETIRED events listed.
struct Retired {
    count: usize,
    /// Unit masks 0-3 among them (bit = IBR pair tagged).
    mask: u32,
    /// Every event is one.
    only: bool,
}

impl Retired {
    fn of(cx: &Ctx<'_>) -> Retired {
        let code = cx.code_of("IA64_INST_RETIRED");
        let mut r = Retired {
            count: 0,
            mask: 0,
            only: false,
        };
        for e in cx.evs.iter().filter(|e| Some(e.f.code) == code) {
            r.count += 1;
            if e.f.umask < 4 {
                r.mask |= 1 << e.f.umask;
            }
        }
        r.only = r.count == cx.evs.len();
        r
    }
}

/// The prefetch events listed, and where their ranges go.
struct Prefetch {
    count: usize,
    /// First IBR register: 2 (the second pair) when prefetches are tagged
    /// and demand fetches are not.
    base: u32,
    /// Both demand fetches and prefetches tagged: the ranges twice.
    dup: bool,
}

impl Prefetch {
    fn of(cx: &Ctx<'_>, f: &FineCodeRanges, ir: &RangeParams) -> Result<Prefetch, DispatchError> {
        let codes =
            |names: &[&str]| -> Vec<u64> { names.iter().filter_map(|n| cx.code_of(n)).collect() };
        let (pre, dual) = (codes(f.prefetch), codes(f.dual_prefetch));
        let (mut count, mut demand, mut prefetch) = (0usize, 0usize, 0usize);
        for e in cx.evs {
            if pre.contains(&e.f.code) {
                count += 1;
                prefetch += 1;
            }
            if dual.contains(&e.f.code) {
                count += 1;
                if !ir.demand_fetch && !ir.prefetch_match {
                    return Err(err(
                        K::IrrFlags,
                        format!("{} can be tagged on demand fetches or prefetches: set demand_fetch and/or prefetch_match in the code range", e.fstr),
                    ));
                }
                demand += usize::from(ir.demand_fetch);
                prefetch += usize::from(ir.prefetch_match);
            }
        }
        let p = Prefetch {
            count,
            base: if count > 0 && demand == 0 { 2 } else { 0 },
            dup: count > 0 && demand > 0 && prefetch > 0,
        };
        if let Some(q) = f.prefetch_conflict {
            if (p.base > 0 || p.dup) && cx.has_code(q) {
                return Err(err(
                    K::FeatureCombination,
                    format!("{q} cannot be measured when prefetch events use the second IBR pair"),
                ));
            }
        }
        Ok(p)
    }
}

/// Itanium 2 / Montecito code ranges; returns whether fine mode is used.
fn fine_code_ranges(
    cx: &Ctx<'_>,
    f: &FineCodeRanges,
    ir: &RangeParams,
    st: &mut State<'_>,
) -> Result<bool, DispatchError> {
    let ranges = check_intervals(ir, true)?;
    let n = ranges.len();
    let retired = Retired::of(cx);
    let bb = f.boundary_bits;
    let fine = !ir.no_fine_mode && ranges.iter().all(|&(s, e, _)| s >> bb == e >> bb);
    if !fine && !retired.only && n > 1 {
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
    let pf = Prefetch::of(cx, f, ir)?;
    if fine {
        let erratum = match f.erratum {
            Erratum::Always => true,
            Erratum::UnlessDisabled => !cx.prm.no_fine_mode_erratum,
        };
        if pf.count > 0 && n != 1 {
            return Err(err(
                K::IrrTooMany,
                "prefetch events allow a single code range in fine mode",
            ));
        }
        let next = cover_fine(&ranges, cx.dfl, pf.base, &mut st.irr, bb, erratum)?;
        if pf.dup {
            cover_fine(&ranges, cx.dfl, next, &mut st.irr, bb, erratum)?;
        }
    } else if retired.only {
        cover_all(&ranges, cx.dfl, &mut st.irr, true)?;
    } else {
        cover_coarse(cx, f.coarse, &ranges, &retired, &pf, &mut st.irr)?;
    }
    let cfg = ibr_config(cx, &st.irr, fine, &retired)?;
    st.out.emit(f.cfg_pmc, cfg)?;
    Ok(fine)
}

/// Outside fine mode, for events not all IA64_INST_RETIRED: one pair (two
/// when demand fetches and prefetches are both tagged).
fn cover_coarse(
    cx: &Ctx<'_>,
    coarse: Coarse,
    ranges: &[Range],
    retired: &Retired,
    pf: &Prefetch,
    irr: &mut Rr,
) -> Result<(), DispatchError> {
    let tagged_only = pf.count + retired.count == cx.evs.len();
    match coarse {
        Coarse::RetiredAndPrefetch if !tagged_only => {
            return Err(err(
                K::FeatureCombination,
                "a code range outside fine mode can only restrict IA64_INST_RETIRED and prefetch events",
            ));
        }
        Coarse::AnyWithoutPrefetch if pf.count > 0 && !tagged_only => {
            return Err(err(
                K::FeatureCombination,
                "prefetch events under a code range can only be combined with IA64_INST_RETIRED events",
            ));
        }
        _ => {}
    }
    cover_single(ranges, cx.dfl, pf.base, irr)?;
    if pf.dup {
        cover_single(ranges, cx.dfl, pf.base + 2, irr)?;
    }
    Ok(())
}

/// The code range configuration (`IbrCfg`): the pairs used, fine mode;
/// refuses pairs clashing with a raw opcode matcher or left untagged.
fn ibr_config(cx: &Ctx<'_>, irr: &Rr, fine: bool, retired: &Retired) -> Result<u64, DispatchError> {
    let prm = cx.prm;
    let mut v = IbrCfg(IBR_CFG_NEUTRAL);
    for k in 0..4 {
        if irr.uses(2 * k) {
            v.set_ig_ibrp(k, 0);
        }
    }
    if retired.only && (prm.pmc8.is_some() || prm.pmc9.is_some()) {
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
    } else if retired.only {
        if let Some(k) = (0..4).find(|&k| v.ig_ibrp(k) == 0 && (retired.mask >> k) & 1 == 0) {
            return Err(err(
                K::IrrInvalid,
                format!("the code range needs IBR pair {k}: measure IA64_TAGGED_INST_RETIRED_IBRP{k} (or narrow the range)"),
            ));
        }
    }
    Ok(v.0)
}

/// Itanium 2 / Montecito: covers the data ranges, then tags each debug-
/// register pair for data ranges (1), its opcode matcher (2) and code
/// ranges (4) in the `DbrCfg` register.
fn range_tagging(cx: &Ctx<'_>, st: &mut State<'_>, cfg_pmc: u32) -> Result<(), DispatchError> {
    let [o1, o2] = opcm::used(cx.layout, cx.prm).map(|u| u8::from(u) * 2);
    let op = [o1, o2, o1, o2];
    let mut tags = [0u8; 4];
    if let Some(dr) = &cx.prm.drange {
        let ranges = check_intervals(dr, false)?;
        cover_all(&ranges, cx.dfl, &mut st.drr, false)?;
        for k in 0..4 {
            if st.drr.uses(2 * k as u32) {
                tags[k] |= 1 | op[k];
            }
        }
    }
    if cx.prm.irange.is_some() {
        for k in 0..4 {
            // Fine mode uses the upper pairs for the upper bounds.
            if (k < 2 || !st.fine) && st.irr.uses(2 * k as u32) {
                tags[k] |= 4 | op[k];
            }
        }
    }
    const CFG: [u64; 8] = [3, 2, 3, 0, 1, 0, 1, 0];
    let mut r = DbrCfg(DBR_CFG_NEUTRAL);
    for (k, &t) in tags.iter().enumerate() {
        r.set_pair(k as u32, u64::from(t != 0), CFG[usize::from(t)]);
    }
    st.out.emit(cfg_pmc, r.0)
}
