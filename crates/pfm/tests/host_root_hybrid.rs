//! `pfm --host-root DIR` on a recorded hybrid Intel machine of our own
//! making: an Arrow Lake-H laptop (family 6 model 0xc5, a Core Ultra 9
//! 285H: 6 Lion Cove P-cores, 8 Skymont E-cores, 2 low-power Crestmont
//! E-cores), its `/proc/cpuinfo`, the kernel's CPUID device per CPU
//! (`/dev/cpu/<n>/cpuid`: leaf 0x1A's core type and native model id) and
//! the kernel's three hybrid PMUs (`cpu_core`, `cpu_atom`, `cpu_lowpower`).
//! `pfm list` shows one PMU per kind of core, each counting on its own
//! kernel PMU; these tables are pfmlib's own (beyond libpfm4).

mod common;

use common::{present, run_on, write_tree};

/// Leaf 0x1A's EAX of each CPU: Lion Cove, Skymont, LP Crestmont.
const CORES: &[u32] = &[
    0x4000_0003,
    0x4000_0003,
    0x4000_0003,
    0x4000_0003,
    0x4000_0003,
    0x4000_0003,
    0x2000_0003,
    0x2000_0003,
    0x2000_0003,
    0x2000_0003,
    0x2000_0003,
    0x2000_0003,
    0x2000_0003,
    0x2000_0003,
    0x2000_0002,
    0x2000_0002,
];

/// The recorded laptop; `lp_pmu`: the kernel names the LP E-cores' PMU
/// (newer kernels; older ones count them under `cpu_atom`).
fn laptop(lp_pmu: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path();
    let mut cpuinfo = String::new();
    for (n, eax) in CORES.iter().enumerate() {
        cpuinfo += &format!(
            "processor\t: {n}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 197\n\
             model name\t: Intel(R) Core(TM) Ultra 9 285H\nstepping\t: 2\n\
             flags\t\t: fpu tsc msr pae arch_perfmon pebs bts hybrid_cpu\n\n"
        );
        let mut bytes = vec![0u8; 0x1a + 16];
        bytes[0x1a..0x1e].copy_from_slice(&eax.to_le_bytes());
        let d = root.join(format!("dev/cpu/{n}"));
        std::fs::create_dir_all(&d).expect("dev/cpu");
        std::fs::write(d.join("cpuid"), bytes).expect("cpuid");
    }
    let (atom_cpus, lp) = if lp_pmu {
        ("6-13\n", true)
    } else {
        ("6-15\n", false)
    };
    let mut files = vec![
        ("proc/cpuinfo", cpuinfo.as_str()),
        ("proc/sys/kernel/perf_event_paranoid", "2\n"),
        ("sys/bus/event_source/devices/cpu_core/type", "4\n"),
        ("sys/bus/event_source/devices/cpu_core/cpus", "0-5\n"),
        (
            "sys/bus/event_source/devices/cpu_core/perf_event_mux_interval_ms",
            "4\n",
        ),
        ("sys/bus/event_source/devices/cpu_atom/type", "10\n"),
        ("sys/bus/event_source/devices/cpu_atom/cpus", atom_cpus),
        (
            "sys/bus/event_source/devices/cpu_atom/perf_event_mux_interval_ms",
            "4\n",
        ),
        ("sys/bus/event_source/devices/software/type", "1\n"),
    ];
    if lp {
        files.extend([
            ("sys/bus/event_source/devices/cpu_lowpower/type", "11\n"),
            ("sys/bus/event_source/devices/cpu_lowpower/cpus", "14-15\n"),
            (
                "sys/bus/event_source/devices/cpu_lowpower/perf_event_mux_interval_ms",
                "4\n",
            ),
        ]);
    }
    write_tree(root, &files);
    dir
}

#[test]
fn pfm_list_shows_the_three_kinds_of_core() {
    let dir = laptop(true);
    let pmus = present(dir.path(), &[]);
    for p in ["arl_lnc", "arl_skt", "arl_cmt"] {
        assert!(pmus.iter().any(|x| x == p), "{p} not in {pmus:?}");
    }
    let text = run_on(dir.path(), &[], &["list"]);
    let line = text.lines().next().unwrap_or_default();
    assert!(
        line.starts_with("Host: Intel(R) Core(TM) Ultra 9 285H (family 6, model 197)"),
        "{line}"
    );
    for header in [
        "PMU arl_lnc — Intel Arrow Lake Lion Cove (P-core) [core, present,",
        "PMU arl_skt — Intel Arrow Lake Skymont (E-core) [core, present,",
        "PMU arl_cmt — Intel Arrow Lake-H low-power Crestmont (LP E-core) [core, present,",
    ] {
        assert!(text.contains(header), "{header}\n{text}");
    }
}

#[test]
fn each_kind_of_core_is_encoded_for_its_kernel_pmu() {
    let dir = laptop(true);
    for (event, ty) in [
        ("arl_lnc::INST_RETIRED:ANY_P", "4"),
        ("arl_skt::INST_RETIRED:ANY_P", "10"),
        ("arl_cmt::INST_RETIRED:ANY_P", "11"),
    ] {
        let out = run_on(dir.path(), &[], &["check", "--json", "--os", "perf", event]);
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        let text = v.to_string();
        assert!(text.contains(&format!("\"type\":{ty}")), "{event}: {text}");
    }
}

#[test]
fn the_cpuid_device_decides_when_the_kernel_lumps_the_atoms_together() {
    // Older kernels have no cpu_lowpower PMU: leaf 0x1A still tells the
    // LP E-cores apart, so arl_cmt is detected (it counts through the raw
    // type then, as libpfm4's hybrid PMUs do without their kernel PMU).
    let dir = laptop(false);
    let pmus = present(dir.path(), &[]);
    for p in ["arl_lnc", "arl_skt", "arl_cmt"] {
        assert!(pmus.iter().any(|x| x == p), "{p} not in {pmus:?}");
    }
}
