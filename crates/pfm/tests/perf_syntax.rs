//! `pfm stat -e` in perf's event syntax (tracepoints, `pmu/terms/`, raw,
//! perf's generic names, modifier suffixes), compared with `perf stat` on a
//! fixed workload where perf is installed and allowed to count.

use std::collections::BTreeMap;
use std::process::{Command, Output, Stdio};

/// A workload with known counts: 20000 getppid(2), a 16 MiB string (about
/// 4k page faults), three fork+exec of /bin/true.
const WORKLOAD: &str =
    "getppid() for 1..20000; $x = 'a' x (16 << 20); system('/bin/true') for 1..3";

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

/// `value,unit,event,...` lines of a `-x,` report, by event name; `None`
/// for `<not supported>` / `<not counted>`.
fn csv_counts(report: &str) -> BTreeMap<String, Option<f64>> {
    report
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f.len() > 2 && !f[2].is_empty()).then(|| (f[2].to_string(), f[0].parse().ok()))
        })
        .collect()
}

/// The counts by event name, and the report they came from.
type Counts = (BTreeMap<String, Option<f64>>, String);

/// The values of a `-x,` report in its order.
fn ordered(report: &str) -> Vec<Option<f64>> {
    report
        .lines()
        .filter(|l| l.split(',').count() > 2)
        .map(|l| l.split(',').next().and_then(|v| v.parse().ok()))
        .collect()
}

/// Counts `events` over the workload with `tool stat -x,`; `None` (with the
/// reason printed) when it cannot run here.
fn count_with(tool: &str, events: &str) -> Option<Counts> {
    let mut cmd = if tool == "pfm" {
        Command::new(env!("CARGO_BIN_EXE_pfm"))
    } else {
        Command::new(tool)
    };
    let o = cmd
        .args(["stat", "-x,", "-e", events, "--", "perl", "-e", WORKLOAD])
        .stdin(Stdio::null())
        .output();
    match o {
        Ok(o) if o.status.success() => {
            let report = stderr(&o);
            Some((csv_counts(&report), report))
        }
        Ok(o) => {
            eprintln!("SKIPPED: {tool} stat cannot count here: {}", stderr(&o));
            None
        }
        Err(e) => {
            eprintln!("SKIPPED: cannot run {tool}: {e}");
            None
        }
    }
}

fn perl_present() -> bool {
    let ok = Command::new("perl")
        .args(["-e", "1"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: perl (the workload) is not installed");
    }
    ok
}

fn tracefs_present() -> bool {
    let ok = pfmlib_perf::perf_syntax::tracepoint::events_dir(pfmlib::Library::global().host())
        .is_some();
    if !ok {
        eprintln!("SKIPPED: tracefs is not mounted here");
    }
    ok
}

/// Within 5%, or 10 events for small counts (the kernel-side page faults
/// of two runs of the same workload differ by a few).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= (0.05 * a.max(b)).max(10.0)
}

fn compare_with_perf(events: &[&str]) {
    let list = events.join(",");
    let Some((ours, _)) = count_with("pfm", &list) else {
        return;
    };
    let Some((perf, _)) = count_with("perf", &list) else {
        return;
    };
    for ev in events {
        let (Some(o), Some(p)) = (ours.get(*ev), perf.get(*ev)) else {
            panic!("{ev} missing: pfm {ours:?} perf {perf:?}");
        };
        match (o, p) {
            (Some(o), Some(p)) => assert!(close(*o, *p), "{ev}: pfm {o} perf {p}"),
            (None, None) => {}
            _ => panic!("{ev}: pfm {o:?} perf {p:?}"),
        }
    }
}

/// [`compare_with_perf`] one event at a time: perf names a tracepoint
/// without its modifiers, so two spellings of one tracepoint would collide.
fn compare_each_with_perf(events: &[&str]) {
    for ev in events {
        let (Some((ours, _)), Some((perf, _))) = (count_with("pfm", ev), count_with("perf", ev))
        else {
            return;
        };
        let (Some(o), Some(p)) = (ours.values().next(), perf.values().next()) else {
            panic!("{ev}: pfm {ours:?} perf {perf:?}");
        };
        match (o, p) {
            (Some(o), Some(p)) => assert!(close(*o, *p), "{ev}: pfm {o} perf {p}"),
            (None, None) => {}
            _ => panic!("{ev}: pfm {o:?} perf {p:?}"),
        }
    }
}

#[test]
fn software_event_modifiers_agree_with_perf() {
    if !perl_present() {
        return;
    }
    compare_with_perf(&[
        "page-faults",
        "page-faults:u",
        "page-faults:k",
        "page-faults:uk",
        "page-faults:p",
        "page-faults:pp",
        "page-faults:ppp",
        "page-faults:P",
        "page-faults:G",
        "page-faults:H",
        "page-faults:D",
        "page-faults:S",
        "page-faults:e",
        "page-faults:uI",
        "minor-faults:k",
        "major-faults:u",
        "alignment-faults",
        "emulation-faults:k",
        "cgroup-switches",
        "dummy",
        "bpf-output",
    ]);
}

#[test]
fn tracepoints_agree_with_perf() {
    if !perl_present() || !tracefs_present() {
        return;
    }
    compare_each_with_perf(&[
        "syscalls:sys_enter_getppid",
        "syscalls:sys_enter_getppid:u",
        "syscalls:sys_enter_getppid:k",
        "syscalls:sys_exit_getppid:D",
        "sched:sched_process_exec",
        "sched:sched_process_fork:S",
        "sched:sched_process_exit:ppp",
        "sched:sched_process_exec:P",
        "sched:sched_process_exec:GH",
    ]);
}

#[test]
fn group_modifiers_agree_with_perf() {
    if !perl_present() {
        return;
    }
    let mut events = String::from("{page-faults,minor-faults:k}:u,{dummy,page-faults}:D");
    if tracefs_present() {
        events.push_str(",{sched:sched_process_exec,syscalls:sys_enter_getppid}:k");
    }
    let (Some(ours), Some(perf)) = (count_with("pfm", &events), count_with("perf", &events)) else {
        return;
    };
    // perf names a group's members without the group's letters: by position.
    let (o, p) = (ordered(&ours.1), ordered(&perf.1));
    assert_eq!(o.len(), p.len(), "pfm {o:?} perf {p:?}");
    for (i, (a, b)) in o.iter().zip(&p).enumerate() {
        match (a, b) {
            (Some(a), Some(b)) => assert!(close(*a, *b), "event {i}: pfm {a} perf {b}"),
            _ => panic!("event {i}: pfm {a:?} perf {b:?}"),
        }
    }
}

#[test]
fn tracepoint_globs_count_each_tracepoint() {
    if !perl_present() || !tracefs_present() {
        return;
    }
    let Some((c, _)) = count_with("pfm", "syscalls:sys_enter_get*pid") else {
        return;
    };
    let n = c.get("syscalls:sys_enter_getppid").copied().flatten();
    assert!(n.is_some_and(|n| close(n, 20000.0)), "{c:?}");
    assert!(c.contains_key("syscalls:sys_enter_getpid"), "{c:?}");
    assert!(c.keys().all(|k| k.starts_with("syscalls:sys_enter_get")));
}

#[test]
fn sysfs_pmu_and_tool_events() {
    if !perl_present() {
        return;
    }
    let host = pfmlib::Library::global().host();
    let msr = host.file_exists("/sys/bus/event_source/devices/msr/events/tsc");
    let events = if msr {
        "msr/tsc/,software/config=2/,duration_time"
    } else {
        "software/config=2/,duration_time"
    };
    let Some((c, _)) = count_with("pfm", events) else {
        return;
    };
    if msr {
        assert!(c["msr/tsc/"].is_some_and(|v| v > 0.0), "{c:?}");
    }
    // software/config=2/ is page-faults; duration_time is wall-clock ns.
    assert!(c["software/config=2/"].is_some_and(|v| v > 4000.0), "{c:?}");
    assert!(c["duration_time"].is_some_and(|v| v > 1e6), "{c:?}");
}

#[test]
fn syntax_errors_name_the_fault_and_fail() {
    let software = pfmlib::Library::global()
        .host()
        .file_exists("/sys/bus/event_source/devices/software/type");
    for (ev, says) in [
        ("nosuchpmu/event=1/", "no PMU \"nosuchpmu\""),
        (
            "software/bogus=1/",
            if software {
                "has no term \"bogus\""
            } else {
                "no PMU \"software\""
            },
        ),
        ("page-faults:uq", "\"uq\""),
        ("page-faults:pppp", "at most three"),
        ("software/config=1", "missing '/'"),
    ] {
        let o = pfm(&["stat", "-e", ev, "--", "true"]);
        assert!(!o.status.success(), "{ev} succeeded");
        assert!(stderr(&o).contains(says), "{ev}: {}", stderr(&o));
    }
}
