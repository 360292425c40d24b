//! libpfm4's own POWER test vectors through pfmlib: the table of
//! `tests/validate_power.c` (`ppc_test_events`), parsed at test time from
//! both libpfm4 4.13's source (`PFMLIB_LIBPFM4_SRC`) and upstream's
//! (`PFMLIB_LIBPFM4_HEAD_SRC`), and run as libpfm4's `validate` does
//! (`common/validate.rs`: `pfm_get_event_encoding` with `PFM_PLM0 |
//! PFM_PLM3`): every vector must give the return code, the codes and the
//! fully-qualified string the file expects. No vector is skipped for being
//! hard.
//!
//! Without a source tree the test prints `SKIPPED` and passes, unless
//! `PFMLIB_REQUIRE_ARM_ORACLES` is set.

mod common;

use common::arm::path_from_env;
use common::validate::{check_vector, load};
use pfmlib::{Host, Library};
use std::collections::BTreeMap;

/// The file, its array and the number of vectors both trees hold.
const FILE: (&str, &str, usize) = ("validate_power.c", "ppc_test_events", 31);

/// Runs the vectors of the tree named by `var`; returns the failures.
fn run_tree(var: &str, what: &str) -> Vec<String> {
    let Some(src) = path_from_env(var, what) else {
        return Vec::new();
    };
    let (file, array, expected) = FILE;
    let (vs, codes) = load(&src, file, array);
    assert_eq!(vs.len(), expected, "{what}: {file}: vectors parsed");
    let lib = Library::with_host(Host::none());
    let mut bad = Vec::new();
    let mut per_pmu: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for v in &vs {
        let pmu = v.name.split_once("::").map_or("", |(p, _)| p);
        let e = per_pmu.entry(pmu).or_default();
        e.0 += 1;
        match check_vector(&lib, &codes, file, v) {
            None => e.1 += 1,
            Some(why) => bad.push(format!("{what}: {why}")),
        }
    }
    for (pmu, (n, ok)) in &per_pmu {
        eprintln!("{what}: {file} {pmu}: {ok}/{n} vectors pass");
    }
    let run: usize = per_pmu.values().map(|t| t.0).sum();
    eprintln!(
        "{what}: {file}: {} vectors, {run} run, {} failed",
        vs.len(),
        bad.len()
    );
    bad
}

#[test]
fn libpfm4_power_validate_vectors() {
    let mut bad = run_tree("PFMLIB_LIBPFM4_SRC", "libpfm4 4.13 source tree");
    bad.extend(run_tree(
        "PFMLIB_LIBPFM4_HEAD_SRC",
        "libpfm4 upstream source tree",
    ));
    assert!(
        bad.is_empty(),
        "{} vectors fail:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
