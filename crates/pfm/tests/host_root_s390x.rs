//! `pfm --host-root DIR` on recorded IBM Z hosts of our own making (a z15
//! and a z17, each with `/proc/cpuinfo`, `/proc/sysinfo`,
//! `/proc/service_levels` and the kernel's `cpum_cf` and `cpum_sf` PMUs):
//! the architecture is read from the tree, `cpum_cf` lists the counter sets
//! of the machine, and events encode with the kernel's types.

mod common;

use common::{pfm, stderr, stdout, write_tree};

/// A recorded s390x host: machine `ty` (`8561` a z15, `9175` a z17),
/// counter facility `version`, `cpum_cf` type 10 and `cpum_sf` type 11.
fn ibm_z(ty: &str, model: &str, version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    let cpuinfo = format!(
        "vendor_id       : IBM/S390\n# processors    : 2\nbogomips per cpu: 24038.00\n\
         max thread id   : 1\nfeatures\t: esan3 zarch stfle msa ldisp eimm dfp edat etf3eh highgprs te vx vxd vxe gs sie\n\
         facilities      : 0 1 2 3 4 6 7 8 9 10 12 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 30 31 32 33 34 35 36 37\n\
         processor 0: version = 00,  identification = 0B1234,  machine = {ty}\n\
         processor 1: version = 00,  identification = 0B1234,  machine = {ty}\n\n\
         cpu number      : 0\ncpu MHz dynamic : 5200\ncpu MHz static  : 5200\n\n\
         cpu number      : 1\ncpu MHz dynamic : 5200\ncpu MHz static  : 5200\n"
    );
    let sysinfo = format!(
        "Manufacturer:         IBM\nType:                 {ty}\nLIC Identifier:       3c4bc2d2f6bb5a0b\n\
         Model:                {model}\nModel Capacity:       {model}              00000000\n\
         Sequence Code:        00000000000D1234\nPlant:                02\n\n\
         CPUs Total:           12\nCPUs Configured:      2\nCPUs Standby:         0\n\n\
         LPAR Number:          12\nLPAR Name:            LNXT01\n"
    );
    let levels = format!(
        "CPU-MF: Counter facility: version={version} authorization=002f\n\
         CPU-MF: Sampling facility: min_rate=18228 max_rate=170650405 cpu_speed=5200\n\
         CPU-MF: Sampling facility: mode=basic sample_size=32\n"
    );
    let dev = "sys/bus/event_source/devices";
    write_tree(
        dir.path(),
        &[
            ("proc/cpuinfo", &cpuinfo),
            ("proc/sysinfo", &sysinfo),
            ("proc/service_levels", &levels),
            ("proc/sys/kernel/perf_event_paranoid", "2\n"),
            (&format!("{dev}/cpum_cf/type"), "10\n"),
            (&format!("{dev}/cpum_cf/perf_event_mux_interval_ms"), "4\n"),
            (&format!("{dev}/cpum_sf/type"), "11\n"),
            (&format!("{dev}/cpum_sf/perf_event_mux_interval_ms"), "4\n"),
        ],
    );
    dir
}

fn z15() -> tempfile::TempDir {
    ibm_z("8561", "716", "3.6")
}

fn z17() -> tempfile::TempDir {
    ibm_z("9175", "7G1", "3.8")
}

/// `pfm --host-root DIR ARGS...`, which must succeed: its output.
fn run(dir: &tempfile::TempDir, args: &[&str]) -> String {
    let root = dir.path().to_string_lossy().into_owned();
    let mut all = vec!["--host-root", root.as_str()];
    all.extend_from_slice(args);
    let o = pfm(&all);
    assert!(o.status.success(), "pfm {all:?}: {}", stderr(&o));
    stdout(&o)
}

/// The PMU lines of `pfm list` (name, present, events).
fn pmu_lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("PMU "))
        .map(str::to_string)
        .collect()
}

#[test]
fn recorded_ibm_z_hosts_list_their_counter_sets() {
    for (dir, events, last) in [
        (z15(), 85, "MT_DIAG_CYCLES_TWO_THR_ACTIVE"),
        (z17(), 105, "MT_DIAG_CYCLES_TWO_THR_ACTIVE"),
    ] {
        let out = run(&dir, &["list"]);
        let pmus = pmu_lines(&out);
        let present: Vec<&str> = pmus
            .iter()
            .filter(|l| l.contains(", present,"))
            .filter_map(|l| l.split_whitespace().nth(1))
            .collect();
        assert_eq!(present, ["cpum_cf", "cpum_sf", "perf", "perf_raw"], "{out}");
        let cf = pmus.iter().find(|l| l.contains(" cpum_cf ")).unwrap();
        assert!(cf.contains(&format!("{events} events")), "{cf}");
        assert!(
            out.lines().next().unwrap().contains("IBM Z (machine type"),
            "{out}"
        );
        // The same with the architecture named.
        let named = run(&dir, &["--host-arch", "s390x", "list"]);
        assert_eq!(pmu_lines(&named), pmus);
        let json = run(&dir, &["list", "--json", "cpum_cf::*"]);
        assert!(json.contains(last), "{json}");
    }
}

#[test]
fn z17_counters_are_only_on_a_z17() {
    let (a, b) = (z15(), z17());
    let on = |d: &tempfile::TempDir| {
        let root = d.path().to_string_lossy().into_owned();
        pfm(&["--host-root", &root, "check", "cpum_cf::NNPA_INST_OFFCHIP"])
            .status
            .success()
    };
    assert!(!on(&a));
    assert!(on(&b));
}

#[test]
fn check_gives_the_kernel_types_and_counter_numbers() {
    // DEFLATE CONVERSION CALL is counter 264 on a z15, 265 on a z17.
    for (dir, dfltcc) in [(z15(), "0x108"), (z17(), "0x109")] {
        let perf = |event: &str| {
            let out = run(&dir, &["check", event, "--json", "--os", "perf-ext"]);
            let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON line");
            (
                v["perf"]["type"].clone(),
                v["perf"]["config"].clone(),
                v["fstr"].clone(),
            )
        };
        let (ty, config, fstr) = perf("cpum_cf::CPU_CYCLES");
        assert_eq!((ty, config), (10.into(), "0x0".into()));
        assert_eq!(fstr, "cpum_cf::CPU_CYCLES:u=1:k=1:h=1:excl=0:mg=0:mh=1");
        let (ty, config, _) = perf("DFLT_CC");
        assert_eq!((ty, config), (10.into(), dfltcc.into()));
        let (ty, config, fstr) = perf("cpum_sf::SF_CYCLES_BASIC:u");
        assert_eq!((ty, config), (11.into(), "0xb0000".into()));
        // The sampling facility filters no level: every exclusion is 0.
        assert_eq!(
            fstr,
            "cpum_sf::SF_CYCLES_BASIC:u=1:k=1:h=1:excl=0:mg=1:mh=1"
        );
    }
}

#[test]
fn info_describes_s390x_events() {
    let dir = z17();
    let out = run(
        &dir,
        &[
            "--host-arch",
            "s390x",
            "info",
            "cpum_cf::CPU_CYCLES",
            "cpum_cf::WRONG_BRANCH_PREDICTION",
        ],
    );
    assert!(
        out.contains("CPU_CYCLES") && out.contains("WRONG_BRANCH_PREDICTION"),
        "{out}"
    );
    assert!(out.contains("cpum_cf"), "{out}");
}
