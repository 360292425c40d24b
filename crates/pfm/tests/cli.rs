//! The `pfm` command as a user runs it: outputs, JSON shapes, exit codes.

use serde_json::Value;
use std::process::{Command, Output};

fn pfm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pfm"))
        .args(args)
        .output()
        .expect("run pfm")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn check_json_success_and_failure() {
    let o = pfm(&["check", "--json", "nhm::INST_RETIRED:ANY_P", "nhm::NOPE"]);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["ok"], true);
    assert_eq!(lines[0]["pmu"], "nhm");
    assert_eq!(lines[0]["codes"][0], "0x5300c0");
    assert_eq!(
        lines[0]["fstr"],
        "nhm::INST_RETIRED:ANY_P:k=1:u=1:e=0:i=0:c=0:t=0"
    );
    assert_eq!(lines[1]["ok"], false);
    assert_eq!(lines[1]["error"]["code"], -4);
    assert_eq!(lines[1]["error"]["name"], "PFM_ERR_NOTFOUND");
}

#[test]
fn check_perf_json_fields() {
    let o = pfm(&[
        "check",
        "--json",
        "--os",
        "perf-ext",
        "--plm",
        "u",
        "nhm::ARITH:MUL",
    ]);
    assert!(o.status.success());
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let p = &v["perf"];
    assert_eq!(p["type"], 4);
    assert_eq!(p["config"], "0x214");
    assert_eq!(p["exclude_kernel"], true);
    assert_eq!(p["exclude_user"], false);
    assert_eq!(p["exclude_guest"], true);
    for k in [
        "config1",
        "config2",
        "exclude_hv",
        "exclude_host",
        "precise_ip",
        "sample_period",
        "freq",
        "pinned",
        "exclusive",
    ] {
        assert!(!p[k].is_null(), "missing {k}");
    }
    assert_eq!(
        v["fstr"],
        "nhm::ARITH:MUL:e=0:i=0:c=0:t=0:u=1:k=0:excl=0:mg=0:mh=1"
    );
}

#[test]
fn check_text_and_errors() {
    let o = pfm(&["check", "nhm::ARITH:MUL"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("Codes          : 0x530214"));
    let o = pfm(&["check", "nhm::ARITH:MUL:c=300"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("c=300"));
    let o = pfm(&["check", ""]);
    assert_eq!(o.status.code(), Some(1));
    let o = pfm(&["check", "--plm", "x", "cycles"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn list_json_counts() {
    for (pmu, events, umasks) in [("nhm", 93, 311), ("nhm_ex", 93, 313), ("perf", 82, 30)] {
        let o = pfm(&["list", "--pmu", pmu, "--json"]);
        assert!(o.status.success());
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let evs = v["pmus"][0]["events"].as_array().unwrap();
        let n: usize = evs
            .iter()
            .map(|e| {
                e["attrs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|a| a["type"] == "umask")
                    .count()
            })
            .sum();
        assert_eq!((evs.len(), n), (events, umasks), "{pmu}");
    }
    let o = pfm(&["list", "--pmu", "nosuch"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn list_text_names_the_host() {
    let o = pfm(&["list"]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(s.starts_with("Host: "));
    assert!(s.contains("perf::PERF_COUNT_HW_CPU_CYCLES"));
}

#[test]
fn info_text_and_json() {
    let o = pfm(&["info", "nhm::arith"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("CYCLES_DIV_BUSY"));
    let o = pfm(&["info", "--json", "nhm::MEM_LOAD_RETIRED"]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["name"], "MEM_LOAD_RETIRED");
    assert_eq!(v["is_precise"], true);
    let o = pfm(&["info", "nhm::NOPE"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn dispatch_json_and_errors() {
    use std::io::Write;
    let run = |input: &str, args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pfm"))
            .arg("dispatch")
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn pfm");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write");
        child.wait_with_output().expect("wait")
    };
    let o = run(
        r#"{"pmu":"nhm","events":[{"event":"INSTRUCTION_RETIRED"},{"event":"ARITH:MUL","cnt_mask":2}]}"#,
        &["--json"],
    );
    assert!(o.status.success());
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["assignments"][0]["counter"]["name"], "FIXED_CTR0");
    assert_eq!(v["assignments"][1]["counter"]["name"], "PMC0");
    let sel = v["pmcs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "PERFEVTSEL0")
        .unwrap();
    assert_eq!(sel["value"], "0x2530214");
    let o = run(
        r#"{"pmu":"nhm","events":[{"event":"UNHALTED_REFERENCE_CYCLES","cnt_mask":1}]}"#,
        &["--json", "-"],
    );
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["error"]["name"], "PFMLIB_ERR_NOASSIGN");
    assert_eq!(v["error"]["code"], -5);
    let o = run("not json", &[]);
    assert_eq!(o.status.code(), Some(2));
}

/// IA-64: `pfm list --json` and `pfm info --json` carry every libpfm-3 query
/// under the reference field names; compared with the reference results in
/// `../shared/oracle/ia64` when they are there.
#[test]
fn ia64_queries_through_the_command() {
    let dir = match std::env::var_os("PFMLIB_ORACLE_DIR") {
        Some(d) => std::path::PathBuf::from(d),
        None => {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle/ia64")
        }
    };
    for (pmu, count) in [("itanium", 230), ("itanium2", 497), ("montecito", 637)] {
        let o = pfm(&["list", "--pmu", pmu, "--json"]);
        assert!(o.status.success(), "{pmu}: list fails");
        let v: Value = serde_json::from_str(&stdout(&o)).expect("list JSON");
        let events = v["pmus"][0]["events"].as_array().expect("events").clone();
        assert_eq!(events.len(), count, "{pmu}");
        let Ok(text) = std::fs::read_to_string(dir.join(format!("events_{pmu}.jsonl"))) else {
            eprintln!(
                "skipped the reference comparison: {} is missing",
                dir.display()
            );
            continue;
        };
        for (line, ours) in text.lines().zip(&events) {
            let want: Value = serde_json::from_str(line).expect("reference JSON");
            for (k, w) in want.as_object().expect("object") {
                if k == "code_hex" {
                    continue;
                }
                assert_eq!(&ours[k.as_str()], w, "{pmu}::{}: {k}", want["name"]);
            }
        }
    }
    // One event through `pfm info`.
    let o = pfm(&["info", "--json", "montecito::L3_READS_ALL_ALL"]);
    assert!(o.status.success());
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("info JSON");
    assert_eq!(v["num_masks"], 4);
    assert_eq!(v["group"], 7);
    assert_eq!(v["set"], -1);
    assert_eq!(v["ear_mode"], Value::Null);
    assert_eq!(v["ear_mode_ret"], -2);
    // A raw encoding with MESI qualifiers: ism=2, E and M states, no oi bit.
    let o = pfm(&[
        "check",
        "--json",
        "--plm",
        "u",
        "montecito::L3_READS_ALL_ALL:M:E",
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("check JSON");
    assert_eq!(v["codes"][0], "0x620fdd08");
    assert_eq!(v["fstr"], "montecito::L3_READS_ALL_ALL:E:M:k=0:u=1:thres=0");
}

/// Runs `pfm ARGS` with `input` on its standard input.
fn pfm_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_pfm"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn pfm");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input).expect("write");
    drop(stdin);
    child.wait_with_output().expect("wait")
}

/// `pfm check --input -`: the lines of standard input, after the events of
/// the command line, give what the same strings give as arguments.
#[test]
fn check_input_from_stdin() {
    let events = [
        "nhm::INST_RETIRED:ANY_P",
        "nhm::NOPE",
        "nhm::ARITH:MUL:c=300",
        "perf::cycles:u:cpu=1",
        " nhm::ARITH:MUL",
        "nhm::\"odd\\\u{1}é",
    ];
    let input = "nhm::NOPE\r\n\nnhm::ARITH:MUL:c=300\n\r\nperf::cycles:u:cpu=1\n nhm::ARITH:MUL\r\nnhm::\"odd\\\u{1}é";
    for (os, json) in [("none", true), ("perf-ext", true), ("none", false)] {
        let mut args = vec!["check", "--os", os];
        if json {
            args.push("--json");
        }
        let mut all = args.clone();
        all.extend(events);
        let want = pfm(&all);
        args.extend([events[0], "--input", "-"]);
        let got = pfm_stdin(&args, input.as_bytes());
        assert_eq!(got.status.code(), Some(1), "{os} {json}");
        assert_eq!(got.status.code(), want.status.code());
        assert_eq!(stdout(&got), stdout(&want), "{os} {json}");
        assert_eq!(got.stderr, want.stderr, "{os} {json}");
        let lines = stdout(&got).lines().count();
        if json {
            assert_eq!(lines, events.len());
        }
    }
    // Only --input, every line encodes: exit status 0.
    let o = pfm_stdin(
        &["check", "--json", "--input", "-"],
        b"nhm::ARITH:MUL\nnhm::INST_RETIRED:ANY_P\n",
    );
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().count(), 2);
}

#[test]
fn check_input_from_a_file_and_errors() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("events.txt");
    std::fs::write(&path, "nhm::ARITH:MUL\n\nnhm::INST_RETIRED:ANY_P\n").expect("write");
    let path = path.to_str().expect("UTF-8 path");
    let o = pfm(&["check", "--json", "--input", path]);
    assert!(o.status.success());
    let v: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(v.len(), 2);
    assert_eq!(v[1]["event"], "nhm::INST_RETIRED:ANY_P");
    // No source of events, a missing file, a line that is not UTF-8: status 2.
    let o = pfm(&["check", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--input"));
    let o = pfm(&["check", "--input", "/no/such/file"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read /no/such/file"));
    let o = pfm_stdin(
        &["check", "--json", "--input", "-"],
        b"nhm::ARITH:MUL\n\xff\nnhm::ARITH:MUL\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o).lines().count(), 1, "what came before is printed");
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 2 of standard input"));
}
