//! The command under hostile conditions: standard error full, standard
//! output closed or full, a reader that goes away, arguments that are not
//! UTF-8, events of a PMU the host does not have. Never a panic, never a
//! lost exit status.

use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Stdio};

fn pfm() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pfm"))
}

/// Runs `script` with `bash -c` (for `pipefail`), `$PFM` naming the
/// command; the script echoes the status it checks.
fn sh(script: &str) -> String {
    let o = Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("PFM", env!("CARGO_BIN_EXE_pfm"))
        .output()
        .expect("sh runs");
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// Exit status of a process that panicked (Rust's default).
const PANIC: i32 = 101;

#[test]
fn a_full_standard_error_is_no_panic() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full");
    let Ok(f) = full() else {
        eprintln!("SKIPPED: no /dev/full");
        return;
    };
    let o = pfm().args(["check", "bogus"]).stderr(f).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let o = pfm()
        .args(["stat", "-e", "task-clock", "--", "true"])
        .stderr(full().unwrap())
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(PANIC));
    assert_ne!(o.status.code(), Some(0), "the counts could not be written");
}

#[test]
fn a_full_standard_output_is_reported() {
    let Ok(f) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let o = pfm().args(["list"]).stdout(f).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write"));
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = pfm().arg("--help").stdout(f).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_closed_standard_output_is_reported() {
    assert_eq!(sh("$PFM list >&- 2>/dev/null; echo $?"), "1");
    assert_eq!(sh("$PFM --version >&- 2>/dev/null; echo $?"), "1");
    // Standard output sent to /dev/null on purpose is fine, write-only or
    // for reading and writing (Python's DEVNULL, daemon(3), systemd).
    assert_eq!(sh("$PFM list >/dev/null; echo $?"), "0");
    assert_eq!(sh("$PFM check perf::cycles 1<>/dev/null; echo $?"), "0");
    assert_eq!(sh("$PFM --version 1<>/dev/null; echo $?"), "0");
}

#[test]
fn a_reader_that_goes_away_ends_pfm_like_sigpipe() {
    // Like perf, as if killed by SIGPIPE: 128 + 13, never 0.
    // The reader may be gone before or after the few lines are written:
    // SIGPIPE's status, or the failed encoding's, never 0.
    let st = sh("set -o pipefail; $PFM check nhm::ARITH:MUL bogus 2>/dev/null | true; echo $?");
    assert!(st == "141" || st == "1", "{st}");
    let st = sh("set -o pipefail; $PFM stat -- sh -c 'sleep 0.2; exit 3' 2>&1 | true; echo $?");
    assert_eq!(st, "141");
    let st = sh("set -o pipefail; $PFM list --all | head -c 10 >/dev/null; echo $?");
    assert_eq!(st, "141");
}

#[test]
fn command_arguments_need_not_be_utf8() {
    let dir = std::env::temp_dir().join(format!("pfm-latin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"latin\xe9.txt");
    std::fs::write(dir.join(name), b"x").unwrap();
    let o = pfm()
        .args(["stat", "-e", "task-clock", "--", "cat"])
        .arg(dir.join(name))
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.stdout, b"x");
}

#[test]
fn events_of_an_absent_pmu_are_not_counted() {
    // nhm::ARITH:MUL would be raw config 0x214 here: another event on this host.
    let o = pfm()
        .args(["stat", "-e", "nhm::ARITH:MUL", "--", "true"])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(0));
    assert!(err.contains("PMU nhm is not present on this host"), "{err}");
    assert!(err.contains("present: "), "{err}");
    // Encoding it stays possible.
    let o = pfm().args(["check", "nhm::ARITH:MUL"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn an_endless_input_line_is_refused_at_its_bound() {
    // `check --input` reads a line at most 1 MiB long: /dev/zero (no line
    // end, ever) is refused there, under a memory limit far below what
    // reading it to the end would take (issue 22).
    let out = sh("ulimit -v 1000000; timeout 60 \"$PFM\" check --input /dev/zero 2>&1 >/dev/null; echo \" status=$?\"");
    assert!(out.contains("line 1 of /dev/zero is longer than"), "{out}");
    assert!(out.ends_with("status=2"), "{out}");
}

#[test]
fn a_huge_cpu_list_is_checked_before_it_is_expanded() {
    // 8,000 ranges of 65,536 CPUs (64 KiB): refused at the first CPU that
    // is not online, within a memory limit that expanding them (half a billion
    // numbers) would break (issue 22).
    let out = sh("list=$(printf '0-65535,%.0s' $(seq 8000)); ulimit -v 1000000; timeout 60 \"$PFM\" stat -C \"$list\" -e task-clock -- true 2>&1 >/dev/null | head -c 200; echo \" status=${PIPESTATUS[0]}\"");
    assert!(out.contains("is not online"), "{out}");
    assert!(out.ends_with("status=2"), "{out}");
}

#[test]
fn a_hostile_host_root_neither_hangs_nor_fills_the_memory() {
    // A recorded tree whose cpuinfo is a FIFO nobody writes to and whose
    // PMU `type` files lead into /dev/zero: each is passed over as absent
    // (issue 22: the FIFO blocked forever, /dev/zero filled the memory).
    let out = sh(
        r#"d=$(mktemp -d) && mkdir -p $d/proc $d/sys/bus/event_source/devices/uncore_imc_0 $d/sys/bus/event_source/devices/cpu &&
        mkfifo $d/proc/cpuinfo && ln -s /dev/zero $d/sys/bus/event_source/devices/uncore_imc_0/type &&
        ln -s /dev/zero $d/sys/bus/event_source/devices/cpu/type &&
        (ulimit -v 1000000; timeout 60 "$PFM" --host-root $d --host-arch aarch64 list >/dev/null 2>&1; echo "arm=$?";
         timeout 60 "$PFM" --host-root $d list >/dev/null 2>&1; echo "x86=$?"); rm -rf $d"#,
    );
    assert_eq!(out, "arm=0\nx86=0", "{out}");
}

/// `check --input -` answers each line as it comes (as `counters -f -`
/// does), not at the end of the input: a program that writes one event
/// string and waits for its answer gets it.
#[test]
fn check_input_from_a_pipe_answers_line_by_line() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = pfm()
        .args(["check", "--json", "--input", "-", "--os", "none"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                break;
            }
        }
    });
    let wait = std::time::Duration::from_secs(30);
    for ev in ["perf::cycles", "no::such", "perf::instructions"] {
        writeln!(stdin, "{ev}").unwrap();
        stdin.flush().unwrap();
        // The answer arrives while the input is still open.
        let answer = rx.recv_timeout(wait).expect("an answer before more input");
        assert!(answer.contains(ev), "{ev}: {answer}");
    }
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

/// With descriptors exhausted, a tracepoint glob is not "not found": the
/// limit is named (perf says too many open files).
#[test]
fn exhausted_descriptors_are_named_for_tracepoints() {
    if std::fs::read_dir("/sys/kernel/tracing/events/sched").is_err() {
        eprintln!("SKIPPED: tracefs is not readable here");
        return;
    }
    let out = sh("ulimit -n 24; $PFM stat -e 'sched:*' -- true 2>&1; echo rc=$?");
    assert!(out.contains("too many open files"), "{out}");
    assert!(!out.contains("not found") && !out.contains("rc=0"), "{out}");
}

/// As root, an unmounted tracefs is mounted when a tracepoint is asked
/// for, as perf does (the test unmounts it first where it may, and leaves
/// it mounted).
#[test]
fn tracefs_is_mounted_when_needed() {
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    let mounted = || std::path::Path::new("/sys/kernel/tracing/events").exists();
    if !root || !std::path::Path::new("/sys/kernel/tracing").is_dir() {
        eprintln!("SKIPPED: needs root and /sys/kernel/tracing");
        return;
    }
    if mounted() && sh("umount /sys/kernel/tracing 2>/dev/null; echo $?") != "0" {
        eprintln!("SKIPPED: tracefs cannot be unmounted here (busy or not allowed)");
        return;
    }
    let out = sh("$PFM stat -e sched:sched_switch -- true 2>&1; echo rc=$?");
    assert!(mounted(), "tracefs not mounted: {out}");
    assert!(!out.contains("not mounted"), "{out}");
}

/// A CPU number past the kernel's `int` is named as given, never clamped.
#[test]
fn huge_cpu_numbers_are_named_as_given() {
    let out = sh("$PFM counters --cpu 2147483648 setup 0 task-clock 2>&1; echo rc=$?");
    assert!(out.contains("CPU 2147483648 "), "{out}");
    assert!(
        !out.contains("2147483647") && !out.contains("rc=0"),
        "{out}"
    );
    let out = sh("$PFM stat -C 4294967295 -e task-clock -- true 2>&1; echo rc=$?");
    assert!(out.contains("4294967295") && !out.contains("rc=0"), "{out}");
}

/// A `--log-fd` open for reading only is refused before anything runs,
/// naming why (the counts would be lost otherwise).
#[test]
fn a_read_only_log_fd_is_refused_up_front() {
    let out = sh("$PFM stat --log-fd 3 -e task-clock -- echo ran 3</dev/null 2>&1; echo rc=$?");
    assert!(
        out.contains("--log-fd 3") && out.contains("reading only"),
        "{out}"
    );
    assert!(!out.contains("ran") && !out.contains("rc=0"), "{out}");
    // Open for writing, it takes the counts.
    let out = sh("$PFM stat --log-fd 3 -e task-clock -- true 3>&1 2>/dev/null; echo rc=$?");
    assert!(out.contains("task-clock") && out.contains("rc=0"), "{out}");
}
