//! The Intel Sandy Bridge / Ivy Bridge client uncore: one PMU per C-box
//! (last-level cache slice), encoded by the x86 core encoder (unit masks,
//! `e i c`, no privilege levels), with the perf_events type of the
//! kernel's `uncore_cbox_N` PMU. These boxes cannot sample.

pub(crate) use pfmlib_defs::intel_snb_unc as defs;

use super::common::{cpu_matches, offer_of, Engine, EventFlags, UmaskInfo};
use super::intel_x86::{pmu_flag, IntelX86};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::Host;
use crate::kernel::{perf_attr as pa, PerfAttr};
use crate::model::Os;
use crate::regs::PerfEvtSel;
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use pfmlib_defs::{modifier, FamilyDefs};

/// The x86 privilege-level modifiers, taken over by perf_events.
const PLM_MODS: u32 =
    (1 << modifier(defs::DEFS.modifiers, "k")) | (1 << modifier(defs::DEFS.modifiers, "u"));

/// The engine.
pub(crate) struct SnbUncore;

impl Engine for SnbUncore {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// The CPU model, and with perf_events the kernel's box
    /// (`/sys/bus/event_source/devices/uncore_cbox_N` or
    /// `/sys/devices/uncore_cbox_N`), as libpfm4 checks both.
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        cpu_matches(pmu, host)
    }

    /// With perf_events, the kernel must publish the C-Box.
    fn os_exported(&self, pmu: PmuDesc, host: &Host) -> bool {
        super::common::perf_exports(host, pmu.perf_name())
    }

    fn event_flags(&self, pmu: PmuDesc, ev: EventDesc) -> EventFlags {
        IntelX86.event_flags(pmu, ev)
    }

    fn umask_info(&self, pmu: PmuDesc, ev: EventDesc, um: UmaskDesc) -> UmaskInfo {
        IntelX86.umask_info(pmu, ev, um)
    }

    fn raw_umask(&self, pmu: PmuDesc) -> bool {
        pmu.flags() & pmu_flag::RAW_UMASK != 0
    }

    /// With perf_events: no `u`/`k` modifiers, and of perf's attributes
    /// neither privilege levels (the boxes filter none), nor a hypervisor
    /// level, nor any sampling (`period`, `freq`, `precise`, `hw_smpl`).
    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        offer_of(os, ev.modmsk(), PLM_MODS, |a| {
            matches!(a, pa::EXCL | pa::CPU | pa::PINNED)
        })
    }

    fn encode(&self, ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        IntelX86.encode(ctx, d)
    }

    /// The box's type from sysfs (required, as libpfm4 upstream finds it:
    /// see `listed_perf_type`); `config` is the code without
    /// the enable and interrupt bits, which the kernel controls.
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let codes = IntelX86.encode(ctx, d)?;
        let name = d.pmu.perf_name().unwrap_or("uncore_cbox_0");
        attr.type_ = super::kernel_type::listed_perf_type(ctx, name, "its events")?;
        let mut reg = PerfEvtSel(codes.first().copied().unwrap_or(0));
        reg.set_en(0);
        reg.set_int(0);
        attr.config = reg.0;
        Ok(codes)
    }
}
