//! IA-64 tables against the libpfm-3 reference results in
//! `../shared/oracle/ia64/events_<pmu>.jsonl`: every event, every query.
//!
//! The reference files live outside the project; without them the test is
//! skipped with a printed reason, unless `PFMLIB_REQUIRE_ORACLE` is set (CI).

use pfmlib::{Library, Os};
use pfmlib_dispatch::ia64::Ia64Event;
use serde_json::Value;
use std::path::PathBuf;

fn oracle_dir() -> Option<PathBuf> {
    let d = match std::env::var_os("PFMLIB_ORACLE_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracle/ia64"),
    };
    if d.is_dir() {
        return Some(d);
    }
    if std::env::var_os("PFMLIB_REQUIRE_ORACLE").is_some() {
        panic!("reference directory {} is missing", d.display());
    }
    eprintln!(
        "skipped: reference directory {} is missing (set PFMLIB_REQUIRE_ORACLE=1 to fail instead)",
        d.display()
    );
    None
}

/// Our answers for one event, under the reference field names.
fn ours(ev: &pfmlib::Event) -> Value {
    let q = Ia64Event::new(*ev).expect("IA-64 event has IA-64 facts");
    let mut v = serde_json::to_value(q.queries()).expect("serialisable");
    v["name"] = ev.name().into();
    v["code"] = ev.info(Os::None).code.into();
    v["code_hex"] = format!("{:#x}", ev.info(Os::None).code).into();
    v
}

fn compare(pmu: &str, expected_count: usize) {
    let Some(dir) = oracle_dir() else { return };
    let text = std::fs::read_to_string(dir.join(format!("events_{pmu}.jsonl")))
        .expect("reference file readable");
    let lib = Library::global();
    let p = lib.pmu(pmu).expect("PMU known");
    let events: Vec<_> = p.events().collect();
    assert_eq!(events.len(), expected_count, "{pmu}: event count");
    let mut checked = 0;
    let mut bad = Vec::new();
    for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let r: Value = serde_json::from_str(line).expect("reference line is JSON");
        let name = r["name"].as_str().expect("name");
        let Some(ev) = events.get(i) else {
            bad.push(format!("#{i} {name}: missing"));
            continue;
        };
        // Same index order as libpfm-3, and found by name.
        if ev.name() != name {
            bad.push(format!("#{i}: ours {} reference {name}", ev.name()));
        }
        let found = lib
            .find_event(&format!("{pmu}::{name}"))
            .expect("found by name");
        assert_eq!(found.name(), name);
        let o = ours(ev);
        for (k, want) in r.as_object().expect("object") {
            let got = &o[k.as_str()];
            if got != want {
                bad.push(format!("{name}: {k}: ours {got} reference {want}"));
            }
            checked += 1;
        }
    }
    assert!(
        bad.is_empty(),
        "{pmu}: {} mismatches of {checked} values:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
    eprintln!(
        "{pmu}: {} events, {checked} query results agree",
        events.len()
    );
}

#[test]
fn itanium_agrees_with_reference() {
    compare("itanium", 230);
}

#[test]
fn itanium2_agrees_with_reference() {
    if Library::global().pmu("itanium2").is_none() {
        return;
    }
    compare("itanium2", 497);
}

#[test]
fn montecito_agrees_with_reference() {
    if Library::global().pmu("montecito").is_none() {
        return;
    }
    compare("montecito", 637);
}

#[test]
fn ear_mode_of_a_non_ear_event_is_an_error() {
    let ev = Library::global()
        .find_event("itanium::CPU_CYCLES")
        .expect("known");
    let err = Ia64Event::new(ev)
        .expect("ia64")
        .ear_mode()
        .expect_err("not an EAR");
    assert_eq!(err.kind().code(), -2);
    assert!(err.to_string().contains("CPU_CYCLES"));
}
