//! MIPS detection with synthetic hosts: `/proc/cpuinfo` files of our own
//! making, as MIPS kernels write them (a Broadcom BCM4716 router's 74K, a
//! newer kernel's `MIPS 74Kc`, the 24K, 1004K, interAptiv, BMIPS, Octeon and
//! Loongson cores that are not a 74K) and with the quirks of libpfm4's
//! `pfmlib_getcpuinfo_attr` (see `host/mips.rs`). pfmlib must find
//! `mips_74k` exactly where listed, and only on a MIPS host; where the MIPS
//! oracles are available and this system allows unprivileged mount
//! namespaces, libpfm4's mips builds (4.13's and upstream's, the same code)
//! are run on the same files (bind-mounted over `/proc/cpuinfo` in a child
//! process) and must agree.

mod common;

use common::arm::Build;
use pfmlib::{Arch, Host, Library, Os, Plm};
use std::path::Path;

/// A MIPS kernel's `/proc/cpuinfo` (`arch/mips/kernel/proc.c`), `n`
/// processors of the model `cpu` (the `cpu model` value).
fn cpuinfo(system: &str, cpu: &str, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i == 0 {
            s += &format!("system type\t\t: {system}\nmachine\t\t\t: Unknown\n");
        }
        s += &format!("processor\t\t: {i}\ncpu model\t\t: {cpu}\n");
        s += "BogoMIPS\t\t: 239.20\nwait instruction\t: yes\nmicrosecond timers\t: yes\n";
        s += "tlb_entries\t\t: 64\nextra interrupt vector\t: yes\n";
        s += "hardware watchpoint\t: yes, count: 4, address/irw mask: [0x0000, 0x0ff8, 0x0ff8, 0x0ff8]\n";
        s += "isa\t\t\t: mips1 mips2 mips32r1 mips32r2\nASEs implemented\t: mips16 dsp dsp2\n";
        s +=
            "shadow register sets\t: 1\nkscratch registers\t: 0\npackage\t\t\t: 0\ncore\t\t\t: 0\n";
        s += "VCED exceptions\t\t: not available\nVCEI exceptions\t\t: not available\n\n";
    }
    s
}

/// The file libpfm4's source quotes (a Broadcom BCM4716 router, Linux 2.6).
const BCM4716: &str = "system type             : Broadcom BCM4716 chip rev 1\n\
processor               : 0\n\
cpu model               : MIPS 74K V4.0\n\
BogoMIPS                : 239.20\n\
wait instruction        : no\n\
microsecond timers      : yes\n\
tlb_entries             : 64\n";

/// One synthetic machine and whether `mips_74k` is present on it.
struct Case {
    what: &'static str,
    cpuinfo: String,
    present: bool,
    /// libpfm4 may be run on it (it crashes on a file with nothing to read).
    oracle: bool,
}

fn case(what: &'static str, cpuinfo: impl Into<String>, present: bool) -> Case {
    Case {
        what,
        cpuinfo: cpuinfo.into(),
        present,
        oracle: true,
    }
}

fn cases() -> Vec<Case> {
    let long = |at: usize| format!("cpu model\t\t: {}MIPS 74K\n", "x".repeat(at));
    vec![
        case("BCM4716 router", BCM4716, true),
        case(
            "74Kc, newer kernel",
            cpuinfo("Broadcom BCM4716 chip rev 1 pkg 10", "MIPS 74Kc V4.0", 1),
            true,
        ),
        case(
            "74Kf",
            cpuinfo("MIPS Malta", "MIPS 74Kf V4.12  FPU V0.0", 1),
            true,
        ),
        case(
            "74Kc, QCA9558",
            cpuinfo("Qualcomm Atheros QCA9558 ver 1 rev 0", "MIPS 74Kc V5.0", 1),
            true,
        ),
        case(
            "24Kc",
            cpuinfo("Atheros AR9330 rev 1", "MIPS 24Kc V7.4", 1),
            false,
        ),
        case("1004Kc", cpuinfo("MT7621", "MIPS 1004Kc V2.15", 4), false),
        case(
            "interAptiv",
            cpuinfo("MIPS Malta", "MIPS interAptiv (multi) V2.0  FPU V2.0", 2),
            false,
        ),
        case(
            "BMIPS4380",
            cpuinfo("BCM7425B0 STB platform", "Broadcom BMIPS4380 V0.1", 2),
            false,
        ),
        case(
            "Octeon",
            cpuinfo("EdgeRouter Lite", "Cavium Octeon+ V0.1", 2),
            false,
        ),
        case(
            "Loongson",
            cpuinfo(
                "generic-loongson-machine",
                "ICT Loongson-3 V0.13  FPU V0.1",
                4,
            ),
            false,
        ),
        case(
            "74K named inside",
            "cpu model\t: Broadcom BMIPS 74K\n",
            true,
        ),
        case("lower case", "cpu model\t: mips 74k\n", false),
        case("key only begins with it", "cpu models\t: MIPS 74K\n", true),
        case(
            "no space after the colon",
            "cpu model:MIPS 74K V4.0\n",
            false,
        ),
        case(
            "no space, a spare character",
            "cpu model:xMIPS 74K V4.0\n",
            true,
        ),
        case(
            "a line without a colon",
            "system type : BCM4716\nprocessor\ncpu model : MIPS 74K\n",
            false,
        ),
        case("blank lines first", "\n\ncpu model : MIPS 74K\n", true),
        case(
            "CRLF",
            "system type : BCM4716\r\ncpu model : MIPS 74K V4.0\r\n",
            true,
        ),
        case(
            "CPU model upper case",
            "CPU model : MIPS 74K\nVCEI exceptions : no\n",
            false,
        ),
        case(
            "no cpu model, last value",
            "system type : x\nsomething : MIPS 74K box\n",
            true,
        ),
        case(
            "no cpu model, last value other",
            "something : MIPS 74K box\nother : no\n",
            false,
        ),
        case(
            "model on a last line without newline",
            "system type : x\ncpu model : MIPS 74K",
            false,
        ),
        case(
            "partial last line keeps the value",
            "a : MIPS 74K\nxy",
            true,
        ),
        case(
            "partial last line clobbers it",
            "a : MIPS 74K\nxyzab",
            false,
        ),
        case("cut at 1023 bytes, fits", long(1015), true),
        case("cut at 1023 bytes, does not fit", long(1016), false),
        case(
            "first cpu model wins",
            "cpu model : MIPS 24Kc\ncpu model : MIPS 74Kc\n",
            false,
        ),
        case(
            "a 74K after other lines",
            "system type : x\nprocessor : 0\ncpu model : MIPS 74Kc\n",
            true,
        ),
        Case {
            what: "empty file",
            cpuinfo: String::new(),
            present: false,
            oracle: false,
        },
        Case {
            what: "blank lines only",
            cpuinfo: "\n\n".into(),
            present: false,
            oracle: false,
        },
    ]
}

/// The hardware PMUs pfmlib finds on a host (the OS PMUs left out).
fn present(h: Host) -> Vec<String> {
    Library::with_host(h)
        .active_pmus()
        .map(|p| p.name().to_string())
        .filter(|n| n != "perf" && n != "perf_raw")
        .collect()
}

#[test]
fn pfmlib_detects_the_74k() {
    let mut bad = Vec::new();
    let all = cases();
    for c in &all {
        let got = present(Host::from_cpuinfo(Arch::Mips, &c.cpuinfo));
        let want: Vec<String> = if c.present {
            vec!["mips_74k".into()]
        } else {
            Vec::new()
        };
        if got != want {
            bad.push(format!("{}: {got:?}, expected {want:?}", c.what));
        }
    }
    eprintln!("{} synthetic MIPS hosts", all.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn only_on_a_mips_host() {
    for arch in [
        Arch::X86,
        Arch::Aarch64,
        Arch::Arm,
        Arch::PowerPc,
        Arch::Sparc,
        Arch::Other,
    ] {
        assert!(
            present(Host::from_cpuinfo(arch, BCM4716)).is_empty(),
            "{arch:?}"
        );
        assert_eq!(Host::from_cpuinfo(arch, BCM4716).mips_cpu_model, None);
    }
    assert!(present(Host::none()).is_empty());
}

#[test]
fn the_host_names_the_model() {
    let h = Host::from_cpuinfo(Arch::Mips, BCM4716);
    assert_eq!(h.mips_cpu_model.as_deref(), Some("MIPS 74K V4.0"));
    // A new /proc/cpuinfo given to a MIPS host is read again.
    let h = h.with_file("/proc/cpuinfo", &cpuinfo("x", "MIPS 24Kc V7.4", 1));
    assert_eq!(h.mips_cpu_model.as_deref(), Some("MIPS 24Kc V7.4"));
    assert!(present(h).is_empty());
}

/// On a 74K: unprefixed names reach the 74K first, and perf_events gets
/// `PERF_TYPE_RAW` with the event number, bit 7 for the odd counters' events.
#[test]
fn encodings_on_a_74k() {
    let lib = Library::with_host(Host::from_cpuinfo(Arch::Mips, BCM4716));
    let e = lib
        .encode("CYCLES", Plm::DEFAULT, Os::None)
        .expect("cycles");
    assert_eq!(
        (e.codes.as_slice(), e.fstr.as_str()),
        (&[0xa, 0xf][..], "mips_74k::CYCLES:k=1:u=1:s=0:e=0")
    );
    for (ev, config) in [
        ("CYCLES", 0),
        ("INSTRUCTIONS", 1),
        ("PREDICTED_JR_31", 2),
        ("JR_31_MISPREDICTIONS", 0x82),
        ("WBB_25_50_FULL", 0xcc),
    ] {
        let e = lib.encode(ev, Plm::DEFAULT, Os::PerfEvent).expect(ev);
        let p = e.perf.expect("perf");
        assert_eq!((p.type_, p.config), (4, config), "{ev}");
    }
}

// ---- libpfm4 on the same files -------------------------------------------

/// Set in the child process: which build to load.
const CHILD: &str = "PFMLIB_DETECT_MIPS_CHILD";

/// Strings encoded on the detected 74K by both libraries: unprefixed names
/// (the 74K is looked up first), and the perf PMU, whose levels are then
/// the 74K's.
const ON_74K: &[&str] = &[
    "CYCLES",
    "cycles",
    "INSTRUCTIONS:u",
    "JR_31_MISPREDICTIONS:s:e",
    "WBB_25_50_FULL",
    "perf::cycles:h",
    "perf::PERF_COUNT_HW_INSTRUCTIONS:k",
    "PERF_COUNT_SW_CPU_CLOCK:u",
    "instructions:period=5",
    "NO_SUCH",
];

/// What an encoding gave, as one comparable line (each default level mask
/// of [`PLMS`], raw then perf_events).
fn line(
    s: &str,
    raw: impl Fn(u32) -> Result<(Vec<u64>, String), i32>,
    perf: impl Fn(u32) -> Result<(u32, u64, [bool; 3], String), i32>,
) -> String {
    let mut out = format!("ENC {s}:");
    for plm in PLMS {
        out += &match raw(plm.bits()) {
            Ok((codes, fstr)) => format!(" | raw {codes:x?} {fstr}"),
            Err(e) => format!(" | raw error {e}"),
        };
        out += &match perf(plm.bits()) {
            Ok((ty, config, excl, fstr)) => {
                format!(" | perf type {ty} config {config:#x} excl {excl:?} {fstr}")
            }
            Err(e) => format!(" | perf error {e}"),
        };
    }
    out
}

/// The default level masks the encodings are asked with.
const PLMS: [Plm; 3] = [Plm::DEFAULT, Plm::PLM3, Plm::ALL];

/// In a child process (inside its own mount namespace, with our file over
/// the system's `/proc/cpuinfo`): loads one mips build and prints what it
/// finds.
#[test]
fn libpfm4_child() {
    let Some(build) = std::env::var_os(CHILD) else {
        return;
    };
    let build = if build == "head-mips" {
        Build::HeadMips
    } else {
        Build::Mips
    };
    let o = common::arm::oracle(build).expect("the oracle");
    for s in ON_74K {
        let raw = |plm| o.encode_raw(s, plm).map(|e| (e.codes, e.fstr));
        let perf = |plm| {
            o.encode_perf(s, plm, true).map(|e| {
                let p = e.perf.expect("perf fields");
                let excl = [p.exclude_user, p.exclude_kernel, p.exclude_hv];
                (p.type_, p.config, excl, e.fstr)
            })
        };
        println!("{}", line(s, raw, perf));
    }
    for p in o.pmus() {
        println!("PMU {} {} {}", p.id, p.name, p.is_present);
        if p.is_present && p.name != "perf" && p.name != "perf_raw" {
            println!("PRESENT {}", p.name);
        }
    }
    println!("DONE");
}

/// Runs libpfm4 (`build`) on `cpuinfo` in a child process: its present
/// MIPS PMUs, or `None` when it did not finish.
fn libpfm4_on(build: Build, cpuinfo: &Path) -> Option<Vec<String>> {
    libpfm4_lines(build, cpuinfo, "PRESENT ")
}

/// The lines after `tag` that the child prints for `cpuinfo`.
fn libpfm4_lines(build: Build, cpuinfo: &Path, tag: &str) -> Option<Vec<String>> {
    let name = if build.is_head() { "head-mips" } else { "mips" };
    let mounts = [(cpuinfo, "/proc/cpuinfo")];
    let text = common::namespace::test_stdout(&mounts, "libpfm4_child", &[(CHILD, name)])?;
    if !text.contains("DONE") {
        eprintln!("libpfm4 child did not finish");
        return None;
    }
    Some(common::namespace::tagged(&text, tag))
}

fn compare_with_libpfm4(build: Build) {
    if common::arm::namespace_oracle(build).is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("pfmlib-detect-{build:?}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut bad = Vec::new();
    let all: Vec<Case> = cases().into_iter().filter(|c| c.oracle).collect();
    for (i, c) in all.iter().enumerate() {
        let file = dir.join(format!("cpuinfo{i}"));
        std::fs::write(&file, &c.cpuinfo).expect("write");
        let theirs = libpfm4_on(build, &file).expect("libpfm4 ran");
        let ours = present(Host::from_cpuinfo(Arch::Mips, &c.cpuinfo));
        if ours != theirs {
            bad.push(format!("{}: pfmlib {ours:?} / libpfm4 {theirs:?}", c.what));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{build:?}: {} synthetic hosts compared with libpfm4, {} differ",
        all.len(),
        bad.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn libpfm4_mips_detects_the_same() {
    compare_with_libpfm4(Build::Mips);
}

#[test]
fn libpfm4_head_mips_detects_the_same() {
    compare_with_libpfm4(Build::HeadMips);
}

/// The C library's rule (`Options::host_build_only`): on a MIPS host the
/// PMUs of libpfm4's mips build, with its ids, and present as there.
fn host_build_matches(build: Build) {
    if common::arm::namespace_oracle(build).is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("pfmlib-build-{build:?}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("cpuinfo");
    std::fs::write(&file, BCM4716).expect("write");
    let theirs = libpfm4_lines(build, &file, "PMU ").expect("libpfm4 ran");
    // The same machine with perf_events (as the system libpfm4 ran on).
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("proc/sys/kernel")).expect("tree");
    std::fs::write(root.join("proc/cpuinfo"), BCM4716).expect("write");
    std::fs::write(root.join("proc/sys/kernel/perf_event_paranoid"), "2\n").expect("write");
    let options = pfmlib::Options::new().host_build_only(true);
    let lib = Library::new(Host::from_root(Arch::Mips, root), options);
    let ours: Vec<String> = lib
        .pmus()
        .map(|p| format!("{} {} {}", p.id(), p.name(), p.info().is_present))
        .collect();
    let their_enc = libpfm4_lines(build, &file, "ENC ").expect("libpfm4 ran");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(ours, theirs, "{build:?}");
    let our_enc: Vec<String> = ON_74K
        .iter()
        .map(|s| {
            let raw = |plm| {
                lib.encode(s, Plm::from_bits(plm).expect("levels"), Os::None)
                    .map(|e| (e.codes, e.fstr))
                    .map_err(|e| e.code())
            };
            let perf = |plm| {
                lib.encode(s, Plm::from_bits(plm).expect("levels"), Os::PerfEventExt)
                    .map(|e| {
                        let p = e.perf.expect("perf fields");
                        let excl = [p.exclude_user, p.exclude_kernel, p.exclude_hv];
                        (p.type_, p.config, excl, e.fstr)
                    })
                    .map_err(|e| e.code())
            };
            line(s, raw, perf)
        })
        .map(|l| l.trim_start_matches("ENC ").to_string())
        .collect();
    assert_eq!(our_enc, their_enc, "{build:?}");
    eprintln!(
        "{build:?}: {} PMUs, as libpfm4's build; {} strings encoded alike",
        ours.len(),
        our_enc.len()
    );
}

#[test]
fn the_host_build_is_libpfm4s_mips_build() {
    host_build_matches(Build::Mips);
    host_build_matches(Build::HeadMips);
}
