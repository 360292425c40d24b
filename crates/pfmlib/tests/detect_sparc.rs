//! SPARC detection with synthetic hosts: `/proc/cpuinfo` files of our own
//! making, one for every `pmu` value a Linux sparc64 kernel writes
//! (`sparc_pmu_type` of `arch/sparc/kernel/cpu.c`: the UltraSPARC I to IV+
//! and the sun4v chips), and for libpfm4's reading quirks (key prefixes,
//! values cut by position, the last value kept when no key matches, a last
//! line without a newline). pfmlib must find exactly the PMUs listed; and
//! where the sparc oracles are available and this system allows
//! unprivileged mount namespaces, libpfm4 itself is run on the same files
//! (bind-mounted over `/proc/cpuinfo` in a child process of its own, one
//! build per process) and must find the same PMUs: upstream's build
//! (`PFMLIB_LIBPFM4_HEAD_SPARC`) and 4.13's (`PFMLIB_LIBPFM4_SPARC`), with
//! the hosts whose detection changed upstream named (`UPSTREAM_DETECTION`).

mod common;

use common::arm::Build;
use pfmlib::{Arch, Host, Library, Os, Plm};
use std::collections::BTreeSet;
use std::path::Path;

/// A `/proc/cpuinfo` as a Linux sparc64 kernel writes it (`show_cpuinfo`),
/// `n` CPUs.
fn cpuinfo(cpu: &str, fpu: &str, pmu: &str, sun4v: bool, n: usize) -> String {
    let (ty, mmu) = if sun4v {
        ("sun4v", "Hypervisor (sun4v)")
    } else {
        ("sun4u", "Cheetah+")
    };
    let mut s = format!(
        "cpu\t\t: {cpu}\nfpu\t\t: {fpu}\npmu\t\t: {pmu}\nprom\t\t: OBP 4.30.4 2009/08/19 07:25\n\
         type\t\t: {ty}\nncpus probed\t: {n}\nncpus active\t: {n}\nD$ parity tl1\t: 0\n\
         I$ parity tl1\t: 0\ncpucaps\t\t: flush,stbar,swap,muldiv,v9,mul32,div32,v8plus,vis,vis2\n"
    );
    for i in 0..n {
        s += &format!("Cpu{i}ClkTck\t: 000000004a817c80\n");
    }
    s += &format!("MMU Type\t: {mmu}\nMMU PGSZs\t: 8K,64K,512K,4MB\nState:\n");
    for i in 0..n {
        s += &format!("CPU{i}:\t\tonline\n");
    }
    s
}

/// One synthetic machine and the SPARC PMUs that must be present on it.
struct Case {
    what: &'static str,
    arch: Arch,
    cpuinfo: String,
    present: &'static [&'static str],
    /// libpfm4 reads from a null pointer on this file (no line with a
    /// value at all): not run there.
    crashes_libpfm4: bool,
}

fn case(what: &'static str, cpuinfo: String, present: &'static [&'static str]) -> Case {
    Case {
        what,
        arch: Arch::Sparc,
        cpuinfo,
        present,
        crashes_libpfm4: false,
    }
}

/// A machine of each CPU the kernel names (`cpu`, `fpu`, `pmu` lines).
fn machine_cases() -> Vec<Case> {
    let m = |what, cpu: &str, fpu: &str, pmu: &str, sun4v, present| {
        case(what, cpuinfo(cpu, fpu, pmu, sun4v, 4), present)
    };
    let u = "integrated FPU";
    vec![
        m(
            "UltraSPARC I",
            "TI UltraSparc I   (SpitFire)",
            &format!("UltraSparc I {u}"),
            "ultra12",
            false,
            &["ultra12"],
        ),
        m(
            "UltraSPARC II",
            "TI UltraSparc II  (BlackBird)",
            &format!("UltraSparc II {u}"),
            "ultra12",
            false,
            &["ultra12"],
        ),
        m(
            "UltraSPARC IIi",
            "TI UltraSparc IIi (Sabre)",
            &format!("UltraSparc IIi {u}"),
            "ultra12",
            false,
            &["ultra12"],
        ),
        m(
            "UltraSPARC IIe",
            "TI UltraSparc IIe (Hummingbird)",
            &format!("UltraSparc IIe {u}"),
            "ultra12",
            false,
            &["ultra12"],
        ),
        m(
            "UltraSPARC III",
            "TI UltraSparc III (Cheetah)",
            &format!("UltraSparc III {u}"),
            "ultra3",
            false,
            &["ultra3"],
        ),
        m(
            "UltraSPARC III+",
            "TI UltraSparc III+ (Cheetah+)",
            &format!("UltraSparc III+ {u}"),
            "ultra3+",
            false,
            &["ultra3p"],
        ),
        m(
            "UltraSPARC IV",
            "TI UltraSparc IV (Jaguar)",
            &format!("UltraSparc IV {u}"),
            "ultra3+",
            false,
            &["ultra3p"],
        ),
        m(
            "UltraSPARC IIIi",
            "TI UltraSparc IIIi (Jalapeno)",
            &format!("UltraSparc IIIi {u}"),
            "ultra3i",
            false,
            &["ultra3i"],
        ),
        m(
            "UltraSPARC IIIi+",
            "TI UltraSparc IIIi+ (Serrano)",
            &format!("UltraSparc IIIi+ {u}"),
            "ultra3i",
            false,
            &["ultra3i"],
        ),
        m(
            "UltraSPARC IV+",
            "TI UltraSparc IV+ (Panther)",
            &format!("UltraSparc IV+ {u}"),
            "ultra4+",
            false,
            &["ultra4p"],
        ),
        m(
            "UltraSPARC T1",
            "UltraSparc T1 (Niagara)",
            "UltraSparc T1 integrated FPU",
            "niagara",
            true,
            &["niagara1"],
        ),
        m(
            "UltraSPARC T2",
            "UltraSparc T2 (Niagara2)",
            "UltraSparc T2 integrated FPU",
            "niagara2",
            true,
            &["niagara2"],
        ),
        m(
            "UltraSPARC T3",
            "UltraSparc T3 (Niagara3)",
            "UltraSparc T3 integrated FPU",
            "niagara3",
            true,
            &[],
        ),
        m(
            "UltraSPARC T4",
            "UltraSparc T4 (Niagara4)",
            "UltraSparc T4 integrated FPU",
            "niagara4",
            true,
            &[],
        ),
        m(
            "UltraSPARC T5",
            "UltraSparc T5 (Niagara5)",
            "UltraSparc T5 integrated FPU",
            "niagara5",
            true,
            &[],
        ),
        m(
            "SPARC M6",
            "SPARC-M6",
            "SPARC-M6 integrated FPU",
            "sparc-m6",
            true,
            &[],
        ),
        m(
            "SPARC M7",
            "SPARC-M7",
            "SPARC-M7 integrated FPU",
            "sparc-m7",
            true,
            &[],
        ),
        m(
            "SPARC S7",
            "SPARC-SN",
            "SPARC-SN integrated FPU",
            "sparc-sn",
            true,
            &[],
        ),
        m(
            "SPARC64 X",
            "SPARC64-X",
            "SPARC64-X integrated FPU",
            "sparc64-x",
            true,
            &[],
        ),
        m(
            "unknown sun4u",
            "Unknown CPU",
            "Unknown FPU",
            "Unknown PMU",
            false,
            &[],
        ),
        m(
            "unknown sun4v",
            "Unknown SUN4V CPU",
            "Unknown SUN4V FPU",
            "Unknown SUN4V PMU",
            true,
            &[],
        ),
    ]
}

/// libpfm4's reading of the file (`pfmlib_getcpuinfo_attr`).
fn quirk_cases() -> Vec<Case> {
    let t2 = cpuinfo(
        "UltraSparc T2 (Niagara2)",
        "UltraSparc T2 integrated FPU",
        "niagara2",
        true,
        2,
    );
    vec![
        case("one space, no tab", "cpu : x\npmu: ultra3\n".into(), &["ultra3"]),
        case("no space after the colon", "pmu:ultra3\n".into(), &[]),
        case("two spaces after the colon", "pmu:  ultra3\n".into(), &[]),
        case("trailing space", "pmu\t\t: ultra3 \n".into(), &[]),
        case("carriage return", "pmu\t\t: ultra3\r\n".into(), &[]),
        // Not the key, but the last value read.
        case("upper case", "PMU\t\t: ultra3\n".into(), &["ultra3"]),
        case("upper case, more lines", "PMU\t\t: ultra3\nprom\t\t: OBP\n".into(), &[]),
        case("a key that starts with pmu", "pmu_type\t: niagara2\n".into(), &["niagara2"]),
        case("the first pmu line wins", "pmu\t: niagara\npmu\t: niagara2\n".into(), &["niagara1"]),
        case(
            "no pmu line: the last value stays",
            "cpu\t\t: UltraSparc IIIi\ntype\t\t: ultra3i\n\n".into(),
            &["ultra3i"],
        ),
        case("a line without a colon first", format!("no colon here\n{t2}"), &[]),
        case(
            "a last pmu line without a newline",
            "cpu\t\t: UltraSparc T2 (Niagara2)\nfpu\t\t: UltraSparc T2 integrated FPU\npmu\t\t: niagara2".into(),
            &[],
        ),
        case(
            "a last line without a newline over a value",
            "a: ultra3\nxyzniagara2".into(),
            &["niagara2"],
        ),
        case(
            "a sparc32 kernel (no pmu line)",
            "cpu\t\t: Fujitsu  MB86904\nfpu\t\t: Lsi Logic/Meiko L64804 or compatible\ntype\t\t: sun4m\nState:\nCPU0:\t\tonline\n".into(),
            &[],
        ),
        Case {
            crashes_libpfm4: true,
            ..case("an empty file", String::new(), &[])
        },
        Case {
            crashes_libpfm4: true,
            ..case("blank lines only", "\n\n".into(), &[])
        },
    ]
}

/// The SPARC PMUs pfmlib finds on a host (the OS PMUs left out).
fn pfmlib_present(h: Host) -> BTreeSet<String> {
    Library::with_host(h)
        .active_pmus()
        .map(|p| p.name().to_string())
        .filter(|n| n != "perf" && n != "perf_raw")
        .collect()
}

#[test]
fn pfmlib_detects_every_sparc() {
    let mut bad = Vec::new();
    let cases: Vec<Case> = machine_cases().into_iter().chain(quirk_cases()).collect();
    for c in &cases {
        let got = pfmlib_present(Host::from_cpuinfo(c.arch, &c.cpuinfo));
        let want: BTreeSet<String> = c.present.iter().map(|s| s.to_string()).collect();
        if got != want {
            bad.push(format!("{}: {got:?}, expected {want:?}", c.what));
        }
    }
    eprintln!("{} synthetic SPARC hosts", cases.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn sparc_pmus_are_never_present_elsewhere() {
    let t2 = cpuinfo(
        "UltraSparc T2 (Niagara2)",
        "UltraSparc T2 integrated FPU",
        "niagara2",
        true,
        1,
    );
    for arch in [
        Arch::X86,
        Arch::Aarch64,
        Arch::PowerPc,
        Arch::Mips,
        Arch::Other,
    ] {
        let h = Host::from_cpuinfo(arch, &t2);
        assert_eq!(h.sparc_pmu, None, "{arch:?}");
        assert!(pfmlib_present(h).is_empty(), "{arch:?}");
    }
    assert!(pfmlib_present(Host::none()).is_empty());
}

#[test]
fn the_host_names_the_pmu() {
    let h = Host::from_cpuinfo(
        Arch::Sparc,
        &cpuinfo(
            "TI UltraSparc IV+ (Panther)",
            "UltraSparc IV+ integrated FPU",
            "ultra4+",
            false,
            8,
        ),
    );
    assert_eq!(h.sparc_pmu.as_deref(), Some("ultra4+"));
    assert_eq!(
        Arch::from_cpuinfo(&cpuinfo("x", "y", "ultra3", false, 1)),
        Some(Arch::Sparc)
    );
    // The PMU found is the one event strings without a prefix resolve to.
    let lib = Library::with_host(h);
    let ev = lib
        .find_event("Re_DC_missovhd")
        .expect("an event of ultra4p");
    assert_eq!(ev.pmu().name(), "ultra4p");
}

const CHILD: &str = "PFMLIB_DETECT_SPARC_CHILD";

/// In a child process (inside its own mount namespace, with our file over
/// the system's `/proc/cpuinfo`): loads one sparc build and prints the
/// PMUs it finds.
#[test]
fn libpfm4_child() {
    let Some(build) = std::env::var_os(CHILD) else {
        return;
    };
    let build = if build == "head" {
        Build::HeadSparc
    } else {
        Build::Sparc
    };
    let o = common::arm::oracle(build).expect("the oracle");
    for p in o.pmus() {
        if p.is_present && p.name != "perf" && p.name != "perf_raw" {
            println!("PRESENT {}", p.name);
        }
    }
    let strings = std::env::var(CHILD_STRINGS).unwrap_or_default();
    for s in strings.split('\n').filter(|s| !s.is_empty()) {
        let raw = o
            .encode_raw(s, Plm::DEFAULT.bits())
            .map(|e| (e.codes, e.fstr));
        let perf = o.encode_perf(s, Plm::DEFAULT.bits(), true).map(|e| {
            let p = e.perf.expect("perf fields");
            let x = [p.exclude_user, p.exclude_kernel, p.exclude_hv];
            (p.type_, p.config, x, e.fstr)
        });
        println!("ENC {}", outcome(s, raw, perf));
    }
}

/// Set in the child: the strings to encode, one a line.
const CHILD_STRINGS: &str = "PFMLIB_DETECT_SPARC_STRINGS";

/// Raw codes and string, then perf type, config, exclude bits (user,
/// kernel, hypervisor) and string.
type Raw = Result<(Vec<u64>, String), i32>;
type Perf = Result<(u32, u64, [bool; 3], String), i32>;

/// What an encoding gave in `PFM_OS_NONE` and `PFM_OS_PERF_EVENT_EXT`, as
/// one comparable line.
fn outcome(s: &str, raw: Raw, perf: Perf) -> String {
    let raw = match raw {
        Ok((codes, fstr)) => format!("{codes:x?} {fstr}"),
        Err(code) => format!("error {code}"),
    };
    let perf = match perf {
        Ok((ty, config, x, fstr)) => format!("type {ty} config {config:#x} excl {x:?} {fstr}"),
        Err(code) => format!("error {code}"),
    };
    format!("{s}: {raw} / {perf}")
}

/// pfmlib's [`outcome`] of each string on host `h`.
fn pfmlib_encodings(h: &Host, strings: &[&str]) -> Vec<String> {
    let lib = Library::with_host(h.clone());
    strings
        .iter()
        .map(|s| {
            let raw = lib
                .encode(s, Plm::DEFAULT, Os::None)
                .map(|e| (e.codes, e.fstr))
                .map_err(|e| e.code());
            let perf = lib
                .encode(s, Plm::DEFAULT, Os::PerfEventExt)
                .map(|e| {
                    let p = e.perf.expect("perf fields");
                    let x = [p.exclude_user, p.exclude_kernel, p.exclude_hv];
                    (p.type_, p.config, x, e.fstr)
                })
                .map_err(|e| e.code());
            outcome(s, raw, perf)
        })
        .collect()
}

/// Runs libpfm4 (`build`) on `cpuinfo` in a child process; the SPARC PMUs
/// it finds and its encodings of `strings`, or `None` when the child failed.
fn libpfm4_on(
    build: Build,
    cpuinfo: &Path,
    strings: &[&str],
) -> Option<(BTreeSet<String>, Vec<String>)> {
    let joined = strings.join("\n");
    let env = [
        (CHILD, if build.is_head() { "head" } else { "4.13" }),
        (CHILD_STRINGS, joined.as_str()),
    ];
    let mounts = [(cpuinfo, "/proc/cpuinfo")];
    let text = common::namespace::test_stdout(&mounts, "libpfm4_child", &env)?;
    let present = common::namespace::tagged(&text, "PRESENT ");
    let enc = common::namespace::tagged(&text, "ENC ");
    Some((present, enc))
}

/// Hosts whose detection changed upstream: pfmlib follows upstream, 4.13
/// answers otherwise. A 4.13 comparison requires them to differ still
/// (each by name, with why); the upstream one compares them as any other.
const UPSTREAM_DETECTION: &[(&str, &str)] = &[(
    "a last pmu line without a newline",
    "upstream's pfmlib_getl no longer ends a last line without a newline with a NUL, \
     so that line is never read whole (4.13: its bytes end where the previous value began)",
)];

fn compare_with_libpfm4(build: Build) {
    if common::arm::namespace_oracle(build).is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("pfmlib-detect-{build:?}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut bad = Vec::new();
    let (mut n, mut listed) = (0, 0);
    let cases = machine_cases().into_iter().chain(quirk_cases());
    for (i, c) in cases.enumerate().filter(|(_, c)| !c.crashes_libpfm4) {
        let file = dir.join(format!("cpuinfo{i}"));
        std::fs::write(&file, &c.cpuinfo).expect("write");
        let (theirs, _) = libpfm4_on(build, &file, &[]).expect("libpfm4 ran");
        let ours = pfmlib_present(Host::from_cpuinfo(c.arch, &c.cpuinfo));
        let changed = UPSTREAM_DETECTION.iter().find(|(w, _)| *w == c.what);
        match changed.filter(|_| !build.is_head()) {
            Some((_, why)) if ours == theirs => bad.push(format!(
                "{}: listed as changed upstream ({why}) but 4.13 answers as pfmlib: {ours:?}",
                c.what
            )),
            Some(_) => listed += 1,
            None if ours != theirs => {
                bad.push(format!("{}: pfmlib {ours:?} / libpfm4 {theirs:?}", c.what))
            }
            None => {}
        }
        n += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{build:?}: {n} synthetic hosts compared with libpfm4, {} differ, {listed} as UPSTREAM_DETECTION lists",
        bad.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn libpfm4_head_sparc_detects_the_same() {
    compare_with_libpfm4(Build::HeadSparc);
}

#[test]
fn libpfm4_sparc_detects_the_same() {
    compare_with_libpfm4(Build::Sparc);
}

/// Strings encoded on an active SPARC host: unprefixed names (the host's
/// PMU first, then `perf`), the perf_events PMU (whose levels are the
/// active PMU's), and levels the PMU cannot filter.
const ACTIVE_STRINGS: &[&str] = &[
    "Instr_cnt",
    "instr_cnt:u",
    "Instr_cnt:Loads:h",
    "Cycle_cnt:k=1:u=1",
    "Dispatch0_rs_mispred",
    "All_strands_idle:k:u=0",
    "cycles",
    "cycles:h",
    "perf::instructions:u:k:h",
    "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS:h=1",
    "cpu-clock:h",
    "ultra12::Cycle_cnt:h",
    "niagara2::tlb_miss:ITLB:DTLB:k",
];

/// A recorded host of the machine `cpuinfo` describes, with perf_events
/// (a `perf_event_paranoid` file), as libpfm4 sees this system's.
fn recorded(cpuinfo: &str) -> (tempfile_dir::Dir, Host) {
    let d = tempfile_dir::Dir::new("sparc-active");
    std::fs::create_dir_all(d.0.join("proc/sys/kernel")).expect("mkdir");
    std::fs::write(d.0.join("proc/cpuinfo"), cpuinfo).expect("write");
    std::fs::write(d.0.join("proc/sys/kernel/perf_event_paranoid"), "2\n").expect("write");
    let h = Host::from_root(Arch::Sparc, d.0.clone());
    (d, h)
}

/// A temporary directory removed on drop.
mod tempfile_dir {
    /// The directory.
    pub struct Dir(pub std::path::PathBuf);

    impl Dir {
        pub fn new(name: &str) -> Dir {
            let p = std::env::temp_dir().join(format!(
                "pfmlib-{name}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).expect("mkdir");
            Dir(p)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn compare_active_with_libpfm4(build: Build) {
    if common::arm::namespace_oracle(build).is_none() {
        return;
    }
    let mut bad = Vec::new();
    let machines = [
        cpuinfo(
            "UltraSparc T2 (Niagara2)",
            "UltraSparc T2 integrated FPU",
            "niagara2",
            true,
            4,
        ),
        cpuinfo(
            "TI UltraSparc III (Cheetah)",
            "UltraSparc III integrated FPU",
            "ultra3",
            false,
            2,
        ),
        cpuinfo(
            "TI UltraSparc IV+ (Panther)",
            "UltraSparc IV+ integrated FPU",
            "ultra4+",
            false,
            2,
        ),
    ];
    for text in machines {
        let (dir, h) = recorded(&text);
        let file = dir.0.join("proc/cpuinfo");
        let (_, theirs) = libpfm4_on(build, &file, ACTIVE_STRINGS).expect("libpfm4 ran");
        let ours = pfmlib_encodings(&h, ACTIVE_STRINGS);
        assert_eq!(theirs.len(), ours.len(), "{theirs:?}");
        for (a, b) in ours.iter().zip(&theirs) {
            // 4.13 selects Dispatch0_rs_mispred on PIC1 (libpfm4_diff_sparc.rs).
            let expected = !build.is_head() && a.starts_with("Dispatch0_rs_mispred:");
            if a != b && !expected {
                bad.push(format!(
                    "{}:\n  pfmlib  {a}\n  libpfm4 {b}",
                    h.sparc_pmu.clone().unwrap_or_default()
                ));
            }
        }
    }
    eprintln!(
        "{build:?}: {} strings on 3 active SPARC hosts compared with libpfm4, {} differ",
        ACTIVE_STRINGS.len(),
        bad.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn libpfm4_head_sparc_encodes_the_same_on_active_hosts() {
    compare_active_with_libpfm4(Build::HeadSparc);
}

#[test]
fn libpfm4_sparc_encodes_the_same_on_active_hosts() {
    compare_active_with_libpfm4(Build::Sparc);
}
