//! x86 detection compared with libpfm4 upstream, as `detect_vs_libpfm4.rs`
//! does with 4.13: upstream built with its CPUID answers taken from the
//! environment (`.ci/libpfm4-head` applies `.ci/libpfm4-fake-cpuid` to the
//! tree in `../shared/oracle/libpfm4-head/`; found through
//! `PFMLIB_LIBPFM4_HEAD_FAKE_CPUID`, see `common/head.rs`) answers for
//! every identity of the 4.13 comparison and every one upstream added
//! (`upstream_identities`: family 1Ah, hybrid leaves), in a child process
//! each, with this machine's `/sys` and with every uncore PMU published.
//! Identities where a PMU of [`NOT_YET`] is present (on either side) are
//! skipped and counted.

#![cfg(target_arch = "x86_64")]

#[path = "detect_vs_libpfm4/identities.rs"]
mod identities;

#[path = "detect_vs_libpfm4/compare.rs"]
mod compare;

#[path = "common/head.rs"]
mod head;

use compare::*;
use identities::{all_identities, upstream_identities, Identity};
use std::path::PathBuf;

/// PMUs pfmlib does not follow upstream for yet (see `common/head.rs`):
/// identities where one is present are skipped, and counted; emptied when
/// every table is in.
const NOT_YET: &[&str] = &[];

/// Not a test: the child process of the others (a no-op otherwise).
#[test]
fn oracle_child() {
    compare::oracle_child();
}

/// Every identity compared.
fn identities() -> Vec<Identity> {
    let mut v = all_identities();
    v.extend(upstream_identities());
    v
}

/// Upstream's fake-CPUID build, or `None` (after saying why).
fn oracle() -> Option<PathBuf> {
    let p = head::path(head::FAKE_CPUID)?;
    if p.is_file() {
        return Some(p);
    }
    if std::env::var_os(head::REQUIRE).is_some() {
        panic!("{} is not a file ({} is set)", p.display(), head::REQUIRE);
    }
    eprintln!("SKIPPED: {} is not a file", p.display());
    None
}

#[test]
fn detection_matches_libpfm4_head_with_this_machines_files() {
    if std::env::var_os(CHILD).is_some() || std::env::var_os(NAMESPACE).is_some() {
        return;
    }
    let Some(so) = oracle() else { return };
    let (tally, diffs, seen) = compare_all(&so, &identities(), NOT_YET, Scope::Every);
    report("upstream, this machine's /sys", &tally, &diffs, &seen);
}

#[test]
fn detection_matches_libpfm4_head_with_every_uncore_published() {
    with_every_uncore_published(
        "detection_matches_libpfm4_head_with_every_uncore_published",
        &identities(),
        NOT_YET,
        Scope::Every,
        oracle,
    );
}
