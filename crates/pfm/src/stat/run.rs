//! Counting: opening the counters, running the command (or waiting for
//! Ctrl-C or the processes' end), reading, and repeating.

use super::output::Report;
use super::scope;
use super::stats::{EventStats, Tally};
use anyhow::{bail, Context};
use pfmlib::Library;
use pfmlib_perf::{CounterSet, Interrupt, Options, Scope};
use std::time::{Duration, Instant};

/// Exit status of a command that was not found, as a shell gives it.
const EXIT_NOT_FOUND: u8 = 127;
/// Exit status of a command that could not be run, as a shell gives it.
const EXIT_CANNOT_RUN: u8 = 126;
/// A command ended by signal N exits with this plus N, as a shell reports it.
pub const EXIT_SIGNAL_BASE: i32 = 128;
/// How often the processes of `-p` are checked while counting without a command.
const POLL_INTERVAL: Duration = Duration::from_millis(20);
/// Appended to an event that could only count user level.
const USER_ONLY_SUFFIX: &str = ":u";

/// How one run ended.
#[derive(Debug, Clone, Copy)]
pub struct RunEnd {
    /// Wall-clock time counted.
    pub elapsed: Duration,
    /// The command's user CPU time.
    pub user: Duration,
    /// The command's system CPU time.
    pub sys: Duration,
    /// The command's exit status as a shell reports it.
    pub code: u8,
}

/// How the runs ended.
pub enum Outcome {
    /// Every run (or every run before Ctrl-C) counted.
    Finished,
    /// The command could not be started: the exit status to give and why.
    SpawnFailed {
        /// 127 when not found, else 126.
        code: u8,
        /// For people.
        message: String,
    },
}

/// What to count and how; the same for every run.
pub struct Counting<'a> {
    lib: &'a Library,
    groups: &'a [Vec<String>],
    scope: &'a Scope,
    command: &'a [std::ffi::OsString],
    verbose: bool,
    opts: Options,
    interrupt: Option<Interrupt>,
}

/// One run's result.
enum RunResult {
    Done(CounterSet, RunEnd),
    SpawnFailed(u8, String),
}

impl<'a> Counting<'a> {
    /// Counts `groups` in `scope` for `command` (none: until Ctrl-C or the
    /// processes' end); installs the Ctrl-C handler.
    pub fn new(
        lib: &'a Library,
        groups: &'a [Vec<String>],
        scope: &'a Scope,
        command: &'a [std::ffi::OsString],
        verbose: bool,
    ) -> Counting<'a> {
        Counting {
            lib,
            groups,
            scope,
            command,
            verbose,
            opts: Options::default().user_only_fallback(true).user_page(false),
            interrupt: Interrupt::install().ok(),
        }
    }

    fn interrupted(&self) -> bool {
        self.interrupt.is_some_and(|i| i.received())
    }

    /// Runs up to `repeat` times (Ctrl-C ends after the current run), adds
    /// each run to `tally` and hands it to `report`.
    pub fn repeat(
        &self,
        repeat: u32,
        tally: &mut Tally,
        report: &mut Report,
        title: &str,
    ) -> anyhow::Result<Outcome> {
        let forever = repeat == 0;
        let mut run_no = 0;
        while forever || run_no < repeat {
            run_no += 1;
            let (set, end) = match self.one_run()? {
                RunResult::Done(set, end) => (set, end),
                RunResult::SpawnFailed(code, message) => {
                    return Ok(Outcome::SpawnFailed { code, message })
                }
            };
            self.note_errors(&set, &mut tally.events);
            let readings = set.read().context("reading the counters")?;
            drop(set);
            tally.add_run(&readings, end);
            report.after_run(run_no, tally, &readings, end.elapsed)?;
            if forever {
                report.each_run(tally, title)?;
                tally.reset();
            }
            if self.interrupted() {
                break;
            }
        }
        Ok(Outcome::Finished)
    }

    /// The stop signal pfm received, if one ended the counting.
    pub fn stop_signal(&self) -> Option<i32> {
        self.interrupt.and_then(|i| i.signal())
    }

    /// Marks the events that could not be opened (saying why when asked, or
    /// when a group cannot be scheduled) and the ones counting user level only.
    fn note_errors(&self, set: &CounterSet, events: &mut [EventStats]) {
        for (i, st) in events.iter_mut().enumerate() {
            if let Some(e) = set.error(i) {
                if st.unsupported.is_none() {
                    if self.verbose || matches!(e, pfmlib_perf::Error::GroupUnschedulable { .. }) {
                        warn!("pfm stat: {e}");
                    }
                    st.unsupported = Some(e.to_string());
                }
            } else if set.user_only(i) && !st.name.ends_with(USER_ONLY_SUFFIX) {
                st.name.push_str(USER_ONLY_SUFFIX);
            }
        }
    }

    fn one_run(&self) -> anyhow::Result<RunResult> {
        if self.command.is_empty() {
            let (set, end) = self.count_until_stopped()?;
            Ok(RunResult::Done(set, end))
        } else {
            self.count_command()
        }
    }

    /// Opens the counters; errors other than "not supported" (permissions,
    /// paranoid, bad event strings, missing processes) stop everything, as in perf.
    fn open_set(&self) -> anyhow::Result<CounterSet> {
        let set = CounterSet::open(self.lib, self.groups, self.scope, &self.opts);
        for i in 0..set.names().len() {
            if let Some(e) = set.error(i) {
                if !e.is_not_supported() {
                    bail!("{e}");
                }
            }
        }
        Ok(set)
    }

    /// -p / -a / -C without a command: counts until Ctrl-C (or the processes end).
    fn count_until_stopped(&self) -> anyhow::Result<(CounterSet, RunEnd)> {
        let set = self.open_set()?;
        let t0 = Instant::now();
        set.enable().context("enabling the counters")?;
        let pids: &[i32] = match self.scope {
            Scope::Tasks(t) => t,
            _ => &[],
        };
        loop {
            std::thread::sleep(POLL_INTERVAL);
            if self.interrupted() {
                break;
            }
            if !pids.is_empty() && !pids.iter().any(|&p| scope::alive(p)) {
                break;
            }
        }
        set.disable().context("disabling the counters")?;
        let end = RunEnd {
            elapsed: t0.elapsed(),
            user: Duration::ZERO,
            sys: Duration::ZERO,
            code: 0,
        };
        Ok((set, end))
    }

    /// Counts the command. Workload: inherited counters of this thread that
    /// start at the child's exec; -p/-a/-C: started now, while the command runs.
    fn count_command(&self) -> anyhow::Result<RunResult> {
        let mut cmd = std::process::Command::new(&self.command[0]);
        cmd.args(&self.command[1..]);
        let set = self.open_set()?;
        set.enable().context("enabling the counters")?;
        let t0 = Instant::now();
        let child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                let code = if e.kind() == std::io::ErrorKind::NotFound {
                    EXIT_NOT_FOUND
                } else {
                    EXIT_CANNOT_RUN
                };
                let message = format!("cannot run {:?}: {e}", self.command[0]);
                return Ok(RunResult::SpawnFailed(code, message));
            }
        };
        let exit = pfmlib_perf::wait_child(child.id(), self.interrupt)
            .context("waiting for the command")?;
        report_signal(&self.command[0], exit.status);
        let elapsed = t0.elapsed();
        set.disable().context("disabling the counters")?;
        let end = RunEnd {
            elapsed,
            user: exit.user,
            sys: exit.sys,
            code: status_code(exit.status),
        };
        Ok(RunResult::Done(set, end))
    }
}

/// Says that the command was ended by a signal, as perf does (its name and
/// the signal's description, on standard error).
fn report_signal(command: &std::ffi::OsStr, st: std::process::ExitStatus) {
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = st.signal() {
        warn!("{}: {}", command.to_string_lossy(), signal_description(sig));
    }
}

/// The C library's description of a signal (`strsignal`).
pub fn signal_description(sig: i32) -> String {
    const NAMES: [(i32, &str); 16] = [
        (libc::SIGHUP, "Hangup"),
        (libc::SIGINT, "Interrupt"),
        (libc::SIGQUIT, "Quit"),
        (libc::SIGILL, "Illegal instruction"),
        (libc::SIGTRAP, "Trace/breakpoint trap"),
        (libc::SIGABRT, "Aborted"),
        (libc::SIGBUS, "Bus error"),
        (libc::SIGFPE, "Floating point exception"),
        (libc::SIGKILL, "Killed"),
        (libc::SIGUSR1, "User defined signal 1"),
        (libc::SIGSEGV, "Segmentation fault"),
        (libc::SIGUSR2, "User defined signal 2"),
        (libc::SIGPIPE, "Broken pipe"),
        (libc::SIGALRM, "Alarm clock"),
        (libc::SIGTERM, "Terminated"),
        (libc::SIGXCPU, "CPU time limit exceeded"),
    ];
    NAMES
        .iter()
        .find(|(s, _)| *s == sig)
        .map_or_else(|| format!("Signal {sig}"), |(_, d)| d.to_string())
}

/// The exit status as a shell reports it: the code, or 128 + the signal.
fn status_code(st: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    if let Some(c) = st.code() {
        return (c & 0xff) as u8;
    }
    match st.signal() {
        Some(s) => (EXIT_SIGNAL_BASE + (s & 0x7f)) as u8,
        None => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn statuses_as_a_shell_reports_them() {
        assert_eq!(status_code(std::process::ExitStatus::from_raw(3 << 8)), 3);
        // Killed by SIGKILL (9).
        assert_eq!(status_code(std::process::ExitStatus::from_raw(9)), 137);
    }
}
