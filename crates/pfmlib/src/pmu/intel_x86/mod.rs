//! The Intel x86 core family: unit-mask groups and defaults, hardware
//! modifiers, PERFEVTSEL encoding with the offcore-response or load-latency
//! second code, shared by every Intel core PMU table (Nehalem, Westmere,
//! the architectural PMU...).

mod encode;
mod vocab;

pub(crate) use pfmlib_defs::intel_x86 as defs;
pub(crate) use vocab::{ev_flag, modifier_id, pmu_flag, um_flag, umask_cntmsk};
use vocab::{umask_ucode, EXT_CPUID_BIT};

use super::common::{cpu_matches, offer_without, Engine, EventFlags, UmaskInfo};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::{ArchPerfmon, Host};
use crate::kernel::{perf_attr as pa, PerfAttr};
use crate::model::{Os, Speculation, Vendor};
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use modifier_id as m;
use pfmlib_defs::FamilyDefs;

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

/// Is the architectural event of leaf 0xA bit `bit` there (the rare path of
/// `event_available`, kept out of line)?
#[cold]
#[inline(never)]
fn arch_event_available(ctx: &Ctx, pmu: PmuDesc, bit: u32) -> bool {
    arch_perfmon(ctx, pmu).is_some_and(|a| a.event_available(bit))
}

/// The architectural PMU's event index: the position among the events
/// leaf 0xA leaves available (out of line, the rare case).
#[inline(never)]
fn arch_event_index(ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> usize {
    pmu.events()
        .take_while(|e| e.index() < ev.index())
        .filter(|&e| IntelX86.event_available(ctx, pmu, e))
        .count()
}

/// Modifier mask of an event on this host. The architectural PMU adds
/// modifiers by perfmon version as libpfm4 upstream does: version 3 adds
/// `t`, version 4 adds `t`, `intx` and `intxcp`, version 5 (upstream; 4.13
/// added nothing) `intx` and `intxcp`, other versions add nothing.
fn modmsk(ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> u32 {
    let mut mods = ev.modmsk();
    if is_arch(pmu) {
        match arch_perfmon(ctx, pmu).map(|a| a.version()) {
            Some(3) => mods |= 1 << m::T,
            Some(4) => mods |= (1 << m::T) | (1 << m::INTX) | (1 << m::INTXCP),
            Some(5) => mods |= (1 << m::INTX) | (1 << m::INTXCP),
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

/// Does the event (or one of its unit masks here) support PEBS?
fn has_pebs(pmu: PmuDesc, ev: EventDesc) -> bool {
    if ev.flags() & ev_flag::PEBS != 0 {
        return true;
    }
    let i = ev.index();
    match pebs_umask_events(pmu) {
        Some(bits) => bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0),
        None => has_pebs_umask(pmu, ev),
    }
}

/// Has event `ev` a unit mask of `pmu`'s variant with precise sampling?
fn has_pebs_umask(pmu: PmuDesc, ev: EventDesc) -> bool {
    ev.umasks()
        .any(|u| u.in_variant(pmu.variant_bit()) && u.flags() & um_flag::PEBS != 0)
}

/// Per PMU, made on first use: the events (bit = position in the table)
/// with a unit mask that has precise sampling, so that each perf_events
/// offer does not scan the event's unit masks.
fn pebs_umask_events(pmu: PmuDesc) -> Option<&'static [u64]> {
    use std::sync::OnceLock;
    static ALL: OnceLock<Vec<OnceLock<Box<[u64]>>>> = OnceLock::new();
    let all = ALL.get_or_init(|| PmuDesc::all().map(|_| OnceLock::new()).collect());
    let bits = all.get(pmu.index())?.get_or_init(|| {
        let mut bits = vec![0u64; pmu.nevents().div_ceil(64)];
        for ev in pmu.events() {
            if has_pebs_umask(pmu, ev) {
                bits[ev.index() / 64] |= 1 << (ev.index() % 64);
            }
        }
        bits.into_boxed_slice()
    });
    Some(bits)
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

    #[inline]
    fn event_available(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> bool {
        if !ev.in_variant(pmu.variant_bit()) {
            return false;
        }
        match ev.ext(EXT_CPUID_BIT) {
            0 => true,
            b => arch_event_available(ctx, pmu, b - 1),
        }
    }

    /// The architectural PMU: the position among the events leaf 0xA
    /// leaves available (libpfm4 builds its table of those alone).
    #[inline]
    fn event_index(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> usize {
        if !is_arch(pmu) {
            return ev.index();
        }
        arch_event_index(ctx, pmu, ev)
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
        let bit = |id: u64| 1u32 << id;
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
        offer_without(os, mods, (1 << m::U) | (1 << m::K), drop)
    }

    #[inline]
    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        encode::encode(d)
    }

    #[inline]
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        encode::encode_perf(ctx, d, attr)
    }
}

#[cfg(test)]
mod tests {
    use super::vocab::{can_auto_encode, umask_event_code, umask_req_grp, UMASK_EXT_EVENT_CODE};
    use super::*;

    fn intel_events() -> impl Iterator<Item = (PmuDesc, EventDesc)> {
        PmuDesc::all()
            .filter(|p| {
                pfmlib_defs::FAMILIES
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
