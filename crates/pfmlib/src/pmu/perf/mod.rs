//! The perf_events generic PMU (`perf::`): hardware, software and
//! hardware-cache events named by the kernel ABI, encoded as
//! `perf_event_attr.type` and `config`.

pub(crate) use pfmlib_defs::perf as defs;

use super::common::{offer_of, Engine, EventFlags};
use crate::ctx::Ctx;
use crate::desc::{Attr, AttrRef, Desc, Offer};
use crate::error::{Error, ErrorKind, Result};
use crate::host::Host;
use crate::kernel::{perf_attr as pa, PerfAttr};
use crate::model::{Os, Plm};
use crate::tables::{EventDesc, PmuDesc};
use pfmlib_defs::{bit, ext, FamilyDefs};

/// Event flag: the event reports precise-sampling support.
const EV_PRECISE: u32 = bit(defs::EVENT_FLAGS, "precise");
/// Unit-mask flag: default of its group.
const UM_DFL: u32 = bit(defs::UMASK_FLAGS, "dfl");
/// Extra event word: `perf_event_attr.type`.
const EXT_PERF_TYPE: usize = ext(defs::EVENT_EXT, "perf_type");
/// `perf_event_attr.type` of software events.
const TYPE_SOFTWARE: u32 = 1;

/// The engine.
pub(crate) struct Perf;

/// The event's `perf_event_attr.type`.
fn perf_type(ev: EventDesc) -> u32 {
    ev.ext(EXT_PERF_TYPE)
}

impl Engine for Perf {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// Present when the kernel has perf_events.
    fn detect(&self, _pmu: PmuDesc, host: &Host) -> bool {
        host.perf_events
    }

    /// The levels of the first active core PMU, as libpfm4 does.
    fn supported_plm(&self, ctx: &Ctx, pmu: PmuDesc) -> u32 {
        ctx.core_plm.unwrap_or(pmu.supported_plm())
    }

    /// Precise events can be recorded by a hardware buffer too (libpfm4).
    fn event_flags(&self, _pmu: PmuDesc, ev: EventDesc) -> EventFlags {
        let precise = ev.flags() & EV_PRECISE != 0;
        EventFlags {
            precise,
            hw_smpl: precise,
            ..EventFlags::NONE
        }
    }

    /// No `hw_smpl`; software events have no `h` or `precise`; hardware
    /// events lose `h`, `u` or `k` when the PMU cannot filter that level.
    fn offer(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        let software = perf_type(ev) == TYPE_SOFTWARE;
        let plm = self.supported_plm(ctx, pmu);
        offer_of(os, ev.modmsk(), 0, |a| match a {
            pa::HW_SMPL => false,
            pa::H => !software && plm & Plm::PLMH.bits() != 0,
            pa::PRECISE => !software,
            pa::U => software || plm & Plm::PLM3.bits() != 0,
            pa::K => software || plm & Plm::PLM0.bits() != 0,
            _ => true,
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        encode(d)
    }

    /// The table's type and the config.
    fn encode_perf(&self, _ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let codes = encode(d)?;
        attr.type_ = perf_type(d.event);
        attr.config = codes[0];
        Ok(codes)
    }
}

/// Raw encoding: `config` in the single code, and the fully-qualified string.
fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let ev = d.event;
    let mut config = ev.code();
    let mut seen = [false; 32];
    for k in 0..d.attrs.len() {
        let AttrRef::Umask(i) = d.attrs[k].what else {
            continue;
        };
        let um = d.umask(i);
        let g = (um.grp() as usize).min(31);
        if seen[g] {
            return Err(Error::new(
                ErrorKind::Umask,
                format!(
                    "{}: unit mask {} cannot be combined with another unit mask of the same group",
                    d.event_name(),
                    um.name()
                ),
            ));
        }
        seen[g] = true;
        config |= um.code();
    }
    let variant = d.pmu.variant_bit();
    for (g, _) in seen
        .iter()
        .enumerate()
        .take(ev.ngrp() as usize)
        .filter(|(_, s)| !**s)
    {
        let dfl = (0..ev.numasks()).find(|&j| {
            let u = ev.umask(j);
            u.in_variant(variant) && u.grp() as usize == g && u.flags() & UM_DFL != 0
        });
        let Some(j) = dfl else {
            return Err(Error::new(
                ErrorKind::Umask,
                format!("{} needs a unit mask from group {g}", d.event_name()),
            ));
        };
        config |= ev.umask(j).code();
        d.attrs.push(Attr {
            what: AttrRef::Umask(j as u16),
            ival: 0,
        });
    }
    d.write_fstr_umasks();
    Ok(vec![config])
}
