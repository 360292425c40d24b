//! `pfm info EVENT...`: several events, JSON Lines, one bad event among good ones.

mod common;

use common::{pfm, stderr, stdout};
use serde_json::Value;

#[test]
fn several_events_in_text_one_after_the_other() {
    let o = pfm(&["info", "nhm::ARITH", "perf::cycles", "arm_n1::CPU_CYCLES"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    let names: Vec<&str> = s.lines().filter(|l| l.starts_with("Name ")).collect();
    assert_eq!(
        names,
        [
            "Name     : nhm::ARITH",
            "Name     : perf::PERF_COUNT_HW_CPU_CYCLES",
            "Name     : arm_n1::CPU_CYCLES"
        ]
    );
    // Blank lines separate the events, none before the first.
    assert!(s.starts_with("Name "));
    assert_eq!(s.matches("\n\nName ").count(), 2);
}

#[test]
fn a_bad_event_among_good_ones_is_reported_and_status_1() {
    let o = pfm(&["info", "nhm::ARITH", "nhm::NOPE", "perf::cycles"]);
    assert_eq!(o.status.code(), Some(1));
    let s = stdout(&o);
    assert!(s.contains("Name     : nhm::ARITH"));
    assert!(s.contains("Name     : perf::PERF_COUNT_HW_CPU_CYCLES"));
    assert!(stderr(&o).contains("\"nhm::NOPE\""), "{}", stderr(&o));
    let o = pfm(&["info"]);
    assert_eq!(o.status.code(), Some(2), "at least one event");
}

#[test]
fn json_is_one_object_a_line() {
    let o = pfm(&[
        "info",
        "--json",
        "nhm::MEM_LOAD_RETIRED",
        "nhm::NOPE",
        "perf::cycles",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["name"], "MEM_LOAD_RETIRED");
    assert_eq!(lines[0]["pmu_desc"], "Intel Nehalem");
    assert_eq!(lines[1]["ok"], false);
    assert_eq!(lines[1]["event"], "nhm::NOPE");
    assert_eq!(lines[1]["error"]["name"], "PFM_ERR_NOTFOUND");
    assert_eq!(lines[2]["name"], "PERF_COUNT_HW_CPU_CYCLES");
    // One event: the single object of before, the whole output.
    let o = pfm(&["info", "--json", "nhm::MEM_LOAD_RETIRED"]);
    assert!(o.status.success());
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("one object");
    assert_eq!(v["name"], "MEM_LOAD_RETIRED");
    assert_eq!(v["is_precise"], true);
}
