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

use super::{Engine, EventFlags, UmaskInfo};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::Host;
use crate::kernel::PerfAttr;
use crate::model::{Os, Vendor};
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use defs::{EVENT_FLAGS as EF, MODIFIERS, MOD_KEYS, PMU_FLAGS as PF, UMASK_FLAGS as UF};
use pfmlib_defs::{bit, ext, FamilyDefs};

/// PMU flags.
pub(crate) mod pmu_flag {
    use super::*;
    pub const RAW_UMASK: u32 = bit(PF, "raw_umask");
    pub const NO_SMPL: u32 = bit(PF, "no_smpl");
    pub const OCC: u32 = bit(PF, "occ");
    pub const CBO: u32 = bit(PF, "cbo");
    pub const CHA: u32 = bit(PF, "cha");
    pub const SYSFS: u32 = bit(PF, "sysfs");
    pub const FILTER_CODE: u32 = bit(PF, "filter_code");
}

/// Event flags.
pub(crate) mod ev_flag {
    use super::*;
    pub const GRP_EXCL: u32 = bit(EF, "grp_excl");
    pub const FORCE_FILT0: u32 = bit(EF, "force_filt0");
}

/// Unit-mask flags.
pub(crate) mod um_flag {
    use super::*;
    pub const DFL: u32 = bit(UF, "dfl");
    pub const NCOMBO: u32 = bit(UF, "ncombo");
    pub const EXCL_GRP_GT: u32 = bit(UF, "excl_grp_gt");
    pub const GRP_DFL_NONE: u32 = bit(UF, "grp_dfl_none");
    pub const GRP_REQ: u32 = bit(UF, "grp_req");
}

/// Modifier ids (libpfm4's attribute index, the attribute code), by their
/// unique data names.
pub(crate) mod mod_id {
    use super::defs::MOD_KEYS;
    use pfmlib_defs::position;
    const fn id(key: &str) -> u64 {
        position(MOD_KEYS, key) as u64
    }
    pub const E: u64 = id("e");
    pub const I: u64 = id("i");
    pub const T8: u64 = id("t8");
    pub const T5: u64 = id("t5");
    pub const TF: u64 = id("tf");
    pub const CF: u64 = id("cf");
    pub const NF: u64 = id("nf");
    pub const FF: u64 = id("ff");
    pub const ADDR: u64 = id("addr");
    pub const NF1: u64 = id("nf1");
    pub const ISOC: u64 = id("isoc");
    pub const NC: u64 = id("nc");
    pub const CF1: u64 = id("cf1");
    pub const TF1: u64 = id("tf1");
    pub const CF2: u64 = id("cf2");
    pub const LOC: u64 = id("loc");
    pub const REM: u64 = id("rem");
    pub const LMEM: u64 = id("lmem");
    pub const RMEM: u64 = id("rmem");
    pub const DNID: u64 = id("dnid");
    pub const RCSNID: u64 = id("rcsnid");
}

/// Extra event word: the modifiers the event takes.
const EXT_MODS: usize = ext(defs::EVENT_EXT, "mods");
/// Extra event word: the modifiers it requires.
pub(super) const EXT_MODS_REQUIRED: usize = ext(defs::EVENT_EXT, "modifiers_required");

/// The extra words of a unit mask.
pub(super) mod umask_ext {
    use super::*;
    const FILTER0: usize = ext(defs::UMASK_EXT, "filter0");
    const FILTER1: usize = ext(defs::UMASK_EXT, "filter1");
    /// The group a `grp_req` unit mask needs, + 1.
    pub const REQ_GRP: usize = ext(defs::UMASK_EXT, "req_grp");
    /// Modifiers the unit mask requires (bit = modifier id).
    pub const MODS_REQUIRED: usize = ext(defs::UMASK_EXT, "modifiers_required");

    /// What the unit mask does to filter word `k` (set bits low, cleared high).
    pub fn filter(um: UmaskDesc, k: usize) -> u64 {
        let w = if k == 0 { FILTER0 } else { FILTER1 };
        u64::from(um.ext(w)) | u64::from(um.ext(w + 1)) << 32
    }
}

/// The names of the modifiers in `mask`, for messages.
pub(super) fn required_names(mask: u32) -> String {
    (0..MODIFIERS.len())
        .filter(|&i| mask >> i & 1 != 0)
        .map(|i| MODIFIERS[i].name)
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A C-Box TOR or LLC lookup event with the opcode unit mask bit (its two
/// filter words go to `config1` together).
pub(super) fn is_cbo_filter_event(pmu: PmuDesc, reg: u64) -> bool {
    let sel = reg & 0xff;
    pmu.flags() & pmu_flag::CBO != 0 && reg >> 8 & 1 != 0 && matches!(sel, 0x34..=0x36)
}

/// A Skylake-X CHA event with filter `x`: 0 for LLC lookups, 1 for TOR
/// inserts and occupancy.
pub(super) fn is_cha_filter_event(pmu: PmuDesc, reg: u64, x: u32) -> bool {
    let sel = reg & 0xff;
    pmu.flags() & pmu_flag::CHA != 0
        && match x {
            0 => sel == 0x34,
            1 => sel == 0x35 || sel == 0x36,
            _ => false,
        }
}

/// The engine.
pub(crate) struct SnbepUncore;

impl Engine for SnbepUncore {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// libpfm4 checks an Intel CPU and the model only: its family test is
    /// skipped when the vendor is Intel. Boxes from Ivy Bridge-EP on must
    /// also be published by the kernel under `/sys/devices` when the
    /// kernel has perf_events.
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        host.vendor == Vendor::Intel && pmu.matches_model(host.model, host.stepping)
    }

    fn os_exported(&self, pmu: PmuDesc, host: &Host) -> bool {
        pmu.flags() & pmu_flag::SYSFS == 0 || super::perf_exports(host, pmu.perf_name())
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
        attr.type_ = perf::perf_type(ctx, d.pmu.perf_name())?;
        perf::fill(d.pmu, &codes, attr);
        Ok(codes)
    }
}

#[cfg(test)]
mod tests {
    use super::defs::MOD_KEYS;
    use super::*;

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
        ];
        assert!(ids.iter().enumerate().all(|(i, &id)| id == i as u64));
    }
}
