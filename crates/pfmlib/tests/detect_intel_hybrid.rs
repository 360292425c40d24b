//! Detection of pfmlib's own hybrid Intel client PMUs (Meteor, Arrow,
//! Lunar, Panther and Nova Lake: one PMU per kind of core, from Intel's
//! event lists). A PMU is detected on its family and models, and, where the
//! host's kinds of core are known, only if the host has its kind of core:
//! CPUID leaf 0x1A of every CPU (recorded per CPU, or read from
//! `/dev/cpu/<n>/cpuid`), else the kernel's hybrid PMUs (`cpu_core`,
//! `cpu_atom`, `cpu_lowpower`), else the model alone (as libpfm4 detects
//! `adl_glc` and `adl_grt`).

mod common;

use pfmlib::host::{CpuIdResult, HybridCore};
use pfmlib::{Arch, Host, Library, Os, Plm, Vendor};

/// Core type of leaf 0x1A: Intel Core (P-core) and Intel Atom (E-core).
const CORE: u8 = 0x40;
const ATOM: u8 = 0x20;

/// A kind of core: (core type, native model id).
type Kind = (u8, u32);

/// A hybrid PMU: name, family, models, its kind of core.
type Row = (&'static str, u32, &'static [u32], Kind);

/// The hybrid PMUs.
const PMUS: &[Row] = &[
    ("mtl_rwc", 6, &[0xaa, 0xac, 0xb5], (CORE, 2)),
    ("mtl_cmt", 6, &[0xaa, 0xac, 0xb5], (ATOM, 2)),
    ("arl_lnc", 6, &[0xc5, 0xc6], (CORE, 3)),
    ("arl_skt", 6, &[0xc5, 0xc6], (ATOM, 3)),
    ("arl_cmt", 6, &[0xc5], (ATOM, 2)),
    ("lnl_lnc", 6, &[0xbd], (CORE, 3)),
    ("lnl_skt", 6, &[0xbd], (ATOM, 3)),
    ("ptl_cgc", 6, &[0xcc, 0xd5], (CORE, 4)),
    ("ptl_dkt", 6, &[0xcc, 0xd5], (ATOM, 4)),
    ("nvl_cyc", 18, &[0x1, 0x3], (CORE, 5)),
    ("nvl_arw", 18, &[0x1, 0x3], (ATOM, 5)),
];

/// The PMUs of [`PMUS`] present on `h`.
fn present(h: Host) -> Vec<&'static str> {
    common::present_on(h, PMUS.iter().map(|p| p.0))
}

/// The PMUs of [`PMUS`] detected on `family`/`model` with these cores
/// (`None`: every one of the model's).
fn want(family: u32, model: u32, cores: Option<&[(u8, u32)]>) -> Vec<&'static str> {
    PMUS.iter()
        .filter(|p| p.1 == family && p.2.contains(&model))
        .filter(|p| cores.is_none_or(|c| c.contains(&p.3)))
        .map(|p| p.0)
        .collect()
}

/// One CPU of a recorded hybrid machine: GenuineIntel, `family`/`model`,
/// CPUID.07H:EDX[15] (hybrid) and leaf 0x1A with this kind of core.
fn cpu(family: u32, model: u32, core: (u8, u32)) -> impl Fn(u32, u32) -> CpuIdResult + Clone {
    let r = |eax, ebx, ecx, edx| CpuIdResult { eax, ebx, ecx, edx };
    let (base, ext) = if family >= 0xf {
        (0xf, family - 0xf)
    } else {
        (family, 0)
    };
    let leaf1 = ext << 20 | (model >> 4) << 16 | base << 8 | (model & 0xf) << 4;
    move |leaf, _sub| match leaf {
        0 => r(0x23, 0x756e_6547, 0x6c65_746e, 0x4965_6e69),
        1 => r(leaf1, 0, 0, 0),
        7 => r(0, 0, 0, 1 << 15),
        0x1a => r(u32::from(core.0) << 24 | core.1, 0, 0, 0),
        _ => r(0, 0, 0, 0),
    }
}

/// A host of these CPUs, one reader each.
fn machine(family: u32, model: u32, cores: &[(u8, u32)]) -> Host {
    Host::from_cpuids(cores.iter().map(|&c| cpu(family, model, c)).collect(), None)
}

#[test]
fn the_model_alone_detects_every_kind_of_core() {
    for family in [6, 18, 15, 19] {
        for model in 0..=255 {
            let got = present(Host::synthetic(Vendor::Intel, family, model));
            assert_eq!(got, want(family, model, None), "{family}/{model:#x}");
        }
    }
    assert!(present(Host::synthetic(Vendor::Amd, 6, 0xc5)).is_empty());
}

#[test]
fn cpuid_leaf_1a_of_each_cpu_chooses_the_kinds_of_core() {
    let lp = (ATOM, 2);
    let skymont = (ATOM, 3);
    let cases: &[(u32, u32, &[Kind])] = &[
        // Arrow Lake-H: Lion Cove, Skymont and low-power Crestmont.
        (6, 0xc5, &[(CORE, 3), (CORE, 3), skymont, skymont, lp, lp]),
        // The same model with its LP E-cores switched off.
        (6, 0xc5, &[(CORE, 3), skymont]),
        // A virtual machine on P-cores only.
        (6, 0xc5, &[(CORE, 3)]),
        // Only the low-power island.
        (6, 0xc5, &[lp]),
        (6, 0xc6, &[(CORE, 3), skymont]),
        (6, 0xaa, &[(CORE, 2), (ATOM, 2)]),
        (6, 0xaa, &[(ATOM, 2)]),
        (6, 0xbd, &[(CORE, 3), (ATOM, 3)]),
        (6, 0xcc, &[(CORE, 4), (ATOM, 4)]),
        (18, 0x1, &[(CORE, 5), (ATOM, 5)]),
        (18, 0x3, &[(ATOM, 5)]),
    ];
    for &(family, model, cores) in cases {
        let h = machine(family, model, cores);
        let mut kinds: Vec<HybridCore> = cores
            .iter()
            .map(|&(core_type, native_model)| HybridCore {
                core_type,
                native_model,
            })
            .collect();
        kinds.sort();
        kinds.dedup();
        assert_eq!(h.hybrid_cores, kinds);
        // A kind of core is matched by type, and by native model where the
        // table names one (Arrow Lake's two kinds of Atom).
        let got = present(h);
        let expect: Vec<&str> = want(family, model, None)
            .into_iter()
            .filter(|n| {
                let (_, _, _, (t, m)) = PMUS.iter().find(|p| p.0 == *n).copied().unwrap();
                let arl_atom = n.starts_with("arl_") && t == ATOM;
                cores.iter().any(|c| c.0 == t && (!arl_atom || c.1 == m))
            })
            .collect();
        assert_eq!(got, expect, "{family}/{model:#x} {cores:x?}");
    }
}

#[test]
fn one_cpu_without_leaf_1a_is_not_a_hybrid_host() {
    // A single reader (Host::from_cpuid) cannot tell the other CPUs'
    // kinds: the model decides.
    let h = Host::from_cpuid(cpu(6, 0xc5, (CORE, 3)), None);
    assert!(h.hybrid_cores.is_empty());
    assert_eq!(present(h), ["arl_lnc", "arl_skt", "arl_cmt"]);
}

/// A recorded Arrow Lake-H tree: cpuinfo (with the `hybrid_cpu` flag), the
/// kernel's CPUID device per CPU (leaf 0x1A's EAX at offset 0x1a), the
/// kernel's hybrid PMUs when `kernel` names them.
fn arrow_lake_tree(cores: &[u32], kernel: &[(&str, u32)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let mut cpuinfo = String::new();
    for (n, &eax) in cores.iter().enumerate() {
        cpuinfo += &format!(
            "processor\t: {n}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 197\nstepping\t: 2\nflags\t\t: fpu tsc hybrid_cpu arch_perfmon\n\n"
        );
        let d = root.join(format!("dev/cpu/{n}"));
        std::fs::create_dir_all(&d).expect("dev/cpu");
        let mut bytes = vec![0u8; 0x1a + 16];
        bytes[0x1a..0x1a + 4].copy_from_slice(&eax.to_le_bytes());
        std::fs::write(d.join("cpuid"), bytes).expect("cpuid");
    }
    std::fs::create_dir_all(root.join("proc")).expect("proc");
    std::fs::write(root.join("proc/cpuinfo"), cpuinfo).expect("cpuinfo");
    for &(name, ty) in kernel {
        let d = root.join("sys/bus/event_source/devices").join(name);
        std::fs::create_dir_all(&d).expect("pmu dir");
        std::fs::write(d.join("type"), format!("{ty}\n")).expect("type");
        std::fs::write(d.join("perf_event_mux_interval_ms"), "4\n").expect("mux");
    }
    std::fs::create_dir_all(root.join("proc/sys/kernel")).expect("sys");
    std::fs::write(root.join("proc/sys/kernel/perf_event_paranoid"), "2\n").expect("paranoid");
    dir
}

const LNC: u32 = 0x4000_0003;
const SKT: u32 = 0x2000_0003;
const LP: u32 = 0x2000_0002;

#[test]
fn a_recorded_tree_is_read_through_the_cpuid_device() {
    let dir = arrow_lake_tree(&[LNC, LNC, SKT, SKT, LP, LP], &[]);
    let h = Host::detect_with_root(Arch::X86, dir.path().to_path_buf());
    assert_eq!((h.family, h.model), (6, 0xc5));
    assert_eq!(h.hybrid_cores.len(), 3);
    assert_eq!(present(h), ["arl_lnc", "arl_skt", "arl_cmt"]);
    // Without its LP E-cores.
    let dir = arrow_lake_tree(&[LNC, SKT], &[]);
    let h = Host::detect_with_root(Arch::X86, dir.path().to_path_buf());
    assert_eq!(present(h), ["arl_lnc", "arl_skt"]);
}

#[test]
fn without_leaf_1a_the_kernels_hybrid_pmus_decide() {
    let dir = arrow_lake_tree(&[0, 0], &[("cpu_core", 4), ("cpu_atom", 10)]);
    let h = Host::detect_with_root(Arch::X86, dir.path().to_path_buf());
    assert!(h.hybrid_cores.is_empty());
    assert_eq!(present(h), ["arl_lnc", "arl_skt"]);
    let dir = arrow_lake_tree(
        &[0],
        &[("cpu_core", 4), ("cpu_atom", 10), ("cpu_lowpower", 11)],
    );
    let h = Host::detect_with_root(Arch::X86, dir.path().to_path_buf());
    assert_eq!(present(h), ["arl_lnc", "arl_skt", "arl_cmt"]);
}

#[test]
fn each_kind_of_core_counts_on_its_kernel_pmu() {
    let dir = arrow_lake_tree(
        &[LNC, SKT, LP],
        &[("cpu_core", 4), ("cpu_atom", 10), ("cpu_lowpower", 11)],
    );
    let lib = Library::with_host(Host::detect_with_root(Arch::X86, dir.path().to_path_buf()));
    for (event, ty) in [
        ("arl_lnc::INST_RETIRED:ANY_P", 4),
        ("arl_skt::INST_RETIRED:ANY_P", 10),
        ("arl_cmt::INST_RETIRED:ANY_P", 11),
    ] {
        let e = lib
            .encode(event, Plm::DEFAULT, Os::PerfEvent)
            .unwrap_or_else(|err| panic!("{event}: {err}"));
        assert_eq!(
            e.perf.map(|p| (p.type_, p.config)),
            Some((ty, 0xc0)),
            "{event}"
        );
    }
}

/// Precise front-end events hard-wire the front-end register's value
/// (config1); Nova Lake's off-module response events carry theirs the same
/// way; the P-cores' fixed-counter-only events are the kernel's pseudo
/// codes.
#[test]
fn frontend_offmodule_and_pseudo_events() {
    let lib = Library::with_host(Host::synthetic(Vendor::Intel, 18, 1));
    let perf = |s: &str| {
        lib.encode(s, Plm::DEFAULT, Os::PerfEvent)
            .unwrap_or_else(|e| panic!("{s}: {e}"))
            .perf
            .map(|p| (p.config, p.config1))
            .unwrap_or_default()
    };
    assert_eq!(
        perf("nvl_cyc::FRONTEND_RETIRED:LATENCY_GE_8"),
        (0x3c6, 0x600806)
    );
    assert_eq!(perf("nvl_cyc::FRONTEND_RETIRED:MISP_ANT"), (0x2c6, 0x9));
    assert_eq!(perf("nvl_cyc::INT_MISC:UNKNOWN_BRANCH_CYCLES").1, 0x7);
    assert_eq!(
        perf("nvl_cyc::MEM_LOAD_L2_MISS_RETIRED2:L3_MISS"),
        (0x4d6, 0xFF03F000000001)
    );
    assert_eq!(perf("nvl_cyc::TOPDOWN:SLOTS"), (0x400, 0));
    assert_eq!(perf("nvl_cyc::INST_RETIRED:PREC_DIST"), (0x100, 0));
    // A plain unit mask of an event with a front-end one has no config1.
    let plain = lib
        .encode(
            "nvl_cyc::INT_MISC:RECOVERY_CYCLES",
            Plm::DEFAULT,
            Os::PerfEvent,
        )
        .expect("plain");
    assert_eq!(plain.perf.map(|p| p.config1), Some(0));
}
