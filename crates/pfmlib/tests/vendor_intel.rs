//! The vendor list is the oracle: every event of Intel's perfmon event
//! lists (`../shared/oracle/vendor/intel/<CPU>/<cpu>_core.json`) of the
//! CPUs pfmlib covers beyond libpfm4 encodes, with our tables, to the
//! config (and config1) its fields give, for PFM_OS_PERF_EVENT and
//! PFM_OS_NONE; nothing is missing from our tables or extra in them beyond
//! [`EXCLUDED`]; and no description of ours repeats the vendor's text.
//!
//! The folder is found through `PFMLIB_VENDOR_DIR`, else beside
//! `PFMLIB_ORACLE_DIR` (`../shared/oracle/ia64`, set by `.ci/run`), else
//! `shared/oracle/vendor` beside the repository or its main checkout. The
//! test is SKIPPED when it is nowhere, unless `PFMLIB_REQUIRE_ORACLE` is set
//! (CI sets it), then it fails.
//!
//! Encoding rules (the folder's README): config = EventCode | UMask<<8 |
//! EdgeDetect<<18 | AnyThread<<21 | Invert<<23 | CounterMask<<24 |
//! Equal<<36 | UMaskExt<<40; MSRIndex 0x1a6/0x1a7 (offcore response, one
//! event `OCR<n>` per UMask value) and 0x3f6 (load latency) give config1 =
//! MSRValue, as do 0x3f7 (precise front end) and Nova Lake's off-module
//! response MSRs 0x3e0-0x3e3 (one event per UMask value, as offcore).
//! Newer offcore events list one EventCode per MSR (`0x2A,0x2B`): event
//! `OCR<n>` takes the n-th. Fixed-counter pseudo events (EventCode 0x00) are compared as
//! perf programs them ([`FIXED_AS_PERF`]).

mod common;

use common::words::copied;
use pfmlib::{Host, Library, Options, Os, Plm, Vendor};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Offcore matrix files (under `intel/`) of the CPUs that have one.
const MATRIX: &[(&str, &str)] = &[("glp", "GLP/goldmontplus_matrix.json")];

/// PMU, vendor file (under `intel/`), a family and model it is detected on.
const CPUS: &[(&str, &str, (u32, u32))] = &[
    ("srf", "SRF/sierraforest_core.json", (6, 0xaf)),
    ("grr", "GRR/grandridge_core.json", (6, 0xb6)),
    ("cwf", "CWF/clearwaterforest_core.json", (6, 0xdd)),
    ("adln_grt", "ADL/alderlake_gracemont_core.json", (6, 0xbe)),
    ("glp", "GLP/goldmontplus_core.json", (6, 0x7a)),
    ("mtl_rwc", "MTL/meteorlake_redwoodcove_core.json", (6, 0xaa)),
    ("mtl_cmt", "MTL/meteorlake_crestmont_core.json", (6, 0xaa)),
    ("arl_lnc", "ARL/arrowlake_lioncove_core.json", (6, 0xc5)),
    ("arl_skt", "ARL/arrowlake_skymont_core.json", (6, 0xc5)),
    ("arl_cmt", "ARL/arrowlake_crestmont_core.json", (6, 0xc5)),
    ("lnl_lnc", "LNL/lunarlake_lioncove_core.json", (6, 0xbd)),
    ("lnl_skt", "LNL/lunarlake_skymont_core.json", (6, 0xbd)),
    ("ptl_cgc", "PTL/pantherlake_cougarcove_core.json", (6, 0xcc)),
    ("ptl_dkt", "PTL/pantherlake_darkmont_core.json", (6, 0xcc)),
    ("nvl_cyc", "NVL/novalake_coyotecove_core.json", (18, 0x1)),
    ("nvl_arw", "NVL/novalake_arcticwolf_core.json", (18, 0x1)),
    ("ehl", "EHL/elkhartlake_core.json", (6, 0x96)),
];

/// Vendor events left out of the comparison, with why: none. Deprecated
/// events are in our tables (they still count; the event is flagged
/// `deprecated` when all its unit masks are).
const EXCLUDED: &[(&str, &str)] = &[];

/// Fixed-counter pseudo events (EventCode 0x00, UMask n selects fixed
/// counter n-1) as the Linux kernel programs them: the general-counter
/// code its fixed-counter constraints name (INST_RETIRED.ANY 0xc0,
/// CPU_CLK_UNHALTED.CORE/THREAD 0x3c, the TOPDOWN_*.ALL of fixed counters
/// 4-6 as 0x73, 0x019c, 0x02c2), and the pseudo code 0x0300 of
/// CPU_CLK_UNHALTED.REF_TSC, which only fixed counter 2 takes; the P-cores'
/// INST_RETIRED.PREC_DIST and TOPDOWN.SLOTS, which have no general-counter
/// twin, as the kernel's pseudo codes 0x0100 and 0x0400 (fixed counters 0
/// and 3).
const FIXED_AS_PERF: &[(&str, u64)] = &[
    ("INST_RETIRED.PREC_DIST", 0x0100),
    ("TOPDOWN.SLOTS", 0x0400),
    ("INST_RETIRED.ANY", 0x00c0),
    ("CPU_CLK_UNHALTED.CORE", 0x003c),
    ("CPU_CLK_UNHALTED.THREAD", 0x003c),
    ("CPU_CLK_UNHALTED.REF_TSC", 0x0300),
    ("TOPDOWN_BAD_SPECULATION.ALL", 0x0073),
    ("TOPDOWN_FE_BOUND.ALL", 0x019c),
    ("TOPDOWN_RETIRING.ALL", 0x02c2),
];

/// The vendor folder, or `None` (after saying why) when it is not there.
fn vendor_dir() -> Option<PathBuf> {
    common::vendor::vendor_dir("intel")
}

fn num(v: &Value, k: &str) -> u64 {
    parse(v.get(k).and_then(Value::as_str).unwrap_or("0"), k)
}

fn parse(s: &str, k: &str) -> u64 {
    let s = s.trim();
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.unwrap_or_else(|_| panic!("{k} = {s:?}"))
}

fn text<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// One expected encoding: our event string, config, config1 (`None`: the
/// list's bare offcore event, whose response register it leaves open).
struct Want {
    name: String,
    config: u64,
    config1: Option<u64>,
    vendor_texts: Vec<String>,
}

/// What a vendor event must encode to, under our names (`matrix`: the
/// CPU's offcore events are request x response, `OFFCORE_RESPONSE_<n>`).
fn wants(e: &Value, matrix: bool) -> Vec<Want> {
    let name = text(e, "EventName");
    if matrix && !name.contains('.') {
        // The bare offcore event: OFFCORE_RESPONSE_<n> with any request.
        return text(e, "UMask")
            .split(',')
            .enumerate()
            .map(|(i, u)| Want {
                name: format!("{name}_{i}:ANY_REQUEST"),
                config: num(e, "EventCode") | parse(u, "UMask") << 8,
                config1: None,
                vendor_texts: vec![],
            })
            .collect();
    }
    let (ev, um) = name.split_once('.').expect("EVENT.UMASK");
    let msr = text(e, "MSRIndex").to_ascii_lowercase();
    let um = match um.split_once('.') {
        Some((req, resp)) if matrix && msr.contains("0x1a6") => {
            format!("{req}:{}", resp.replace('.', "_"))
        }
        _ => um.replace('.', "_"),
    };
    let second = if msr == "0x00" || msr == "0" {
        0
    } else {
        num(e, "MSRValue")
    };
    let codes: Vec<u64> = text(e, "EventCode")
        .split(',')
        .map(|c| parse(c, "EventCode"))
        .collect();
    let base = num(e, "EdgeDetect") << 18
        | num(e, "AnyThread") << 21
        | num(e, "Invert") << 23
        | num(e, "CounterMask") << 24
        | num(e, "Equal") << 36
        | num(e, "UMaskExt") << 40;
    let texts = vec![
        text(e, "BriefDescription").to_string(),
        text(e, "PublicDescription").to_string(),
    ];
    let mut umasks: Vec<&str> = text(e, "UMask").split(',').collect();
    let offcore = msr.contains("0x1a6") || msr.contains("0x3e0");
    if offcore {
        // One event per response register listed (MSR 0x1a6 alone, Goldmont
        // Plus' OUTSTANDING: the first only), each with its unit mask (one
        // for all where the list gives one).
        umasks.resize(msr.split(',').count(), umasks[0]);
    }
    umasks
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let u = parse(u, "UMask");
            let base = base | codes.get(i).or(codes.last()).copied().unwrap_or(0);
            let (ours, mut config) = if offcore && matrix {
                (format!("{ev}_{i}:{um}"), base | u << 8)
            } else if offcore {
                (format!("{ev}{i}:{um}"), base | u << 8)
            } else {
                (format!("{ev}:{um}"), base | u << 8)
            };
            if codes == [0] {
                config = FIXED_AS_PERF
                    .iter()
                    .find(|f| f.0 == name)
                    .unwrap_or_else(|| panic!("{name}: fixed-counter event not in FIXED_AS_PERF"))
                    .1;
            }
            Want {
                name: ours,
                config,
                config1: Some(second),
                vendor_texts: texts.clone(),
            }
        })
        .collect()
}

/// The entries of an offcore matrix: name (dots as `_`), registers,
/// description.
fn matrix_entries(dir: &Path, file: &str) -> Vec<(String, Vec<u64>, String)> {
    vendor_events(dir, file)
        .iter()
        .map(|m| {
            let req = text(m, "MATRIX_REQUEST");
            let name = if req == "Null" {
                text(m, "MATRIX_RESPONSE")
            } else {
                req
            };
            let regs = text(m, "MATRIX_REGISTER")
                .split(',')
                .map(|r| parse(r, "reg"))
                .collect();
            (
                name.replace('.', "_"),
                regs,
                text(m, "DESCRIPTION").to_string(),
            )
        })
        .collect()
}

fn vendor_events(dir: &Path, file: &str) -> Vec<Value> {
    let path = dir.join("intel").join(file);
    let t = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&t).expect("JSON");
    doc["Events"].as_array().expect("Events").clone()
}

fn library(model: u32) -> Library {
    Library::new(Host::synthetic(Vendor::Intel, 6, model), Options::new())
}

/// A synthetic host of this family and model (no hybrid facts: every PMU
/// of the model is active).
fn library_for((family, model): (u32, u32)) -> Library {
    Library::new(
        Host::synthetic(Vendor::Intel, family, model),
        Options::new(),
    )
}

/// PERFEVTSEL bits that PFM_OS_NONE adds: USR, OS (default k and u), INT, EN.
const NONE_BITS: u64 = 1 << 16 | 1 << 17 | 1 << 20 | 1 << 22;

#[test]
fn every_vendor_event_encodes_as_its_fields_say() {
    let Some(dir) = vendor_dir() else { return };
    let mut checked = 0;
    for &(pmu, file, model) in CPUS {
        let lib = library_for(model);
        let matrix = MATRIX.iter().any(|m| m.0 == pmu);
        let mut bad = vec![];
        for e in vendor_events(&dir, file) {
            if EXCLUDED
                .iter()
                .any(|x| x.0 == pmu && x.1 == text(&e, "EventName"))
            {
                continue;
            }
            for w in wants(&e, matrix) {
                let s = format!("{pmu}::{}", w.name);
                checked += 1;
                match lib.encode(&s, Plm::DEFAULT, Os::PerfEvent) {
                    Ok(enc) => {
                        let p = enc.perf.expect("perf attr");
                        let c1 = w.config1.unwrap_or(p.config1);
                        if (p.config, p.config1) != (w.config, c1) {
                            bad.push(format!(
                                "{s}: perf {:#x}/{:#x}, vendor {:#x}/{c1:#x}",
                                p.config, p.config1, w.config
                            ));
                        }
                    }
                    Err(err) => bad.push(format!("{s}: {err}")),
                }
                match lib.encode(&s, Plm::DEFAULT, Os::None) {
                    Ok(enc) => {
                        let mut want = vec![w.config | NONE_BITS];
                        match w.config1 {
                            Some(0) => {}
                            Some(c1) => want.push(c1),
                            None => want.extend(enc.codes.get(1)),
                        }
                        if enc.codes != want {
                            bad.push(format!("{s}: none {:#x?}, vendor {want:#x?}", enc.codes));
                        }
                    }
                    Err(err) => bad.push(format!("{s}: {err}")),
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{pmu}: {} differences:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }
    eprintln!("vendor_intel: {checked} vendor unit masks checked");
}

#[test]
fn nothing_missing_or_extra_and_our_own_words() {
    let Some(dir) = vendor_dir() else { return };
    for &(pmu, file, model) in CPUS {
        let lib = library_for(model);
        let events = vendor_events(&dir, file);
        let mut vendor: BTreeSet<String> = BTreeSet::new();
        let mut texts = std::collections::BTreeMap::new();
        let matrix = MATRIX.iter().find(|m| m.0 == pmu);
        for e in &events {
            for w in wants(e, matrix.is_some()) {
                let (ev, ums) = w.name.split_once(':').expect("EVENT:UMASK");
                if ums.contains(':') || w.config1.is_none() {
                    // Request and response: two unit masks of the matrix.
                    for u in ums.split(':') {
                        vendor.insert(format!("{ev}:{u}"));
                    }
                    continue;
                }
                texts.insert(w.name.clone(), w.vendor_texts.clone());
                vendor.insert(w.name);
            }
        }
        for (name, regs, desc) in matrix
            .map(|m| matrix_entries(&dir, m.1))
            .unwrap_or_default()
        {
            for r in regs {
                let key = format!("OFFCORE_RESPONSE_{r}:{name}");
                texts.insert(key.clone(), vec![desc.clone()]);
                vendor.insert(key);
            }
        }
        let p = lib.pmu(pmu).expect("PMU");
        let mut ours = BTreeSet::new();
        let mut bad = vec![];
        for ev in p.events() {
            let info = ev.info(Os::None);
            for a in ev.attrs(Os::None) {
                if a.attr_type != pfmlib::AttrType::Umask {
                    continue;
                }
                let key = format!("{}:{}", info.name, a.name);
                for t in texts.get(&key).into_iter().flatten() {
                    if let Some(why) = copied(a.desc, t) {
                        bad.push(format!("{key}: {why}"));
                    }
                }
                if a.desc == "TODO" || info.desc == "TODO" {
                    bad.push(format!("{key}: no description yet"));
                }
                ours.insert(key);
            }
        }
        let excluded: BTreeSet<String> = EXCLUDED
            .iter()
            .filter(|x| x.0 == pmu)
            .map(|x| x.1.replacen('.', ":", 1))
            .collect();
        let missing: Vec<_> = vendor
            .difference(&ours)
            .filter(|n| !excluded.contains(*n))
            .collect();
        let extra: Vec<_> = ours.difference(&vendor).collect();
        assert!(missing.is_empty(), "{pmu}: missing {missing:?}");
        assert!(extra.is_empty(), "{pmu}: extra {extra:?}");
        assert!(bad.is_empty(), "{pmu}:\n{}", bad.join("\n"));
    }
}

/// The hard-wired load-latency threshold of a `LOAD_LATENCY_GT_<n>` unit
/// mask: `ldlat=` may repeat it, not change it.
#[test]
fn hard_wired_load_latency() {
    let lib = library(0xaf);
    let enc = |s: &str| lib.encode(s, Plm::DEFAULT, Os::PerfEvent);
    let e = enc("srf::MEM_UOPS_RETIRED:LOAD_LATENCY_GT_64").expect("encodes");
    assert_eq!(e.perf.map(|p| (p.config, p.config1)), Some((0x5d0, 64)));
    assert!(e.fstr.contains(":ldlat=64"), "{}", e.fstr);
    let e = enc("srf::MEM_UOPS_RETIRED:LOAD_LATENCY_GT_64:ldlat=64").expect("same value");
    assert_eq!(e.perf.map(|p| p.config1), Some(64));
    let err = enc("srf::MEM_UOPS_RETIRED:LOAD_LATENCY_GT_64:ldlat=8").expect_err("other value");
    assert_eq!(err.kind(), pfmlib::ErrorKind::AttrSet);
}

/// Jasper Lake (family 6 model 0x9c) is detected as `tmt` (pfmlib's own
/// addition: libpfm4 detects tmt on 0x86 and 0x96 only), since Intel maps
/// it to Elkhart Lake's list (`EHL/elkhartlake_core.json`, tmt's 0x96).
/// `tmt` stays libpfm4's table: every unit mask of it that the list names
/// (`OCR0`/`OCR1` of the list are tmt's `OFFCORE_RESPONSE_0`/`_1`) encodes
/// as the list says; the list's events tmt lacks are counted, not required
/// (`ehl`, detected beside `tmt` on 0x96 and 0x9c, is the complete Tremont
/// table from the list, checked with the other CPUs above).
/// tmt unit masks whose value differs from the list's, with why: libpfm4's
/// table has the older L3-miss response bits (0x3f04000000; Intel's list now
/// 0x2184000000). tmt keeps libpfm4's values (pfmlib follows libpfm4 there).
const TMT_DIFFERS: &[&str] = &[
    "OFFCORE_RESPONSE_0:DEMAND_DATA_RD_L3_MISS",
    "OFFCORE_RESPONSE_1:DEMAND_DATA_RD_L3_MISS",
    "OFFCORE_RESPONSE_0:DEMAND_RFO_L3_MISS",
    "OFFCORE_RESPONSE_1:DEMAND_RFO_L3_MISS",
];

#[test]
fn jasper_lake_is_tmt_and_tmt_agrees_with_the_list() {
    let lib = library(0x9c);
    assert!(lib.pmu("tmt").is_some_and(|p| p.info().is_present));
    let Some(dir) = vendor_dir() else { return };
    let (mut same, mut absent, mut bad) = (0, 0, vec![]);
    for e in vendor_events(&dir, "EHL/elkhartlake_core.json") {
        for w in wants(&e, false) {
            let name = w.name.replacen("OCR0:", "OFFCORE_RESPONSE_0:", 1).replacen(
                "OCR1:",
                "OFFCORE_RESPONSE_1:",
                1,
            );
            let s = format!("tmt::{name}");
            let (ev, um) = name.split_once(':').unwrap_or_default();
            let known = lib.find_event(&format!("tmt::{ev}")).is_ok_and(|x| {
                x.attrs(Os::None)
                    .iter()
                    .any(|a| a.attr_type == pfmlib::AttrType::Umask && a.name == um)
            });
            if !known {
                absent += 1;
                continue;
            }
            if TMT_DIFFERS.contains(&name.as_str()) {
                continue;
            }
            match lib.encode(&s, Plm::DEFAULT, Os::PerfEvent) {
                Ok(enc)
                    if enc.perf.map(|p| (p.config, p.config1))
                        == Some((w.config, w.config1.unwrap_or_default())) =>
                {
                    same += 1
                }
                Ok(enc) => bad.push(format!(
                    "{s}: {:x?}, list {:#x}/{:#x}",
                    enc.perf.map(|p| (p.config, p.config1)),
                    w.config,
                    w.config1.unwrap_or_default()
                )),
                Err(err) => bad.push(format!("{s}: {err}")),
            }
        }
    }
    eprintln!("tmt vs EHL list: {same} agree, {absent} of the list not in tmt");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
