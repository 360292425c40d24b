//! The AMD PMUs the main sweep (`libpfm4_diff.rs`) passes over because an
//! earlier PMU has the same events in PFM_OS_NONE: they differ from it in
//! what the main sweep's table key does not see (the perf_events `h`
//! attribute of `amd64_fam17h_zen1` against the deprecated `amd64_fam17h`,
//! the PMU id in event indexes and fully-qualified strings of K8 revisions
//! C and G). Each is swept here in full, in the three OS layers.
//!
//! Needs `libpfm.so.4`; without it the test says so and passes, unless
//! `PFMLIB_REQUIRE_LIBPFM4` is set.

mod common;

use common::sweep::*;
use pfm_oracle::Libpfm4;
use pfmlib::Library;

/// Every AMD64 PMU of libpfm4 upstream but RAPL (4.13's and the Zen 5/6
/// ones added since): each the oracle has must be shared with it, so that
/// the main sweep covers it (a missing table fails here rather than making
/// the sweep silently smaller).
const AMD_PMUS: &[&str] = &[
    "amd64_k7",
    "amd64_k8_revb",
    "amd64_k8_revc",
    "amd64_k8_revd",
    "amd64_k8_reve",
    "amd64_k8_revf",
    "amd64_k8_revg",
    "amd64_fam10h_barcelona",
    "amd64_fam10h_shanghai",
    "amd64_fam10h_istanbul",
    "amd64_fam11h_turion",
    "amd64_fam12h_llano",
    "amd64_fam14h_bobcat",
    "amd64_fam15h_interlagos",
    "amd64_fam15h_nb",
    "amd64_fam16h",
    "amd64_fam17h",
    "amd64_fam17h_zen1",
    "amd64_fam17h_zen2",
    "amd64_fam19h_zen3",
    "amd64_fam19h_zen4",
    "amd64_fam19h_zen3_l3",
    "amd64_fam1ah_zen5",
    "amd64_fam1ah_zen5_l3",
    "amd64_fam1ah_zen6",
    "amd64_fam1ah_zen6_l3",
];

/// PMUs sharing a table with a PMU the main sweep covers.
const SHARED_TABLE_PMUS: &[&str] = &["amd64_fam17h_zen1", "amd64_k8_revc", "amd64_k8_revg"];

fn oracle() -> Option<Libpfm4> {
    match Libpfm4::load() {
        Ok(o) => Some(o),
        Err(e) => {
            if std::env::var_os("PFMLIB_REQUIRE_LIBPFM4").is_some() {
                panic!("libpfm4 required but not loadable: {e}");
            }
            eprintln!("SKIPPED: libpfm4 not available ({e})");
            None
        }
    }
}

#[test]
fn every_amd_pmu_is_shared() {
    let Some(o) = oracle() else { return };
    let lib = Library::global();
    let names = shared_pmus(&o, lib);
    // The oracle's own AMD PMUs (4.13 lacks Zen 5/6); pfmlib has them all.
    let theirs: Vec<&str> = AMD_PMUS
        .iter()
        .copied()
        .filter(|p| o.pmu_by_name(p).is_some())
        .collect();
    for p in AMD_PMUS {
        assert!(lib.pmu(p).is_some(), "pfmlib lacks {p}");
    }
    for p in &theirs {
        assert!(
            names.iter().any(|n| n == p),
            "{p} is not shared with libpfm4"
        );
    }
    let ours = names
        .iter()
        .filter(|n| n.starts_with("amd64_") && *n != "amd64_rapl");
    assert_eq!(
        ours.count(),
        theirs.len(),
        "an AMD PMU missing from AMD_PMUS"
    );
}

fn sweep(pmu: &str) {
    let Some(o) = oracle() else { return };
    let lib = Library::global();
    let (diffs, n) = sweep_pmu(&o, lib, pmu);
    report(&format!("sweep {pmu}"), &diffs, n);
}

#[test]
fn sweep_amd64_fam17h_zen1() {
    sweep(SHARED_TABLE_PMUS[0]);
}

#[test]
fn sweep_amd64_k8_revc() {
    sweep(SHARED_TABLE_PMUS[1]);
}

#[test]
fn sweep_amd64_k8_revg() {
    sweep(SHARED_TABLE_PMUS[2]);
}
