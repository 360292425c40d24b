//! What an event counts (from its perf_events type and config) and the
//! figure perf derives from it: CPUs utilized, rates per second, GHz,
//! instructions per cycle, share of branches missed.

use super::stats::EventStats;
use pfmlib::{Library, Plm};

/// `perf_event_attr.type` of the generic hardware events.
const PERF_TYPE_HARDWARE: u32 = 0;
/// `perf_event_attr.type` of the software events.
const PERF_TYPE_SOFTWARE: u32 = 1;

/// Software configs: the two clocks, then page faults, context switches,
/// CPU migrations, minor and major faults (all counted per second).
const SW_CPU_CLOCK: u64 = 0;
const SW_TASK_CLOCK: u64 = 1;
const SW_FIRST_RATE: u64 = 2;
const SW_LAST_RATE: u64 = 6;

/// Hardware configs with a derived metric.
const HW_CPU_CYCLES: u64 = 0;
const HW_INSTRUCTIONS: u64 = 1;
const HW_BRANCH_INSTRUCTIONS: u64 = 4;
const HW_BRANCH_MISSES: u64 = 5;

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
        _ => Kind::Other,
    }
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
    match kind {
        Kind::Clock if elapsed_ns > 0.0 => Some(Metric::of(v / elapsed_ns, CPUS_UTILIZED)),
        Kind::SwRate | Kind::Branches => rate(v, mean_of(Kind::Clock)?),
        Kind::Cycles => Some(Metric::of(v / positive(Kind::Clock)?, GHZ)),
        Kind::Instructions => Some(Metric::of(v / positive(Kind::Cycles)?, INSN_PER_CYCLE)),
        Kind::BranchMisses => Some(Metric {
            value: 100.0 * v / positive(Kind::Branches)?,
            unit: OF_ALL_BRANCHES,
            percent: true,
        }),
        _ => None,
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
    fn kinds_from_the_perf_encoding() {
        let lib = Library::global();
        assert_eq!(classify(lib, "task-clock"), Kind::Clock);
        assert_eq!(classify(lib, "cpu-clock"), Kind::Clock);
        assert_eq!(classify(lib, "page-faults"), Kind::SwRate);
        assert_eq!(classify(lib, "no-such-event"), Kind::Other);
    }
}
