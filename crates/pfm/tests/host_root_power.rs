//! `pfm --host-root DIR` on recorded IBM POWER hosts of our own making: a
//! POWER8, a POWER9 (AC922, bare metal) and a POWER10 (PowerVM partition,
//! natively and in POWER9 compatibility mode). Each tree holds
//! `proc/cpuinfo` as those kernels write it, the core PMU's
//! `sys/bus/event_source/devices/cpu/type` (4 = `PERF_TYPE_RAW`) and
//! `perf_event_paranoid`; the POWER8 tree also the nest PMUs' sysfs
//! directories with their `type`. The architecture is guessed from the
//! tree's `proc/cpuinfo` (a `(pvr ...)` revision) or named with
//! `--host-arch powerpc`.
//!
//! The POWER8 core PMU's table comes from another step of the POWER work:
//! until `pfm` knows `power8`, the test of the POWER8 core PMU prints why
//! and returns (the nest PMUs, already in, are checked all the same).

mod common;

use common::{pfm, present, stderr, write_tree};
use serde_json::Value;
use std::path::Path;

/// The lines of a POWER `/proc/cpuinfo`: `n` threads named `cpu`, revision
/// `rev`, then the machine lines.
fn cpuinfo(cpu: &str, clock: &str, rev: &str, n: usize, machine: &str) -> String {
    let mut s = String::new();
    for i in 0..n {
        s +=
            &format!("processor\t: {i}\ncpu\t\t: {cpu}\nclock\t\t: {clock}\nrevision\t: {rev}\n\n");
    }
    s + machine
}

/// A recorded POWER host: `cpuinfo`, perf_events present, the core PMU
/// `cpu` (type 4) and the kernel PMUs `extra` (name, type).
fn power_host(cpuinfo: &str, extra: &[(&str, u32)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    write_tree(
        dir.path(),
        &[
            ("proc/cpuinfo", cpuinfo),
            ("proc/sys/kernel/perf_event_paranoid", "2\n"),
            ("sys/bus/event_source/devices/cpu/type", "4\n"),
        ],
    );
    for (name, ty) in extra {
        write_tree(
            dir.path(),
            &[(
                &format!("sys/bus/event_source/devices/{name}/type"),
                &format!("{ty}\n"),
            )],
        );
    }
    dir
}

/// An IBM AC922 (Summit/Sierra node): POWER9 DD2.2 under OPAL.
fn power9_ac922() -> tempfile::TempDir {
    power_host(
        &cpuinfo(
            "POWER9, altivec supported",
            "3800.000000MHz",
            "2.2 (pvr 004e 1202)",
            8,
            "timebase\t: 512000000\nplatform\t: PowerNV\nmodel\t\t: 8335-GTH\n\
             machine\t\t: PowerNV 8335-GTH\nfirmware\t: OPAL\nMMU\t\t: Radix\n",
        ),
        &[],
    )
}

/// A Power10 S1022 partition, natively (`cpu` POWER10) or in POWER9
/// compatibility mode (`cpu` POWER9 (architected), the real PVR 0x0080).
fn power10_lpar(cpu: &str) -> tempfile::TempDir {
    power_host(
        &cpuinfo(
            cpu,
            "2750.000000MHz",
            "2.0 (pvr 0080 0200)",
            8,
            "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,9105-22A\n\
             machine\t\t: CHRP IBM,9105-22A\nMMU\t\t: Radix\n",
        ),
        &[],
    )
}

/// A POWER8 S824 bare metal, with the nest memory-controller PMUs.
fn power8_s824() -> tempfile::TempDir {
    power_host(
        &cpuinfo(
            "POWER8 (raw), altivec supported",
            "3525.000000MHz",
            "2.1 (pvr 004d 0201)",
            8,
            "timebase\t: 512000000\nplatform\t: PowerNV\nmodel\t\t: 8286-42A\n\
             machine\t\t: PowerNV 8286-42A\nfirmware\t: OPAL\nMMU\t\t: Hash\n",
        ),
        &[("Nest_MCS_Read_BW", 9), ("Nest_MCS_Write_BW", 10)],
    )
}

/// `pfm --host-root DIR [extra] check --os OS EVENT --json`, parsed.
fn check_json(dir: &Path, extra: &[&str], os: &str, event: &str) -> Value {
    let root = dir.to_string_lossy();
    let mut args = vec!["--host-root", root.as_ref()];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["check", "--os", os, event, "--json"]);
    let o = pfm(&args);
    assert!(o.status.success(), "{event}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("JSON")
}

#[test]
fn recorded_power9_and_power10_hosts_show_their_core_pmu() {
    let hosts = [
        ("AC922 (POWER9)", power9_ac922(), "power9"),
        (
            "Power10 S1022",
            power10_lpar("POWER10 (architected), altivec supported"),
            "power10",
        ),
        (
            "Power10 S1022 in POWER9 mode",
            power10_lpar("POWER9 (architected), altivec supported"),
            "power10",
        ),
    ];
    for (what, dir, core) in hosts {
        let guessed = present(dir.path(), &[]);
        assert_eq!(guessed, [core, "perf", "perf_raw"], "{what}");
        assert_eq!(
            present(dir.path(), &["--host-arch", "powerpc"]),
            guessed,
            "{what}"
        );
        // Read as an x86 host (the tree names no x86 CPU: this machine's
        // CPUID answers), the POWER PMU is not there.
        let x86 = present(dir.path(), &["--host-arch", "x86"]);
        assert!(!x86.iter().any(|p| p == core), "{what}: {x86:?}");
    }
}

#[test]
fn power9_check_gives_the_raw_code_and_perf_type_4() {
    let dir = power9_ac922();
    let none = check_json(dir.path(), &[], "none", "power9::PM_RUN_INST_CMPL");
    assert_eq!(none["ok"], true);
    assert_eq!(none["pmu"], "power9");
    assert_eq!(none["fstr"], "power9::PM_RUN_INST_CMPL");
    assert_eq!(none["codes"], serde_json::json!(["0x400fa"]));
    for extra in [&[][..], &["--host-arch", "powerpc"][..]] {
        let perf = check_json(dir.path(), extra, "perf", "power9::PM_RUN_INST_CMPL");
        assert_eq!(perf["perf"]["type"], 4, "{perf}");
        assert_eq!(perf["perf"]["config"], "0x400fa", "{perf}");
        assert_eq!(
            perf["fstr"], "power9::PM_RUN_INST_CMPL:u=1:k=1:h=0:mg=0:mh=1",
            "{perf}"
        );
    }
}

#[test]
fn power10_answers_unprefixed_events_even_in_power9_mode() {
    for cpu in [
        "POWER10 (architected), altivec supported",
        "POWER9 (architected), altivec supported",
    ] {
        let dir = power10_lpar(cpu);
        let perf = check_json(dir.path(), &[], "perf", "PM_RUN_INST_CMPL");
        assert_eq!(perf["pmu"], "power10", "{cpu}: {perf}");
        assert_eq!(perf["perf"]["type"], 4, "{cpu}: {perf}");
        assert_eq!(perf["perf"]["config"], "0x400fa", "{cpu}: {perf}");
        let cyc = check_json(dir.path(), &[], "none", "power10::PM_CYC");
        assert_eq!(cyc["codes"], serde_json::json!(["0x100f0"]), "{cpu}");
    }
}

#[test]
fn power8_nest_pmus_take_their_sysfs_type() {
    let dir = power8_s824();
    let pmus = present(dir.path(), &[]);
    for nest in ["powerpc_nest_mcs_read", "powerpc_nest_mcs_write"] {
        assert!(pmus.iter().any(|p| p == nest), "{pmus:?}");
    }
    assert!(!pmus.iter().any(|p| p == "power9" || p == "power10"));
    for (ev, ty, config) in [
        ("powerpc_nest_mcs_read::MCS_00", 9, "0x118"),
        ("powerpc_nest_mcs_write::MCS_03", 10, "0x1b0"),
    ] {
        let perf = check_json(dir.path(), &["--host-arch", "powerpc"], "perf", ev);
        assert_eq!(perf["perf"]["type"], ty, "{ev}: {perf}");
        assert_eq!(perf["perf"]["config"], config, "{ev}: {perf}");
    }
}

#[test]
fn power8_core_pmu() {
    let dir = power8_s824();
    let pmus = present(dir.path(), &[]);
    assert!(pmus.iter().any(|p| p == "power8"), "{pmus:?}");
    let perf = check_json(dir.path(), &[], "perf", "power8::PM_RUN_INST_CMPL");
    assert_eq!(perf["perf"]["type"], 4, "{perf}");
    assert_eq!(perf["perf"]["config"], "0x500fa", "{perf}");
}
