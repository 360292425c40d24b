//! libpfm4 upstream (the tree of June 2026 in `../shared/oracle/libpfm4-head/`)
//! as the oracle of the `*_head` tests: `.ci/libpfm4-head` builds it under
//! `target/libpfm4-head/` and `.ci/run` names the builds in
//! `PFMLIB_LIBPFM4_HEAD` (x86_64), `PFMLIB_LIBPFM4_HEAD_ARM64`,
//! `PFMLIB_LIBPFM4_HEAD_ARM`, `PFMLIB_LIBPFM4_HEAD_FAKE_CPUID` and the source
//! in `PFMLIB_LIBPFM4_HEAD_SRC`. Without them the tests print `SKIPPED` and
//! pass, unless `PFMLIB_REQUIRE_LIBPFM4_HEAD` is set (CI sets it).
//!
//! Each test process loads one build, once ([`oracle`]): libpfm4's
//! initialisation is global state, and upstream's is not safe to run in two
//! threads at once (see `pfm_oracle::Libpfm4::load_from`).
//!
//! Each head test names the PMUs pfmlib does not follow yet in one const
//! `NOT_YET` (names; a `*` ends a prefix): their tables, strings and
//! vectors are skipped, and each skip is printed. The list is emptied once
//! every table of upstream is in pfmlib.

#![allow(dead_code)]

use pfm_oracle::Libpfm4;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The variable that makes a missing upstream oracle a failure.
pub const REQUIRE: &str = "PFMLIB_REQUIRE_LIBPFM4_HEAD";
/// The x86_64 build's `libpfm.so.4`.
pub const X86_64: &str = "PFMLIB_LIBPFM4_HEAD";
/// The arm64 build's `libpfm.so.4`.
pub const ARM64: &str = "PFMLIB_LIBPFM4_HEAD_ARM64";
/// The arm build's `libpfm.so.4`.
pub const ARM: &str = "PFMLIB_LIBPFM4_HEAD_ARM";
/// The fake-CPUID x86_64 build's `libpfm.so.4`.
pub const FAKE_CPUID: &str = "PFMLIB_LIBPFM4_HEAD_FAKE_CPUID";
/// The unpacked source (its `tests/` and `include/`).
pub const SRC: &str = "PFMLIB_LIBPFM4_HEAD_SRC";

/// PMUs and events (`LIBPFM_ENCODE_INACTIVE=1`) of upstream's x86_64 build.
pub const X86_64_SIZE: (usize, usize) = (561, 30714);
/// Of its arm64 build.
pub const ARM64_SIZE: (usize, usize) = (82, 3923);
/// Of its arm build.
pub const ARM_SIZE: (usize, usize) = (86, 3484);
/// The variable naming its powerpc build.
pub const POWERPC: &str = "PFMLIB_LIBPFM4_HEAD_POWERPC";
/// The variable naming its s390x build.
pub const S390X: &str = "PFMLIB_LIBPFM4_HEAD_S390X";
/// The variable naming its sparc build.
pub const SPARC: &str = "PFMLIB_LIBPFM4_HEAD_SPARC";
/// The variable naming its mips build.
pub const MIPS: &str = "PFMLIB_LIBPFM4_HEAD_MIPS";
/// PMUs and events of its powerpc build (`LIBPFM_ENCODE_INACTIVE=1`).
pub const POWERPC_SIZE: (usize, usize) = (15, 6007);
/// Of its s390x build (`cpum_cf` has no events until it finds the machine).
pub const S390X_SIZE: (usize, usize) = (4, 85);
/// Of its sparc build.
pub const SPARC_SIZE: (usize, usize) = (9, 424);
/// Of its mips build.
pub const MIPS_SIZE: (usize, usize) = (3, 205);

/// The path in `var`, or `None` after saying why (a panic under [`REQUIRE`]).
pub fn path(var: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => {
            if std::env::var_os(REQUIRE).is_some() {
                panic!("libpfm4 upstream required ({REQUIRE} is set) but {var} is not set");
            }
            eprintln!(
                "SKIPPED: {var} is not set (libpfm4 upstream; .ci/run builds it with .ci/libpfm4-head)"
            );
            None
        }
    }
}

/// The build named by `var`, loaded once for the whole process (a second
/// call with another variable panics), or `None` after saying why.
pub fn oracle(var: &'static str) -> Option<&'static Libpfm4> {
    static ORACLE: OnceLock<(&'static str, Result<Libpfm4, String>)> = OnceLock::new();
    let p = path(var)?;
    let (which, loaded) = ORACLE.get_or_init(|| (var, Libpfm4::load_from(&p)));
    assert_eq!(*which, var, "one libpfm4 build per test process");
    match loaded {
        Ok(o) => Some(o),
        Err(e) => {
            if std::env::var_os(REQUIRE).is_some() {
                panic!("{} required but not loadable: {e}", p.display());
            }
            eprintln!("SKIPPED: {} not loadable: {e}", p.display());
            None
        }
    }
}

/// Whether `pmu` is in `not_yet` (a name, or a prefix ending in `*`).
pub fn not_yet(list: &[&str], pmu: &str) -> bool {
    list.iter().any(|w| match w.strip_suffix('*') {
        Some(prefix) => pmu.starts_with(prefix),
        None => pmu == *w,
    })
}

/// The entry of `list` that covers `pmu`.
pub fn not_yet_entry<'a>(list: &[&'a str], pmu: &str) -> Option<&'a str> {
    list.iter().copied().find(|w| not_yet(&[w], pmu))
}

/// The PMU part of an event string (`pmu::EVENT...`), if it names one.
pub fn pmu_of(event: &str) -> Option<&str> {
    event.split_once("::").map(|(p, _)| p)
}

/// Prints the skips counted per `NOT_YET` entry (`what`: what was skipped).
pub fn print_skips(test: &str, what: &str, list: &[&str], counts: &[(String, usize)]) {
    for entry in list {
        let n: usize = counts
            .iter()
            .filter(|(p, _)| not_yet_entry(list, p) == Some(entry))
            .map(|(_, n)| n)
            .sum();
        eprintln!("{test}: NOT_YET {entry}: {n} {what} skipped");
    }
}
