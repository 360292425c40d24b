//! `pfm stat`: count events for a command, processes or CPUs, in the
//! conventions of `perf stat`.

use anyhow::{bail, Context};
use pfmlib::{Library, Os, Plm};
use pfmlib_perf::{CounterSet, Interrupt, Options, Reading, Scope};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  pfm stat -- ls\n  pfm stat -e task-clock,page-faults,cycles -r 5 -- make\n  pfm stat -e '{task-clock,page-faults}' -x, -- ./a.out\n  pfm stat -a -e context-switches -- sleep 1\n\nCounts go to standard error (or -o FILE); the exit status is the command's (128+N when signal N ended it)."
)]
pub struct Args {
    /// Events to count, comma-separated; `{a,b}` is a group. May be repeated.
    /// Default: task-clock, context-switches, cpu-migrations, page-faults,
    /// cycles, instructions, branches, branch-misses.
    #[arg(short = 'e', long = "event", value_name = "EVENTS")]
    events: Vec<String>,
    /// Count these existing processes (comma-separated pids), all their threads.
    #[arg(short = 'p', long = "pid", value_name = "PIDS", conflicts_with_all = ["all_cpus", "cpu"])]
    pid: Option<String>,
    /// Count every task on every online CPU (system-wide).
    #[arg(short = 'a', long = "all-cpus")]
    all_cpus: bool,
    /// Count every task on these CPUs only (`0,2-3`); implies system-wide.
    #[arg(short = 'C', long = "cpu", value_name = "CPUS")]
    cpu: Option<String>,
    /// Run the command N times; print the mean and its relative standard deviation.
    #[arg(short = 'r', long = "repeat", value_name = "N", default_value_t = 1)]
    repeat: u32,
    /// CSV output with this field separator.
    #[arg(
        short = 'x',
        long = "field-separator",
        value_name = "SEP",
        conflicts_with = "json"
    )]
    separator: Option<String>,
    /// JSON output: one object per event per run (and one summary object per event with -r).
    #[arg(short = 'j', long = "json")]
    json: bool,
    /// Write the counts to FILE instead of standard error.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Say why an event is not supported.
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    /// The command to count and its arguments (after `--`).
    #[arg(trailing_var_arg = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// perf stat's default events (software first, then hardware).
const DEFAULT_EVENTS: [&str; 8] = [
    "task-clock",
    "context-switches",
    "cpu-migrations",
    "page-faults",
    "cycles",
    "instructions",
    "branches",
    "branch-misses",
];

/// Splits an event list into groups: `a,{b,c},d` → `[[a],[b,c],[d]]`.
pub fn parse_event_list(s: &str) -> Result<Vec<Vec<String>>, String> {
    let mut groups = Vec::new();
    let mut rest = s.trim();
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('{') {
            let end = inner
                .find('}')
                .ok_or_else(|| format!("unclosed group in {s:?}: missing '}}'"))?;
            let members: Vec<String> = inner[..end]
                .split(',')
                .map(|e| e.trim().to_string())
                .collect();
            if members.iter().any(String::is_empty) {
                return Err(format!("empty event in group {{{}}}", &inner[..end]));
            }
            groups.push(members);
            rest = inner[end + 1..].trim_start();
            match rest.strip_prefix(',') {
                Some(r) => rest = r.trim_start(),
                None if rest.is_empty() => {}
                None => {
                    return Err(format!(
                        "unexpected {rest:?} after a group: separate events with ','"
                    ))
                }
            }
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let ev = rest[..end].trim();
            if ev.is_empty() {
                return Err(format!("empty event name in {s:?}"));
            }
            if ev.contains(['{', '}']) {
                return Err(format!("misplaced brace in {ev:?}"));
            }
            groups.push(vec![ev.to_string()]);
            rest = rest.get(end + 1..).unwrap_or("").trim_start();
        }
    }
    Ok(groups)
}

/// Parses a CPU list `0,2-3`.
pub fn parse_cpu_list(s: &str) -> Result<Vec<u32>, String> {
    let mut v = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let num = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| format!("bad CPU number {t:?} in {s:?}"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b || b - a > 65536 {
                    return Err(format!("bad CPU range {part:?}"));
                }
                v.extend(a..=b);
            }
            None => v.push(num(part)?),
        }
    }
    if v.is_empty() {
        return Err(format!("no CPU in {s:?}"));
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

fn online_cpus() -> Vec<u32> {
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|s| parse_cpu_list(s.trim()).ok())
        .unwrap_or_else(|| {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            (0..n as u32).collect()
        })
}

/// Threads of process `pid` (from /proc), or the pid alone if it has no task list.
fn threads_of(pid: i32) -> anyhow::Result<Vec<i32>> {
    if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
        bail!("no such process {pid}");
    }
    let mut tids: Vec<i32> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    if tids.is_empty() {
        tids.push(pid);
    }
    tids.sort_unstable();
    Ok(tids)
}

/// What kind of count an event is, for units and derived metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// task-clock / cpu-clock: nanoseconds, printed as msec.
    Clock,
    /// Software event counted per second of task-clock.
    SwRate,
    Cycles,
    Instructions,
    Branches,
    BranchMisses,
    Other,
}

fn classify(lib: &Library, ev: &str) -> Kind {
    let Some(p) = lib
        .encode(ev, Plm::DEFAULT, Os::PerfEvent)
        .ok()
        .and_then(|e| e.perf)
    else {
        return Kind::Other;
    };
    match (p.type_, p.config) {
        (1, 0) | (1, 1) => Kind::Clock,
        (1, 2..=6) => Kind::SwRate,
        (0, 0) => Kind::Cycles,
        (0, 1) => Kind::Instructions,
        (0, 4) => Kind::Branches,
        (0, 5) => Kind::BranchMisses,
        _ => Kind::Other,
    }
}

/// Running mean and variance (Welford).
#[derive(Debug, Clone, Copy, Default)]
struct Stats {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Stats {
    fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }
    /// Sample variance.
    fn variance(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }
    /// Standard deviation of the mean, in percent of the mean (perf's `( +- x% )`).
    fn rel_stddev_pct(&self) -> f64 {
        if self.n < 2 || self.mean == 0.0 {
            return 0.0;
        }
        100.0 * (self.variance() / self.n as f64).sqrt() / self.mean.abs()
    }
}

/// One event across runs.
#[derive(Debug, Clone)]
struct EventStats {
    name: String,
    kind: Kind,
    /// `Some(reason)` when it could not be opened.
    unsupported: Option<String>,
    value: Stats,
    enabled: Stats,
    running: Stats,
    /// Runs where it opened but never ran.
    not_counted: u64,
}

/// How one run ended.
#[derive(Debug, Clone, Copy)]
struct RunEnd {
    elapsed: Duration,
    user: Duration,
    sys: Duration,
    /// The command's exit status as a shell reports it.
    code: u8,
}

fn status_code(st: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    if let Some(c) = st.code() {
        return (c & 0xff) as u8;
    }
    match st.signal() {
        Some(s) => (128 + (s & 0x7f)) as u8,
        None => 1,
    }
}

struct Printer {
    out: Box<dyn Write>,
    sep: Option<String>,
    json: bool,
}

fn counts_line_metric(
    ev: &EventStats,
    all: &[EventStats],
    elapsed_ns: f64,
) -> Option<(f64, String)> {
    let mean_of = |k: Kind| {
        all.iter()
            .find(|e| e.kind == k && e.unsupported.is_none() && e.value.n > 0)
            .map(|e| e.value.mean)
    };
    let v = ev.value.mean;
    let rate = |v: f64| -> Option<(f64, String)> {
        let clock = mean_of(Kind::Clock)?;
        if clock <= 0.0 {
            return None;
        }
        let per_sec = v * 1e9 / clock;
        let (d, u) = if per_sec >= 1e9 {
            (1e9, "G/sec")
        } else if per_sec >= 1e6 {
            (1e6, "M/sec")
        } else if per_sec >= 1e3 {
            (1e3, "K/sec")
        } else {
            (1.0, "/sec")
        };
        Some((per_sec / d, u.to_string()))
    };
    match ev.kind {
        Kind::Clock if elapsed_ns > 0.0 => Some((v / elapsed_ns, "CPUs utilized".into())),
        Kind::SwRate | Kind::Branches => rate(v),
        Kind::Cycles => {
            let clock = mean_of(Kind::Clock)?;
            (clock > 0.0).then(|| (v / clock, "GHz".into()))
        }
        Kind::Instructions => {
            let cyc = mean_of(Kind::Cycles)?;
            (cyc > 0.0).then(|| (v / cyc, "insn per cycle".into()))
        }
        Kind::BranchMisses => {
            let br = mean_of(Kind::Branches)?;
            (br > 0.0).then(|| (100.0 * v / br, "of all branches".into()))
        }
        _ => None,
    }
}

impl EventStats {
    fn counted(&self) -> bool {
        self.unsupported.is_none() && self.value.n > 0
    }
    fn pct_running(&self) -> f64 {
        if self.enabled.mean > 0.0 {
            (100.0 * self.running.mean / self.enabled.mean).min(100.0)
        } else {
            100.0
        }
    }
    fn value_text(&self) -> String {
        if self.unsupported.is_some() {
            "<not supported>".into()
        } else if !self.counted() {
            "<not counted>".into()
        } else if self.kind == Kind::Clock {
            format!("{:.2}", self.value.mean / 1e6)
        } else {
            format!("{:.0}", self.value.mean)
        }
    }
    fn unit(&self) -> &'static str {
        if self.kind == Kind::Clock {
            "msec"
        } else {
            ""
        }
    }
}

fn fmt_metric(m: &Option<(f64, String)>, kind: Kind) -> String {
    match m {
        Some((v, u)) if kind == Kind::BranchMisses => format!("# {v:>7.2}% {u}"),
        Some((v, u)) => format!("# {v:>8.3} {u}"),
        None => String::new(),
    }
}

/// One event's line of the text report, as perf prints it.
fn text_line(ev: &EventStats, all: &[EventStats], elapsed_ns: f64, runs: u32) -> String {
    let metric = if ev.counted() {
        counts_line_metric(ev, all, elapsed_ns)
    } else {
        None
    };
    let mut line = format!(
        "{:>18} {:<4} {:<32} {:<28}",
        ev.value_text(),
        ev.unit(),
        ev.name,
        fmt_metric(&metric, ev.kind)
    );
    if ev.counted() {
        if runs > 1 {
            line.push_str(&format!("  ( +- {:>5.2}% )", ev.value.rel_stddev_pct()));
        }
        let pct = ev.pct_running();
        if pct < 100.0 {
            line.push_str(&format!("  ({pct:.2}%)"));
        }
    }
    line.trim_end().to_string()
}

impl Printer {
    fn text_report(
        &mut self,
        title: &str,
        runs: u32,
        events: &[EventStats],
        elapsed: &Stats,
        last: Option<RunEnd>,
        workload: bool,
    ) -> std::io::Result<()> {
        let o = &mut self.out;
        writeln!(o)?;
        if runs > 1 {
            writeln!(o, " Performance counter stats for {title} ({runs} runs):")?;
        } else {
            writeln!(o, " Performance counter stats for {title}:")?;
        }
        writeln!(o)?;
        for ev in events {
            writeln!(o, "{}", text_line(ev, events, elapsed.mean, runs))?;
        }
        writeln!(o)?;
        let secs = elapsed.mean / 1e9;
        if runs > 1 {
            let sd = (elapsed.variance() / elapsed.n.max(1) as f64).sqrt() / 1e9;
            writeln!(
                o,
                "{secs:>18.9} +- {sd:.9} seconds time elapsed  ( +- {:>5.2}% )",
                elapsed.rel_stddev_pct()
            )?;
        } else {
            writeln!(o, "{secs:>18.9} seconds time elapsed")?;
        }
        if let (Some(end), true, 1) = (last, workload, runs) {
            writeln!(o)?;
            writeln!(o, "{:>18.9} seconds user", end.user.as_secs_f64())?;
            writeln!(o, "{:>18.9} seconds sys", end.sys.as_secs_f64())?;
        }
        writeln!(o)?;
        writeln!(o)?;
        Ok(())
    }

    /// perf's CSV: value, unit, event, [variance,] runtime, pcnt, metric value, metric unit.
    fn csv_report(
        &mut self,
        runs: u32,
        events: &[EventStats],
        elapsed: &Stats,
    ) -> std::io::Result<()> {
        let sep = self.sep.clone().unwrap_or_else(|| ",".into());
        for ev in events {
            let metric = if ev.counted() {
                counts_line_metric(ev, events, elapsed.mean)
            } else {
                None
            };
            let mut f: Vec<String> = vec![ev.value_text(), ev.unit().into(), ev.name.clone()];
            if runs > 1 {
                f.push(format!("{:.2}%", ev.value.rel_stddev_pct()));
            }
            f.push(format!(
                "{:.0}",
                if ev.counted() { ev.running.mean } else { 0.0 }
            ));
            f.push(format!(
                "{:.2}",
                if ev.counted() {
                    ev.pct_running()
                } else {
                    100.0
                }
            ));
            match metric {
                Some((v, u)) => {
                    f.push(format!("{v:.3}"));
                    f.push(u);
                }
                None => {
                    f.push(String::new());
                    f.push(String::new());
                }
            }
            writeln!(self.out, "{}", f.join(&sep))?;
        }
        Ok(())
    }

    fn json_event(
        ev: &EventStats,
        reading: Option<&Reading>,
        all: &[EventStats],
        elapsed_ns: f64,
    ) -> Value {
        let mut v = json!({
            "event": ev.name,
            "unit": ev.unit(),
        });
        if let Some(reason) = &ev.unsupported {
            v["counter-value"] = "<not supported>".into();
            v["status"] = "not supported".into();
            v["error"] = reason.clone().into();
            v["event-runtime"] = 0.into();
            v["pcnt-running"] = 100.0.into();
            return v;
        }
        match reading.and_then(|r| r.scaled().map(|s| (r, s))) {
            Some((r, scaled)) => {
                v["counter-value"] = if ev.kind == Kind::Clock {
                    json!(scaled as f64 / 1e6)
                } else {
                    json!(scaled)
                };
                v["raw-value"] = r.value.into();
                v["status"] = "counted".into();
                v["time-enabled"] = r.time_enabled.into();
                v["time-running"] = r.time_running.into();
                v["event-runtime"] = r.time_running.into();
                v["pcnt-running"] =
                    json!(100.0 * r.time_running as f64 / r.time_enabled.max(1) as f64);
                let single = EventStats {
                    value: {
                        let mut s = Stats::default();
                        s.push(scaled as f64);
                        s
                    },
                    ..ev.clone()
                };
                if let Some((m, u)) = counts_line_metric(&single, all, elapsed_ns) {
                    v["metric-value"] = json!(m);
                    v["metric-unit"] = u.into();
                }
            }
            None => {
                v["counter-value"] = "<not counted>".into();
                v["status"] = "not counted".into();
                v["event-runtime"] = 0.into();
                v["pcnt-running"] = 0.0.into();
            }
        }
        v
    }
}

fn title(a: &Args) -> String {
    if let Some(p) = &a.pid {
        format!("process id '{p}'")
    } else if let Some(c) = &a.cpu {
        format!("'CPU(s) {c}'")
    } else if a.all_cpus {
        "'system wide'".into()
    } else {
        format!("'{}'", a.command.join(" "))
    }
}

pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    // What to count.
    let mut groups: Vec<Vec<String>> = Vec::new();
    for e in &a.events {
        groups.extend(parse_event_list(e).map_err(|m| anyhow::anyhow!("bad -e {e:?}: {m}"))?);
    }
    let system_wide = a.all_cpus || a.cpu.is_some();
    if groups.is_empty() {
        groups = DEFAULT_EVENTS
            .iter()
            .map(|e| {
                let e = if system_wide && *e == "task-clock" {
                    "cpu-clock"
                } else {
                    e
                };
                vec![e.to_string()]
            })
            .collect();
    }
    if a.repeat == 0 {
        bail!("-r needs a count of 1 or more");
    }
    // Where.
    let scope = if let Some(p) = &a.pid {
        let mut tids = Vec::new();
        for s in p.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let pid: i32 = s.parse().map_err(|_| anyhow::anyhow!("bad pid {s:?}"))?;
            if pid <= 0 {
                bail!("bad pid {pid}");
            }
            tids.extend(threads_of(pid)?);
        }
        if tids.is_empty() {
            bail!("-p needs at least one pid");
        }
        Scope::Tasks(tids)
    } else if system_wide {
        let online = online_cpus();
        let cpus = match &a.cpu {
            Some(c) => parse_cpu_list(c).map_err(|m| anyhow::anyhow!("bad -C: {m}"))?,
            None => online.clone(),
        };
        if let Some(bad) = cpus.iter().find(|c| !online.contains(c)) {
            bail!(
                "CPU {bad} is not online (online CPUs: {})",
                fmt_cpus(&online)
            );
        }
        Scope::Cpus(cpus)
    } else if a.command.is_empty() {
        bail!("nothing to count: give a command (pfm stat [OPTIONS] -- COMMAND [ARGS]), -p PID, -a or -C CPUS");
    } else {
        Scope::Workload
    };
    if a.repeat > 1 && a.command.is_empty() {
        bail!("-r repeats a command: give one after --");
    }
    let mut printer = Printer {
        out: match &a.output {
            Some(p) => Box::new(std::io::BufWriter::new(
                std::fs::File::create(p)
                    .with_context(|| format!("cannot create {}", p.display()))?,
            )),
            None => Box::new(std::io::stderr()),
        },
        sep: a.separator.clone(),
        json: a.json,
    };
    let interrupt = Interrupt::install().ok();
    let opts = Options::default().user_only_fallback(true).user_page(false);
    let names: Vec<String> = groups.iter().flatten().cloned().collect();
    let mut stats: Vec<EventStats> = names
        .iter()
        .map(|n| EventStats {
            name: n.clone(),
            kind: classify(lib, n),
            unsupported: None,
            value: Stats::default(),
            enabled: Stats::default(),
            running: Stats::default(),
            not_counted: 0,
        })
        .collect();
    let mut elapsed = Stats::default();
    let mut last: Option<RunEnd> = None;
    let mut runs_done = 0u32;
    for run_no in 1..=a.repeat {
        let (set, end) = match one_run(lib, &a, &groups, &scope, &opts, interrupt)? {
            RunResult::Done(set, end) => (set, end),
            RunResult::SpawnFailed(code, msg) => {
                eprintln!("pfm stat: {msg}");
                return Ok(ExitCode::from(code));
            }
        };
        for (i, st) in stats.iter_mut().enumerate() {
            if let Some(e) = set.error(i) {
                if st.unsupported.is_none() {
                    if a.verbose || matches!(e, pfmlib_perf::Error::GroupUnschedulable { .. }) {
                        eprintln!("pfm stat: {e}");
                    }
                    st.unsupported = Some(e.to_string());
                }
            } else if set.user_only(i) && !st.name.ends_with(":u") {
                st.name.push_str(":u");
            }
        }
        let readings = set.read().context("reading the counters")?;
        drop(set);
        for (i, r) in readings.iter().enumerate() {
            if let Some(r) = r {
                match r.scaled() {
                    Some(v) => {
                        stats[i].value.push(v as f64);
                        stats[i].enabled.push(r.time_enabled as f64);
                        stats[i].running.push(r.time_running as f64);
                    }
                    None => stats[i].not_counted += 1,
                }
            }
        }
        elapsed.push(end.elapsed.as_nanos() as f64);
        if printer.json {
            for (i, ev) in stats.iter().enumerate() {
                let mut v = Printer::json_event(
                    ev,
                    readings[i].as_ref(),
                    &stats,
                    end.elapsed.as_nanos() as f64,
                );
                v["run"] = run_no.into();
                v["elapsed-ns"] = (end.elapsed.as_nanos() as u64).into();
                writeln!(printer.out, "{v}")?;
            }
        }
        last = Some(end);
        runs_done = run_no;
        if interrupt.is_some_and(|i| i.received()) {
            break;
        }
    }
    // Runs where an event never ran do not enter its mean; all of them: <not counted>.
    if printer.json {
        if runs_done > 1 {
            for ev in &stats {
                let mut v = json!({"event": ev.name, "summary": true, "runs": runs_done, "unit": ev.unit()});
                if ev.counted() {
                    let scale = if ev.kind == Kind::Clock { 1e6 } else { 1.0 };
                    v["counter-value"] = json!(ev.value.mean / scale);
                    v["variance"] = json!(ev.value.variance() / (scale * scale));
                    v["stddev-pct"] = json!(ev.value.rel_stddev_pct());
                    v["pcnt-running"] = json!(ev.pct_running());
                    v["status"] = "counted".into();
                } else {
                    v["counter-value"] = ev.value_text().into();
                    v["status"] = if ev.unsupported.is_some() {
                        "not supported"
                    } else {
                        "not counted"
                    }
                    .into();
                }
                writeln!(printer.out, "{v}")?;
            }
        }
    } else if printer.sep.is_some() {
        printer.csv_report(runs_done, &stats, &elapsed)?;
    } else {
        let t = title(&a);
        printer.text_report(&t, runs_done, &stats, &elapsed, last, !a.command.is_empty())?;
    }
    printer.out.flush()?;
    Ok(ExitCode::from(last.map_or(0, |e| e.code)))
}

fn fmt_cpus(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// True while task `pid` exists and has not exited (a zombie has).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        // The state follows the parenthesised command name.
        let state = s
            .rfind(')')
            .and_then(|i| s[i + 1..].split_whitespace().next());
        !matches!(state, Some("Z") | Some("X") | None)
    })
}

enum RunResult {
    Done(CounterSet, RunEnd),
    /// Exit status and message.
    SpawnFailed(u8, String),
}

/// Opens the counters; errors other than "not supported" (permissions,
/// paranoid, bad event strings, missing processes) stop everything, as in perf.
fn open_set(
    lib: &Library,
    groups: &[Vec<String>],
    scope: &Scope,
    opts: &Options,
) -> anyhow::Result<CounterSet> {
    let set = CounterSet::open(lib, groups, scope, opts);
    for i in 0..set.names().len() {
        if let Some(e) = set.error(i) {
            if !e.is_not_supported() {
                bail!("{e}");
            }
        }
    }
    Ok(set)
}

fn one_run(
    lib: &Library,
    a: &Args,
    groups: &[Vec<String>],
    scope: &Scope,
    opts: &Options,
    interrupt: Option<Interrupt>,
) -> anyhow::Result<RunResult> {
    if a.command.is_empty() {
        // -p / -a / -C without a command: count until Ctrl-C (or the processes end).
        let set = open_set(lib, groups, scope, opts)?;
        let t0 = Instant::now();
        set.enable().context("enabling the counters")?;
        let pids: Vec<i32> = match (&a.pid, scope) {
            (Some(_), Scope::Tasks(t)) => t.clone(),
            _ => Vec::new(),
        };
        loop {
            std::thread::sleep(Duration::from_millis(20));
            if interrupt.is_some_and(|i| i.received()) {
                break;
            }
            if !pids.is_empty() && !pids.iter().any(|&p| alive(p)) {
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
        return Ok(RunResult::Done(set, end));
    }
    let mut cmd = std::process::Command::new(&a.command[0]);
    cmd.args(&a.command[1..]);
    // Workload: inherited counters of this thread that start at the child's
    // exec; -p/-a/-C: started now, while the command runs.
    let set = open_set(lib, groups, scope, opts)?;
    set.enable().context("enabling the counters")?;
    let t0 = Instant::now();
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            return Ok(RunResult::SpawnFailed(
                code,
                format!("cannot run {:?}: {e}", a.command[0]),
            ));
        }
    };
    let exit = pfmlib_perf::wait_child(child.id(), interrupt).context("waiting for the command")?;
    let elapsed = t0.elapsed();
    set.disable().context("disabling the counters")?;
    Ok(RunResult::Done(
        set,
        RunEnd {
            elapsed,
            user: exit.user,
            sys: exit.sys,
            code: status_code(exit.status),
        },
    ))
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
        assert!(parse_event_list("a,,b").is_err());
        assert!(parse_event_list("{a,b").is_err());
        assert!(parse_event_list("{a,b}x").is_err());
        assert!(parse_event_list("{a,}").is_err());
        assert!(parse_event_list("a}").is_err());
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0,2-3,2").unwrap(), vec![0, 2, 3]);
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
        assert!(parse_cpu_list("").is_err());
        assert!(parse_cpu_list("0-4294967295").is_err());
    }

    fn ev(name: &str, kind: Kind, values: &[f64], enabled: f64, running: f64) -> EventStats {
        let mut e = EventStats {
            name: name.into(),
            kind,
            unsupported: None,
            value: Stats::default(),
            enabled: Stats::default(),
            running: Stats::default(),
            not_counted: 0,
        };
        for v in values {
            e.value.push(*v);
            e.enabled.push(enabled);
            e.running.push(running);
        }
        e
    }

    #[test]
    fn text_lines() {
        let clock = ev("task-clock", Kind::Clock, &[2_000_000.0], 10.0, 10.0);
        let pf = ev("page-faults", Kind::SwRate, &[100.0], 10.0, 10.0);
        let mux = ev("cycles", Kind::Cycles, &[4_000_000.0], 100.0, 25.0);
        let mut unsup = ev("instructions", Kind::Instructions, &[], 0.0, 0.0);
        unsup.unsupported = Some("no PMU".into());
        let never = ev("branches", Kind::Branches, &[], 0.0, 0.0);
        let all = vec![
            clock.clone(),
            pf.clone(),
            mux.clone(),
            unsup.clone(),
            never.clone(),
        ];
        assert_eq!(
            text_line(&clock, &all, 4e6, 1),
            "              2.00 msec task-clock                       #    0.500 CPUs utilized"
        );
        assert_eq!(
            text_line(&pf, &all, 4e6, 1),
            "               100      page-faults                      #   50.000 K/sec"
        );
        let l = text_line(&mux, &all, 4e6, 1);
        assert!(
            l.contains("#    2.000 GHz") && l.ends_with("  (25.00%)"),
            "{l}"
        );
        assert_eq!(
            text_line(&unsup, &all, 4e6, 1),
            "   <not supported>      instructions"
        );
        assert_eq!(
            text_line(&never, &all, 4e6, 1),
            "     <not counted>      branches"
        );
        let rep = ev("page-faults", Kind::SwRate, &[10.0, 12.0, 14.0], 1.0, 1.0);
        assert!(text_line(&rep, std::slice::from_ref(&rep), 1.0, 3).ends_with("( +-  9.62% )"));
    }

    #[test]
    fn stats_like_perf() {
        let mut s = Stats::default();
        for x in [10.0, 12.0, 14.0] {
            s.push(x);
        }
        assert_eq!(s.mean, 12.0);
        assert_eq!(s.variance(), 4.0);
        // sqrt(4/3)/12 = 9.62%
        assert!((s.rel_stddev_pct() - 9.6225).abs() < 1e-3);
    }
}
