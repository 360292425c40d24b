//! `pfm stat` and `pfm counters` as a user runs them: real counts for
//! software events, `<not supported>` where the kernel has no hardware PMU,
//! machine-readable outputs that parse, exit statuses, Ctrl-C, and
//! agreement with `perf stat` where perf is installed.

use serde_json::Value;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn pfm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pfm"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run pfm")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn hardware_pmu() -> bool {
    pfmlib_perf::hardware_pmu()
}

/// False (with the reason) when this process cannot count at all.
fn can_count() -> bool {
    let o = pfm(&["stat", "-e", "task-clock", "--", "true"]);
    if o.status.success() {
        true
    } else {
        eprintln!("SKIPPED: pfm stat cannot count here: {}", stderr(&o));
        false
    }
}

/// The text line of `event` in a `pfm stat` report.
fn line_of<'a>(report: &'a str, event: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.split_whitespace().any(|w| w == event))
        .unwrap_or_else(|| panic!("no line for {event} in:\n{report}"))
}

fn count_of(report: &str, event: &str) -> f64 {
    let first = line_of(report, event)
        .split_whitespace()
        .next()
        .unwrap_or("");
    first
        .parse()
        .unwrap_or_else(|_| panic!("no count for {event}: {first:?}"))
}

#[test]
fn done_when_example() {
    if !can_count() {
        return;
    }
    // `pfm stat -e task-clock,page-faults,cycles -- ls`: real counts for the
    // software events, <not supported> for cycles without a PMU, ls's status.
    let o = pfm(&[
        "stat",
        "-e",
        "task-clock,page-faults,cycles",
        "--",
        "ls",
        "/",
    ]);
    let ls = Command::new("ls").arg("/").output().unwrap();
    // ls's status, unless cycles could not be counted here (no PMU): an
    // event asked for that is not supported makes the exit status 1.
    let unsupported = stderr(&o).contains("<not supported>");
    let want = if unsupported {
        Some(1)
    } else {
        ls.status.code()
    };
    assert_eq!(o.status.code(), want);
    if unsupported {
        assert!(
            stderr(&o).contains("not supported here: cycles"),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(stdout(&o), stdout(&ls), "the command's output is untouched");
    let err = stderr(&o);
    assert!(
        err.contains(" Performance counter stats for 'ls /':"),
        "{err}"
    );
    assert!(count_of(&err, "task-clock") > 0.0);
    assert!(line_of(&err, "task-clock").contains("msec"));
    assert!(line_of(&err, "task-clock").contains("CPUs utilized"));
    assert!(count_of(&err, "page-faults") > 10.0);
    if hardware_pmu() {
        assert!(count_of(&err, "cycles") > 0.0, "{err}");
    } else {
        assert!(
            line_of(&err, "cycles")
                .trim_start()
                .starts_with("<not supported>"),
            "{err}"
        );
    }
    assert!(err.contains("seconds time elapsed"));
    assert!(err.contains("seconds user") && err.contains("seconds sys"));

    // A failing ls: its status passes through.
    let o = pfm(&[
        "stat",
        "-e",
        "task-clock,page-faults,cycles",
        "--",
        "ls",
        "/no/such/dir",
    ]);
    let ls = Command::new("ls").arg("/no/such/dir").output().unwrap();
    assert_eq!(o.status.code(), ls.status.code());
    assert_ne!(o.status.code(), Some(0));
}

#[test]
fn exit_statuses() {
    if !can_count() {
        return;
    }
    assert_eq!(
        pfm(&["stat", "-e", "page-faults", "--", "sh", "-c", "exit 3"])
            .status
            .code(),
        Some(3)
    );
    assert_eq!(
        pfm(&[
            "stat",
            "-e",
            "page-faults",
            "--",
            "sh",
            "-c",
            "kill -TERM $$"
        ])
        .status
        .code(),
        Some(128 + 15)
    );
    let o = pfm(&["stat", "-e", "page-faults", "--", "/no/such/program"]);
    assert_eq!(o.status.code(), Some(127));
    assert!(stderr(&o).contains("cannot run"), "{}", stderr(&o));
    // The command without `--` works too, options after it are its own.
    let o = pfm(&["stat", "-e", "page-faults", "sh", "-c", "exit 5", "-x"]);
    assert_eq!(o.status.code(), Some(5));
}

#[test]
fn usage_errors() {
    let o = pfm(&["stat", "-e", "no-such-event", "--", "true"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no-such-event"), "{}", stderr(&o));
    let o = pfm(&["stat", "-e", "{task-clock,page-faults", "--", "true"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unclosed group"));
    let o = pfm(&["stat", "-e", "task-clock"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nothing to count"));
    let o = pfm(&["stat", "-C", "100000", "--", "true"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not online"), "{}", stderr(&o));
    let o = pfm(&["stat", "-x,", "--json", "--", "true"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn default_events_like_perf() {
    if !can_count() {
        return;
    }
    let o = pfm(&["stat", "--", "true"]);
    assert!(o.status.success());
    let err = stderr(&o);
    for ev in [
        "task-clock",
        "context-switches",
        "cpu-migrations",
        "page-faults",
    ] {
        let l = line_of(&err, ev);
        assert!(!l.contains("<not"), "{l}");
    }
    for ev in ["cycles", "instructions", "branches", "branch-misses"] {
        let l = line_of(&err, ev);
        if !hardware_pmu() {
            assert!(l.contains("<not supported>"), "{l}");
        }
    }
}

#[test]
fn csv_output_parses() {
    if !can_count() {
        return;
    }
    let o = pfm(&[
        "stat",
        "-x,",
        "-e",
        "task-clock,page-faults,cycles",
        "--",
        "true",
    ]);
    // Exit 1 where cycles is not supported here, 0 where it counts.
    let unsupported = stderr(&o).contains("<not supported>");
    assert_eq!(o.status.code(), Some(i32::from(unsupported)));
    let err = stderr(&o);
    let rows: Vec<Vec<&str>> = err.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3, "{err}");
    for r in &rows {
        assert_eq!(
            r.len(),
            7,
            "value,unit,event,runtime,pcnt,metric,metric-unit: {r:?}"
        );
    }
    assert_eq!((rows[0][1], rows[0][2]), ("msec", "task-clock"));
    assert!(rows[0][0].parse::<f64>().unwrap() > 0.0);
    assert!(rows[0][3].parse::<u64>().unwrap() > 0);
    assert_eq!(rows[0][4], "100.00");
    assert_eq!(rows[0][6], "CPUs utilized");
    assert!(rows[1][0].parse::<u64>().unwrap() > 10);
    assert_eq!(rows[2][2], "cycles");
    if !hardware_pmu() {
        assert_eq!(rows[2][0], "<not supported>");
    }
    // Another separator, repeated runs: a variance column after the event.
    let o = pfm(&[
        "stat",
        "-x",
        ";",
        "-r",
        "3",
        "-e",
        "page-faults",
        "--",
        "true",
    ]);
    let err = stderr(&o);
    let r: Vec<&str> = err.trim().split(';').collect();
    assert_eq!(r.len(), 8, "{err}");
    assert!(r[3].ends_with('%'));
}

#[test]
fn json_output_parses() {
    if !can_count() {
        return;
    }
    let o = pfm(&[
        "stat",
        "--json",
        "-e",
        "task-clock,page-faults,cycles",
        "--",
        "true",
    ]);
    let unsupported = stderr(&o).contains("not supported");
    assert_eq!(o.status.code(), Some(i32::from(unsupported)));
    let objs: Vec<Value> = stderr(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 3);
    assert_eq!(objs[0]["event"], "task-clock");
    assert_eq!(objs[0]["unit"], "msec");
    assert_eq!(objs[0]["status"], "counted");
    assert!(objs[0]["counter-value"].as_f64().unwrap() > 0.0);
    assert_eq!(objs[1]["event"], "page-faults");
    assert!(objs[1]["counter-value"].as_u64().unwrap() > 10);
    assert_eq!(objs[1]["pcnt-running"], 100.0);
    assert!(objs[1]["time-enabled"].as_u64().unwrap() > 0);
    assert!(objs.iter().all(|v| v["run"] == 1));
    if !hardware_pmu() {
        assert!(objs[2]["counter-value"].is_null());
        assert_eq!(objs[2]["status"], "not supported");
        assert!(objs[2]["error"]
            .as_str()
            .unwrap()
            .contains("no hardware PMU"));
    }

    // -r 3: one object per event per run, then one summary per event.
    let o = pfm(&[
        "stat",
        "-j",
        "-r",
        "3",
        "-e",
        "task-clock,page-faults",
        "--",
        "true",
    ]);
    let objs: Vec<Value> = stderr(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 3 * 2 + 2);
    for run in 1..=3u64 {
        assert_eq!(objs.iter().filter(|v| v["run"] == run).count(), 2);
    }
    let summary: Vec<&Value> = objs.iter().filter(|v| v["summary"] == true).collect();
    assert_eq!(summary.len(), 2);
    assert_eq!(summary[1]["runs"], 3);
    assert!(summary[1]["variance"].as_f64().unwrap() >= 0.0);
    let mean = summary[1]["counter-value"].as_f64().unwrap();
    let runs: Vec<f64> = objs
        .iter()
        .filter(|v| v["event"] == "page-faults" && v["run"].is_u64())
        .map(|v| v["counter-value"].as_f64().unwrap())
        .collect();
    assert!((mean - runs.iter().sum::<f64>() / 3.0).abs() < 1e-6);
}

#[test]
fn repeat_prints_mean_and_deviation() {
    if !can_count() {
        return;
    }
    let o = pfm(&[
        "stat",
        "-r",
        "3",
        "-e",
        "task-clock,page-faults",
        "--",
        "true",
    ]);
    assert!(o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("Performance counter stats for 'true' (3 runs):"),
        "{err}"
    );
    assert!(line_of(&err, "page-faults").contains("( +-"), "{err}");
    assert!(err.contains(" +- ") && err.contains("seconds time elapsed  ( +-"));
}

#[test]
fn groups_and_output_file() {
    if !can_count() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("counts.txt");
    let o = pfm(&[
        "stat",
        "-o",
        path.to_str().unwrap(),
        "-e",
        "{task-clock,page-faults},context-switches",
        "--",
        "sh",
        "-c",
        "echo hello",
    ]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "hello\n");
    assert!(!stderr(&o).contains("Performance counter stats"));
    let report = std::fs::read_to_string(&path).unwrap();
    assert!(count_of(&report, "task-clock") > 0.0, "{report}");
    assert!(count_of(&report, "page-faults") > 10.0);
    assert!(count_of(&report, "context-switches") >= 0.0);
}

#[test]
fn ctrl_c_prints_what_was_counted() {
    if !can_count() {
        return;
    }
    let child = Command::new(env!("CARGO_BIN_EXE_pfm"))
        .args(["stat", "-e", "task-clock,page-faults", "--", "sleep", "5"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    pfmlib_perf::interrupt_process(child.id()).unwrap();
    let t0 = std::time::Instant::now();
    let o = child.wait_with_output().unwrap();
    assert!(
        t0.elapsed() < Duration::from_secs(3),
        "the command was stopped"
    );
    assert_eq!(o.status.code(), Some(128 + 2));
    let err = stderr(&o);
    assert!(count_of(&err, "page-faults") > 10.0, "{err}");
    assert!(count_of(&err, "task-clock") > 0.0);
}

/// `-r 0` repeats until interrupted, with one report per run (perf's
/// forever mode: no run count, no deviation).
#[test]
fn repeat_zero_reports_each_run_until_interrupted() {
    if !can_count() {
        return;
    }
    let child = Command::new(env!("CARGO_BIN_EXE_pfm"))
        .args(["stat", "-r", "0", "-e", "task-clock", "--", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    pfmlib_perf::interrupt_process(child.id()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(128 + 2));
    let err = stderr(&o);
    let reports = err.matches("Performance counter stats for 'true':").count();
    assert!(reports >= 2, "{err}");
    assert!(!err.contains(" runs)") && !err.contains("+-"), "{err}");
}

#[test]
fn other_processes_and_cpus() {
    if !can_count() {
        return;
    }
    // -p: a process that runs a little, then ends; pfm stops with it.
    let mut target = Command::new("sh")
        .args([
            "-c",
            "sleep 0.3; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
        ])
        .spawn()
        .unwrap();
    let pid = target.id().to_string();
    let o = pfm(&["stat", "-p", &pid, "-e", "task-clock,context-switches"]);
    target.wait().unwrap();
    let err = stderr(&o);
    if o.status.success() {
        assert!(err.contains(&format!("process id '{pid}'")), "{err}");
        assert!(count_of(&err, "task-clock") > 0.0, "{err}");
    } else {
        eprintln!("SKIPPED -p: {err}");
    }
    let o = pfm(&["stat", "-p", "999999999", "-e", "task-clock"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no such process"));

    // -a and -C with a command.
    let o = pfm(&[
        "stat",
        "-a",
        "-e",
        "cpu-clock,context-switches",
        "--",
        "sleep",
        "0.1",
    ]);
    let err = stderr(&o);
    if !o.status.success() {
        eprintln!("SKIPPED -a: {err}");
        return;
    }
    assert!(err.contains("'system wide'"));
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let ms = count_of(&err, "cpu-clock");
    assert!(
        ms > 80.0 * cpus.min(2.0) / 2.0,
        "cpu-clock over 0.1 s on every CPU: {ms} ms"
    );
    let o = pfm(&["stat", "-C", "0", "-e", "cpu-clock", "--", "sleep", "0.05"]);
    assert!(o.status.success());
    assert!(count_of(&stderr(&o), "cpu-clock") > 30.0);
}

#[test]
fn not_counted_is_not_zero() {
    if !can_count() {
        return;
    }
    // A process that sleeps throughout: its task-clock never runs. It is
    // counted only once it has started and gone to sleep (on a busy machine
    // its start-up could otherwise still be running when pfm attaches).
    let mut target = Command::new("sleep").arg("5").spawn().unwrap();
    let pid = target.id().to_string();
    let asleep = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit(')')
                    .next()
                    .map(|r| r.trim_start().starts_with('S'))
            })
            .unwrap_or(false)
    };
    let give_up = std::time::Instant::now() + Duration::from_secs(20);
    while !asleep() && std::time::Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    let child = Command::new(env!("CARGO_BIN_EXE_pfm"))
        .args(["stat", "-p", &pid, "-x,", "-e", "task-clock"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    pfmlib_perf::interrupt_process(child.id()).unwrap();
    let o = child.wait_with_output().unwrap();
    let _ = target.kill();
    let _ = target.wait();
    let err = stderr(&o);
    assert!(
        err.starts_with("<not counted>,msec,task-clock,") || err.starts_with("0.00,"),
        "{err}"
    );
}

/// Median page faults of `cmd` over 5 runs, from a `-x,` report.
fn median_faults(prog: &str, pre: &[&str], cmd: &[&str]) -> Option<f64> {
    let mut v = Vec::new();
    for _ in 0..5 {
        let o = Command::new(prog)
            .args(pre)
            .args(["stat", "-x,", "-e", "page-faults", "--"])
            .args(cmd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .output()
            .ok()?;
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        let line = err.lines().find(|l| l.contains(",page-faults,"))?;
        v.push(line.split(',').next()?.parse::<f64>().ok()?);
    }
    v.sort_by(f64::total_cmp);
    Some(v[2])
}

#[test]
fn page_faults_agree_with_perf() {
    if !can_count() {
        return;
    }
    let perf_ok = Command::new("perf")
        .args(["stat", "-e", "page-faults", "--", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !perf_ok {
        eprintln!("SKIPPED page-fault comparison: `perf` is not installed or cannot count here (apt-get install linux-perf)");
        return;
    }
    // dd touches its whole 16 MiB buffer: thousands of faults, few of them noise.
    let cmds: [&[&str]; 2] = [
        &[
            "dd",
            "if=/dev/zero",
            "of=/dev/null",
            "bs=16M",
            "count=2",
            "status=none",
        ],
        &["ls", "-l", "/usr/bin"],
    ];
    for cmd in cmds {
        let perf = median_faults("perf", &[], cmd).expect("perf stat output");
        let ours = median_faults(env!("CARGO_BIN_EXE_pfm"), &[], cmd).expect("pfm stat output");
        let diff = (ours - perf).abs() / perf;
        eprintln!(
            "page-faults of {cmd:?}: perf {perf}, pfm {ours} ({:.2}% apart)",
            diff * 100.0
        );
        assert!(
            diff < 0.05,
            "page-faults of {cmd:?}: perf {perf}, pfm {ours}"
        );
    }
}

/// The `pfm counters` tests run one at a time, as the single test they were
/// (the first one times a busy loop with a task clock).
static COUNTERS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn counters_alone() -> std::sync::MutexGuard<'static, ()> {
    COUNTERS.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn counters_command() {
    let _alone = counters_alone();
    if !can_count() {
        return;
    }
    let o = pfm(&[
        "counters",
        "npmc",
        "setup",
        "0",
        "task-clock:u",
        "get",
        "0",
        "start",
        "0",
        "spin",
        "20",
        "read",
        "0",
        "stop",
        "0",
        "read",
        "0",
        "reset",
        "0",
        "read",
        "0",
        "tstamp",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let reads: Vec<i64> = out
        .lines()
        .filter(|l| l.starts_with("read 0: "))
        .map(|l| l["read 0: ".len()..].parse().unwrap())
        .collect();
    assert_eq!(reads.len(), 3);
    // 20 ms of spinning: at least a little CPU time even on a busy machine.
    assert!(
        reads[0] > 1_000_000 && reads[1] >= reads[0] && reads[2] == 0,
        "{out}"
    );
    assert!(out.contains("get 0: event task-clock:u [stopped]"));
    if cfg!(target_arch = "x86_64") {
        assert!(out.contains(" MHz"), "{out}");
    }
}

/// `pfm counters --json`: one object per operation.
#[test]
fn counters_command_json() {
    let _alone = counters_alone();
    if !can_count() {
        return;
    }
    let o = pfm(&[
        "counters",
        "--json",
        "--npmc",
        "2",
        "npmc",
        "setup",
        "1",
        "page-faults",
        "read",
        "1",
    ]);
    let objs: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs[0]["npmc"], 2);
    assert_eq!(objs[1]["setup"]["event"], "page-faults");
    assert_eq!(objs[2]["value"], 0);
    assert!(objs.iter().all(|v| v["ok"] == true));
}

/// `pfm counters`: semantic errors give exit status 1, a clear message, nothing after.
#[test]
fn counters_command_errors() {
    let _alone = counters_alone();
    if !can_count() {
        return;
    }
    for (ops, msg) in [
        (vec!["read", "0"], "counter 0 is not set up"),
        (
            vec!["--npmc", "2", "start", "2"],
            "counter 2 is out of range: this host has 2 counters (0-1)",
        ),
        (
            vec![
                "setup",
                "0",
                "task-clock:u",
                "start",
                "0",
                "reset",
                "0",
                "read",
                "0",
            ],
            "counter 0 is running: stop it before resetting it",
        ),
        (
            vec!["setup", "0", "task-clock:u", "stop", "0"],
            "counter 0 is not running",
        ),
    ] {
        let mut args = vec!["counters"];
        args.extend(ops);
        let o = pfm(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
        assert!(
            !stdout(&o).contains("read 0:"),
            "stops at the first failure"
        );
    }
}

/// `pfm counters`: a raw PERFEVTSEL setup, not supported without a hardware PMU.
#[test]
fn counters_command_raw_setup() {
    let _alone = counters_alone();
    if !can_count() {
        return;
    }
    let o = pfm(&[
        "counters",
        "--npmc",
        "4",
        "setup",
        "0",
        "event=0xc0",
        "flags=usr",
        "start",
        "0",
        "spin",
        "5",
        "stop",
        "0",
        "read",
        "0",
    ]);
    if hardware_pmu() {
        assert!(o.status.success(), "{}", stderr(&o));
    } else {
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains("not supported"), "{}", stderr(&o));
    }
    let o = pfm(&["counters", "setup", "0", "event=0x1c0"]);
    assert_eq!(o.status.code(), Some(2));
}
