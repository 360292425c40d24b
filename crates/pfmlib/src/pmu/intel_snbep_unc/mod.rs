//! The Intel server uncore family (libpfm4's `snbep_unc` engine): the
//! socket-level boxes of Sandy Bridge-EP, Ivy Bridge-EP, Haswell-EP,
//! Broadwell-X, Skylake-X, Knights Landing and Knights Mill — caching
//! agents (C-Box, CHA), home agents, memory controllers, power control,
//! QPI/UPI links and their ring stops, I/O boxes.
//!
//! Every box counts at every privilege level and programs a control
//! register (`regs`), sometimes with filter words set by unit masks and by
//! modifiers (`filters`); the raw encoding follows libpfm4 step for step
//! (`encode`) and the perf_events layer adds the PMU's dynamic type
//! (`perf`). What differs between boxes is data: the PMU flags (`occ`,
//! `cbo`, `cha`, `no_smpl`, `sysfs`, `filter_code`), the modifiers of each
//! event and the filter words of each unit mask.

pub(crate) use pfmlib_defs::intel_snbep_unc as defs;

mod encode;
mod filters;
mod perf;
mod regs;
mod vocab;

use super::common::{Engine, EventFlags, UmaskInfo};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::Host;
use crate::kernel::PerfAttr;
use crate::model::{Os, Vendor};
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use pfmlib_defs::FamilyDefs;
use vocab::{pmu_flag, um_flag, umask_ext, EXT_MODS};

/// The engine.
pub(crate) struct SnbepUncore;

impl Engine for SnbepUncore {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// libpfm4 checks an Intel CPU and the model only: its family test is
    /// skipped when the vendor is Intel. Boxes from Ivy Bridge-EP on must
    /// also be published by the kernel (`/sys/bus/event_source/devices` or
    /// `/sys/devices`) when the
    /// kernel has perf_events.
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        host.vendor == Vendor::Intel && pmu.matches_model(host.model, host.stepping)
    }

    fn os_exported(&self, pmu: PmuDesc, host: &Host) -> bool {
        pmu.flags() & pmu_flag::SYSFS == 0
            || super::common::perf_exports(host, perf::kernel_name(host, pmu.perf_name()))
    }

    /// libpfm4 reads its C-Box flag (Ivy Bridge-EP to Broadwell-DE) with
    /// the core engine's info functions, where the same bit means extended
    /// PEBS: those C-Boxes report hardware-buffer sampling.
    fn event_flags(&self, pmu: PmuDesc, _ev: EventDesc) -> EventFlags {
        EventFlags {
            hw_smpl: pmu.flags() & pmu_flag::CBO != 0,
            ..EventFlags::NONE
        }
    }

    fn umask_info(&self, pmu: PmuDesc, ev: EventDesc, um: UmaskDesc) -> UmaskInfo {
        let mut code = um.code();
        if code == 0 && pmu.flags() & pmu_flag::FILTER_CODE != 0 {
            code = umask_ext::filter(um, 0);
        }
        UmaskInfo {
            code,
            is_dfl: um.flags() & um_flag::DFL != 0,
            flags: self.event_flags(pmu, ev),
        }
    }

    fn raw_umask(&self, pmu: PmuDesc) -> bool {
        pmu.flags() & pmu_flag::RAW_UMASK != 0
    }

    fn offer(&self, _ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        perf::offer(pmu, ev.ext(EXT_MODS), os)
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        encode::encode(d)
    }

    /// The raw encoding first (its errors come first), then the PMU type.
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let codes = encode::encode(d)?;
        let name = perf::kernel_name(&ctx.host, d.pmu.perf_name());
        attr.type_ = perf::perf_type(ctx, name)?;
        perf::fill(d.pmu, &codes, attr);
        Ok(codes)
    }
}

#[cfg(test)]
mod tests {
    use super::defs::{MODIFIERS, MOD_KEYS};
    use super::vocab::mod_id;

    /// The data names of the modifiers line up with the modifiers.
    #[test]
    fn modifier_keys_follow_the_modifiers() {
        assert_eq!(MOD_KEYS.len(), MODIFIERS.len());
        for (k, m) in MOD_KEYS.iter().zip(MODIFIERS) {
            assert!(k.starts_with(m.name), "{k} / {}", m.name);
        }
        // libpfm4's attribute indexes (SNBEP_UNC_ATTR_*).
        let ids = [
            mod_id::E,
            mod_id::I,
            mod_id::T8,
            mod_id::T5,
            mod_id::TF,
            mod_id::CF,
            mod_id::NF,
            mod_id::FF,
            mod_id::ADDR,
            mod_id::NF1,
            mod_id::ISOC,
            mod_id::NC,
            mod_id::CF1,
            mod_id::TF1,
            mod_id::CF2,
            mod_id::LOC,
            mod_id::REM,
            mod_id::LMEM,
            mod_id::RMEM,
            mod_id::DNID,
            mod_id::RCSNID,
            mod_id::T6,
            mod_id::OCC_I,
            mod_id::OCC_E,
        ];
        assert!(ids.iter().enumerate().all(|(i, &id)| id == i as u64));
    }
}
