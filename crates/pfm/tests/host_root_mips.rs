//! `pfm --host-root DIR` on a recorded MIPS 74K machine of our own making:
//! a Broadcom BCM4716 router (Netgear WNR3500L and Asus RT-N16 class), its
//! `/proc/cpuinfo` as that router's Linux 2.6 kernel writes it, perf_events
//! present with the kernel's MIPS PMU (`cpu`). The architecture is read
//! from the file (`cpu model : MIPS ...`) or named with `--host-arch mips`.

mod common;

use common::{check_json_on, present, run_on, write_tree};
use serde_json::Value;

/// The router's `/proc/cpuinfo` (the one libpfm4's source quotes, with the
/// lines its kernel writes after them).
const BCM4716: &str = "system type             : Broadcom BCM4716 chip rev 1\n\
processor               : 0\n\
cpu model               : MIPS 74K V4.0\n\
BogoMIPS                : 239.20\n\
wait instruction        : no\n\
microsecond timers      : yes\n\
tlb_entries             : 64\n\
extra interrupt vector  : no\n\
hardware watchpoint     : yes, count: 4, address/irw mask: [0x0000, 0x0ff8, 0x0ff8, 0x0ff8]\n\
ASEs implemented        : mips16 dsp\n\
shadow register sets    : 1\n\
core                    : 0\n\
VCED exceptions         : not available\n\
VCEI exceptions         : not available\n\n";

/// The recorded router: cpuinfo, perf_events, the kernel's `cpu` PMU.
fn router() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    write_tree(
        dir.path(),
        &[
            ("proc/cpuinfo", BCM4716),
            ("proc/sys/kernel/perf_event_paranoid", "1\n"),
            ("sys/bus/event_source/devices/cpu/type", "4\n"),
            ("sys/bus/event_source/devices/software/type", "1\n"),
        ],
    );
    dir
}

#[test]
fn the_router_shows_its_74k() {
    let dir = router();
    let pmus = present(dir.path(), &[]);
    assert_eq!(pmus, ["mips_74k", "perf", "perf_raw"]);
    // The same when the architecture is named; none on another one.
    assert_eq!(present(dir.path(), &["--host-arch", "mips"]), pmus);
    assert_eq!(present(dir.path(), &["--host-arch", "mips64"]), pmus);
    assert_eq!(
        present(dir.path(), &["--host-arch", "arm64"]),
        ["perf", "perf_raw"]
    );
    let text = run_on(dir.path(), &[], &["list", "--pmu", "mips_74k"]);
    let line = text.lines().next().unwrap_or_default();
    assert!(
        line.starts_with("Host: MIPS (cpu model \"MIPS 74K V4.0\"), recorded host under"),
        "{line}"
    );
    assert!(
        line.ends_with("the kernel exposes a hardware CPU PMU"),
        "{line}"
    );
    assert!(text.contains("PMU mips_74k — MIPS 74K core PMU [core, present, 122 events, 4 generic + 0 fixed counters]"), "{text}");
}

#[test]
fn list_json_names_the_cpu_model() {
    let dir = router();
    let out = run_on(dir.path(), &[], &["list", "--json", "mips_74k::CYCLES"]);
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["host"]["arch"], "mips");
    assert_eq!(doc["host"]["mips_cpu_model"], "MIPS 74K V4.0");
    let pmus = doc["pmus"].as_array().expect("pmus");
    let p = pmus
        .iter()
        .find(|p| p["name"] == "mips_74k")
        .expect("mips_74k");
    assert_eq!(p["nevents"], 122);
    assert_eq!(p["is_present"], true);
    let ev = &p["events"][0];
    assert_eq!(ev["name"], "CYCLES");
    let mods: Vec<&str> = ev["attrs"]
        .as_array()
        .expect("attrs")
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert_eq!(mods, ["k", "u", "s", "e"]);
}

#[test]
fn check_encodes_as_libpfm4() {
    let dir = router();
    // Unprefixed names reach the 74K (the first active PMU).
    let v = check_json_on(dir.path(), &["CYCLES"]);
    assert_eq!(v["pmu"], "mips_74k");
    assert_eq!(v["codes"], serde_json::json!(["0xa", "0xf"]));
    assert_eq!(v["fstr"], "mips_74k::CYCLES:k=1:u=1:s=0:e=0");
    // libpfm4's own vectors (tests/validate_mips.c).
    let v = check_json_on(dir.path(), &["mips_74k::JR_31_MISPREDICTIONS:s:e"]);
    assert_eq!(v["codes"], serde_json::json!(["0x45", "0xa"]));
    assert_eq!(v["fstr"], "mips_74k::JR_31_MISPREDICTIONS:k=0:u=0:s=1:e=1");
    let v = check_json_on(dir.path(), &["PREDICTED_JR_31:u:k"]);
    assert_eq!(v["codes"], serde_json::json!(["0x4a", "0x5"]));
    // perf_events: PERF_TYPE_RAW, the event number, bit 7 for the odd
    // counters' events; the levels are perf's.
    let v = check_json_on(
        dir.path(),
        &["--os", "perf-ext", "JR_31_MISPREDICTIONS:u:period=1000"],
    );
    assert_eq!(v["perf"]["type"], 4);
    assert_eq!(v["perf"]["config"], "0x82");
    assert_eq!(v["perf"]["exclude_kernel"], true);
    assert_eq!(v["perf"]["sample_period"], 1000);
    assert_eq!(
        v["fstr"],
        "mips_74k::JR_31_MISPREDICTIONS:u=1:k=0:h=0:period=1000:freq=1000:excl=0:mg=0:mh=1"
    );
    let v = check_json_on(dir.path(), &["--os", "perf", "INSTRUCTIONS"]);
    assert_eq!(v["perf"]["config"], "0x1");
    // What the PMU does not take.
    for (bad, error) in [
        ("CYCLES:k=2", "PFM_ERR_ATTR_VAL"),
        ("CYCLES:0x1", "PFM_ERR_ATTR"),
        ("CYCLES:h", "PFM_ERR_ATTR"),
        ("mips_74k::NO_SUCH", "PFM_ERR_NOTFOUND"),
    ] {
        let v = check_json_on(dir.path(), &[bad]);
        assert_eq!(v["error"]["name"], error, "{bad}");
    }
    let v = check_json_on(dir.path(), &["--os", "perf-ext", "CYCLES:precise=1"]);
    assert_eq!(v["error"]["name"], "PFM_ERR_ATTR");
}
