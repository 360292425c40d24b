//! `pfm stat`: count events for a command, processes or CPUs, in the
//! conventions of `perf stat`.
//!
//! - [`args`]: the arguments and their validation;
//! - [`scope`]: what is counted (command, `-p` pids, `-t` tids, `-a`, `-C`
//!   CPUs, `-G` cgroup);
//! - [`run`]: opening the counters, running the command, intervals,
//!   repeats; [`hooks`]: `--pre` and `--post`;
//! - [`aggr`]: one line per CPU, core, socket or thread;
//! - [`stats`]: means, deviations, scaling; [`metric`]: derived figures;
//!   [`metricdefs`]: the metrics of `-M`;
//! - [`output`]: one record per event, laid out as text, CSV or JSON.

mod aggr;
mod args;
mod hooks;
mod metric;
mod metricdefs;
mod output;
mod run;
mod scope;
mod stats;

pub use args::Args;

use output::{Report, Style};
use pfmlib::Library;
use stats::{EventStats, Line};
use std::process::ExitCode;
use std::time::Duration;

/// Counts as the arguments ask; the exit status is the command's.
pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let mut req = a.validate()?;
    // perf's tracepoint globs (`syscalls:sys_enter_get*`) become one event each.
    req.groups = pfmlib_perf::perf_syntax::expand_groups(lib.host(), &req.groups)?;
    let style = Style {
        thousands: (req.format == output::Format::Text && !a.no_big_num)
            .then(pfmlib_perf::thousands_separator)
            .filter(|s| !s.is_empty()),
        cgroup: a.cgroup.clone(),
        metrics: req.metrics.clone(),
    };
    let mut report = Report::open(&a, req.format.clone(), style)?;
    let counting = run::Counting::new(
        lib,
        &req.groups,
        &req.scope,
        &a.command,
        a.verbose,
        plan(&a),
    );
    let events: Vec<EventStats> = req
        .groups
        .iter()
        .flatten()
        .map(|n| EventStats::new(n.clone(), metric::classify(lib, n)))
        .collect();
    let buckets = aggr::buckets(lib, req.aggr, &req.scope.units());
    let mut lines = Line::of(buckets, &events);
    let title = a.title();
    let outcome = counting.repeat(a.repeat, &mut lines, &mut report, &title)?;
    let post_failed = match outcome {
        run::Outcome::SpawnFailed { code, message } | run::Outcome::PreFailed { code, message } => {
            if !a.quiet {
                warn!("pfm stat: {message}");
            }
            return Ok(ExitCode::from(code));
        }
        run::Outcome::Finished(post) => post,
    };
    if a.repeat != 0 && a.interval.is_none() {
        // The command's user and system times, when it alone was counted.
        let workload = req.scope == pfmlib_perf::Scope::Workload;
        report.finish(&lines, &title, workload)?;
    }
    let command = lines.first().map_or(0, |l| l.tally.exit_code());
    let status = exit_status(command, counting.stop_signal());
    Ok(ExitCode::from(match post_failed {
        Some(code) if status == 0 => code,
        _ => status,
    }))
}

/// The timing and process options of one run.
fn plan(a: &Args) -> run::Plan {
    run::Plan {
        interval: a.interval.map(Duration::from_millis),
        interval_count: a.interval_count,
        delay: a.delay,
        timeout: a.timeout.map(Duration::from_millis),
        inherit: !a.no_inherit,
        pre: a.pre.clone(),
        post: a.post.clone(),
        quiet: a.quiet,
    }
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
