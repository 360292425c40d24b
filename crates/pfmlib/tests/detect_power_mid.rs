//! Detection of the POWER6, POWER7 and POWER8 core PMUs (and of the POWER8
//! nest PMUs) from `/proc/cpuinfo` files of our own making, as Linux writes
//! them on those machines: libpfm4 compares the version half of the
//! Processor Version Register (`PVR >> 16`, printed on each processor's
//! `revision` line as `(pvr VVVV RRRR)`) with its `PV_*` values:
//! `power6` on 0x3e, `power7` on 0x3f (POWER7) and 0x4a (POWER7+), `power8`
//! on 0x4b (POWER8E), 0x4c (POWER8NVL) and 0x4d (POWER8), the nest PMUs
//! `powerpc_nest_mcs_read`/`_write` on 0x4d only. The revision half and the
//! `cpu` line do not matter; any other version, or another architecture,
//! activates none of them.

use pfmlib::{Arch, Host, Library};
use std::collections::BTreeSet;

/// The PMUs this file is about.
const MINE: &[&str] = &[
    "power6",
    "power7",
    "power8",
    "powerpc_nest_mcs_read",
    "powerpc_nest_mcs_write",
];

/// A `/proc/cpuinfo` of `n` processors as Linux writes it on a POWER
/// machine: `cpu` the processor name, `ver` and `rev` the two halves of the
/// PVR.
fn cpuinfo(cpu: &str, ver: u32, rev: u32, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s += &format!("processor\t: {i}\ncpu\t\t: {cpu}\nclock\t\t: 3425.000000MHz\n");
        s += &format!(
            "revision\t: {}.{} (pvr {ver:04x} {rev:04x})\n\n",
            rev >> 8,
            rev & 0xff
        );
    }
    s += "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,8286-42A\n";
    s += "machine\t\t: CHRP IBM,8286-42A\nMMU\t\t: Hash\n";
    s
}

/// Which of [`MINE`] pfmlib finds active on `h`.
fn found(h: Host) -> BTreeSet<String> {
    Library::with_host(h)
        .active_pmus()
        .map(|p| p.name().to_string())
        .filter(|n| MINE.contains(&n.as_str()))
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// (what, cpu line, PVR version, PVR revision, PMUs that must be active).
const CASES: &[(&str, &str, u32, u32, &[&str])] = &[
    (
        "POWER6",
        "POWER6 (raw), altivec supported",
        0x3e,
        0x0201,
        &["power6"],
    ),
    (
        "POWER6 DD3.1",
        "POWER6 (raw), altivec supported",
        0x3e,
        0x0301,
        &["power6"],
    ),
    (
        "POWER7",
        "POWER7 (raw), altivec supported",
        0x3f,
        0x0201,
        &["power7"],
    ),
    (
        "POWER7+",
        "POWER7+ (raw), altivec supported",
        0x4a,
        0x0201,
        &["power7"],
    ),
    (
        "POWER8E",
        "POWER8E (raw), altivec supported",
        0x4b,
        0x0201,
        &["power8"],
    ),
    (
        "POWER8NVL",
        "POWER8NVL (raw), altivec supported",
        0x4c,
        0x0100,
        &["power8"],
    ),
    (
        "POWER8",
        "POWER8 (raw), altivec supported",
        0x4d,
        0x0200,
        &["power8", "powerpc_nest_mcs_read", "powerpc_nest_mcs_write"],
    ),
    (
        "POWER8 in a POWER7 compatibility mode",
        "POWER7 (architected), altivec supported",
        0x4d,
        0x0200,
        &["power8", "powerpc_nest_mcs_read", "powerpc_nest_mcs_write"],
    ),
    ("POWER4", "POWER4 (gp)", 0x35, 0x0301, &[]),
    ("PPC970MP", "PPC970MP, altivec supported", 0x44, 0x0101, &[]),
    ("POWER5+", "POWER5+ (gs)", 0x3b, 0x0300, &[]),
    ("POWER9", "POWER9, altivec supported", 0x4e, 0x1202, &[]),
    (
        "POWER9 running a POWER8 partition",
        "POWER8 (architected), altivec supported",
        0x4e,
        0x1202,
        &[],
    ),
    (
        "POWER10",
        "POWER10 (raw), altivec supported",
        0x80,
        0x0200,
        &[],
    ),
    (
        "an unknown version next to POWER8",
        "POWER8",
        0x4f,
        0x0100,
        &[],
    ),
];

#[test]
fn every_processor_version_activates_its_pmus() {
    let mut bad = Vec::new();
    for &(what, cpu, ver, rev, want) in CASES {
        for n in [1, 8] {
            let got = found(Host::from_cpuinfo(
                Arch::PowerPc,
                &cpuinfo(cpu, ver, rev, n),
            ));
            if got != set(want) {
                bad.push(format!("{what} ({n} cpus): got {got:?}, want {want:?}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn only_on_powerpc_hosts() {
    let p8 = cpuinfo("POWER8 (raw), altivec supported", 0x4d, 0x0200, 4);
    for arch in [
        Arch::Aarch64,
        Arch::Arm,
        Arch::S390x,
        Arch::Sparc,
        Arch::Mips,
    ] {
        assert!(found(Host::from_cpuinfo(arch, &p8)).is_empty(), "{arch:?}");
    }
    assert!(found(Host::none()).is_empty());
}

#[test]
fn no_version_no_pmu() {
    for text in [
        "",
        "processor\t: 0\ncpu\t\t: POWER8 (raw), altivec supported\n",
        "processor\t: 0\ncpu\t\t: POWER8\nrevision\t: 2.0\n",
    ] {
        assert!(
            found(Host::from_cpuinfo(Arch::PowerPc, text)).is_empty(),
            "{text:?}"
        );
    }
}

#[test]
fn the_first_processor_decides() {
    let mut text = cpuinfo("POWER7+ (raw), altivec supported", 0x4a, 0x0201, 1);
    text += &cpuinfo("POWER8 (raw), altivec supported", 0x4d, 0x0200, 1);
    assert_eq!(
        found(Host::from_cpuinfo(Arch::PowerPc, &text)),
        set(&["power7"])
    );
}
