//! `pfm stat`: count events for a command, processes or CPUs, in the
//! conventions of `perf stat`.
//!
//! - [`args`]: the arguments and their validation;
//! - [`scope`]: what is counted (command, `-p` pids, `-a`, `-C` CPUs);
//! - [`run`]: opening the counters, running the command, repeats;
//! - [`stats`]: means, deviations, scaling; [`metric`]: derived figures;
//! - [`output`]: one record per event, laid out as text, CSV or JSON.

mod args;
mod metric;
mod output;
mod run;
mod scope;
mod stats;

pub use args::Args;

use output::Report;
use pfmlib::Library;
use stats::{EventStats, Tally};
use std::process::ExitCode;

/// Counts as the arguments ask; the exit status is the command's.
pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let req = a.validate()?;
    let mut report = Report::open(&a, req.format)?;
    let counting = run::Counting::new(lib, &req.groups, &req.scope, &a.command, a.verbose);
    let events = req
        .groups
        .iter()
        .flatten()
        .map(|n| EventStats::new(n.clone(), metric::classify(lib, n)))
        .collect();
    let mut tally = Tally::new(events);
    if let run::Outcome::SpawnFailed { code, message } =
        counting.repeat(a.repeat, &mut tally, &mut report)?
    {
        warn!("pfm stat: {message}");
        return Ok(ExitCode::from(code));
    }
    report.finish(&tally, &a.title(), !a.command.is_empty())?;
    Ok(ExitCode::from(tally.exit_code()))
}
