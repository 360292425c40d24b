//! The vendor lists as the oracle of the RISC-V tables: every event of
//! every file of the perf tool's RISC-V lists (`../shared/oracle/vendor/
//! riscv/`, read at test time) must encode with our tables to the `config`
//! its fields give (README there: a hardware event `EventCode`, bits 0-47;
//! a firmware event `ConfigCode` = 1<<63 | id), as the one code for
//! PFM_OS_NONE and as `PERF_TYPE_RAW`/`config` for perf_events, on a host
//! whose identity registers match the folder's `mapfile.csv` row (which
//! must detect exactly that core's PMU and the firmware PMU). Nothing
//! missing, nothing extra, beyond [`EXCLUDED`]. Our descriptions must not
//! copy the vendor's texts.
//!
//! Without the vendor folder the test prints `SKIPPED` and passes, unless
//! `PFMLIB_REQUIRE_ORACLE` is set (CI sets it).

mod common;

use common::riscv::{cpuinfo, host, vendor_dir, Hart, CORES};
use common::words::copied;
use pfmlib::{Library, Os, Plm};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The firmware PMU.
const SBI: &str = "riscv_sbi";

/// Vendor events no table of ours has, and why.
const EXCLUDED: &[(&str, &str)] = &[(
    "riscv-generic.json: riscv_cycles, riscv_time, riscv_instret",
    "shared definitions of the fixed counters that no core's list references \
         (perf counts them as its generic cycles/instructions events)",
)];

/// An event of the vendor lists: the config it must encode to, its texts.
#[derive(Clone)]
struct VendorEvent {
    config: u64,
    texts: Vec<String>,
}

/// `0x` hexadecimal.
fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hexadecimal field")
}

fn records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("readable vendor file");
    let v: Value = serde_json::from_str(&text).expect("JSON");
    v.as_array().cloned().unwrap_or_default()
}

/// A record's name and event (`None` for an `ArchStdEvent` reference).
fn event_of(r: &Value) -> Option<(String, VendorEvent)> {
    let name = r.get("EventName")?.as_str()?.to_string();
    let config = match (r.get("EventCode"), r.get("ConfigCode")) {
        (Some(c), None) => {
            let c = hex(c.as_str().expect("string code"));
            assert!(c < 1 << 48, "{name}: a hardware code above bit 47");
            c
        }
        (None, Some(c)) => hex(c.as_str().expect("string code")),
        _ => panic!("{name}: neither EventCode nor ConfigCode"),
    };
    let texts = ["BriefDescription", "PublicDescription"]
        .iter()
        .filter_map(|k| r.get(*k)?.as_str().map(str::to_string))
        .collect();
    Some((name, VendorEvent { config, texts }))
}

/// The shared events (`riscv-generic.json`, `riscv-sbi-firmware.json`).
fn shared(dir: &Path) -> BTreeMap<String, VendorEvent> {
    ["riscv-generic.json", "riscv-sbi-firmware.json"]
        .iter()
        .flat_map(|f| records(&dir.join(f)))
        .map(|r| event_of(&r).expect("a shared event"))
        .collect()
}

/// A folder's events, `ArchStdEvent` references resolved, by name.
fn folder_events(
    dir: &Path,
    shared: &BTreeMap<String, VendorEvent>,
) -> BTreeMap<String, VendorEvent> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("a core folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = BTreeMap::new();
    for r in files.iter().flat_map(|f| records(f)) {
        let (name, ev) = match r.get("ArchStdEvent").and_then(Value::as_str) {
            Some(std) => (std.to_string(), shared[std].clone()),
            None => event_of(&r).expect("an event"),
        };
        assert!(out.insert(name.clone(), ev).is_none(), "{name} twice");
    }
    out
}

/// `mapfile.csv`'s core rows: (identity pattern, folder).
fn mapfile(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("mapfile.csv")).expect("mapfile.csv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            assert_eq!(c[3], "core", "{l}");
            (c[0].to_string(), c[2].to_string())
        })
        .collect()
}

/// An identity matching a mapfile pattern: each class its first digit,
/// each `[[:xdigit:]]+` a 5.
fn sample_ids(pattern: &str) -> (u64, u64, u64) {
    let p = pattern.replace("[[:xdigit:]]+", "5");
    let mut s = String::new();
    let mut it = p.chars();
    while let Some(c) = it.next() {
        if c == '[' {
            s.push(it.next().expect("a class digit"));
            for d in it.by_ref() {
                if d == ']' {
                    break;
                }
            }
        } else {
            s.push(c);
        }
    }
    let ids: Vec<u64> = s.split('-').map(hex).collect();
    (ids[0], ids[1], ids[2])
}

/// Encodes `pmu::name` both ways; what differs from `config`.
fn check_encoding(lib: &Library, pmu: &str, name: &str, config: u64) -> Option<String> {
    let ev = format!("{pmu}::{name}");
    let none = lib.encode(&ev, Plm::DEFAULT, Os::None);
    let perf = lib.encode(&ev, Plm::DEFAULT, Os::PerfEvent);
    match (none, perf) {
        (Ok(n), Ok(p)) => {
            let attr = p.perf.expect("perf attributes");
            let ok = n.codes == [config] && attr.type_ == 4 && attr.config == config;
            (!ok).then(|| {
                format!(
                    "{ev}: want {config:#x}, got codes {:x?}, perf type {} config {:#x}",
                    n.codes, attr.type_, attr.config
                )
            })
        }
        (n, p) => Some(format!("{ev}: {:?} / {:?}", n.err(), p.err())),
    }
}

#[test]
fn every_vendor_event_encodes_as_its_fields_say() {
    let Some(dir) = vendor_dir("vendor_riscv") else {
        return;
    };
    let shared = shared(&dir);
    let firmware: BTreeSet<&String> = shared
        .iter()
        .filter(|(_, e)| e.config >> 63 == 1)
        .map(|(n, _)| n)
        .collect();
    let mut bad = Vec::new();
    let mut checked = 0;
    let rows = mapfile(&dir);
    assert_eq!(rows.len(), CORES.len(), "a mapfile row per core, none new");
    for (pattern, folder) in &rows {
        let pmu = CORES
            .iter()
            .find(|c| c.0 == folder)
            .unwrap_or_else(|| panic!("{folder}: no PMU of ours"))
            .1;
        let hart = Hart {
            isa: "rv64imafdc_zicntr_zicsr_zifencei_zihpm",
            uarch: None,
            ids: sample_ids(pattern),
        };
        let lib = Library::with_host(host(&cpuinfo(&hart, 0, 4), true));
        let present: BTreeSet<String> = lib
            .pmus()
            .filter(|p| p.info().is_present && p.name().starts_with("riscv_"))
            .map(|p| p.name().to_string())
            .collect();
        let want: BTreeSet<String> = [pmu, SBI].iter().map(|s| s.to_string()).collect();
        assert_eq!(present, want, "{folder} ({pattern}): PMUs detected");
        let events = folder_events(&dir.join(folder), &shared);
        let mut ours_want = BTreeSet::new();
        for (name, ev) in &events {
            let target = if firmware.contains(name) { SBI } else { pmu };
            if target == pmu {
                ours_want.insert(name.clone());
            }
            bad.extend(check_encoding(&lib, target, name, ev.config));
            checked += 1;
        }
        let ours: BTreeSet<String> = lib
            .pmu(pmu)
            .expect("our PMU")
            .events()
            .map(|e| e.info(Os::None).name.to_string())
            .collect();
        assert_eq!(ours, ours_want, "{pmu}: events, against {folder}");
    }
    // The firmware PMU: exactly the shared file's firmware events.
    let lib = Library::with_host(host("processor\t: 0\nisa\t\t: rv64imafdc\n", true));
    let sbi: BTreeSet<String> = lib
        .pmu(SBI)
        .expect("the firmware PMU")
        .events()
        .map(|e| e.info(Os::None).name.to_string())
        .collect();
    let want: BTreeSet<String> = firmware.iter().map(|s| s.to_string()).collect();
    assert_eq!(sbi, want, "{SBI}: the firmware events");
    for name in &firmware {
        bad.extend(check_encoding(&lib, SBI, name, shared[*name].config));
        checked += 1;
    }
    eprintln!(
        "vendor_riscv: {checked} vendor events checked (both OS layers), {} excluded groups: {:?}",
        EXCLUDED.len(),
        EXCLUDED.iter().map(|e| e.0).collect::<Vec<_>>()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// No description of ours equals or closely paraphrases the vendor's text
/// of the same event.
#[test]
fn descriptions_are_our_own() {
    let Some(dir) = vendor_dir("vendor_riscv") else {
        return;
    };
    let shared = shared(&dir);
    let lib = Library::with_host(host("processor\t: 0\nisa\t\t: rv64imafdc\n", true));
    let mut bad = Vec::new();
    let mut pairs: Vec<(&str, BTreeMap<String, VendorEvent>)> = CORES
        .iter()
        .map(|(folder, pmu)| (*pmu, folder_events(&dir.join(folder), &shared)))
        .collect();
    pairs.push((SBI, shared.clone()));
    for (pmu, events) in &pairs {
        for ev in lib.pmu(pmu).expect("our PMU").events() {
            let info = ev.info(Os::None);
            let Some(theirs) = events.get(info.name) else {
                continue;
            };
            for t in &theirs.texts {
                if let Some(why) = copied(info.desc, t) {
                    bad.push(format!(
                        "{pmu}::{}: {why}: {:?} / {t:?}",
                        info.name, info.desc
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn sample_identities() {
    assert_eq!(
        sample_ids("0x489-0x8000000000000[1-9a-e]07-0x[78ac][[:xdigit:]]+"),
        (0x489, 0x8000_0000_0000_0107, 0x75)
    );
    assert_eq!(sample_ids("0x5b7-0x0-0x0"), (0x5b7, 0, 0));
}
