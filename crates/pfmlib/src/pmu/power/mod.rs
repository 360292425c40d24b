//! The POWER family, as libpfm4 drives it (`pfmlib_powerpc.c`,
//! `pfmlib_powerpc_perf_event.c`, `pfmlib_power*.c`, `pfmlib_ppc970.c`,
//! `pfmlib_powerpc_nest.c`):
//!
//! - an event is its raw code (the PMU's event selection, as the kernel's
//!   POWER PMU driver takes it), with no unit masks or modifiers; the
//!   fully-qualified string is the event's name;
//! - core PMUs count through `PERF_TYPE_RAW`, the code as `config`; the
//!   nest PMUs (POWER8 memory-controller bandwidth) through the kernel PMU
//!   their `perf_name` designates, its type read from sysfs;
//! - perf_events' privilege levels apply; there is no precise or hardware
//!   sampling;
//! - detection by the processor version (`host.model`, the high half of the
//!   Processor Version Register, vendor IBM) on POWER hosts only.

pub(crate) use pfmlib_defs::power as defs;

use super::common::{cpu_matches, offer_without, Engine};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::{Arch, Host};
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::{Os, PmuKind};
use crate::tables::{EventDesc, PmuDesc};
use pfmlib_defs::FamilyDefs;

/// The perf_events attributes POWER events do not take: precise sampling
/// and hardware sampling buffers.
const NOT_OFFERED: u32 = 1 << pa::PRECISE | 1 << pa::HW_SMPL;

/// The engine.
pub(crate) struct Power;

impl Engine for Power {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// On a POWER host whose processor version is one of the PMU's
    /// (`cpu_models`).
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        host.arch == Arch::PowerPc && cpu_matches(pmu, host)
    }

    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        offer_without(os, ev.modmsk(), 0, NOT_OFFERED)
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        d.write_fstr_umasks();
        Ok(vec![d.event.code()])
    }

    /// Core PMUs: `PERF_TYPE_RAW`; nest PMUs: the type of the kernel PMU
    /// `perf_name` (absent: not supported). The code is the config.
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let code = self.encode(ctx, d)?;
        attr.type_ = if d.pmu.kind() == PmuKind::Uncore {
            let name = d.pmu.perf_name().unwrap_or_default();
            super::kernel_type::perf_type(ctx, name, "its events")?
        } else {
            PERF_TYPE_RAW
        };
        attr.config = code[0];
        Ok(code)
    }
}
