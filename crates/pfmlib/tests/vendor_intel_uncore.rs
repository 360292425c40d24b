//! The vendor list is the oracle for pfmlib's own Sierra Forest uncore
//! PMUs (`srf_unc_<box>`, beyond libpfm4): every event of Intel's
//! `SRF/sierraforest_uncore.json` and `sierraforest_uncore_experimental.json`
//! (`../shared/oracle/vendor/intel/`) encodes, with our tables, to the
//! config its fields give, for PFM_OS_NONE and perf_events (with the type of
//! the unit's kernel PMU), on a made-up Sierra Forest host whose kernel
//! publishes the uncore PMUs; nothing is missing from our tables or extra in
//! them beyond [`EXCLUDED`]; no description of ours repeats the vendor's
//! text. Detection: the PMUs are there on model 0xaf when the kernel
//! publishes their boxes, and nowhere else.
//!
//! The folder is found as `tests/common/vendor.rs` says; the oracle tests
//! are SKIPPED when it is nowhere, unless `PFMLIB_REQUIRE_ORACLE` is set.
//!
//! Encoding (the kernel's `format/` files of each unit, Granite Rapids'
//! generation in `arch/x86/events/intel/uncore_snbep.c`): config =
//! EventCode | UMask << 8 | UMaskExt << 32 (`umask` is config:8-15,32-55,
//! the CHA's config:8-15,32-63); the IIO: EventCode | UMask << 8 |
//! PortMask << 36 (`ch_mask`) | FCMask << 48 (`fc_mask`). No config1.

mod common;

use common::words::copied;
use pfmlib::{AttrType, Host, Library, Os, Plm, Vendor};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Intel's unit, our PMU, the kernel's box name (`uncore_<box>_<n>`).
const UNITS: &[(&str, &str, &str)] = &[
    ("CHA", "srf_unc_cha", "cha"),
    ("CHACMS", "srf_unc_chacms", "chacms"),
    ("IIO", "srf_unc_iio", "iio"),
    ("IMC", "srf_unc_imc", "imc"),
    ("B2CMI", "srf_unc_b2cmi", "b2cmi"),
    ("UPI LL", "srf_unc_upi", "upi"),
    ("IRP", "srf_unc_irp", "irp"),
    ("PCU", "srf_unc_pcu", "pcu"),
    ("CXLCM", "srf_unc_cxlcm", "cxlcm"),
    ("CXLDP", "srf_unc_cxldp", "cxldp"),
    ("B2HOT", "srf_unc_b2hot", "b2hot"),
    ("B2UPI", "srf_unc_b2upi", "b2upi"),
    ("B2CXL", "srf_unc_b2cxl", "b2cxl"),
    ("UBOX", "srf_unc_ubox", "ubox"),
    ("MDF", "srf_unc_mdf", "mdf_sbo"),
];

/// The lists (under `intel/`).
const FILES: &[&str] = &[
    "SRF/sierraforest_uncore.json",
    "SRF/sierraforest_uncore_experimental.json",
];

/// Vendor events left out of the comparison, with why: none. The
/// deprecated `UNC_IIO_NUM_OUSTANDING_REQ_FROM_CPU.TO_IO` (a misspelt twin
/// of `UNC_IIO_NUM_OUTSTANDING_REQ_FROM_CPU.TO_IO`) is in our table too.
/// Where the IIO's `UMaskExt` disagrees with `PortMask` (six
/// `UNC_IIO_NUM_OUTSTANDING_REQ_OF_CPU` unit masks: ports 0x0f against
/// 0xff), `PortMask`, the kernel's `ch_mask` field, is the one compared.
const EXCLUDED: &[&str] = &[];

const SRF: u32 = 0xaf;

/// The perf_events type the made-up kernel gives unit `i`.
fn perf_type(i: usize) -> u32 {
    40 + i as u32
}

/// A Sierra Forest host whose kernel publishes box 0 of every unit.
fn host(model: u32) -> Host {
    let mut h = Host::synthetic(Vendor::Intel, 6, model);
    for (i, (_, _, kbox)) in UNITS.iter().enumerate() {
        h = h.with_file(
            &format!("/sys/bus/event_source/devices/uncore_{kbox}_0/type"),
            &format!("{}\n", perf_type(i)),
        );
    }
    h
}

fn text<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn num(v: &Value, k: &str) -> u64 {
    let s = text(v, k).trim();
    let h = s.strip_prefix("0x").unwrap_or(s);
    u64::from_str_radix(h, 16).unwrap_or_else(|_| panic!("{k} = {s:?}"))
}

/// Every vendor event of both lists.
fn vendor_events() -> Option<Vec<Value>> {
    let dir = common::vendor::vendor_dir("intel")?;
    let mut out = vec![];
    for f in FILES {
        let path = dir.join("intel").join(f);
        let t =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let doc: Value = serde_json::from_str(&t).expect("JSON");
        out.extend(doc["Events"].as_array().expect("Events").iter().cloned());
    }
    Some(out)
}

/// One vendor event under our names: the unit's index, PMU, event string
/// (`EVENT` or `EVENT:UMASK`), config.
fn want(e: &Value) -> (usize, &'static str, String, u64) {
    let unit = text(e, "Unit");
    let i = UNITS
        .iter()
        .position(|u| u.0 == unit)
        .unwrap_or_else(|| panic!("unit {unit:?} not covered"));
    let name = text(e, "EventName");
    let ours = match name.split_once('.') {
        Some((ev, um)) => format!("{ev}:{}", um.replace('.', "_")),
        None => name.to_string(),
    };
    let base = num(e, "EventCode") | num(e, "UMask") << 8;
    let config = if unit == "IIO" {
        base | num(e, "PortMask") << 36 | num(e, "FCMask") << 48
    } else {
        base | num(e, "UMaskExt") << 32
    };
    (i, UNITS[i].1, ours, config)
}

#[test]
fn every_vendor_event_encodes_as_its_fields_say() {
    let Some(events) = vendor_events() else {
        return;
    };
    let lib = Library::with_host(host(SRF));
    let mut bad = vec![];
    let mut checked = 0;
    for e in &events {
        if EXCLUDED.contains(&text(e, "EventName")) {
            continue;
        }
        let (i, pmu, name, config) = want(e);
        let s = format!("{pmu}::{name}");
        checked += 1;
        match lib.encode(&s, Plm::DEFAULT, Os::PerfEvent) {
            Ok(enc) => {
                let p = enc.perf.expect("perf attr");
                if (p.type_, p.config, p.config1) != (perf_type(i), config, 0) {
                    bad.push(format!(
                        "{s}: perf type {} {:#x}/{:#x}, vendor {config:#x}",
                        p.type_, p.config, p.config1
                    ));
                }
            }
            Err(err) => bad.push(format!("{s}: {err}")),
        }
        match lib.encode(&s, Plm::DEFAULT, Os::None) {
            Ok(enc) if enc.codes == [config] => {}
            Ok(enc) => bad.push(format!("{s}: none {:#x?}, vendor {config:#x}", enc.codes)),
            Err(err) => bad.push(format!("{s}: {err}")),
        }
    }
    assert!(
        bad.is_empty(),
        "{} differences:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert_eq!(checked, 344 + 432 - EXCLUDED.len());
    eprintln!("vendor_intel_uncore: {checked} vendor events checked");
}

#[test]
fn nothing_missing_or_extra_and_our_own_words() {
    let Some(events) = vendor_events() else {
        return;
    };
    let lib = Library::with_host(host(SRF));
    // Vendor names, with their texts; an event given alone that also has
    // unit masks is its default unit mask (checked by the encoding test).
    let dotted: BTreeSet<(&str, &str)> = events
        .iter()
        .filter_map(|e| {
            let (ev, _) = text(e, "EventName").split_once('.')?;
            Some((want(e).1, ev))
        })
        .collect();
    let mut vendor = BTreeSet::new();
    let mut texts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in &events {
        let (_, pmu, name, _) = want(e);
        let ev = name.split(':').next().unwrap_or_default().to_string();
        let t = [
            text(e, "BriefDescription").to_string(),
            text(e, "PublicDescription").to_string(),
        ];
        texts
            .entry(format!("{pmu}::{ev}"))
            .or_default()
            .extend(t.clone());
        texts.entry(format!("{pmu}::{name}")).or_default().extend(t);
        if name.contains(':') || !dotted.contains(&(pmu, ev.as_str())) {
            vendor.insert(format!("{pmu}::{name}"));
        }
    }
    let mut ours = BTreeSet::new();
    let mut bad = vec![];
    let mut check = |key: &str, desc: &str| {
        for t in texts.get(key).into_iter().flatten() {
            if let Some(why) = copied(desc, t) {
                bad.push(format!("{key}: {why}"));
            }
        }
    };
    for (_, pmu, _) in UNITS {
        let p = lib.pmu(pmu).expect("PMU");
        for ev in p.events() {
            let info = ev.info(Os::None);
            let key = format!("{pmu}::{}", info.name);
            check(&key, info.desc);
            let umasks: Vec<_> = ev
                .attrs(Os::None)
                .into_iter()
                .filter(|a| a.attr_type == AttrType::Umask)
                .collect();
            if umasks.is_empty() {
                ours.insert(key.clone());
            }
            for a in umasks {
                let k = format!("{key}:{}", a.name);
                check(&k, a.desc);
                ours.insert(k);
            }
        }
    }
    let excluded: BTreeSet<String> = EXCLUDED.iter().map(|x| x.replacen('.', ":", 1)).collect();
    let missing: Vec<_> = vendor
        .difference(&ours)
        .filter(|n| !excluded.iter().any(|x| n.ends_with(&format!("::{x}"))))
        .collect();
    let extra: Vec<_> = ours.difference(&vendor).collect();
    assert!(missing.is_empty(), "missing {missing:?}");
    assert!(extra.is_empty(), "extra {extra:?}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn present(lib: &Library) -> Vec<&'static str> {
    UNITS
        .iter()
        .map(|u| u.1)
        .filter(|n| lib.pmu(n).is_some_and(|p| p.info().is_present))
        .collect()
}

/// On model 0xaf with the kernel's boxes every unit is there; without them
/// none; another model (Granite Rapids, 0xad) never.
#[test]
fn detected_on_sierra_forest_with_its_uncore_pmus() {
    let all: Vec<&str> = UNITS.iter().map(|u| u.1).collect();
    assert_eq!(present(&Library::with_host(host(SRF))), all);
    let bare = Host::synthetic(Vendor::Intel, 6, SRF);
    assert!(present(&Library::with_host(bare)).is_empty());
    for model in [0xad, 0xae, 0xb6, 0xdd] {
        assert!(
            present(&Library::with_host(host(model))).is_empty(),
            "{model:#x}"
        );
    }
    let mut amd = host(SRF);
    amd.vendor = Vendor::Amd;
    assert!(present(&Library::with_host(amd)).is_empty());
    // Without perf_events the kernel is not asked.
    let mut h = Host::synthetic(Vendor::Intel, 6, SRF);
    h.perf_events = false;
    assert_eq!(present(&Library::with_host(h)), all);
}

/// A unit with a single box is `uncore_<box>` to the kernel: found too, and
/// its type used; a unit whose kernel PMU is absent cannot encode for
/// perf_events (its raw encoding still works).
#[test]
fn single_box_units_and_absent_ones() {
    let h = Host::synthetic(Vendor::Intel, 6, SRF)
        .with_file("/sys/bus/event_source/devices/uncore_pcu/type", "17\n");
    let lib = Library::with_host(h);
    assert_eq!(present(&lib), ["srf_unc_pcu"]);
    let enc = lib
        .encode("srf_unc_pcu::UNC_P_CLOCKTICKS", Plm::DEFAULT, Os::PerfEvent)
        .expect("encodes");
    assert_eq!(enc.perf.map(|p| (p.type_, p.config)), Some((17, 0x1)));
    let err = lib
        .encode(
            "srf_unc_cha::UNC_CHA_CLOCKTICKS",
            Plm::DEFAULT,
            Os::PerfEvent,
        )
        .expect_err("no uncore_cha_0");
    assert_eq!(err.kind(), pfmlib::ErrorKind::NotSupported);
    let raw = lib.encode("srf_unc_cha::UNC_CHA_CLOCKTICKS", Plm::DEFAULT, Os::None);
    assert_eq!(raw.map(|e| e.codes).ok(), Some(vec![0x1]));
}

/// Modifiers on top of a unit mask wider than 8 bits: edge, invert and
/// threshold land in bits 18, 23, 24-31, the extension stays at 32 on.
#[test]
fn modifiers_and_wide_unit_masks() {
    let lib = Library::with_host(host(SRF));
    let enc = lib
        .encode(
            "srf_unc_cha::UNC_CHA_TOR_INSERTS:IA_MISS_DRD_OPT:e:i:t=3",
            Plm::DEFAULT,
            Os::None,
        )
        .expect("encodes");
    let c = enc.codes[0];
    assert_eq!(c & 0xff, 0x35);
    assert_eq!(c >> 18 & 1, 1);
    assert_eq!(c >> 23 & 1, 1);
    assert_eq!(c >> 24 & 0xff, 3);
    assert_ne!(c >> 32, 0, "{c:#x}");
}

/// The ids: pfmlib's own, 720-734, stable.
#[test]
fn ids_beyond_libpfm4() {
    let lib = Library::global();
    for (i, (_, name, _)) in UNITS.iter().enumerate() {
        let p = lib.pmu(name).expect("known");
        assert_eq!(p.info().id, 720 + i as u32, "{name}");
    }
}
