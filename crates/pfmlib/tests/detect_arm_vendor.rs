//! Detection of pfmlib's own Arm core PMUs (beyond libpfm4: the cores of
//! Arm's and Ampere's published event lists, `pfm-vendorgen arm`) from
//! `/proc/cpuinfo` texts: every part on its own, phones with two or three
//! kinds of cores, 32-bit kernels (only the cores with AArch32 at EL1,
//! Cortex-A73 and A35, have their PMU there), and neighbours that must
//! stay undetected.

use pfmlib::{Arch, Host, Library, Os, Plm};
use std::collections::BTreeSet;

/// A `/proc/cpuinfo` with one processor per `(implementer, part)`.
fn cpuinfo(arch: Arch, cores: &[(&str, &str)]) -> String {
    let mut s = String::new();
    for (i, (implementer, part)) in cores.iter().enumerate() {
        s += &format!("processor\t: {i}\n");
        let arch_no = if arch == Arch::Arm {
            s += "model name\t: ARMv7 Processor rev 4 (v7l)\nBogoMIPS\t: 38.40\n";
            s += "Features\t: half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt lpae evtstrm\n";
            7
        } else {
            s += "BogoMIPS\t: 38.40\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\n";
            8
        };
        s += &format!("CPU implementer\t: {implementer}\nCPU architecture: {arch_no}\n");
        s += &format!("CPU variant\t: 0x1\nCPU part\t: {part}\nCPU revision\t: 0\n\n");
    }
    s
}

/// The Arm PMUs pfmlib finds (the OS PMUs left out).
fn present(arch: Arch, cores: &[(&str, &str)]) -> BTreeSet<String> {
    Library::with_host(Host::from_cpuinfo(arch, &cpuinfo(arch, cores)))
        .active_pmus()
        .map(|p| p.name().to_string())
        .filter(|n| n != "perf" && n != "perf_raw")
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Every part of every vendor list pfmlib covers, alone on an arm64 host.
const PARTS: &[(&str, &str, &str)] = &[
    ("0x41", "0xd41", "arm_ac78"),
    ("0x41", "0xd4b", "arm_ac78"),
    ("0x41", "0xd44", "arm_x1"),
    ("0x41", "0xd4c", "arm_x1c"),
    ("0x41", "0xd47", "arm_ac710"),
    ("0x41", "0xd48", "arm_x2"),
    ("0x41", "0xd4d", "arm_ac715"),
    ("0x41", "0xd4e", "arm_x3"),
    ("0x41", "0xd81", "arm_ac720"),
    ("0x41", "0xd46", "arm_ac510"),
    ("0x41", "0xd80", "arm_ac520"),
    ("0x41", "0xd87", "arm_ac725"),
    ("0x41", "0xd85", "arm_x925"),
    ("0x41", "0xd0d", "arm_ac77"),
    ("0x41", "0xd0a", "arm_ac75"),
    ("0x41", "0xd09", "arm_ac73"),
    ("0x41", "0xd04", "arm_ac35"),
    ("0x41", "0xd02", "arm_ac34"),
    ("0x41", "0xd06", "arm_ac65"),
    ("0x41", "0xd43", "arm_ac65"),
    ("0x41", "0xd4a", "arm_e1"),
    ("0xc0", "0xac3", "arm_ampereone"),
    ("0xc0", "0xac4", "arm_ampereonex"),
];

#[test]
fn every_part_alone() {
    for (imp, part, pmu) in PARTS {
        let got = present(Arch::Aarch64, &[(imp, part), (imp, part)]);
        assert_eq!(got, set(&[pmu]), "{imp}/{part}");
    }
}

#[test]
fn phones_with_several_kinds_of_cores() {
    let arm = "0x41";
    // Snapdragon 8 Gen 1 class: X2 + A710 + A510, all three.
    let got = present(
        Arch::Aarch64,
        &[
            (arm, "0xd46"),
            (arm, "0xd46"),
            (arm, "0xd47"),
            (arm, "0xd47"),
            (arm, "0xd48"),
        ],
    );
    assert_eq!(got, set(&["arm_ac510", "arm_ac710", "arm_x2"]));
    // Dimensity 9400 class: X925 + X4 + A720 (upstream's X4 beside ours).
    let got = present(
        Arch::Aarch64,
        &[(arm, "0xd85"), (arm, "0xd82"), (arm, "0xd81")],
    );
    assert_eq!(got, set(&["arm_x925", "arm_x4", "arm_ac720"]));
    // A78 + A55 (libpfm4's A55 beside ours).
    let got = present(
        Arch::Aarch64,
        &[(arm, "0xd05"), (arm, "0xd05"), (arm, "0xd41")],
    );
    assert_eq!(got, set(&["arm_ac55", "arm_ac78"]));
    // X1 + A78 + A55.
    let got = present(
        Arch::Aarch64,
        &[(arm, "0xd05"), (arm, "0xd41"), (arm, "0xd44")],
    );
    assert_eq!(got, set(&["arm_ac55", "arm_ac78", "arm_x1"]));
    // A73 + A53 (a 2017 phone).
    let got = present(Arch::Aarch64, &[(arm, "0xd03"), (arm, "0xd09")]);
    assert_eq!(got, set(&["arm_ac53", "arm_ac73"]));
}

#[test]
fn thirty_two_bit_kernels() {
    // Cortex-A73 and A35 have AArch32 at EL1: a 32-bit kernel runs on them.
    assert_eq!(present(Arch::Arm, &[("0x41", "0xd09")]), set(&["arm_ac73"]));
    assert_eq!(present(Arch::Arm, &[("0x41", "0xd04")]), set(&["arm_ac35"]));
    // The others run AArch32 at EL0 at most (or not at all): no 32-bit kernel.
    for part in [
        "0xd41", "0xd0a", "0xd0d", "0xd02", "0xd06", "0xd4a", "0xd47",
    ] {
        assert!(present(Arch::Arm, &[("0x41", part)]).is_empty(), "{part}");
    }
}

#[test]
fn neighbours_stay_undetected() {
    // Cortex-A78AE (no list of its own here), Arm's implementer with
    // AmpereOne's part, an Arm part under Ampere's implementer, Ampere's
    // future parts, an Apple core.
    for (imp, part) in [
        ("0x41", "0xd42"),
        ("0x41", "0xac3"),
        ("0xc0", "0xac5"),
        ("0x61", "0x022"),
        ("0xc0", "0xd41"),
    ] {
        assert!(
            present(Arch::Aarch64, &[(imp, part)]).is_empty(),
            "{imp}/{part}"
        );
    }
    // Not on other architectures.
    let text = cpuinfo(Arch::Aarch64, &[("0x41", "0xd48")]);
    assert!(Library::with_host(Host::from_cpuinfo(Arch::X86, &text))
        .active_pmus()
        .all(|p| !p.name().starts_with("arm_")));
}

#[test]
fn unprefixed_names_find_the_first_core_in_lookup_order() {
    // X2 + A710 + A510: INST_RETIRED resolves to the first of them in
    // lookup_order_arm64 (A710, then X2, then A510, in id order), as
    // libpfm4 resolves an unprefixed name.
    let text = cpuinfo(
        Arch::Aarch64,
        &[("0x41", "0xd46"), ("0x41", "0xd47"), ("0x41", "0xd48")],
    );
    let lib = Library::with_host(Host::from_cpuinfo(Arch::Aarch64, &text));
    let e = lib
        .encode("INST_RETIRED", Plm::ALL, Os::None)
        .expect("encodes");
    assert_eq!((e.pmu, e.codes.as_slice()), ("arm_ac710", &[0x08][..]));
    let e = lib
        .encode("arm_ac510::INST_RETIRED", Plm::ALL, Os::None)
        .expect("encodes");
    assert_eq!(e.codes, vec![0x08]);
}
