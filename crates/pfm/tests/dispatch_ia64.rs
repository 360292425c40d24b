//! IA-64 dispatch against libpfm-3's reference results: every request of
//! `../shared/oracle/ia64/dispatch.jsonl` through `pfm dispatch --format
//! libpfm3`, compared exactly (PMCs and values, PMDs, debug registers, range
//! offsets, fine mode, error codes).

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

fn oracle() -> Option<String> {
    let p = match std::env::var_os("PFMLIB_ORACLE_DIR") {
        Some(d) => std::path::PathBuf::from(d),
        None => {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle/ia64")
        }
    }
    .join("dispatch.jsonl");
    match std::fs::read_to_string(&p) {
        Ok(t) => Some(t),
        Err(_) if std::env::var_os("PFMLIB_REQUIRE_ORACLE").is_some() => {
            panic!("{} is missing", p.display())
        }
        Err(_) => {
            eprintln!("skipped: {} is missing", p.display());
            None
        }
    }
}

fn run_libpfm3(input: &str) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pfm"))
        .args(["dispatch", "--format", "libpfm3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pfm");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let o = child.wait_with_output().expect("wait");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

fn sorted_regs(v: &Value) -> Vec<(u64, String)> {
    let mut r: Vec<(u64, String)> = v
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| {
                    (
                        x["reg_num"].as_u64().unwrap_or(u64::MAX),
                        x["reg_value"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    r.sort();
    r
}

#[test]
fn every_reference_vector_agrees() {
    let Some(text) = oracle() else { return };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let (_, out) = run_libpfm3(&text);
    let got: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("result JSON"))
        .collect();
    assert_eq!(got.len(), lines.len(), "one result per request");
    let mut bad = Vec::new();
    for (n, (line, g)) in lines.iter().zip(&got).enumerate() {
        let v: Value = serde_json::from_str(line).expect("vector JSON");
        let want = &v["output"];
        let what = format!(
            "#{} {} {}",
            n + 1,
            v["pmu"],
            v["input"]["comment"].as_str().unwrap_or("")
        );
        if g["ret"] != want["ret"] {
            bad.push(format!(
                "{what}: ret {} want {} ({})",
                g["ret"], want["ret"], g["error"]
            ));
            continue;
        }
        if want["ret"] != 0 {
            continue;
        }
        if sorted_regs(&g["pmcs"]) != sorted_regs(&want["pmcs"]) {
            bad.push(format!("{what}: pmcs {} want {}", g["pmcs"], want["pmcs"]));
        }
        let pmds = |x: &Value| {
            let mut p: Vec<u64> = x
                .as_array()
                .map(|a| a.iter().filter_map(|r| r["reg_num"].as_u64()).collect())
                .unwrap_or_default();
            p.sort();
            p
        };
        if pmds(&g["pmds"]) != pmds(&want["pmds"]) {
            bad.push(format!("{what}: pmds {} want {}", g["pmds"], want["pmds"]));
        }
        for k in ["irange", "drange", "irange_is_fine"] {
            if g[k] != want[k] {
                bad.push(format!("{what}: {k} {} want {}", g[k], want[k]));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} vectors disagree:\n{}",
        bad.len(),
        lines.len(),
        bad.join("\n")
    );
}
