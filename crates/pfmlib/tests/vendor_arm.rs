//! The vendors' lists are the oracle of pfmlib's own Arm core tables
//! (beyond libpfm4): every event of Arm's per-core JSON
//! (`../shared/oracle/vendor/arm/`) and of the Linux perf tool's AmpereOne
//! lists (`../shared/oracle/vendor/ampere/`, `ArchStdEvent` resolved through
//! Arm's `common_armv8.json` / `common_armv9.json`) is in the PMU's table
//! under its name, nothing more, and encodes to its code: `PFM_OS_NONE`
//! gives the event type register (the code, no filter bit with every
//! level asked for), perf_events `config = code` with the type the arm
//! engine gives a core PMU (`PERF_TYPE_RAW`, libpfm4's convention). The
//! exclusions are [`LEFT_OUT`] (events the file has but no table carries)
//! and [`UNNAMED`] (names for events the file leaves unnamed), each with why.
//! Descriptions are our own: none equals or closely paraphrases the
//! vendor's text for the event.
//!
//! The vendor folder is looked for as `.ci/run` looks for the shared
//! oracles: `PFMLIB_VENDOR_DIR`, beside `PFMLIB_ORACLE_DIR`, or a
//! `shared/oracle/vendor` above the repository (or above the main checkout
//! of a worktree). Without it the test says so and passes, unless
//! `PFMLIB_REQUIRE_ORACLE` is set (CI sets it).

mod common;

use common::words::copied;
use pfmlib::{Arch, Host, Library, Os, Plm};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Vendor file(s) → pfmlib PMU, MIDR implementer and part. The first file of
/// a PMU gives its events; a second file (another part of the same PMU) must
/// list the same ones.
const COVERED: &[(&[&str], &str, &str, &str)] = &[
    (
        &["arm/cortex-a78.json", "arm/cortex-a78c.json"],
        "arm_ac78",
        "0x41",
        "0xd41",
    ),
    (&["arm/cortex-x1.json"], "arm_x1", "0x41", "0xd44"),
    (&["arm/cortex-x1c.json"], "arm_x1c", "0x41", "0xd4c"),
    (&["arm/cortex-a710.json"], "arm_ac710", "0x41", "0xd47"),
    (&["arm/cortex-x2.json"], "arm_x2", "0x41", "0xd48"),
    (&["arm/cortex-a715.json"], "arm_ac715", "0x41", "0xd4d"),
    (&["arm/cortex-x3.json"], "arm_x3", "0x41", "0xd4e"),
    (&["arm/cortex-a720.json"], "arm_ac720", "0x41", "0xd81"),
    (&["arm/cortex-a510.json"], "arm_ac510", "0x41", "0xd46"),
    (&["arm/cortex-a520.json"], "arm_ac520", "0x41", "0xd80"),
    (
        &["arm/cortex-a725.compact.json"],
        "arm_ac725",
        "0x41",
        "0xd87",
    ),
    (
        &["arm/cortex-x925.compact.json"],
        "arm_x925",
        "0x41",
        "0xd85",
    ),
    (&["arm/cortex-a77.json"], "arm_ac77", "0x41", "0xd0d"),
    (&["arm/cortex-a75.json"], "arm_ac75", "0x41", "0xd0a"),
    (&["arm/cortex-a73.json"], "arm_ac73", "0x41", "0xd09"),
    (&["arm/cortex-a35.json"], "arm_ac35", "0x41", "0xd04"),
    (&["arm/cortex-a34.json"], "arm_ac34", "0x41", "0xd02"),
    (
        &["arm/cortex-a65.json", "arm/cortex-a65ae.json"],
        "arm_ac65",
        "0x41",
        "0xd06",
    ),
    (&["arm/neoverse-e1.json"], "arm_e1", "0x41", "0xd4a"),
    (&["ampere/ampereone"], "arm_ampereone", "0xc0", "0xac3"),
    (&["ampere/ampereonex"], "arm_ampereonex", "0xc0", "0xac4"),
];

/// Events of the vendor files no table carries, with why.
const LEFT_OUT: &[(&str, &str)] = &[
    ("CHAIN", "0x1e links an odd counter to the even one below it (one 64-bit count in two counters), not an event of its own; libpfm4's Arm tables made from this data (Cortex-X4, Neoverse V2/V3) leave it out"),
    ("<no code>", "Cortex-A34/A35 list five events (dual issue, L2 and snoop-filter RAM errors, retention) with no event number: they cannot be programmed"),
];

/// Names of the events Cortex-A34/A35 list by code alone: the Linux perf
/// tool's names for the same implementation-defined events of Cortex-A53.
const UNNAMED: &[(u32, &str)] = &[
    (0xc0, "EXT_MEM_REQ"),
    (0xc1, "EXT_MEM_REQ_NC"),
    (0xc2, "PREFETCH_LINEFILL"),
    (0xc3, "PREFETCH_LINEFILL_DROP"),
    (0xc4, "READ_ALLOC_ENTER"),
    (0xc5, "READ_ALLOC"),
    (0xc6, "PRE_DECODE_ERR"),
    (0xc7, "STALL_SB_FULL"),
    (0xc8, "EXT_SNOOP"),
    (0xc9, "BR_COND"),
    (0xca, "BR_INDIRECT_MISPRED"),
    (0xcb, "BR_INDIRECT_MISPRED_ADDR"),
    (0xcc, "BR_COND_MISPRED"),
    (0xd0, "L1I_CACHE_ERR"),
    (0xd1, "L1D_CACHE_ERR"),
    (0xd2, "TLB_ERR"),
    (0xe0, "OTHER_IQ_DEP_STALL"),
    (0xe1, "IC_DEP_STALL"),
    (0xe2, "IUTLB_DEP_STALL"),
    (0xe3, "DECODE_DEP_STALL"),
    (0xe4, "OTHER_INTERLOCK_STALL"),
    (0xe5, "AGU_DEP_STALL"),
    (0xe6, "SIMD_DEP_STALL"),
    (0xe7, "LD_DEP_STALL"),
    (0xe8, "ST_DEP_STALL"),
];

/// One vendor event: name (None: the file names none), code (None: none),
/// description.
type Raw = (Option<String>, Option<u32>, String);

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn arm_file(path: &Path) -> Vec<Raw> {
    let v = json(path);
    let events = v["events"].as_array().expect("events").clone();
    events
        .iter()
        .map(|e| {
            (
                e["name"].as_str().map(str::to_string),
                e["code"].as_u64().map(|c| c as u32),
                e["description"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn perf_dir(dir: &Path, common: &BTreeMap<String, u32>) -> Vec<Raw> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("perf folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        for e in json(&f).as_array().expect("a list").iter() {
            let desc = ["PublicDescription", "PublicDescrition", "BriefDescription"]
                .iter()
                .find_map(|k| e[*k].as_str())
                .unwrap_or_default()
                .to_string();
            if let Some(n) = e["ArchStdEvent"].as_str() {
                let code = common.get(n).copied();
                assert!(code.is_some(), "{}: {n} in no common list", f.display());
                out.push((Some(n.to_string()), code, desc));
            } else {
                let n = e["EventName"].as_str().expect("EventName");
                let c = e["EventCode"].as_str().expect("EventCode");
                let c = u32::from_str_radix(c.trim_start_matches("0x"), 16).expect("hex code");
                out.push((Some(n.to_string()), Some(c), desc));
            }
        }
    }
    out
}

/// The events a table must carry, by name: code and vendor description.
fn expected(
    raw: Vec<Raw>,
    left_out: &mut BTreeMap<&'static str, usize>,
) -> BTreeMap<String, (u32, String)> {
    let unnamed: BTreeMap<u32, &str> = UNNAMED.iter().copied().collect();
    let mut out = BTreeMap::new();
    for (name, code, desc) in raw {
        let Some(code) = code else {
            *left_out.entry("<no code>").or_default() += 1;
            continue;
        };
        let name = match name {
            Some(n) => n,
            None => unnamed
                .get(&code)
                .expect("a name for every unnamed code")
                .to_string(),
        };
        if let Some((n, _)) = LEFT_OUT.iter().find(|(n, _)| *n == name) {
            *left_out.entry(n).or_default() += 1;
            continue;
        }
        let old = out.insert(name.clone(), (code, desc));
        assert!(old.is_none(), "{name} twice in a vendor list");
    }
    out
}

fn cpuinfo(implementer: &str, part: &str) -> String {
    format!("processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd cpuid\nCPU implementer\t: {implementer}\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: {part}\nCPU revision\t: 0\n\n")
}

#[test]
fn every_vendor_event_encodes_to_its_code() {
    let Some(dir) = common::vendor::vendor_dir("arm") else {
        return;
    };
    let mut common = BTreeMap::new();
    for f in ["arm/common_armv8.json", "arm/common_armv9.json"] {
        for (n, c, _) in arm_file(&dir.join(f)) {
            if let (Some(n), Some(c)) = (n, c) {
                common.insert(n, c);
            }
        }
    }
    let (mut checked, mut problems) = (0, Vec::new());
    let mut left_out = BTreeMap::new();
    for (files, pmu, implementer, part) in COVERED {
        let load = |f: &str| {
            if f.starts_with("ampere/") {
                perf_dir(&dir.join(f), &common)
            } else {
                arm_file(&dir.join(f))
            }
        };
        let want = expected(load(files[0]), &mut left_out);
        for f in &files[1..] {
            let other = expected(load(f), &mut BTreeMap::new());
            let codes = |m: &BTreeMap<String, (u32, String)>| {
                m.iter()
                    .map(|(n, (c, _))| (n.clone(), *c))
                    .collect::<Vec<_>>()
            };
            assert_eq!(codes(&other), codes(&want), "{f} and {} differ", files[0]);
        }
        let lib = Library::with_host(Host::from_cpuinfo(
            Arch::Aarch64,
            &cpuinfo(implementer, part),
        ));
        let p = lib.pmu(pmu).unwrap_or_else(|| panic!("no PMU {pmu}"));
        assert!(
            p.info().is_present,
            "{pmu} not detected on {implementer}/{part}"
        );
        let ours: BTreeMap<String, String> = p
            .events()
            .map(|e| {
                (
                    e.info(Os::None).name.to_string(),
                    e.info(Os::None).desc.to_string(),
                )
            })
            .collect();
        for n in ours.keys().filter(|n| !want.contains_key(*n)) {
            problems.push(format!("{pmu}: {n} is in no vendor list"));
        }
        for (name, (code, vdesc)) in &want {
            checked += 1;
            let Some(our_desc) = ours.get(name) else {
                problems.push(format!("{pmu}: {name} (0x{code:x}) missing"));
                continue;
            };
            if let Some(why) = copied(our_desc, vdesc) {
                problems.push(format!(
                    "{pmu}::{name}: description reads as the vendor's ({why})"
                ));
            }
            let ev = format!("{pmu}::{name}");
            match lib.encode(&ev, Plm::ALL, Os::None) {
                Ok(e) if e.codes == vec![u64::from(*code)] => {}
                other => problems.push(format!("{ev} PFM_OS_NONE: {other:?}, want 0x{code:x}")),
            }
            match lib.encode(&ev, Plm::ALL, Os::PerfEvent) {
                Ok(e) => match e.perf {
                    Some(a) if a.config == u64::from(*code) && a.type_ == 4 => {}
                    a => problems.push(format!("{ev} perf_events: {a:?}, want RAW 0x{code:x}")),
                },
                Err(e) => problems.push(format!("{ev} perf_events: {e}")),
            }
        }
    }
    eprintln!(
        "{checked} vendor events checked over {} PMUs; left out: {left_out:?}",
        COVERED.len()
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
