//! The arguments of `pfm stat`, the default events and the checks that
//! need nothing but the arguments: which events, counted how often, printed
//! in which format. (`request` turns them into what is counted.)

use anyhow::bail;
use std::path::PathBuf;

/// The arguments of `pfm stat`.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  pfm stat -- ls\n  pfm stat -e task-clock,page-faults,cycles -r 5 -- make\n  pfm stat -e '{task-clock,page-faults}' -x, -- ./a.out\n  pfm stat -a -e context-switches -- sleep 1\n\nCounts go to standard error (or -o FILE); the exit status is the command's (128+N when signal N ended it)."
)]
pub struct Args {
    /// Events to count, comma-separated; `{a,b}` is a group. May be repeated.
    /// pfmlib's syntax or perf's: tracepoints `sched:sched_switch` (globs
    /// too), `pmu/event=0x3c,umask=1/`, `msr/tsc/`, `r1a8`, modifiers `:u`,
    /// `:k`, `:ppp`, `:G`, `:H`, `:D`, `:S`, `:P`. An uncore PMU named
    /// without its instance suffix (`uncore_imc/cas_count_read/`) counts
    /// every box, system-wide on its cpumask CPU, as one sum (see --no-merge).
    /// Default: task-clock, context-switches, cpu-migrations, page-faults,
    /// cycles, instructions, branches, branch-misses.
    #[arg(short = 'e', long = "event", value_name = "EVENTS")]
    pub events: Vec<String>,
    /// Count these existing processes (comma-separated pids), all their threads.
    #[arg(short = 'p', long = "pid", value_name = "PIDS", conflicts_with_all = ["all_cpus", "cpu"])]
    pub pid: Option<String>,
    /// Count every task on every online CPU (system-wide).
    #[arg(short = 'a', long = "all-cpus")]
    pub all_cpus: bool,
    /// Count every task on these CPUs only (`0,2-3`); implies system-wide.
    #[arg(short = 'C', long = "cpu", value_name = "CPUS")]
    pub cpu: Option<String>,
    /// Run the command N times; print the mean and its relative standard
    /// deviation. 0: again and again until interrupted, the counts of each
    /// run printed after it (as perf does).
    #[arg(short = 'r', long = "repeat", value_name = "N", default_value_t = 1)]
    pub repeat: u32,
    /// CSV output with this field separator.
    #[arg(
        short = 'x',
        long = "field-separator",
        value_name = "SEP",
        conflicts_with = "json"
    )]
    pub separator: Option<String>,
    /// JSON output: one object per event per run (and one summary object per event with -r).
    #[arg(short = 'j', long = "json")]
    pub json: bool,
    /// Write the counts to FILE instead of standard error.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Say why an event is not supported.
    #[arg(short = 'v', long = "verbose")]
    pub verbose: bool,
    /// Print the counts every MSEC milliseconds (deltas), then stop with the command.
    #[arg(short = 'I', long = "interval-print", value_name = "MSEC", value_parser = clap::value_parser!(u64).range(1..))]
    pub interval: Option<u64>,
    /// With -I: stop printing after N intervals.
    #[arg(long = "interval-count", value_name = "N", requires = "interval", value_parser = clap::value_parser!(u64).range(1..))]
    pub interval_count: Option<u64>,
    /// Count the command (or -p/-t tasks) only, not the tasks they create.
    #[arg(short = 'i', long = "no-inherit")]
    pub no_inherit: bool,
    /// Count these threads (comma-separated tids) only.
    #[arg(short = 't', long = "tid", value_name = "TIDS", conflicts_with_all = ["pid", "all_cpus", "cpu"])]
    pub tid: Option<String>,
    /// One line per thread (`comm-tid`) with -p or -t; with -a, every
    /// thread of the system (those that counted nothing are left out).
    #[arg(long = "per-thread", conflicts_with_all = ["no_aggr", "per_core", "per_socket"])]
    pub per_thread: bool,
    /// One line per CPU (`CPU<n>`), system-wide only.
    #[arg(short = 'A', long = "no-aggr", conflicts_with_all = ["per_core", "per_socket"])]
    pub no_aggr: bool,
    /// One line per core (`S<socket>-D<die>-C<core>` and its CPU count), system-wide only.
    #[arg(long = "per-core", conflicts_with = "per_socket")]
    pub per_core: bool,
    /// One line per socket (`S<socket>` and its CPU count), system-wide only.
    #[arg(long = "per-socket")]
    pub per_socket: bool,
    /// One line per uncore box: an event on a PMU named without its instance
    /// suffix (`uncore_imc/cas_count_read/`, `skx_unc_imc::EVENT`) is
    /// printed for each instance (`uncore_imc_0/cas_count_read/`, ...)
    /// rather than as their sum.
    #[arg(long = "no-merge")]
    pub no_merge: bool,
    /// One line per die (`S<socket>-D<die>` and its CPU count), system-wide only.
    #[arg(long = "per-die", conflicts_with_all = ["no_aggr", "per_core", "per_socket", "per_thread"])]
    pub per_die: bool,
    /// One line per NUMA node (`N<node>` and its CPU count), system-wide only.
    #[arg(long = "per-node", conflicts_with_all = ["no_aggr", "per_core", "per_socket", "per_thread", "per_die"])]
    pub per_node: bool,
    /// Null run: count nothing, only time the command.
    #[arg(short = 'n', long = "null", conflicts_with_all = ["events", "detailed", "metrics"])]
    pub null: bool,
    /// Start counting MSEC milliseconds after the command starts (-1: never).
    #[arg(short = 'D', long = "delay", value_name = "MSEC", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(-1..))]
    pub delay: Option<i64>,
    /// Stop the command (SIGTERM) and print the counts after MSEC milliseconds (at least 10).
    #[arg(long = "timeout", value_name = "MSEC", value_parser = clap::value_parser!(u64).range(10..))]
    pub timeout: Option<u64>,
    /// Detailed: add the L1 data cache and last-level cache load events to the
    /// default set (-dd: also instruction cache and TLBs; -ddd: prefetches).
    #[arg(short = 'd', long = "detailed", action = clap::ArgAction::Count)]
    pub detailed: u8,
    /// Group the digits of counts with the locale's thousands separator (the default).
    #[arg(short = 'B', long = "big-num", overrides_with = "no_big_num")]
    pub big_num: bool,
    /// Print counts without thousands separators.
    #[arg(long = "no-big-num", overrides_with = "big_num")]
    pub no_big_num: bool,
    /// Print nothing (neither counts nor warnings); only the exit status tells.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    /// With -o: append to FILE instead of replacing it.
    #[arg(long = "append")]
    pub append: bool,
    /// Run this shell command before each run (its failure stops pfm stat).
    #[arg(long = "pre", value_name = "CMD")]
    pub pre: Option<String>,
    /// Run this shell command after each run (its failure ends the repeats).
    #[arg(long = "post", value_name = "CMD")]
    pub post: Option<String>,
    /// Count only the tasks of this cgroup (name under the cgroup mount; with -a or -C).
    #[arg(short = 'G', long = "cgroup", value_name = "CGROUP")]
    pub cgroup: Option<String>,
    /// Write the counts to this inherited file descriptor instead of standard error.
    #[arg(long = "log-fd", value_name = "FD", conflicts_with = "output")]
    pub log_fd: Option<i32>,
    /// Derived metrics or metric groups to print, comma-separated (IPC, CPI,
    /// branch_miss_rate, cache_miss_rate, CPUs_utilized, Default...).
    #[arg(short = 'M', long = "metrics", value_name = "METRICS")]
    pub metrics: Vec<String>,
    /// The command to count and its arguments (after `--`), any bytes.
    #[arg(
        trailing_var_arg = true,
        value_name = "COMMAND",
        value_parser = clap::value_parser!(std::ffi::OsString)
    )]
    pub command: Vec<std::ffi::OsString>,
}

/// perf stat's default events (software first, then hardware).
pub const DEFAULT_EVENTS: [&str; 8] = [
    "task-clock",
    "context-switches",
    "cpu-migrations",
    "page-faults",
    "cycles",
    "instructions",
    "branches",
    "branch-misses",
];

/// What `-d`, `-dd` and `-ddd` add to the default events, level by level.
pub const DETAILED_EVENTS: [&[&str]; 3] = [
    &[
        "L1-dcache-loads",
        "L1-dcache-load-misses",
        "LLC-loads",
        "LLC-load-misses",
    ],
    &[
        "L1-icache-loads",
        "L1-icache-load-misses",
        "dTLB-loads",
        "dTLB-load-misses",
        "iTLB-loads",
        "iTLB-load-misses",
    ],
    &["L1-dcache-prefetches", "L1-dcache-prefetch-misses"],
];

/// The default clock of a command, and the one counted system-wide instead
/// (perf's pair: a CPU has no task clock).
pub const TASK_CLOCK_SYSTEM_WIDE: (&str, &str) = ("task-clock", "cpu-clock");

/// The output formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// perf's report for people.
    Text,
    /// `-x SEP`: one line per event, fields separated by SEP.
    Csv(String),
    /// `-j`: one JSON object per event per run, and summaries with `-r`.
    Json,
}

impl Format {
    /// `--json`, else `-x SEP`, else text.
    pub fn of(json: bool, separator: Option<&str>) -> Format {
        match (json, separator) {
            (true, _) => Format::Json,
            (false, Some(sep)) => Format::Csv(sep.to_string()),
            (false, None) => Format::Text,
        }
    }
}

impl Args {
    /// Options that only make sense together, checked as perf does.
    pub fn check_combinations(&self) -> anyhow::Result<()> {
        let per_cpu =
            self.no_aggr || self.per_core || self.per_die || self.per_socket || self.per_node;
        if self.append && self.output.is_none() {
            bail!("--append appends to the file of -o: give -o FILE");
        }
        if per_cpu && !self.system_wide() {
            bail!("-A, --per-core, --per-die, --per-socket and --per-node count per CPU: give -a or -C");
        }
        if self.per_thread && self.pid.is_none() && self.tid.is_none() {
            if !self.all_cpus {
                bail!("--per-thread needs -p PID, -t TID or -a");
            }
            if self.cpu.is_some() {
                bail!("--per-thread -a counts every thread wherever it runs: -C does not apply (perf ignores it); leave it out");
            }
            if self.cgroup.is_some() {
                bail!("--per-thread -a counts every thread: -G (a cgroup's tasks on CPUs) cannot be split by thread");
            }
        }
        if self.cgroup.is_some() && !self.system_wide() {
            bail!("-G counts a cgroup on CPUs: give -a or -C");
        }
        if self.interval.is_some() && self.repeat != 1 {
            bail!("-I and -r cannot be combined: interval counts are per run");
        }
        if self.interval.is_some() && self.timeout.is_some() {
            bail!("--timeout cannot be combined with -I (use --interval-count)");
        }
        Ok(())
    }

    /// Counting on CPUs rather than tasks (`-a`, `-C`).
    pub fn system_wide(&self) -> bool {
        self.all_cpus || self.cpu.is_some()
    }

    /// The groups of every `-e`, or the default events one per group.
    pub fn event_groups(&self) -> anyhow::Result<Vec<Vec<String>>> {
        let mut groups: Vec<Vec<String>> = Vec::new();
        for e in &self.events {
            if e.trim().is_empty() {
                bail!("-e '': no event given (leave -e out for the default events)");
            }
            groups.extend(parse_event_list(e).map_err(|m| anyhow::anyhow!("bad -e {e:?}: {m}"))?);
        }
        if self.null {
            return Ok(Vec::new());
        }
        // As perf: the default set (and -d's additions) only without -e and -M.
        if groups.is_empty() && self.metrics.is_empty() {
            groups = default_groups(self.system_wide());
            for level in DETAILED_EVENTS.iter().take(usize::from(self.detailed)) {
                groups.extend(level.iter().map(|e| vec![e.to_string()]));
            }
        }
        Ok(groups)
    }

    /// What the report's title names: the processes, the CPUs or the command.
    pub fn title(&self) -> String {
        if let Some(p) = &self.pid {
            format!("process id '{p}'")
        } else if let Some(t) = &self.tid {
            format!("thread id '{t}'")
        } else if let Some(c) = &self.cpu {
            format!("'CPU(s) {c}'")
        } else if self.all_cpus {
            "'system wide'".into()
        } else {
            let words: Vec<String> = self
                .command
                .iter()
                .map(|w| w.to_string_lossy().into_owned())
                .collect();
            format!("'{}'", words.join(" "))
        }
    }
}

/// [`DEFAULT_EVENTS`], one group each, with the CPU clock system-wide.
fn default_groups(system_wide: bool) -> Vec<Vec<String>> {
    let (task, cpu) = TASK_CLOCK_SYSTEM_WIDE;
    DEFAULT_EVENTS
        .iter()
        .map(|&e| {
            let e = if system_wide && e == task { cpu } else { e };
            vec![e.to_string()]
        })
        .collect()
}

/// Splits an event list into groups: `a,{b,c},d` → `[[a],[b,c],[d]]`
/// (commas inside a `pmu/.../` event stay in it).
pub fn parse_event_list(s: &str) -> Result<Vec<Vec<String>>, String> {
    pfmlib_perf::perf_syntax::parse_event_list(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_lists() {
        assert_eq!(
            parse_event_list("a,{b,c},d").unwrap(),
            vec![
                vec!["a".to_string()],
                vec!["b".into(), "c".into()],
                vec!["d".into()]
            ]
        );
        assert_eq!(
            parse_event_list("cycles:u").unwrap(),
            vec![vec!["cycles:u".to_string()]]
        );
        assert_eq!(
            parse_event_list(" {a , b} , c ").unwrap(),
            vec![vec!["a".to_string(), "b".into()], vec!["c".into()]]
        );
        assert!(parse_event_list("a,,b").is_err());
        assert!(parse_event_list("{a,b").is_err());
        assert!(parse_event_list("{a,b}x").is_err());
        assert!(parse_event_list("{a,}").is_err());
        assert!(parse_event_list("a}").is_err());
    }

    #[test]
    fn default_events_swap_the_clock_system_wide() {
        let g = default_groups(false);
        assert_eq!(g.len(), DEFAULT_EVENTS.len());
        assert_eq!(g[0], vec!["task-clock".to_string()]);
        assert_eq!(default_groups(true)[0], vec!["cpu-clock".to_string()]);
    }
}
