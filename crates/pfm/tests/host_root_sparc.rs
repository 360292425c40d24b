//! `pfm --host-root DIR` on recorded SPARC hosts of our own making: an
//! UltraSPARC T2 (Niagara 2, sun4v) and an UltraSPARC III (Cheetah, sun4u),
//! their `/proc/cpuinfo` as a Linux sparc64 kernel writes it
//! (`show_cpuinfo`), perf_events present and the kernel's PMUs under
//! `/sys/bus/event_source/devices` (the CPU PMU is `cpu`, of type
//! `PERF_TYPE_RAW`). The architecture is read from the tree (its `pmu`
//! line) or named (`--host-arch sparc`).

mod common;

use common::{pfm, present, run_on, stdout, write_tree};
use serde_json::Value;

/// A `/proc/cpuinfo` of a Linux sparc64 SMP kernel with `n` CPUs.
fn sparc_cpuinfo(cpu: &str, fpu: &str, pmu: &str, sun4v: bool, n: usize) -> String {
    let (ty, mmu, caps) = if sun4v {
        (
            "sun4v",
            "Hypervisor (sun4v)",
            "flush,stbar,swap,muldiv,v9,blkinit,n2,mul32,div32,v8plus,popc,vis,vis2,ASIBlkInit",
        )
    } else {
        (
            "sun4u",
            "Cheetah",
            "flush,stbar,swap,muldiv,v9,mul32,div32,v8plus,vis,vis2",
        )
    };
    let mut s = format!(
        "cpu\t\t: {cpu}\nfpu\t\t: {fpu}\npmu\t\t: {pmu}\nprom\t\t: OBP 4.30.4 2009/08/19 07:25\n\
         type\t\t: {ty}\nncpus probed\t: {n}\nncpus active\t: {n}\nD$ parity tl1\t: 0\n\
         I$ parity tl1\t: 0\ncpucaps\t\t: {caps}\n"
    );
    for i in 0..n {
        s += &format!("Cpu{i}ClkTck\t: 0000000045d964b8\n");
    }
    s += &format!("MMU Type\t: {mmu}\nMMU PGSZs\t: 8K,64K,4MB,256MB\nState:\n");
    for i in 0..n {
        s += &format!("CPU{i}:\t\tonline\n");
    }
    s
}

/// A recorded SPARC host: its `/proc/cpuinfo`, `perf_event_paranoid` and
/// the kernel's perf_events PMUs.
fn sparc_host(cpuinfo: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    let dev = "sys/bus/event_source/devices";
    write_tree(
        dir.path(),
        &[
            ("proc/cpuinfo", cpuinfo),
            ("proc/sys/kernel/perf_event_paranoid", "2\n"),
            (&format!("{dev}/cpu/type"), "4\n"),
            (&format!("{dev}/software/type"), "1\n"),
            (&format!("{dev}/tracepoint/type"), "2\n"),
            (&format!("{dev}/breakpoint/type"), "5\n"),
        ],
    );
    dir
}

/// An UltraSPARC T2 (SPARC Enterprise T5120, 64 strands: 8 shown).
fn niagara2() -> tempfile::TempDir {
    sparc_host(&sparc_cpuinfo(
        "UltraSparc T2 (Niagara2)",
        "UltraSparc T2 integrated FPU",
        "niagara2",
        true,
        8,
    ))
}

/// An UltraSPARC III (Sun Blade 1000, two processors).
fn ultra3() -> tempfile::TempDir {
    sparc_host(&sparc_cpuinfo(
        "TI UltraSparc III (Cheetah)",
        "UltraSparc III integrated FPU",
        "ultra3",
        false,
        2,
    ))
}

/// `pfm check --json` of one string: its JSON line (failing or not).
fn check(dir: &std::path::Path, event: &str, os: &str) -> Value {
    let root = dir.to_string_lossy();
    let o = pfm(&["--host-root", &root, "check", "--json", "--os", os, event]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON line");
    assert_eq!(o.status.success(), v["ok"] == true, "{v}");
    v
}

#[test]
fn recorded_sparc_hosts_show_their_pmu() {
    for (what, dir, pmu) in [
        ("UltraSPARC T2", niagara2(), "niagara2"),
        ("UltraSPARC III", ultra3(), "ultra3"),
    ] {
        let pmus = present(dir.path(), &[]);
        assert_eq!(pmus, [pmu, "perf", "perf_raw"], "{what}");
        // The same answer when the architecture is named.
        assert_eq!(
            present(dir.path(), &["--host-arch", "sparc"]),
            pmus,
            "{what}"
        );
        // Named otherwise, the tree is another machine's: no SPARC PMU.
        let x86 = present(dir.path(), &["--host-arch", "x86"]);
        assert!(!x86.iter().any(|p| p == pmu), "{what}: {x86:?}");
    }
}

#[test]
fn the_host_line_names_the_sparc_pmu() {
    let dir = niagara2();
    let out = run_on(dir.path(), &[], &["list", "--pmu", "perf_raw"]);
    let line = out.lines().next().unwrap_or_default();
    assert!(
        line.starts_with("Host: SPARC (/proc/cpuinfo pmu niagara2), recorded host under "),
        "{line}"
    );
    assert!(
        line.ends_with("the kernel exposes a hardware CPU PMU"),
        "{line}"
    );
}

#[test]
fn list_all_json_shows_the_host_and_every_sparc_pmu() {
    let dir = niagara2();
    let doc: Value =
        serde_json::from_str(&run_on(dir.path(), &[], &["list", "--all", "--json"])).expect("JSON");
    assert_eq!(doc["host"]["arch"], "sparc");
    assert_eq!(doc["host"]["sparc_pmu"], "niagara2");
    assert_eq!(doc["host"]["kernel_cpu_pmu"], true);
    // (name, libpfm4 id, events, present)
    let sparc = [
        ("ultra12", 36, 22, false),
        ("ultra3", 37, 65, false),
        ("ultra3i", 38, 63, false),
        ("ultra3p", 39, 71, false),
        ("ultra4p", 40, 103, false),
        ("niagara1", 41, 9, false),
        ("niagara2", 42, 8, true),
    ];
    let pmus = doc["pmus"].as_array().expect("pmus");
    for (name, id, n, is_present) in sparc {
        let p = pmus
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed"));
        assert_eq!(p["id"], id, "{name}");
        assert_eq!(p["nevents"], n, "{name}");
        assert_eq!(p["is_present"], is_present, "{name}");
        assert_eq!(p["events"].as_array().map(Vec::len), Some(n), "{name}");
        assert_eq!(p["num_cntrs"], 2, "{name}");
        assert_eq!(p["max_encoding"], 2, "{name}");
        // PLM0 | PLM3, and the hypervisor level on Niagara 2.
        let plm = if name == "niagara2" { 0x19 } else { 0x9 };
        assert_eq!(p["supported_plm"], plm, "{name}");
    }
}

#[test]
fn check_encodes_for_the_recorded_niagara2() {
    let dir = niagara2();
    // Unprefixed: the active PMU's event. Loads and Stores share bit 3.
    let v = check(dir.path(), "Instr_cnt:Loads:Stores", "none");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["pmu"], "niagara2");
    assert_eq!(v["fstr"], "niagara2::Instr_cnt:Loads:Stores");
    assert_eq!(v["codes"], serde_json::json!(["0x8000002", "0x3"]));
    // perf_events: the raw type, the first code above the counter choice,
    // the levels from perf's own u, k, h.
    let v = check(
        dir.path(),
        "niagara2::cache:IC_miss:L2LD_miss:u",
        "perf-ext",
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        v["fstr"],
        "niagara2::cache:IC_miss:L2LD_miss:u=1:k=0:h=0:excl=0:mg=0:mh=1"
    );
    assert_eq!(v["perf"]["type"], 4);
    assert_eq!(v["perf"]["config"], "0x210000030003");
    assert_eq!(v["perf"]["exclude_user"], false);
    assert_eq!(v["perf"]["exclude_kernel"], true);
    assert_eq!(v["perf"]["exclude_hv"], true);
    // k, u and h are one attribute to libpfm4: two values are refused.
    let v = check(dir.path(), "Instr_cnt:k:u=0", "none");
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["name"], "PFM_ERR_ATTR_SET");
    // Under perf_events the hardware modifiers give way to perf's.
    let v = check(dir.path(), "tlb_miss:ITLB:precise=1", "perf-ext");
    assert_eq!(v["ok"], false, "{v}");
}

#[test]
fn check_encodes_for_the_recorded_ultra3() {
    let dir = ultra3();
    // Upstream selects it on PIC0 (S0): the second code is 1.
    let v = check(dir.path(), "Dispatch0_rs_mispred", "none");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["fstr"], "ultra3::Dispatch0_rs_mispred");
    assert_eq!(v["codes"], serde_json::json!(["0x4", "0x1"]));
    // No hypervisor level here: the hypervisor is counted (libpfm4 sets
    // the levels a PMU cannot filter).
    let v = check(dir.path(), "Cycle_cnt:k", "perf");
    assert_eq!(v["fstr"], "ultra3::Cycle_cnt:u=0:k=1:h=1:mg=0:mh=1", "{v}");
    assert_eq!(v["perf"]["config"], "0x3");
    assert_eq!(v["perf"]["exclude_user"], true);
    assert_eq!(v["perf"]["exclude_hv"], false);
    // Niagara 2's events are not this host's.
    let v = check(dir.path(), "All_strands_idle", "none");
    assert_eq!(v["ok"], false, "{v}");
}
