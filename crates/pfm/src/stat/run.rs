//! Counting: opening the counters, running the command (held before its
//! exec while its counters open, as perf does) or waiting for Ctrl-C or the
//! processes' end, timing intervals, and repeating. What is read goes to an
//! [`Observer`], which keeps the counts and prints them.

use super::exit::status_code;
use super::hooks;
use super::scope;
use anyhow::{bail, Context};
use pfmlib::Library;
use pfmlib_perf::{ChildExit, CounterSet, HeldChild, Interrupt, Options, Reading, Scope};
use std::time::{Duration, Instant};

/// How often the processes of `-p` are checked while counting without a command.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// Readings of every event (inner) on every unit of the scope (outer):
/// thread or CPU; `None` where an event is not open.
pub type PerUnit = Vec<Vec<Option<Reading>>>;

/// What the counting hands over as it goes, to be counted and printed.
pub trait Observer {
    /// A run's counters are open, its command not yet let go: `set` says
    /// which events could not be opened and which count user level only.
    fn opened(&mut self, set: &CounterSet);
    /// An interval of `-I` ended `ts` after counting started: the readings
    /// now and at the previous interval (empty at the first); `end` spans
    /// the interval.
    fn interval(
        &mut self,
        ts: Duration,
        now: &PerUnit,
        before: &PerUnit,
        end: RunEnd,
    ) -> anyhow::Result<()>;
    /// Run `run_no` (from 1) ended, without `-I`: its readings and how it ended.
    fn finished(&mut self, run_no: u32, per_unit: &PerUnit, end: RunEnd) -> anyhow::Result<()>;
}

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
    /// Every run (or every run before Ctrl-C) counted; `Some(status)` when
    /// a `--post` command failed and ended the repeats.
    Finished(Option<u8>),
    /// The command could not be started: the exit status to give and why.
    SpawnFailed {
        /// 127 when not found, else 126.
        code: u8,
        /// For people.
        message: String,
    },
    /// `--pre` failed: its exit status, and why; nothing was counted.
    PreFailed {
        /// The status to give.
        code: u8,
        /// For people.
        message: String,
    },
}

/// When and how the options of one run want it counted.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// `-I`: print deltas this often.
    pub interval: Option<Duration>,
    /// `--interval-count`: this many intervals at most.
    pub interval_count: Option<u64>,
    /// `-D`: start counting this many milliseconds in (-1: never).
    pub delay: Option<i64>,
    /// `--timeout`: stop (SIGTERM the command) after this long.
    pub timeout: Option<Duration>,
    /// Count what the command creates too (not `-i`).
    pub inherit: bool,
    /// `--pre` and `--post` shell commands.
    pub pre: Option<String>,
    /// See `pre`.
    pub post: Option<String>,
    /// `-q`: no messages.
    pub quiet: bool,
}

/// What to count and how; the same for every run.
pub struct Counting<'a> {
    lib: &'a Library,
    groups: &'a [Vec<String>],
    scope: &'a Scope,
    command: &'a [std::ffi::OsString],
    opts: Options,
    interrupt: Option<Interrupt>,
    plan: Plan,
}

/// A run whose counters are open and whose command (if any) runs.
struct Started {
    set: CounterSet,
    pid: Option<u32>,
    t_start: Instant,
    at_exec: bool,
}

/// One run's result.
enum RunResult {
    Done,
    SpawnFailed(u8, String),
}

/// Where a run stands while it waits.
struct Waiting {
    enabled: bool,
    t0: Instant,
    enable_at: Option<Instant>,
    timeout_at: Option<Instant>,
    next_tick: Option<Instant>,
    last_tick: Instant,
    ticks: u64,
    prev: PerUnit,
}

impl<'a> Counting<'a> {
    /// Counts `groups` in `scope` for `command` (none: until Ctrl-C or the
    /// processes' end) as `plan` says; installs the Ctrl-C handler.
    pub fn new(
        lib: &'a Library,
        groups: &'a [Vec<String>],
        scope: &'a Scope,
        command: &'a [std::ffi::OsString],
        plan: Plan,
    ) -> Counting<'a> {
        Counting {
            lib,
            groups,
            scope,
            command,
            opts: Options::default().user_only_fallback(true).user_page(false),
            interrupt: Interrupt::install().ok(),
            plan,
        }
    }

    fn interrupted(&self) -> bool {
        self.interrupt.is_some_and(|i| i.received())
    }

    /// Runs up to `repeat` times (Ctrl-C ends after the current run),
    /// handing each run (or interval) to `obs`.
    pub fn repeat(&self, repeat: u32, obs: &mut dyn Observer) -> anyhow::Result<Outcome> {
        let forever = repeat == 0;
        let mut run_no = 0;
        while forever || run_no < repeat {
            run_no += 1;
            if let Some(cmd) = &self.plan.pre {
                if let Err(f) = hooks::run("--pre", cmd) {
                    return Ok(Outcome::PreFailed {
                        code: f.code,
                        message: f.to_string(),
                    });
                }
            }
            if let RunResult::SpawnFailed(code, message) = self.one_run(run_no, obs)? {
                return Ok(Outcome::SpawnFailed { code, message });
            }
            if let Some(cmd) = &self.plan.post {
                if let Err(f) = hooks::run("--post", cmd) {
                    if !self.plan.quiet {
                        warn!("pfm stat: {f}");
                    }
                    return Ok(Outcome::Finished(Some(f.code)));
                }
            }
            if self.interrupted() {
                break;
            }
        }
        Ok(Outcome::Finished(None))
    }

    /// The stop signal pfm received, if one ended the counting.
    pub fn stop_signal(&self) -> Option<i32> {
        self.interrupt.and_then(|i| i.signal())
    }

    /// Opens the counters; errors other than "not supported" (permissions,
    /// paranoid, bad event strings, missing processes) stop everything, as in perf.
    fn open_set(&self, scope: &Scope) -> anyhow::Result<CounterSet> {
        // A descriptor per event per thread or CPU: every thread of a
        // system (`--per-thread -a`) passes the usual limit of 1024. As
        // perf, take what the hard limit allows (failing that, the open
        // says "too many open files").
        let events: usize = self.groups.iter().map(Vec::len).sum();
        let want = (scope.units().len() * events) as u64 + 64;
        let _ = pfmlib_perf::raise_open_files_limit(want);
        let set = CounterSet::open(self.lib, self.groups, scope, &self.opts);
        for i in 0..set.names().len() {
            if let Some(e) = set.error(i) {
                if !e.is_not_supported() {
                    bail!("{e}");
                }
            }
        }
        Ok(set)
    }

    /// Starts the command held before its exec, opens the counters (on it
    /// for a workload: inherited unless `-i`, from its exec unless `-D`),
    /// then lets it run.
    fn start(&self, obs: &mut dyn Observer) -> anyhow::Result<Result<Started, RunResult>> {
        let mut child = match self.command.is_empty() {
            true => None,
            false => match HeldChild::spawn(self.command) {
                Ok(c) => Some(c),
                Err(e) => return Ok(Err(RunResult::SpawnFailed(e.exit_code(), e.to_string()))),
            },
        };
        let at_exec = matches!(self.plan.delay, None | Some(0));
        let scope = match (self.scope, &child) {
            (Scope::Workload, Some(c)) => Scope::Threads {
                tids: vec![c.pid()],
                inherit: self.plan.inherit,
                start_at_exec: at_exec,
            },
            (s, _) => s.clone(),
        };
        let set = self.open_set(&scope)?;
        obs.opened(&set);
        let at_exec = at_exec
            && matches!(
                scope,
                Scope::Threads {
                    start_at_exec: true,
                    ..
                }
            );
        let pid = child.as_ref().map(|c| c.pid().unsigned_abs());
        // As perf: the clock starts when the command is let go.
        let t_start = Instant::now();
        if let Some(c) = &mut child {
            if let Err(e) = c.start() {
                return Ok(Err(RunResult::SpawnFailed(e.exit_code(), e.to_string())));
            }
        }
        Ok(Ok(Started {
            set,
            pid,
            t_start,
            at_exec,
        }))
    }

    /// Run `run_no`: starts it, waits for its end, hands its counts over.
    fn one_run(&self, run_no: u32, obs: &mut dyn Observer) -> anyhow::Result<RunResult> {
        let st = match self.start(obs)? {
            Ok(st) => st,
            Err(failed) => return Ok(failed),
        };
        let delay = self.plan.delay.unwrap_or(0);
        let mut w = Waiting {
            enabled: false,
            t0: st.t_start,
            enable_at: u64::try_from(delay)
                .ok()
                .map(|ms| st.t_start + Duration::from_millis(ms)),
            timeout_at: self.plan.timeout.map(|t| st.t_start + t),
            next_tick: None,
            last_tick: st.t_start,
            ticks: 0,
            prev: Vec::new(),
        };
        if delay != 0 && !self.plan.quiet {
            warn!("Events disabled");
        }
        if st.at_exec || delay == 0 {
            self.enable(&st, &mut w, st.t_start)?;
        }
        let exit = self.wait(&st, &mut w, obs)?;
        let end_time = Instant::now();
        st.set.disable().context("disabling the counters")?;
        let per_unit = st.set.read_units().context("reading the counters")?;
        let elapsed = if w.enabled {
            end_time - w.t0
        } else {
            Duration::ZERO
        };
        let more = self.plan.interval_count.is_none_or(|n| w.ticks < n);
        if self.plan.interval.is_some() && w.enabled && more {
            self.interval(&mut w, obs, per_unit, end_time)?;
        } else if self.plan.interval.is_none() {
            let mut end = run_end(elapsed, exit);
            if self.plan.timeout.is_some() {
                let fired = w.timeout_at.is_none();
                end.code = exit.map_or(0, |e| timeout_status(e.status, fired));
            }
            obs.finished(run_no, &per_unit, end)?;
        }
        Ok(RunResult::Done)
    }

    /// Starts counting now (`-D` elapsed, or at once).
    fn enable(&self, st: &Started, w: &mut Waiting, now: Instant) -> anyhow::Result<()> {
        // Counters that start at exec: only the tool clocks (duration_time) start here.
        st.set.enable().context("enabling the counters")?;
        if self.plan.delay.is_some_and(|d| d != 0) && !self.plan.quiet {
            warn!("Events enabled");
        }
        w.enabled = true;
        w.t0 = now;
        w.last_tick = now;
        w.next_tick = self.plan.interval.map(|i| now + i);
        Ok(())
    }

    /// Waits for the command (or Ctrl-C, the processes' end, the timeout,
    /// the interval count), enabling after `-D` and printing intervals.
    fn wait(
        &self,
        st: &Started,
        w: &mut Waiting,
        obs: &mut dyn Observer,
    ) -> anyhow::Result<Option<ChildExit>> {
        // The command gets a stop signal once, not at every tick.
        let mut child_wait = match st.pid {
            Some(pid) => Some(
                pfmlib_perf::ChildWait::new(pid, self.interrupt)
                    .context("waiting for the command")?,
            ),
            None => None,
        };
        let watched: &[i32] = match self.scope {
            Scope::Tasks(t) | Scope::Threads { tids: t, .. } => t,
            _ => &[],
        };
        loop {
            let now = Instant::now();
            let deadline = [
                w.enable_at.filter(|_| !w.enabled),
                w.next_tick,
                w.timeout_at,
            ]
            .into_iter()
            .flatten()
            .min();
            if let Some(cw) = child_wait.as_mut() {
                let until = deadline.unwrap_or(now + Duration::from_secs(3600));
                if let Some(exit) = cw.until(until).context("waiting for the command")? {
                    report_signal(&self.command[0], exit.status);
                    return Ok(Some(exit));
                }
            } else {
                let step = deadline.map_or(POLL_INTERVAL, |d| d.saturating_duration_since(now));
                std::thread::sleep(step.min(POLL_INTERVAL));
                let gone = !watched.is_empty() && !watched.iter().any(|&p| scope::alive(p));
                if self.interrupted() || gone {
                    return Ok(None);
                }
            }
            let now = Instant::now();
            if !w.enabled && w.enable_at.is_some_and(|t| now >= t) {
                self.enable(st, w, now)?;
            }
            if w.timeout_at.is_some_and(|t| now >= t) {
                w.timeout_at = None;
                match st.pid {
                    Some(pid) => {
                        let _ = pfmlib_perf::terminate_process(pid);
                    }
                    None => return Ok(None),
                }
            }
            if w.next_tick.is_some_and(|t| now >= t) {
                let per_unit = st.set.read_units().context("reading the counters")?;
                self.interval(w, obs, per_unit, now)?;
                if self.plan.interval_count.is_some_and(|n| w.ticks >= n) {
                    w.next_tick = None;
                    if st.pid.is_none() {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// Hands over an interval: the readings `now` and at the last one,
    /// stamped with the time since counting started.
    fn interval(
        &self,
        w: &mut Waiting,
        obs: &mut dyn Observer,
        per_unit: PerUnit,
        now: Instant,
    ) -> anyhow::Result<()> {
        let end = run_end(now - w.last_tick, None);
        obs.interval(now - w.t0, &per_unit, &w.prev, end)?;
        w.prev = per_unit;
        w.last_tick = now;
        w.ticks += 1;
        if let (Some(i), Some(t)) = (self.plan.interval, w.next_tick.as_mut()) {
            while *t <= now {
                *t += i;
            }
        }
        Ok(())
    }
}

/// A run's end: the command's times and status when there was one.
fn run_end(elapsed: Duration, exit: Option<ChildExit>) -> RunEnd {
    RunEnd {
        elapsed,
        user: exit.map_or(Duration::ZERO, |e| e.user),
        sys: exit.map_or(Duration::ZERO, |e| e.sys),
        code: exit.map_or(0, |e| status_code(e.status)),
    }
}

/// The status perf 6 exits with under `--timeout`: the command's own
/// code when it outlived the timeout and then exited by itself (it
/// handled the SIGTERM); 0 when the timeout's SIGTERM ended it
/// (`WEXITSTATUS` of a signalled process), and 0 too when it ended
/// before the timeout (perf's SIGCHLD handler forgets the child, whose
/// status is then never collected).
pub fn timeout_status(st: std::process::ExitStatus, fired: bool) -> u8 {
    match (fired, st.code()) {
        (true, Some(c)) => (c & 0xff) as u8,
        _ => 0,
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    #[test]
    fn timeout_statuses_as_perf_gives_them() {
        let code = |c: i32| ExitStatus::from_raw(c << 8);
        let killed = ExitStatus::from_raw(libc::SIGTERM);
        // The timeout fired: the command's own code, 0 when killed.
        assert_eq!(timeout_status(code(7), true), 7);
        assert_eq!(timeout_status(killed, true), 0);
        // It ended before the timeout: 0, whatever its status.
        assert_eq!(timeout_status(code(3), false), 0);
        assert_eq!(timeout_status(killed, false), 0);
    }
}
