//! What every engine implements and what engines share: the [`Engine`]
//! trait, what event and attribute info report beyond the tables, and the
//! helpers for detection and offers. Engines import this module, never
//! `pmu/mod.rs`, which only registers them.

use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::Host;
use crate::kernel::PerfAttr;
use crate::model::{Os, Speculation};
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use pfmlib_defs::FamilyDefs;

/// What event info reports of an event beyond the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EventFlags {
    pub precise: bool,
    pub spec: Speculation,
    pub hw_smpl: bool,
}

impl EventFlags {
    /// Nothing to report.
    pub const NONE: EventFlags = EventFlags {
        precise: false,
        spec: Speculation::NotAvailable,
        hw_smpl: false,
    };
}

/// What attribute info reports of a unit mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UmaskInfo {
    /// Attribute code as reported.
    pub code: u64,
    pub is_dfl: bool,
    pub flags: EventFlags,
}

/// One PMU family's behaviour: detection, what its events offer, and their
/// encodings. The table data of every PMU of the family is interpreted
/// here and nowhere else.
pub(crate) trait Engine: Sync {
    /// The family's vocabulary (shared with the generator).
    fn defs(&self) -> &'static FamilyDefs;

    /// Is `pmu` present on `host`? Default: CPU vendor, family and model match.
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        cpu_matches(pmu, host)
    }

    /// The event of `pmu` that the name part of an event string names, and
    /// a value the name itself carries (libpfm4's `match_event`). Default:
    /// the first event of that name (any case) that is there, value 0.
    fn match_event(&self, ctx: &Ctx, pmu: PmuDesc, name: &str) -> Option<(EventDesc, u64)> {
        pmu.find_event(name, |ev| self.event_available(ctx, pmu, ev))
            .map(|ev| (ev, 0))
    }

    /// libpfm4's private index of event `ev` of `pmu` on this host (the low
    /// bits of the opaque event index). Default: its position in the table.
    fn event_index(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> usize {
        let _ = (ctx, pmu);
        ev.index()
    }

    /// Does the OS publish `pmu` where libpfm4 asks it to (its per-OS
    /// detection, run after [`Engine::detect`] and for a forced PMU too)?
    /// Default: nothing to check.
    fn os_exported(&self, pmu: PmuDesc, host: &Host) -> bool {
        let _ = (pmu, host);
        true
    }

    /// Is event `ev` of `pmu` there on this host? Default: its variant has it.
    fn event_available(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> bool {
        let _ = ctx;
        ev.in_variant(pmu.variant_bit())
    }

    /// Generic and fixed counters on this host.
    fn counters(&self, ctx: &Ctx, pmu: PmuDesc) -> (u32, u32) {
        let _ = ctx;
        (pmu.num_cntrs(), pmu.num_fixed())
    }

    /// Privilege levels the PMU can filter on this host.
    fn supported_plm(&self, ctx: &Ctx, pmu: PmuDesc) -> u32 {
        let _ = ctx;
        pmu.supported_plm()
    }

    /// Precise sampling, speculation and hardware-buffer support of an event.
    fn event_flags(&self, pmu: PmuDesc, ev: EventDesc) -> EventFlags {
        let _ = (pmu, ev);
        EventFlags::NONE
    }

    /// What attribute info reports of a unit mask.
    fn umask_info(&self, pmu: PmuDesc, ev: EventDesc, um: UmaskDesc) -> UmaskInfo {
        let _ = (pmu, ev);
        UmaskInfo {
            code: um.code(),
            is_dfl: false,
            flags: EventFlags::NONE,
        }
    }

    /// Does unit mask `um` take no modifier (libpfm4's `support_no_mods`)?
    /// Default: no.
    fn umask_no_mods(&self, um: UmaskDesc) -> bool {
        let _ = um;
        false
    }

    /// Does libpfm4 give every hardware modifier of the family one attribute
    /// index (SPARC's attribute info leaves it 0), so that its duplicate
    /// check takes any two modifiers for one attribute given twice? Default: no.
    fn modifiers_one_attr(&self) -> bool {
        false
    }

    /// Is `pmu` a deprecated name of another PMU, which event strings without
    /// a `pmu::` prefix never resolve to (libpfm4 `PFMLIB_PMU_FL_DEPR`)?
    /// Default: no.
    fn deprecated(&self, pmu: PmuDesc) -> bool {
        let _ = pmu;
        false
    }

    /// Does the PMU take raw hexadecimal unit masks (`:0x12`)?
    fn raw_umask(&self, pmu: PmuDesc) -> bool {
        let _ = pmu;
        false
    }

    /// The modifiers and perf_events attributes `ev` offers with `os`.
    fn offer(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer;

    /// Raw encoding: register values, and the fully-qualified string in `d.fstr`.
    fn encode(&self, ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>>;

    /// perf_events encoding of the PMU part: type, config, config1/2 (and the
    /// raw codes, which the OS layer returns).
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>>;
}

/// With perf_events, does the kernel publish PMU `name`, under
/// `/sys/bus/event_source/devices` (libpfm4 upstream's place) or
/// `/sys/devices` (4.13's)? A kernel links one to the other; recorded trees
/// may hold either. (Upstream also drops its perf_events layer, and so this
/// check, when no directory there has a `perf_event_mux_interval_ms`; with
/// both places looked at, the trees where that matters agree.) Without
/// perf_events there is nothing to ask.
pub(crate) fn perf_exports(host: &Host, name: Option<&str>) -> bool {
    !host.perf_events
        || name.is_some_and(|n| {
            host.file_exists(&format!("{}/{n}", crate::host::EVENT_SOURCES))
                || host.file_exists(&format!("/sys/devices/{n}"))
        })
}

/// Does the host's CPU vendor, family and model match the PMU's?
pub(crate) fn cpu_matches(pmu: PmuDesc, host: &Host) -> bool {
    pmu.vendor() == Some(host.vendor)
        && pmu.cpu_family() == host.family
        && pmu.matches_model(host.model, host.stepping)
}

/// The hardware modifiers `mods`, less those in `drop_under_perf` (bit = id)
/// under a perf OS layer, and
/// the perf_events attributes of `os` that `keep` accepts: the offer of the
/// engines whose rules are a list of removals.
/// [`offer_of`] for an engine that knows the perf_events attributes it
/// leaves out as a mask (`drop_perf`, bit = id): one operation instead of a
/// question per attribute.
#[inline]
pub(crate) fn offer_without(os: Os, mods: u32, drop_under_perf: u32, drop_perf: u32) -> Offer {
    if os == Os::None {
        return Offer { mods, perf: 0 };
    }
    Offer {
        mods: mods & !drop_under_perf,
        perf: crate::kernel::os_attrs(os) & !drop_perf,
    }
}

pub(crate) fn offer_of(
    os: Os,
    mods: u32,
    drop_under_perf: u32,
    keep: impl Fn(u64) -> bool,
) -> Offer {
    if os == Os::None {
        return Offer { mods, perf: 0 };
    }
    // Only the attributes the OS layer has are asked about, lowest first.
    let mut rest = crate::kernel::os_attrs(os);
    let mut perf = 0;
    while rest != 0 {
        let id = u64::from(rest.trailing_zeros());
        rest &= rest - 1;
        if keep(id) {
            perf |= 1 << id;
        }
    }
    Offer {
        mods: mods & !drop_under_perf,
        perf,
    }
}
