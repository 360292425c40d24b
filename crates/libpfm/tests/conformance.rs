//! Conformance with libpfm4 through its own test suite and tools, built at
//! test time from Debian's libpfm4 4.13 source package
//! (`PFMLIB_LIBPFM4_SRC`, see `crates/libpfm/conformance.sh`), compiled
//! against our headers and linked against our `libpfm.so.4`:
//!
//! - `tests/validate`: structure tests, `pfm_pmu_validate` of every PMU,
//!   the x86 and perf_events encoding vectors: no error and no vector
//!   skipped (every PMU of libpfm4 4.13 is in pfmlib);
//! - `examples/showevtinfo` and `examples/check_events`: for every PMU of
//!   the installed libpfm4 (all of which pfmlib has), detected here or
//!   not, and every event of each, the same PMUs, events, attributes,
//!   codes, flags and encodings as the same programs built against
//!   libpfm4's headers and linked against the installed libpfm4, line for
//!   line (descriptions excepted); about a minute each on 2 busy cores;
//! - the event strings llvm-exegesis passes, encoded its way
//!   (`tests/c/exegesis.c`), byte for byte.
//!
//! Without the source package the tests print `SKIPPED` and pass, unless
//! `PFMLIB_REQUIRE_LIBPFM4_SRC=1` (CI).

mod common;

use common::listing::{compare_listings, parse_listing};

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The programs, built once per test binary.
struct Programs {
    /// Linked against our library: validate, showevtinfo, check_events.
    ours: HashMap<&'static str, PathBuf>,
    /// The same built against libpfm4's headers and the installed libpfm4.
    system: Option<HashMap<&'static str, PathBuf>>,
}

fn programs() -> Option<&'static Programs> {
    static P: OnceLock<Option<Programs>> = OnceLock::new();
    P.get_or_init(|| {
        // The reference's own programs and vectors: upstream's when it is
        // the reference, else 4.13's.
        let src = if common::reference_is_upstream() {
            common::upstream_source()?
        } else {
            common::libpfm4_source()?
        };
        Some(build(&src))
    })
    .as_ref()
}

fn sources(src: &Path) -> Vec<(&'static str, Vec<PathBuf>)> {
    let t = |f: &str| src.join("tests").join(f);
    let e = |f: &str| src.join("examples").join(f);
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/exegesis.c");
    vec![
        (
            "validate",
            vec![t("validate.c"), t("validate_x86.c"), t("validate_perf.c")],
        ),
        ("showevtinfo", vec![e("showevtinfo.c")]),
        ("check_events", vec![e("check_events.c")]),
        ("exegesis", vec![own]),
    ]
}

fn build(src: &Path) -> Programs {
    let dir = common::work_dir("conformance");
    let mut ours = HashMap::new();
    for (name, files) in sources(src) {
        let exe = dir.join(format!("{name}-pfmlib"));
        common::compile_ours(&exe, &files, &[]);
        ours.insert(name, exe);
    }
    let system = common::system_libpfm4().map(|lib| {
        let mut m = HashMap::new();
        for (name, files) in sources(src) {
            let exe = dir.join(format!("{name}-libpfm4"));
            common::compile(&exe, &files, &src.join("include"), &lib, &[]);
            m.insert(name, exe);
        }
        m
    });
    if system.is_none() {
        eprintln!("SKIPPED: no installed libpfm4 (libpfm.so.4) to compare with");
    }
    Programs { ours, system }
}

fn text(o: &Output) -> String {
    let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
    s.push_str(&String::from_utf8_lossy(&o.stderr));
    s
}

/// Runs program `name` of both builds with the same arguments and
/// environment: (ours, libpfm4's), standard output then standard error.
fn run_both(p: &Programs, name: &str, args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let sys = p.system.as_ref().expect("system build");
    let cmd = |exe: &PathBuf| {
        let mut c = Command::new(exe);
        c.args(args);
        for k in [
            "LIBPFM_FORCE_PMU",
            "LIBPFM_DISABLED_PMUS",
            "LIBPFM_ENCODE_INACTIVE",
            "LIBPFM_VERBOSE",
            "LIBPFM_DEBUG",
            "LIBPFM_DEBUG_STDOUT",
        ] {
            c.env_remove(k);
        }
        for (k, v) in env {
            c.env(k, v);
        }
        c
    };
    let ours = common::run_ours(&mut cmd(&p.ours[name]));
    let theirs = common::run_system(&mut cmd(&sys[name]));
    // The programs name themselves in error messages.
    let ours = text(&ours).replace(&format!("{name}-pfmlib"), name);
    let theirs = text(&theirs).replace(&format!("{name}-libpfm4"), name);
    (ours, theirs)
}

/// PMUs pfmlib's C library has on this (x86) host, by name: those of
/// libpfm4's x86_64 build and pfmlib's own x86 PMUs.
fn pfmlib_pmus() -> BTreeSet<String> {
    let options = pfmlib::Options::new().host_build_only(true);
    pfmlib::Library::new(pfmlib::Host::detect(), options)
        .pmus()
        // 4.13's validate walks the ids below its PFM_PMU_MAX (517): the
        // PMUs upstream numbered above it are seen by upstream's only.
        .filter(|p| common::reference_is_upstream() || p.id() < 517)
        // Built against our header, validate walks the ids below our
        // PFM_PMU_MAX (1024): pfmlib's own PMUs (beyond libpfm4, ids from
        // 701) are checked as libpfm4's are.
        .map(|p| p.name().to_string())
        .collect()
}

#[test]
fn libpfm4_validate_passes() {
    let Some(p) = programs() else { return };
    let out = common::run_ours(Command::new(&p.ours["validate"]).env_remove("LIBPFM_FORCE_PMU"));
    let all = text(&out);
    let mut errors = Vec::new();
    let mut skipped = Vec::new();
    let (mut tables, mut structs, mut x86_vectors) = (0, 0, 0);
    for line in all.lines() {
        let l = line.trim();
        if l.ends_with("skipped because no PMU support") {
            // Every PMU of libpfm4 4.13 is in pfmlib: no vector may be
            // left out for want of its PMU.
            skipped.push(l.to_string());
        } else if l.starts_with("Line ") && l.contains(", Event") {
            // "Line N, EventK pmu::EVENT..., problem": a vector that failed.
            errors.push(l.to_string());
        } else if l.starts_with("checking ") {
            tables += 1;
            if !l.ends_with("Passed") && !l.ends_with("N/A") {
                errors.push(l.to_string());
            }
        } else if l.starts_with("pfm_") && l.contains(" : ") {
            structs += 1;
            if !l.ends_with("Passed") {
                errors.push(l.to_string());
            }
        } else if let Some(n) = l.strip_suffix(" x86 events: 0 errors") {
            x86_vectors = n.trim().parse().unwrap_or(0);
        } else if l.contains("events:") && l.contains("errors") && !l.ends_with(" 0 errors") {
            // "1181 x86 events: 4 errors": the failures are listed above.
            errors.push(l.to_string());
        } else if l.starts_with("Failed") || l.contains("cannot encode") || l.starts_with("pmu:") {
            errors.push(l.to_string());
        }
    }
    eprintln!(
        "validate: {structs} structures, {tables} PMU tables checked, {x86_vectors} x86 encoding vectors passed, {} skipped; errors: {}",
        skipped.len(),
        errors.len()
    );
    assert_eq!(structs, 5, "{all}");
    assert!(tables >= pfmlib_pmus().len(), "{all}");
    assert!(
        all.contains("perf_events generic events: 0 errors"),
        "{all}"
    );
    assert!(errors.is_empty(), "validate errors:\n{}", errors.join("\n"));
    assert!(
        skipped.is_empty(),
        "vectors skipped for a missing PMU:\n{}",
        skipped.join("\n")
    );
    // libpfm4 4.13's tests/validate_x86.c holds 1181 vectors.
    assert!(x86_vectors >= 1181, "{all}");
}

/// PMUs both libraries have (by the supported lists of showevtinfo): all
/// of libpfm4's.
fn common_pmus(p: &Programs) -> Vec<String> {
    let (ours, theirs) = run_both(p, "showevtinfo", &["no::such"], &[]);
    let (a, b) = (parse_listing(&ours), parse_listing(&theirs));
    let na: BTreeSet<_> = a.supported.iter().map(|(_, n)| n.clone()).collect();
    let missing: Vec<&String> = b
        .supported
        .iter()
        .map(|(_, n)| n)
        .filter(|n| !na.contains(*n))
        .collect();
    // Every PMU of libpfm4 4.13 is in pfmlib.
    assert!(missing.is_empty(), "PMUs pfmlib lacks: {missing:?}");
    b.supported.iter().map(|(_, n)| n.clone()).collect()
}

#[test]
fn showevtinfo_matches_libpfm4() {
    let Some(p) = programs() else { return };
    if p.system.is_none() {
        return;
    }
    let common = common_pmus(p);
    assert!(common.len() >= 386, "common PMUs: {common:?}");
    let mut diffs = Vec::new();
    let (mut events, mut lines) = (0, 0);
    let mut check = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (ours, theirs) = run_both(p, "showevtinfo", &args, &[]);
        let (a, b) = (parse_listing(&ours), parse_listing(&theirs));
        let d = compare_listings(&a, &b, &args.join(" "), true);
        events += b.events.len();
        lines += theirs.lines().count();
        diffs.extend(d);
    };
    // Default: the PMUs detected here.
    check(vec![]);
    // Every event of every PMU (showevtinfo lists the PMUs not detected
    // here too when the pattern names a PMU): full blocks for each kind of
    // attributes, one line per event and unit mask with its codes, and
    // sorted by code.
    let all = ".*::.*".to_string();
    for os in ["none", "perf", "perf_ext"] {
        check(vec!["-O".into(), os.into(), all.clone()]);
    }
    check(vec!["-E".into(), all.clone()]);
    check(vec!["-L".into(), "-s".into(), all.clone()]);
    eprintln!(
        "showevtinfo: {} PMUs in common; {events} event blocks, {lines} lines compared; {} lines differ",
        common.len(),
        diffs.len()
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Strings for check_events over the PMUs both libraries have.
struct CheckStrings {
    /// Every `pmu::EVENT`, `pmu::EVENT:UMASK` and `pmu::EVENT:u` pfmlib
    /// encodes, in groups of strings that encode to the same number of
    /// codes.
    ///
    /// check_events reuses one code array for all its arguments, counting
    /// on `PFM_ERR_TOOSMALL` to grow it; libpfm4 then frees the caller's
    /// `fstr` pointer (a stack address) and aborts (`free(): invalid
    /// pointer`), so a run mixing one-code and two-code events cannot be
    /// compared. pfmlib answers `PFM_ERR_TOOSMALL` cleanly (see
    /// tests/bad_callers.rs).
    groups: Vec<Vec<String>>,
    /// `pmu::EVENT` of the events none of whose strings pfmlib encodes
    /// (check_events stops at the first failure: one run each).
    refused: Vec<String>,
}

fn check_strings(common: &[String]) -> CheckStrings {
    let lib = pfmlib::Library::new(pfmlib::Host::none(), pfmlib::Options::new());
    let mut by_count: std::collections::BTreeMap<(String, usize), Vec<String>> = Default::default();
    let mut refused = Vec::new();
    for pmu in common.iter().filter_map(|name| lib.pmu(name)) {
        for ev in pmu.events() {
            let base = format!("{}::{}", pmu.name(), ev.name());
            let mut cands = vec![base.clone()];
            for a in ev.attrs(pfmlib::Os::None) {
                if a.attr_type == pfmlib::AttrType::Umask {
                    cands.push(format!("{base}:{}", a.name));
                }
            }
            cands.push(format!("{base}:u"));
            let mut any = false;
            for s in cands {
                let Ok(e) = lib.encode(&s, pfmlib::Plm::DEFAULT, pfmlib::Os::None) else {
                    continue;
                };
                any = true;
                let key = (pmu.name().to_string(), e.codes.len());
                by_count.entry(key).or_default().push(s);
            }
            if !any {
                refused.push(base);
            }
        }
    }
    CheckStrings {
        groups: by_count.into_values().collect(),
        refused,
    }
}

#[test]
fn check_events_matches_libpfm4() {
    let Some(p) = programs() else { return };
    if p.system.is_none() {
        return;
    }
    let common = common_pmus(p);
    let inactive = [("LIBPFM_ENCODE_INACTIVE", "1")];
    let mut n = 0;
    let mut diffs = Vec::new();
    let mut compare = |args: &[&str], env: &[(&str, &str)]| {
        let (ours, theirs) = run_both(p, "check_events", args, env);
        let keep = |s: &str| -> Vec<String> {
            s.lines()
                .filter(|l| {
                    !l.starts_with("\t[")
                        && !l.starts_with("Total events")
                        && !l.starts_with("PMU            :")
                })
                .map(str::to_string)
                .collect()
        };
        let (a, b) = (keep(&theirs), keep(&ours));
        n += args.len();
        if a != b {
            for (x, y) in a.iter().zip(&b) {
                if x != y {
                    diffs.push(format!(
                        "check_events {:?}: libpfm4 {x:?} / pfmlib {y:?}",
                        args.first()
                    ));
                    break;
                }
            }
            if a.len() != b.len() {
                diffs.push(format!(
                    "check_events: {} lines / {} lines",
                    a.len(),
                    b.len()
                ));
            }
        }
        // The PMU lists, on the PMUs both have.
        let (la, lb) = (parse_listing(&theirs), parse_listing(&ours));
        let d = compare_listings(&lb, &la, "check_events lists", false);
        diffs.extend(d);
    };
    // Without arguments: perf's cycles and instructions.
    compare(&[], &[]);
    // Every event of every PMU, with each unit mask alone.
    let strings = check_strings(&common);
    for group in &strings.groups {
        for chunk in group.chunks(1000) {
            let args: Vec<&str> = chunk.iter().map(String::as_str).collect();
            compare(&args, &inactive);
        }
    }
    // The events pfmlib encodes with no unit mask alone: libpfm4 must
    // refuse them the same way.
    for s in &strings.refused {
        compare(&[s.as_str()], &inactive);
    }
    let events = strings
        .groups
        .iter()
        .flatten()
        .filter(|s| !s.ends_with(":u"))
        .count();
    // A forced PMU and unprefixed names.
    for (force, names) in [
        (
            "nhm",
            vec![
                "INST_RETIRED:ANY_P",
                "UNHALTED_CORE_CYCLES",
                "ARITH:MUL:c=2:i",
                "inst_retired:any_p:u",
            ],
        ),
        (
            "wsm",
            vec!["UOPS_EXECUTED:PORT0", "mem_load_retired:l3_miss:k"],
        ),
        (
            "amd64_fam19h_zen3",
            vec![
                "RETIRED_INSTRUCTIONS",
                "cycles_not_in_halt",
                "ls_dispatch:ld_dispatch",
            ],
        ),
    ] {
        compare(&names, &[("LIBPFM_FORCE_PMU", force)]);
    }
    eprintln!(
        "check_events: {n} event strings compared ({events} of events alone or with one unit mask, {} events refused by both), {} differences",
        strings.refused.len(),
        diffs.len()
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn llvm_exegesis_strings_encode_identically() {
    let Some(p) = programs() else { return };
    if p.system.is_none() {
        return;
    }
    // The strings of llvm-exegesis's pfm counter tables (lower case, as it
    // writes them), and a few more of the same kind.
    let strings = [
        "unhalted_core_cycles",
        "uops_executed:port2_core",
        "cycles_not_in_halt",
        "ls_dispatch:ld_dispatch",
        "ls_dispatch:store_dispatch",
        "ls_dispatch:ld_st_dispatch",
        "retired_uops",
        "retired_ops",
        "uops_executed:port0",
        "uops_executed:port1",
        "uops_executed:port015",
        "uops_executed:port234_core",
        "uops_retired:any",
        "instructions_retired",
        "inst_retired:any_p",
        "perf::cycles",
        "cpu_clk_unhalted:thread_p",
        "no_such_event",
    ];
    let mut encoded: HashMap<String, usize> = HashMap::new();
    let mut diffs = Vec::new();
    let configs: [&[(&str, &str)]; 7] = [
        &[],
        &[("LIBPFM_FORCE_PMU", "nhm")],
        &[("LIBPFM_FORCE_PMU", "wsm")],
        &[("LIBPFM_FORCE_PMU", "amd64_fam17h_zen1")],
        &[("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3")],
        &[("LIBPFM_FORCE_PMU", "ix86arch")],
        &[("LIBPFM_ENCODE_INACTIVE", "1")],
    ];
    for env in configs {
        let (ours, theirs) = run_both(p, "exegesis", &strings, env);
        for (x, y) in theirs.lines().zip(ours.lines()) {
            if x != y {
                diffs.push(format!(
                    "{env:?}: libpfm4 {x}\n{:>w$} pfmlib  {y}",
                    "",
                    w = format!("{env:?}:").len()
                ));
            } else if x.contains(" ret=0 ") {
                *encoded
                    .entry(x.split(" ").next().unwrap_or("").to_string())
                    .or_default() += 1;
            }
        }
        if theirs.lines().count() != ours.lines().count() {
            diffs.push(format!("{env:?}: output lengths differ:\n{theirs}\n{ours}"));
        }
    }
    eprintln!(
        "llvm-exegesis strings: {} strings x {} configurations, {} encoded by both (identical), {} differences",
        strings.len(),
        configs.len(),
        encoded.values().sum::<usize>(),
        diffs.len()
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    for s in [
        "unhalted_core_cycles",
        "uops_executed:port2_core",
        "cycles_not_in_halt",
        "ls_dispatch:ld_dispatch",
    ] {
        assert!(
            encoded.contains_key(s),
            "{s} was never encoded by both libraries"
        );
    }
}
