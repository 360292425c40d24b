//! `pfm list PATTERN...`: glob filters, the compact format, JSON with a
//! filter, exit statuses, and the PMU header in words. A recorded Graviton 2
//! host (`--host-root`) makes the present PMUs the same on every machine.

mod common;

use common::{graviton2, pfm, stderr, stdout};
use serde_json::Value;

/// `pfm --host-root G2 ARGS` on a fresh recorded Graviton 2.
fn on_g2(args: &[&str]) -> std::process::Output {
    let dir = graviton2();
    let root = dir.path().to_string_lossy().into_owned();
    let mut all = vec!["--host-root", root.as_str()];
    all.extend_from_slice(args);
    pfm(&all)
}

/// The names (first column) of compact lines.
fn names(o: &std::process::Output) -> Vec<String> {
    stdout(o)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn compact_lines_have_name_code_and_description() {
    let o = on_g2(&["list", "--compact", "arm_n1::INST_RETIRED"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 1, "{s}");
    let f: Vec<&str> = lines[0].splitn(3, "  ").map(str::trim).collect();
    assert_eq!(f[0], "arm_n1::INST_RETIRED");
    assert_eq!(f[1], "0x8");
    assert!(f[2].starts_with("Instructions retired"), "{}", f[2]);
    assert!(!s.contains("Host:"), "no host line in the compact format");
}

#[test]
fn a_pattern_without_a_pmu_matches_events_of_every_present_pmu() {
    let o = on_g2(&["list", "-c", "*cpu_cycles*"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let n = names(&o);
    assert!(n.contains(&"arm_n1::CPU_CYCLES".to_string()), "{n:?}");
    assert!(
        n.contains(&"perf::PERF_COUNT_HW_CPU_CYCLES".to_string()),
        "{n:?}"
    );
    for name in &n {
        assert!(name.to_ascii_uppercase().contains("CPU_CYCLES"), "{name}");
        assert!(
            name.starts_with("arm_n1::") || name.starts_with("perf::"),
            "{name}"
        );
    }
}

#[test]
fn globs_are_case_insensitive_with_sets_and_single_characters() {
    let o = on_g2(&["list", "-c", "ARM_n1::l[12]d_cache_refill"]);
    assert_eq!(
        names(&o),
        ["arm_n1::L1D_CACHE_REFILL", "arm_n1::L2D_CACHE_REFILL"]
    );
    let o = on_g2(&["list", "-c", "arm_n1::L?D_CACHE_REFILL"]);
    assert_eq!(
        names(&o),
        [
            "arm_n1::L1D_CACHE_REFILL",
            "arm_n1::L2D_CACHE_REFILL",
            "arm_n1::L3D_CACHE_REFILL"
        ]
    );
    let o = on_g2(&["list", "-c", "arm_n1::L[!1]D_CACHE_REFILL"]);
    assert_eq!(
        names(&o),
        ["arm_n1::L2D_CACHE_REFILL", "arm_n1::L3D_CACHE_REFILL"]
    );
    let o = on_g2(&["list", "-c", "arm_*::inst_retired"]);
    assert_eq!(names(&o), ["arm_n1::INST_RETIRED"]);
}

#[test]
fn several_patterns_list_each_event_once_in_table_order() {
    let o = on_g2(&[
        "list",
        "-c",
        "arm_n1::INST_SPEC",
        "INST_*",
        "arm_n1::INST_RETIRED",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(names(&o), ["arm_n1::INST_RETIRED", "arm_n1::INST_SPEC"]);
}

#[test]
fn a_plain_pmu_name_searches_that_pmu_even_when_absent() {
    let o = on_g2(&["list", "-c", "nhm::INST_RETIRED"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(names(&o), ["nhm::INST_RETIRED"]);
    let o = on_g2(&["list", "-c", "--umasks", "nhm::INST_RETIRED"]);
    assert_eq!(
        names(&o),
        [
            "nhm::INST_RETIRED",
            "nhm::INST_RETIRED:ANY_P",
            "nhm::INST_RETIRED:X87"
        ]
    );
}

#[test]
fn nothing_matching_is_exit_status_1_with_a_hint() {
    // A PMU part with a wildcard searches the present PMUs only.
    let o = on_g2(&["list", "-c", "n*::INST_RETIRED"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).is_empty());
    let e = stderr(&o);
    assert!(e.contains("no event matches \"n*::INST_RETIRED\""), "{e}");
    assert!(e.contains("add --all"), "{e}");
    let o = on_g2(&["list", "-c", "--all", "n*::INST_RETIRED"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(names(&o).contains(&"nhm::INST_RETIRED".to_string()));
    let o = on_g2(&["list", "NO_SUCH_EVENT_ANYWHERE"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("on any PMU pfmlib knows"),
        "{}",
        stderr(&o)
    );
    // One pattern of several matching nothing: reported, status 0.
    let o = on_g2(&["list", "-c", "arm_n1::INST_RETIRED", "NO_SUCH_EVENT"]);
    assert!(o.status.success());
    assert_eq!(names(&o), ["arm_n1::INST_RETIRED"]);
    assert!(stderr(&o).contains("\"NO_SUCH_EVENT\""), "{}", stderr(&o));
    let o = on_g2(&["list", "--pmu", "perf", "INST_RETIRED"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("on PMU \"perf\""), "{}", stderr(&o));
}

#[test]
fn bad_patterns_and_options_are_status_2() {
    for args in [
        &["list", "arm_n1::L[12"][..],
        &["list", "arm_n1::INST_RETIRED:u"][..],
        &["list", "arm_n1::"][..],
        &["list", "--umasks", "x"][..],
        &["list", "--json", "--compact"][..],
    ] {
        let o = on_g2(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!stderr(&o).is_empty());
    }
}

#[test]
fn json_honours_the_filter() {
    let o = on_g2(&["list", "--json", "*::INST_RETIRED", "perf::cycles"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let pmus = v["pmus"].as_array().expect("pmus");
    let got: Vec<(String, Vec<String>)> = pmus
        .iter()
        .map(|p| {
            let evs = p["events"].as_array().expect("events");
            (
                p["name"].as_str().unwrap_or_default().to_string(),
                evs.iter()
                    .map(|e| e["name"].as_str().unwrap_or_default().to_string())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("arm_n1".to_string(), vec!["INST_RETIRED".to_string()]),
            ("perf".to_string(), vec!["CYCLES".to_string()]),
        ]
    );
    assert_eq!(
        pmus[0]["nevents"], 116,
        "the PMU's own count (upstream's table)"
    );
    assert_eq!(v["host"]["arch"], "aarch64");
    // Nothing matching: the document is still written, status 1.
    let o = on_g2(&["list", "--json", "NO_SUCH_EVENT"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["pmus"].as_array().map(Vec::len), Some(0));
}

#[test]
fn pmu_headers_say_the_kind_in_words_and_count_well() {
    let o = on_g2(&["list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(
        s.contains("PMU arm_n1 — Arm Neoverse N1 core PMU [core, present, 116 events, 6 generic + 0 fixed counters]"),
        "{s}"
    );
    assert!(s.contains("PMU perf_raw — perf_events raw PMU [OS generic, present, 1 event, "));
    assert!(!s.contains("OsGeneric") && !s.contains("[Core"));
    let o = pfm(&["list", "--pmu", "tx2_dmc0"]);
    assert!(
        stdout(&o).contains("[uncore, not present, "),
        "{}",
        stdout(&o)
    );
    // With a filter, the header says how many are listed.
    let o = on_g2(&["list", "arm_n1::L1D_CACHE*"]);
    assert!(
        stdout(&o).contains("116 events (12 listed)"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn output_failures_of_the_compact_list_are_reported() {
    let sh = |script: &str| {
        let o = std::process::Command::new("bash")
            .arg("-c")
            .arg(script)
            .env("PFM", env!("CARGO_BIN_EXE_pfm"))
            .output()
            .expect("bash runs");
        (stdout(&o).trim().to_string(), stderr(&o))
    };
    // A reader that goes away: silent, the status of SIGPIPE.
    let (status, err) =
        sh(r#"set -o pipefail; "$PFM" list --all -c | head -n 1 >/dev/null; echo $?"#);
    assert_eq!(status, "141");
    assert!(err.is_empty(), "{err}");
    // A full disk: said, status 1.
    let (status, err) = sh(r#""$PFM" list --all -c >/dev/full; echo $?"#);
    assert_eq!(status, "1");
    assert!(err.contains("cannot write the output"), "{err}");
    let (status, _) = sh(r#""$PFM" info nhm::ARITH perf::cycles >/dev/full; echo $?"#);
    assert_eq!(status, "1");
}
