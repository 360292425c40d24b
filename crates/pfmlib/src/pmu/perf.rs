//! The perf_events generic PMU (`perf::`): hardware, software and
//! hardware-cache events named by the kernel ABI, encoded as
//! `perf_event_attr.type` and `config`.

use crate::error::{Error, ErrorKind, Result};
use crate::event::{Attr, Desc, PAttr};
use crate::model::{AttrCtrl, AttrType, Os, Plm, Speculation};
use crate::os::{perf_attr as pa, PerfAttr};
use crate::tables::{EventDesc, PmuDesc};

/// Event flag: the event reports precise-sampling support.
const EV_PRECISE: u32 = 1 << 0;
/// Unit-mask flag: default of its group.
const UM_DFL: u32 = 1 << 0;

/// `perf_event_attr.type` values used by the table.
const TYPE_SOFTWARE: u32 = 1;

/// (is_precise, speculation, support_hw_smpl) of an event.
pub(crate) fn event_flags(ev: &EventDesc) -> (bool, Speculation, bool) {
    (ev.flags & EV_PRECISE != 0, Speculation::NotAvailable, false)
}

/// The unit masks of an event (perf events have no hardware modifiers).
/// Like libpfm4, attribute info never marks a perf unit mask as default.
pub(crate) fn pmu_attrs(p: &PmuDesc, event: usize) -> Vec<PAttr> {
    p.events[event]
        .umasks
        .iter()
        .enumerate()
        .map(|(i, um)| PAttr {
            name: um.name,
            desc: um.desc,
            equiv: um.equiv,
            code: um.code,
            ty: AttrType::Umask,
            ctrl: AttrCtrl::Pmu,
            idx: i as u64,
            is_dfl: false,
            is_precise: false,
            spec: Speculation::NotAvailable,
            hw_smpl: false,
        })
        .collect()
}

/// Drops `hw_smpl` always; `h` and `precise` for software events; `h`, `u`
/// or `k` for hardware events when the PMU cannot filter that level.
pub(crate) fn validate_pattrs(plm: u32, p: &PmuDesc, event: usize, os: Os, v: &mut Vec<PAttr>) {
    if os == Os::None {
        return;
    }
    let software = p.events[event].perf_type == TYPE_SOFTWARE;
    v.retain(|a| {
        if a.ctrl != AttrCtrl::PerfEvent {
            return true;
        }
        match a.idx {
            pa::HW_SMPL => false,
            pa::H => !software && plm & Plm::PLMH.bits() != 0,
            pa::PRECISE => !software,
            pa::U => software || plm & Plm::PLM3.bits() != 0,
            pa::K => software || plm & Plm::PLM0.bits() != 0,
            _ => true,
        }
    });
}

/// Raw encoding: `config` in the single code, and the fully-qualified string.
pub(crate) fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let ev = &d.pmu.events[d.event];
    let mut config = ev.code;
    let ngrp = ev.ngrp as usize;
    let mut seen = vec![false; ngrp];
    for k in 0..d.attrs.len() {
        let p = *d.pattr(k);
        if p.ctrl != AttrCtrl::Pmu || p.ty != AttrType::Umask {
            continue;
        }
        let um = &ev.umasks[p.idx as usize];
        let g = um.grp as usize;
        if seen[g] {
            return Err(Error::new(
                ErrorKind::Umask,
                format!(
                    "{}: unit mask {} cannot be combined with another unit mask of the same group",
                    d.event_name(),
                    um.name
                ),
            ));
        }
        seen[g] = true;
        config |= um.code;
    }
    for (g, done) in seen.iter().enumerate() {
        if *done {
            continue;
        }
        let dfl = (0..d.pattrs.len()).find(|&j| {
            let p = &d.pattrs[j];
            p.ctrl == AttrCtrl::Pmu
                && p.ty == AttrType::Umask
                && ev.umasks[p.idx as usize].grp as usize == g
                && ev.umasks[p.idx as usize].flags & UM_DFL != 0
        });
        match dfl {
            Some(j) => {
                config |= ev.umasks[d.pattrs[j].idx as usize].code;
                d.attrs.push(Attr { id: j, ival: 0 });
            }
            None => {
                return Err(Error::new(
                    ErrorKind::Umask,
                    format!("{} needs a unit mask from group {g}", d.event_name()),
                ))
            }
        }
    }
    d.fstr.clear();
    d.push_fstr(ev.name);
    d.sort_attrs();
    for k in 0..d.attrs.len() {
        let p = *d.pattr(k);
        if p.ctrl == AttrCtrl::Pmu && p.ty == AttrType::Umask {
            d.push_fstr_attr(p.name);
        }
    }
    Ok(vec![config])
}

/// perf_events encoding: the table's type and the config.
pub(crate) fn encode_perf(d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
    let codes = encode(d)?;
    let ev = &d.pmu.events[d.event];
    attr.type_ = ev.perf_type;
    attr.config = codes[0];
    Ok(codes)
}
