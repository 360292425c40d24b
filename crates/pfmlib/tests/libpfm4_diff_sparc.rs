//! Differential sweep against libpfm4 4.13 (Debian's source package) built
//! for `sparc` (`make ARCH=sparc lib`, found through `PFMLIB_LIBPFM4_SPARC`,
//! see `common/arm.rs`): the tables of every PMU of that build, every event
//! with every unit mask and modifier in the three OS layers, the odd strings
//! of the upstream test, and our own descriptions.
//!
//! pfmlib follows upstream where the two differ ([`EXPECTED`]): those
//! differences, and only those, are expected here, and each must show up
//! (the upstream test, `libpfm4_head_diff_sparc.rs`, has none).

mod common;

#[path = "sparc_strings/mod.rs"]
mod sparc_strings;

use common::arm::{checked_pmus, library, oracle, own_words_with, Build};
use common::sweep::{compare_one, compare_tables, report, sweep_pmu};
use pfmlib::Plm;

const B: Build = Build::Sparc;

/// Where Debian's 4.13 differs from upstream (June 2026), which pfmlib
/// follows: PMU, event, why.
const EXPECTED: &[(&str, &str, &str)] = &[
    (
        "ultra3",
        "Dispatch0_rs_mispred",
        "4.13 selects it on PIC1 (S1), upstream on PIC0 (S0): its second code and perf config differ",
    ),
    ("ultra3i", "Dispatch0_rs_mispred", "as ultra3's"),
    ("ultra3p", "Dispatch0_rs_mispred", "as ultra3's"),
    (
        "ultra3i",
        "Re_DC_missovhd",
        "Debian's 4.13 comments it out (its PIC1 code 0x4 is Dispatch0_rs_mispred's there); upstream has it, last of the table",
    ),
    (
        "ultra3p",
        "Re_DC_missovhd",
        "as ultra3i's, but not last: the two events after it sit one place later upstream",
    ),
    (
        "ultra3p",
        "EC_miss_remote",
        "one place later upstream, after Re_DC_missovhd: its index differs",
    ),
];

/// The events of the 4.13 tables that sit one place earlier than
/// upstream's (after the event 4.13 lacks), whose table entries are
/// compared with upstream's neighbours: PMU, libpfm4's event names.
const SHIFTED: &[(&str, &[&str])] = &[("ultra3p", &["EC_miss_mtag_remote", "EC_miss_remote"])];

/// The PMU and event an event string of a difference names (`os "pmu::EVENT:...": ...`).
fn named(diff: &str) -> Option<(String, String)> {
    let s = diff.split_once('"')?.1.to_ascii_lowercase();
    let (pmu, rest) = s.split_once("::")?;
    let ev = rest.split([':', '.', '"', ',']).next()?;
    Some((pmu.to_string(), ev.to_string()))
}

/// The entry of [`EXPECTED`] that explains a string difference.
fn expected(diff: &str) -> Option<usize> {
    let (pmu, ev) = named(diff)?;
    EXPECTED
        .iter()
        .position(|(p, e, _)| *p == pmu && e.eq_ignore_ascii_case(&ev))
}

/// The differences no entry of [`EXPECTED`] explains; `seen` counts those
/// each entry explains.
fn unexpected(diffs: Vec<String>, seen: &mut [usize]) -> Vec<String> {
    diffs
        .into_iter()
        .filter(|d| match expected(d) {
            Some(i) => {
                seen[i] += 1;
                false
            }
            None => true,
        })
        .collect()
}

#[test]
fn tables_match_libpfm4_sparc() {
    let Some(o) = oracle(B) else { return };
    let lib = library();
    let theirs = o.pmus();
    let events: usize = theirs.iter().map(|p| p.nevents as usize).sum();
    assert_eq!((theirs.len(), events), B.expected(), "the oracle's size");
    let names = checked_pmus(&o, &lib, &[]);
    let diffs = compare_tables(&o, &lib, &names);
    // Only the event counts of the tables that lack an event differ, and
    // the entries after the missing one.
    let count = |d: &str| {
        ["ultra3i: ", "ultra3p: "].iter().any(|p| d.starts_with(p))
            && (d.contains(": nevents: ") || d.contains(" event count: "))
    };
    let shifted = |d: &str| {
        SHIFTED.iter().any(|(p, evs)| {
            d.strip_prefix(&format!("{p}: ")).is_some_and(|r| {
                let ev = r.split(' ').nth(1).unwrap_or_default();
                evs.iter()
                    .any(|e| ev == *e || ev.starts_with(&format!("{e}:")))
            })
        })
    };
    let (counts, rest): (Vec<_>, Vec<_>) = diffs.into_iter().partition(|d| count(d));
    assert_eq!(
        counts.len(),
        2 * 4,
        "expected count differences: {counts:#?}"
    );
    let (moved, rest): (Vec<_>, Vec<_>) = rest.into_iter().partition(|d| shifted(d));
    assert!(!moved.is_empty(), "ultra3p's last events no longer move");
    report("Sparc tables", &rest, 0);
}

fn sweep_shard(k: usize, n: usize) {
    let Some(o) = oracle(B) else { return };
    let lib = library();
    let mut seen = vec![0; EXPECTED.len()];
    let mut diffs = Vec::new();
    let mut total = 0;
    for (i, pmu) in checked_pmus(&o, &lib, &[]).iter().enumerate() {
        if i % n != k {
            continue;
        }
        let (d, count) = sweep_pmu(&o, &lib, pmu);
        let d = unexpected(d, &mut seen);
        eprintln!(
            "Sparc sweep {pmu}: {count} strings x 3 OS layers, {} unexpected differences",
            d.len()
        );
        diffs.extend(d);
        total += count;
    }
    for (i, (p, e, why)) in EXPECTED.iter().enumerate() {
        if let Some(at) = checked_pmus(&o, &lib, &[]).iter().position(|x| x == p) {
            if at % n == k {
                eprintln!("expected: {p}::{e}: {} differences ({why})", seen[i]);
                assert!(seen[i] > 0, "{p}::{e} no longer differs: update EXPECTED");
            }
        }
    }
    report(&format!("Sparc sweep shard {k}"), &diffs, total);
}

#[test]
fn sweep_sparc_shard_0() {
    sweep_shard(0, 2);
}

#[test]
fn sweep_sparc_shard_1() {
    sweep_shard(1, 2);
}

#[test]
fn odd_strings_sparc() {
    let Some(o) = oracle(B) else { return };
    let lib = library();
    let plms = [Plm::DEFAULT, Plm::PLM3, Plm::PLM0, Plm::ALL, Plm::PLMH];
    let mut diffs = Vec::new();
    for s in sparc_strings::ODD {
        for plm in plms {
            compare_one(&lib, &o, s, plm, &mut diffs);
        }
    }
    let mut seen = vec![0; EXPECTED.len()];
    let diffs = unexpected(diffs, &mut seen);
    report(
        "Sparc odd strings",
        &diffs,
        sparc_strings::ODD.len() * plms.len(),
    );
}

#[test]
fn descriptions_are_our_own_sparc() {
    own_words_with(B, &[]);
}
