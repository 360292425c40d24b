//! The figure perf derives from an event's count and the others': CPUs
//! utilized, rates per second, GHz, instructions per cycle, share of
//! branches or cache accesses missed.

use super::kind::Kind;
use super::stats::EventStats;

/// Misses over accesses, as perf words them: (misses, accesses, unit).
const MISS_RATIOS: [(Kind, Kind, &str); 7] = [
    (Kind::BranchMisses, Kind::Branches, OF_ALL_BRANCHES),
    (Kind::CacheMisses, Kind::CacheRefs, "of all cache refs"),
    (
        Kind::L1dLoadMisses,
        Kind::L1dLoads,
        "of all L1-dcache accesses",
    ),
    (
        Kind::L1iLoadMisses,
        Kind::L1iLoads,
        "of all L1-icache accesses",
    ),
    (
        Kind::LlcLoadMisses,
        Kind::LlcLoads,
        "of all LL-cache accesses",
    ),
    (
        Kind::DtlbLoadMisses,
        Kind::DtlbLoads,
        "of all dTLB cache accesses",
    ),
    (
        Kind::ItlbLoadMisses,
        Kind::ItlbLoads,
        "of all iTLB cache accesses",
    ),
];

/// Metric units, as perf prints them.
pub const CPUS_UTILIZED: &str = "CPUs utilized";
/// Frequency of the cycles counter over the task clock.
pub const GHZ: &str = "GHz";
/// Instructions over cycles.
pub const INSN_PER_CYCLE: &str = "insn per cycle";
/// Branch misses over branches, a percentage.
pub const OF_ALL_BRANCHES: &str = "of all branches";
/// Rates per second of task clock, largest first: (divisor, unit).
pub const RATE_UNITS: [(f64, &str); 4] = [
    (1e9, "G/sec"),
    (1e6, "M/sec"),
    (1e3, "K/sec"),
    (1.0, "/sec"),
];

/// Nanoseconds in a second.
const NS_PER_SEC: f64 = 1e9;

/// A derived figure: `# value unit` after the count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metric {
    /// The figure.
    pub value: f64,
    /// Its unit.
    pub unit: &'static str,
    /// A percentage (printed `x.xx%`).
    pub percent: bool,
}

impl Metric {
    fn of(value: f64, unit: &'static str) -> Metric {
        Metric {
            value,
            unit,
            percent: false,
        }
    }
}

/// The metric of an event of `kind` whose count is `v`, from the means of
/// the other events of `all` (the first counted one of each kind) and the
/// elapsed time in nanoseconds.
///
/// On a hybrid host the divisor is taken from the same core PMU when there
/// is one (`cpu_atom/instructions/` over `cpu_atom/cycles/`), as perf does.
pub fn derive(
    kind: Kind,
    name: &str,
    v: f64,
    all: &[EventStats],
    elapsed_ns: f64,
) -> Option<Metric> {
    let own = core_pmu(name);
    let mean_of = |k: Kind| {
        let mut of_kind = all.iter().filter(|e| e.kind == k && e.counted());
        let same = own.and_then(|p| of_kind.clone().find(|e| core_pmu(&e.name) == Some(p)));
        same.or_else(|| of_kind.next()).map(|e| e.value.mean)
    };
    // The divisor's mean, when it is there and positive.
    let positive = |k: Kind| mean_of(k).filter(|m| *m > 0.0);
    if let Some(&(_, of, unit)) = MISS_RATIOS.iter().find(|(k, ..)| *k == kind) {
        return Some(Metric {
            value: 100.0 * v / positive(of)?,
            unit,
            percent: true,
        });
    }
    match kind {
        Kind::Clock if elapsed_ns > 0.0 => Some(Metric::of(v / elapsed_ns, CPUS_UTILIZED)),
        Kind::Cycles => Some(Metric::of(v / positive(Kind::Clock)?, GHZ)),
        Kind::Instructions => Some(Metric::of(v / positive(Kind::Cycles)?, INSN_PER_CYCLE)),
        Kind::Clock => None,
        // Counts without a ratio of their own (tracepoints and raw events
        // too, as perf): per second of task clock.
        _ => rate(v, mean_of(Kind::Clock)?),
    }
}

/// The hybrid core PMU an event string names (`cpu_core` of
/// `cpu_core/cycles/`), if any.
fn core_pmu(name: &str) -> Option<&str> {
    let (pmu, _) = name.split_once('/')?;
    pfmlib_perf::perf_syntax::hybrid::CORE_PMUS
        .contains(&pmu)
        .then_some(pmu)
}

/// `v` per second of `clock_ns`, in the largest unit of [`RATE_UNITS`] it reaches.
fn rate(v: f64, clock_ns: f64) -> Option<Metric> {
    if clock_ns <= 0.0 {
        return None;
    }
    let per_sec = v * NS_PER_SEC / clock_ns;
    let (d, unit) = RATE_UNITS
        .iter()
        .copied()
        .find(|(d, _)| per_sec >= *d)
        .unwrap_or(RATE_UNITS[RATE_UNITS.len() - 1]);
    Some(Metric::of(per_sec / d, unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stat::kind::classify;
    use pfmlib::Library;

    #[test]
    fn rates_pick_the_largest_unit() {
        let unit = |v: f64| rate(v, NS_PER_SEC).map(|m| (m.value, m.unit));
        assert_eq!(unit(2e9), Some((2.0, "G/sec")));
        assert_eq!(unit(1e6), Some((1.0, "M/sec")));
        assert_eq!(unit(1500.0), Some((1.5, "K/sec")));
        assert_eq!(unit(3.0), Some((3.0, "/sec")));
        assert_eq!(unit(0.0), Some((0.0, "/sec")));
        assert_eq!(unit(-1.0), Some((-1.0, "/sec")));
        assert_eq!(rate(1.0, 0.0), None);
    }

    #[test]
    fn misses_as_a_share_of_their_accesses() {
        let lib = Library::global();
        assert_eq!(classify(lib, "L1-dcache-loads"), Kind::L1dLoads);
        assert_eq!(classify(lib, "L1-dcache-load-misses"), Kind::L1dLoadMisses);
        assert_eq!(classify(lib, "LLC-load-misses"), Kind::LlcLoadMisses);
        assert_eq!(classify(lib, "dTLB-loads"), Kind::DtlbLoads);
        assert_eq!(classify(lib, "cache-misses"), Kind::CacheMisses);
        assert_eq!(classify(lib, "L1-dcache-prefetches"), Kind::Other);
        let ev = |kind, v: Option<f64>| {
            let mut e = EventStats::new(String::new(), kind);
            match v {
                Some(v) => e.value = crate::stat::stats::Stats::of(v),
                None => e.unsupported = Some("no PMU".into()),
            }
            e
        };
        let all = [
            ev(Kind::Clock, Some(1e9)),
            ev(Kind::L1dLoads, Some(400.0)),
            ev(Kind::CacheRefs, None),
        ];
        let m = derive(Kind::L1dLoadMisses, "x", 100.0, &all, 1e9).unwrap();
        assert_eq!(
            (m.value, m.unit, m.percent),
            (25.0, "of all L1-dcache accesses", true)
        );
        // Never from a <not supported> count.
        assert_eq!(derive(Kind::CacheMisses, "x", 5.0, &all, 1e9), None);
        // Loads are counted per second of task clock.
        assert_eq!(
            derive(Kind::L1dLoads, "x", 4e6, &all, 1e9).map(|m| m.unit),
            Some("M/sec")
        );
    }

    #[test]
    fn hybrid_ratios_pair_events_of_one_core_type() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../pfmlib-perf/tests/trees/adl_host");
        let lib = Library::with_host(pfmlib::Host::detect_with_root(pfmlib::Arch::X86, root));
        let groups = vec![vec!["cycles".to_string()], vec!["instructions".to_string()]];
        let names: Vec<String> = pfmlib_perf::perf_syntax::expand_hybrid(&lib, &groups)
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(
            names,
            [
                "cpu_core/cycles/",
                "cpu_atom/cycles/",
                "cpu_core/instructions/",
                "cpu_atom/instructions/"
            ]
        );
        let ev = |name: &str, v: f64| {
            let mut e = EventStats::new(name.to_string(), classify(&lib, name));
            e.value = crate::stat::stats::Stats::of(v);
            e
        };
        let all = [
            ev("cpu_core/cycles/", 1000.0),
            ev("cpu_atom/cycles/", 400.0),
            ev("cpu_core/instructions/", 3000.0),
            ev("cpu_atom/instructions/", 200.0),
        ];
        assert!(all[..2].iter().all(|e| e.kind == Kind::Cycles));
        assert!(all[2..].iter().all(|e| e.kind == Kind::Instructions));
        let ipc =
            |e: &EventStats| derive(e.kind, &e.name, e.value.mean, &all, 1e9).map(|m| m.value);
        assert_eq!(ipc(&all[2]), Some(3.0));
        assert_eq!(ipc(&all[3]), Some(0.5));
    }
}
