//! `pfm --host-root DIR` on a recorded RISC-V machine of our own making: a
//! StarFive VisionFive 2 (JH7110, four SiFive U74-MC harts numbered 1-4),
//! its `/proc/cpuinfo` as Linux 6.6 writes it, perf_events present with
//! the kernel's SBI PMU (`cpu`, type 4). The architecture is read from the
//! file (`isa : rv64...`) or named with `--host-arch riscv64`. No libpfm4
//! builds for RISC-V: these PMUs are pfmlib's own.

mod common;

use common::{check_json_on, present, run_on, write_tree};
use serde_json::Value;

/// One hart of the board.
fn hart(processor: usize) -> String {
    let isa = "rv64imafdc_zicntr_zicsr_zifencei_zihpm_zba_zbb";
    format!(
        "processor\t: {processor}\nhart\t\t: {}\nisa\t\t: {isa}\nmmu\t\t: sv39\n\
         uarch\t\t: sifive,u74-mc\nmvendorid\t: 0x489\nmarchid\t\t: 0x8000000000000007\n\
         mimpid\t\t: 0x4210427\nhart isa\t: {isa}\n\n",
        processor + 1
    )
}

/// The recorded board: cpuinfo, perf_events, the kernel's `cpu` PMU.
fn board() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    let cpuinfo: String = (0..4).map(hart).collect();
    write_tree(
        dir.path(),
        &[
            ("proc/cpuinfo", &cpuinfo),
            ("proc/sys/kernel/perf_event_paranoid", "2\n"),
            ("sys/bus/event_source/devices/cpu/type", "4\n"),
            (
                "sys/bus/event_source/devices/cpu/format/event",
                "config:0-47\n",
            ),
            (
                "sys/bus/event_source/devices/cpu/format/firmware",
                "config:63\n",
            ),
            ("sys/bus/event_source/devices/software/type", "1\n"),
        ],
    );
    dir
}

#[test]
fn the_board_shows_its_u74() {
    let dir = board();
    let pmus = present(dir.path(), &[]);
    assert_eq!(pmus, ["perf", "perf_raw", "riscv_sbi", "riscv_sifive_u74"]);
    // The same when the architecture is named; none on another one.
    assert_eq!(present(dir.path(), &["--host-arch", "riscv64"]), pmus);
    assert_eq!(present(dir.path(), &["--host-arch", "riscv"]), pmus);
    assert_eq!(
        present(dir.path(), &["--host-arch", "arm64"]),
        ["perf", "perf_raw"]
    );
    let text = run_on(dir.path(), &[], &["list", "--pmu", "riscv_sifive_u74"]);
    let line = text.lines().next().unwrap_or_default();
    assert!(
        line.starts_with(
            "Host: RISC-V (mvendorid 0x489, marchid 0x8000000000000007, mimpid 0x4210427), recorded host under"
        ),
        "{line}"
    );
    assert!(
        line.ends_with("the kernel exposes a hardware CPU PMU"),
        "{line}"
    );
    assert!(
        text.contains("PMU riscv_sifive_u74 — SiFive U74 (Bullet microarchitecture, marchid 0x8000000000000007) [core, present, 35 events"),
        "{text}"
    );
}

#[test]
fn list_json_names_the_identity() {
    let dir = board();
    let out = run_on(
        dir.path(),
        &[],
        &["list", "--json", "riscv_sbi::FW_SET_TIMER"],
    );
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["host"]["arch"], "riscv64");
    assert_eq!(doc["host"]["riscv"]["mvendorid"], 0x489);
    assert_eq!(doc["host"]["riscv"]["mimpid"], 0x421_0427);
    let pmus = doc["pmus"].as_array().expect("pmus");
    let p = pmus
        .iter()
        .find(|p| p["name"] == "riscv_sbi")
        .expect("riscv_sbi");
    assert_eq!(p["nevents"], 22);
    assert_eq!(p["is_present"], true);
    assert_eq!(p["events"][0]["name"], "FW_SET_TIMER");
}

#[test]
fn check_encodes_as_the_kernel_takes_it() {
    let dir = board();
    // Unprefixed names reach the U74 and the firmware PMU.
    let v = check_json_on(dir.path(), &["DCACHE_MISS"]);
    assert_eq!(v["pmu"], "riscv_sifive_u74");
    assert_eq!(v["codes"], serde_json::json!(["0x202"]));
    assert_eq!(v["fstr"], "riscv_sifive_u74::DCACHE_MISS");
    let v = check_json_on(dir.path(), &["--os", "perf", "FW_ILLEGAL_INSN:u"]);
    assert_eq!(v["pmu"], "riscv_sbi");
    assert_eq!(v["perf"]["type"], 4);
    assert_eq!(v["perf"]["config"], "0x8000000000000004");
    assert_eq!(v["perf"]["exclude_kernel"], true);
    let v = check_json_on(
        dir.path(),
        &[
            "--os",
            "perf-ext",
            "riscv_sifive_u74::ICACHE_BLOCKED:period=1000",
        ],
    );
    assert_eq!(v["perf"]["config"], "0x801");
    assert_eq!(v["perf"]["sample_period"], 1000);
    // What the PMU does not take.
    for (bad, error) in [
        ("DCACHE_MISS:k=2", "PFM_ERR_ATTR"),
        ("DCACHE_MISS:0x1", "PFM_ERR_ATTR"),
        ("riscv_sifive_u74::NO_SUCH", "PFM_ERR_NOTFOUND"),
    ] {
        let v = check_json_on(dir.path(), &[bad]);
        assert_eq!(v["error"]["name"], error, "{bad}");
    }
    let v = check_json_on(dir.path(), &["--os", "perf-ext", "DCACHE_MISS:precise=1"]);
    assert_eq!(v["error"]["name"], "PFM_ERR_ATTR");
}
