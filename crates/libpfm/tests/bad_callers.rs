//! Bad callers, from C (`tests/c/bad_callers.c`): NULL pointers, unknown
//! ids, negative indexes, garbage sizes, non-zero bytes past the known
//! size, strings without their NUL, arrays too small, calls before
//! `pfm_initialize`, initialisation and termination under running
//! threads. Each gets libpfm4's error code and never a crash:
//!
//! - the fixed cases libpfm4 survives, and a differential fuzz (random
//!   calls over the PMUs both libraries have, the same sequence in both),
//!   are compared line for line with the installed libpfm4;
//! - the cases that crash libpfm4 (a string running into an unmapped page,
//!   a size reaching past the caller's memory, a NULL `attr`, the
//!   `PFM_ERR_TOOSMALL` path with `fstr` set) are checked against the
//!   codes we promise.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

struct Built {
    ours: PathBuf,
    system: Option<PathBuf>,
}

fn built() -> &'static Built {
    static B: OnceLock<Built> = OnceLock::new();
    B.get_or_init(|| {
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/bad_callers.c");
        let dir = common::work_dir("bad-callers");
        let ours = dir.join("bad_callers-pfmlib");
        common::compile_ours(&ours, std::slice::from_ref(&src), &["-pthread"]);
        // Our headers describe libpfm4's ABI byte for byte (tests/layout.rs),
        // so the same program links against libpfm4 too.
        let system = common::system_libpfm4().map(|lib| {
            let exe = dir.join("bad_callers-libpfm4");
            common::compile(&exe, &[src], &common::include_dir(), &lib, &["-pthread"]);
            exe
        });
        if system.is_none() {
            eprintln!("SKIPPED (comparisons): no installed libpfm4");
        }
        Built { ours, system }
    })
}

fn clean(cmd: &mut Command) -> &mut Command {
    for k in [
        "LIBPFM_FORCE_PMU",
        "LIBPFM_DISABLED_PMUS",
        "LIBPFM_ENCODE_INACTIVE",
        "LIBPFM_VERBOSE",
        "LIBPFM_DEBUG",
        "LIBPFM_DEBUG_STDOUT",
    ] {
        cmd.env_remove(k);
    }
    cmd
}

fn run(ours: bool, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let b = built();
    let exe = if ours {
        &b.ours
    } else {
        b.system.as_ref().unwrap()
    };
    let mut cmd = Command::new(exe);
    clean(&mut cmd).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = if ours {
        common::run_ours(&mut cmd)
    } else {
        common::run_system(&mut cmd)
    };
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.success(), text)
}

/// Lines that differ between the two outputs (libpfm4's first).
fn differences(theirs: &str, ours: &str) -> Vec<String> {
    let mut d: Vec<String> = theirs
        .lines()
        .zip(ours.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("libpfm4: {a}\npfmlib:  {b}"))
        .collect();
    let (na, nb) = (theirs.lines().count(), ours.lines().count());
    if na != nb {
        d.push(format!("{na} lines from libpfm4, {nb} from pfmlib"));
    }
    d
}

#[test]
fn fixed_cases_get_libpfm4s_codes() {
    let (ok, ours) = run(true, &["shared"], &[("LIBPFM_ENCODE_INACTIVE", "1")]);
    assert!(ok, "{ours}");
    // What we promise, independently of libpfm4.
    for line in [
        "noinit get_pmu_info -3",
        "noinit get_event_next -1",
        "noinit find_event -3",
        "noinit get_event_info -3",
        "noinit get_event_attr_info -3",
        "noinit get_os_event_encoding -3",
        "noinit get_event_encoding -3",
        "noinit get_perf_event_encoding -3",
        "pmu_info null -2",
        "pmu_info max -2",
        "pmu_info negative -2",
        "pmu_info none -1",
        "pmu_info size=1 dirty=0 -2",
        "pmu_info size=57 dirty=1 -2",
        "find null -2",
        "find two -2",
        "event_info negative -2",
        "event_info os max -2",
        "attr_info negative attr -2",
        "encode bad plm -2",
        "encode os max -1",
        "encode raw count 0 -12",
        "old codes null count 3 -2",
        "old error -4 count=0 codes=(nil) fstr=(nil)",
        "after terminate find -3",
        "after terminate next -1",
        "reinit 0",
    ] {
        assert!(
            ours.lines().any(|l| l == line),
            "missing {line:?} in\n{ours}"
        );
    }
    if built().system.is_none() {
        return;
    }
    let (_, theirs) = run(false, &["shared"], &[("LIBPFM_ENCODE_INACTIVE", "1")]);
    let d = differences(&theirs, &ours);
    eprintln!(
        "bad callers, fixed cases: {} lines compared with libpfm4, {} differ",
        theirs.lines().count(),
        d.len()
    );
    assert!(d.is_empty(), "{}", d.join("\n"));
}

/// PMU ids that answer `pfm_get_pmu_info` with the environment `env`.
fn ids(ours: bool, env: &[(&str, &str)]) -> BTreeSet<u32> {
    let (_, out) = run(ours, &["list"], env);
    out.lines()
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect()
}

fn join(ids: &BTreeSet<u32>) -> String {
    ids.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

#[test]
fn fuzzed_calls_get_libpfm4s_answers() {
    let has_system = built().system.is_some();
    let configs: [(&[(&str, &str)], bool); 3] = [
        (
            &[("LIBPFM_FORCE_PMU", "nhm"), ("LIBPFM_ENCODE_INACTIVE", "1")],
            false,
        ),
        (
            &[
                ("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3"),
                ("LIBPFM_ENCODE_INACTIVE", "1"),
            ],
            false,
        ),
        (&[("LIBPFM_ENCODE_INACTIVE", "1")], true),
    ];
    let n = std::env::var("PFMLIB_FUZZ_CALLS").unwrap_or_else(|_| "4000".into());
    let (mut compared, mut diffs) = (0, Vec::new());
    for (k, (env, prefixed_only)) in configs.iter().enumerate() {
        let ours_ids = ids(true, env);
        let (common, neither) = if has_system {
            let theirs = ids(false, env);
            let common: BTreeSet<u32> = ours_ids.intersection(&theirs).copied().collect();
            // 4.13 answers the ids upstream added as out of range, and
            // libpfm4 (4.13 and upstream) those from its PFM_PMU_MAX (700)
            // on, where ours, whose PFM_PMU_MAX is 1024, says not supported.
            let neither = (0..common::LIBPFM4_PMU_MAX)
                .filter(|i| !ours_ids.contains(i) && !theirs.contains(i))
                .filter(|i| common::reference_is_upstream() || !common::UPSTREAM_IDS.contains(i))
                .collect();
            (common, neither)
        } else {
            (
                ours_ids.clone(),
                (0..1024).filter(|i| !ours_ids.contains(i)).collect(),
            )
        };
        let seed = format!("{}", 0x5eed_0000 + k);
        let mut args = vec!["fuzz", &seed, &n];
        let (c, ne) = (join(&common), join(&neither));
        args.push(&c);
        args.push(&ne);
        if *prefixed_only {
            args.push("prefixed");
        }
        let (ok, ours) = run(true, &args, env);
        assert!(ok, "the fuzz run failed with {env:?}");
        assert_eq!(ours.lines().count(), n.parse::<usize>().unwrap(), "{env:?}");
        if has_system {
            let (_, theirs) = run(false, &args, env);
            compared += theirs.lines().count();
            diffs.extend(
                differences(&theirs, &ours)
                    .into_iter()
                    .map(|d| format!("{env:?}\n{d}")),
            );
        }
    }
    eprintln!(
        "bad callers, fuzz: {compared} random calls compared with libpfm4, {} differ",
        diffs.len()
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn cases_that_crash_libpfm4_are_refused_cleanly() {
    let (ok, out) = run(true, &["ours"], &[("LIBPFM_ENCODE_INACTIVE", "1")]);
    assert!(ok, "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}

#[test]
fn initialisation_and_termination_under_running_threads() {
    let (ok, out) = run(true, &["threads"], &[]);
    assert!(ok, "{out}");
    assert!(out.contains("threads: "), "{out}");
}

/// By default the PMUs of libpfm4's x86_64 build only; every table pfmlib
/// has (IA-64's and Arm's) with `PFMLIB_ALL_ARCHITECTURES=1`.
#[test]
fn other_architectures_only_on_request() {
    let default = ids(true, &[]);
    let all = ids(true, &[("PFMLIB_ALL_ARCHITECTURES", "1")]);
    // itanium2 (3), arm_ac15 (75), arm_n1 (449): not in the x86_64 build.
    for id in [3, 75, 449] {
        assert!(!default.contains(&id) && all.contains(&id), "id {id}");
    }
    // nhm (15) and perf (51) are.
    assert!(default.contains(&15) && default.contains(&51));
    assert!(default.is_subset(&all) && default.len() < all.len());
    if common::reference_is_upstream() || common::system_libpfm4().is_none() {
        return;
    }
    // With 4.13 as the reference its x86_64 build's ids are a subset of ours.
    let theirs = ids(false, &[]);
    assert!(
        theirs.is_subset(&default),
        "{:?}",
        theirs.difference(&default)
    );
}
