//! What an event counts, from its perf_events type and config: clocks,
//! software rates, cycles, instructions, branches, cache accesses and
//! misses; units and derived figures follow from it.

use pfmlib::{Library, Plm};

/// `perf_event_attr.type` of the generic hardware events.
const PERF_TYPE_HARDWARE: u32 = 0;
/// `perf_event_attr.type` of the software events.
const PERF_TYPE_SOFTWARE: u32 = 1;
/// `perf_event_attr.type` of the generic cache events.
const PERF_TYPE_HW_CACHE: u32 = 3;

/// Software configs: the two clocks, then page faults, context switches,
/// CPU migrations, minor and major faults (all counted per second).
const SW_CPU_CLOCK: u64 = 0;
const SW_TASK_CLOCK: u64 = 1;
const SW_FIRST_RATE: u64 = 2;
const SW_LAST_RATE: u64 = 6;

/// Hardware configs with a derived metric.
const HW_CPU_CYCLES: u64 = 0;
const HW_INSTRUCTIONS: u64 = 1;
const HW_CACHE_REFERENCES: u64 = 2;
const HW_CACHE_MISSES: u64 = 3;
const HW_BRANCH_INSTRUCTIONS: u64 = 4;
const HW_BRANCH_MISSES: u64 = 5;

/// Generic cache events (`cache | op << 8 | result << 16`) read accesses
/// and misses, with what perf calls their misses' share.
const CACHE_READS: [(u64, Kind, Kind); 5] = [
    (0, Kind::L1dLoads, Kind::L1dLoadMisses),
    (1, Kind::L1iLoads, Kind::L1iLoadMisses),
    (2, Kind::LlcLoads, Kind::LlcLoadMisses),
    (3, Kind::DtlbLoads, Kind::DtlbLoadMisses),
    (4, Kind::ItlbLoads, Kind::ItlbLoadMisses),
];
/// The result field of a cache event's config: a miss.
const CACHE_RESULT_MISS: u64 = 1 << 16;

/// What kind of count an event is, for units and derived metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// task-clock / cpu-clock: nanoseconds, printed as msec.
    Clock,
    /// Software event counted per second of task-clock.
    SwRate,
    /// CPU cycles.
    Cycles,
    /// Instructions retired.
    Instructions,
    /// Branch instructions.
    Branches,
    /// Mispredicted branches.
    BranchMisses,
    /// Cache references (last level, generic).
    CacheRefs,
    /// Cache misses (last level, generic).
    CacheMisses,
    /// L1 data cache loads.
    L1dLoads,
    /// L1 data cache load misses.
    L1dLoadMisses,
    /// L1 instruction cache loads.
    L1iLoads,
    /// L1 instruction cache load misses.
    L1iLoadMisses,
    /// Last-level cache loads.
    LlcLoads,
    /// Last-level cache load misses.
    LlcLoadMisses,
    /// Data TLB loads.
    DtlbLoads,
    /// Data TLB load misses.
    DtlbLoadMisses,
    /// Instruction TLB loads.
    ItlbLoads,
    /// Instruction TLB load misses.
    ItlbLoadMisses,
    /// Anything else: no derived metric.
    Other,
}

/// A count printed in a unit of its own, as perf prints an event with
/// `.scale` and `.unit` files: the count times `factor`, in `unit`.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaled {
    /// Multiply a count by this to get `unit`.
    pub factor: f64,
    /// `Joules`, `MiB`...; empty when only a scale is given.
    pub unit: String,
}

impl Scaled {
    /// Digits after the point, as perf chooses them: two for a scale
    /// with a fraction, none for a whole one.
    pub fn decimals(&self) -> usize {
        if self.factor.fract() != 0.0 {
            2
        } else {
            0
        }
    }
}

/// The kind of `ev`, from its perf_events encoding.
pub fn classify(lib: &Library, ev: &str) -> Kind {
    // pfmlib's syntax or perf's (`task-clock:S`, `cycles:ppp`).
    let Ok(p) = pfmlib_perf::perf_syntax::resolve_one(lib, ev, Plm::DEFAULT).map(|e| e.attr) else {
        return Kind::Other;
    };
    // A hybrid core PMU's generic event carries the PMU's type in config
    // bits 32-63 (`cpu_core/cycles/`): the event is the same.
    let config = match p.type_ {
        PERF_TYPE_HARDWARE | PERF_TYPE_HW_CACHE => p.config & 0xffff_ffff,
        _ => p.config,
    };
    match (p.type_, config) {
        (PERF_TYPE_SOFTWARE, SW_CPU_CLOCK | SW_TASK_CLOCK) => Kind::Clock,
        (PERF_TYPE_SOFTWARE, SW_FIRST_RATE..=SW_LAST_RATE) => Kind::SwRate,
        (PERF_TYPE_HARDWARE, HW_CPU_CYCLES) => Kind::Cycles,
        (PERF_TYPE_HARDWARE, HW_INSTRUCTIONS) => Kind::Instructions,
        (PERF_TYPE_HARDWARE, HW_BRANCH_INSTRUCTIONS) => Kind::Branches,
        (PERF_TYPE_HARDWARE, HW_BRANCH_MISSES) => Kind::BranchMisses,
        (PERF_TYPE_HARDWARE, HW_CACHE_REFERENCES) => Kind::CacheRefs,
        (PERF_TYPE_HARDWARE, HW_CACHE_MISSES) => Kind::CacheMisses,
        (PERF_TYPE_HW_CACHE, c) => cache_kind(c),
        _ => Kind::Other,
    }
}

/// The unit and scale of `ev` when it has them, as perf reads them:
/// a sysfs alias's `.scale` and `.unit` files (a unit without a scale
/// scales by 1, a scale without a unit has none), pfmlib's RAPL events
/// in Joules.
pub fn scaled(lib: &Library, ev: &str) -> Option<Scaled> {
    let e = pfmlib_perf::perf_syntax::resolve_one(lib, ev, Plm::DEFAULT).ok()?;
    if e.scale.is_none() && e.unit.is_none() {
        return None;
    }
    Some(Scaled {
        factor: e.scale.filter(|f| f.is_finite()).unwrap_or(1.0),
        unit: e.unit.unwrap_or_default(),
    })
}

/// The kind of a generic cache event's config (read accesses and misses only).
fn cache_kind(config: u64) -> Kind {
    CACHE_READS
        .iter()
        .find(|(cache, ..)| config & !CACHE_RESULT_MISS == *cache)
        .map_or(Kind::Other, |&(_, access, miss)| {
            if config & CACHE_RESULT_MISS != 0 {
                miss
            } else {
                access
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_the_perf_encoding() {
        let lib = Library::global();
        assert_eq!(classify(lib, "task-clock"), Kind::Clock);
        assert_eq!(classify(lib, "cpu-clock"), Kind::Clock);
        assert_eq!(classify(lib, "page-faults"), Kind::SwRate);
        assert_eq!(classify(lib, "no-such-event"), Kind::Other);
    }

    /// `.scale`/`.unit` of sysfs aliases and pfmlib's RAPL events, over
    /// the recorded `scaled_host` tree (a Skylake server).
    #[test]
    fn scaled_events_from_a_recorded_tree() {
        let root = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../pfmlib-perf/tests/trees/scaled_host"
        );
        // The tree's files on its CPU (x86 hosts take the CPU from CPUID).
        let host = tree_files(std::path::Path::new(root), "").into_iter().fold(
            pfmlib::Host::synthetic(pfmlib::Vendor::Intel, 6, 85),
            |h, (path, text)| h.with_file(&path, &text),
        );
        let lib = Library::with_host(host);
        let tick = 1.0 / 4_294_967_296.0;
        let s = |ev: &str| scaled(&lib, ev).map(|s| (s.factor, s.unit));
        let joules = |f: f64| Some((f, "Joules".to_string()));
        assert_eq!(s("power/energy-pkg/"), joules(tick));
        assert_eq!(s("power/energy-psys/"), joules(tick));
        assert_eq!(s("power/energy-ram/"), joules(1.0 / 65_536.0));
        assert_eq!(
            s("uncore_imc_0/cas_count_read/"),
            Some((6.103515625e-5, "MiB".to_string()))
        );
        assert_eq!(s("uncore_imc_0/clockticks/"), None);
        assert_eq!(s("msr/tsc/"), None);
        // pfmlib's RAPL events: the power PMU's scale for their code.
        assert_eq!(s("rapl::RAPL_ENERGY_PKG"), joules(tick));
        assert_eq!(s("rapl::RAPL_ENERGY_DRAM"), joules(1.0 / 65_536.0));
        assert_eq!(s("task-clock"), None);
        assert_eq!(classify(&lib, "power/energy-pkg/"), Kind::Other);
    }

    /// Uncore boxes of the recorded `uncore_host` tree (`uncore_imc_0..3`
    /// with `cas_count_read` in MiB): the merged name carries the boxes'
    /// scale and unit, and so does each box of `--no-merge`.
    #[test]
    fn merged_and_unmerged_uncore_events_keep_their_scale() {
        let root = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../pfmlib-perf/tests/trees/uncore_host"
        );
        let host = tree_files(std::path::Path::new(root), "").into_iter().fold(
            pfmlib::Host::synthetic(pfmlib::Vendor::Intel, 6, 85),
            |h, (path, text)| h.with_file(&path, &text),
        );
        let lib = Library::with_host(host);
        let mib = Some((6.103515625e-5, "MiB".to_string()));
        let s = |ev: &str| scaled(&lib, ev).map(|s| (s.factor, s.unit));
        assert_eq!(s("uncore_imc/cas_count_read/"), mib);
        let merged = vec![vec!["uncore_imc/cas_count_read/".to_string()]];
        let boxes = pfmlib_perf::perf_syntax::expand_uncore(&lib, &merged);
        assert_eq!(boxes[0].len(), 4);
        assert_eq!(boxes[0][3], "uncore_imc_3/cas_count_read/");
        assert!(boxes[0].iter().all(|b| s(b) == mib));
        assert_eq!(s("uncore_imc/clockticks/"), None);
        assert_eq!(classify(&lib, "uncore_cha/event=0x0/"), Kind::Other);
    }

    /// Every file under `dir`, as (absolute path in the tree, contents).
    fn tree_files(dir: &std::path::Path, at: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let name = format!("{at}/{}", e.file_name().to_string_lossy());
            if e.path().is_dir() {
                out.extend(tree_files(&e.path(), &name));
            } else {
                out.push((name, std::fs::read_to_string(e.path()).unwrap()));
            }
        }
        out
    }
}
