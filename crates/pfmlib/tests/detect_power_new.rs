//! POWER9 and POWER10 detection as libpfm4 does it (`pfm_power9_detect`,
//! `pfm_power10_detect`: `__is_processor(PV_POWER9)` = 0x004e,
//! `PV_POWER10` = 0x0080, the version half of the Processor Version
//! Register), on in-memory hosts: `/proc/cpuinfo` files as Linux writes them
//! on POWER machines (bare metal under OPAL, and PowerVM or KVM partitions).
//! libpfm4 reads the real register, which `/proc/cpuinfo`'s `revision` line
//! shows (`(pvr VVVV RRRR)`) whatever compatibility mode the `cpu` line
//! names: a POWER10 partition running in POWER9 mode has the power10 PMU.
//! Exactly the right one of the two must be present, and neither on other
//! processors or other architectures.

use pfmlib::{Arch, Host, Library, Os, Plm, PmuKind, Vendor};

/// The PMUs of this test.
const MINE: [&str; 2] = ["power9", "power10"];

/// A `/proc/cpuinfo` as Linux writes it on POWER: `n` processors (SMT
/// threads) named `cpu`, the revision line `rev` (`2.2 (pvr 004e 1202)`),
/// then the machine lines.
fn cpuinfo(cpu: &str, clock: &str, rev: &str, n: usize, machine: &str) -> String {
    let mut s = String::new();
    for i in 0..n {
        s +=
            &format!("processor\t: {i}\ncpu\t\t: {cpu}\nclock\t\t: {clock}\nrevision\t: {rev}\n\n");
    }
    s + machine
}

const POWERNV_AC922: &str = "timebase\t: 512000000\nplatform\t: PowerNV\nmodel\t\t: 8335-GTH\nmachine\t\t: PowerNV 8335-GTH\nfirmware\t: OPAL\nMMU\t\t: Radix\n";
const PSERIES_P9: &str = "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,9009-42A\nmachine\t\t: CHRP IBM,9009-42A\nMMU\t\t: Radix\n";
const PSERIES_P10: &str = "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,9105-22A\nmachine\t\t: CHRP IBM,9105-22A\nMMU\t\t: Radix\n";
const PSERIES_P8: &str = "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,8286-42A\nmachine\t\t: CHRP IBM,8286-42A\nMMU\t\t: Hash\n";
const KVM_GUEST: &str = "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM pSeries (emulated by qemu)\nmachine\t\t: CHRP IBM pSeries (emulated by qemu)\nMMU\t\t: Radix\n";

/// The CPU PMUs (not the OS's generic ones) present on `host`.
fn present(host: Host) -> Vec<&'static str> {
    let lib = Library::with_host(host);
    let mut v: Vec<&'static str> = lib
        .pmus()
        .filter(|p| p.info().kind != PmuKind::OsGeneric && p.info().is_present)
        .map(|p| p.name())
        .collect();
    v.sort_unstable();
    v
}

/// The hosts: (what, `/proc/cpuinfo`, the PMU of this test libpfm4 finds).
fn hosts() -> Vec<(&'static str, String, Option<&'static str>)> {
    vec![
        (
            "IBM AC922 (Summit/Sierra node), POWER9 DD2.2, bare metal",
            cpuinfo(
                "POWER9, altivec supported",
                "3800.000000MHz",
                "2.2 (pvr 004e 1202)",
                8,
                POWERNV_AC922,
            ),
            Some("power9"),
        ),
        (
            "POWER9 DD2.3, PowerVM partition",
            cpuinfo(
                "POWER9 (architected), altivec supported",
                "3450.000000MHz",
                "2.3 (pvr 004e 0203)",
                8,
                PSERIES_P9,
            ),
            Some("power9"),
        ),
        (
            "POWER9 partition in POWER8 compatibility mode",
            cpuinfo(
                "POWER8 (architected), altivec supported",
                "3450.000000MHz",
                "2.2 (pvr 004e 0202)",
                8,
                PSERIES_P9,
            ),
            Some("power9"),
        ),
        (
            "POWER10 (Power10 S1022), PowerVM partition",
            cpuinfo(
                "POWER10 (architected), altivec supported",
                "2750.000000MHz",
                "2.0 (pvr 0080 0200)",
                8,
                PSERIES_P10,
            ),
            Some("power10"),
        ),
        (
            "POWER10 partition in POWER9 compatibility mode",
            cpuinfo(
                "POWER9 (architected), altivec supported",
                "2750.000000MHz",
                "2.0 (pvr 0080 0200)",
                8,
                PSERIES_P10,
            ),
            Some("power10"),
        ),
        (
            "POWER10 DD2.1, KVM guest",
            cpuinfo(
                "POWER10 (architected), altivec supported",
                "2900.000000MHz",
                "2.1 (pvr 0080 1201)",
                4,
                KVM_GUEST,
            ),
            Some("power10"),
        ),
        (
            "POWER8 (S824), PowerVM partition",
            cpuinfo(
                "POWER8 (architected), altivec supported",
                "3525.000000MHz",
                "2.1 (pvr 004d 0201)",
                8,
                PSERIES_P8,
            ),
            None,
        ),
        (
            "POWER8E, bare metal",
            cpuinfo(
                "POWER8E (raw), altivec supported",
                "3690.000000MHz",
                "2.1 (pvr 004b 0201)",
                8,
                POWERNV_AC922,
            ),
            None,
        ),
        (
            "POWER7+",
            cpuinfo(
                "POWER7+ (raw), altivec supported",
                "3720.000000MHz",
                "2.1 (pvr 004a 0201)",
                4,
                PSERIES_P8,
            ),
            None,
        ),
        (
            "POWER11: libpfm4 knows no such version; pfmlib gives it POWER10's table, as perf does (issue 21)",
            cpuinfo(
                "POWER11 (architected), altivec supported",
                "3000.000000MHz",
                "2.0 (pvr 0082 0200)",
                8,
                PSERIES_P10,
            ),
            Some("power10"),
        ),
    ]
}

#[test]
fn power9_and_power10_are_detected_by_the_processor_version() {
    for (what, text, want) in hosts() {
        let got: Vec<_> = present(Host::from_cpuinfo(Arch::PowerPc, &text))
            .into_iter()
            .filter(|p| MINE.contains(p))
            .collect();
        assert_eq!(got, want.into_iter().collect::<Vec<_>>(), "{what}");
    }
}

#[test]
fn a_power9_or_power10_host_has_exactly_that_cpu_pmu() {
    for (what, text, want) in hosts() {
        let Some(want) = want else { continue };
        assert_eq!(
            present(Host::from_cpuinfo(Arch::PowerPc, &text)),
            [want],
            "{what}"
        );
    }
}

#[test]
fn the_host_facts_are_the_real_processor_version() {
    let text = cpuinfo(
        "POWER9 (architected), altivec supported",
        "2750.000000MHz",
        "2.0 (pvr 0080 0200)",
        2,
        PSERIES_P10,
    );
    let h = Host::from_cpuinfo(Arch::PowerPc, &text);
    assert_eq!(h.pvr, Some(0x0080_0200));
    assert_eq!((h.vendor, h.model, h.stepping), (Vendor::Ibm, 0x80, 0x0200));
}

#[test]
fn not_on_other_architectures_or_without_a_version() {
    let p9 = cpuinfo(
        "POWER9, altivec supported",
        "3800.000000MHz",
        "2.2 (pvr 004e 1202)",
        2,
        POWERNV_AC922,
    );
    for arch in [
        Arch::X86,
        Arch::Aarch64,
        Arch::Arm,
        Arch::S390x,
        Arch::Sparc,
        Arch::Mips,
    ] {
        let got = present(Host::from_cpuinfo(arch, &p9));
        assert!(!got.iter().any(|p| MINE.contains(p)), "{arch:?}: {got:?}");
    }
    for text in [
        String::new(),
        "processor\t: 0\ncpu\t\t: POWER9, altivec supported\n".to_string(),
        "processor\t: 0\ncpu\t\t: POWER9, altivec supported\nrevision\t: 2.2 (pvr 004e)\n"
            .to_string(),
    ] {
        let got = present(Host::from_cpuinfo(Arch::PowerPc, &text));
        assert!(!got.iter().any(|p| MINE.contains(p)), "{text:?}: {got:?}");
    }
    assert!(present(Host::synthetic(Vendor::Ibm, 0, 0x4e)).is_empty());
}

/// On the detected host an event needs no prefix, and perf_events counts it
/// as a raw event: type `PERF_TYPE_RAW` (4), the code as config.
#[test]
fn the_detected_pmu_answers_unprefixed_events() {
    for (text, pmu, code) in [
        (
            cpuinfo(
                "POWER9, altivec supported",
                "3800.000000MHz",
                "2.2 (pvr 004e 1202)",
                2,
                POWERNV_AC922,
            ),
            "power9",
            0x400fa,
        ),
        (
            cpuinfo(
                "POWER9 (architected), altivec supported",
                "2750.000000MHz",
                "2.0 (pvr 0080 0200)",
                2,
                PSERIES_P10,
            ),
            "power10",
            0x400fa,
        ),
    ] {
        let lib = Library::with_host(Host::from_cpuinfo(Arch::PowerPc, &text));
        let e = lib
            .encode("PM_RUN_INST_CMPL", Plm::DEFAULT, Os::PerfEvent)
            .expect("PM_RUN_INST_CMPL encodes");
        assert!(
            e.fstr.starts_with(&format!("{pmu}::PM_RUN_INST_CMPL")),
            "{}",
            e.fstr
        );
        let p = e.perf.expect("perf fields");
        assert_eq!((p.type_, p.config), (4, code), "{pmu}");
        let raw = lib
            .encode("PM_CYC", Plm::PLM0 | Plm::PLM3, Os::None)
            .expect("PM_CYC");
        assert_eq!(raw.codes.len(), 1, "{pmu}");
    }
}
