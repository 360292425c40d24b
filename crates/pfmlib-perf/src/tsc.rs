//! The time-stamp counter and its rate (perfmon(4) `PMIOTSTAMP`).

use crate::counter::{Counter, Options, Target};
use crate::error::{Error, Result};
use crate::sys;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Where the TSC rate came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateSource {
    /// The kernel's TSC-to-nanoseconds conversion (`time_mult`/`time_shift`
    /// of a perf event's user page, `cap_user_time`).
    Kernel,
    /// Timed against `CLOCK_MONOTONIC` over a short interval.
    Measured,
}

/// One time-stamp counter reading (perfmon(4) `struct pmc_tstamp`).
///
/// The rate is approximate, as perfmon(4) warns: the kernel's conversion
/// factors are rounded and a measurement over a few milliseconds is off by
/// some parts per thousand. Treat it as a hint, not a calibration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tstamp {
    /// The counter value.
    pub value: u64,
    /// The approximate rate in MHz (`pmct_rate`).
    pub rate_mhz: u32,
    /// The rate in Hz, unrounded.
    pub rate_hz: f64,
    /// Where the rate came from.
    pub source: RateSource,
}

static RATE: OnceLock<Option<(f64, RateSource)>> = OnceLock::new();

/// Reads the time-stamp counter and its (cached) approximate rate.
pub fn tstamp() -> Result<Tstamp> {
    let (rate_hz, source) = tsc_rate()?;
    let value = sys::rdtsc().ok_or_else(unsupported)?;
    Ok(Tstamp {
        value,
        rate_mhz: (rate_hz / 1e6).round() as u32,
        rate_hz,
        source,
    })
}

fn unsupported() -> Error {
    Error::Unsupported("the time-stamp counter exists only on x86 processors".into())
}

/// The TSC rate in Hz, from the kernel where it says, measured otherwise
/// (computed once per process).
pub fn tsc_rate() -> Result<(f64, RateSource)> {
    (*RATE.get_or_init(|| kernel_rate().or_else(measured_rate))).ok_or_else(unsupported)
}

fn kernel_rate() -> Option<(f64, RateSource)> {
    sys::rdtsc()?;
    let c = Counter::open(
        "perf::cpu-clock",
        Target::CallingThread,
        &Options::default().enabled(true).user_page(true),
    )
    .ok()?;
    let snap = c.user_page_snapshot()?;
    if !snap.cap_user_time || snap.time_mult == 0 || snap.time_shift > 63 {
        return None;
    }
    // ns = (cycles * mult) >> shift, so cycles per second = 1e9 * 2^shift / mult.
    let hz = 1e9 * (1u128 << snap.time_shift) as f64 / f64::from(snap.time_mult);
    (hz > 1e6).then_some((hz, RateSource::Kernel))
}

fn measured_rate() -> Option<(f64, RateSource)> {
    let t0 = Instant::now();
    let c0 = sys::rdtsc()?;
    std::thread::sleep(Duration::from_millis(20));
    let c1 = sys::rdtsc()?;
    let dt = t0.elapsed().as_secs_f64();
    (dt > 0.0 && c1 > c0).then(|| ((c1 - c0) as f64 / dt, RateSource::Measured))
}
