//! OS encodings, the last stage: raw PMU codes (`Os::None`) and Linux
//! `perf_event_attr` (`Os::PerfEvent`, `Os::PerfEventExt`), where the
//! perf_events attributes (`u k h period freq precise excl mg mh cpu pinned
//! hw_smpl`) become exclude bits, sampling and scheduling fields.

use crate::ctx::Ctx;
use crate::desc::{AttrRef, Desc, Fstr};
use crate::error::{Error, ErrorKind, Result};
use crate::event::parse_event;
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_ATTRS};
use crate::model::{Os, Plm};
use crate::pmu::intel_x86::IntelX86;
use crate::pmu::{engine, Engine, INTEL_X86_FAMILY};
use crate::tables::EVENT_INDEX_SHIFT;

/// The result of encoding one event string.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Encoding {
    /// PMU name.
    pub pmu: &'static str,
    /// Event name (the real event when an alias was given).
    pub event: &'static str,
    /// Opaque event identifier, libpfm4-compatible.
    pub idx: u32,
    /// Fully-qualified event string, `pmu::EVENT:UMASK...:mod=val...`.
    pub fstr: String,
    /// Raw register values (`Os::None`; the PMU-level codes otherwise).
    pub codes: Vec<u64>,
    /// perf_event_attr fields (`Os::PerfEvent` and `Os::PerfEventExt`).
    pub perf: Option<PerfAttr>,
    /// CPU requested with `cpu=` (`Os::PerfEventExt`).
    pub cpu: Option<i32>,
}

/// Encodes an event string for `os`: parse, resolve, engine, OS layer.
pub(crate) fn encode(ctx: &Ctx, s: &str, plm: Plm, os: Os) -> Result<Encoding> {
    let mut d = parse_event(ctx, s, os, plm)?;
    encode_desc(ctx, &mut d)
}

/// Encodes an already parsed event for its OS layer.
pub(crate) fn encode_desc(ctx: &Ctx, d: &mut Desc) -> Result<Encoding> {
    match d.os {
        Os::None => {
            let codes = if d.pmu.family() == INTEL_X86_FAMILY {
                IntelX86.encode(ctx, d)?
            } else {
                engine(d.pmu).encode(ctx, d)?
            };
            Ok(finish(ctx, d, codes, None, None))
        }
        Os::PerfEvent | Os::PerfEventExt => encode_perf(ctx, d),
    }
}

/// The opaque event index libpfm4 gives event `local` of a PMU.
pub(crate) fn event_index(pmu_id: u32, local: usize) -> u32 {
    (pmu_id << EVENT_INDEX_SHIFT) | local as u32
}

fn finish(
    ctx: &Ctx,
    d: &mut Desc,
    codes: Vec<u64>,
    perf: Option<PerfAttr>,
    cpu: Option<i32>,
) -> Encoding {
    // The Intel core engine, the commonest, called directly (inlined).
    let local = if d.pmu.family() == INTEL_X86_FAMILY {
        IntelX86.event_index(ctx, d.pmu, d.event)
    } else {
        engine(d.pmu).event_index(ctx, d.pmu, d.event)
    };
    Encoding {
        pmu: d.pmu.name(),
        event: d.event.name(),
        idx: event_index(d.pmu.id(), local),
        fstr: std::mem::replace(&mut d.fstr, Fstr::empty()).into_string(),
        codes,
        perf,
        cpu,
    }
}

fn attr_val(d: &Desc, msg: String) -> Error {
    Error::new(ErrorKind::AttrValue, format!("{}: {msg}", d.event_name()))
}

/// What the perf_events attributes of an event string ask for.
#[derive(Default)]
struct PerfSettings {
    plm: u32,
    has_plm: bool,
    vmx: u32,
    has_vmx: bool,
    cpu: Option<i32>,
    pinned: bool,
}

fn encode_perf(ctx: &Ctx, d: &mut Desc) -> Result<Encoding> {
    let mut attr = PerfAttr::default();
    let codes = if d.pmu.family() == INTEL_X86_FAMILY {
        IntelX86.encode_perf(ctx, d, &mut attr)?
    } else {
        engine(d.pmu).encode_perf(ctx, d, &mut attr)?
    };
    let no_mods = takes_no_mods(d);
    let mut s = PerfSettings::default();
    for k in 0..d.attrs.len() {
        if let AttrRef::Perf(id) = d.attrs[k].what {
            let ival = d.attrs[k].ival;
            if no_mods && ival != 0 && u64::from(id) != pa::PINNED {
                return Err(attr_val(
                    d,
                    format!(
                        "{} takes no perf_events attribute but pinned (unit mask without modifiers)",
                        PERF_ATTRS.get(usize::from(id)).map_or("?", |a| a.name)
                    ),
                ));
            }
            apply_perf_attr(d, &mut s, &mut attr, u64::from(id), ival)?;
        }
    }
    if !s.has_plm {
        s.plm = d.dfl_plm.bits();
    }
    if !s.has_vmx {
        s.vmx = Plm::PLM0.bits();
    }
    // perf works by exclusion: levels the PMU cannot filter are never excluded.
    let unsupported = !engine(d.pmu).supported_plm(ctx, d.pmu) & Plm::ALL.bits();
    let (plm, vmx) = (s.plm | unsupported, s.vmx | unsupported);
    attr.exclude_user = plm & Plm::PLM3.bits() == 0;
    attr.exclude_kernel = plm & Plm::PLM0.bits() == 0;
    attr.exclude_hv = plm & Plm::PLMH.bits() == 0;
    attr.exclude_guest = vmx & Plm::PLM3.bits() == 0;
    attr.exclude_host = vmx & Plm::PLM0.bits() == 0;
    attr.pinned = s.pinned;
    if no_mods {
        // libpfm4 upstream hands back no fully-qualified string at all.
        d.fstr = Fstr::empty();
    } else {
        write_perf_fstr(d, &attr, plm);
    }
    Ok(finish(ctx, d, codes, Some(attr), s.cpu))
}

/// Does a unit mask of the event (given or added as a default) take no
/// modifier (libpfm4 upstream's `pfmlib_check_no_mods`)? Only Intel core
/// tables have such unit masks.
fn takes_no_mods(d: &Desc) -> bool {
    d.pmu.family() == INTEL_X86_FAMILY
        && d.umask_attrs().any(|i| IntelX86.umask_no_mods(d.umask(i)))
}

fn apply_perf_attr(
    d: &Desc,
    s: &mut PerfSettings,
    attr: &mut PerfAttr,
    id: u64,
    ival: u64,
) -> Result<()> {
    let level = |on: bool, bit: Plm, s: &mut PerfSettings| {
        if on {
            s.plm |= bit.bits();
        }
        s.has_plm = true;
    };
    match id {
        pa::U => level(ival != 0, Plm::PLM3, s),
        pa::K => level(ival != 0, Plm::PLM0, s),
        pa::H => level(ival != 0, Plm::PLMH, s),
        pa::PERIOD => {
            if ival == 0 || attr.freq {
                return Err(attr_val(
                    d,
                    format!(
                        "period={ival} is invalid (must be non-zero, and not combined with freq)"
                    ),
                ));
            }
            attr.sample_period = ival;
        }
        pa::FREQ => {
            if ival == 0 || attr.sample_period != 0 {
                return Err(attr_val(
                    d,
                    format!(
                        "freq={ival} is invalid (must be non-zero, and not combined with period)"
                    ),
                ));
            }
            attr.sample_period = ival;
            attr.freq = true;
        }
        pa::PRECISE => {
            if ival > 3 {
                return Err(attr_val(d, format!("precise={ival} is out of range [0-3]")));
            }
            attr.precise_ip = ival as u8;
        }
        pa::EXCL => attr.exclusive |= ival != 0,
        // libpfm4 counts the presence of mg/mh, whatever the value.
        pa::MG => {
            s.vmx |= Plm::PLM3.bits();
            s.has_vmx = true;
        }
        pa::MH => {
            s.vmx |= Plm::PLM0.bits();
            s.has_vmx = true;
        }
        pa::CPU => {
            if ival >= i32::MAX as u64 {
                return Err(attr_val(d, format!("cpu={ival} is out of range")));
            }
            s.cpu = Some(ival as i32);
        }
        pa::PINNED => s.pinned = ival != 0,
        pa::HW_SMPL => attr.precise_ip = (ival != 0) as u8,
        _ => {}
    }
    Ok(())
}

/// The value each perf_events attribute shows in the fully-qualified
/// string, by id, and which are shown (`period` and `freq` only when a
/// period is set; `cpu` and `pinned` never).
fn write_perf_fstr(d: &mut Desc, attr: &PerfAttr, plm: u32) {
    let sp = attr.sample_period;
    let values: [u64; 12] = [
        (plm & Plm::PLM3.bits() != 0) as u64,
        (plm & Plm::PLM0.bits() != 0) as u64,
        (plm & Plm::PLMH.bits() != 0) as u64,
        sp,
        sp,
        attr.precise_ip as u64,
        attr.exclusive as u64,
        !attr.exclude_guest as u64,
        !attr.exclude_host as u64,
        0,
        0,
        attr.precise_ip as u64,
    ];
    let period = (1 << pa::PERIOD) | (1 << pa::FREQ);
    let mut shown = ((1u32 << 12) - 1) & !((1 << pa::CPU) | (1 << pa::PINNED));
    if sp == 0 {
        shown &= !period;
    }
    d.write_fstr_perf(shown, &values);
}
