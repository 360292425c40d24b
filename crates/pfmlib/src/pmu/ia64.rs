//! The IA-64 engine (Itanium, Itanium 2, Montecito): event attributes and the
//! raw encoding of one counting monitor (`PMC4`..), as libpfm-3 programs it.
//!
//! Event strings take the Montecito MESI qualifiers as unit masks (`:M:E`;
//! none means all four states) and the modifiers `k` (privilege level 0),
//! `u` (level 3) and `thres` (below the event's maximum increment per cycle).
//! Without `k`/`u` the default privilege levels apply, all four levels being
//! filterable on IA-64. The model-specific features (EARs, branch trace,
//! opcode matching, ranges) need several registers: see [`crate::dispatch`].

use crate::error::{Error, ErrorKind, Result};
use crate::event::{Desc, PAttr};
use crate::ia64::{Ia64Ear, Ia64Model};
use crate::model::{AttrCtrl, AttrType, Os};
use crate::regs::{Ia64Pmc, MontPmc};
use crate::tables::{EventDesc, Ia64Desc, PmuDesc};

/// Event flags (bit order of `build.rs`).
pub(crate) mod event_flag {
    /// The branch trace buffer event (Itanium, Itanium 2).
    pub const BTB: u32 = 1 << 0;
    /// The execution trace buffer event (Montecito).
    pub const ETB: u32 = 1 << 1;
}

mod modifier {
    pub const K: u64 = 0;
    pub const U: u64 = 1;
    pub const THRES: u64 = 2;
}

const MODIFIERS: [super::Modifier; 3] = [
    ("k", "count at privilege level 0 (kernel)", AttrType::ModBool),
    ("u", "count at privilege level 3 (user)", AttrType::ModBool),
    (
        "thres",
        "threshold: count only cycles with more than this many occurrences (below the event's maximum increment)",
        AttrType::ModInteger,
    ),
];

/// The IA-64 facts of an event; every event of an `ia64` table has them.
pub(crate) fn facts(ev: &EventDesc) -> Result<&'static Ia64Desc> {
    ev.ia64.ok_or_else(|| {
        Error::new(
            ErrorKind::Invalid,
            format!("{} has no IA-64 description", ev.name),
        )
    })
}

/// The model of an `ia64` PMU table.
pub(crate) fn model(p: &PmuDesc) -> Result<Ia64Model> {
    Ia64Model::from_pmu(p.name).ok_or_else(|| {
        Error::new(
            ErrorKind::NotSupported,
            format!("{} is not an IA-64 PMU", p.name),
        )
    })
}

/// The MESI unit masks, then the modifiers, of an event.
pub(crate) fn pmu_attrs(pmu: &PmuDesc, event: usize) -> Vec<PAttr> {
    super::umasks_then_modifiers(&pmu.events[event], |_| false, &MODIFIERS)
}

/// IA-64 has no perf_events PMU here: the OS attributes are dropped.
pub(crate) fn validate_pattrs(os: Os, v: &mut Vec<PAttr>) {
    if os != Os::None {
        v.retain(|p| p.ctrl == AttrCtrl::Pmu);
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
pub(crate) fn counter_pmc(model: Ia64Model, ev: &EventDesc, f: &Ia64Desc, s: CounterSetup) -> u64 {
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
            r.set_es(ev.code);
            r.set_umask(umask);
            r.set_thres(s.thres);
            r.set_ism(s.ism);
            r.0
        }
        Ia64Model::Montecito => {
            let mut r = MontPmc::default();
            r.set_plm(s.plm);
            r.set_pm(u64::from(s.system_wide));
            r.set_es(ev.code);
            r.set_umask(umask);
            r.set_thres(s.thres);
            r.set_ism(2);
            let mesi = if ev.umasks.is_empty() {
                0
            } else if s.mesi == 0 {
                0xf
            } else {
                s.mesi
            };
            r.set_mesi(mesi);
            r.0
        }
    }
}

/// Raw encoding: the counting monitor's value, and the fully-qualified string.
pub(crate) fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let ev = &d.pmu.events[d.event];
    let f = facts(ev)?;
    let model = model(d.pmu)?;
    let mut k = None;
    let mut u = None;
    let mut thres = 0u64;
    let mut mesi = 0u64;
    for i in 0..d.attrs.len() {
        let p = *d.pattr(i);
        let ival = d.attrs[i].ival;
        match (p.ctrl, p.ty) {
            (AttrCtrl::Pmu, AttrType::Umask) => {
                mesi |= 1 << (ev.umasks[p.idx as usize].code & 3);
            }
            (AttrCtrl::Pmu, AttrType::ModBool | AttrType::ModInteger) => match p.idx {
                modifier::K => k = Some(ival != 0),
                modifier::U => u = Some(ival != 0),
                modifier::THRES => {
                    if ival >= u64::from(f.maxincr) {
                        return Err(Error::new(
                            ErrorKind::AttrValue,
                            format!(
                                "thres={ival} for {} must be below the event's maximum increment per cycle ({}): valid values are 0-{}",
                                d.event_name(),
                                f.maxincr,
                                f.maxincr - 1
                            ),
                        ));
                    }
                    thres = ival;
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
    let value = counter_pmc(model, ev, f, setup);

    d.write_fstr(|m| match m {
        modifier::K => Some(plm & 1),
        modifier::U => Some((plm >> 3) & 1),
        modifier::THRES => Some(thres),
        _ => None,
    });
    Ok(vec![value])
}

/// IA-64 events have no perf_events encoding.
pub(crate) fn encode_perf(d: &Desc) -> Result<Vec<u64>> {
    Err(Error::new(
        ErrorKind::NotSupported,
        format!(
            "{}: IA-64 PMUs have no Linux perf_events encoding in pfmlib; use --os none",
            d.event_name()
        ),
    ))
}
