//! The RISC-V family (pfmlib's own: no libpfm4 has one), after the Linux
//! perf tool's RISC-V event lists and the kernel's SBI PMU driver
//! (`drivers/perf/riscv_pmu_sbi.c`):
//!
//! - an event is its code, with no unit masks or modifiers; the
//!   fully-qualified string is the event's name;
//! - the kernel's RISC-V PMU (`cpu`, which the driver registers with the
//!   type `PERF_TYPE_RAW`, so its sysfs `type` always reads 4) takes a
//!   hardware event as `config` = its code (bits 0-47, the
//!   `mhpmeventN` value), and an SBI firmware event as `config` =
//!   1<<63 | its id (the `firmware` PMU flag); PFM_OS_NONE gives the same
//!   value as the one code;
//! - perf_events' privilege levels apply; there is no precise or hardware
//!   sampling;
//! - detection, on RISC-V hosts only: a core PMU by the first hart's
//!   `mvendorid`, `marchid` and `mimpid` (`Host::riscv`) against the PMU's
//!   keys (perf's `mapfile.csv` rows as numbers, see
//!   `pfmlib_defs::riscv::PMU_EXT`); the firmware PMU wherever the kernel
//!   publishes its `cpu` PMU (the SBI PMU driver counts the firmware events
//!   on any core).

pub(crate) use pfmlib_defs::riscv as defs;

use super::common::{offer_without, Engine};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::{Arch, Host, RiscvIds};
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::Os;
use crate::tables::{EventDesc, PmuDesc};
use pfmlib_defs::{bit, ext, FamilyDefs};

/// The perf_events attributes RISC-V events do not take: precise sampling
/// and hardware sampling buffers.
const NOT_OFFERED: u32 = 1 << pa::PRECISE | 1 << pa::HW_SMPL;

/// PMU flag of the SBI firmware events.
const FIRMWARE: u32 = bit(defs::PMU_FLAGS, "firmware");

/// `config` bit of a firmware event (the driver's `RISCV_PMU_SBI_FW`
/// selector, perf's `firmware:config:63`).
const FW_BIT: u64 = 1 << 63;

/// The bits of `config` a hardware event's code takes (0-47).
const HW_MASK: u64 = (1 << 48) - 1;

/// Positions of the detection keys in the PMU's extension words.
mod key {
    use super::{defs::PMU_EXT, ext};
    pub const MVENDORID: usize = ext(PMU_EXT, "mvendorid");
    pub const MARCHID_HI: usize = ext(PMU_EXT, "marchid_hi");
    pub const MARCHID_LO: usize = ext(PMU_EXT, "marchid_lo");
    pub const MARCHID_NIBBLE: usize = ext(PMU_EXT, "marchid_nibble");
    pub const MARCHID_DIGITS: usize = ext(PMU_EXT, "marchid_digits");
    pub const MIMPID_LEAD: usize = ext(PMU_EXT, "mimpid_lead");
    pub const MIMPID_EXACT: usize = ext(PMU_EXT, "mimpid_exact");
}

/// The engine.
pub(crate) struct Riscv;

impl Engine for Riscv {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// On a RISC-V host: the firmware PMU when the kernel publishes its CPU
    /// PMU and `/proc/cpuinfo` is a RISC-V kernel's (not this x86 machine's
    /// read as a RISC-V host, `pfm --host-arch riscv64`), a core PMU when
    /// the first hart's identity matches its keys.
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        if host.arch != Arch::RiscV64 {
            return false;
        }
        if pmu.flags() & FIRMWARE != 0 {
            return host.kernel_cpu_pmu && riscv_kernel(host);
        }
        host.riscv.is_some_and(|ids| ids_match(pmu, ids))
    }

    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        offer_without(os, ev.modmsk(), 0, NOT_OFFERED)
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        d.write_fstr_umasks();
        let code = d.event.code();
        let config = if d.pmu.flags() & FIRMWARE != 0 {
            FW_BIT | code
        } else {
            code & HW_MASK
        };
        Ok(vec![config])
    }

    /// `PERF_TYPE_RAW` (the type the kernel's RISC-V PMU registers), the
    /// code as `config`.
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let codes = self.encode(ctx, d)?;
        attr.type_ = PERF_TYPE_RAW;
        attr.config = codes[0];
        Ok(codes)
    }
}

/// Did a RISC-V kernel write this host's `/proc/cpuinfo` (identity lines,
/// or an `isa : rv64...` line, which older kernels write alone)?
fn riscv_kernel(host: &Host) -> bool {
    host.riscv.is_some()
        || host
            .read_file(CPUINFO)
            .is_some_and(|t| Arch::from_cpuinfo(&t) == Some(Arch::RiscV64))
}

/// Where Linux describes the harts.
const CPUINFO: &str = "/proc/cpuinfo";

/// Does a hart of identity `ids` match the detection keys of `pmu`?
fn ids_match(pmu: PmuDesc, ids: RiscvIds) -> bool {
    let vendor = pmu.ext(key::MVENDORID);
    if vendor == 0 || u64::from(vendor) != ids.mvendorid {
        return false;
    }
    let want = u64::from(pmu.ext(key::MARCHID_HI)) << 32 | u64::from(pmu.ext(key::MARCHID_LO));
    let digits = pmu.ext(key::MARCHID_DIGITS);
    let arch_ok = if digits == 0 {
        ids.marchid == want
    } else {
        let shift = 4 * pmu.ext(key::MARCHID_NIBBLE);
        let nibble = (ids.marchid >> shift) & 0xf;
        let rest = ids.marchid & !(0xf << shift);
        rest == want & !(0xf << shift) && digits & (1 << nibble) != 0
    };
    arch_ok && mimpid_matches(pmu, ids.mimpid)
}

/// Does `mimpid` match the PMU's `mimpid_exact` or `mimpid_lead` key?
fn mimpid_matches(pmu: PmuDesc, mimpid: u64) -> bool {
    let exact = pmu.ext(key::MIMPID_EXACT);
    if exact != 0 {
        return mimpid == u64::from(exact - 1);
    }
    let lead = pmu.ext(key::MIMPID_LEAD);
    lead == 0 || lead_digit(mimpid).is_some_and(|d| lead & (1 << d) != 0)
}

/// The leading hexadecimal digit of `v` when it has two digits or more
/// (perf's `0x[..][[:xdigit:]]+`).
fn lead_digit(v: u64) -> Option<u32> {
    let digits = (64 - v.leading_zeros()).div_ceil(4);
    (digits >= 2).then(|| ((v >> (4 * (digits - 1))) & 0xf) as u32)
}

#[cfg(test)]
mod tests {
    use super::lead_digit;

    #[test]
    fn leading_digits() {
        assert_eq!(lead_digit(0), None);
        assert_eq!(lead_digit(0x7), None);
        assert_eq!(lead_digit(0x70), Some(7));
        assert_eq!(lead_digit(0xd0123), Some(0xd));
        assert_eq!(lead_digit(0x421_0427), Some(4));
        assert_eq!(lead_digit(u64::MAX), Some(0xf));
    }
}
