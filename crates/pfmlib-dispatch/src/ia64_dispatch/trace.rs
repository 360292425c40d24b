//! Branch capture: the Itanium / Itanium 2 branch trace buffer, the
//! Montecito execution trace buffer, and the Montecito IP-EAR (the ETB
//! capturing retired IPs, which excludes branch capture).

use super::common::{err, opt_plm4};
use super::context::{Ctx, Out};
use super::ears::param_mode;
use super::layout::TraceFormat;
use crate::error::{DispatchError, DispatchErrorKind as K};
use crate::request::BtbParams;
use pfmlib::model_specific::Ia64Ear;
use pfmlib::regs::{Ita2BtbCfg, ItaBtbCfg, MontIpearCfg};

/// Is a branch-trace event (BTB or ETB) listed?
fn branch_event(cx: &Ctx<'_>) -> bool {
    cx.evs.iter().any(|e| e.f.btb || e.f.etb)
}

/// The trace buffer step of the model's format.
pub(super) fn branch_trace(cx: &Ctx<'_>, out: &mut Out<'_>) -> Result<(), DispatchError> {
    match cx.layout.trace.format {
        TraceFormat::ItaniumBtb => itanium_btb(cx, out),
        TraceFormat::Itanium2Btb | TraceFormat::MontecitoEtb => trace_buffer(cx, out),
    }
}

/// Itanium: the branch trace buffer, from the parameters or, for a BTB
/// event alone, capturing everything.
fn itanium_btb(cx: &Ctx<'_>, out: &mut Out<'_>) -> Result<(), DispatchError> {
    let found = cx.evs.iter().any(|e| e.f.btb);
    if cx.prm.btb.is_none() && !found {
        return Ok(());
    }
    let all = BtbParams {
        tar: true,
        tac: true,
        bac: true,
        tm: 3,
        ptm: 3,
        ppm: 3,
        ..BtbParams::default()
    };
    let b = cx.prm.btb.as_ref().unwrap_or(&all);
    let mut r = ItaBtbCfg::default();
    r.set_plm(cx.plm_or_dfl(opt_plm4(&b.plm)?));
    r.set_pm(cx.sysw);
    r.set_tar(u64::from(b.tar));
    r.set_tm(u64::from(b.tm));
    r.set_ptm(u64::from(b.ptm));
    r.set_ppm(u64::from(b.ppm));
    r.set_tac(u64::from(b.tac));
    r.set_bac(u64::from(b.bac));
    let regs = &cx.layout.trace.regs;
    out.emit(regs.pmc, r.0)?;
    out.read(regs.pmds);
    Ok(())
}

/// Itanium 2 BTB / Montecito ETB: from the parameters or, for a branch
/// event alone, every branch; written 0 when only a TLB / ALAT data EAR
/// (which shares its registers) is used.
fn trace_buffer(cx: &Ctx<'_>, out: &mut Out<'_>) -> Result<(), DispatchError> {
    let format = cx.layout.trace.format;
    let etb = format == TraceFormat::MontecitoEtb;
    let found = branch_event(cx);
    let params = if etb {
        cx.prm.etb.as_ref()
    } else {
        cx.prm.btb.as_ref()
    };
    let bad_dear = cx
        .evs
        .iter()
        .any(|e| matches!(e.f.ear, Ia64Ear::DearTlb | Ia64Ear::DearAlat))
        || cx
            .prm
            .dear
            .as_ref()
            .is_some_and(|d| matches!(param_mode(d), 1 | 2));
    if !found && params.is_none() && !bad_dear {
        return Ok(());
    }
    let every = BtbParams {
        tm: 3,
        ptm: 3,
        ppm: 3,
        ..BtbParams::default()
    };
    let mut v = 0u64;
    if let Some(b) = params.or(found.then_some(&every)) {
        let mut r = Ita2BtbCfg::default();
        r.set_plm(cx.plm_or_dfl(opt_plm4(&b.plm)?));
        r.set_pm(cx.sysw);
        r.set_ds(if etb { 0 } else { u64::from(b.ds) });
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
                format.name()
            ),
        ));
    }
    let regs = &cx.layout.trace.regs;
    out.emit(regs.pmc, v)?;
    if found || params.is_some() {
        out.read(regs.pmds);
    }
    Ok(())
}

/// Montecito: the IP-EAR, which excludes branch capture.
pub(super) fn ipear(cx: &Ctx<'_>, out: &mut Out<'_>) -> Result<(), DispatchError> {
    let (Some(ip), Some(regs)) = (&cx.prm.ipear, &cx.layout.ipear) else {
        return Ok(());
    };
    if cx.prm.etb.is_some() || branch_event(cx) {
        return Err(err(
            K::FeatureCombination,
            "the IP-EAR uses the execution trace buffer: it excludes branch capture (etb parameters or an ETB event)",
        ));
    }
    let mut r = MontIpearCfg::default();
    r.set_plm(cx.plm_or_dfl(opt_plm4(&ip.plm)?));
    r.set_pm(cx.sysw);
    r.set_mode(4);
    r.set_delay(u64::from(ip.delay));
    out.emit(regs.pmc, r.0)?;
    out.read(regs.pmds);
    Ok(())
}
