//! Steps E and F: the instruction and data Event Address Registers, by the
//! seed pages' methods: parameters given (methods 2 and 4), an EAR event
//! only (method 1, configured from the event), nothing (method 3).

use super::common::{err, opt_plm4};
use super::context::{Ctx, Ev, Out};
use super::layout::EarFormat;
use crate::error::{DispatchError, DispatchErrorKind as K};
use crate::request::{EarModeParam, EarParams};
use pfmlib::model_specific::Ia64Ear;
use pfmlib::regs::{Ita2DearCfg, Ita2IearCfg, ItaEarCfg};

/// Is it an instruction EAR kind?
fn is_iear(e: Ia64Ear) -> bool {
    matches!(e, Ia64Ear::IearCache | Ia64Ear::IearTlb)
}

/// Is it a data EAR kind?
pub(super) fn is_dear(e: Ia64Ear) -> bool {
    matches!(e, Ia64Ear::DearCache | Ia64Ear::DearTlb | Ia64Ear::DearAlat)
}

/// The EAR mode of an EAR event: 0 cache, 1 TLB, 2 ALAT.
fn event_mode(e: Ia64Ear) -> u64 {
    match e {
        Ia64Ear::DearTlb | Ia64Ear::IearTlb => 1,
        Ia64Ear::DearAlat => 2,
        _ => 0,
    }
}

/// The EAR mode of parameters: 0 cache (the default), 1 TLB, 2 ALAT.
pub(super) fn param_mode(p: &EarParams) -> u64 {
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

/// The configuration from the parameters, else from the first (Itanium:
/// last) event of the EAR's kind, else none.
fn ear_cfg(
    cx: &Ctx<'_>,
    params: Option<&EarParams>,
    is: fn(Ia64Ear) -> bool,
) -> Result<Option<EarCfg>, DispatchError> {
    if let Some(p) = params {
        return Ok(Some(EarCfg {
            mode: param_mode(p),
            umask: p.umask.0,
            plm: opt_plm4(&p.plm)?,
            ism: p.ism.map_or(0, |i| i.code()),
        }));
    }
    let mut it = cx.evs.iter().filter(|e| is(e.f.ear));
    let ev: Option<&Ev> = if cx.layout.ears.last_event {
        it.next_back()
    } else {
        it.next()
    };
    Ok(ev.map(|e| EarCfg {
        mode: event_mode(e.f.ear),
        umask: u64::from(e.f.umask),
        plm: 0,
        ism: 0,
    }))
}

/// Step E: the instruction EAR.
pub(super) fn iear(cx: &Ctx<'_>, out: &mut Out<'_>) -> Result<(), DispatchError> {
    let Some(c) = ear_cfg(cx, cx.prm.iear.as_ref(), is_iear)? else {
        return Ok(());
    };
    let ears = &cx.layout.ears;
    let plm = cx.plm_or_dfl(c.plm);
    let value = match ears.format {
        EarFormat::Itanium => {
            if c.mode > 1 {
                return Err(err(
                    K::Invalid,
                    "Itanium's instruction EAR has no ALAT mode: use cache or tlb",
                ));
            }
            let mut r = ItaEarCfg::default();
            r.set_plm(plm);
            r.set_pm(cx.sysw);
            r.set_tlb(c.mode & 1);
            r.set_umask(c.umask);
            r.set_ism(c.ism);
            r.0
        }
        EarFormat::Itanium2 { ism } => {
            let mut r = Ita2IearCfg::default();
            r.set_plm(plm);
            r.set_pm(cx.sysw);
            match c.mode {
                0 => {
                    r.set_cache_umask(c.umask);
                    r.set_ct(1);
                }
                1 => {
                    r.set_tlb_umask(c.umask);
                    r.set_ct(0);
                }
                _ => {
                    return Err(err(
                        K::Invalid,
                        "the instruction EAR has no ALAT mode: use cache or tlb",
                    ))
                }
            }
            if ism {
                r.set_ism(c.ism);
            }
            r.0
        }
    };
    out.emit(ears.iear.pmc, value)?;
    out.read(ears.iear.pmds);
    Ok(())
}

/// Step F: the data EAR. On Itanium it also says whether a data range
/// applies (`pt`).
pub(super) fn dear(cx: &Ctx<'_>, out: &mut Out<'_>) -> Result<(), DispatchError> {
    let Some(c) = ear_cfg(cx, cx.prm.dear.as_ref(), is_dear)? else {
        return Ok(());
    };
    let ears = &cx.layout.ears;
    let plm = cx.plm_or_dfl(c.plm);
    let value = match ears.format {
        EarFormat::Itanium => {
            if c.mode == 2 {
                return Err(err(K::Invalid, "Itanium's data EAR has no ALAT mode"));
            }
            let mut r = ItaEarCfg::default();
            r.set_plm(plm);
            r.set_pm(cx.sysw);
            r.set_tlb(c.mode & 1);
            r.set_umask(c.umask);
            r.set_ism(c.ism);
            r.set_pt(u64::from(cx.prm.drange.is_none()));
            r.0
        }
        EarFormat::Itanium2 { ism } => {
            let mut r = Ita2DearCfg::default();
            r.set_plm(plm);
            r.set_pm(cx.sysw);
            r.set_mode(c.mode);
            r.set_umask(c.umask);
            // Without an instruction-set field the D-EAR counts IA-64 (2).
            r.set_ism(if ism { c.ism } else { 2 });
            r.0
        }
    };
    out.emit(ears.dear.pmc, value)?;
    out.read(ears.dear.pmds);
    Ok(())
}
