//! The oracles of libpfm4's builds for architectures other than x86:
//! libpfm4 4.13 built for `arm64`, `arm`, `powerpc`, `s390x`, `sparc` and
//! `mips` from Debian's source package (`make ARCH=<arch> lib`; CI builds
//! them at test time), found through `PFMLIB_LIBPFM4_<ARCH>` (upper case),
//! upstream's builds through `PFMLIB_LIBPFM4_HEAD_<ARCH>` (`common/head.rs`),
//! and libpfm4's source tree (for its `tests/`) through `PFMLIB_LIBPFM4_SRC`.
//! Without them the tests print `SKIPPED` and pass, unless
//! `PFMLIB_REQUIRE_ARM_ORACLES` is set (CI sets it; it covers every
//! architecture's build).
//!
//! Each test file loads one build: two libpfm4 builds never share a process.

#![allow(dead_code)]

use super::sweep::{compare_one, compare_tables, report, selected, shared_pmus, sweep_pmu};
use pfm_oracle::Libpfm4;
use pfmlib::{Host, Library, Os, Plm, PmuKind};
use std::path::PathBuf;

/// The variable that makes a missing oracle a failure.
pub const REQUIRE: &str = "PFMLIB_REQUIRE_ARM_ORACLES";

/// A libpfm4 build for one architecture other than x86.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// `make ARCH=arm64 lib`.
    Arm64,
    /// `make ARCH=arm lib`.
    Arm,
    /// `make ARCH=powerpc lib`.
    Powerpc,
    /// `make ARCH=s390x lib`.
    S390x,
    /// `make ARCH=sparc lib`.
    Sparc,
    /// `make ARCH=mips lib`.
    Mips,
    /// libpfm4 upstream, `make ARCH=arm64 lib` (see `common/head.rs`).
    HeadArm64,
    /// libpfm4 upstream, `make ARCH=arm lib`.
    HeadArm,
    /// libpfm4 upstream, `make ARCH=powerpc lib`.
    HeadPowerpc,
    /// libpfm4 upstream, `make ARCH=s390x lib`.
    HeadS390x,
    /// libpfm4 upstream, `make ARCH=sparc lib`.
    HeadSparc,
    /// libpfm4 upstream, `make ARCH=mips lib`.
    HeadMips,
}

impl Build {
    /// The variable holding the path of its `libpfm.so.4`.
    pub fn var(self) -> &'static str {
        match self {
            Build::Arm64 => "PFMLIB_LIBPFM4_ARM64",
            Build::Arm => "PFMLIB_LIBPFM4_ARM",
            Build::Powerpc => "PFMLIB_LIBPFM4_POWERPC",
            Build::S390x => "PFMLIB_LIBPFM4_S390X",
            Build::Sparc => "PFMLIB_LIBPFM4_SPARC",
            Build::Mips => "PFMLIB_LIBPFM4_MIPS",
            Build::HeadArm64 => super::head::ARM64,
            Build::HeadArm => super::head::ARM,
            Build::HeadPowerpc => super::head::POWERPC,
            Build::HeadS390x => super::head::S390X,
            Build::HeadSparc => super::head::SPARC,
            Build::HeadMips => super::head::MIPS,
        }
    }

    /// Whether this is a build of libpfm4 upstream.
    pub fn is_head(self) -> bool {
        matches!(
            self,
            Build::HeadArm64
                | Build::HeadArm
                | Build::HeadPowerpc
                | Build::HeadS390x
                | Build::HeadSparc
                | Build::HeadMips
        )
    }

    /// The architecture this build is for.
    pub fn arch(self) -> pfmlib::Arch {
        use pfmlib::Arch;
        match self {
            Build::Arm64 | Build::HeadArm64 => Arch::Aarch64,
            Build::Arm | Build::HeadArm => Arch::Arm,
            Build::Powerpc | Build::HeadPowerpc => Arch::PowerPc,
            Build::S390x | Build::HeadS390x => Arch::S390x,
            Build::Sparc | Build::HeadSparc => Arch::Sparc,
            Build::Mips | Build::HeadMips => Arch::Mips,
        }
    }

    /// PMUs and events libpfm4 knows in this build
    /// (`LIBPFM_ENCODE_INACTIVE=1`, on a host that is not of its
    /// architecture).
    pub fn expected(self) -> (usize, usize) {
        match self {
            Build::Arm64 => (74, 1977),
            Build::Arm => (79, 2038),
            Build::Powerpc => (15, 5986),
            Build::S390x => (4, 85),
            Build::Sparc => (9, 422),
            Build::Mips => (3, 205),
            Build::HeadArm64 => super::head::ARM64_SIZE,
            Build::HeadArm => super::head::ARM_SIZE,
            Build::HeadPowerpc => super::head::POWERPC_SIZE,
            Build::HeadS390x => super::head::S390X_SIZE,
            Build::HeadSparc => super::head::SPARC_SIZE,
            Build::HeadMips => super::head::MIPS_SIZE,
        }
    }
}

/// PMUs of the builds pfmlib does not have yet, with the reason.
pub const NOT_YET: &[(&str, &str)] = &[];

/// PMUs of the 4.13 builds whose tables changed upstream: pfmlib follows
/// upstream (the `libpfm4_head_diff_arm*` tests compare them), so the 4.13
/// comparisons leave them out (said once per test). Each with why.
pub const UPSTREAM_CHANGED: &[(&str, &str)] = &[
    ("arm_n1", "upstream adds L1I_CACHE, L2D_CACHE and more"),
    ("arm_n2", "upstream adds events, as arm_n1"),
    ("arm_v1", "upstream adds events, as arm_n1"),
    ("arm_v2", "upstream adds events, as arm_n1"),
];

/// Arm PMUs upstream added after 4.13 (docs/pmus.md, Arm): 4.13's builds
/// lack them, so a 4.13 comparison leaves them out of pfmlib's answers; the
/// upstream comparisons have them.
pub const UPSTREAM_ADDED: &[&str] = &[
    "arm_ac55",
    "arm_ac72",
    "arm_ac76",
    "arm_x4",
    "arm_n3",
    "arm_v3",
    "arm_olympus",
    "arm_monaka",
];

/// The PMUs a 4.13 comparison leaves out ([`UPSTREAM_CHANGED`]).
fn changed_upstream() -> Vec<&'static str> {
    UPSTREAM_CHANGED.iter().map(|(p, _)| *p).collect()
}

/// `name` from the environment, or why not (a panic under [`REQUIRE`]).
pub fn path_from_env(var: &str, what: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => {
            if std::env::var_os(REQUIRE).is_some() {
                panic!("{what} required ({REQUIRE} is set) but {var} is not");
            }
            eprintln!("SKIPPED: {var} is not set ({what}; .ci/run builds it from Debian's libpfm4 source package)");
            None
        }
    }
}

/// The oracle of `build`, loaded, or `None` (after saying why). An upstream
/// build is loaded once per process ([`super::head::oracle`]).
pub fn oracle(build: Build) -> Option<Oracle> {
    if build.is_head() {
        return super::head::oracle(build.var()).map(Oracle::Shared);
    }
    let path = path_from_env(build.var(), "libpfm4 built for another architecture")?;
    match Libpfm4::load_from(&path) {
        Ok(o) => Some(Oracle::Owned(o)),
        Err(e) => {
            if std::env::var_os(REQUIRE).is_some() {
                panic!("{} required but not loadable: {e}", path.display());
            }
            eprintln!("SKIPPED: {} not loadable: {e}", path.display());
            None
        }
    }
}

/// Can libpfm4's build `build` be run on files of our own here (a private
/// mount namespace, `unshare -rm`, where they are bind-mounted over
/// `/proc` and `/sys` files)? `None` (after saying why; a panic under
/// [`REQUIRE`]) if not.
pub fn namespace_oracle(build: Build) -> Option<()> {
    if build.is_head() {
        super::head::path(build.var())?;
    } else {
        path_from_env(build.var(), "libpfm4 built for another architecture")?;
    }
    let probe = std::process::Command::new("unshare")
        .args(["-rm", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !probe {
        let why = "this system allows no unprivileged mount namespace (unshare -rm)";
        if std::env::var_os(REQUIRE).is_some() {
            panic!("libpfm4's detection cannot be checked: {why}");
        }
        eprintln!("SKIPPED: libpfm4's detection not checked: {why}");
        return None;
    }
    Some(())
}

/// A loaded oracle: 4.13's (one per test) or upstream's (one per process).
pub enum Oracle {
    /// Loaded by this test.
    Owned(Libpfm4),
    /// Loaded once for the process.
    Shared(&'static Libpfm4),
}

impl std::ops::Deref for Oracle {
    type Target = Libpfm4;
    fn deref(&self) -> &Libpfm4 {
        match self {
            Oracle::Owned(o) => o,
            Oracle::Shared(o) => o,
        }
    }
}

/// pfmlib as the Arm builds answer on this (non-Arm) host: no core PMU is
/// present, so the perf_events PMU keeps every privilege level; every PMU
/// is encodable with its prefix (`LIBPFM_ENCODE_INACTIVE=1`).
pub fn library() -> Library {
    Library::with_host(Host::none())
}

/// The PMUs of the build pfmlib must have: all but [`NOT_YET`] and
/// `not_yet` (an upstream test's list, see `common/head.rs`), whose PMUs
/// are left out (said once per test).
pub fn checked_pmus(o: &Libpfm4, lib: &Library, not_yet: &[&str]) -> Vec<String> {
    let names = shared_pmus(o, lib);
    let mut skipped = Vec::new();
    for p in o.pmus().into_iter().filter(|p| selected(&p.name)) {
        if super::head::not_yet(not_yet, &p.name) {
            skipped.push(p.name);
            continue;
        }
        let missing = !names.contains(&p.name);
        let excused = NOT_YET.iter().any(|(n, _)| *n == p.name);
        assert!(
            missing == excused,
            "{}: pfmlib {} it",
            p.name,
            if missing { "lacks" } else { "has" }
        );
    }
    if !skipped.is_empty() {
        eprintln!(
            "left out (NOT_YET, or changed upstream): {} PMUs: {}",
            skipped.len(),
            skipped.join(" ")
        );
    }
    names
        .into_iter()
        .filter(|n| !super::head::not_yet(not_yet, n))
        .collect()
}

/// The tables of every PMU of the build: counts, events, attributes.
pub fn tables(build: Build) {
    tables_with(build, &changed_upstream());
}

/// [`tables`], `not_yet` left out.
pub fn tables_with(build: Build, not_yet: &[&str]) {
    let Some(o) = oracle(build) else { return };
    let lib = library();
    let theirs = o.pmus();
    let events: usize = theirs.iter().map(|p| p.nevents as usize).sum();
    assert_eq!(
        (theirs.len(), events),
        build.expected(),
        "the oracle's size"
    );
    let names = checked_pmus(&o, &lib, not_yet);
    for n in &names {
        let p = lib.pmu(n).expect("shared");
        eprintln!("{build:?} table {n}: {} events", p.events().count());
    }
    for (n, why) in NOT_YET {
        eprintln!("{build:?} table {n}: not in pfmlib yet ({why})");
    }
    let diffs = compare_tables(&o, &lib, &names);
    eprintln!(
        "{build:?}: tables compared with libpfm4: {} of {} PMUs",
        names.len(),
        theirs.len()
    );
    report(&format!("{build:?} tables"), &diffs, 0);
}

/// Shard `k` of `n` of the string sweep over every PMU of the build
/// (instances of one table included: their names, ids and kernel PMUs differ).
pub fn sweep(build: Build, k: usize, n: usize) {
    sweep_with(build, k, n, &changed_upstream());
}

/// [`sweep`], `not_yet` left out.
pub fn sweep_with(build: Build, k: usize, n: usize, not_yet: &[&str]) {
    let Some(o) = oracle(build) else { return };
    let lib = library();
    let mut diffs = Vec::new();
    let mut total = 0;
    for (i, pmu) in checked_pmus(&o, &lib, not_yet).iter().enumerate() {
        if i % n != k {
            continue;
        }
        let (d, count) = sweep_pmu(&o, &lib, pmu);
        let d = without_expected(&o, d);
        let pct = 100.0 * (count - d.len().min(count)) as f64 / count.max(1) as f64;
        eprintln!(
            "{build:?} sweep {pmu}: {count} strings x 3 OS layers, {} differences ({pct:.1}% agreement)",
            d.len()
        );
        diffs.extend(d);
        total += count;
    }
    report(&format!("{build:?} sweep shard {k}"), &diffs, total);
}

/// Core PMUs whose perf_events type libpfm4 reads from sysfs since 4.13
/// (upstream's `pfm_arm_get_perf_encoding`: the first kernel PMU of the
/// table's `perf_name` that is published, none: `PFM_ERR_NOTSUPP`; 4.13
/// gives `PERF_TYPE_RAW` whatever the kernel). pfmlib follows upstream.
pub const PERF_TYPE_FROM_SYSFS: &[&str] = &["arm_ac57", "arm_ac53", "arm_thunderx2", "arm_1176"];

/// The differences that are expected against an oracle of before that
/// change (4.13): on this host, which publishes none of those kernel PMUs,
/// pfmlib answers not supported (-1) where the oracle encodes the raw type
/// (or reports a perf_events attribute error, which it checks after the
/// type), for the perf_events layers of [`PERF_TYPE_FROM_SYSFS`], by name. Against
/// an upstream oracle nothing is left out.
pub fn without_expected(o: &Libpfm4, diffs: Vec<String>) -> Vec<String> {
    let raw_type_oracle = PERF_TYPE_FROM_SYSFS.iter().any(|p| {
        o.encode_perf(&format!("{p}::CPU_CYCLES"), Plm::DEFAULT.bits(), false)
            .is_ok()
    });
    if !raw_type_oracle {
        return diffs;
    }
    let expected = |d: &str| {
        let Some(rest) = d
            .strip_prefix("PerfEventExt \"")
            .or_else(|| d.strip_prefix("PerfEvent \""))
        else {
            return false;
        };
        let rest = rest.to_ascii_lowercase();
        PERF_TYPE_FROM_SYSFS
            .iter()
            .any(|p| rest.starts_with(&format!("{p}::")))
            && d.contains(": pfmlib Err((-1, \"the kernel publishes none of the perf_events PMUs")
    };
    diffs.into_iter().filter(|d| !expected(d)).collect()
}

/// Strings beyond the per-event sweep: unprefixed names, case, aliases,
/// repeated and conflicting levels, uncore PMUs without a kernel PMU.
pub const ODD: &[&str] = &[
    "CPU_CYCLES",
    "cycles",
    "arm_n1::inst_retired",
    "ARM_N1::INST_RETIRED:K",
    "arm_n1::INST_RETIRED:k:u:hv",
    "arm_n1::INST_RETIRED:k=0:u=0:hv=0",
    "arm_n1::INST_RETIRED:hv",
    "arm_n1::INST_RETIRED:k:k",
    "arm_n1::INST_RETIRED:k=1:k=0",
    "arm_n1::INST_RETIRED:h",
    "arm_n1::INST_RETIRED:0x1",
    "arm_n1::BR_RET_SPEC",
    "arm_n1::BR_RET_SPEC:u",
    "arm_v2::L2_TLB_REQ:k",
    "arm_v1::L2D_TLB:u:period=100",
    "arm_kunpeng::CPU_CYCLES:hv=1:excl",
    "tx2_dmc0::UNC_DMC_READS",
    "tx2_dmc1::UNC_DMC_READS:k=0:u=1",
    "tx2_ccpi1::UNC_CCPI_GIC:hv",
    "hisi_sccl1_ddrc0::flux_wr",
    "hisi_sccl7_l3c23::rd_cpipe:u",
    "hisi_sccl5_hha7::rx_ops_num:period=5",
    "hisi_sccl1_l3c8::RD_CPIPE",
    "arm_a64fx::CPU_CYCLES:u",
    "arm_ac7::CPU_CYCLES:u",
    "arm_ac8::CPU_CYCLES:k",
    "arm_ac8::CPU_CYCLES:u=1",
    "arm_1176::INSTR_EXEC",
    "qcom_krait::CPU_CYCLES:k:u",
    "arm_n1::INST_RETIRED,arm_n1::CPU_CYCLES",
    "arm_n1::",
    "::INST_RETIRED",
];

/// The odd strings, with every default privilege level mask.
pub fn odd_strings(build: Build) {
    odd_strings_with(build, &changed_upstream());
}

/// [`odd_strings`], strings naming a PMU of `not_yet` left out.
pub fn odd_strings_with(build: Build, not_yet: &[&str]) {
    odd_strings_of(build, ODD, not_yet);
}

/// The strings of `odd` (strings naming a PMU of the build or none; the
/// others are left out), with every default privilege level mask,
/// strings naming a PMU of `not_yet` left out.
pub fn odd_strings_of(build: Build, odd: &[&str], not_yet: &[&str]) {
    let Some(o) = oracle(build) else { return };
    let lib = library();
    let mut diffs = Vec::new();
    let plms = [Plm::DEFAULT, Plm::PLM3, Plm::PLM0, Plm::ALL, Plm::PLMH];
    let known: Vec<String> = o.pmus().into_iter().map(|p| p.name).collect();
    // A string naming a PMU of the other build only: pfmlib has it, the
    // build does not (their tables are compared by the other test file).
    let strings: Vec<&str> = odd
        .iter()
        .copied()
        .filter(|s| match s.split_once("::") {
            Some((p, _)) if !p.is_empty() => {
                known.iter().any(|k| k.eq_ignore_ascii_case(p))
                    && !super::head::not_yet(not_yet, &p.to_ascii_lowercase())
            }
            _ => true,
        })
        .collect();
    for s in &strings {
        for plm in plms {
            compare_one(&lib, &o, s, plm, &mut diffs);
        }
    }
    let diffs = without_expected(&o, diffs);
    report(
        &format!("{build:?} odd strings"),
        &diffs,
        strings.len() * plms.len(),
    );
}

/// Every event and modifier description of the build's hardware PMUs is
/// our own (the perf_events PMU is the x86 build's, checked by
/// `tests/own_words.rs`).
pub fn own_words(build: Build) {
    own_words_with(build, &changed_upstream());
}

/// [`own_words`], `not_yet` left out.
pub fn own_words_with(build: Build, not_yet: &[&str]) {
    let Some(o) = oracle(build) else { return };
    let lib = library();
    let mut bad = Vec::new();
    let mut checked = 0;
    for name in checked_pmus(&o, &lib, not_yet) {
        let theirs = o.pmu_by_name(&name).expect("shared");
        let ours = lib.pmu(&name).expect("shared");
        if ours.info().kind == PmuKind::OsGeneric {
            continue;
        }
        for (a, b) in ours.events().zip(o.events(&theirs, 0)) {
            let info = a.info(Os::None);
            let mut pairs = vec![(info.name.to_string(), info.desc, b.desc.clone())];
            for (x, y) in a.attrs(Os::None).iter().zip(b.attrs.iter()) {
                pairs.push((format!("{}:{}", info.name, x.name), x.desc, y.desc.clone()));
            }
            for (what, mine, other) in pairs {
                checked += 1;
                if let Some(why) = super::words::copied(mine, &other) {
                    bad.push(format!(
                        "{name}::{what}: {why}\n    ours:    {mine}\n    libpfm4: {other}"
                    ));
                }
            }
        }
    }
    eprintln!(
        "{build:?}: descriptions checked against libpfm4: {checked}, too close: {}",
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "descriptions too close to libpfm4's:\n{}",
        bad.join("\n")
    );
}
