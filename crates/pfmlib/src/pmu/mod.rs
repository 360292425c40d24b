//! PMU engines, one per PMU family, and the dispatch from a table to its engine.
//!
//! A new PMU of a known family is a new table in `data/`; only a new family
//! needs a new module here.

pub(crate) mod amd64;
pub(crate) mod ia64;
pub(crate) mod intel_nhm_unc;
pub(crate) mod intel_x86;
pub(crate) mod perf;

use crate::error::Result;
use crate::event::{Desc, PAttr};
use crate::host::Host;
use crate::model::{AttrCtrl, AttrType, Os, Speculation};
use crate::os::PerfAttr;
use crate::registry::Library;
use crate::tables::{Engine, EventDesc, PmuDesc, UmaskDesc};

/// Is the PMU present on `host`?
pub(crate) fn detect(p: &PmuDesc, host: &Host) -> bool {
    match p.engine {
        Engine::Perf => host.perf_events,
        Engine::IntelX86 if p.flags & intel_x86::pmu_flag::ARCH != 0 => {
            host.vendor == crate::tables::Vendor::Intel
                && host.family >= 5
                && host.family != 15
                && host.arch_perfmon.is_some_and(|a| a.version() >= 1)
        }
        Engine::IntelX86 | Engine::Amd64 | Engine::IntelNhmUnc | Engine::Ia64 => match &p.cpu {
            Some(c) => {
                c.vendor == host.vendor && c.family == host.family && c.models.contains(&host.model)
            }
            None => false,
        },
    }
}

/// The architectural PMU is only a fallback: it is searched after model-specific PMUs.
pub(crate) fn is_arch_fallback(p: &PmuDesc) -> bool {
    p.engine == Engine::IntelX86 && p.flags & intel_x86::pmu_flag::ARCH != 0
}

/// Is event `i` of `p` available with this library's host?
pub(crate) fn event_available(lib: &Library, p: &PmuDesc, i: usize) -> bool {
    let ev = &p.events[i];
    if ev.cpuid_bit < 0 {
        return true;
    }
    lib.host()
        .arch_perfmon
        .is_some_and(|a| ev.cpuid_bit < 7 && (a.ebx >> ev.cpuid_bit) & 1 == 0)
}

/// Generic and fixed counters of `p` on this host.
pub(crate) fn counters(lib: &Library, p: &PmuDesc) -> (u32, u32) {
    if is_arch_fallback(p) {
        return match lib.host().arch_perfmon {
            Some(a) => (a.num_counters(), a.edx & 0x3f),
            None => (0, 0),
        };
    }
    (p.num_cntrs, p.num_fixed_cntrs)
}

/// (is_precise, speculation, support_hw_smpl) of an event.
pub(crate) fn event_flags(p: &PmuDesc, ev: &EventDesc) -> (bool, Speculation, bool) {
    match p.engine {
        Engine::IntelX86 | Engine::IntelNhmUnc => intel_x86::event_flags(p, ev),
        Engine::Perf => perf::event_flags(ev),
        Engine::Amd64 | Engine::Ia64 => (false, Speculation::NotAvailable, false),
    }
}

/// The PMU-level attributes of an event.
pub(crate) fn pmu_attrs(lib: &Library, p: &PmuDesc, event: usize) -> Vec<PAttr> {
    match p.engine {
        Engine::IntelX86 => intel_x86::pmu_attrs(lib, p, event),
        Engine::Perf => perf::pmu_attrs(p, event),
        Engine::Amd64 => amd64::pmu_attrs(p, event),
        Engine::IntelNhmUnc => intel_nhm_unc::pmu_attrs(p, event),
        Engine::Ia64 => ia64::pmu_attrs(p, event),
    }
}

/// The attributes an event offers for an OS layer, built in one pass by the
/// engines that can (the same list as [`pmu_attrs`], the OS attributes and
/// [`validate_pattrs`] give); `None` for the others.
pub(crate) fn pattrs_for_os(
    lib: &Library,
    p: &PmuDesc,
    event: usize,
    os: Os,
) -> Option<Vec<PAttr>> {
    match p.engine {
        Engine::IntelX86 => Some(intel_x86::pattrs_for_os(lib, p, event, os)),
        _ => None,
    }
}

/// Removes attributes that conflict with, or are not offered by, the OS layer.
pub(crate) fn validate_pattrs(
    lib: &Library,
    p: &PmuDesc,
    event: usize,
    os: Os,
    v: &mut Vec<PAttr>,
) {
    match p.engine {
        Engine::IntelX86 => intel_x86::validate_pattrs(p, event, os, v),
        Engine::Perf => perf::validate_pattrs(supported_plm(lib, p), p, event, os, v),
        Engine::Amd64 => amd64::validate_pattrs(p, os, v),
        Engine::IntelNhmUnc => intel_nhm_unc::validate_pattrs(p, os, v),
        Engine::Ia64 => ia64::validate_pattrs(os, v),
    }
}

/// Privilege levels the PMU can filter on this host. The perf_events generic
/// PMU takes those of the first active core PMU, as libpfm4 does.
pub(crate) fn supported_plm(lib: &Library, p: &PmuDesc) -> u32 {
    if p.engine == Engine::Perf {
        if let Some(core) = lib
            .active_pmus()
            .find(|c| c.desc.kind == crate::model::PmuKind::Core)
        {
            return core.desc.supported_plm;
        }
    }
    p.supported_plm
}

/// Does the PMU accept raw hex unit masks?
pub(crate) fn supports_raw_umask(p: &PmuDesc) -> bool {
    match p.engine {
        Engine::IntelX86 | Engine::IntelNhmUnc => p.flags & intel_x86::pmu_flag::RAW_UMASK != 0,
        Engine::Amd64 => p.flags & amd64::pmu_flag::RAW_UMASK != 0,
        Engine::Perf | Engine::Ia64 => false,
    }
}

/// Raw encoding: register values, and the fully-qualified string in `d.fstr`.
pub(crate) fn encode_raw(lib: &Library, d: &mut Desc) -> Result<Vec<u64>> {
    match d.pmu.engine {
        Engine::IntelX86 => intel_x86::encode(lib, d),
        Engine::Perf => perf::encode(d),
        Engine::Amd64 => amd64::encode(d),
        Engine::IntelNhmUnc => intel_nhm_unc::encode(d),
        Engine::Ia64 => ia64::encode(d),
    }
}

/// perf_events encoding of the PMU part: type, config, config1/2.
pub(crate) fn encode_perf(lib: &Library, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
    match d.pmu.engine {
        Engine::IntelX86 => intel_x86::encode_perf(lib, d, attr),
        Engine::Perf => perf::encode_perf(d, attr),
        Engine::Amd64 => amd64::encode_perf(d, attr),
        Engine::IntelNhmUnc => intel_nhm_unc::encode_perf(d, attr),
        Engine::Ia64 => {
            let _ = attr;
            ia64::encode_perf(d)
        }
    }
}

/// A modifier an engine offers: name, description, boolean or integer.
pub(crate) type Modifier = (&'static str, &'static str, crate::model::AttrType);

/// The unit masks of an event (default as `is_dfl` says), then the modifiers
/// of `mods` it takes (bit n of the event's `modmsk` offers `mods[n]`, whose
/// attribute code and index are n): the attribute list of the simple engines.
pub(crate) fn umasks_then_modifiers(
    ev: &EventDesc,
    is_dfl: impl Fn(&UmaskDesc) -> bool,
    mods: &[Modifier],
) -> Vec<PAttr> {
    let attr = |name, desc, equiv, code, ty, idx, is_dfl| PAttr {
        name,
        desc,
        equiv,
        code,
        ty,
        ctrl: AttrCtrl::Pmu,
        idx,
        is_dfl,
        is_precise: false,
        spec: Speculation::NotAvailable,
        hw_smpl: false,
    };
    let mut v: Vec<PAttr> = ev
        .umasks
        .iter()
        .enumerate()
        .map(|(i, um)| {
            attr(
                um.name,
                um.desc,
                um.equiv,
                um.code,
                AttrType::Umask,
                i as u64,
                is_dfl(um),
            )
        })
        .collect();
    for (id, (name, desc, ty)) in mods.iter().enumerate() {
        if ev.modmsk & (1 << id) != 0 {
            v.push(attr(name, desc, None, id as u64, *ty, id as u64, false));
        }
    }
    v
}
