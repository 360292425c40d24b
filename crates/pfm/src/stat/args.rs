//! The arguments of `pfm stat` and their validation: which events, counted
//! how often, printed in which format.

use super::output::Format;
use super::scope;
use anyhow::bail;
use pfmlib_perf::Scope;
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
    /// `:k`, `:ppp`, `:G`, `:H`, `:D`, `:S`, `:P`.
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

/// The default clock of a command, and the one counted system-wide instead
/// (perf's pair: a CPU has no task clock).
pub const TASK_CLOCK_SYSTEM_WIDE: (&str, &str) = ("task-clock", "cpu-clock");

/// What the arguments ask for, validated.
pub struct Request {
    /// Event groups, in the order given.
    pub groups: Vec<Vec<String>>,
    /// Where to count.
    pub scope: Scope,
    /// How to print the counts.
    pub format: Format,
}

impl Args {
    /// Checks the arguments, in the order perf reports their errors: event
    /// lists, the repeat count, the scope, then a repeat without a command.
    pub fn validate(&self) -> anyhow::Result<Request> {
        let groups = self.event_groups()?;
        if self.separator.as_deref() == Some("") {
            bail!("-x '': give a field separator (fields would run together)");
        }
        let scope = scope::resolve(self)?;
        if self.repeat != 1 && self.command.is_empty() {
            bail!("-r repeats a command: give one after --");
        }
        Ok(Request {
            groups,
            scope,
            format: Format::of(self.json, self.separator.as_deref()),
        })
    }

    /// Counting on CPUs rather than tasks (`-a`, `-C`).
    pub fn system_wide(&self) -> bool {
        self.all_cpus || self.cpu.is_some()
    }

    /// The groups of every `-e`, or the default events one per group.
    fn event_groups(&self) -> anyhow::Result<Vec<Vec<String>>> {
        let mut groups: Vec<Vec<String>> = Vec::new();
        for e in &self.events {
            if e.trim().is_empty() {
                bail!("-e '': no event given (leave -e out for the default events)");
            }
            groups.extend(parse_event_list(e).map_err(|m| anyhow::anyhow!("bad -e {e:?}: {m}"))?);
        }
        if groups.is_empty() {
            groups = default_groups(self.system_wide());
        }
        Ok(groups)
    }

    /// What the report's title names: the processes, the CPUs or the command.
    pub fn title(&self) -> String {
        if let Some(p) = &self.pid {
            format!("process id '{p}'")
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
