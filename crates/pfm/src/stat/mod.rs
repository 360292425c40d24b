//! `pfm stat`: count events for a command, processes or CPUs, in the
//! conventions of `perf stat`.
//!
//! Layers, each module importing only from the ones above it in this list:
//! - [`args`]: the arguments, the default events, the format asked for,
//!   checks among options; [`exit`]: exit statuses as a shell reports them;
//! - [`scope`]: what is counted (command, `-p` pids, `-t` tids, `-a`, `-C`
//!   CPUs, `-G` cgroup);
//! - [`hooks`]: `--pre` and `--post`; [`run`](mod@run): opening the counters,
//!   running the command, intervals, repeats, handing what it reads to a
//!   [`run::Observer`];
//! - [`aggr`]: one line per CPU, core, die, socket, node or thread; [`kind`]: what an
//!   event counts; [`stats`]: means, deviations, scaling, per line;
//! - [`metric`]: derived figures; [`metricdefs`]: the metrics of `-M`;
//!   [`request`]: the arguments validated into what is counted and how;
//! - [`output`]: the report; one record per event (`output/record.rs`),
//!   laid out by one module per format (text, CSV, JSON).
//!
//! This file wires them: the request, the counting, and the [`Counts`]
//! (the observer) that keeps each line's tally and prints it.

mod aggr;
mod args;
mod exit;
mod hooks;
mod kind;
mod metric;
mod metricdefs;
mod output;
mod request;
mod run;
mod scope;
mod stats;

pub use args::Args;

use output::{Report, Style};
use pfmlib::Library;
use pfmlib_perf::CounterSet;
use request::Request;
use run::{PerUnit, RunEnd};
use stats::{EventStats, Line};
use std::process::ExitCode;
use std::time::Duration;

/// Counts as the arguments ask; the exit status is the command's.
pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let mut req = Request::of(&a)?;
    // perf's tracepoint globs (`syscalls:sys_enter_get*`) become one event each.
    req.groups = pfmlib_perf::perf_syntax::expand_groups(lib.host(), &req.groups)?;
    // On a hybrid host a generic hardware event counts on each core type,
    // printed as perf prints it (`cpu_core/cycles/`, `cpu_atom/cycles/`).
    req.groups = pfmlib_perf::perf_syntax::expand_hybrid(lib, &req.groups);
    // An uncore PMU named without its instance suffix counts every box,
    // system-wide on each box's cpumask CPU, printed as their sum; with
    // --no-merge, one event (and line) per box, as perf prints them.
    if a.no_merge {
        req.groups = pfmlib_perf::perf_syntax::expand_uncore(lib, &req.groups);
    }
    let style = Style {
        thousands: (req.format == args::Format::Text && !a.no_big_num)
            .then(pfmlib_perf::thousands_separator)
            .filter(|s| !s.is_empty()),
        cgroup: a.cgroup.clone(),
        metrics: req.metrics.clone(),
        skip_zero: a.per_thread && a.all_cpus,
    };
    let report = Report::open(&a, req.format.clone(), style)?;
    let counting = run::Counting::new(lib, &req.groups, &req.scope, &a.command, plan(&a));
    let events: Vec<EventStats> = req
        .groups
        .iter()
        .flatten()
        .map(|n| {
            EventStats::new(n.clone(), kind::classify(lib, n)).with_scaled(kind::scaled(lib, n))
        })
        .collect();
    let buckets = aggr::buckets(lib.host(), req.aggr, &req.scope.units());
    let title = a.title();
    let mut counts = Counts {
        lines: Line::of(buckets, &events),
        report,
        forever: a.repeat == 0,
        title: &title,
        verbose: a.verbose,
        quiet: a.quiet,
    };
    let outcome = counting.repeat(a.repeat, &mut counts)?;
    let post_failed = match outcome {
        run::Outcome::SpawnFailed { code, message } | run::Outcome::PreFailed { code, message } => {
            if !a.quiet {
                warn!("pfm stat: {message}");
            }
            return Ok(ExitCode::from(code));
        }
        run::Outcome::Finished(post) => post,
    };
    let Counts { lines, report, .. } = &mut counts;
    if a.repeat != 0 && a.interval.is_none() {
        // The command's user and system times, when it alone was counted.
        let workload = req.scope == pfmlib_perf::Scope::Workload;
        report.finish(lines, &title, workload)?;
    }
    let command = lines.first().map_or(0, |l| l.tally.exit_code());
    let status = exit_status(command, counting.stop_signal());
    let status = match post_failed {
        Some(code) if status == 0 => code,
        _ => status,
    };
    // An event asked for with -e that this machine cannot count is a
    // failure, however the command ended (the default events are perf's
    // set, shown as <not supported> where absent, as perf does).
    let missing = if a.events.is_empty() {
        Vec::new()
    } else {
        lines
            .first()
            .map_or_else(Vec::new, |l| l.tally.not_supported())
    };
    if status == 0 && !missing.is_empty() {
        // CSV and JSON rows already say <not supported>; a line of text
        // there would break their readers.
        if !a.quiet && req.format == args::Format::Text {
            warn!(
                "pfm stat: not counted, not supported here: {}",
                missing.join(", ")
            );
        }
        return Ok(ExitCode::from(EXIT_NOT_COUNTED));
    }
    Ok(ExitCode::from(status))
}

/// Exit status when the command succeeded but an event given with -e could
/// not be counted on this machine.
pub const EXIT_NOT_COUNTED: u8 = 1;

/// Each line's counts and the report they are printed to: what the
/// counting hands its runs and intervals to.
struct Counts<'a> {
    lines: Vec<Line>,
    report: Report,
    /// `-r 0`: each run printed after it, then forgotten.
    forever: bool,
    /// What the report's title names.
    title: &'a str,
    /// `-v`: say why each event could not be opened.
    verbose: bool,
    /// `-q`: no messages.
    quiet: bool,
}

impl run::Observer for Counts<'_> {
    fn opened(&mut self, set: &CounterSet) {
        for (n, line) in self.lines.iter_mut().enumerate() {
            for e in line.tally.note_open(set) {
                // An unschedulable group is said even without -v.
                let loud =
                    self.verbose || matches!(e, pfmlib_perf::Error::GroupUnschedulable { .. });
                if n == 0 && loud && !self.quiet {
                    warn!("pfm stat: {e}");
                }
            }
        }
    }

    fn interval(
        &mut self,
        ts: Duration,
        now: &PerUnit,
        before: &PerUnit,
        end: RunEnd,
    ) -> anyhow::Result<()> {
        let delta = aggr::delta(now, before);
        for line in self.lines.iter_mut() {
            line.tally.reset();
            let r = line.readings(&delta);
            line.tally.add_run(&r, end);
        }
        self.report.interval(ts, &self.lines)?;
        Ok(())
    }

    fn finished(&mut self, run_no: u32, per_unit: &PerUnit, end: RunEnd) -> anyhow::Result<()> {
        for line in self.lines.iter_mut() {
            let r = line.readings(per_unit);
            line.tally.add_run(&r, end);
        }
        self.report.after_run(run_no, &self.lines, end.elapsed)?;
        if self.forever {
            self.report.each_run(&self.lines, self.title)?;
            self.lines.iter_mut().for_each(|l| l.tally.reset());
        }
        Ok(())
    }
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
        Some(sig) if command == 0 => exit::killed_by(sig),
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
