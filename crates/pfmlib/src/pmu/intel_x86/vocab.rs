//! The x86 core family's vocabulary as the engine reads it: flag bits,
//! modifier ids and the extra words of events, unit masks and PMUs (all
//! computed at compile time from `pfmlib_defs::intel_x86`). Read by the
//! engine, its encoder, the sibling uncore engines and the dispatcher.

use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use defs::{EVENT_FLAGS as EF, MODIFIERS, PMU_FLAGS as PF, UMASK_FLAGS as UF};
use pfmlib_defs::intel_x86 as defs;
use pfmlib_defs::{bit, ext, modifier};

/// PMU flags.
pub(crate) mod pmu_flag {
    use super::*;
    pub const RAW_UMASK: u32 = bit(PF, "raw_umask");
    pub const ECMASK: u32 = bit(PF, "ecmask");
    pub const SPEC: u32 = bit(PF, "spec");
    pub const EXTPEBS: u32 = bit(PF, "extpebs");
    pub const ARCH: u32 = bit(PF, "arch");
    pub const NO_SMPL: u32 = bit(PF, "no_smpl");
}

/// Event flags.
pub(crate) mod ev_flag {
    use super::*;
    pub const PEBS: u32 = bit(EF, "pebs");
    pub const GRP_EXCL: u32 = bit(EF, "grp_excl");
    pub const OFFCORE: u32 = bit(EF, "offcore");
    pub const SPEC: u32 = bit(EF, "spec");
    pub const FRONTEND: u32 = bit(EF, "frontend");
    #[cfg(test)]
    pub const DEPRECATED: u32 = bit(EF, "deprecated");
    #[cfg(test)]
    pub const CODE_DUP: u32 = bit(EF, "code_dup");
    #[cfg_attr(not(test), allow(dead_code))]
    pub const NO_AUTOENCODE: u32 = bit(EF, "no_autoencode");
}

/// Unit-mask flags.
pub(crate) mod um_flag {
    use super::*;
    pub const DFL: u32 = bit(UF, "dfl");
    pub const PEBS: u32 = bit(UF, "pebs");
    pub const NCOMBO: u32 = bit(UF, "ncombo");
    pub const EXCL_GRP_GT: u32 = bit(UF, "excl_grp_gt");
    pub const GRP_DFL_NONE: u32 = bit(UF, "grp_dfl_none");
    pub const LDLAT: u32 = bit(UF, "ldlat");
    pub const EXCL_GRP_BUT_0: u32 = bit(UF, "excl_grp_but_0");
    pub const CODE_OVERRIDE: u32 = bit(UF, "code_override");
    pub const GRP_REQ: u32 = bit(UF, "grp_req");
    pub const FETHR: u32 = bit(UF, "fethr");
    pub const NO_MODS: u32 = bit(UF, "no_mods");
    #[cfg_attr(not(test), allow(dead_code))]
    pub const NO_AUTOENCODE: u32 = bit(UF, "no_autoencode");
}

/// Hardware modifier ids (attribute code and bit of the modifier mask).
pub(crate) mod modifier_id {
    use super::*;
    pub const K: u64 = modifier(MODIFIERS, "k");
    pub const U: u64 = modifier(MODIFIERS, "u");
    #[cfg(test)]
    pub const C: u64 = modifier(MODIFIERS, "c");
    pub const T: u64 = modifier(MODIFIERS, "t");
    pub const LDLAT: u64 = modifier(MODIFIERS, "ldlat");
    pub const INTX: u64 = modifier(MODIFIERS, "intx");
    pub const INTXCP: u64 = modifier(MODIFIERS, "intxcp");
    pub const FE_THRES: u64 = modifier(MODIFIERS, "fe_thres");
}

/// Extra event word: CPUID.0AH:EBX bit + 1 (0: always there).
pub(crate) const EXT_CPUID_BIT: usize = ext(defs::EVENT_EXT, "cpuid_bit");
/// Extra event word: modifiers the event must be given (bit = modifier id).
pub(crate) const EXT_MODS_REQUIRED: usize = ext(defs::EVENT_EXT, "modifiers_required");
/// Extra unit-mask words: the unit mask's own counter mask (low, high).
pub(crate) const UMASK_EXT_CNTMSK: usize = ext(defs::UMASK_EXT, "cntmsk");
/// Extra unit-mask word: the group it requires + 1 (0: none).
pub(crate) const UMASK_EXT_REQ_GRP: usize = ext(defs::UMASK_EXT, "req_grp");
/// Extra unit-mask word: modifiers it requires (bit = modifier id).
pub(crate) const UMASK_EXT_MODS_REQUIRED: usize = ext(defs::UMASK_EXT, "modifiers_required");
/// Extra unit-mask word: the event select it substitutes + 1 (0: none).
pub(crate) const UMASK_EXT_EVENT_CODE: usize = ext(defs::UMASK_EXT, "event_code");

/// Extra unit-mask word: the load latency it hard-wires + 1 (0: none).
pub(crate) const UMASK_EXT_LDLAT: usize = ext(defs::UMASK_EXT, "ldlat");

/// Extra unit-mask word: the front-end register value it hard-wires + 1.
pub(crate) const UMASK_EXT_FRONTEND: usize = ext(defs::UMASK_EXT, "frontend");

/// The `MSR_PEBS_FRONTEND` value a unit mask hard-wires (pfmlib's own
/// `frontend` key of the vendor-list tables): the second code.
pub(crate) fn umask_frontend(um: UmaskDesc) -> Option<u64> {
    um.ext(UMASK_EXT_FRONTEND).checked_sub(1).map(u64::from)
}

/// The load-latency threshold a `ldlat` unit mask hard-wires (pfmlib's
/// own `LOAD_LATENCY_GT_<n>` unit masks of the vendor-list tables).
pub(crate) fn umask_ldlat(um: UmaskDesc) -> Option<u64> {
    um.ext(UMASK_EXT_LDLAT).checked_sub(1).map(u64::from)
}

/// Counters unit mask `um` may use, if it restricts them (libpfm4's `ucntmsk`).
pub(crate) fn umask_cntmsk(um: UmaskDesc) -> Option<u64> {
    let m = u64::from(um.ext(UMASK_EXT_CNTMSK)) | u64::from(um.ext(UMASK_EXT_CNTMSK + 1)) << 32;
    (m != 0).then_some(m)
}

/// Modifiers event `ev` must be given (libpfm4's `modmsk_req`).
pub(crate) fn event_modifiers_required(ev: EventDesc) -> u32 {
    ev.ext(EXT_MODS_REQUIRED)
}

/// The group whose unit mask `um` needs (`grp_req` unit masks).
#[cfg(test)]
pub(crate) fn umask_req_grp(um: UmaskDesc) -> Option<u32> {
    um.ext(UMASK_EXT_REQ_GRP).checked_sub(1)
}

/// The event select a `code_override` unit mask puts in place of the
/// event's (0 when the data gives none).
pub(crate) fn umask_event_code(um: UmaskDesc) -> u64 {
    u64::from(um.ext(UMASK_EXT_EVENT_CODE).saturating_sub(1))
}

/// libpfm4's whole `ucode` of a unit mask: the unit-mask bits from bit 8 up
/// and, for a `code_override` unit mask, its event select in bits 0-7.
pub(crate) fn umask_ucode(um: UmaskDesc) -> u64 {
    let code = um.code() << 8;
    if um.flags() & um_flag::CODE_OVERRIDE != 0 {
        code | umask_event_code(um)
    } else {
        code
    }
}

/// May libpfm4's table validation encode unit mask `attr` (an attribute
/// index) of event `ev` on its own? Not when the event or that unit mask
/// is marked `no_autoencode` (libpfm4's `can_auto_encode`; it indexes the
/// unit mask with the attribute index, unfiltered, as this does). Kept for
/// the table validation of the C interface (`pfm_pmu_validate`), which has
/// no caller in this crate yet.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn can_auto_encode(ev: EventDesc, attr: usize) -> bool {
    if ev.flags() & ev_flag::NO_AUTOENCODE != 0 || attr >= ev.numasks() {
        return false;
    }
    ev.umask(attr).flags() & um_flag::NO_AUTOENCODE == 0
}

/// Extra PMU word: width of a raw unit mask on an offcore event.
pub(crate) const EXT_OFFCORE_RAW_BITS: usize = ext(defs::PMU_EXT, "offcore_raw_bits");

/// Extra PMU word: the hybrid core type the PMU counts on + 1 (0: any).
pub(crate) const EXT_CORE_TYPE: usize = ext(defs::PMU_EXT, "core_type");
/// Extra PMU word: the native model id of that core + 1 (0: any).
pub(crate) const EXT_NATIVE_MODEL: usize = ext(defs::PMU_EXT, "native_model");

/// The kind of hybrid core a PMU counts on (CPUID leaf 0x1A's core type
/// and, when the data names it, native model id); `None`: not tied to one.
pub(crate) fn hybrid_core(pmu: PmuDesc) -> Option<(u8, Option<u32>)> {
    let ct = pmu.ext(EXT_CORE_TYPE).checked_sub(1)?;
    let nm = pmu.ext(EXT_NATIVE_MODEL).checked_sub(1);
    Some((ct as u8, nm))
}

/// Width of a raw unit mask given to an offcore event.
pub(crate) fn offcore_raw_bits(pmu: PmuDesc) -> u32 {
    pmu.ext(EXT_OFFCORE_RAW_BITS)
}
