//! Counts across runs: mean and variance (Welford), the relative standard
//! deviation of the mean perf prints as `( +- x% )`, the share of the time a
//! counter ran, and the scaling of clocks to milliseconds.

use super::aggr::{self, Bucket, Label};
use super::kind::{Kind, Scaled};
use super::run::RunEnd;
use pfmlib_perf::{CounterSet, Reading};

/// Nanoseconds in a millisecond: clocks count nanoseconds, perf prints msec.
pub const NS_PER_MSEC: f64 = 1e6;

/// The unit perf prints for clocks.
pub const UNIT_MSEC: &str = "msec";

/// Appended to an event that could only count user level.
const USER_ONLY_SUFFIX: &str = ":u";

/// Running mean and variance (Welford).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    /// Samples.
    pub n: u64,
    /// Their mean.
    pub mean: f64,
    m2: f64,
}

impl Stats {
    /// Adds a sample.
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// One sample.
    pub fn of(x: f64) -> Stats {
        let mut s = Stats::default();
        s.push(x);
        s
    }

    /// Sample variance.
    pub fn variance(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }

    /// Standard deviation of the mean (absolute).
    pub fn stddev_of_mean(&self) -> f64 {
        (self.variance() / self.n.max(1) as f64).sqrt()
    }

    /// Standard deviation of the mean, in percent of the mean (perf's `( +- x% )`).
    pub fn rel_stddev_pct(&self) -> f64 {
        if self.n < 2 || self.mean == 0.0 {
            return 0.0;
        }
        100.0 * (self.variance() / self.n as f64).sqrt() / self.mean.abs()
    }
}

/// One event across runs.
#[derive(Debug, Clone)]
pub struct EventStats {
    /// The event as given (`:u` appended when it had to count user level only).
    pub name: String,
    /// What it counts, for units and derived metrics.
    pub kind: Kind,
    /// `Some(reason)` when it could not be opened.
    pub unsupported: Option<String>,
    /// Scaled counts of the runs where it ran.
    pub value: Stats,
    /// Nanoseconds enabled, same runs.
    pub enabled: Stats,
    /// Nanoseconds on the PMU, same runs.
    pub running: Stats,
    /// The unit and factor of an event whose counts are scaled (sysfs
    /// `.scale`/`.unit` files, RAPL energy): `None` for plain counts.
    pub scaled: Option<Scaled>,
}

impl EventStats {
    /// An event not yet counted.
    pub fn new(name: String, kind: Kind) -> EventStats {
        EventStats {
            name,
            kind,
            unsupported: None,
            value: Stats::default(),
            enabled: Stats::default(),
            running: Stats::default(),
            scaled: None,
        }
    }

    /// The same event with its counts printed as `scaled` says.
    pub fn with_scaled(mut self, scaled: Option<Scaled>) -> EventStats {
        self.scaled = scaled;
        self
    }

    /// Opened, and ran in at least one run.
    pub fn counted(&self) -> bool {
        self.unsupported.is_none() && self.value.n > 0
    }

    /// Mean share of the enabled time the counter was on the PMU, in percent.
    pub fn pct_running(&self) -> f64 {
        if self.enabled.mean > 0.0 {
            (100.0 * self.running.mean / self.enabled.mean).min(100.0)
        } else {
            100.0
        }
    }

    /// The unit perf prints: the event's own (`Joules`), msec for
    /// clocks, none otherwise.
    pub fn unit(&self) -> &str {
        if let Some(s) = &self.scaled {
            &s.unit
        } else if self.kind == Kind::Clock {
            UNIT_MSEC
        } else {
            ""
        }
    }

    /// The divisor from counts to [`Self::unit`] (clocks; scaled events
    /// multiply instead: [`Self::in_unit`]).
    pub fn scale(&self) -> f64 {
        if self.kind == Kind::Clock {
            NS_PER_MSEC
        } else {
            1.0
        }
    }

    /// A count (or mean) in [`Self::unit`].
    pub fn in_unit(&self, count: f64) -> f64 {
        match &self.scaled {
            Some(s) => count * s.factor,
            None => count / self.scale(),
        }
    }

    /// A variance of counts in [`Self::unit`] squared.
    pub fn variance_in_unit(&self, variance: f64) -> f64 {
        match &self.scaled {
            Some(s) => variance * s.factor * s.factor,
            None => {
                let scale = self.scale();
                variance / (scale * scale)
            }
        }
    }

    /// Adds one run's reading; a counter that never ran adds nothing (its
    /// runs do not enter the mean: `<not counted>`, not zero).
    fn add(&mut self, r: &Reading) {
        if let Some(v) = r.scaled() {
            self.value.push(v as f64);
            self.enabled.push(r.time_enabled as f64);
            self.running.push(r.time_running as f64);
        }
    }
}

/// Every event and the elapsed time, across the runs so far.
#[derive(Debug, Clone)]
pub struct Tally {
    /// The events, in the order given.
    pub events: Vec<EventStats>,
    /// Wall-clock time of each run, in nanoseconds.
    pub elapsed: Stats,
    /// How the last run ended.
    pub last: Option<RunEnd>,
    /// Runs done.
    pub runs: u32,
    /// The last run's reading of each event (`None`: not open there).
    pub readings: Vec<Option<Reading>>,
}

impl Tally {
    /// The events that could not be opened (not supported here).
    pub fn not_supported(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter(|e| e.unsupported.is_some())
            .map(|e| e.name.as_str())
            .collect()
    }

    /// No run yet.
    pub fn new(events: Vec<EventStats>) -> Tally {
        Tally {
            events,
            elapsed: Stats::default(),
            last: None,
            runs: 0,
            readings: Vec::new(),
        }
    }

    /// Adds run `run_no`: one reading per event (`None` where it is not open).
    pub fn add_run(&mut self, readings: &[Option<Reading>], end: RunEnd) {
        for (ev, r) in self.events.iter_mut().zip(readings) {
            if let Some(r) = r {
                ev.add(r);
            }
        }
        self.elapsed.push(end.elapsed.as_nanos() as f64);
        self.last = Some(end);
        self.runs += 1;
        self.readings = readings.to_vec();
    }

    /// Notes how a run's counters opened: an event that could not be opened
    /// is marked with why (its error returned the first time, for the caller
    /// to report), one that counts user level only gets `:u` appended.
    pub fn note_open<'s>(&mut self, set: &'s CounterSet) -> Vec<&'s pfmlib_perf::Error> {
        let mut first = Vec::new();
        for (i, st) in self.events.iter_mut().enumerate() {
            if let Some(e) = set.error(i) {
                if st.unsupported.is_none() {
                    st.unsupported = Some(e.to_string());
                    first.push(e);
                }
            } else if set.user_only(i) && !st.name.ends_with(USER_ONLY_SUFFIX) {
                st.name.push_str(USER_ONLY_SUFFIX);
            }
        }
        first
    }

    /// Forgets the counts (not the events, their kinds or why some could
    /// not be opened), for the next run of `-r 0`.
    pub fn reset(&mut self) {
        for ev in &mut self.events {
            ev.value = Stats::default();
            ev.enabled = Stats::default();
            ev.running = Stats::default();
        }
        self.elapsed = Stats::default();
        self.runs = 0;
    }

    /// The exit status to give: the last run's command's.
    pub fn exit_code(&self) -> u8 {
        self.last.map_or(0, |e| e.code)
    }
}

/// One line of output per event: the whole, or one CPU, core, socket or
/// thread, with its counts across runs.
#[derive(Debug, Clone)]
pub struct Line {
    /// Its prefix (`None`: the whole, no prefix).
    pub label: Option<Label>,
    /// The scope's units it sums.
    pub units: Vec<usize>,
    /// Its counts.
    pub tally: Tally,
}

impl Line {
    /// The lines of `buckets`, each with a fresh tally of `events`.
    pub fn of(buckets: Vec<Bucket>, events: &[EventStats]) -> Vec<Line> {
        buckets
            .into_iter()
            .map(|b| Line {
                label: b.label,
                units: b.units,
                tally: Tally::new(events.to_vec()),
            })
            .collect()
    }

    /// This line's readings out of per-unit ones: its units summed.
    pub fn readings(&self, per_unit: &[Vec<Option<Reading>>]) -> Vec<Option<Reading>> {
        let b = Bucket {
            label: None,
            units: self.units.clone(),
        };
        aggr::sum(&b, per_unit, self.tally.events.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_like_perf() {
        let mut s = Stats::default();
        for x in [10.0, 12.0, 14.0] {
            s.push(x);
        }
        assert_eq!(s.mean, 12.0);
        assert_eq!(s.variance(), 4.0);
        // sqrt(4/3)/12 = 9.62%
        assert!((s.rel_stddev_pct() - 9.6225).abs() < 1e-3);
        assert!((s.stddev_of_mean() - (4.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(Stats::of(5.0).rel_stddev_pct(), 0.0);
    }

    #[test]
    fn runs_that_never_ran_stay_out_of_the_mean() {
        let mut e = EventStats::new("cycles".into(), Kind::Cycles);
        e.add(&Reading::new(0, 10, 0));
        assert!(!e.counted());
        e.add(&Reading::new(50, 100, 25));
        assert!(e.counted());
        assert_eq!(e.value.mean, 200.0);
        assert_eq!(e.pct_running(), 25.0);
    }
}
