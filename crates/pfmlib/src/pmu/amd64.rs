//! The AMD64 core engine (`PERF_CTL` layout): unit-mask groups and defaults,
//! modifiers `k u e i c h g`, 12-bit event selects.

use crate::error::{Error, ErrorKind, Result};
use crate::event::{Attr, Desc, PAttr};
use crate::model::{AttrCtrl, AttrType, Os, Plm};
use crate::os::{perf_attr as pa, PerfAttr};
use crate::regs::AmdPerfCtl;
use crate::tables::PmuDesc;

/// PMU flags (bit order of `build.rs`).
pub(crate) mod pmu_flag {
    pub const RAW_UMASK: u32 = 1 << 0;
    pub const PERF_NO_H: u32 = 1 << 1;
}

mod um_flag {
    pub const DFL: u32 = 1 << 0;
    pub const NCOMBO: u32 = 1 << 1;
    pub const OMIT: u32 = 1 << 2;
}

mod modifier {
    pub const K: u64 = 0;
    pub const U: u64 = 1;
    pub const E: u64 = 2;
    pub const I: u64 = 3;
    pub const C: u64 = 4;
    pub const H: u64 = 5;
    pub const G: u64 = 6;
}

const MODIFIERS: [super::Modifier; 7] = [
    (
        "k",
        "count at privilege level 0 (kernel)",
        AttrType::ModBool,
    ),
    (
        "u",
        "count at privilege levels 1, 2 and 3 (user)",
        AttrType::ModBool,
    ),
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
    (
        "h",
        "count while the host runs (host-only bit)",
        AttrType::ModBool,
    ),
    (
        "g",
        "count while a guest runs (guest-only bit)",
        AttrType::ModBool,
    ),
];

/// The unit masks, then the modifiers, of an event.
pub(crate) fn pmu_attrs(pmu: &PmuDesc, event: usize) -> Vec<PAttr> {
    super::umasks_then_modifiers(
        &pmu.events[event],
        |um| um.flags & um_flag::DFL != 0,
        &MODIFIERS,
    )
}

/// With perf_events: `k u h` are the OS layer's, there is no precise or
/// hardware sampling, and some models have no perf `h`.
pub(crate) fn validate_pattrs(pmu: &PmuDesc, os: Os, v: &mut Vec<PAttr>) {
    if os == Os::None {
        return;
    }
    let no_h = pmu.flags & pmu_flag::PERF_NO_H != 0;
    v.retain(|p| match (p.ctrl, p.ty) {
        (_, AttrType::Umask) => true,
        (AttrCtrl::Pmu, _) => !matches!(p.idx, modifier::K | modifier::U | modifier::H),
        (AttrCtrl::PerfEvent, _) => {
            !(p.idx == pa::PRECISE || p.idx == pa::HW_SMPL || (no_h && p.idx == pa::H))
        }
    });
}

/// Encodes PERF_CTL and builds the fully-qualified string.
pub(crate) fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let ev = &d.pmu.events[d.event];
    let grpmsk: u32 = if ev.ngrp == 0 { 0 } else { (1 << ev.ngrp) - 1 };
    let mut ugrpmsk = 0u32;
    let mut umask = 0u64;
    let mut ncombo = [false; 8];
    let mut counts = [0u32; 8];
    let mut reg = AmdPerfCtl::default();
    let mut plm_given = false;
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
                umask |= um.code;
                ugrpmsk |= 1 << um.grp;
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
                ugrpmsk = grpmsk;
            }
            AttrType::ModBool | AttrType::ModInteger => match p.idx {
                modifier::K => {
                    reg.set_os((ival != 0) as u64);
                    plm_given = true;
                }
                modifier::U => {
                    reg.set_usr((ival != 0) as u64);
                    plm_given = true;
                }
                modifier::H => {
                    reg.set_host_only((ival != 0) as u64);
                    plm_given = true;
                }
                modifier::G => reg.set_guest_only((ival != 0) as u64),
                modifier::E => reg.set_edge((ival != 0) as u64),
                modifier::I => reg.set_inv((ival != 0) as u64),
                modifier::C => {
                    if ival > 255 {
                        return Err(Error::new(
                            ErrorKind::AttrValue,
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
    if !plm_given {
        reg.set_os(d.dfl_plm.contains(Plm::PLM0) as u64);
        reg.set_usr(d.dfl_plm.contains(Plm::PLM3) as u64);
        reg.set_host_only(d.dfl_plm.contains(Plm::PLMH) as u64);
    }
    for g in 0..ev.ngrp {
        if ugrpmsk & (1 << g) != 0 {
            continue;
        }
        let members: Vec<usize> = (0..d.pattrs.len())
            .filter(|&j| {
                let p = &d.pattrs[j];
                p.ctrl == AttrCtrl::Pmu
                    && p.ty == AttrType::Umask
                    && ev.umasks[p.idx as usize].grp == g
            })
            .collect();
        let dfl: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&j| ev.umasks[d.pattrs[j].idx as usize].flags & um_flag::DFL != 0)
            .collect();
        if dfl.is_empty() {
            if members
                .iter()
                .all(|&j| ev.umasks[d.pattrs[j].idx as usize].flags & um_flag::OMIT != 0)
            {
                continue;
            }
            let names: Vec<&str> = members.iter().map(|&j| d.pattrs[j].name).collect();
            return Err(Error::new(
                ErrorKind::Umask,
                format!(
                    "{} needs a unit mask: one or more of {}",
                    d.event_name(),
                    names.join(", ")
                ),
            ));
        }
        for j in dfl {
            umask |= ev.umasks[d.pattrs[j].idx as usize].code;
            d.attrs.push(Attr { id: j, ival: 0 });
        }
    }
    reg.set_event_lo(ev.code & 0xff);
    reg.set_event_hi((ev.code >> 8) & 0xf);
    reg.set_unit_mask(umask);
    reg.set_int(1);
    reg.set_en(1);

    d.write_fstr(|m| match m {
        modifier::K => Some(reg.os()),
        modifier::U => Some(reg.usr()),
        modifier::E => Some(reg.edge()),
        modifier::I => Some(reg.inv()),
        modifier::C => Some(reg.cmask()),
        modifier::H => Some(reg.host_only()),
        modifier::G => Some(reg.guest_only()),
        _ => None,
    });
    Ok(vec![reg.0])
}

/// perf_events encoding: raw type, PERF_CTL without what the kernel controls.
pub(crate) fn encode_perf(d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
    let codes = encode(d)?;
    let mut reg = AmdPerfCtl(codes[0]);
    reg.set_en(0);
    reg.set_int(0);
    reg.set_os(0);
    reg.set_usr(0);
    reg.set_guest_only(0);
    reg.set_host_only(0);
    attr.type_ = 4;
    attr.config = reg.0;
    Ok(codes)
}
