//! The server uncore family's vocabulary as the engine reads it: flag
//! bits, modifier ids, extra words, and which events take filter words
//! whole (computed at compile time from `pfmlib_defs::intel_snbep_unc`).

use crate::tables::{PmuDesc, UmaskDesc};
use defs::{EVENT_FLAGS as EF, MODIFIERS, PMU_FLAGS as PF, UMASK_FLAGS as UF};
use pfmlib_defs::intel_snbep_unc as defs;
use pfmlib_defs::{bit, ext};

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
    pub const T6: u64 = id("t6");
    pub const OCC_I: u64 = id("occ_i");
    pub const OCC_E: u64 = id("occ_e");
}

/// Extra event word: the modifiers the event takes.
pub(crate) const EXT_MODS: usize = ext(defs::EVENT_EXT, "mods");
/// Extra event word: the modifiers it requires.
pub(crate) const EXT_MODS_REQUIRED: usize = ext(defs::EVENT_EXT, "modifiers_required");

/// The extra words of a unit mask.
pub(crate) mod umask_ext {
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
pub(crate) fn required_names(mask: u32) -> String {
    (0..MODIFIERS.len())
        .filter(|&i| mask >> i & 1 != 0)
        .map(|i| MODIFIERS[i].name)
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A C-Box TOR or LLC lookup event with the opcode unit mask bit (its two
/// filter words go to `config1` together).
pub(crate) fn is_cbo_filter_event(pmu: PmuDesc, reg: u64) -> bool {
    let sel = reg & 0xff;
    pmu.flags() & pmu_flag::CBO != 0 && reg >> 8 & 1 != 0 && matches!(sel, 0x34..=0x36)
}

/// A Skylake-X CHA event with filter `x`: 0 for LLC lookups, 1 for TOR
/// inserts and occupancy.
pub(crate) fn is_cha_filter_event(pmu: PmuDesc, reg: u64, x: u32) -> bool {
    let sel = reg & 0xff;
    pmu.flags() & pmu_flag::CHA != 0
        && match x {
            0 => sel == 0x34,
            1 => sel == 0x35 || sel == 0x36,
            _ => false,
        }
}
