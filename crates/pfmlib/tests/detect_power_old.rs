//! Detection of the older POWER core PMUs (`power4`, `ppc970`, `ppc970mp`,
//! `power5`, `power5p`) from `/proc/cpuinfo` files of our own making, as
//! Linux writes them on those machines: the `revision` line carries the
//! Processor Version Register, whose high half (the version) libpfm4
//! compares with its `PV_*` values (`pfmlib_power_priv.h`). Each version
//! libpfm4 accepts must give exactly the right PMU of these five; other
//! versions, and other architectures, none of them.

use pfmlib::{Arch, Host, Library};
use std::collections::BTreeSet;

/// The PMUs this file is about (other POWER PMUs are left to their own
/// tests).
const OLD: &[&str] = &["power4", "ppc970", "ppc970mp", "power5", "power5p"];

/// A `/proc/cpuinfo` as Linux writes it on a POWER or PowerPC machine:
/// `n` processors named `cpu`, with processor version `ver` and revision
/// `rev`.
fn cpuinfo(cpu: &str, ver: u16, rev: u16, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s += &format!("processor\t: {i}\ncpu\t\t: {cpu}\nclock\t\t: 1800.000000MHz\n");
        s += &format!(
            "revision\t: {}.{} (pvr {ver:04x} {rev:04x})\n\n",
            (rev >> 8) & 0xff,
            rev & 0xff
        );
    }
    s += "timebase\t: 33333333\nplatform\t: pSeries\nmodel\t\t: IBM,9117-570\nmachine\t\t: CHRP IBM,9117-570\n";
    s
}

/// The PMUs of [`OLD`] pfmlib finds on a host.
fn found(h: Host) -> BTreeSet<String> {
    Library::with_host(h)
        .active_pmus()
        .map(|p| p.name().to_string())
        .filter(|n| OLD.contains(&n.as_str()))
        .collect()
}

/// Every processor version libpfm4 accepts for these PMUs, with a
/// machine's `cpu` line, and the PMU it must detect.
const ACCEPTED: &[(&str, u16, u16, &str)] = &[
    ("POWER4 (gp)", 0x0035, 0x0301, "power4"),
    ("POWER4+ (gq)", 0x0038, 0x0201, "power4"),
    ("PPC970, altivec supported", 0x0039, 0x0202, "ppc970"),
    ("PPC970FX, altivec supported", 0x003c, 0x0300, "ppc970"),
    ("PPC970GX, altivec supported", 0x0045, 0x0101, "ppc970"),
    ("PPC970MP, altivec supported", 0x0044, 0x0101, "ppc970mp"),
    ("POWER5 (gr)", 0x003a, 0x0203, "power5"),
    ("POWER5+ (gs)", 0x003b, 0x0300, "power5p"),
];

#[test]
fn each_accepted_version_gives_its_pmu() {
    let mut bad = Vec::new();
    for &(cpu, ver, rev, pmu) in ACCEPTED {
        for n in [1, 4] {
            let got = found(Host::from_cpuinfo(
                Arch::PowerPc,
                &cpuinfo(cpu, ver, rev, n),
            ));
            let want: BTreeSet<String> = [pmu.to_string()].into();
            if got != want {
                bad.push(format!(
                    "{cpu} (pvr {ver:04x}), {n} cpus: {got:?}, expected {want:?}"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_revision_does_not_matter() {
    for rev in [0x0000, 0x0100, 0x1202, 0xffff] {
        let h = Host::from_cpuinfo(Arch::PowerPc, &cpuinfo("POWER5 (gr)", 0x003a, rev, 2));
        assert_eq!(found(h), ["power5".to_string()].into(), "rev {rev:04x}");
    }
}

#[test]
fn other_versions_give_none_of_them() {
    let others: &[(&str, u16)] = &[
        ("POWER6 (raw), altivec supported", 0x003e),
        ("POWER7 (raw), altivec supported", 0x003f),
        ("POWER7+ (raw), altivec supported", 0x004a),
        ("POWER8E (raw), altivec supported", 0x004b),
        ("POWER8NVL (raw), altivec supported", 0x004c),
        ("POWER8 (raw), altivec supported", 0x004d),
        ("POWER9, altivec supported", 0x004e),
        ("POWER10, altivec supported", 0x0080),
        ("Cell Broadband Engine, altivec supported", 0x0070),
        ("PA6T, altivec supported", 0x0090),
        ("RS64-IV (istar)", 0x0037),
        ("POWER3 (630+)", 0x0041),
        ("7447A, altivec supported", 0x8003),
        ("e500v2", 0x8021),
        ("PPC970MP, altivec supported", 0x0144),
        ("POWER5+ (gs)", 0x3b00),
        ("unknown", 0x0000),
    ];
    for &(cpu, ver) in others {
        let h = Host::from_cpuinfo(Arch::PowerPc, &cpuinfo(cpu, ver, 0x0100, 2));
        assert!(found(h).is_empty(), "{cpu} (pvr {ver:04x})");
    }
}

#[test]
fn no_version_no_pmu() {
    let no_pvr = "processor\t: 0\ncpu\t\t: PPC970MP, altivec supported\nrevision\t: 1.1\n";
    assert!(found(Host::from_cpuinfo(Arch::PowerPc, no_pvr)).is_empty());
    assert!(found(Host::from_cpuinfo(Arch::PowerPc, "")).is_empty());
    assert!(found(Host::none()).is_empty());
}

#[test]
fn only_on_powerpc_hosts() {
    for &(cpu, ver, rev, _) in ACCEPTED {
        let text = cpuinfo(cpu, ver, rev, 2);
        for arch in [
            Arch::X86,
            Arch::Aarch64,
            Arch::S390x,
            Arch::Sparc,
            Arch::Mips,
            Arch::Other,
        ] {
            assert!(
                found(Host::from_cpuinfo(arch, &text)).is_empty(),
                "{cpu} on {arch:?}"
            );
        }
    }
}

#[test]
fn the_host_names_the_processor_version() {
    let h = Host::from_cpuinfo(
        Arch::PowerPc,
        &cpuinfo("PPC970MP, altivec supported", 0x0044, 0x0101, 4),
    );
    assert_eq!(h.pvr, Some(0x0044_0101));
    assert_eq!(h.model, 0x44);
    let lib = Library::with_host(h);
    let info = lib.pmu("ppc970mp").expect("in the tables").info();
    assert!(info.is_present);
    assert_eq!(info.nevents, 230);
}
