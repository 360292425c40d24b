//! The Intel x86 core family: unit-mask groups and defaults, hardware
//! modifiers, PERFEVTSEL encoding with the offcore-response or load-latency
//! second code, shared by every Intel core PMU table (Nehalem, Westmere,
//! the architectural PMU...).

mod encode;

pub(crate) use crate::defs::intel_x86 as defs;

use super::{cpu_matches, offer_of, Engine, EventFlags, UmaskInfo};
use crate::ctx::Ctx;
use crate::defs::{bit, ext, modifier, FamilyDefs};
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::{ArchPerfmon, Host};
use crate::kernel::{perf_attr as pa, PerfAttr};
use crate::model::{Os, Speculation, Vendor};
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use defs::{EVENT_FLAGS as EF, MODIFIERS, PMU_FLAGS as PF, UMASK_FLAGS as UF};

/// PMU flags.
pub(crate) mod pmu_flag {
    use super::*;
    pub const RAW_UMASK: u32 = bit(PF, "raw_umask");
    pub const ECMASK: u32 = bit(PF, "ecmask");
    pub const SPEC: u32 = bit(PF, "spec");
    pub const EXTPEBS: u32 = bit(PF, "extpebs");
    pub const ARCH: u32 = bit(PF, "arch");
}

/// Event flags.
pub(crate) mod ev_flag {
    use super::*;
    pub const PEBS: u32 = bit(EF, "pebs");
    pub const GRP_EXCL: u32 = bit(EF, "grp_excl");
    pub const OFFCORE: u32 = bit(EF, "offcore");
    pub const SPEC: u32 = bit(EF, "spec");
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
}

/// Hardware modifier ids (attribute code and bit of the modifier mask).
pub(crate) mod modifier_id {
    use super::*;
    pub const K: u64 = modifier(MODIFIERS, "k");
    pub const U: u64 = modifier(MODIFIERS, "u");
    pub const E: u64 = modifier(MODIFIERS, "e");
    pub const I: u64 = modifier(MODIFIERS, "i");
    pub const C: u64 = modifier(MODIFIERS, "c");
    pub const T: u64 = modifier(MODIFIERS, "t");
    pub const LDLAT: u64 = modifier(MODIFIERS, "ldlat");
    pub const INTX: u64 = modifier(MODIFIERS, "intx");
    pub const INTXCP: u64 = modifier(MODIFIERS, "intxcp");
    pub const FE_THRES: u64 = modifier(MODIFIERS, "fe_thres");
}

use modifier_id as m;

/// Extra event word: CPUID.0AH:EBX bit + 1 (0: always there).
const EXT_CPUID_BIT: usize = ext(defs::EVENT_EXT, "cpuid_bit");
/// Extra unit-mask words: the unit mask's own counter mask (low, high).
const UMASK_EXT_CNTMSK: usize = ext(defs::UMASK_EXT, "cntmsk");

/// Counters unit mask `um` may use, if it restricts them (libpfm4's `ucntmsk`).
pub(crate) fn umask_cntmsk(um: UmaskDesc) -> Option<u64> {
    let m = u64::from(um.ext(UMASK_EXT_CNTMSK)) | u64::from(um.ext(UMASK_EXT_CNTMSK + 1)) << 32;
    (m != 0).then_some(m)
}

/// Extra PMU word: width of a raw unit mask on an offcore event.
const EXT_OFFCORE_RAW_BITS: usize = ext(defs::PMU_EXT, "offcore_raw_bits");

/// The engine.
pub(crate) struct IntelX86;

fn is_arch(pmu: PmuDesc) -> bool {
    pmu.flags() & pmu_flag::ARCH != 0
}

/// Leaf 0xA as the architectural PMU sees it: the host's, or, when the PMU
/// is forced, libpfm4's stand-in (version 3, every event, no counters).
fn arch_perfmon(ctx: &Ctx, pmu: PmuDesc) -> Option<ArchPerfmon> {
    if ctx.forced == Some(pmu) {
        return Some(ArchPerfmon {
            eax: 3,
            ebx: 0,
            edx: 0,
        });
    }
    ctx.host.arch_perfmon
}

/// Modifier mask of an event on this host. The architectural PMU adds
/// modifiers by perfmon version as libpfm4 does: version 3 adds `t`,
/// version 4 adds `t`, `intx` and `intxcp`, other versions add nothing.
fn modmsk(ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> u32 {
    let mut mods = ev.modmsk();
    if is_arch(pmu) {
        match arch_perfmon(ctx, pmu).map(|a| a.version()) {
            Some(3) => mods |= 1 << m::T,
            Some(4) => mods |= (1 << m::T) | (1 << m::INTX) | (1 << m::INTXCP),
            _ => {}
        }
    }
    mods
}

fn speculation(pmu: PmuDesc, ev: EventDesc) -> Speculation {
    if pmu.flags() & pmu_flag::SPEC == 0 {
        Speculation::NotAvailable
    } else if ev.flags() & ev_flag::SPEC != 0 {
        Speculation::Speculative
    } else {
        Speculation::NonSpeculative
    }
}

/// Width of a raw unit mask given to an offcore event.
pub(crate) fn offcore_raw_bits(pmu: PmuDesc) -> u32 {
    pmu.ext(EXT_OFFCORE_RAW_BITS)
}

/// Does the event (or one of its unit masks here) support PEBS?
fn has_pebs(pmu: PmuDesc, ev: EventDesc) -> bool {
    ev.flags() & ev_flag::PEBS != 0
        || ev
            .umasks()
            .any(|u| u.in_variant(pmu.variant_bit()) && u.flags() & um_flag::PEBS != 0)
}

impl Engine for IntelX86 {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        if !is_arch(pmu) {
            return cpu_matches(pmu, host);
        }
        host.vendor == Vendor::Intel
            && host.family >= 5
            && host.family != 15
            && host.arch_perfmon.is_some_and(|a| a.version() >= 1)
    }

    fn event_available(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> bool {
        if !ev.in_variant(pmu.variant_bit()) {
            return false;
        }
        match ev.ext(EXT_CPUID_BIT) {
            0 => true,
            b => arch_perfmon(ctx, pmu).is_some_and(|a| a.event_available(b - 1)),
        }
    }

    fn counters(&self, ctx: &Ctx, pmu: PmuDesc) -> (u32, u32) {
        if !is_arch(pmu) {
            return (pmu.num_cntrs(), pmu.num_fixed());
        }
        match arch_perfmon(ctx, pmu) {
            Some(a) => (a.num_counters(), a.num_fixed_counters()),
            None => (0, 0),
        }
    }

    fn event_flags(&self, pmu: PmuDesc, ev: EventDesc) -> EventFlags {
        let precise = ev.flags() & ev_flag::PEBS != 0;
        EventFlags {
            precise,
            spec: speculation(pmu, ev),
            hw_smpl: precise || pmu.flags() & pmu_flag::EXTPEBS != 0,
        }
    }

    fn umask_info(&self, pmu: PmuDesc, ev: EventDesc, um: UmaskDesc) -> UmaskInfo {
        let precise = um.flags() & um_flag::PEBS != 0;
        UmaskInfo {
            // A code-overriding unit mask reports its whole code (unit mask
            // and event select), as libpfm4 does.
            code: um.code(),
            is_dfl: um.flags() & um_flag::DFL != 0,
            flags: EventFlags {
                precise,
                spec: speculation(pmu, ev),
                hw_smpl: precise || pmu.flags() & pmu_flag::EXTPEBS != 0,
            },
        }
    }

    fn raw_umask(&self, pmu: PmuDesc) -> bool {
        pmu.flags() & pmu_flag::RAW_UMASK != 0
    }

    /// With perf_events: `u`/`k` are perf's exclude bits, there is no `h`
    /// (no hypervisor level on Intel), `precise` only with PEBS, `hw_smpl`
    /// only with extended PEBS and no PEBS, and no privilege-level filters
    /// at all on a PMU without any.
    fn offer(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        let mods = modmsk(ctx, pmu, ev);
        if os == Os::None {
            return Offer { mods, perf: 0 };
        }
        let pebs = has_pebs(pmu, ev);
        let hws = pmu.flags() & pmu_flag::EXTPEBS != 0;
        let no_plm = pmu.supported_plm() == 0;
        offer_of(os, mods, (1 << m::U) | (1 << m::K), |id| {
            !((id == pa::PRECISE && !pebs)
                || (id == pa::HW_SMPL && (!hws || pebs))
                || id == pa::H
                || (no_plm && matches!(id, pa::U | pa::K | pa::MG | pa::MH)))
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        encode::encode(d)
    }

    fn encode_perf(&self, _ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        encode::encode_perf(d, attr)
    }
}
