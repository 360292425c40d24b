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
    let mut req = a.validate()?;
    // perf's tracepoint globs (`syscalls:sys_enter_get*`) become one event each.
    req.groups = pfmlib_perf::perf_syntax::expand_groups(lib.host(), &req.groups)?;
    let mut report = Report::open(&a, req.format)?;
    let counting = run::Counting::new(lib, &req.groups, &req.scope, &a.command, a.verbose);
    let events = req
        .groups
        .iter()
        .flatten()
        .map(|n| EventStats::new(n.clone(), metric::classify(lib, n)))
        .collect();
    let mut tally = Tally::new(events);
    let title = a.title();
    if let run::Outcome::SpawnFailed { code, message } =
        counting.repeat(a.repeat, &mut tally, &mut report, &title)?
    {
        warn!("pfm stat: {message}");
        return Ok(ExitCode::from(code));
    }
    if a.repeat != 0 {
        report.finish(&tally, &title, !a.command.is_empty())?;
    }
    Ok(ExitCode::from(exit_status(
        tally.exit_code(),
        counting.stop_signal(),
    )))
}

/// pfm stat's exit status: the (last) command's; when a stop signal ended
/// the counting and the command did not fail (there is none, it ignored the
/// signal, or the signal came between runs), 128 + the signal, as a shell
/// would report pfm killed by it.
fn exit_status(command: u8, stop: Option<i32>) -> u8 {
    match stop {
        Some(sig) if command == 0 => (run::EXIT_SIGNAL_BASE + (sig & 0x7f)) as u8,
        _ => command,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_signals_show_in_the_exit_status() {
        assert_eq!(exit_status(0, None), 0);
        assert_eq!(exit_status(3, None), 3);
        assert_eq!(exit_status(0, Some(libc::SIGINT)), 130);
        assert_eq!(exit_status(0, Some(libc::SIGTERM)), 143);
        // The command's own failure (killed by the forwarded signal, say) wins.
        assert_eq!(exit_status(130, Some(libc::SIGINT)), 130);
    }
}
