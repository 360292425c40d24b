//! RISC-V detection with `/proc/cpuinfo` texts of our own making, as
//! Linux's RISC-V kernel writes them (per hart: `processor`, `hart`,
//! `isa`, `mmu`, `uarch`, `mvendorid`, `marchid`, `mimpid`, `hart isa`),
//! with the identity registers of real boards (a VisionFive 2, a HiFive
//! Unmatched, a HiFive Premier P550, a Lichee Pi 4A, a MangoPi MQ-Pro, a
//! Banana Pi BPI-F3, QEMU) and of the other cores perf's `mapfile.csv`
//! names. pfmlib must find exactly the listed core PMU, only on a RISC-V
//! host, and the SBI firmware PMU wherever the kernel publishes its `cpu`
//! PMU. No libpfm4 knows RISC-V: the vendor map is the only reference.

mod common;

use common::riscv::{cpuinfo, host, Hart};
use pfmlib::{Arch, Host, Library, Os, Plm};

/// A host and the RISC-V core PMU pfmlib must find there (`None`: none).
struct Case {
    what: &'static str,
    isa: &'static str,
    uarch: Option<&'static str>,
    ids: (u64, u64, u64),
    want: Option<&'static str>,
}

const RV64GC: &str = "rv64imafdc_zicntr_zicsr_zifencei_zihpm";

const CASES: &[Case] = &[
    Case {
        what: "StarFive VisionFive 2 (JH7110, SiFive U74-MC)",
        isa: "rv64imafdc_zicntr_zicsr_zifencei_zihpm_zba_zbb",
        uarch: Some("sifive,u74-mc"),
        ids: (0x489, 0x8000_0000_0000_0007, 0x421_0427),
        want: Some("riscv_sifive_u74"),
    },
    Case {
        what: "SiFive HiFive Unmatched (FU740, U74-MC)",
        isa: RV64GC,
        uarch: Some("sifive,u74-mc"),
        ids: (0x489, 0x8000_0000_0000_0007, 0x2018_1004),
        want: Some("riscv_sifive_u74"),
    },
    Case {
        what: "SiFive HiFive Premier P550 (ESWIN EIC7700X)",
        isa: "rv64imafdch_zicntr_zicsr_zifencei_zihpm_zba_zbb",
        uarch: Some("sifive,p550"),
        ids: (0x489, 0x8000_0000_0000_0008, 0x622_0425),
        want: Some("riscv_sifive_p550"),
    },
    Case {
        what: "Sipeed Lichee Pi 4A (T-Head TH1520, C910)",
        isa: "rv64imafdc_zicntr_zicsr_zifencei_zihpm_xtheadvector",
        uarch: Some("thead,c910"),
        ids: (0x5b7, 0, 0),
        want: Some("riscv_thead_c900"),
    },
    Case {
        what: "MangoPi MQ-Pro (Allwinner D1, T-Head C906)",
        isa: RV64GC,
        uarch: Some("thead,c906"),
        ids: (0x5b7, 0, 0),
        want: Some("riscv_thead_c900"),
    },
    Case {
        what: "SiFive Bullet core, marchid ...507, implementation 0x7...",
        isa: RV64GC,
        uarch: None,
        ids: (0x489, 0x8000_0000_0000_0507, 0x7_0001),
        want: Some("riscv_sifive_u74_r07"),
    },
    Case {
        what: "SiFive Bullet core, marchid ...e07, implementation 0xc...",
        isa: RV64GC,
        uarch: None,
        ids: (0x489, 0x8000_0000_0000_0e07, 0xc0),
        want: Some("riscv_sifive_u74_r07"),
    },
    Case {
        what: "SiFive Bullet core, marchid ...107, implementation 0xd...",
        isa: RV64GC,
        uarch: None,
        ids: (0x489, 0x8000_0000_0000_0107, 0xd_0000),
        want: Some("riscv_sifive_u74_r0d"),
    },
    Case {
        what: "SiFive P650 (marchid ...608, implementation 0xb...)",
        isa: RV64GC,
        uarch: None,
        ids: (0x489, 0x8000_0000_0000_0608, 0xb00),
        want: Some("riscv_sifive_p650"),
    },
    Case {
        what: "Andes AX45",
        isa: RV64GC,
        uarch: Some("andestech,ax45mp"),
        ids: (0x31e, 0x8000_0000_0000_8a45, 0x500),
        want: Some("riscv_andes_ax45"),
    },
    Case {
        what: "StarFive Dubhe-80 (marchid ...90)",
        isa: RV64GC,
        uarch: None,
        ids: (0x67e, 0x8000_0000_db00_0090, 0x1),
        want: Some("riscv_starfive_dubhe80"),
    },
    // Not in the map.
    Case {
        what: "Banana Pi BPI-F3 (SpacemiT K1, X60)",
        isa: "rv64imafdcv_zicntr_zicsr_zifencei_zihpm",
        uarch: Some("spacemit,x60"),
        ids: (0x710, 0x8000_0000_5800_0001, 0x1000_0000_4977_2200),
        want: None,
    },
    Case {
        what: "QEMU virt (no identity)",
        isa: RV64GC,
        uarch: None,
        ids: (0, 0, 0),
        want: None,
    },
    Case {
        what: "Bullet marchid ...507 with an implementation the map lacks (0x5...)",
        isa: RV64GC,
        uarch: None,
        ids: (0x489, 0x8000_0000_0000_0507, 0x50),
        want: None,
    },
    Case {
        what: "Bullet marchid ...507 with a one-digit implementation",
        isa: RV64GC,
        uarch: None,
        ids: (0x489, 0x8000_0000_0000_0507, 0x7),
        want: None,
    },
    Case {
        what: "Bullet marchid ...f07 (outside 1-e)",
        isa: RV64GC,
        uarch: None,
        ids: (0x489, 0x8000_0000_0000_0f07, 0x70),
        want: None,
    },
    Case {
        what: "P650 marchid ...708 (outside 1-6)",
        isa: RV64GC,
        uarch: None,
        ids: (0x489, 0x8000_0000_0000_0708, 0x90),
        want: None,
    },
    Case {
        what: "Dubhe marchid ...a0",
        isa: RV64GC,
        uarch: None,
        ids: (0x67e, 0x8000_0000_db00_00a0, 0x1),
        want: None,
    },
    Case {
        what: "T-Head with a non-zero mimpid",
        isa: RV64GC,
        uarch: None,
        ids: (0x5b7, 0, 1),
        want: None,
    },
];

fn text(c: &Case) -> String {
    let hart = Hart {
        isa: c.isa,
        uarch: c.uarch,
        ids: c.ids,
    };
    cpuinfo(&hart, 0, 4)
}

/// The RISC-V PMUs present on `h`.
fn present(h: Host) -> Vec<String> {
    Library::with_host(h)
        .pmus()
        .filter(|p| p.info().is_present && p.name().starts_with("riscv_"))
        .map(|p| p.name().to_string())
        .collect()
}

#[test]
fn each_core_is_found_as_the_map_says() {
    for c in CASES {
        let t = text(c);
        assert_eq!(Arch::from_cpuinfo(&t), Some(Arch::RiscV64), "{}", c.what);
        let want: Vec<String> = c.want.iter().map(|s| s.to_string()).collect();
        assert_eq!(present(host(&t, false)), want, "{}", c.what);
        let mut with_sbi = want.clone();
        with_sbi.insert(0, "riscv_sbi".to_string());
        assert_eq!(present(host(&t, true)), with_sbi, "{} (SBI PMU)", c.what);
    }
}

#[test]
fn the_first_hart_decides() {
    let u74 = text(&CASES[0]);
    let other = text(&CASES[11]);
    let both = format!("{u74}{other}");
    assert_eq!(present(host(&both, false)), ["riscv_sifive_u74"]);
    let h = host(&both, false);
    let ids = h.riscv.expect("identity read");
    assert_eq!(
        (ids.mvendorid, ids.marchid, ids.mimpid),
        (0x489, 0x8000_0000_0000_0007, 0x421_0427)
    );
}

#[test]
fn only_on_risc_v_hosts() {
    let t = text(&CASES[0]);
    for arch in [
        Arch::X86,
        Arch::Aarch64,
        Arch::PowerPc,
        Arch::Mips,
        Arch::Other,
    ] {
        let mut h = Host::from_cpuinfo(arch, &t);
        h.kernel_cpu_pmu = true;
        assert!(h.riscv.is_none(), "{arch:?}");
        assert!(present(h).is_empty(), "{arch:?}");
    }
    // An older kernel writes no identity lines: no core PMU, the firmware
    // PMU still.
    let old = "processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdc\nmmu\t\t: sv39\n\n";
    assert_eq!(Arch::from_cpuinfo(old), Some(Arch::RiscV64));
    assert!(host(old, false).riscv.is_none());
    assert_eq!(present(host(old, true)), ["riscv_sbi"]);
    // Another architecture's kernel read as a RISC-V host (`pfm
    // --host-arch riscv64` on an x86 machine): its `cpu` PMU is not the SBI
    // PMU.
    let x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n\n";
    assert!(present(host(x86, true)).is_empty());
    assert!(present(host("", true)).is_empty());
}

/// A detected core's events encode without a PMU prefix, through
/// `PERF_TYPE_RAW`; the firmware events with bit 63.
#[test]
fn detected_events_encode_unprefixed() {
    let lib = Library::with_host(host(&text(&CASES[0]), true));
    let e = lib
        .encode("DCACHE_MISS", Plm::DEFAULT, Os::PerfEvent)
        .expect("encodes");
    assert_eq!(e.pmu, "riscv_sifive_u74");
    let p = e.perf.expect("perf");
    assert_eq!((p.type_, p.config), (4, 0x202));
    let fw = lib
        .encode("FW_IPI_SENT", Plm::PLM3, Os::PerfEvent)
        .expect("encodes");
    assert_eq!(fw.pmu, "riscv_sbi");
    let p = fw.perf.expect("perf");
    assert_eq!((p.type_, p.config), (4, 1 << 63 | 6));
    assert!(p.exclude_kernel && !p.exclude_user);
    assert!(
        fw.fstr.starts_with("riscv_sbi::FW_IPI_SENT:u=1:k=0"),
        "{}",
        fw.fstr
    );
}

/// `pfm --host-arch riscv64` and the C library's rule
/// (`Options::host_build_only`): the riscv64 build's PMUs, ours and perf's.
#[test]
fn the_riscv64_build() {
    let options = pfmlib::Options::new().host_build_only(true);
    let lib = Library::new(host(&text(&CASES[3]), true), options);
    let names: Vec<(u32, String, bool)> = lib
        .pmus()
        .map(|p| (p.id(), p.name().to_string(), p.info().is_present))
        .collect();
    let riscv: Vec<&(u32, String, bool)> =
        names.iter().filter(|n| n.1.starts_with("riscv_")).collect();
    assert_eq!(riscv.len(), 9, "{names:?}");
    assert!(riscv.iter().all(|n| (800..850).contains(&n.0)));
    let others: Vec<&str> = names
        .iter()
        .filter(|n| !n.1.starts_with("riscv_"))
        .map(|n| n.1.as_str())
        .collect();
    assert_eq!(others, ["perf", "perf_raw"]);
    let on: Vec<&str> = names
        .iter()
        .filter(|n| n.2 && n.1.starts_with("riscv_"))
        .map(|n| n.1.as_str())
        .collect();
    assert_eq!(on, ["riscv_sbi", "riscv_thead_c900"]);
}
