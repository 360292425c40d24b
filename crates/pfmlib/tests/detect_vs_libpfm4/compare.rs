//! The detection comparison of `detect_vs_libpfm4.rs` (libpfm4 4.13) and
//! `detect_vs_libpfm4_head.rs` (libpfm4 upstream): a child process per
//! identity loads a fake-CPUID libpfm4 and reports what it detects; pfmlib
//! answers for a `Host::from_cpuid` over the same leaves.

#![allow(dead_code)]

use super::identities::Identity;
use pfm_oracle::fake_cpuid::{self, Leaf};
use pfm_oracle::Libpfm4;
use pfmlib::host::CpuIdResult;
use pfmlib::{Host, Library, Options, Os, Vendor};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// In a child process: the oracle to load and report on.
pub const CHILD: &str = "PFMLIB_DETECT_ORACLE_CHILD";
/// In the namespace: the oracle; this process runs the published view.
pub const NAMESPACE: &str = "PFMLIB_DETECT_IN_NAMESPACE";
/// Makes a missing 4.13 source a failure.
pub const REQUIRE: &str = "PFMLIB_REQUIRE_LIBPFM4_SRC";
/// Marks an identity skipped for a listed PMU (`NOT_YET` of the upstream
/// comparison, the expected differences of the 4.13 one) in the presence
/// tally.
const SKIPPED: &str = "NOT_YET ";

/// Whether `pmu` is in `list` (names; a `*` ends a prefix).
pub fn is_not_yet(list: &[&str], pmu: &str) -> bool {
    list.iter().any(|w| match w.strip_suffix('*') {
        Some(prefix) => pmu.starts_with(prefix),
        None => pmu == *w,
    })
}

/// The first PMU of `list` present in the oracle's report or in pfmlib.
fn skipped_for(r: &Report, lib: &Library, list: &[&str]) -> Option<String> {
    r.pmus
        .iter()
        .filter(|p| p.present)
        .map(|p| p.name.clone())
        .chain(lib.active_pmus().map(|p| p.name().to_string()))
        .find(|n| is_not_yet(list, n))
}

/// Prefix of the child's report lines.
const MARK: &str = "@@";

/// Unprefixed names looked up on every identity, besides the first and
/// last event of each present PMU.
const NAMES: &[&str] = &[
    "cycles",
    "instructions",
    "PERF_COUNT_HW_CPU_CYCLES",
    "INST_RETIRED",
    "INSTRUCTION_RETIRED",
    "INSTRUCTIONS_RETIRED",
    "RETIRED_INSTRUCTIONS",
    "UNHALTED_CORE_CYCLES",
    "UNHALTED_REFERENCE_CYCLES",
    "CPU_CLK_UNHALTED",
    "CYCLES_NOT_IN_HALT",
    "LLC_MISSES",
    "LLC_REFERENCES",
    "BRANCH_INSTRUCTIONS_RETIRED",
    "MISPREDICTED_BRANCH_RETIRED",
    "RETIRED_UOPS",
    "DRAM_ACCESSES",
    "global_power_events",
    "instr_completed",
    "UNC_CLK_UNHALTED",
    "UNC_C_CLOCKTICKS",
    "UNC_H_CLOCKTICKS",
    "UNC_P_CLOCKTICKS",
    "UNC_M_CAS_COUNT",
    "UNC_CHA_CLOCKTICKS",
    "UNC_CBO_CACHE_LOOKUP",
    "RAPL_ENERGY_PKG",
    "RAPL_ENERGY_CORES",
    "NOT_AN_EVENT",
];

/// One PMU as the oracle reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OraclePmu {
    name: String,
    desc: String,
    present: bool,
    nevents: i32,
    cntrs: i32,
    fixed: i32,
}

/// Everything the oracle reports for one identity.
#[derive(Debug, Default)]
pub struct Report {
    pmus: Vec<OraclePmu>,
    /// Unprefixed name → opaque event index, or the error code.
    finds: Vec<(String, i32)>,
    /// The architected PMU's events with their attribute counts.
    arch: Vec<(String, i32)>,
    /// PMU descriptions in libpfm4's table order (debug output).
    tried: Vec<String>,
}

// ---- the child ---------------------------------------------------------------

/// The child process of the comparisons (a no-op otherwise): loads the
/// oracle named by [`CHILD`] and prints what it detects. Each test file
/// calls it from a test named `oracle_child`.
pub fn oracle_child() {
    let Some(so) = std::env::var_os(CHILD) else {
        return;
    };
    let o = match Libpfm4::load_from(Path::new(&so)) {
        Ok(o) => o,
        Err(e) => panic!("oracle not loadable: {e}"),
    };
    let pmus = o.pmus();
    let mut out = String::new();
    let mut names: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    for p in &pmus {
        let present = u8::from(p.is_present);
        let (n, c, f) = (p.nevents, p.num_cntrs, p.num_fixed_cntrs);
        let _ = writeln!(
            out,
            "{MARK}\tpmu\t{}\t{present}\t{n}\t{c}\t{f}\t{}",
            p.name, p.desc
        );
        if p.is_present {
            names.extend(first_and_last(&o, p.first_event));
        }
        if p.is_present && p.name == "ix86arch" {
            for e in o.events(p, 0) {
                let _ = writeln!(out, "{MARK}\tarch\t{}\t{}", e.name, e.nattrs);
            }
        }
    }
    for n in &names {
        let r = o.find_event(n).unwrap_or_else(|e| e);
        let _ = writeln!(out, "{MARK}\tfind\t{n}\t{r}");
    }
    print!("{out}");
}

/// The names of the first and last event from `idx` on.
fn first_and_last(o: &Libpfm4, idx: i32) -> Vec<String> {
    let name = |i: i32| {
        o.event_info_c(i, 0)
            .map(|e| e.name.to_string_lossy().into_owned())
    };
    let mut last = idx;
    let mut i = idx;
    while i >= 0 {
        last = i;
        i = o.event_next(i);
    }
    [name(idx), name(last)].into_iter().flatten().collect()
}

/// Runs the child for `leaves`; `debug` asks libpfm4 for its debug output.
pub fn run_child(so: &Path, leaves: &[Leaf], debug: bool) -> Result<Report, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut cmd = Command::new(exe);
    cmd.args(["oracle_child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, so)
        .env(fake_cpuid::VAR, fake_cpuid::env_value(leaves))
        .env_remove(NAMESPACE);
    for v in [
        "LIBPFM_FORCE_PMU",
        "LIBPFM_DISABLED_PMUS",
        "LIBPFM_VERBOSE",
        "LIBPFM_DEBUG",
        "LIBPFM_DEBUG_STDOUT",
    ] {
        cmd.env_remove(v);
    }
    if debug {
        cmd.env("LIBPFM_DEBUG", "1");
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run the child: {e}"))?;
    parse_report(&out)
}

/// The child's report from its output.
fn parse_report(out: &Output) -> Result<Report, String> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "child failed ({}):\n{stdout}\n{stderr}",
            out.status
        ));
    }
    let mut r = Report::default();
    // The harness may print "test oracle_child ... " before the first line.
    for line in stdout.lines().filter_map(|l| l.find(MARK).map(|i| &l[i..])) {
        let f: Vec<&str> = line.splitn(8, '\t').collect();
        let num = |i: usize| f.get(i).and_then(|s| s.parse::<i32>().ok());
        match (f.first(), f.get(1)) {
            (Some(&MARK), Some(&"pmu")) if f.len() == 8 => r.pmus.push(OraclePmu {
                name: f[2].to_string(),
                present: f[3] == "1",
                nevents: num(4).unwrap_or(-1),
                cntrs: num(5).unwrap_or(-1),
                fixed: num(6).unwrap_or(-1),
                desc: f[7].to_string(),
            }),
            (Some(&MARK), Some(&"find")) => r.finds.push((f[2].to_string(), num(3).unwrap_or(1))),
            (Some(&MARK), Some(&"arch")) => r.arch.push((f[2].to_string(), num(3).unwrap_or(-1))),
            _ => {}
        }
    }
    r.tried = stderr
        .lines()
        .filter(|l| l.contains("pfmlib_init_pmus"))
        .filter_map(|l| l.split_once("): trying ").map(|(_, d)| d.to_string()))
        .collect();
    if r.pmus.is_empty() {
        return Err(format!("the child reported nothing:\n{stdout}\n{stderr}"));
    }
    Ok(r)
}

// ---- the comparison ------------------------------------------------------------

/// libpfm4's PMU names in the order of its PMU table, from the debug
/// output of one initialisation (`trying <description>` per PMU).
pub fn table_order(so: &Path) -> Result<Vec<String>, String> {
    let r = run_child(so, &[], true)?;
    // Upstream describes a few PMUs alike (two of its Ice Lake-SP CHA boxes
    // say "CHA0"): such PMUs take the description's turns in id order.
    let mut by_desc: BTreeMap<&str, std::collections::VecDeque<&str>> = BTreeMap::new();
    for p in &r.pmus {
        by_desc.entry(&p.desc).or_default().push_back(&p.name);
    }
    let order: Vec<String> = r
        .tried
        .iter()
        .map(|d| {
            by_desc
                .get_mut(d.as_str())
                .and_then(|names| names.pop_front())
                .map(|n| n.to_string())
                .ok_or_else(|| format!("libpfm4 tried {d:?}, which is not in its PMU list"))
        })
        .collect::<Result<_, _>>()?;
    if order.len() != r.pmus.len() {
        return Err(format!(
            "libpfm4 tried {} PMUs, lists {}",
            order.len(),
            r.pmus.len()
        ));
    }
    Ok(order)
}

/// pfmlib's host for `leaves`, with the kernel files under `/`.
/// pfmlib's own PMUs (beyond libpfm4) take ids from this one on.
const OWN_PMU_IDS: u32 = 701;

/// Models pfmlib detects a libpfm4 PMU on beyond libpfm4 (its own
/// additions): (PMU, family, model). Jasper Lake (0x9c) is a Tremont with
/// Elkhart Lake's (0x96) event list, so `tmt`.
pub const OWN_MODELS: &[(&str, u32, u32)] = &[("tmt", 6, 0x9c)];

/// pfmlib on `h` as libpfm4 would see it: without pfmlib's own PMUs (ids
/// from 701) and without the PMUs it detects on models of [`OWN_MODELS`].
pub fn libpfm4_view(h: Host) -> Library {
    let mut off: Vec<String> = Library::global()
        .pmus()
        .filter(|p| p.info().id >= OWN_PMU_IDS)
        .map(|p| p.name().to_string())
        .collect();
    if h.vendor == Vendor::Intel {
        off.extend(
            OWN_MODELS
                .iter()
                .filter(|m| (m.1, m.2) == (h.family, h.model))
                .map(|m| m.0.to_string()),
        );
    }
    Library::new(h, Options::new().disable_pmus(&off.join(",")))
}

fn host(leaves: &[Leaf]) -> Host {
    let leaves = leaves.to_vec();
    let reader = move |leaf: u32, _sub: u32| {
        let [eax, ebx, ecx, edx] = fake_cpuid::answer(&leaves, leaf);
        CpuIdResult { eax, ebx, ecx, edx }
    };
    Host::from_cpuid(reader, Some(PathBuf::from("/")))
}

/// Which PMUs a comparison covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every PMU pfmlib has (the oracle is upstream's build, which has
    /// them all).
    Every,
    /// The PMUs the oracle's build has: those it lacks (added upstream
    /// after 4.13, compared with upstream's build by the `_head` test) are
    /// left out of the present PMUs, with the names found in them, and
    /// printed by name.
    OraclesOnly,
}

/// Every difference between the oracle's report and pfmlib's answers; the
/// PMUs left out ([`Scope::OraclesOnly`]) are added to `left_out`.
fn compare(
    order: &[String],
    r: &Report,
    lib: &Library,
    scope: Scope,
    left_out: &mut BTreeSet<String>,
) -> Vec<String> {
    let mut d = Vec::new();
    let theirs: Vec<&OraclePmu> = order
        .iter()
        .filter_map(|n| r.pmus.iter().find(|p| &p.name == n && p.present))
        .collect();
    let t_names: Vec<&str> = theirs.iter().map(|p| p.name.as_str()).collect();
    let known = |n: &str| scope == Scope::Every || order.iter().any(|o| o == n);
    let mut ours: Vec<&str> = lib.active_pmus().map(|p| p.name()).collect();
    left_out.extend(ours.iter().filter(|n| !known(n)).map(|n| n.to_string()));
    ours.retain(|n| known(n));
    if t_names != ours {
        d.push(format!(
            "present PMUs: libpfm4 {t_names:?}, pfmlib {ours:?}"
        ));
    }
    for p in theirs {
        let Some(info) = lib.pmu(&p.name).map(|x| x.info()) else {
            continue;
        };
        let ours = (info.nevents as i32, info.num_cntrs as i32);
        let ours = (ours.0, ours.1, info.num_fixed_cntrs as i32);
        if (p.nevents, p.cntrs, p.fixed) != ours {
            d.push(format!(
                "{}: events, counters, fixed counters: libpfm4 {:?}, pfmlib {ours:?}",
                p.name,
                (p.nevents, p.cntrs, p.fixed)
            ));
        }
    }
    for (name, theirs) in &r.finds {
        // The architectural and RAPL PMUs number only the events there.
        let found = lib.find_event(name);
        if found.as_ref().is_ok_and(|e| !known(e.pmu().name())) {
            continue;
        }
        let ours = found.map_or_else(|e| e.code(), |e| e.idx() as i32);
        if *theirs != ours {
            d.push(format!("{name}: libpfm4 {theirs:#x}, pfmlib {ours:#x}"));
        }
    }
    d.extend(index_round_trips(lib));
    let arch: Vec<(String, i32)> = lib
        .pmu("ix86arch")
        .filter(|p| p.is_present())
        .map(|p| {
            p.events()
                .map(|e| (e.name().to_string(), e.attrs(Os::None).len() as i32))
                .collect()
        })
        .unwrap_or_default();
    if arch != r.arch {
        d.push(format!(
            "ix86arch events: libpfm4 {:?}, pfmlib {arch:?}",
            r.arch
        ));
    }
    d
}

/// Every event of a present PMU is found again from its opaque index,
/// which its information repeats.
fn index_round_trips(lib: &Library) -> Vec<String> {
    let mut d = Vec::new();
    for p in lib.active_pmus() {
        for e in p.events() {
            let back = lib
                .event_by_idx(e.idx())
                .map(|b| (b.pmu().name(), b.name()));
            if back != Some((p.name(), e.name())) || e.info(Os::None).idx != e.idx() {
                d.push(format!(
                    "{}::{}: index {:#x} (info {:#x}) finds {back:?}",
                    p.name(),
                    e.name(),
                    e.idx(),
                    e.info(Os::None).idx
                ));
            }
        }
    }
    d
}

/// Identities compared and differences found, per class.
pub type Tally = BTreeMap<&'static str, (usize, usize)>;

/// Compares every identity (children run in parallel); returns the tally,
/// the differences and how often each PMU was present.
pub fn compare_all(
    so: &Path,
    ids: &[Identity],
    not_yet: &[&str],
    scope: Scope,
) -> (Tally, Vec<String>, BTreeMap<String, usize>) {
    let order = table_order(so).unwrap_or_else(|e| panic!("libpfm4's PMU order: {e}"));
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let left_out = Mutex::new(BTreeSet::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(id) = ids.get(i) else { break };
                let lib = libpfm4_view(host(&id.leaves));
                let (diffs, present) = match run_child(so, &id.leaves, false) {
                    Ok(r) if skipped_for(&r, &lib, not_yet).is_some() => {
                        // A listed PMU is present on either side: the
                        // identity is skipped, counted under that PMU.
                        let name = skipped_for(&r, &lib, not_yet).unwrap_or_default();
                        (Vec::new(), vec![format!("{SKIPPED}{name}")])
                    }
                    Ok(r) => {
                        let present: Vec<String> =
                            lib.active_pmus().map(|p| p.name().to_string()).collect();
                        let mut lo = BTreeSet::new();
                        let d = compare(&order, &r, &lib, scope, &mut lo);
                        if let Ok(mut all) = left_out.lock() {
                            all.extend(lo);
                        }
                        (d, present)
                    }
                    Err(e) => (vec![e], Vec::new()),
                };
                if let Ok(mut v) = results.lock() {
                    v.push((i, diffs, present));
                }
            });
        }
    });
    let left_out = left_out.into_inner().unwrap_or_default();
    if !left_out.is_empty() {
        eprintln!(
            "detect_vs_libpfm4: {} PMUs the oracle's build lacks left out (added upstream): {left_out:?}",
            left_out.len()
        );
    }
    let mut tally = Tally::new();
    let mut diffs = Vec::new();
    let mut seen: BTreeMap<String, usize> = order.iter().map(|n| (n.clone(), 0)).collect();
    for (i, d, present) in results.into_inner().unwrap_or_default() {
        let id = &ids[i];
        if let Some(p) = present.first().and_then(|p| p.strip_prefix(SKIPPED)) {
            *seen.entry(format!("{SKIPPED}{p}")).or_default() += 1;
            continue;
        }
        let t = tally.entry(id.class).or_default();
        t.0 += 1;
        t.1 += usize::from(!d.is_empty());
        for p in present {
            *seen.entry(p).or_default() += 1;
        }
        diffs.extend(
            d.into_iter()
                .map(|x| format!("{} [{}]: {x}", id.label, id.class)),
        );
    }
    (tally, diffs, seen)
}

/// Prints the tally and the PMUs never present, and fails on differences.
pub fn report(view: &str, tally: &Tally, diffs: &[String], seen: &BTreeMap<String, usize>) {
    let total: usize = tally.values().map(|t| t.0).sum();
    let (skips, seen): (BTreeMap<String, usize>, BTreeMap<String, usize>) = seen
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .partition(|(k, _)| k.starts_with(SKIPPED));
    for (p, n) in &skips {
        eprintln!(
            "detect_vs_libpfm4 [{view}]: {n} identities skipped ({} present, listed)",
            &p[SKIPPED.len()..]
        );
    }
    for (class, (n, bad)) in tally {
        eprintln!("detect_vs_libpfm4 [{view}] {class}: {n} identities, {bad} with differences");
    }
    let never: Vec<&str> = seen
        .iter()
        .filter(|(_, &n)| n == 0)
        .map(|(p, _)| p.as_str())
        .collect();
    let shown_never = &never[..never.len().min(12)];
    eprintln!(
        "detect_vs_libpfm4 [{view}]: {total} identities compared, {} differences; \
         {} of libpfm4's {} PMUs present somewhere; never present: {} ({shown_never:?}{})",
        diffs.len(),
        seen.len() - never.len(),
        seen.len(),
        never.len(),
        if never.len() > shown_never.len() {
            "..."
        } else {
            ""
        }
    );
    let shown: Vec<&String> = diffs.iter().take(60).collect();
    assert!(
        diffs.is_empty(),
        "{} differences with libpfm4 [{view}] (first {}):\n{}",
        diffs.len(),
        shown.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Kernel PMU names libpfm4's x86 PMUs may ask for under `/sys/devices`:
/// the unnumbered ones, and the numbered stems with instances 0 to 63.
pub fn published_names() -> Vec<String> {
    const PLAIN: &[&str] = &[
        "power",
        "uncore",
        "amd_nb",
        "amd_l3",
        "uncore_ubox",
        "uncore_pcu",
        "uncore_r2pcie",
        "uncore_irp",
        "uncore_ha",
        "uncore_m2pcie",
    ];
    const NUMBERED: &[&str] = &[
        "uncore_cbox_",
        "uncore_imc_",
        "uncore_ha_",
        "uncore_qpi_",
        "uncore_r3qpi_",
        "uncore_sbox_",
        "uncore_cha_",
        "uncore_edc_uclk_",
        "uncore_edc_eclk_",
        "uncore_mc_uclk_",
        "uncore_upi_",
        "uncore_m3upi_",
        "uncore_m2m_",
        "uncore_iio_",
        "uncore_irp_",
        "uncore_m2pcie_",
    ];
    let mut v: Vec<String> = PLAIN.iter().map(|s| s.to_string()).collect();
    for stem in NUMBERED {
        v.extend((0..64).map(|n| format!("{stem}{n}")));
    }
    v
}

/// The comparison with every uncore PMU published under `/sys/devices` (a
/// bind mount in a user and mount namespace): `test` is the calling test's
/// name (run again inside the namespace), `oracle` finds the library.
pub fn with_every_uncore_published(
    test: &str,
    ids: &[Identity],
    not_yet: &[&str],
    scope: Scope,
    oracle: impl FnOnce() -> Option<PathBuf>,
) {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    if let Some(so) = std::env::var_os(NAMESPACE) {
        // Inside the namespace: /sys/devices is the made-up one.
        let (tally, diffs, seen) = compare_all(Path::new(&so), ids, not_yet, scope);
        report("every uncore PMU published", &tally, &diffs, &seen);
        return;
    }
    let Some(so) = oracle() else { return };
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("detect-sysfs-{}", std::process::id()));
    for n in published_names() {
        std::fs::create_dir_all(dir.join(&n)).expect("a made-up /sys/devices");
    }
    const MOUNT: &str = "mount --bind \"$0\" /sys/devices && exec \"$@\"";
    let probe = Command::new("unshare")
        .args(["-rm", "sh", "-c", MOUNT])
        .arg(&dir)
        .arg("true")
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        let _ = std::fs::remove_dir_all(&dir);
        eprintln!("SKIPPED: no bind mount over /sys/devices in a user and mount namespace here (unshare -rm)");
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new("unshare")
        .args(["-rm", "sh", "-c", MOUNT])
        .arg(&dir)
        .arg(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(NAMESPACE, &so)
        .output()
        .expect("unshare runs");
    let _ = std::fs::remove_dir_all(&dir);
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "the comparison in the namespace failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
    );
}
