//! Uncore PMUs, as perf counts them: a PMU whose sysfs directory has a
//! `cpumask` file (`uncore_imc_0`, `uncore_cha_3`, `power`) counts the
//! whole package, not a thread, so its events are opened system-wide
//! (pid -1) on each CPU of that mask, whatever the scope asked for.
//!
//! - A PMU name without its instance suffix (`uncore_imc/cas_count_read/`,
//!   when only `uncore_imc_0`..`uncore_imc_N` exist) means every instance:
//!   [`parts`] gives one event per instance (`uncore_imc_0/cas_count_read/`,
//!   ...) with the CPUs of its `cpumask`; counted under the one name, their
//!   counts add up (perf's merge of uncore aliases). [`expand_uncore`]
//!   makes them separate events instead (perf's `--no-merge`).
//! - pfmlib's uncore PMUs likewise: `skx_unc_imc::EVENT` (no instance
//!   number) is every present `skx_unc_imcN::EVENT`.

use super::hybrid::{cpu_list, CORE_PMUS};
use super::sysfs_pmu::DEVICES;
use pfmlib::{Host, Library};

/// One event an (uncore) event string is counted as.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Part {
    /// The event string opened (`uncore_imc_0/cas_count_read/`).
    pub event: String,
    /// The CPUs of its PMU's `cpumask`, where it is opened system-wide;
    /// `None`: no `cpumask`, opened like any event on the scope's threads
    /// or CPUs.
    pub cpus: Option<Vec<u32>>,
}

/// The CPUs of the `cpumask` file of kernel PMU `pmu`, if it has one.
pub fn cpumask(host: &Host, pmu: &str) -> Option<Vec<u32>> {
    let text = host.read_file(&format!("{DEVICES}/{pmu}/cpumask"))?;
    cpu_list(&text).filter(|c| !c.is_empty())
}

/// The instance number of `name` as an instance of `base`
/// (`uncore_imc_3` of `uncore_imc` with separator `_`: 3).
fn instance_no(name: &str, base: &str, sep: &str) -> Option<u64> {
    let n = name.strip_prefix(base)?.strip_prefix(sep)?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// The kernel PMUs that are instances of `pmu` (`uncore_imc_0`,
/// `uncore_imc_1`, ... for `uncore_imc`), by instance number; empty when
/// `pmu` is itself a kernel PMU or has no instances.
pub fn instances(host: &Host, pmu: &str) -> Vec<String> {
    if pmu.is_empty() || host.file_exists(&format!("{DEVICES}/{pmu}/type")) {
        return Vec::new();
    }
    let mut v: Vec<(u64, String)> = host
        .list_dir(DEVICES)
        .into_iter()
        .filter_map(|d| Some((instance_no(&d, pmu, "_")?, d)))
        .filter(|(_, d)| host.file_exists(&format!("{DEVICES}/{d}/type")))
        .collect();
    v.sort();
    v.into_iter().map(|(_, d)| d).collect()
}

/// pfmlib's present PMUs that are instances of `pmu` (`skx_unc_imc0`,
/// `skx_unc_imc1`... for `skx_unc_imc`), by instance number; empty when
/// `pmu` is itself one of pfmlib's PMUs.
pub fn pfmlib_instances(lib: &Library, pmu: &str) -> Vec<String> {
    if pmu.is_empty() || lib.pmu(pmu).is_some() {
        return Vec::new();
    }
    let mut v: Vec<(u64, String)> = lib
        .active_pmus()
        .filter_map(|p| Some((instance_no(p.name(), pmu, "")?, p.name().to_string())))
        .collect();
    v.sort();
    v.into_iter().map(|(_, d)| d).collect()
}

/// `event` on its first instance when its PMU is an instance-less name
/// (`uncore_imc/x/` → `uncore_imc_0/x/`, `skx_unc_imc::X` →
/// `skx_unc_imc0::X`): what describes it (its type, scale and unit).
pub fn first_instance(lib: &Library, event: &str) -> Option<String> {
    split(lib, event)?.into_iter().next()
}

/// The instance events of `event` when its PMU names several instances,
/// `None` when it is not of that form.
fn split(lib: &Library, event: &str) -> Option<Vec<String>> {
    if let Some((pmu, rest)) = event.split_once("::") {
        let v = pfmlib_instances(lib, pmu);
        return (!v.is_empty()).then(|| v.iter().map(|p| format!("{p}::{rest}")).collect());
    }
    let (pmu, rest) = event.split_once('/')?;
    let v = instances(lib.host(), pmu);
    (!v.is_empty()).then(|| v.iter().map(|p| format!("{p}/{rest}")).collect())
}

/// The kernel PMU an event string's PMU is (`uncore_imc_0` for
/// `uncore_imc_0/x/`, the kernel PMU of pfmlib's `skx_unc_imc0::X`).
fn kernel_pmu(lib: &Library, event: &str) -> Option<String> {
    if let Some((pmu, _)) = event.split_once("::") {
        return Some(lib.pmu(pmu)?.kernel_pmu()?.name.to_string());
    }
    let (pmu, _) = event.split_once('/')?;
    (!CORE_PMUS.contains(&pmu)).then(|| pmu.to_string())
}

/// What `event` is counted as when it is an uncore event: one [`Part`] per
/// instance its PMU name covers, each with the CPUs of its `cpumask`;
/// `None` for any other event (opened on the scope's threads or CPUs).
///
/// ```
/// let lib = pfmlib::Library::global();
/// assert_eq!(pfmlib_perf::perf_syntax::uncore::parts(lib, "cycles"), None);
/// ```
pub fn parts(lib: &Library, event: &str) -> Option<Vec<Part>> {
    let event = event.trim();
    let part = |e: String| {
        let cpus = kernel_pmu(lib, &e).and_then(|p| cpumask(lib.host(), &p));
        Part { event: e, cpus }
    };
    if let Some(v) = split(lib, event) {
        return Some(v.into_iter().map(part).collect());
    }
    let p = part(event.to_string());
    p.cpus.is_some().then(|| vec![p])
}

/// The event names of `groups` with every instance-less uncore event made
/// one event per instance (`uncore_imc/x/` → `uncore_imc_0/x/`, ...,
/// `skx_unc_imc::X` → `skx_unc_imc0::X`, ...): perf's `--no-merge`, each
/// box counted and printed on its own. A group whose events all name the
/// same boxes becomes one group per box (`{uncore_imc/a/,uncore_imc/b/}` →
/// `{uncore_imc_0/a/,uncore_imc_0/b/}`, `{uncore_imc_1/a/,...}`, ...), as
/// perf regroups them; in any other group the boxes follow each other in
/// the group. Other names stay.
///
/// ```
/// let lib = pfmlib::Library::global();
/// let g = vec![vec!["task-clock".to_string()]];
/// assert_eq!(pfmlib_perf::perf_syntax::expand_uncore(lib, &g), g);
/// ```
pub fn expand_uncore(lib: &Library, groups: &[Vec<String>]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for g in groups {
        let split: Vec<Option<Vec<String>>> = g.iter().map(|n| split(lib, n.trim())).collect();
        let boxes = split.first().and_then(|s| s.as_ref()).map_or(0, Vec::len);
        let pmus = |v: &Vec<String>| v.iter().map(|e| pmu_of(e).to_string()).collect::<Vec<_>>();
        let per_box = g.len() > 1
            && boxes > 0
            && split.iter().all(|s| {
                s.as_ref()
                    .is_some_and(|v| split[0].as_ref().is_some_and(|f| pmus(v) == pmus(f)))
            });
        if per_box {
            out.extend((0..boxes).map(|k| split.iter().flatten().map(|v| v[k].clone()).collect()));
            continue;
        }
        out.push(
            g.iter()
                .zip(split)
                .flat_map(|(n, s)| s.unwrap_or_else(|| vec![n.clone()]))
                .collect(),
        );
    }
    out
}

/// The PMU part of an event string (`uncore_imc_0` of `uncore_imc_0/x/`,
/// `skx_unc_imc0` of `skx_unc_imc0::X`).
pub(crate) fn pmu_of(event: &str) -> &str {
    event.split(['/', ':']).next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_numbers() {
        assert_eq!(instance_no("uncore_imc_3", "uncore_imc", "_"), Some(3));
        assert_eq!(
            instance_no("uncore_imc_free_running_0", "uncore_imc", "_"),
            None
        );
        assert_eq!(instance_no("uncore_imc", "uncore_imc", "_"), None);
        assert_eq!(instance_no("skx_unc_imc5", "skx_unc_imc", ""), Some(5));
    }
}
