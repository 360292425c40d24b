//! libpfm4 upstream's own test vectors through pfmlib: `tests/validate_x86.c`,
//! `tests/validate_arm64.c` and `tests/validate_arm.c` of the tree in
//! `../shared/oracle/libpfm4-head/` (unpacked by `.ci/libpfm4-head`, found
//! through `PFMLIB_LIBPFM4_HEAD_SRC`, see `common/head.rs`), parsed at test
//! time and run as libpfm4's `validate` does (`common/validate.rs`): every
//! vector must give the return code, codes and fully-qualified string the
//! file expects. The vectors of the PMUs in [`NOT_YET`] are skipped and
//! counted; no other vector may be.

mod common;

use common::head::{self, not_yet, not_yet_entry, pmu_of};
use common::validate::{check_vector, load};
use pfmlib::{Host, Library, Options};
use std::collections::BTreeMap;

/// PMUs pfmlib does not follow upstream for yet (see `common/head.rs`):
/// their vectors are skipped, and counted; emptied when every table is in.
const NOT_YET: &[&str] = &[];

/// The files, their arrays and the vectors upstream's copy holds.
const FILES: &[(&str, &str, usize)] = &[
    ("validate_x86.c", "x86_test_events", 1547),
    ("validate_arm64.c", "arm64_test_events", 79),
    ("validate_arm.c", "arm_test_events", 37),
];

#[test]
fn libpfm4_head_validate_vectors() {
    let Some(src) = head::path(head::SRC) else {
        return;
    };
    let x86 = Library::new(Host::none(), Options::new().encode_inactive(true));
    let arm = Library::with_host(Host::none());
    let mut bad = Vec::new();
    let mut skipped: Vec<(String, usize)> = Vec::new();
    let (mut total, mut run) = (0, 0);
    for &(file, array, expected) in FILES {
        let (vs, codes) = load(&src, file, array);
        assert_eq!(vs.len(), expected, "{file}: vectors parsed");
        let lib = if file == "validate_x86.c" { &x86 } else { &arm };
        let mut per_pmu: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        let mut file_skipped = 0;
        for v in &vs {
            let pmu = pmu_of(&v.name).unwrap_or("");
            if not_yet(NOT_YET, pmu) {
                skipped.push((pmu.to_string(), 1));
                file_skipped += 1;
                continue;
            }
            let e = per_pmu.entry(pmu).or_default();
            e.0 += 1;
            match check_vector(lib, &codes, file, v) {
                None => e.1 += 1,
                Some(why) => bad.push(why),
            }
        }
        for (pmu, (n, ok)) in &per_pmu {
            eprintln!("{file} {pmu}: {ok}/{n} vectors pass");
        }
        let n: usize = per_pmu.values().map(|t| t.0).sum();
        eprintln!(
            "{file}: {} vectors, {n} run, {file_skipped} skipped (NOT_YET)",
            vs.len()
        );
        total += vs.len();
        run += n;
    }
    for entry in NOT_YET {
        let n = skipped
            .iter()
            .filter(|(p, _)| not_yet_entry(NOT_YET, p) == Some(entry))
            .count();
        eprintln!("validate_head: NOT_YET {entry}: {n} vectors skipped");
    }
    eprintln!(
        "validate_head: {total} vectors, {run} run, {} failed, {} skipped",
        bad.len(),
        skipped.len()
    );
    assert!(
        bad.is_empty(),
        "{} vectors fail:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
