//! `cpum_cf` as libpfm4 composes it on each IBM Z generation, compared in
//! child processes: libpfm4's s390x build finds no counter facility on
//! this (x86) machine, so each case runs the oracle and pfmlib in a private
//! user and mount namespace (`unshare -rm`) where a directory of our own
//! making is bind-mounted over `/proc` (`sysinfo` with the machine type,
//! `service_levels` with the facility's versions, `cpuinfo`,
//! `sys/kernel/perf_event_paranoid`) and another over
//! `/sys/bus/event_source/devices` (`cpum_cf/type`, `cpum_sf/type`). One
//! child per case (libpfm4's set-up is global state); pfmlib reads the same
//! files (`Host::from_root(Arch::S390x, "/")`). Compared: the tables of
//! every PMU of the build (names, codes, indexes, counts, attributes), every
//! event of `cpum_cf` and `cpum_sf` in the three OS layers (and the perf
//! PMU's, which takes `cpum_cf`'s privilege levels, in some cases), odd
//! strings, and our own descriptions. Without unprivileged namespaces the
//! test prints SKIPPED, unless `PFMLIB_REQUIRE_ARM_ORACLES` is set.

use crate::common::arm::{oracle, Build, REQUIRE};
use crate::common::namespace;
use crate::common::sweep::{compare_one, compare_tables, report, sweep_pmu};
use crate::common::words::copied;
use pfmlib::{Arch, Host, Library, Os, Plm};
use std::path::{Path, PathBuf};

/// Where the kernel lists its perf_events PMUs.
const DEVICES: &str = "/sys/bus/event_source/devices";

/// The variable that carries a case into the child.
const CASE: &str = "PFMLIB_S390X_CASE";

/// One host: the machine type line's value, the counter facility's
/// version (`None`: no line), the `type` files of `cpum_cf` and `cpum_sf`,
/// and whether the perf PMU is swept too.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    pub machine: &'static str,
    pub version: Option<&'static str>,
    pub cf_type: &'static str,
    pub sf_type: &'static str,
    pub perf: bool,
}

const fn case(machine: &'static str, version: &'static str) -> Case {
    Case {
        machine,
        version: Some(version),
        cf_type: "10\n",
        sf_type: "11\n",
        perf: false,
    }
}

/// A machine type of each generation libpfm4 knows (z17: upstream only;
/// the 4.13 comparison leaves it out).
pub const GENERATIONS: &[(&str, &str)] = &[
    ("z10", "2097"),
    ("z196", "2817"),
    ("zEC12", "2827"),
    ("z13", "2964"),
    ("z14", "3906"),
    ("z15", "8561"),
    ("z16", "3931"),
    ("z17", "9175"),
];

/// The second machine type of each generation.
const SECOND_TYPES: &[&str] = &[
    "2098", "2818", "2828", "2965", "3907", "8562", "3932", "9176",
];

/// Every case: each generation with counter-facility versions 1.5, 1.6,
/// 3.5, 3.6 (first version 1 or 3; second version below 6 or not), the
/// second machine type of each generation, other versions, unknown
/// machines, a missing versions line, and the `type` files' quirks.
pub fn cases(build: Build) -> Vec<Case> {
    let known = |t: &str| build.is_head() || !matches!(t, "9175" | "9176");
    let mut v = Vec::new();
    for &(_, ty) in GENERATIONS.iter().filter(|(_, t)| known(t)) {
        for version in ["1.5", "1.6", "3.5", "3.6"] {
            v.push(case(ty, version));
        }
    }
    for &ty in SECOND_TYPES.iter().filter(|t| known(t)) {
        v.push(case(ty, "3.8"));
    }
    // z17 (9175, 9176) was added upstream: 4.13 has no extended set for
    // it, pfmlib follows upstream, so the 4.13 comparison leaves it out.
    for ty in ["0", "2099", "+8561x", "-2964", ""] {
        v.push(case(ty, "3.6"));
    }
    for version in ["2.6", "4.2", "3", "x.y", "3.4294967302"] {
        v.push(case("3931", version));
    }
    v.push(Case {
        version: None,
        ..case("8561", "")
    });
    v.push(Case {
        perf: true,
        ..case("8561", "3.6")
    });
    v.push(Case {
        perf: true,
        cf_type: "\n",
        sf_type: "0\n",
        ..case("3906", "3.6")
    });
    v.push(Case {
        cf_type: "4294967295\n",
        sf_type: "  12 \n",
        ..case("2964", "1.5")
    });
    v
}

impl Case {
    fn encode(&self) -> String {
        [
            self.machine,
            self.version.unwrap_or("-"),
            self.cf_type,
            self.sf_type,
            if self.perf { "perf" } else { "" },
        ]
        .join("|")
    }

    fn decode(s: &str) -> Case {
        let f: Vec<&'static str> = s.to_string().leak().split('|').collect();
        Case {
            machine: f[0],
            version: (f[1] != "-").then_some(f[1]),
            cf_type: f[2],
            sf_type: f[3],
            perf: f[4] == "perf",
        }
    }

    /// Writes the two trees this case mounts under `dir`.
    fn write(&self, dir: &Path) -> (PathBuf, PathBuf) {
        let (proc, dev) = (dir.join("proc"), dir.join("devices"));
        let mk = |p: &Path| std::fs::create_dir_all(p).expect("a made-up tree");
        mk(&proc.join("sys/kernel"));
        mk(&dev.join("cpum_cf"));
        mk(&dev.join("cpum_sf"));
        let put = |p: PathBuf, s: &str| std::fs::write(p, s).expect("a made-up file");
        put(proc.join("sys/kernel/perf_event_paranoid"), "2\n");
        put(
            proc.join("cpuinfo"),
            "vendor_id       : IBM/S390\n# processors    : 2\nbogomips per cpu: 24038.00\n",
        );
        put(
            proc.join("sysinfo"),
            &format!(
                "Manufacturer:         IBM\nType:                 {}\nModel:                701              LT1\nSequence Code:        00000000000D1234\n",
                self.machine
            ),
        );
        let mut levels = String::from("VM: z/VM Version 7 Release 3\n");
        if let Some(v) = self.version {
            levels += &format!("CPU-MF: Counter facility: version={v} authorization=002f\n");
        }
        levels += "CPU-MF: Sampling facility: min_rate=18228 max_rate=170650405 cpu_speed=5200\n";
        put(proc.join("service_levels"), &levels);
        put(dev.join("cpum_cf/type"), self.cf_type);
        put(dev.join("cpum_sf/type"), self.sf_type);
        // Where libpfm4 upstream finds the kernel's perf_events PMUs.
        put(dev.join("cpum_cf/perf_event_mux_interval_ms"), "4\n");
        put(dev.join("cpum_sf/perf_event_mux_interval_ms"), "4\n");
        (proc, dev)
    }
}

/// Strings beyond the per-event sweep, on every case.
const ODD: &[&str] = &[
    "CPU_CYCLES",
    "cpu_cycles",
    "INSTRUCTIONS:u",
    "SF_CYCLES_BASIC",
    "cycles",
    "cpum_cf::CPU_CYCLES:u:k",
    "cpum_cf::CPU_CYCLES:u=0",
    "cpum_cf::CPU_CYCLES:k=1:h=1",
    "cpum_cf::CPU_CYCLES:precise=1",
    "cpum_cf::CPU_CYCLES:hw_smpl=1",
    "cpum_cf::CPU_CYCLES:period=100:freq=10",
    "cpum_cf::CPU_CYCLES:0x1",
    "cpum_cf::CPU_CYCLES:u:u",
    "cpum_cf::ECC_FUNCTION_COUNT",
    "cpum_cf::L1D_L2_SOURCED_WRITES",
    "cpum_cf::DCW_REQ:mg",
    "cpum_cf::MT_DIAG_CYCLES_TWO_THR_ACTIVE:cpu=1",
    "cpum_cf::NNPA_RETRY_LOCK_WITH_PLO:excl",
    "cpum_cf::PROBLEM_STATE_L1D_PENALTY_CYCLES",
    "cpum_sf::SF_CYCLES_BASIC:u",
    "cpum_sf::SF_CYCLES_BASIC:k=0:h=0",
    "cpum_sf::SF_CYCLES_BASIC_DIAG:precise=2",
    "cpum_cf::",
    "perf::cycles:u",
    "perf::PERF_COUNT_HW_CACHE_L1D:k",
];

/// The comparison of one case, in the child.
fn compare_case(build: Build, c: &Case) {
    let Some(o) = oracle(build) else { return };
    let lib = Library::with_host(Host::from_root(Arch::S390x, PathBuf::from("/")));
    let what = format!("{build:?} {c:?}");
    let names: Vec<String> = o.pmus().into_iter().map(|p| p.name).collect();
    let mut diffs = compare_tables(&o, &lib, &names);
    for n in &names {
        let (a, b) = (
            lib.pmu(n).expect("shared").info(),
            o.pmu_by_name(n).expect("theirs"),
        );
        if a.is_present != b.is_present {
            diffs.push(format!(
                "{n}: present: pfmlib={} libpfm4={}",
                a.is_present, b.is_present
            ));
        }
    }
    let cf = lib.pmu("cpum_cf").expect("cpum_cf").events().count();
    let mut total = 0;
    let mut swept = vec!["cpum_cf", "cpum_sf"];
    if c.perf {
        swept.push("perf");
    }
    for p in swept {
        let (d, n) = sweep_pmu(&o, &lib, p);
        diffs.extend(d);
        total += n;
    }
    for s in ODD {
        for plm in [Plm::DEFAULT, Plm::PLM3, Plm::PLM0] {
            compare_one(&lib, &o, s, plm, &mut diffs);
            total += 1;
        }
    }
    // Our own descriptions (libpfm4's show only on such a host).
    let theirs = o.pmu_by_name("cpum_cf").expect("cpum_cf");
    let mut words = Vec::new();
    for (a, b) in lib
        .pmu("cpum_cf")
        .expect("cpum_cf")
        .events()
        .zip(o.events(&theirs, 0))
    {
        if let Some(why) = copied(a.info(Os::None).desc, &b.desc) {
            words.push(format!("{}: {why}", b.name));
        }
    }
    assert!(
        words.is_empty(),
        "{what}: descriptions too close to libpfm4's:\n{}",
        words.join("\n")
    );
    eprintln!(
        "{what}: cpum_cf {cf} events, {total} strings x 3 OS layers, {} differences",
        diffs.len()
    );
    report(&what, &diffs, total);
}

/// The test: in the child, compare the case it was given; in the parent,
/// run one child per case in a namespace of its own.
pub fn generations(build: Build, test: &str) {
    if let Some(c) = std::env::var_os(CASE) {
        compare_case(build, &Case::decode(&c.to_string_lossy()));
        return;
    }
    if oracle_path(build).is_none() {
        return;
    }
    let root =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("s390x-{test}-{}", std::process::id()));
    let probe_dirs = case("8561", "3.6").write(&root.join("probe"));
    let probe = namespace::run(
        &[(&probe_dirs.0, "/proc"), (&probe_dirs.1, DEVICES)],
        "test".as_ref(),
        &["-f", "/proc/sysinfo"],
        &[],
    );
    if !probe.is_some_and(|o| o.status.success()) {
        let _ = std::fs::remove_dir_all(&root);
        if std::env::var_os(REQUIRE).is_some() {
            panic!("{REQUIRE} is set but no bind mount over /proc works here (unshare -rm)");
        }
        eprintln!(
            "SKIPPED: no bind mount over /proc in a user and mount namespace here (unshare -rm)"
        );
        return;
    }
    let mut failed = Vec::new();
    let all = cases(build);
    for (i, c) in all.iter().enumerate() {
        let (proc, dev) = c.write(&root.join(i.to_string()));
        let case = c.encode();
        let out = namespace::run_test(
            &[(&proc, "/proc"), (&dev, DEVICES)],
            test,
            &[(CASE, case.as_str())],
        )
        .expect("unshare runs");
        let err = String::from_utf8_lossy(&out.stderr);
        for l in err
            .lines()
            .filter(|l| l.contains("strings x 3") || l.starts_with("DIFF") || l.contains("SKIPPED"))
        {
            eprintln!("{l}");
        }
        if !out.status.success() {
            failed.push(format!("{c:?}:\n{err}"));
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    eprintln!(
        "{build:?}: {} cases compared in namespaces, {} failed",
        all.len(),
        failed.len()
    );
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The oracle's path, or `None` after saying why (a panic under [`REQUIRE`]).
fn oracle_path(build: Build) -> Option<PathBuf> {
    crate::common::arm::path_from_env(build.var(), "libpfm4 built for s390x")
}
