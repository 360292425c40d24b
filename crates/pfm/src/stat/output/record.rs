//! One event's line of output, for one run or over all runs, built once
//! from the counts with its status, unit, spread and derived figure: what
//! every format lays out.

use crate::stat::kind::Kind;
use crate::stat::metric::{self, Metric};
use crate::stat::stats::{EventStats, Stats};
use pfmlib_perf::Reading;

/// perf's value for an event that could not be opened.
pub const NOT_SUPPORTED: &str = "<not supported>";
/// perf's value for an event that never ran (not a zero).
pub const NOT_COUNTED: &str = "<not counted>";

/// Whether an event has a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status<'a> {
    /// It ran: the record's value is a count.
    Counted,
    /// It could not be opened, for this reason.
    NotSupported(&'a str),
    /// It was opened but never ran.
    NotCounted,
}

impl Status<'_> {
    /// The `status` of the JSON records.
    pub fn name(&self) -> &'static str {
        match self {
            Status::Counted => "counted",
            Status::NotSupported(_) => "not supported",
            Status::NotCounted => "not counted",
        }
    }

    /// What perf prints instead of a value, when there is none.
    pub fn placeholder(&self) -> Option<&'static str> {
        match self {
            Status::Counted => None,
            Status::NotSupported(_) => Some(NOT_SUPPORTED),
            Status::NotCounted => Some(NOT_COUNTED),
        }
    }
}

/// A number as it is printed: exact counts as integers, means and
/// milliseconds as reals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// An exact count (one run).
    Int(u64),
    /// A mean, or a time in milliseconds.
    Real(f64),
}

/// One event's line of output, for one run or for all runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CountRecord<'a> {
    /// The event as given.
    pub event: &'a str,
    /// The event's own unit (`Joules`, from `.unit`), `msec` for clocks,
    /// empty otherwise.
    pub unit: &'a str,
    /// Counted, not supported or not counted.
    pub status: Status<'a>,
    /// The count in `unit` (the mean for a summary); zero without a count.
    pub value: Number,
    /// Digits after the point in text and CSV (two for milliseconds and
    /// a fractional scale).
    pub decimals: usize,
    /// A scaled event's count before its scale (the mean for a summary):
    /// JSON keeps it beside the scaled value. `None` for other events.
    pub raw: Option<Number>,
    /// Sample variance of the runs' counts, in `unit` squared.
    pub variance: f64,
    /// Standard deviation of the mean, in percent of the mean.
    pub stddev_pct: f64,
    /// Nanoseconds on the PMU (the mean for a summary); zero without a count.
    pub runtime: Number,
    /// Percent of the enabled time on the PMU.
    pub pct_running: f64,
    /// The derived figure, when there is one.
    pub metric: Option<Metric>,
    /// One run's reading as the kernel gave it (per-run records only).
    pub reading: Option<Reading>,
}

impl<'a> CountRecord<'a> {
    /// The record of `ev` over every run so far (`all` gives the other
    /// events' means for its metric).
    pub fn summary(ev: &'a EventStats, all: &[EventStats], elapsed_ns: f64) -> CountRecord<'a> {
        let status = match &ev.unsupported {
            Some(reason) => Status::NotSupported(reason),
            None if ev.value.n > 0 => Status::Counted,
            None => Status::NotCounted,
        };
        let counted = status == Status::Counted;
        CountRecord {
            event: &ev.name,
            unit: ev.unit(),
            status,
            value: Number::Real(ev.in_unit(ev.value.mean)),
            decimals: decimals(ev),
            raw: ev.scaled.as_ref().map(|_| Number::Real(ev.value.mean)),
            variance: ev.variance_in_unit(ev.value.variance()),
            stddev_pct: ev.value.rel_stddev_pct(),
            runtime: Number::Real(if counted { ev.running.mean } else { 0.0 }),
            pct_running: if counted { ev.pct_running() } else { 100.0 },
            metric: counted
                .then(|| metric::derive(ev.kind, &ev.name, ev.value.mean, all, elapsed_ns))
                .flatten(),
            reading: None,
        }
    }

    /// The record of `ev` in one run, from its reading (`None`: not open).
    pub fn of_run(
        ev: &'a EventStats,
        reading: Option<&Reading>,
        all: &[EventStats],
        elapsed_ns: f64,
    ) -> CountRecord<'a> {
        let mut rec = CountRecord {
            event: &ev.name,
            unit: ev.unit(),
            status: Status::NotCounted,
            value: Number::Int(0),
            decimals: decimals(ev),
            raw: None,
            variance: 0.0,
            stddev_pct: 0.0,
            runtime: Number::Int(0),
            pct_running: 100.0,
            metric: None,
            reading: None,
        };
        if let Some(reason) = &ev.unsupported {
            rec.status = Status::NotSupported(reason);
            rec.pct_running = 100.0;
            return rec;
        }
        let Some((r, scaled)) = reading.and_then(|r| r.scaled().map(|s| (r, s))) else {
            return rec;
        };
        rec.status = Status::Counted;
        rec.value = match (ev.kind, &ev.scaled) {
            (_, Some(_)) | (Kind::Clock, None) => Number::Real(ev.in_unit(scaled as f64)),
            _ => Number::Int(scaled),
        };
        rec.raw = ev.scaled.as_ref().map(|_| Number::Int(scaled));
        rec.runtime = Number::Int(r.time_running);
        rec.pct_running = 100.0 * r.time_running as f64 / r.time_enabled.max(1) as f64;
        // This run's count against the other events' means so far.
        let single = EventStats {
            value: Stats::of(scaled as f64),
            ..ev.clone()
        };
        rec.metric = metric::derive(
            single.kind,
            &single.name,
            single.value.mean,
            all,
            elapsed_ns,
        );
        rec.reading = Some(*r);
        rec
    }

    /// The value as text and CSV print it: the count, or perf's placeholder.
    pub fn value_text(&self) -> String {
        match (self.status.placeholder(), self.value) {
            (Some(p), _) => p.to_string(),
            (None, Number::Int(v)) => v.to_string(),
            (None, Number::Real(v)) => format!("{v:.*}", self.decimals),
        }
    }

    /// Counted (has a value).
    pub fn counted(&self) -> bool {
        self.status == Status::Counted
    }
}

/// Scaled events as their scale says; clocks in milliseconds with two
/// decimals; counts whole.
fn decimals(ev: &EventStats) -> usize {
    match &ev.scaled {
        Some(s) => s.decimals(),
        None if ev.kind == Kind::Clock => 2,
        None => 0,
    }
}
