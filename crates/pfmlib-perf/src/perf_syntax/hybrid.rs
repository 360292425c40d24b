//! Hybrid processors (Intel Alder Lake, Raptor Lake and later), as perf
//! treats them: the kernel publishes one CPU PMU per kind of core,
//! `cpu_core` (performance cores) and `cpu_atom` (efficiency cores), each
//! with its own `type` and the `cpus` it counts on.
//!
//! - A generic hardware or cache event (`cycles`, `instructions`,
//!   `L1-dcache-loads`) names no core type: on a hybrid host
//!   [`expand_hybrid`] makes it one event per core PMU, `cpu_core/cycles/`
//!   then `cpu_atom/cycles/`, as perf does and prints them.
//! - `cpu_core/cycles/` is the generic event on that PMU only:
//!   `PERF_TYPE_HARDWARE` (or `PERF_TYPE_HW_CACHE`) with the PMU's type in
//!   `config` bits 32-63 (the kernel's `PERF_PMU_TYPE_SHIFT`).
//! - A native event (`adl_grt::UOPS_RETIRED`) is pfmlib's: its encoding
//!   already carries its core PMU's type (libpfm4's `perf_name`), so it
//!   counts on that core type only; opened per CPU, it opens only on the
//!   CPUs of that PMU ([`event_cpus`]).

use super::modifiers::split_suffix;
use pfmlib::{Host, Library, Os, PerfAttr, Plm};

/// The kernel's hybrid CPU PMUs, in the order perf prints their events.
pub const CORE_PMUS: [&str; 2] = ["cpu_core", "cpu_atom"];

/// Where the PMU's type goes in `config` of a generic hardware or cache
/// event (the kernel's `PERF_PMU_TYPE_SHIFT`).
pub const PMU_TYPE_SHIFT: u32 = 32;

/// `PERF_TYPE_HARDWARE`.
const TYPE_HARDWARE: u32 = 0;
/// `PERF_TYPE_HW_CACHE`.
const TYPE_HW_CACHE: u32 = 3;

/// A hybrid CPU PMU the kernel publishes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CorePmu {
    /// `cpu_core` or `cpu_atom`.
    pub name: &'static str,
    /// Its `type` file: `perf_event_attr.type` of its native events.
    pub type_: u32,
    /// The CPUs of its `cpus` file (`None`: no such file).
    pub cpus: Option<Vec<u32>>,
}

/// The hybrid CPU PMUs `host` publishes (with a readable, non-negative
/// type), in [`CORE_PMUS`] order; empty on other hosts.
pub fn core_pmus(host: &Host) -> Vec<CorePmu> {
    CORE_PMUS
        .iter()
        .filter_map(|&name| {
            let type_ = host.perf_pmu_type(name)?.trim().parse().ok()?;
            let cpus = host.perf_pmu_cpus(name).and_then(|t| cpu_list(&t));
            Some(CorePmu { name, type_, cpus })
        })
        .collect()
}

/// True when `host` has more than one kind of core PMU: perf's hybrid mode.
pub fn is_hybrid(host: &Host) -> bool {
    core_pmus(host).len() > 1
}

/// A kernel CPU list (`0-15,20`): pfmlib's reader.
pub(crate) fn cpu_list(text: &str) -> Option<Vec<u32>> {
    pfmlib::cpulist::parse(text)
}

/// The attributes of `name` when pfmlib's perf PMU reads it as a generic
/// hardware or cache event (`cycles`, `LLC-load-misses`); `None` otherwise.
pub(crate) fn generic_hardware(lib: &Library, name: &str, plm: Plm) -> Option<PerfAttr> {
    let enc = lib.encode(name, plm, Os::PerfEventExt).ok()?;
    let attr = enc.perf?;
    (enc.pmu == "perf" && matches!(attr.type_, TYPE_HARDWARE | TYPE_HW_CACHE)).then_some(attr)
}

/// The event names of `groups` with, on a hybrid host, every generic
/// hardware or cache event made one per core PMU (`cycles` →
/// `cpu_core/cycles/`, `cpu_atom/cycles/`, perf's modifier suffix kept).
/// A group of several events becomes one group per core PMU (the kernel
/// never groups events of two PMUs), its other events in the first one.
/// Elsewhere the groups are returned as they are.
///
/// ```
/// let lib = pfmlib::Library::global();
/// let g = vec![vec!["cycles".to_string()]];
/// // Not a hybrid host: unchanged.
/// assert_eq!(pfmlib_perf::perf_syntax::expand_hybrid(lib, &g), g);
/// ```
pub fn expand_hybrid(lib: &Library, groups: &[Vec<String>]) -> Vec<Vec<String>> {
    let pmus = core_pmus(lib.host());
    if pmus.len() < 2 {
        return groups.to_vec();
    }
    let generic = |name: &str| -> Option<(String, String)> {
        if name.contains('/') || name.contains("::") {
            return None;
        }
        let (base, suffix) = split_suffix(name.trim());
        generic_hardware(lib, base, Plm::DEFAULT)?;
        Some((base.to_string(), suffix.unwrap_or_default().to_string()))
    };
    let on =
        |pmu: &CorePmu, (base, suffix): &(String, String)| format!("{}/{base}/{suffix}", pmu.name);
    let mut out = Vec::new();
    for g in groups {
        let parsed: Vec<Option<(String, String)>> = g.iter().map(|n| generic(n)).collect();
        if parsed.iter().all(Option::is_none) {
            out.push(g.clone());
        } else if g.len() == 1 {
            let p = parsed[0].as_ref().map(|p| pmus.iter().map(|m| on(m, p)));
            out.extend(p.into_iter().flatten().map(|n| vec![n]));
        } else {
            for (k, pmu) in pmus.iter().enumerate() {
                let members = g.iter().zip(&parsed).filter_map(|(n, p)| match p {
                    Some(p) => Some(on(pmu, p)),
                    None => (k == 0).then(|| n.clone()),
                });
                out.push(members.collect());
            }
        }
    }
    out
}

/// The CPUs an event of attributes `attr` can count on, when it belongs to
/// a hybrid core PMU of `host` with a `cpus` file: its type is the PMU's,
/// or it is a generic hardware or cache event with the PMU's type in
/// `config` bits 32-63. `None`: any CPU (not a hybrid core PMU's event).
pub fn event_cpus(host: &Host, attr: &PerfAttr) -> Option<Vec<u32>> {
    let type_ = match attr.type_ {
        TYPE_HARDWARE | TYPE_HW_CACHE => u32::try_from(attr.config >> PMU_TYPE_SHIFT).ok()?,
        t => t,
    };
    if type_ == 0 {
        return None;
    }
    core_pmus(host)
        .into_iter()
        .find(|p| p.type_ == type_)
        .and_then(|p| p.cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(cpu_list("0-3,8\n"), Some(vec![0, 1, 2, 3, 8]));
        assert_eq!(cpu_list(""), Some(vec![]));
        assert_eq!(cpu_list("3-1"), None);
        assert_eq!(cpu_list("a"), None);
    }
}
