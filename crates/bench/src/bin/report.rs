//! Runs every benchmark and prints the table: figure, libpfm4, pfmlib, ratio.
//!
//! ```console
//! $ cargo run -p pfm-bench --release --bin report
//! ```
//!
//! 1. `cargo bench -p pfm-bench` (criterion: start-up, lookup, encoding,
//!    listing; both libraries in each process, same inputs);
//! 2. the probe binaries, one library each: peak resident memory of a process
//!    that initialises and lists everything, and start-up from exec;
//! 3. the table, as Markdown, with the machine it ran on.
//!
//! 4. the bulk check, whole processes: `pfm check --json --os none --input
//!    FILE` (release build) against `crates/bench/c/check_loop.c`, compiled
//!    here with `cc -O2` against libpfm4, on the same 10 passes of the nhm
//!    sweep (`pfm_bench::bulk`); both outputs compared line for line.
//!
//! 5. the C interface: pfmlib's `libpfm.so.4` (crates/libpfm, built here in
//!    release) against libpfm4's, both called by `crates/bench/c/capi_bench.c`
//!    (compiled here with `cc -O2`), one process per library, alternating
//!    (`pfm_bench::capi`).
//!
//! Options: `--no-bench` reuses the last criterion results; `--seconds N`
//! sets each benchmark's measurement time (default 2); `--rounds N` runs the
//! criterion benches N times and keeps each figure's best median (default 2);
//! `--runs N` sets how many processes each probe starts (default 30);
//! `--bulk-runs N` how many times each bulk-check process runs (default 11);
//! `--only-bulk` measures the bulk check alone (no criterion, no probes);
//! `--capi-runs N` sets how many processes each library's C-interface
//! runs start (default 7); `--only-capi` measures the C interface alone.

use pfm_bench::{bulk, capi};
use pfm_bench::{encode_modifiers, encode_umasks, event_names, libpfm4, nehalem_host, shared_pmus};
use pfmlib::{Library, Os};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

struct Opts {
    bench: bool,
    seconds: f64,
    runs: usize,
    rounds: usize,
    bulk_runs: usize,
    only_bulk: bool,
    capi_runs: usize,
    only_capi: bool,
}

fn parse_args() -> Result<Opts, String> {
    let mut o = Opts {
        bench: true,
        seconds: 2.0,
        runs: 30,
        rounds: 2,
        bulk_runs: 11,
        only_bulk: false,
        capi_runs: 7,
        only_capi: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--no-bench" => o.bench = false,
            "--only-bulk" => o.only_bulk = true,
            "--only-capi" => o.only_capi = true,
            "--capi-runs" => {
                o.capi_runs = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|v: &usize| *v > 0)
                    .ok_or("--capi-runs needs a positive integer")?
            }
            "--bulk-runs" => {
                o.bulk_runs = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|v: &usize| *v > 0)
                    .ok_or("--bulk-runs needs a positive integer")?
            }
            "--seconds" => {
                o.seconds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|v: &f64| *v > 0.0)
                    .ok_or("--seconds needs a positive number")?
            }
            "--runs" => {
                o.runs = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|v: &usize| *v > 0)
                    .ok_or("--runs needs a positive integer")?
            }
            "--rounds" => {
                o.rounds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|v: &usize| *v > 0)
                    .ok_or("--rounds needs a positive integer")?
            }
            "-h" | "--help" => {
                return Err(
                    "usage: report [--no-bench] [--seconds N] [--rounds N] [--runs N] \
                     [--bulk-runs N] [--only-bulk] [--capi-runs N] [--only-capi]\n\
                     runs the pfmlib / libpfm4 benchmarks and prints the table"
                        .into(),
                )
            }
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    Ok(o)
}

/// The groups whose benches also measure a paired ratio.
const PAIRED: &[&str] = &[
    "lookup_prefixed",
    "lookup_unprefixed",
    "lookup_missing",
    "encode_none",
    "encode_perf_ext",
    "encode_modifiers_none",
    "encode_modifiers_perf_ext",
    "listing",
];

/// The paired ratio a bench left for `group` (see `pfm_bench::paired`).
fn paired_ratio(criterion: &Path, group: &str) -> Option<f64> {
    let text = std::fs::read_to_string(criterion.join(group).join("paired.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["ratio"].as_f64()
}

/// Every criterion benchmark the table uses: (group, function).
const FIGURES: &[(&str, &str)] = &[
    ("initialize", "libpfm4"),
    ("startup", "libpfm4"),
    ("startup", "pfmlib"),
    ("lookup_prefixed", "libpfm4"),
    ("lookup_prefixed", "pfmlib"),
    ("lookup_unprefixed", "libpfm4"),
    ("lookup_unprefixed", "pfmlib"),
    ("lookup_missing", "libpfm4"),
    ("lookup_missing", "pfmlib"),
    ("encode_none", "libpfm4"),
    ("encode_none", "pfmlib"),
    ("encode_perf_ext", "libpfm4"),
    ("encode_perf_ext", "pfmlib"),
    ("encode_modifiers_none", "libpfm4"),
    ("encode_modifiers_none", "pfmlib"),
    ("encode_modifiers_perf_ext", "libpfm4"),
    ("encode_modifiers_perf_ext", "pfmlib"),
    ("listing", "libpfm4"),
    ("listing", "pfmlib"),
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/bench is two levels below the workspace")
        .to_path_buf()
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|p| if p.is_absolute() { p } else { root.join(p) })
        .unwrap_or_else(|| root.join("target"))
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(workspace_root());
    c
}

fn run(mut c: Command, what: &str) -> Result<(), String> {
    let st = c.status().map_err(|e| format!("cannot run {what}: {e}"))?;
    if st.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({st})"))
    }
}

/// Median time of a criterion benchmark, in nanoseconds per iteration.
fn estimate(criterion: &Path, group: &str, func: &str) -> Result<f64, String> {
    let p = criterion.join(group).join(func).join("new/estimates.json");
    let text = std::fs::read_to_string(&p)
        .map_err(|e| format!("{}: {e} (run without --no-bench to measure)", p.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
    v["median"]["point_estimate"]
        .as_f64()
        .ok_or_else(|| format!("{}: no median", p.display()))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs a probe once; its standard output.
fn probe(bin: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(bin)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} {args:?} failed ({})",
            bin.display(),
            out.status
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Median wall time (ns) from spawning a probe with `mode` to its exit, both
/// probes alternating.
fn exec_times(bins: [&Path; 2], mode: &str, runs: usize) -> Result<[f64; 2], String> {
    let mut t = [Vec::new(), Vec::new()];
    for _ in 0..runs {
        for (k, bin) in bins.iter().enumerate() {
            let start = Instant::now();
            let st = Command::new(bin)
                .arg(mode)
                .stdout(Stdio::null())
                .status()
                .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
            t[k].push(start.elapsed().as_nanos() as f64);
            if !st.success() {
                return Err(format!("{} {mode} failed ({st})", bin.display()));
            }
        }
    }
    Ok([median(&mut t[0]), median(&mut t[1])])
}

/// Peak RSS (KiB) of `probe list PMUS`, median of three runs, and what it listed.
fn peak_rss(bin: &Path, pmus: &str) -> Result<(f64, serde_json::Value), String> {
    let mut rss = Vec::new();
    let mut last = serde_json::Value::Null;
    for _ in 0..3 {
        let out = probe(bin, &["list", pmus])?;
        let v: serde_json::Value = serde_json::from_str(out.trim())
            .map_err(|e| format!("{}: bad output {out:?}: {e}", bin.display()))?;
        rss.push(
            v["peak_rss_kib"]
                .as_f64()
                .ok_or_else(|| format!("{}: no peak_rss_kib", bin.display()))?,
        );
        last = v;
    }
    Ok((median(&mut rss), last))
}

fn fmt_time(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// A ratio with enough digits to tell it from a target it is close to.
fn fmt_ratio(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.2}×")
    } else {
        format!("{r:.1}×")
    }
}

struct Row {
    figure: String,
    libpfm4: String,
    pfmlib: String,
    ratio: String,
    target: &'static str,
    met: String,
}

/// A timed row: criterion's times per item, and the ratio libpfm4 / pfmlib
/// (the paired one when there is one, else the ratio of the times) against a
/// minimum.
fn timed(
    figure: String,
    theirs: f64,
    ours: f64,
    per: f64,
    paired: Option<f64>,
    target: Option<f64>,
) -> Row {
    let ratio = paired.unwrap_or(theirs / ours);
    Row {
        figure,
        libpfm4: fmt_time(theirs / per),
        pfmlib: fmt_time(ours / per),
        ratio: fmt_ratio(ratio),
        target: match target {
            Some(t) if t >= 20.0 => "≥ 20×",
            Some(_) => "≥ 5×",
            None => "",
        },
        met: match target {
            Some(t) if ratio >= t => "yes",
            Some(_) => "**no**",
            None => "",
        }
        .into(),
    }
}

fn first_line(path: &str, key: &str) -> Option<String> {
    let s = std::fs::read_to_string(path).ok()?;
    let l = s.lines().find(|l| l.starts_with(key))?;
    Some(l.split_once(':')?.1.trim().to_string())
}

fn machine() -> String {
    let cpu = first_line("/proc/cpuinfo", "model name").unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem = first_line("/proc/meminfo", "MemTotal")
        .and_then(|m| m.split_whitespace().next()?.parse::<u64>().ok())
        .map_or("?".into(), |k| format!("{:.0} GiB", k as f64 / 1048576.0));
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map_or("?".into(), |s| s.trim().to_string());
    let rustc = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("-V")
        .output()
        .ok()
        .map_or("?".into(), |o| {
            String::from_utf8_lossy(&o.stdout).trim().to_string()
        });
    let libpfm = std::fs::read_to_string("/proc/self/maps")
        .ok()
        .and_then(|m| {
            m.lines()
                .filter_map(|l| l.split_whitespace().nth(5))
                .find(|p| p.contains("libpfm.so"))
                .map(|p| {
                    std::fs::canonicalize(p).map_or(p.to_string(), |c| c.display().to_string())
                })
        })
        .or_else(|| {
            let p = std::fs::canonicalize(bulk::LIBPFM_SO).ok()?;
            Some(p.display().to_string())
        })
        .unwrap_or_else(|| "libpfm.so.4".into());
    format!("{cpu}, {cores} CPUs, {mem} RAM; Linux {kernel}; {rustc}; libpfm4: {libpfm}")
}

fn main() -> ExitCode {
    match real_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("report: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The printed result: rows, with lines before and after the table.
#[derive(Default)]
struct Table {
    header: Vec<String>,
    rows: Vec<Row>,
    notes: Vec<String>,
}

impl Table {
    fn print(&self) {
        println!("Machine: {}", machine());
        for h in &self.header {
            println!("{h}");
        }
        println!();
        println!("| figure | libpfm4 | pfmlib | ratio libpfm4/pfmlib | target | met |");
        println!("|---|---:|---:|---:|---|---|");
        for r in &self.rows {
            println!(
                "| {} | {} | {} | {} | {} | {} |",
                r.figure, r.libpfm4, r.pfmlib, r.ratio, r.target, r.met
            );
        }
        for n in &self.notes {
            println!();
            println!("{n}");
        }
    }
}

fn real_main() -> Result<(), String> {
    let opts = parse_args()?;
    let target = target_dir(&workspace_root());
    let mut table = if opts.only_bulk || opts.only_capi {
        Table::default()
    } else {
        library_rows(&opts, &target)?
    };
    if !opts.only_bulk {
        let (rows, note) = capi_rows(&opts, &target)?;
        table.rows.extend(rows);
        table.notes.push(note);
    }
    if !opts.only_capi {
        let (row, note) = bulk_row(&opts, &target)?;
        table.rows.push(row);
        table.notes.push(note);
    }
    table.print();
    Ok(())
}

/// The C-interface rows: the same C program against pfmlib's
/// `libpfm.so.4` and libpfm4's, one process per library, alternating.
fn capi_rows(opts: &Opts, target: &Path) -> Result<(Vec<Row>, String), String> {
    eprintln!(
        "== C interface: pfmlib's libpfm.so.4 against libpfm4's (crates/bench/c/capi_bench.c)"
    );
    let mut c = cargo();
    c.args(["build", "--release", "-p", "libpfm"]);
    run(c, "cargo build of libpfm")?;
    let release = target.join("release");
    let so = release.join("libpfm.so");
    let dir = release.join("capi-lib");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let link = dir.join("libpfm.so.4");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&so, &link).map_err(|e| format!("{}: {e}", link.display()))?;
    let exe = release.join("capi_bench");
    capi::compile(&exe, &workspace_root().join("include"), &link)?;
    let o = libpfm4(None);
    let pmus = shared_pmus(Library::global(), &o);
    let input = release.join("capi-input.txt");
    let lib = Library::with_host(nehalem_host());
    std::fs::write(&input, capi::input(&lib, &pmus))
        .map_err(|e| format!("{}: {e}", input.display()))?;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for round in 0..opts.capi_runs {
        eprintln!("   run {}/{}", round + 1, opts.capi_runs);
        for (k, runs) in [&mut theirs, &mut ours].into_iter().enumerate() {
            let mut r = capi::Run::default();
            for (w, _) in capi::WORKLOADS {
                let lib_dir = (k == 1).then_some(dir.as_path());
                let (out, st) = output_of(capi::command(&exe, &input, w, lib_dir), "capi_bench")?;
                if st != Some(0) {
                    return Err(format!("capi_bench {w} exited with {st:?}"));
                }
                capi::parse(&out, &mut r)?;
            }
            runs.push(r);
        }
    }
    // Both libraries did the same work: same answers, same things listed.
    let (a, b) = (&theirs[0], &ours[0]);
    for (w, _) in capi::WORKLOADS {
        let (x, y) = (a.figures.get(*w), b.figures.get(*w));
        if x.map(|v| v.1) != y.map(|v| v.1) {
            return Err(format!(
                "the libraries answered {w} differently: {x:?} / {y:?}"
            ));
        }
    }
    let (lt, lo) = (a.listed.unwrap_or_default(), b.listed.unwrap_or_default());
    if (lt.0, lt.1) != (lo.0, lo.1) {
        return Err(format!(
            "the libraries listed different things: {lt:?} / {lo:?}"
        ));
    }
    let med = |runs: &[capi::Run], w: &str| {
        let mut v: Vec<f64> = runs
            .iter()
            .filter_map(|r| r.figures.get(w))
            .map(|f| f.0)
            .collect();
        median(&mut v)
    };
    let paired = |w: &str| {
        let mut v: Vec<f64> = theirs
            .iter()
            .zip(&ours)
            .filter_map(|(t, o)| Some(t.figures.get(w)?.0 / o.figures.get(w)?.0))
            .collect();
        median(&mut v)
    };
    // Every PMU both libraries list events for: named when they are few.
    let names = if pmus.len() <= 12 {
        pmus.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
    } else {
        format!(
            "{} PMUs (every one both libraries list events for)",
            pmus.len()
        )
    };
    let n_find = lookup_prefixed_len(&lib) * 2;
    let n_enc = pfm_bench::encode_umasks(&lib).len();
    let figures: [(&str, String); 5] = [
        ("init", "C interface: `pfm_initialize` (this machine; `pfm_terminate` between calls, not timed)".into()),
        ("find", format!("C interface: `pfm_find_event`, per name ({n_find} names, `nhm::EVENT` and `EVENT`, nhm forced)")),
        ("none", format!("C interface: `pfm_get_os_event_encoding` `PFM_OS_NONE`, codes and fstr allocated and freed, per string ({n_enc} strings)")),
        ("perf", format!("C interface: `pfm_get_os_event_encoding` `PFM_OS_PERF_EVENT_EXT`, fstr allocated and freed, per string ({n_enc} strings)")),
        ("listing", format!("C interface: full listing, `pfm_get_pmu_info`/`pfm_get_event_next`/`pfm_get_event_info`/`pfm_get_event_attr_info` ({} events, {} attributes, {} PMUs)", lo.0, lo.1, pmus.len())),
    ];
    let rows = figures
        .into_iter()
        .map(|(w, figure)| {
            let r = paired(w);
            Row {
                figure,
                libpfm4: fmt_time(med(&theirs, w)),
                pfmlib: fmt_time(med(&ours, w)),
                ratio: fmt_ratio(r),
                target: "> 1× (faster)",
                met: if r > 1.0 { "yes" } else { "**no**" }.into(),
            }
        })
        .collect();
    let note = format!(
        "C interface: one C program (`crates/bench/c/capi_bench.c`, `cc -O2`) run against each \
         library in turn, {} processes each, alternating; per workload the median over 21 \
         slices of ~10 ms, then the median over the processes; ratios are the median of the \
         per-pair ratios. Both libraries returned the same values (check sums of indexes, \
         codes, `perf_event_attr` fields, string lengths) and listed the same {} events and \
         {} attributes of {names}.",
        opts.capi_runs, lo.0, lo.1
    );
    Ok((rows, note))
}

fn lookup_prefixed_len(lib: &Library) -> usize {
    pfm_bench::lookup_prefixed(lib).len()
}

/// Every row but the bulk check: criterion benches and probes.
fn library_rows(opts: &Opts, target: &Path) -> Result<Table, String> {
    let criterion = target.join("criterion");

    // Every (group, function) criterion measures, and the best median of
    // the rounds for each: a burst of noise on this kind of machine slows one
    // round, rarely every round.
    let mut best: BTreeMap<(String, String), f64> = BTreeMap::new();
    // And each round's paired ratio (libpfm4 and pfmlib timed alternately in
    // short slices), of which the median is kept.
    let mut ratios: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let rounds = if opts.bench { opts.rounds } else { 1 };
    for round in 1..=rounds {
        if opts.bench {
            eprintln!(
                "== round {round}/{rounds}: cargo bench -p pfm-bench (criterion, {} s per benchmark)",
                opts.seconds
            );
            let mut c = cargo();
            c.args(["bench", "-p", "pfm-bench"])
                .args(["--bench", "startup", "--bench", "lookup"])
                .args(["--bench", "encoding", "--bench", "listing"])
                .env("CRITERION_HOME", &criterion)
                .env("PFM_BENCH_SECONDS", opts.seconds.to_string())
                .stdout(Stdio::from(std::io::stderr()));
            run(c, "cargo bench")?;
        }
        for (g, f) in FIGURES {
            let t = estimate(&criterion, g, f)?;
            let e = best.entry((g.to_string(), f.to_string())).or_insert(t);
            *e = e.min(t);
        }
        for g in PAIRED {
            if let Some(r) = paired_ratio(&criterion, g) {
                ratios.entry(g.to_string()).or_default().push(r);
            }
        }
    }
    eprintln!("== probes (peak memory, start-up from exec)");
    let mut c = cargo();
    c.args(["build", "--release", "-p", "pfm-bench"]).args([
        "--bin",
        "probe-pfmlib",
        "--bin",
        "probe-libpfm4",
    ]);
    run(c, "cargo build of the probes")?;
    let release = target.join("release");
    let (p_ours, p_theirs) = (release.join("probe-pfmlib"), release.join("probe-libpfm4"));

    // The inputs, to report their sizes, and the PMUs listed.
    let o = libpfm4(None);
    let lib = Library::global();
    let shared = shared_pmus(lib, &o);
    let names: Vec<&str> = shared.iter().map(|p| p.name).collect();
    let pmus = names.join(",");
    let n_events = event_names(&Library::with_host(nehalem_host())).len() as f64;
    let n_umasks = encode_umasks(lib).len() as f64;
    let n_mod_none = encode_modifiers(lib, Os::None).len() as f64;
    let n_mod_ext = encode_modifiers(lib, Os::PerfEventExt).len() as f64;

    let (rss_theirs, listed_theirs) = peak_rss(&p_theirs, &pmus)?;
    let (rss_ours, listed_ours) = peak_rss(&p_ours, &pmus)?;
    let [exec_theirs, exec_ours] = exec_times([&p_theirs, &p_ours], "first-lookup", opts.runs)?;
    let [idle_theirs, idle_ours] = exec_times([&p_theirs, &p_ours], "nothing", opts.runs)?;

    let e = |g: &str, f: &str| -> Result<f64, String> {
        best.get(&(g.to_string(), f.to_string()))
            .copied()
            .ok_or_else(|| format!("no measurement of {g}/{f}"))
    };
    let pair = |g: &str| -> Result<(f64, f64), String> { Ok((e(g, "libpfm4")?, e(g, "pfmlib")?)) };
    let mut ratio = |g: &str| ratios.get_mut(g).map(|v| median(v));

    let mut rows = Vec::new();
    let init = e("initialize", "libpfm4")?;
    rows.push(Row {
        figure: "work before the first lookup (libpfm4: `pfm_initialize`; pfmlib: none)".into(),
        libpfm4: fmt_time(init),
        pfmlib: "0 (no call)".into(),
        ratio: "—".into(),
        target: "zero",
        met: "yes".into(),
    });
    let (t, u) = pair("startup")?;
    rows.push(timed(
        "start-up: initialisation + first lookup, in process".into(),
        t,
        u,
        1.0,
        None,
        None,
    ));
    rows.push(timed(
        format!(
            "start-up: fresh process, exec → first lookup → exit (median of {})",
            opts.runs
        ),
        exec_theirs,
        exec_ours,
        1.0,
        None,
        None,
    ));
    rows.push(timed(
        format!(
            "process start alone, same binaries (median of {})",
            opts.runs
        ),
        idle_theirs,
        idle_ours,
        1.0,
        None,
        None,
    ));
    for (g, what, n) in [
        ("lookup_prefixed", "lookup `nhm::EVENT`", n_events),
        ("lookup_unprefixed", "lookup `EVENT` (nhm active)", n_events),
        ("lookup_missing", "lookup of a missing name (±prefix)", 2.0),
    ] {
        let (t, u) = pair(g)?;
        rows.push(timed(
            format!("{what}, per name ({n} names)"),
            t,
            u,
            n,
            ratio(g),
            Some(20.0),
        ));
    }
    for (g, what, n) in [
        (
            "encode_none",
            "encode `nhm::EVENT:UMASK`, PFM_OS_NONE",
            n_umasks,
        ),
        (
            "encode_perf_ext",
            "encode `nhm::EVENT:UMASK`, PERF_EVENT_EXT",
            n_umasks,
        ),
        (
            "encode_modifiers_none",
            "encode with modifiers, PFM_OS_NONE",
            n_mod_none,
        ),
        (
            "encode_modifiers_perf_ext",
            "encode with modifiers, PERF_EVENT_EXT",
            n_mod_ext,
        ),
    ] {
        let (t, u) = pair(g)?;
        rows.push(timed(
            format!("{what}, per string ({n} strings)"),
            t,
            u,
            n,
            ratio(g),
            Some(5.0),
        ));
    }
    let (t, u) = pair("listing")?;
    rows.push(timed(
        format!(
            "listing: {} events, {} attributes with descriptions ({} PMUs)",
            listed_ours["events"],
            listed_ours["attrs"],
            names.len()
        ),
        t,
        u,
        1.0,
        ratio("listing"),
        Some(5.0),
    ));
    let rss_ratio = rss_theirs / rss_ours;
    rows.push(Row {
        figure: "peak RSS of a process that initialises and lists everything".into(),
        libpfm4: format!("{:.1} MiB", rss_theirs / 1024.0),
        pfmlib: format!("{:.1} MiB", rss_ours / 1024.0),
        ratio: fmt_ratio(rss_ratio),
        target: "≥ 1×",
        met: if rss_ratio >= 1.0 { "yes" } else { "**no**" }.into(),
    });
    if listed_ours["events"] != listed_theirs["events"]
        || listed_ours["attrs"] != listed_theirs["attrs"]
    {
        return Err(format!(
            "the probes listed different things: pfmlib {listed_ours}, libpfm4 {listed_theirs}"
        ));
    }

    Ok(Table {
        header: vec![format!("PMUs listed: {}", names.join(", "))],
        rows,
        notes: vec![format!(
            "Times: criterion medians (best of {rounds} rounds), per item. Ratios with a \
             target: median of libpfm4/pfmlib over 41 alternating slices of ~2 ms each \
             (median of the rounds), steadier on a noisy machine than a ratio of two medians."
        )],
    })
}

/// Standard output and exit status of a process that must exit normally.
fn output_of(mut c: Command, what: &str) -> Result<(String, Option<i32>), String> {
    let o = c
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !matches!(o.status.code(), Some(0 | 1)) {
        return Err(format!("{what} failed ({})", o.status));
    }
    Ok((
        String::from_utf8_lossy(&o.stdout).into_owned(),
        o.status.code(),
    ))
}

/// Median wall time (ns) from spawn to exit of each command, alternating,
/// `runs` times each; output discarded; each must exit with `status`.
fn median_walls(
    mut cmds: [&mut dyn FnMut() -> Result<Command, String>; 2],
    runs: usize,
    status: Option<i32>,
) -> Result<[f64; 2], String> {
    let mut t = [Vec::new(), Vec::new()];
    for _ in 0..runs {
        for (k, cmd) in cmds.iter_mut().enumerate() {
            let mut c = cmd()?;
            c.stdout(Stdio::null()).stderr(Stdio::null());
            let start = Instant::now();
            let st = c.status().map_err(|e| format!("cannot run {c:?}: {e}"))?;
            t[k].push(start.elapsed().as_nanos() as f64);
            if st.code() != status {
                return Err(format!("{c:?} exited with {st}, expected {status:?}"));
            }
        }
    }
    Ok([median(&mut t[0]), median(&mut t[1])])
}

/// The bulk-check row (whole processes on the same lines) and the note
/// saying how far the two outputs agree.
fn bulk_row(opts: &Opts, target: &Path) -> Result<(Row, String), String> {
    eprintln!("== bulk check: pfm check --input against a C loop over libpfm4");
    let mut c = cargo();
    c.args(["build", "--release", "-p", "pfm", "--bin", "pfm"]);
    run(c, "cargo build of pfm")?;
    let release = target.join("release");
    let (pfm, c_bin) = (release.join("pfm"), release.join("check_loop"));
    bulk::compile_check_loop(&c_bin)?;
    let input = release.join("bulk-check-input.txt");
    let text = bulk::bulk_input(Library::global());
    let n = text.lines().count();
    std::fs::write(&input, &text).map_err(|e| format!("{}: {e}", input.display()))?;
    let mut ours = || -> Result<Command, String> {
        let mut c = Command::new(&pfm);
        c.args(["check", "--json", "--os", "none", "--input"])
            .arg(&input)
            .stdin(Stdio::null());
        Ok(c)
    };
    let mut theirs = || -> Result<Command, String> {
        let f = std::fs::File::open(&input).map_err(|e| format!("{}: {e}", input.display()))?;
        let mut c = bulk::check_loop_command(&c_bin);
        c.stdin(f);
        Ok(c)
    };
    let (out_ours, st_ours) = output_of(ours()?, "pfm check")?;
    let (out_theirs, st_theirs) = output_of(theirs()?, "check_loop")?;
    if st_ours != st_theirs {
        return Err(format!(
            "exit status: pfm {st_ours:?}, check_loop {st_theirs:?}"
        ));
    }
    let agree = bulk::compare(&out_ours, &out_theirs);
    if let Some((o, t)) = &agree.first_difference {
        eprintln!("first differing line:\n  pfm:        {o}\n  check_loop: {t}");
    }
    let [t_theirs, t_ours] = median_walls([&mut theirs, &mut ours], opts.bulk_runs, st_ours)?;
    let row = Row {
        figure: format!(
            "bulk check: {n} strings, whole process (pfm check --input vs C loop over \
             libpfm4; median of {})",
            opts.bulk_runs
        ),
        libpfm4: fmt_time(t_theirs),
        pfmlib: fmt_time(t_ours),
        ratio: fmt_ratio(t_theirs / t_ours),
        target: "outputs agree",
        met: match agree.differing {
            0 => "yes: 0 lines differ".to_string(),
            d => format!("**no**: {d} lines differ"),
        },
    };
    let note = format!(
        "Bulk check: {} passes of the nhm sweep ({} strings each), one JSON line per \
         string from each process: {} lines, {} identical byte for byte, {} differing \
         only in the error message (libpfm4's pfm_strerror text against pfm's own), {} \
         differing in anything else (codes, fstr, idx, status, error code: 0 expected).",
        bulk::PASSES,
        n / bulk::PASSES,
        agree.lines,
        agree.identical,
        agree.message_only,
        agree.differing
    );
    Ok((row, note))
}
