//! `pfm --host-root DIR`: the command answering for a recorded host (trees
//! of our own making), as the library does for `Host::from_root`.

mod common;

use common::{arm_cpuinfo, arm_host, graviton2, pfm, present, stderr, stdout, write_tree};

#[test]
fn recorded_arm_servers_show_their_core_pmu() {
    // (machine, implementer, part, core PMU libpfm4 detects)
    let hosts = [
        ("Graviton 2 (Neoverse N1)", 0x41, 0xd0c, "arm_n1"),
        ("Graviton 3 (Neoverse V1)", 0x41, 0xd40, "arm_v1"),
        ("Grace (Neoverse V2)", 0x41, 0xd4f, "arm_v2"),
        ("A64FX", 0x46, 0x001, "arm_a64fx"),
        ("Kunpeng 920", 0x48, 0xd01, "arm_kunpeng"),
        ("ThunderX2", 0x43, 0x0af, "arm_thunderx2"),
        ("Neoverse V3", 0x41, 0xd84, "arm_v3"),
        ("Neoverse N3", 0x41, 0xd8e, "arm_n3"),
        ("NVIDIA Vera (Olympus)", 0x4e, 0x010, "arm_olympus"),
        ("FUJITSU-MONAKA", 0x46, 0x003, "arm_monaka"),
    ];
    for (what, imp, part, core) in hosts {
        let dir = arm_host(&arm_cpuinfo(imp, part, "8", 4), &["armv8_pmuv3_0"]);
        let pmus = present(dir.path(), &[]);
        // Kunpeng's and ThunderX2's uncore PMUs are detected with their
        // core, as libpfm4 detects them.
        let uncore = |p: &&String| p.starts_with("hisi_") || p.starts_with("tx2_");
        let cores: Vec<&String> = pmus.iter().filter(|p| !uncore(p)).collect();
        assert_eq!(cores, [core, "perf", "perf_raw"], "{what}");
        let with_uncores = ["arm_kunpeng", "arm_thunderx2"].contains(&core);
        assert_eq!(with_uncores, pmus.len() > 3, "{what}: {pmus:?}");
        // The same answer when the architecture is named.
        assert_eq!(
            present(dir.path(), &["--host-arch", "arm64"]),
            pmus,
            "{what}"
        );
    }
}

#[test]
fn the_host_line_shows_arm_ids_in_hex_and_the_tree() {
    let dir = graviton2();
    let root = dir.path().to_string_lossy().into_owned();
    let o = pfm(&["--host-root", &root, "list", "--pmu", "perf_raw"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o).lines().next().unwrap_or_default().to_string();
    assert!(
        line.starts_with("Host: Arm (implementer 0x41, part 0xd0c, architecture 8)"),
        "{line}"
    );
    assert!(
        line.contains(&format!("recorded host under {root}")),
        "{line}"
    );
    assert!(
        line.ends_with("the kernel exposes a hardware CPU PMU"),
        "{line}"
    );
}

#[test]
fn device_tree_pmu_names_count_as_a_cpu_pmu() {
    let ci = arm_cpuinfo(0x41, 0xd03, "8", 4);
    for (pmus, exposed) in [
        (&["armv8_cortex_a53"][..], true),
        (&["armv8_neoverse_n1", "arm_spe_0"][..], true),
        (&["armv8_pmuv3"][..], true),
        (&["software", "tracepoint"][..], false),
        (&[][..], false),
    ] {
        let dir = arm_host(&ci, pmus);
        let o = pfm(&["--host-root", &dir.path().to_string_lossy(), "list"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let s = stdout(&o);
        assert_eq!(
            s.contains("the kernel exposes a hardware CPU PMU"),
            exposed,
            "{pmus:?}: {}",
            s.lines().next().unwrap_or_default()
        );
        assert!(s.contains("PMU arm_ac53 "), "{pmus:?}: Cortex-A53 detected");
    }
}

#[test]
fn a_32_bit_arm_host_needs_its_architecture_named() {
    // Cortex-A7: only libpfm4's 32-bit Arm build has its PMU.
    let dir = arm_host(&arm_cpuinfo(0x41, 0xc07, "7", 2), &["armv7_cortex_a7"]);
    assert_eq!(
        present(dir.path(), &["--host-arch", "arm"]),
        ["arm_ac7", "perf", "perf_raw"]
    );
    assert_eq!(present(dir.path(), &[]), ["perf", "perf_raw"]);
}

#[test]
fn an_x86_tree_keeps_this_cpu_and_takes_the_kernel_facts() {
    let dir = tempfile::tempdir().expect("temporary directory");
    write_tree(
        dir.path(),
        &[
            (
                "proc/cpuinfo",
                "processor\t: 0\nvendor_id\t: GenuineIntel\n\n",
            ),
            ("proc/sys/kernel/perf_event_paranoid", "1\n"),
            ("sys/bus/event_source/devices/cpu/type", "4\n"),
        ],
    );
    let root = dir.path().to_string_lossy().into_owned();
    let o = pfm(&["--host-root", &root, "list", "--pmu", "perf_raw"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o).lines().next().unwrap_or_default().to_string();
    assert!(line.contains("(family "), "{line}");
    assert!(
        line.ends_with("the kernel exposes a hardware CPU PMU"),
        "{line}"
    );
    // Without perf_events in the tree, the perf PMU is not present.
    let empty = tempfile::tempdir().expect("temporary directory");
    let p = present(empty.path(), &["--host-arch", "x86"]);
    assert!(!p.iter().any(|n| n == "perf"), "{p:?}");
}

#[test]
fn counting_and_bad_roots_are_refused() {
    let dir = graviton2();
    let root = dir.path().to_string_lossy().into_owned();
    for args in [
        &["--host-root", &root, "stat", "true"][..],
        &["--host-root", &root, "counters", "read"][..],
    ] {
        let o = pfm(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("this machine only"), "{}", stderr(&o));
    }
    let o = pfm(&["--host-root", "/nonexistent/pfm-root", "list"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a directory"), "{}", stderr(&o));
    // --host-arch alone: this machine read as that architecture's host,
    // the tables of that architecture's libpfm4 build only.
    let o = pfm(&["--host-arch", "arm", "list", "--all"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("PMU arm_ac15 "), "{}", stdout(&o));
    assert!(!stdout(&o).contains("PMU nhm "), "{}", stdout(&o));
    assert!(
        !stdout(&o).contains("PMU arm_monaka "),
        "arm64 only: {}",
        stdout(&o)
    );
}

#[test]
fn info_and_check_answer_for_the_recorded_host() {
    let dir = graviton2();
    let root = dir.path().to_string_lossy().into_owned();
    let o = pfm(&["--host-root", &root, "check", "INST_RETIRED"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("arm_n1::INST_RETIRED"),
        "{}",
        stdout(&o)
    );
    let o = pfm(&["info", "CPU_CYCLES", "--host-root", &root]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Name     : arm_n1::CPU_CYCLES"));
}

#[test]
fn a_big_little_host_shows_both_kinds_of_cores() {
    // An RK3588: four Cortex-A55 and four Cortex-A76 cores.
    let text = arm_cpuinfo(0x41, 0xd05, "8", 4) + &arm_cpuinfo(0x41, 0xd0b, "8", 4);
    let dir = arm_host(&text, &["armv8_cortex_a55", "armv8_cortex_a76"]);
    assert_eq!(
        present(dir.path(), &[]),
        ["arm_ac55", "arm_ac76", "perf", "perf_raw"]
    );
    let root = dir.path().to_string_lossy().into_owned();
    let o = pfm(&["--host-root", &root, "list", "--pmu", "perf_raw"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o).lines().next().unwrap_or_default().to_string();
    assert!(
        line.starts_with(
            "Host: Arm (implementer 0x41, part 0xd05, architecture 8; also implementer 0x41, part 0xd0b)"
        ),
        "{line}"
    );
}

/// The recorded hybrid host of pfmlib-perf's tests (an Alder Lake of our
/// own making: cpu_core type 8 on CPUs 0-15, cpu_atom type 10 on 16-19).
fn adl_root() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../pfmlib-perf/tests/trees/adl_host")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_recorded_hybrid_host_shows_both_core_pmus_and_their_cpus() {
    let root = adl_root();
    let pmus = present(std::path::Path::new(&root), &[]);
    assert_eq!(pmus, ["adl_glc", "adl_grt", "perf", "perf_raw"]);
    let o = pfm(&["--host-root", &root, "list", "--pmu", "adl_glc"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("  counts on CPUs 0-15 (kernel PMU cpu_core, type 8)\n"),
        "{}",
        stdout(&o)
    );
    let o = pfm(&["--host-root", &root, "list", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let kernel = |name: &str| {
        doc["pmus"]
            .as_array()
            .and_then(|a| a.iter().find(|p| p["name"] == name))
            .map(|p| p["kernel_pmu"].clone())
            .unwrap_or_default()
    };
    assert_eq!(
        kernel("adl_grt"),
        serde_json::json!({"name": "cpu_atom", "type": 10, "cpus": [16, 17, 18, 19]})
    );
    assert_eq!(kernel("adl_glc")["cpus"].as_array().map(Vec::len), Some(16));
    assert!(kernel("perf").is_null());
}

#[test]
fn hybrid_events_encode_for_their_core_pmu() {
    let root = adl_root();
    for (ev, type_) in [
        ("adl_grt::UOPS_RETIRED:ALL", "10"),
        ("adl_glc::INST_RETIRED:ANY_P", "8"),
    ] {
        let o = pfm(&["--host-root", &root, "check", "--os", "perf", ev]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let line = out
            .lines()
            .find(|l| l.starts_with("perf type"))
            .unwrap_or_default();
        assert!(line.ends_with(type_), "{ev}: {out}");
    }
}
