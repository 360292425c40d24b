//! x86 detection compared with libpfm4 itself: for every CPU identity
//! libpfm4 4.13 tells apart (and the neighbours of each of its boundaries,
//! other vendors, garbage, leaf-0xA variants), libpfm4 built with its CPUID
//! answers taken from the environment (`.ci/libpfm4-fake-cpuid`, see
//! `pfm_oracle::fake_cpuid`) runs in a child process, one per identity
//! (its detection is global state), and reports its PMUs; pfmlib answers
//! for a `Host::from_cpuid` over the same CPUID leaves and the same files.
//! Compared: the present PMUs in lookup order (the order of libpfm4's PMU
//! table, read from its debug output), their event and counter counts, the
//! PMU and event an unprefixed name resolves to, and the architected PMU's
//! events and attribute counts. PMUs 4.13's build lacks (added upstream)
//! are left out, with the names found in them (`Scope::OraclesOnly`);
//! `detect_vs_libpfm4_head.rs` compares every PMU.
//!
//! Two views of the kernel's files: this machine's (no uncore PMU
//! published here), and one where `/sys/devices` publishes every uncore and
//! RAPL PMU libpfm4 could ask for (a bind mount in a user and mount
//! namespace, `unshare -rm`; both libraries run inside it).
//!
//! Without libpfm4's source (`PFMLIB_LIBPFM4_SRC`, default
//! `/tmp/lp/libpfm4-4.13.0`) or a built oracle (`PFMLIB_LIBPFM4_FAKE_CPUID`)
//! the tests print SKIPPED and pass, unless `PFMLIB_REQUIRE_LIBPFM4_SRC` is
//! set.

#![cfg(target_arch = "x86_64")]

#[path = "detect_vs_libpfm4/identities.rs"]
mod identities;

#[path = "detect_vs_libpfm4/compare.rs"]
mod compare;

use compare::*;
use identities::all_identities;
use pfm_oracle::fake_cpuid;
use std::path::{Path, PathBuf};

/// PMUs whose detection changed after 4.13: pfmlib follows libpfm4
/// upstream (`detect_vs_libpfm4_head.rs` compares them), so identities
/// where either side has one are skipped here (and counted).
const UPSTREAM_CHANGED: &[&str] = &[
    // Family 19h: Zen 4 at models 10h-1Fh and 60h-FFh, Zen 3 at the others
    // (4.13: Zen 3 at 0-0Fh and 20h-5Fh, Zen 4 at 11h only, nothing
    // elsewhere); RAPL on Zen 4 too (4.13: Zen 2 and Zen 3 only). Every
    // identity that changed has Zen 4 in pfmlib.
    "amd64_fam19h_zen4",
    // Events added or dropped upstream (event counts differ from 4.13).
    "icl",
    "icx",
    "spr",
];

/// ix86arch changed upstream too: perfmon version 5 (leaf 0xA EAX[7:0])
/// gives its events `intx` and `intxcp` (4.13: no modifier added). The
/// identities answering version 5 are compared by the upstream test only.
fn identities() -> Vec<identities::Identity> {
    let all = all_identities();
    let n = all.len();
    let v: Vec<_> = all
        .into_iter()
        .filter(|id| fake_cpuid::answer(&id.leaves, 0xa)[0] & 0xff != 5)
        .collect();
    eprintln!(
        "detect_vs_libpfm4: {} identities with perfmon version 5 left out (ix86arch changed upstream)",
        n - v.len()
    );
    v
}

/// Not a test: the child process of the others (a no-op otherwise).
#[test]
fn oracle_child() {
    compare::oracle_child();
}

// ---- the oracle and the views --------------------------------------------------

/// The fake-CPUID oracle, built when needed, or `None` (after saying why).
fn oracle() -> Option<PathBuf> {
    let src = std::env::var_os("PFMLIB_LIBPFM4_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/lp/libpfm4-4.13.0"));
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join("libpfm4-fake-cpuid/build");
    match fake_cpuid::locate_or_build(&src, &build) {
        Ok(p) => Some(p),
        Err(e) if std::env::var_os(REQUIRE).is_some() => {
            panic!("the fake-CPUID libpfm4 is required ({REQUIRE} is set): {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED: no fake-CPUID libpfm4: {e}");
            None
        }
    }
}

#[test]
fn detection_matches_libpfm4_with_this_machines_files() {
    if std::env::var_os(CHILD).is_some() || std::env::var_os(NAMESPACE).is_some() {
        return;
    }
    let Some(so) = oracle() else { return };
    let ids = identities();
    let (tally, diffs, seen) = compare_all(&so, &ids, UPSTREAM_CHANGED, Scope::OraclesOnly);
    report("this machine's /sys", &tally, &diffs, &seen);
}

#[test]
fn detection_matches_libpfm4_with_every_uncore_published() {
    with_every_uncore_published(
        "detection_matches_libpfm4_with_every_uncore_published",
        &identities(),
        UPSTREAM_CHANGED,
        Scope::OraclesOnly,
        oracle,
    );
}
