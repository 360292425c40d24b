//! libpfm4's PMU lookup order per Arm build, compared with pfmlib's on a
//! host of that architecture, through `LIBPFM_FORCE_PMU`: libpfm4 sets up
//! the PMUs of its array only up to the forced one (the first whose name
//! starts with the forced string), so the PMUs it then knows give the
//! forced PMU's position, and forcing every PMU of the build gives the
//! whole order. libpfm4 reads the variable once per process and
//! `pfm_terminate` does not forget the PMUs it set up, so each forced
//! string is asked of a fresh process: this test binary run again with
//! [`PROBE`] set, which loads the oracle under the variable and prints what
//! it knows.
//!
//! Included with `#[path]` by the test files of each build (beside
//! `mod common;`), which name one probe test [`probe`] per build: 4.13's
//! (the PMUs upstream added left out of pfmlib's answers) and upstream's.

use crate::common::arm::{oracle, Build, UPSTREAM_ADDED};
use pfmlib::{Arch, Host, Library, Options};
use std::collections::BTreeSet;
use std::process::Command;

/// Set in the probe process: the build's name.
pub const PROBE: &str = "PFMLIB_ORDER_PROBE";

/// Forced strings beyond the build's PMU names: prefixes shared by several
/// PMUs, where the order decides the choice, in either case.
const PREFIXES: &[&str] = &[
    "a",
    "ar",
    "arm",
    "ARM_",
    "arm_a",
    "arm_a5",
    "arm_n",
    "arm_v",
    "arm_t",
    "arm_k",
    "arm_x",
    "h",
    "hisi",
    "HISI_SCCL5",
    "hisi_sccl1_l3c1",
    "t",
    "tx2",
    "tx2_llc",
    "p",
    "perf",
    "q",
    "x",
];

/// What one library knows with a forced string: the PMUs set up (visible)
/// and the active ones.
#[derive(Debug, PartialEq, Eq)]
pub struct Forced {
    pub visible: BTreeSet<String>,
    pub active: Vec<String>,
}

/// In the probe process: prints what the oracle knows, one `ORDER V name`
/// or `ORDER A name` line each. Nothing in any other process.
pub fn probe(build: Build) {
    if std::env::var(PROBE).ok().as_deref() != Some(build.var()) {
        return;
    }
    let Some(o) = oracle(build) else { return };
    for p in o.pmus() {
        println!("ORDER V {}", p.name);
        if p.is_present {
            println!("ORDER A {}", p.name);
        }
    }
}

/// libpfm4's answer for `forced`, from a probe process (`test`: the probe
/// test's name); `None` when the probe printed nothing.
fn libpfm4_forced(build: Build, test: &str, forced: &str) -> Option<Forced> {
    let exe = std::env::current_exe().ok()?;
    let out = Command::new(exe)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(PROBE, build.var())
        .env("LIBPFM_FORCE_PMU", forced)
        .env_remove("LIBPFM_DISABLED_PMUS")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut f = Forced {
        visible: BTreeSet::new(),
        active: Vec::new(),
    };
    // The test harness may print `test NAME ... ` before the first line.
    for l in text
        .lines()
        .filter_map(|l| l.find("ORDER ").map(|i| &l[i..]))
    {
        if let Some(n) = l.strip_prefix("ORDER V ") {
            f.visible.insert(n.to_string());
        } else if let Some(n) = l.strip_prefix("ORDER A ") {
            f.active.push(n.to_string());
        }
    }
    (!f.visible.is_empty()).then_some(f)
}

/// pfmlib's answer for `forced` on a host of `arch` with this machine's
/// kernel files (those the oracle reads).
/// Against a 4.13 build (`upstream` false) the PMUs upstream added
/// ([`UPSTREAM_ADDED`]) are left out.
fn pfmlib_forced(arch: Arch, forced: &str, upstream: bool) -> Forced {
    let lib = Library::new(
        Host::from_root(arch, "/".into()),
        Options::new().force_pmu(forced),
    );
    let keep = |n: &&str| upstream || !UPSTREAM_ADDED.contains(n);
    Forced {
        visible: lib
            .pmus()
            .map(|p| p.name())
            .filter(keep)
            .map(String::from)
            .collect(),
        active: lib
            .active_pmus()
            .map(|p| p.name())
            .filter(keep)
            .map(String::from)
            .collect(),
    }
}

/// For every PMU name of the build and [`PREFIXES`] that name one of its
/// PMUs: the same PMUs set up and the same forced PMU in both libraries;
/// and the order derived from the answers is the same.
pub fn forced_choice_and_order(build: Build, arch: Arch, test: &str) {
    let Some(o) = oracle(build) else { return };
    let names: Vec<String> = o.pmus().into_iter().map(|p| p.name).collect();
    drop(o);
    let mut strings: Vec<&str> = names.iter().map(String::as_str).collect();
    strings.extend(PREFIXES.iter().copied().filter(|p| {
        names
            .iter()
            .any(|n| n.to_ascii_lowercase().starts_with(&p.to_ascii_lowercase()))
    }));
    let (mut theirs, mut ours) = (Vec::new(), Vec::new());
    let mut new_choice = Vec::new();
    for s in &strings {
        // A string upstream resolves to a PMU it added: 4.13 (which lacks
        // it) picks another; an expected difference, named.
        if !build.is_head() {
            if let [one] = &pfmlib_forced(arch, s, true).active[..] {
                if UPSTREAM_ADDED.contains(&one.as_str()) {
                    new_choice.push(format!("{s} -> {one}"));
                    continue;
                }
            }
        }
        let t = libpfm4_forced(build, test, s).expect("the probe answers");
        let u = pfmlib_forced(arch, s, build.is_head());
        assert_eq!(
            u.active, t.active,
            "{build:?}: LIBPFM_FORCE_PMU={s}: forced PMU"
        );
        assert_eq!(
            u.visible, t.visible,
            "{build:?}: LIBPFM_FORCE_PMU={s}: PMUs set up"
        );
        if let [one] = &t.active[..] {
            if names.contains(one) {
                theirs.push((t.visible.len(), one.clone()));
                ours.push((u.visible.len(), one.clone()));
            }
        }
    }
    theirs.sort();
    theirs.dedup();
    ours.sort();
    ours.dedup();
    if !new_choice.is_empty() {
        eprintln!(
            "{build:?}: {} forced strings pick a PMU upstream added (UPSTREAM_ADDED), not compared with 4.13: {new_choice:?}",
            new_choice.len()
        );
    }
    assert_eq!(theirs.len(), names.len(), "{build:?}: every PMU placed");
    assert_eq!(ours, theirs, "{build:?}: lookup order");
    eprintln!(
        "{build:?}: {} forced strings, {} PMUs in the same order: {}",
        strings.len(),
        theirs.len(),
        theirs
            .iter()
            .map(|(_, n)| n.as_str())
            .take(14)
            .collect::<Vec<_>>()
            .join(" ")
    );
}
