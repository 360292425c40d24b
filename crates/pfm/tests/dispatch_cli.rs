//! `pfm dispatch` as a user runs it: JSON shapes of success and of every
//! failure (unreadable, malformed and refused requests), exit statuses,
//! the libpfm-3 format's PMUs, bounded input.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// `pfm dispatch ARGS` with `input` on standard input.
fn dispatch(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pfm"))
        .arg("dispatch")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pfm");
    // pfm may stop reading early (a file argument): a closed pipe is fine.
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes());
    child.wait_with_output().expect("wait")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The one JSON line of a `--json` run.
fn json(o: &Output) -> Value {
    let out = stdout(o);
    assert_eq!(out.lines().count(), 1, "{out}");
    serde_json::from_str(out.trim()).expect("JSON")
}

#[test]
fn success_carries_ok_and_every_register() {
    let o = dispatch(
        &["--json"],
        r#"{"pmu":"nhm","dfl_plm":"u","events":[{"event":"OFFCORE_RESPONSE_0:DMND_DATA_RD:UNCORE_HIT"}]}"#,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["ok"], true);
    let pmcs: Vec<(String, String, String)> = v["pmcs"]
        .as_array()
        .expect("pmcs")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or("").to_string(),
                r["addr"].as_str().unwrap_or("").to_string(),
                r["value"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let want = [
        ("PERFEVTSEL0", "0x186", "0x5101b7"),
        ("OFFCORE_RSP_0", "0x1a6", "0x101"),
        ("PERF_GLOBAL_CTRL", "0x38f", "0x1"),
    ];
    assert_eq!(pmcs.len(), want.len(), "{pmcs:?}");
    for ((n, a, val), (wn, wa, wv)) in pmcs.iter().zip(want) {
        assert_eq!((n.as_str(), a.as_str(), val.as_str()), (wn, wa, wv));
    }
    // Text: the same registers.
    let o = dispatch(
        &[],
        r#"{"pmu":"nhm","dfl_plm":"u","events":[{"event":"OFFCORE_RESPONSE_0:DMND_DATA_RD:UNCORE_HIT"}]}"#,
    );
    assert!(
        stdout(&o).contains("OFFCORE_RSP_0          0x01a6 = 0x101"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn unreadable_and_malformed_requests_are_json_failures() {
    for (input, args, says) in [
        ("not json", vec!["--json"], "invalid dispatch request"),
        (
            r#"["nhm",null,[{"event":"ARITH:MUL"}]]"#,
            vec!["--json"],
            "request is an array",
        ),
        (
            r#"{"pmu":"nhm","events":[["ARITH:MUL",null,2]]}"#,
            vec!["--json"],
            "request.events[0] is an array",
        ),
        (
            r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL"}],"nhm":{"lbr":[true]}}"#,
            vec!["--json", "-"],
            "request.nhm.lbr is an array",
        ),
        (
            r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL","frob":1}]}"#,
            vec!["--json"],
            "unknown field",
        ),
        (
            "",
            vec!["--json", "/nonexistent/request.json"],
            "cannot read",
        ),
        ("zz", vec!["--json", "--format", "libpfm3"], "line 1"),
        (
            r#"{"pmu":"itanium","events":[["CPU_CYCLES",8,0,[]]],"dfl_plm":8}"#,
            vec!["--json", "--format", "libpfm3"],
            "line 1: invalid libpfm-3 request: request.events[0] is an array",
        ),
        (
            r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL","flags":[["inv"]]}]}"#,
            vec!["--json"],
            "request.events[0].flags[0] is an array",
        ),
    ] {
        let o = dispatch(&args, input);
        assert_eq!(o.status.code(), Some(2), "{input}");
        let v = json(&o);
        assert_eq!(v["ok"], false, "{input}");
        assert_eq!(v["error"]["kind"], "usage", "{input}");
        let m = v["error"]["message"].as_str().expect("message");
        assert!(m.contains(says), "{input}: {m}");
        // Without --json: a message on standard error, nothing on standard output.
        let args: Vec<&str> = args.into_iter().filter(|a| *a != "--json").collect();
        let o = dispatch(&args, input);
        assert_eq!(o.status.code(), Some(2), "{input}");
        assert!(stdout(&o).is_empty());
        assert!(stderr(&o).contains(says), "{input}: {}", stderr(&o));
    }
}

#[test]
fn refusals_name_the_libpfm3_error() {
    for (input, name, code) in [
        (r#"{"pmu":"nhm","events":[]}"#, "PFMLIB_ERR_INVAL", -2),
        (
            r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL","plm":"2"}]}"#,
            "PFMLIB_ERR_INVAL",
            -2,
        ),
        (
            r#"{"pmu":"nhm_ex","events":[{"event":"nhm_unc::UNC_LLC_MISS:READ"}]}"#,
            "PFMLIB_ERR_INVAL",
            -2,
        ),
        (
            r#"{"pmu":"nhm","events":[{"event":"OFFCORE_RESPONSE_0:DMND_DATA_RD:UNCORE_HIT"},{"event":"OFFCORE_RESPONSE_0:DMND_RFO:UNCORE_HIT"}]}"#,
            "PFMLIB_ERR_FEATCOMB",
            -9,
        ),
    ] {
        let o = dispatch(&["--json"], input);
        assert_eq!(o.status.code(), Some(1), "{input}");
        let v = json(&o);
        assert_eq!(v["ok"], false);
        assert_eq!(v["error"]["kind"], "dispatch");
        assert_eq!(v["error"]["name"], name, "{input}");
        assert_eq!(v["error"]["code"], code, "{input}");
        let o = dispatch(&[], input);
        assert_eq!(o.status.code(), Some(1), "{input}");
        assert!(stderr(&o).contains(name), "{}", stderr(&o));
    }
}

/// The libpfm-3 format numbers registers as IA-64 does; other PMUs, whose
/// counters and control registers would share numbers, are refused.
#[test]
fn libpfm3_format_is_for_ia64() {
    let o = dispatch(
        &["--format", "libpfm3"],
        "{\"pmu\":\"nhm\",\"events\":[\"INSTRUCTION_RETIRED\",\"ARITH:MUL\"],\"dfl_plm\":8}\n\
         {\"pmu\":\"itanium\",\"events\":[\"CPU_CYCLES\"],\"dfl_plm\":8}\n",
    );
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["ret"], -1);
    assert!(lines[0]["error"]
        .as_str()
        .is_some_and(|e| e.contains("IA-64")));
    assert!(lines[0].get("pmcs").is_none());
    assert_eq!(lines[1]["ret"], 0);
    assert_eq!(lines[1]["pmcs"][0]["reg_num"], 4);
}

/// A file that never ends is refused at the bound, without growing.
#[test]
fn endless_input_is_bounded() {
    for file in ["/dev/urandom", "/dev/zero"] {
        if !std::path::Path::new(file).exists() {
            continue;
        }
        let o = dispatch(&[file], "");
        assert_eq!(o.status.code(), Some(2), "{file}");
        assert!(stderr(&o).contains("larger than 16 MiB"), "{}", stderr(&o));
        let o = dispatch(&["--json", file], "");
        assert_eq!(o.status.code(), Some(2), "{file}");
        assert_eq!(json(&o)["error"]["kind"], "usage");
    }
}

#[test]
fn a_key_given_twice_is_refused() {
    // serde_json alone keeps the last of a repeated key (issue 22).
    for (input, args, key) in [
        (
            r#"{"pmu":"nhm","events":[{"event":"INST_RETIRED:ANY_P"}],"pmu":"wsm"}"#,
            vec![],
            "pmu",
        ),
        (
            r#"{"pmu":"nhm","events":[{"event":"INST_RETIRED:ANY_P","event":"ARITH:MUL"}]}"#,
            vec!["--json"],
            "event",
        ),
    ] {
        let o = dispatch(&args, input);
        assert_eq!(o.status.code(), Some(2), "{input}");
        let text = if args.is_empty() {
            stderr(&o)
        } else {
            stdout(&o)
        };
        assert!(
            text.contains("given twice") && text.contains(key),
            "{input}: {text}"
        );
    }
}
