//! Criterion settings shared by the benches: short, so that the whole report
//! runs in a few minutes on a small machine. `PFM_BENCH_SECONDS` sets the
//! measurement time of each benchmark (default 2).

use criterion::Criterion;
use std::time::Duration;

pub fn config() -> Criterion {
    let secs: f64 = std::env::var("PFM_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|s: &f64| *s > 0.0)
        .unwrap_or(2.0);
    Criterion::default()
        .warm_up_time(Duration::from_secs_f64((secs / 4.0).max(0.1)))
        .measurement_time(Duration::from_secs_f64(secs))
        .sample_size(30)
        .without_plots()
}
