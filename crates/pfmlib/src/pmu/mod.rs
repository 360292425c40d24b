//! PMU engines, one per PMU family, behind the [`Engine`] trait.
//!
//! A family is a module here (`pmu/<family>/`) with its vocabulary in
//! `defs.rs` (flags, modifiers, extra keys: read by the table generator
//! too) and its engine in `mod.rs`; it is registered once in
//! [`defs::FAMILIES`] and [`ENGINES`], in the same position. A new PMU of a
//! known family is only a data file (`data/*.toml`).

pub(crate) use crate::defs;

pub(crate) mod amd64;
pub(crate) mod arm;
pub(crate) mod ia64;
pub(crate) mod intel_nhm_unc;
pub(crate) mod intel_x86;
pub(crate) mod perf;

use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::Host;
use crate::kernel::PerfAttr;
use crate::model::{Os, Speculation};
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use defs::FamilyDefs;

/// `PmuDesc::dispatcher` of the Nehalem/Westmere dispatcher.
pub(crate) const DISPATCH_NEHALEM: u8 = 1;
/// `PmuDesc::dispatcher` of the IA-64 dispatcher.
pub(crate) const DISPATCH_IA64: u8 = 2;

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

/// Every engine, by family id (the order of [`defs::FAMILIES`]).
static ENGINES: [&dyn Engine; 6] = [
    &intel_x86::IntelX86,
    &perf::Perf,
    &amd64::Amd64,
    &intel_nhm_unc::NhmUncore,
    &ia64::Ia64,
    &arm::Arm,
];

/// The engine of `pmu`'s family.
#[inline]
pub(crate) fn engine(pmu: PmuDesc) -> &'static dyn Engine {
    ENGINES
        .get(pmu.family())
        .copied()
        .unwrap_or(&intel_x86::IntelX86)
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
pub(crate) fn offer_of(
    os: Os,
    mods: u32,
    drop_under_perf: u32,
    keep: impl Fn(u64) -> bool,
) -> Offer {
    if os == Os::None {
        return Offer { mods, perf: 0 };
    }
    let all = crate::kernel::os_attrs(os);
    let perf = (0..32u64)
        .filter(|&id| all >> id & 1 != 0 && keep(id))
        .fold(0, |m, id| m | 1 << id);
    Offer {
        mods: mods & !drop_under_perf,
        perf,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engines are registered in the order of the family list.
    #[test]
    fn engines_follow_the_family_list() {
        assert_eq!(ENGINES.len(), defs::FAMILIES.len());
        for (e, f) in ENGINES.iter().zip(defs::FAMILIES.iter()) {
            assert_eq!(e.defs().name, f.name);
        }
    }
}
