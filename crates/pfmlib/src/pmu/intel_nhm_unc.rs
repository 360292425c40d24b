//! The Intel Nehalem/Westmere uncore engine: socket-level counters that see
//! every privilege level, modifiers `e i c o` (o: occupancy reset).

use crate::error::{Error, ErrorKind, Result};
use crate::event::{Attr, Desc, PAttr};
use crate::model::{AttrCtrl, AttrType, Os};
use crate::os::{perf_attr as pa, PerfAttr};
use crate::pmu::intel_x86::{ev_flag, um_flag};
use crate::regs::UncPerfEvtSel;
use crate::tables::PmuDesc;

mod modifier {
    pub const E: u64 = 0;
    pub const I: u64 = 1;
    pub const C: u64 = 2;
    pub const O: u64 = 3;
}

const MODIFIERS: [super::Modifier; 4] = [
    (
        "e",
        "edge detect: count 0-to-1 transitions",
        AttrType::ModBool,
    ),
    ("i", "invert the counter-mask comparison", AttrType::ModBool),
    (
        "c",
        "counter mask: count cycles with at least this many occurrences [0-255]",
        AttrType::ModInteger,
    ),
    ("o", "reset the queue occupancy counter", AttrType::ModBool),
];

/// The unit masks, then the modifiers, of an event.
pub(crate) fn pmu_attrs(pmu: &PmuDesc, event: usize) -> Vec<PAttr> {
    super::umasks_then_modifiers(
        &pmu.events[event],
        |um| um.flags & um_flag::DFL != 0,
        &MODIFIERS,
    )
}

/// With perf_events, libpfm4 drops the hardware attributes at positions 0
/// and 1 (meant for the core's `k`/`u`, here `e` and `i`), `h`, `precise`,
/// `hw_smpl`, and — no privilege filtering — `u`, `k`, `mg`, `mh`.
pub(crate) fn validate_pattrs(pmu: &PmuDesc, os: Os, v: &mut Vec<PAttr>) {
    if os == Os::None {
        return;
    }
    let no_plm = pmu.supported_plm == 0;
    v.retain(|p| match (p.ctrl, p.ty) {
        (_, AttrType::Umask) => true,
        (AttrCtrl::Pmu, _) => !matches!(p.idx, modifier::E | modifier::I),
        (AttrCtrl::PerfEvent, _) => {
            !(matches!(p.idx, pa::PRECISE | pa::HW_SMPL | pa::H)
                || (no_plm && matches!(p.idx, pa::U | pa::K | pa::MG | pa::MH)))
        }
    });
}

/// Encodes the uncore PERFEVTSEL and builds the fully-qualified string.
pub(crate) fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let ev = &d.pmu.events[d.event];
    let mut reg = UncPerfEvtSel(ev.code);
    let mut umask = 0u64;
    let mut given = false;
    let mut last_grp: Option<u32> = None;
    let mut counts = [0u32; 8];
    let mut ncombo = [false; 8];
    for k in 0..d.attrs.len() {
        let p = *d.pattr(k);
        if p.ctrl != AttrCtrl::Pmu {
            continue;
        }
        let ival = d.attrs[k].ival;
        match p.ty {
            AttrType::Umask => {
                let um = &ev.umasks[p.idx as usize];
                let g = (um.grp as usize).min(7);
                if last_grp.is_some_and(|l| l != um.grp) && ev.flags & ev_flag::GRP_EXCL != 0 {
                    return Err(Error::new(
                        ErrorKind::FeatureCombination,
                        format!(
                            "{}: unit mask {} cannot be combined with unit masks of another group",
                            d.event_name(),
                            um.name
                        ),
                    ));
                }
                counts[g] += 1;
                if um.flags & um_flag::NCOMBO != 0 {
                    ncombo[g] = true;
                }
                if counts[g] > 1 && ncombo[g] {
                    return Err(Error::new(
                        ErrorKind::FeatureCombination,
                        format!(
                            "{}: unit mask {} cannot be combined with another of its group",
                            d.event_name(),
                            um.name
                        ),
                    ));
                }
                last_grp = Some(um.grp);
                umask |= um.code;
                given = true;
            }
            AttrType::RawUmask => {
                if p.idx > 0xff {
                    return Err(Error::new(
                        ErrorKind::Attr,
                        format!(
                            "raw unit mask {:#x} of {} is wider than 8 bits",
                            p.idx,
                            d.event_name()
                        ),
                    ));
                }
                umask = p.idx;
                given = true;
            }
            AttrType::ModBool | AttrType::ModInteger => match p.idx {
                modifier::E => reg.set_edge((ival != 0) as u64),
                modifier::I => reg.set_inv((ival != 0) as u64),
                modifier::O => reg.set_occ_rst((ival != 0) as u64),
                modifier::C => {
                    if ival > 255 {
                        return Err(Error::new(
                            ErrorKind::Invalid,
                            format!(
                                "counter mask c={ival} of {} is out of range [0-255]",
                                d.event_name()
                            ),
                        ));
                    }
                    reg.set_cmask(ival);
                }
                _ => {}
            },
        }
    }
    if !given && ev.ngrp > 0 {
        let grp_excl = ev.flags & ev_flag::GRP_EXCL != 0;
        for g in 0..ev.ngrp {
            let dfl = (0..d.pattrs.len()).find(|&j| {
                let p = &d.pattrs[j];
                p.ctrl == AttrCtrl::Pmu
                    && p.ty == AttrType::Umask
                    && ev.umasks[p.idx as usize].grp == g
                    && ev.umasks[p.idx as usize].flags & um_flag::DFL != 0
            });
            let Some(j) = dfl else {
                let names: Vec<&str> = ev
                    .umasks
                    .iter()
                    .filter(|u| u.grp == g)
                    .map(|u| u.name)
                    .collect();
                return Err(Error::new(
                    ErrorKind::Umask,
                    format!(
                        "{} needs a unit mask: one of {}",
                        d.event_name(),
                        names.join(", ")
                    ),
                ));
            };
            umask |= ev.umasks[d.pattrs[j].idx as usize].code;
            d.attrs.push(Attr { id: j, ival: 0 });
            if grp_excl {
                break;
            }
        }
    }
    reg.0 |= umask << 8;
    reg.set_pmi(1);
    reg.set_en(1);

    d.write_fstr(|m| match m {
        modifier::E => Some(reg.edge()),
        modifier::I => Some(reg.inv()),
        modifier::C => Some(reg.cmask()),
        modifier::O => Some(reg.occ_rst()),
        _ => None,
    });
    Ok(vec![reg.0])
}

/// Reads `/sys/bus/event_source/devices/<name>/type` like C's `fscanf("%d")`.
fn perf_type(name: &str) -> Result<u32> {
    let path = format!("/sys/bus/event_source/devices/{name}/type");
    let text = std::fs::read_to_string(&path).map_err(|_| {
        Error::new(
            ErrorKind::NotSupported,
            format!("the kernel exposes no perf_events PMU {name:?} ({path} is absent): uncore events cannot be encoded for perf_events here"),
        )
    })?;
    let t = text.trim_start();
    let digits_end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map(|(i, _)| i)
        .unwrap_or(t.len());
    let v: i64 = t[..digits_end].parse().map_err(|_| {
        Error::new(
            ErrorKind::NotSupported,
            format!("{path} does not hold a PMU type number"),
        )
    })?;
    let v = v as i32;
    if v < 0 {
        let kind = ErrorKind::from_code(v).unwrap_or(ErrorKind::NotSupported);
        return Err(Error::new(
            kind,
            format!("{path} holds a negative PMU type {v}"),
        ));
    }
    Ok(v as u32)
}

/// perf_events encoding: the uncore PMU's dynamic type, the code without EN/INT.
pub(crate) fn encode_perf(d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
    let codes = encode(d)?;
    attr.type_ = perf_type(d.pmu.perf_name.unwrap_or("uncore"))?;
    let mut reg = UncPerfEvtSel(codes[0]);
    reg.set_en(0);
    reg.set_pmi(0);
    attr.config = reg.0;
    Ok(codes)
}
