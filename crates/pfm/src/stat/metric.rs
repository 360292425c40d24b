//! What an event counts (from its perf_events type and config) and the
//! figure perf derives from it: CPUs utilized, rates per second, GHz,
//! instructions per cycle, share of branches missed.

use super::stats::EventStats;
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

/// The kind of `ev`, from its perf_events encoding.
pub fn classify(lib: &Library, ev: &str) -> Kind {
    // pfmlib's syntax or perf's (`task-clock:S`, `cycles:ppp`).
    let Ok(p) = pfmlib_perf::perf_syntax::resolve_one(lib, ev, Plm::DEFAULT).map(|e| e.attr) else {
        return Kind::Other;
    };
    match (p.type_, p.config) {
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
pub fn derive(kind: Kind, v: f64, all: &[EventStats], elapsed_ns: f64) -> Option<Metric> {
    let mean_of = |k: Kind| {
        all.iter()
            .find(|e| e.kind == k && e.counted())
            .map(|e| e.value.mean)
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
        let m = derive(Kind::L1dLoadMisses, 100.0, &all, 1e9).unwrap();
        assert_eq!(
            (m.value, m.unit, m.percent),
            (25.0, "of all L1-dcache accesses", true)
        );
        // Never from a <not supported> count.
        assert_eq!(derive(Kind::CacheMisses, 5.0, &all, 1e9), None);
        // Loads are counted per second of task clock.
        assert_eq!(
            derive(Kind::L1dLoads, 4e6, &all, 1e9).map(|m| m.unit),
            Some("M/sec")
        );
    }

    #[test]
    fn kinds_from_the_perf_encoding() {
        let lib = Library::global();
        assert_eq!(classify(lib, "task-clock"), Kind::Clock);
        assert_eq!(classify(lib, "cpu-clock"), Kind::Clock);
        assert_eq!(classify(lib, "page-faults"), Kind::SwRate);
        assert_eq!(classify(lib, "no-such-event"), Kind::Other);
    }
}
