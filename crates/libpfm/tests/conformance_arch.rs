//! The C library answering as libpfm4's build for another architecture
//! (`PFMLIB_HOST_ARCH`, see docs/c-library.md), against that build of
//! libpfm4 upstream (`make ARCH=<arch> lib`, built by `.ci/libpfm4-head`,
//! named by `PFMLIB_LIBPFM4_HEAD_<ARCH>`): libpfm4's `showevtinfo`, built
//! from upstream's source against each library, must list the same PMUs
//! (ids, names, order), detect the same ones on this machine, and show
//! the same events, attributes, codes and encodings for every PMU
//! (`LIBPFM_ENCODE_INACTIVE=1`; descriptions left out, they are our own).
//!
//! Without the builds the test prints `SKIPPED` and passes, unless
//! `PFMLIB_REQUIRE_LIBPFM4_HEAD=1` (CI).

mod common;

use common::listing::{compare_listings, parse_listing, Listing};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The builds compared: the architecture as `PFMLIB_HOST_ARCH` names it,
/// and the variable naming libpfm4 upstream's build for it. `riscv64` is
/// not here: no libpfm4 builds for RISC-V (pfmlib's own riscv64 build is
/// checked by `crates/pfmlib/tests/detect_riscv.rs` and `vendor_riscv.rs`).
const BUILDS: &[(&str, &str)] = &[
    ("powerpc", "PFMLIB_LIBPFM4_HEAD_POWERPC"),
    ("s390x", "PFMLIB_LIBPFM4_HEAD_S390X"),
    ("sparc", "PFMLIB_LIBPFM4_HEAD_SPARC"),
    ("mips", "PFMLIB_LIBPFM4_HEAD_MIPS"),
    ("arm64", "PFMLIB_LIBPFM4_HEAD_ARM64"),
    ("arm", "PFMLIB_LIBPFM4_HEAD_ARM"),
];

/// The build named by `var`, or `None` after saying why (a failure under
/// `PFMLIB_REQUIRE_LIBPFM4_HEAD=1`).
fn build(var: &str) -> Option<PathBuf> {
    let p = std::env::var_os(var)
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    if p.is_none() {
        let required = std::env::var("PFMLIB_REQUIRE_LIBPFM4_HEAD").is_ok_and(|v| v == "1");
        assert!(!required, "{var} does not name a libpfm4 build");
        eprintln!("SKIPPED: {var} does not name a libpfm4 build (.ci/libpfm4-head builds it)");
    }
    p
}

/// showevtinfo with `args`, run on `lib` (a libpfm4 build) or on ours as
/// `arch`: its output, the program's name made the same.
fn showevtinfo(exe: &Path, lib: Option<&Path>, arch: &str, args: &[&str]) -> String {
    let mut c = Command::new(exe);
    c.args(args);
    for k in [
        "LIBPFM_FORCE_PMU",
        "LIBPFM_DISABLED_PMUS",
        "LIBPFM_VERBOSE",
        "LIBPFM_DEBUG",
        "PFMLIB_ALL_ARCHITECTURES",
    ] {
        c.env_remove(k);
    }
    c.env("LIBPFM_ENCODE_INACTIVE", "1");
    let out = match lib.and_then(Path::parent) {
        Some(dir) => c
            .env("LD_LIBRARY_PATH", dir)
            .output()
            .expect("run showevtinfo"),
        None => common::run_ours(c.env("PFMLIB_HOST_ARCH", arch)),
    };
    let mut s = String::from_utf8_lossy(&out.stdout).into_owned();
    s.push_str(&String::from_utf8_lossy(&out.stderr));
    let name = exe.file_name().map(|n| n.to_string_lossy().into_owned());
    s.replace(name.as_deref().unwrap_or("showevtinfo"), "showevtinfo")
}

/// The supported and detected PMUs of a listing, as lines.
fn pmu_lists(l: &Listing) -> (Vec<String>, Vec<String>) {
    let sup = l
        .supported
        .iter()
        .map(|(i, n)| format!("{i} {n}"))
        .collect();
    let det = l
        .detected
        .iter()
        .map(|(i, n, t)| format!("{i} {n}{t}"))
        .collect();
    (sup, det)
}

#[test]
fn each_architecture_answers_as_libpfm4_built_for_it() {
    let Some(src) = common::upstream_source() else {
        return;
    };
    let dir = common::work_dir("conformance-arch");
    let prog = vec![src.join("examples/showevtinfo.c")];
    let ours = dir.join("showevtinfo-pfmlib");
    common::compile_ours(&ours, &prog, &[]);
    let mut diffs = Vec::new();
    for &(arch, var) in BUILDS {
        let Some(lib) = build(var) else { continue };
        let theirs = dir.join(format!("showevtinfo-{arch}"));
        common::compile(&theirs, &prog, &src.join("include"), &lib, &[]);
        let run = |args: &[&str]| {
            let a = showevtinfo(&theirs, Some(&lib), arch, args);
            let b = showevtinfo(&ours, None, arch, args);
            (parse_listing(&a), parse_listing(&b).without_own())
        };
        let (a, b) = run(&["no::such"]);
        let (lists_a, lists_b) = (pmu_lists(&a), pmu_lists(&b));
        if lists_a != lists_b {
            diffs.push(format!(
                "{arch}: PMU lists differ:\n  libpfm4 {lists_a:?}\n  pfmlib  {lists_b:?}"
            ));
        }
        let mut events = 0;
        for os in ["none", "perf", "perf_ext"] {
            let (a, b) = run(&["-O", os, ".*::.*"]);
            events += a.events.len();
            diffs.extend(compare_listings(&b, &a, &format!("{arch} -O {os}"), true));
        }
        eprintln!(
            "{arch}: {} PMUs, {} detected here, {events} event blocks compared",
            lists_a.0.len(),
            lists_a.1.len()
        );
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
