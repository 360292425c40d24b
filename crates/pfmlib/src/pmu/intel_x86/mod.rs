//! The Intel x86 core family: unit-mask groups and defaults, hardware
//! modifiers, PERFEVTSEL encoding with the offcore-response or load-latency
//! second code, shared by every Intel core PMU table (Nehalem, Westmere,
//! the architectural PMU...).

mod encode;
mod vocab;

pub(crate) use pfmlib_defs::intel_x86 as defs;
pub(crate) use vocab::{ev_flag, modifier_id, pmu_flag, um_flag, umask_cntmsk};
use vocab::{hybrid_core, umask_ucode, EXT_CPUID_BIT};

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
/// `t`, version 4 adds `t`, `intx` and `intxcp`, version 5 `intx` and
/// `intxcp` (no any-thread bit from version 5 on), other versions nothing.
fn modmsk(ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> u32 {
    let mut mods = ev.modmsk();
    if is_arch(pmu) {
        mods |= arch_version_mods(arch_perfmon(ctx, pmu).map(|a| a.version()));
    }
    mods
}

/// The modifiers architectural perfmon `version` adds.
fn arch_version_mods(version: Option<u32>) -> u32 {
    let tx = (1 << m::INTX) | (1 << m::INTXCP);
    match version {
        Some(3) => 1 << m::T,
        Some(4) => (1 << m::T) | tx,
        Some(5) => tx,
        _ => 0,
    }
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

/// The kernel's hybrid core PMUs (Linux names them by kind of core).
const KERNEL_HYBRID_PMUS: &[&str] = &["cpu_core", "cpu_atom", "cpu_lowpower"];

/// A PMU tied to one kind of hybrid core (pfmlib's own hybrid tables) is
/// detected where the host has such a core: by CPUID leaf 0x1A of its CPUs
/// when known ([`Host::hybrid_cores`]), else by the kernel's hybrid PMU of
/// its `perf_name` when the kernel has any, else with the model alone (as
/// libpfm4 detects `adl_glc` and `adl_grt`).
fn hybrid_core_present(pmu: PmuDesc, host: &Host) -> bool {
    let Some((core_type, native)) = hybrid_core(pmu) else {
        return true;
    };
    if !host.hybrid_cores.is_empty() {
        return host
            .hybrid_cores
            .iter()
            .any(|c| c.core_type == core_type && native.is_none_or(|n| n == c.native_model));
    }
    let dir = |n: &str| format!("{}/{n}", crate::host::EVENT_SOURCES);
    if !KERNEL_HYBRID_PMUS.iter().any(|n| host.file_exists(&dir(n))) {
        return true;
    }
    pmu.perf_name()
        .is_some_and(|names| names.split(',').any(|n| host.file_exists(&dir(n.trim()))))
}

impl Engine for IntelX86 {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        if !is_arch(pmu) {
            return cpu_matches(pmu, host) && hybrid_core_present(pmu, host);
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

    /// A `no_mods` unit mask is never precise nor sampled by a hardware
    /// buffer (libpfm4 upstream's `pfm_intel_x86_get_event_attr_info`).
    fn umask_info(&self, pmu: PmuDesc, ev: EventDesc, um: UmaskDesc) -> UmaskInfo {
        let no_mods = um.flags() & um_flag::NO_MODS != 0;
        let precise = um.flags() & um_flag::PEBS != 0 && !no_mods;
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
                hw_smpl: (precise || pmu.flags() & pmu_flag::EXTPEBS != 0) && !no_mods,
            },
        }
    }

    fn umask_no_mods(&self, um: UmaskDesc) -> bool {
        um.flags() & um_flag::NO_MODS != 0
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

    /// Architectural perfmon versions and the modifiers they add (libpfm4
    /// upstream: version 5 has the transactional bits, no any-thread bit).
    #[test]
    fn arch_versions() {
        let tx = (1 << m::INTX) | (1 << m::INTXCP);
        assert_eq!(arch_version_mods(None), 0);
        assert_eq!(arch_version_mods(Some(2)), 0);
        assert_eq!(arch_version_mods(Some(3)), 1 << m::T);
        assert_eq!(arch_version_mods(Some(4)), (1 << m::T) | tx);
        assert_eq!(arch_version_mods(Some(5)), tx);
        assert_eq!(arch_version_mods(Some(6)), 0);
    }

    /// A `no_mods` unit mask (TOPDOWN_M's metrics): no modifier in the
    /// fully-qualified string, under perf_events no attribute but `pinned`
    /// and no fully-qualified string at all, never precise; SLOTS, without
    /// the flag, behaves as any unit mask.
    #[test]
    fn no_mods_unit_masks() {
        use crate::library::Library;
        use crate::model::{Os, Plm};
        let lib = Library::with_host(Host::synthetic(Vendor::Intel, 6, 143));
        let enc = |s: &str, os| lib.encode(s, Plm::DEFAULT, os);
        let none = enc("spr::TOPDOWN_M:RETIRING", Os::None).expect("RETIRING");
        assert_eq!(none.fstr, "spr::TOPDOWN_M:RETIRING");
        assert_eq!(none.codes, [0x538000]);
        let with_u = enc("spr::TOPDOWN_M:RETIRING:u=1", Os::None).expect("u");
        assert_eq!(with_u.fstr, "spr::TOPDOWN_M:RETIRING");
        let slots = enc("spr::TOPDOWN_M:SLOTS", Os::None).expect("SLOTS");
        assert_eq!(slots.fstr, "spr::TOPDOWN_M:SLOTS:k=1:u=1");
        for os in [Os::PerfEvent, Os::PerfEventExt] {
            let perf = enc("spr::TOPDOWN_M:BAD_SPEC", os).expect("perf");
            assert_eq!(perf.fstr, "");
            assert_eq!(perf.perf.map(|a| a.config), Some(0x8100));
            let e = enc("spr::TOPDOWN_M:BAD_SPEC:u=1", os).expect_err("u=1");
            assert_eq!(e.kind(), crate::error::ErrorKind::AttrValue);
            assert!(enc("spr::TOPDOWN_M:BAD_SPEC:u=0", os).is_ok());
        }
        assert!(enc("spr::TOPDOWN_M:BAD_SPEC:pinned=1", Os::PerfEventExt).is_ok());
        let e = enc("spr::TOPDOWN_M:BAD_SPEC:excl=1", Os::PerfEventExt).expect_err("excl");
        assert_eq!(e.kind(), crate::error::ErrorKind::AttrValue);
        let slots = enc("spr::TOPDOWN_M:SLOTS:u=1", Os::PerfEvent).expect("SLOTS");
        assert_eq!(slots.fstr, "spr::TOPDOWN_M:SLOTS:u=1:k=0:mg=0:mh=1");
        let ev = lib.find_event("spr::TOPDOWN_M").expect("TOPDOWN_M");
        for a in ev
            .attrs(Os::None)
            .iter()
            .filter(|a| a.attr_type == crate::model::AttrType::Umask)
        {
            assert_eq!(a.support_no_mods, a.name != "SLOTS", "{}", a.name);
            assert!(
                !a.is_precise && (a.name == "SLOTS" || !a.support_hw_smpl),
                "{}",
                a.name
            );
        }
    }

    /// libpfm4 upstream's duplicate-code check of its table validation, as
    /// written: events i < j with the same code and counters are an error
    /// when neither is an alias, i is neither `deprecated` nor `code_dup`
    /// and j is `code_dup` (so upstream's spr RS_EMPTY, unmarked, shares
    /// RS's code).
    #[test]
    fn duplicate_codes_are_marked() {
        let marked = ev_flag::DEPRECATED | ev_flag::CODE_DUP;
        for p in PmuDesc::all().filter(|p| p.family() == crate::pmu::INTEL_X86_FAMILY) {
            let evs: Vec<EventDesc> = p
                .events()
                .filter(|e| e.in_variant(p.variant_bit()))
                .collect();
            for (i, a) in evs.iter().enumerate() {
                for b in &evs[i + 1..] {
                    let same = a.code() == b.code()
                        && a.cntmsk() == b.cntmsk()
                        && a.equiv().is_none()
                        && b.equiv().is_none();
                    let bad = a.flags() & marked == 0 && b.flags() & ev_flag::CODE_DUP != 0;
                    assert!(
                        !(same && bad),
                        "{}: {} and {} share code {:#x}",
                        p.name(),
                        a.name(),
                        b.name(),
                        a.code()
                    );
                }
            }
        }
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
