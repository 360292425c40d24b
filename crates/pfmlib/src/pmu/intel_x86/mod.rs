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
    #[cfg_attr(not(test), allow(dead_code))]
    pub const NO_AUTOENCODE: u32 = bit(UF, "no_autoencode");
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
/// Extra event word: modifiers the event must be given (bit = modifier id).
const EXT_MODS_REQUIRED: usize = ext(defs::EVENT_EXT, "modifiers_required");
/// Extra unit-mask words: the unit mask's own counter mask (low, high).
const UMASK_EXT_CNTMSK: usize = ext(defs::UMASK_EXT, "cntmsk");
/// Extra unit-mask word: the group it requires + 1 (0: none).
const UMASK_EXT_REQ_GRP: usize = ext(defs::UMASK_EXT, "req_grp");
/// Extra unit-mask word: modifiers it requires (bit = modifier id).
const UMASK_EXT_MODS_REQUIRED: usize = ext(defs::UMASK_EXT, "modifiers_required");
/// Extra unit-mask word: the event select it substitutes + 1 (0: none).
const UMASK_EXT_EVENT_CODE: usize = ext(defs::UMASK_EXT, "event_code");

/// Counters unit mask `um` may use, if it restricts them (libpfm4's `ucntmsk`).
pub(crate) fn umask_cntmsk(um: UmaskDesc) -> Option<u64> {
    let m = u64::from(um.ext(UMASK_EXT_CNTMSK)) | u64::from(um.ext(UMASK_EXT_CNTMSK + 1)) << 32;
    (m != 0).then_some(m)
}

/// Modifiers event `ev` must be given (libpfm4's `modmsk_req`).
pub(crate) fn event_modifiers_required(ev: EventDesc) -> u32 {
    ev.ext(EXT_MODS_REQUIRED)
}

/// Modifiers an event must be given when unit mask `um` is used
/// (libpfm4's `umodmsk_req`).
pub(crate) fn umask_modifiers_required(um: UmaskDesc) -> u32 {
    um.ext(UMASK_EXT_MODS_REQUIRED)
}

/// The group whose unit mask `um` needs (`grp_req` unit masks).
pub(crate) fn umask_req_grp(um: UmaskDesc) -> Option<u32> {
    um.ext(UMASK_EXT_REQ_GRP).checked_sub(1)
}

/// libpfm4's 16-bit `grpid` of a unit mask: the group, and the required
/// group in bits 8-15. The comparisons libpfm4 makes on the whole field
/// (defaults, groups above an exclusive one) use it.
pub(crate) fn full_grpid(um: UmaskDesc) -> u32 {
    um.grp() | umask_req_grp(um).map_or(0, |g| (g & 0xff) << 8)
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
const EXT_OFFCORE_RAW_BITS: usize = ext(defs::PMU_EXT, "offcore_raw_bits");

/// The engine.
pub(crate) struct IntelX86;

fn is_arch(pmu: PmuDesc) -> bool {
    pmu.flags() & pmu_flag::ARCH != 0
}

/// Leaf 0xA as the architectural PMU sees it: when the PMU is forced,
/// libpfm4's stand-in (version 3, every event, no counters); otherwise the
/// host's, but only where the PMU is set up at all — libpfm4 builds its
/// event table when it activates the PMU, so one that is not detected (or
/// not the forced one) has no events, whatever leaf 0xA says.
fn arch_perfmon(ctx: &Ctx, pmu: PmuDesc) -> Option<ArchPerfmon> {
    if ctx.forced == Some(pmu) {
        return Some(ArchPerfmon {
            eax: 3,
            ebx: 0,
            edx: 0,
        });
    }
    if ctx.forcing {
        return None;
    }
    ctx.host
        .arch_perfmon
        .filter(|_| IntelX86.detect(pmu, &ctx.host))
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

    /// The architectural PMU: the position among the events leaf 0xA
    /// leaves available (libpfm4 builds its table of those alone).
    fn event_index(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> usize {
        if !is_arch(pmu) {
            return ev.index();
        }
        pmu.events()
            .take_while(|e| e.index() < ev.index())
            .filter(|&e| self.event_available(ctx, pmu, e))
            .count()
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
            code: if um.flags() & um_flag::CODE_OVERRIDE != 0 {
                umask_ucode(um)
            } else {
                um.code()
            },
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
    /// only with extended PEBS and no PEBS, no sampling attributes on a PMU
    /// that cannot sample, and no privilege-level filters at all on a PMU
    /// without any (libpfm4's `pfm_intel_x86_perf_validate_pattrs`).
    fn offer(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        let mods = modmsk(ctx, pmu, ev);
        if os == Os::None {
            return Offer { mods, perf: 0 };
        }
        let pebs = has_pebs(pmu, ev);
        let hws = pmu.flags() & pmu_flag::EXTPEBS != 0;
        let no_smpl = pmu.flags() & pmu_flag::NO_SMPL != 0;
        let no_plm = pmu.supported_plm() == 0;
        // The perf_events attributes left out, as a mask of ids.
        let bit = |id: u64| 1u64 << id;
        let mut drop = bit(pa::H);
        if !pebs {
            drop |= bit(pa::PRECISE);
        }
        if !hws || pebs {
            drop |= bit(pa::HW_SMPL);
        }
        if no_smpl {
            drop |= bit(pa::FREQ) | bit(pa::PRECISE) | bit(pa::PERIOD);
        }
        if no_plm {
            drop |= bit(pa::U) | bit(pa::K) | bit(pa::MG) | bit(pa::MH);
        }
        offer_of(os, mods, (1 << m::U) | (1 << m::K), |id| {
            drop >> id & 1 == 0
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        encode::encode(d)
    }

    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        encode::encode_perf(ctx, d, attr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intel_events() -> impl Iterator<Item = (PmuDesc, EventDesc)> {
        PmuDesc::all()
            .filter(|p| {
                crate::defs::FAMILIES
                    .get(p.family())
                    .is_some_and(|f| f.name == "intel_x86")
            })
            .flat_map(|p| p.events().map(move |e| (p, e)))
    }

    /// A `code_override` unit mask names the event select it puts in place
    /// (`event_code`), and only such unit masks do; a hard-wired front-end
    /// threshold belongs to a `fethr` unit mask of a `frontend` event.
    #[test]
    fn override_and_frontend_keys_are_consistent() {
        for (p, ev) in intel_events() {
            for um in ev.umasks() {
                let what = format!("{}::{}:{}", p.name(), ev.name(), um.name());
                let overrides = um.flags() & um_flag::CODE_OVERRIDE != 0;
                assert_eq!(overrides, um.ext(UMASK_EXT_EVENT_CODE) != 0, "{what}");
                if um.modhw() & (1 << m::FE_THRES) != 0 {
                    assert!(um.flags() & um_flag::FETHR != 0, "{what}");
                    assert!(ev.flags() & ev_flag::FRONTEND != 0, "{what}");
                }
                if um.flags() & um_flag::GRP_REQ != 0 {
                    assert!(umask_req_grp(um).is_some_and(|g| g < ev.ngrp()), "{what}");
                }
            }
        }
    }

    /// libpfm4's ucode of a `code_override` unit mask: event select in the
    /// low byte (icl's TOPDOWN:SLOTS_P is 0x01a4).
    #[test]
    fn override_codes() {
        let icl = PmuDesc::by_name("icl").expect("icl");
        let ev = icl.find_event("TOPDOWN", |_| true).expect("TOPDOWN");
        let i = ev
            .find_umask(b"SLOTS_P", |_| true)
            .expect("SLOTS_P unit mask");
        assert_eq!(umask_ucode(ev.umask(i)), 0x01a4);
        assert_eq!(umask_event_code(ev.umask(i)), 0xa4);
    }

    /// Only libpfm4's table validation looks at `no_autoencode`.
    #[test]
    fn auto_encoding() {
        let skl = PmuDesc::by_name("skl").expect("skl");
        let ev = skl
            .find_event("MEM_TRANS_RETIRED", |_| true)
            .expect("MEM_TRANS_RETIRED");
        let names: Vec<&str> = ev.umasks().map(|u| u.name()).collect();
        assert_eq!(names, ["LOAD_LATENCY", "LATENCY_ABOVE_THRESHOLD"]);
        assert!(can_auto_encode(ev, 0));
        assert!(!can_auto_encode(ev, 1));
        assert!(!can_auto_encode(ev, 2));
    }
}
