//! `pfm counters` input and JSON: one shape for `op` in success and
//! failure, parse errors as JSON, `-f -` answered line by line, command-line
//! operations before the file's. Only operations that need no kernel
//! counter are used (npmc, spin, sleep, reads of counters never set up),
//! except where a software event is available.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn pfm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pfm"))
        .args(args)
        .output()
        .expect("run pfm")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_lines(o: &Output) -> Vec<Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

#[test]
fn op_has_one_shape_in_success_and_failure() {
    let o = pfm(&[
        "counters", "--json", "--npmc", "2", "npmc", "spin", "1", "sleep", "1", "read", "1",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json_lines(&o);
    assert_eq!(v.len(), 4, "{}", stdout(&o));
    assert_eq!(
        (&v[0]["ok"], &v[0]["op"], &v[0]["npmc"]),
        (&true.into(), &"npmc".into(), &2.into())
    );
    assert!(v[0].get("counter").is_none());
    assert_eq!((&v[1]["op"], &v[1]["ms"]), (&"spin".into(), &1.into()));
    assert_eq!(v[2]["op"], "sleep");
    // The failure: the same op word and counter, the error as an object.
    assert_eq!(v[3]["ok"], false);
    assert_eq!(v[3]["op"], "read");
    assert_eq!(v[3]["counter"], 1);
    assert_eq!(v[3]["error"]["kind"], "failed");
    assert!(v[3]["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("counter 1 is not set up")));
    let o = pfm(&["counters", "--json", "--npmc", "2", "start", "5"]);
    let v = json_lines(&o);
    assert_eq!(
        (&v[0]["op"], &v[0]["counter"]),
        (&"start".into(), &5.into())
    );
    // Setups, where a software event can be counted: op and counter at the top.
    let o = pfm(&["counters", "--json", "setup", "0", "task-clock", "get", "0"]);
    if o.status.success() {
        let v = json_lines(&o);
        for (line, op) in v.iter().zip(["setup", "get"]) {
            assert_eq!(
                (&line["ok"], &line["op"], &line["counter"]),
                (&true.into(), &op.into(), &0.into())
            );
            assert_eq!(line["setup"]["event"], "task-clock");
        }
    } else {
        eprintln!("SKIPPED: no software counter here: {}", stdout(&o));
    }
}

#[test]
fn parse_errors_are_json_with_json() {
    for args in [
        vec!["counters", "--json", "frobnicate"],
        vec!["counters", "--json", "npmc", "read"],
        vec!["counters", "--json"],
        vec!["counters", "--json", "-f", "/nonexistent/ops"],
        vec!["counters", "--json", "-f", "/dev/zero"],
    ] {
        if args.contains(&"/dev/zero") && !std::path::Path::new("/dev/zero").exists() {
            continue;
        }
        let o = pfm(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let v = json_lines(&o);
        assert_eq!(
            v.len(),
            1,
            "{args:?}: nothing runs before a command-line parse error"
        );
        assert_eq!(v[0]["ok"], false);
        assert_eq!(v[0]["error"]["kind"], "usage", "{args:?}");
        assert!(v[0]["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
        // Text: on standard error.
        let args: Vec<&str> = args.into_iter().filter(|a| *a != "--json").collect();
        let o = pfm(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stdout(&o).is_empty());
        assert!(stderr(&o).starts_with("pfm: "), "{}", stderr(&o));
    }
}

#[test]
fn command_line_operations_run_before_the_file() {
    let dir = std::env::temp_dir().join(format!("pfm-counters-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("ops");
    std::fs::write(
        &file,
        "# comment\nspin 1 sleep 1\n\nread 7 # not set up\nnpmc\n",
    )
    .expect("write ops");
    let path = file.to_str().expect("path");
    let o = pfm(&["counters", "--npmc", "8", "-f", path, "npmc"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "npmc: 8\nspin 1\nsleep 1\n");
    assert!(
        stderr(&o).contains("read 7: counter 7 is not set up"),
        "{}",
        stderr(&o)
    );
}

/// A line read from `pfm`'s output within a generous time, or a failure
/// (not a hang) when pfm waits for the end of its input to answer.
fn answer(rx: &mpsc::Receiver<String>, after: &str) -> String {
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("no answer to {after:?} before the input ended"))
}

#[test]
fn standard_input_is_answered_line_by_line() {
    for json in [false, true] {
        let mut args = vec!["counters", "--npmc", "4", "-f", "-"];
        if json {
            args.push("--json");
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_pfm"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn pfm");
        let mut input = child.stdin.take().expect("stdin");
        let output = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        // Each line is answered while the input is still open.
        writeln!(input, "npmc").expect("write");
        let a = answer(&rx, "npmc");
        writeln!(input, "spin 1 # busy").expect("write");
        let b = answer(&rx, "spin 1");
        writeln!(input, "read 2").expect("write");
        // Text: the failure goes to standard error and pfm ends (its
        // output closes); JSON: a line.
        let c = rx.recv_timeout(Duration::from_secs(60)).ok();
        drop(input);
        let status = child.wait().expect("wait");
        let _ = reader.join();
        assert_eq!(status.code(), Some(1), "read 2 fails: never set up");
        if json {
            let c = c.expect("an answer to read 2");
            let v: Vec<Value> = [a, b, c]
                .iter()
                .map(|l| serde_json::from_str(l).expect("JSON"))
                .collect();
            assert_eq!((&v[0]["op"], &v[0]["npmc"]), (&"npmc".into(), &4.into()));
            assert_eq!(v[1]["op"], "spin");
            assert_eq!(
                (&v[2]["ok"], &v[2]["op"], &v[2]["counter"]),
                (&false.into(), &"read".into(), &2.into())
            );
        } else {
            assert_eq!([a.as_str(), b.as_str()], ["npmc: 4", "spin 1"]);
            assert_eq!(c, None);
        }
    }
}
