//! IA-64 dispatch (libpfm-3's `pfm_dispatch_events` for Itanium, Itanium 2
//! and Montecito): counter assignment, thresholds, instruction sets, Event
//! Address Registers, branch / execution trace buffers, IP-EAR, opcode
//! matchers and code / data range restriction through debug-register pairs.
//!
//! The steps run in libpfm-3's order and the first error ends the dispatch:
//! the events are resolved, the parameters checked against the model, the
//! qualifiers checked, the counters placed and programmed, then the model's
//! own steps run in its order ([`layout::Ia64Layout::steps`]):
//!
//! | step | Itanium | Itanium 2 | Montecito |
//! |---|---|---|---|
//! | counters | PMC4-7 | PMC4-7, cache groups | PMC4-15, cache groups |
//! | I-EAR | PMC10 | PMC10 | PMC37 |
//! | D-EAR | PMC11 | PMC11 | PMC40 |
//! | then | PMC8/9, BTB PMC12, code range PMC13, data range | code range PMC14, PMC13, PMC8/9/15, BTB PMC12 | code range PMC38, PMC41, PMC32-35, ETB PMC39, IP-EAR PMC42 |
//!
//! Where libpfm-3 contradicted the seed documents (a threshold at or above
//! the maximum increment, fine-mode masks cut to 32 bits, the Itanium BTB
//! register overwritten, fine-mode offsets all in slot 0), the documents win.

mod common;
mod context;
mod counters;
mod cover;
mod ears;
mod layout;
mod opcm;
mod ranges;
mod trace;

use crate::error::{DispatchError, DispatchErrorKind as K};
use crate::request::{EventFlag, EventRequest, Ia64Params, Request};
use crate::response::{Assignment, Dispatch, Reg, RegValue};
use common::{err, ia64_reg, opt_plm4, plm4};
use context::{Ctx, Ev, Out, State};
use cover::Rr;
use layout::{Ia64Layout, Step};
use pfmlib::model_specific::Ia64Model;
use pfmlib::model_specific::{self as source, SourceError};
use pfmlib::ErrorKind;
use pfmlib::{Library, Pmu};

pub(crate) fn dispatch(
    lib: &Library,
    pmu: Pmu<'_>,
    model: Ia64Model,
    req: &Request,
) -> Result<Dispatch, DispatchError> {
    let layout = layout::layout(model);
    if req.nhm.is_some() {
        return Err(err(K::Invalid, "nhm parameters given for an IA-64 PMU"));
    }
    let evs = req
        .events
        .iter()
        .map(|er| resolve(lib, pmu, er))
        .collect::<Result<Vec<_>, _>>()?;
    let dfl = plm4(req.dfl_plm.as_deref().unwrap_or("uk"))?;
    if dfl == 0 {
        return Err(err(
            K::Invalid,
            "dfl_plm is empty: give at least one privilege level",
        ));
    }
    check_events(pmu, &evs)?;
    let no_params = Ia64Params::default();
    let prm = req.ia64.as_ref().unwrap_or(&no_params);
    check_params(layout, prm)?;
    let cx = Ctx {
        layout,
        pmu,
        prm,
        evs: &evs,
        dfl,
        sysw: u64::from(req.system_wide),
        mod_present: req.ia64.is_some()
            || evs
                .iter()
                .any(|e| e.thres != 0 || e.ism != 0 || e.no_qualcheck || e.all_threads),
    };
    if cx.mod_present {
        check_qualifiers(&cx)?;
    }
    let mut st = State {
        out: Out {
            model,
            unavail: &req.unavail_pmcs,
            pmcs: Vec::new(),
            pmds: Vec::new(),
        },
        irr: Rr::default(),
        drr: Rr::default(),
        fine: false,
    };
    let assign = counters::place(&cx, &req.unavail_pmcs)?;
    counters::program(&cx, req.system_wide, &assign, &mut st.out)?;
    for step in layout.steps {
        run(*step, &cx, &mut st)?;
    }
    Ok(result(&cx, &assign, st))
}

/// Runs one step of the model.
fn run(step: Step, cx: &Ctx<'_>, st: &mut State<'_>) -> Result<(), DispatchError> {
    match step {
        Step::Iear => ears::iear(cx, &mut st.out),
        Step::Dear => ears::dear(cx, &mut st.out),
        Step::Matchers => opcm::matchers(cx, st),
        Step::BranchTrace => trace::branch_trace(cx, &mut st.out),
        Step::CodeRanges => ranges::code_ranges(cx, st),
        Step::DataRanges => ranges::data_ranges(cx, st),
        Step::Ipear => trace::ipear(cx, &mut st.out),
    }
}

/// The dispatch result: assignments, registers, and with model parameters
/// the ranges.
fn result(cx: &Ctx<'_>, assign: &[u32], st: State<'_>) -> Dispatch {
    let assignments = cx
        .evs
        .iter()
        .zip(assign)
        .map(|(e, &c)| Assignment {
            event: e.text.clone(),
            fstr: e.fstr.clone(),
            counter: pmd_reg(c),
        })
        .collect();
    let has_fine_mode = matches!(cx.layout.code_ranges, layout::CodeRanges::Fine(_));
    Dispatch {
        assignments,
        pmcs: st
            .out
            .pmcs
            .iter()
            .map(|&(n, v)| RegValue {
                reg: pmc_reg(n),
                value: v,
            })
            .collect(),
        pmds: st.out.pmds.iter().map(|&n| pmd_reg(n)).collect(),
        irange: cx.mod_present.then(|| st.irr.result("IBR")),
        drange: cx.mod_present.then(|| st.drr.result("DBR")),
        irange_is_fine: (cx.mod_present && has_fine_mode)
            .then_some(!st.irr.br.is_empty() && st.fine),
    }
}

/// Resolves one event of a request.
fn resolve(lib: &Library, pmu: Pmu<'_>, er: &EventRequest) -> Result<Ev, DispatchError> {
    let parsed = source::ia64_event(lib, pmu, &er.event).map_err(|e| match e {
        SourceError::Library(e) => {
            let kind = match e.kind() {
                ErrorKind::NotFound => K::NotFound,
                ErrorKind::Umask | ErrorKind::Attr => K::Umask,
                _ => K::Invalid,
            };
            err(kind, format!("event {:?}: {}", er.event, e))
        }
        SourceError::OtherPmu(_) => err(
            K::Invalid,
            format!("event {:?} is not an event of PMU {}", er.event, pmu.name()),
        ),
        SourceError::Table(m) => err(K::Invalid, m),
    })?;
    if let Some(m) = parsed.modifier {
        return Err(err(
            K::Invalid,
            format!(
                "event {:?}: {m} is not taken here: give plm, thres and flags as request fields",
                er.event
            ),
        ));
    }
    let plm = opt_plm4(&er.plm)?;
    let mut fstr = format!("{}::{}", pmu.name(), parsed.facts.name);
    for m in &parsed.masks {
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
    let (no_qualcheck, all_threads) = ia64_flags(er)?;
    Ok(Ev {
        text: er.event.clone(),
        fstr,
        f: parsed.facts,
        plm,
        mesi: parsed.mesi,
        thres: er.thres,
        ism: er.ism.map_or(0, |i| i.code()),
        no_qualcheck,
        all_threads,
    })
}

/// The IA-64 flags of an event: (no_qualcheck, all_threads).
fn ia64_flags(er: &EventRequest) -> Result<(bool, bool), DispatchError> {
    let mut no_qualcheck = false;
    let mut all_threads = false;
    for fl in &er.flags {
        match fl {
            EventFlag::NoQualcheck => no_qualcheck = true,
            EventFlag::AllThreads => all_threads = true,
            other => {
                let msg = format!(
                    "event {:?}: flag {other:?} is not an IA-64 flag (no_qualcheck, all_threads)",
                    er.event
                );
                return Err(err(K::Invalid, msg));
            }
        }
    }
    Ok((no_qualcheck, all_threads))
}

/// Room for the events, and the MESI unit masks of the events that take them.
fn check_events(pmu: Pmu<'_>, evs: &[Ev]) -> Result<(), DispatchError> {
    let ncnt = pmu.info().num_cntrs as usize;
    if evs.len() > ncnt {
        return Err(err(
            K::NoAssign,
            format!(
                "{} events for {} counters of {}",
                evs.len(),
                ncnt,
                pmu.name()
            ),
        ));
    }
    if let Some(e) = evs.iter().find(|e| e.f.takes_mesi && e.mesi == 0) {
        return Err(err(
            K::Umask,
            format!(
                "event {:?} needs MESI unit masks: one or more of I, S, E, M",
                e.text
            ),
        ));
    }
    Ok(())
}

/// Parameters of features the model lacks.
fn check_params(layout: &Ia64Layout, prm: &Ia64Params) -> Result<(), DispatchError> {
    let raw = layout.matchers.raw_params();
    let etb = layout.trace.format == layout::TraceFormat::MontecitoEtb;
    if raw && (prm.opcm1.is_some() || prm.opcm2.is_some()) {
        return Err(err(
            K::Invalid,
            "opcm1/opcm2 are Montecito matchers: use pmc8/pmc9",
        ));
    }
    if !raw && (prm.pmc8.is_some() || prm.pmc9.is_some()) {
        return Err(err(
            K::Invalid,
            "pmc8/pmc9 are Itanium matchers: Montecito uses opcm1/opcm2",
        ));
    }
    if etb && prm.btb.is_some() {
        return Err(err(
            K::Invalid,
            "Montecito has an execution trace buffer: use etb, not btb",
        ));
    }
    if (!etb && prm.etb.is_some()) || (layout.ipear.is_none() && prm.ipear.is_some()) {
        return Err(err(K::Invalid, "etb and ipear are Montecito features"));
    }
    Ok(())
}

/// Steps A and B: every event supports the active qualifiers (unless it
/// says not to check), and with ranges uses the default privilege levels.
fn check_qualifiers(cx: &Ctx<'_>) -> Result<(), DispatchError> {
    let prm = cx.prm;
    let (irr, drr) = (prm.irange.is_some(), prm.drange.is_some());
    let opcm = opcm::used(cx.layout, prm).contains(&true);
    for e in cx.evs.iter().filter(|e| !e.no_qualcheck) {
        let what = if irr && !e.f.supports_iarr {
            "code range restriction"
        } else if drr && !e.f.supports_darr {
            "data range restriction"
        } else if opcm && !e.f.supports_opcm {
            "opcode matching"
        } else {
            continue;
        };
        return Err(err(
            K::FeatureCombination,
            format!("{} does not support {what}; add the no_qualcheck flag to count it anyway (unrestricted)", e.fstr),
        ));
    }
    if irr || drr {
        if let Some(e) = cx.evs.iter().find(|e| e.plm != 0 && e.plm != cx.dfl) {
            return Err(err(
                K::FeatureCombination,
                format!(
                    "{}: with range restriction every event must use the default privilege levels",
                    e.fstr
                ),
            ));
        }
    }
    Ok(())
}

fn pmc_reg(n: u32) -> Reg {
    ia64_reg("PMC", n)
}

fn pmd_reg(n: u32) -> Reg {
    ia64_reg("PMD", n)
}
