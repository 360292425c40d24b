//! The C ABI to the byte: every field offset and size, every bit field's
//! position and the constants of `include/perfmon/*.h`, as the C compiler
//! sees them (`tests/c/layout.c` prints `offsetof`/`sizeof`), against the
//! library's Rust definitions; and, where libpfm4's source package is at
//! hand, the same program compiled against libpfm4's own headers prints
//! the same.

mod common;

use pfm::abi::{
    self, bits, perf_event_attr as pa, AttrInfo, EventInfo, PerfEncodeArg, PmuEncodeArg, PmuInfo,
};
use std::collections::BTreeMap;
use std::mem::{offset_of, size_of};
use std::process::Command;

/// `STRUCT FIELD` → (offset or "bits word offset", size or word value).
fn layout(include: &std::path::Path, name: &str) -> (String, BTreeMap<String, (String, u64)>) {
    let dir = common::work_dir("layout");
    let exe = dir.join(name);
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/layout.c");
    let lib = common::our_lib_dir().join("libpfm.so.4");
    common::compile(&exe, &[src], include, &lib, &[]);
    let out = Command::new(&exe).output().expect("run layout");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let n = w.len();
        let (key, first) = if w[n - 3] == "bits" {
            (w[..n - 3].join(" "), format!("bits@{}", w[n - 2]))
        } else {
            (w[..n - 2].join(" "), w[n - 2].to_string())
        };
        let value = w[n - 1].parse::<i64>().unwrap_or_else(|_| panic!("{line}")) as u64;
        m.insert(key, (first, value));
    }
    (text, m)
}

fn field(m: &BTreeMap<String, (String, u64)>, key: &str) -> (usize, usize) {
    let (off, size) = m.get(key).unwrap_or_else(|| panic!("{key} not printed"));
    (off.parse().unwrap(), *size as usize)
}

macro_rules! check_fields {
    ($m:expr, $cname:literal, $ty:ty, [$(($cf:literal, $rf:ident)),* $(,)?]) => {
        $(
            let (off, size) = field($m, concat!($cname, " ", $cf));
            assert_eq!(off, offset_of!($ty, $rf), "offset of {}.{}", $cname, $cf);
            let rsize = {
                let v: $ty = unsafe_free_zero();
                std::mem::size_of_val(&v.$rf)
            };
            assert_eq!(size, rsize, "size of {}.{}", $cname, $cf);
        )*
        assert_eq!(field($m, concat!($cname, " sizeof")).1, size_of::<$ty>(), "sizeof {}", $cname);
    };
}

/// A zeroed value of the (plain old data) structures, without `unsafe`:
/// each has a constructor-free default through copying its fields.
fn unsafe_free_zero<T: Zeroed>() -> T {
    T::zeroed()
}

trait Zeroed {
    fn zeroed() -> Self;
}

impl Zeroed for PmuInfo {
    fn zeroed() -> Self {
        PmuInfo {
            name: std::ptr::null(),
            desc: std::ptr::null(),
            size: 0,
            pmu: 0,
            type_: 0,
            nevents: 0,
            first_event: 0,
            max_encoding: 0,
            num_cntrs: 0,
            num_fixed_cntrs: 0,
            flags: 0,
        }
    }
}

impl Zeroed for EventInfo {
    fn zeroed() -> Self {
        EventInfo {
            name: std::ptr::null(),
            desc: std::ptr::null(),
            equiv: std::ptr::null(),
            size: 0,
            code: 0,
            pmu: 0,
            dtype: 0,
            idx: 0,
            nattrs: 0,
            reserved: 0,
            flags: 0,
        }
    }
}

impl Zeroed for AttrInfo {
    fn zeroed() -> Self {
        AttrInfo {
            name: std::ptr::null(),
            desc: std::ptr::null(),
            equiv: std::ptr::null(),
            size: 0,
            code: 0,
            type_: 0,
            idx: 0,
            ctrl: 0,
            flags: 0,
            dfl_val64: 0,
        }
    }
}

impl Zeroed for PmuEncodeArg {
    fn zeroed() -> Self {
        PmuEncodeArg {
            codes: std::ptr::null_mut(),
            fstr: std::ptr::null_mut(),
            size: 0,
            count: 0,
            idx: 0,
        }
    }
}

impl Zeroed for PerfEncodeArg {
    fn zeroed() -> Self {
        PerfEncodeArg {
            attr: std::ptr::null_mut(),
            fstr: std::ptr::null_mut(),
            size: 0,
            idx: 0,
            cpu: 0,
            flags: 0,
            pad0: 0,
        }
    }
}

fn bitfield(m: &BTreeMap<String, (String, u64)>, key: &str, word_at: usize) -> u64 {
    let (at, v) = m.get(key).unwrap_or_else(|| panic!("{key} not printed"));
    assert_eq!(at, &format!("bits@{word_at}"), "{key}: word offset");
    *v
}

#[test]
fn structures_match_the_headers_byte_for_byte() {
    let (_, m) = layout(&common::include_dir(), "layout-ours");
    let m = &m;
    check_fields!(
        m,
        "pfm_pmu_info_t",
        PmuInfo,
        [
            ("name", name),
            ("desc", desc),
            ("size", size),
            ("pmu", pmu),
            ("type", type_),
            ("nevents", nevents),
            ("first_event", first_event),
            ("max_encoding", max_encoding),
            ("num_cntrs", num_cntrs),
            ("num_fixed_cntrs", num_fixed_cntrs),
        ]
    );
    check_fields!(
        m,
        "pfm_event_info_t",
        EventInfo,
        [
            ("name", name),
            ("desc", desc),
            ("equiv", equiv),
            ("size", size),
            ("code", code),
            ("pmu", pmu),
            ("dtype", dtype),
            ("idx", idx),
            ("nattrs", nattrs),
            ("reserved", reserved),
        ]
    );
    check_fields!(
        m,
        "pfm_event_attr_info_t",
        AttrInfo,
        [
            ("name", name),
            ("desc", desc),
            ("equiv", equiv),
            ("size", size),
            ("code", code),
            ("type", type_),
            ("idx", idx),
            ("ctrl", ctrl),
            ("dfl_val64", dfl_val64),
        ]
    );
    check_fields!(
        m,
        "pfm_pmu_encode_arg_t",
        PmuEncodeArg,
        [
            ("codes", codes),
            ("fstr", fstr),
            ("size", size),
            ("count", count),
            ("idx", idx),
        ]
    );
    check_fields!(
        m,
        "pfm_perf_encode_arg_t",
        PerfEncodeArg,
        [
            ("attr", attr),
            ("fstr", fstr),
            ("size", size),
            ("idx", idx),
            ("cpu", cpu),
            ("flags", flags),
            ("pad0", pad0),
        ]
    );
    // The other members of the attribute info's union share its place.
    for f in ["dfl_str", "dfl_bool", "dfl_int"] {
        assert_eq!(
            field(m, &format!("pfm_event_attr_info_t {f}")).0,
            offset_of!(AttrInfo, dfl_val64)
        );
    }
    // Bit fields: the word and the bits each occupies.
    let flags_at = offset_of!(PmuInfo, flags);
    assert_eq!(
        bitfield(m, "pfm_pmu_info_t is_present", flags_at),
        u64::from(bits::PMU_IS_PRESENT)
    );
    assert_eq!(
        bitfield(m, "pfm_pmu_info_t is_dfl", flags_at),
        u64::from(bits::PMU_IS_DFL)
    );
    let flags_at = offset_of!(EventInfo, flags);
    assert_eq!(
        bitfield(m, "pfm_event_info_t is_precise", flags_at),
        u64::from(bits::EVENT_IS_PRECISE)
    );
    assert_eq!(
        bitfield(m, "pfm_event_info_t is_speculative", flags_at),
        3u64 << bits::EVENT_SPEC_SHIFT
    );
    assert_eq!(
        bitfield(m, "pfm_event_info_t support_hw_smpl", flags_at),
        u64::from(bits::EVENT_HW_SMPL)
    );
    let flags_at = offset_of!(AttrInfo, flags);
    assert_eq!(
        bitfield(m, "pfm_event_attr_info_t is_dfl", flags_at),
        u64::from(bits::ATTR_IS_DFL)
    );
    assert_eq!(
        bitfield(m, "pfm_event_attr_info_t is_precise", flags_at),
        u64::from(bits::ATTR_IS_PRECISE)
    );
    assert_eq!(
        bitfield(m, "pfm_event_attr_info_t is_speculative", flags_at),
        3u64 << bits::ATTR_SPEC_SHIFT
    );
    assert_eq!(
        bitfield(m, "pfm_event_attr_info_t support_hw_smpl", flags_at),
        u64::from(bits::ATTR_HW_SMPL)
    );
    // The kernel's perf_event_attr, where the library writes.
    for (f, at) in [
        ("type", pa::TYPE),
        ("size", pa::SIZE),
        ("config", pa::CONFIG),
        ("sample_period", pa::SAMPLE_PERIOD),
        ("sample_freq", pa::SAMPLE_PERIOD),
        ("config1", pa::CONFIG1),
        ("config2", pa::CONFIG2),
        ("config3", pa::CONFIG3),
    ] {
        assert_eq!(
            field(m, &format!("struct perf_event_attr {f}")).0,
            at,
            "perf_event_attr.{f}"
        );
    }
    // The whole structure: the bytes an encoding fills (libpfm4's
    // PERF_ATTR_SIZE_VER8).
    assert_eq!(
        field(m, "struct perf_event_attr sizeof").1,
        pa::KNOWN,
        "sizeof struct perf_event_attr"
    );
    for (f, bit, width) in [
        ("pinned", pa::PINNED, 1),
        ("exclusive", pa::EXCLUSIVE, 1),
        ("exclude_user", pa::EXCLUDE_USER, 1),
        ("exclude_kernel", pa::EXCLUDE_KERNEL, 1),
        ("exclude_hv", pa::EXCLUDE_HV, 1),
        ("freq", pa::FREQ, 1),
        ("precise_ip", pa::PRECISE_IP, 2),
        ("exclude_host", pa::EXCLUDE_HOST, 1),
        ("exclude_guest", pa::EXCLUDE_GUEST, 1),
    ] {
        let v = bitfield(m, &format!("struct perf_event_attr {f}"), pa::FLAGS);
        assert_eq!(v, ((1u64 << width) - 1) << bit, "perf_event_attr.{f}");
    }
    // The mmapped counter page (the kernel's layout, libpfm4's names:
    // PAPI reads cap_usr_rdpmc): 1 KiB of header, then the ring's words.
    let mm = |f: &str| field(m, &format!("struct perf_event_mmap_page {f}"));
    assert_eq!(mm("capabilities"), (40, 8));
    assert_eq!(mm("pmc_width"), (48, 2));
    assert_eq!(mm("time_mask"), (88, 8));
    assert_eq!(mm("data_head"), (1024, 8));
    assert_eq!(mm("aux_size"), (1080, 8));
    assert_eq!(mm("sizeof").1, 1088);
    let cap = |f: &str| bitfield(m, &format!("struct perf_event_mmap_page {f}"), 40);
    assert_eq!(cap("cap_usr_rdpmc"), 1 << 2);
    assert_eq!(cap("cap_user_time_short"), 1 << 5);
    // Constants.
    let c = |k: &str| {
        m.get(&format!("const {k}"))
            .unwrap_or_else(|| panic!("{k}"))
            .1
    };
    assert_eq!(c("PFM_PMU_INFO_ABI0"), abi::PFM_PMU_INFO_ABI0 as u64);
    assert_eq!(c("PFM_EVENT_INFO_ABI0"), abi::PFM_EVENT_INFO_ABI0 as u64);
    assert_eq!(c("PFM_ATTR_INFO_ABI0"), abi::PFM_ATTR_INFO_ABI0 as u64);
    assert_eq!(c("PFM_RAW_ENCODE_ABI0"), abi::PFM_RAW_ENCODE_ABI0 as u64);
    assert_eq!(c("PFM_PERF_ENCODE_ABI0"), abi::PFM_PERF_ENCODE_ABI0 as u64);
    assert_eq!(c("PFM_PMU_MAX"), u64::from(abi::PFM_PMU_MAX));
    assert_eq!(abi::PFM_PMU_MAX, abi::PMU_ID_LIMIT);
    assert_eq!(c("LIBPFM_VERSION"), abi::LIBPFM_VERSION as u64);
    assert_eq!(c("PFM_OS_MAX"), abi::PFM_OS_MAX as u64);
    assert_eq!(c("PERF_ATTR_SIZE_VER0"), abi::PERF_ATTR_SIZE_VER0 as u64);
    assert_eq!(c("PFM_ERR_TOOSMALL") as i32, abi::PFM_ERR_TOOSMALL);
    assert_eq!(c("PFM_ERR_NOINIT") as i32, abi::PFM_ERR_NOINIT);
    assert_eq!(c("PFM_DTYPE_UINT64") as i32, abi::PFM_DTYPE_UINT64);
    // PMU numbers: the header's and pfmlib's tables agree.
    let lib = pfmlib::Library::with_host(pfmlib::Host::none());
    assert_eq!(
        c("PFM_PMU_INTEL_NHM"),
        u64::from(lib.pmu("nhm").unwrap().id())
    );
    assert_eq!(
        c("PFM_PMU_PERF_EVENT"),
        u64::from(lib.pmu("perf").unwrap().id())
    );
    assert_eq!(
        c("PFM_PMU_AMD64_FAM19H_ZEN3"),
        u64::from(lib.pmu("amd64_fam19h_zen3").unwrap().id())
    );
}

/// Our headers and libpfm4's give a C program the same layouts and
/// constants: the same program prints the same lines with either.
#[test]
fn headers_agree_with_libpfm4s() {
    let Some(src) = common::upstream_source() else {
        return;
    };
    let (ours, _) = layout(&common::include_dir(), "layout-ours-2");
    let (theirs, _) = layout(&src.join("include"), "layout-libpfm4");
    assert_eq!(
        without_pmu_max(ours.lines(), abi::PFM_PMU_MAX),
        without_pmu_max(theirs.lines(), abi::LIBPFM4_PMU_MAX)
    );
}

/// The lines of a layout listing without the `PFM_PMU_MAX` one, the one
/// constant where our header differs from libpfm4's on purpose (pfmlib's
/// 1024, the event-index limit, so that callers walking the ids below it
/// reach pfmlib's own PMUs, numbered from 701; libpfm4 upstream's 700),
/// after checking it has the value `want`.
fn without_pmu_max<'a>(lines: impl Iterator<Item = &'a str>, want: u32) -> Vec<&'a str> {
    let mut seen = false;
    let rest = lines
        .filter(|l| {
            let is_max = l.split_whitespace().any(|w| w == "PFM_PMU_MAX");
            if is_max {
                assert!(l.ends_with(&format!(" {want}")), "{l}: not {want}");
                seen = true;
            }
            !is_max
        })
        .collect();
    assert!(seen, "no PFM_PMU_MAX line");
    rest
}

/// Every PMU number of the header is libpfm4's: the header's enumeration
/// against libpfm4's, name for name and value for value.
#[test]
fn pmu_numbers_are_libpfm4s() {
    let ours = std::fs::read_to_string(common::include_dir().join("perfmon/pfmlib.h")).unwrap();
    let mut n = 0;
    for line in ours.lines() {
        let l = line.trim();
        if let Some((name, v)) = l.strip_suffix(',').unwrap_or(l).split_once(" = ") {
            if name.starts_with("PFM_PMU_") && !name.starts_with("PFM_PMU_TYPE") {
                let v: u32 = v.parse().unwrap();
                // libpfm4's ids only: pfmlib's own (from 701) are not named.
                assert!(v < abi::LIBPFM4_PMU_MAX || name == "PFM_PMU_MAX", "{name}");
                n += 1;
            }
        }
    }
    assert_eq!(n, abi::LIBPFM4_PMU_MAX as usize + 1);
    let Some(src) = common::upstream_source() else {
        return;
    };
    // Compile a program printing each name's value against both headers.
    let names: Vec<String> = ours
        .lines()
        .filter_map(|l| l.trim().split_once(" = "))
        .map(|(name, _)| name.to_string())
        .filter(|n| n.starts_with("PFM_PMU_") && !n.starts_with("PFM_PMU_TYPE"))
        .collect();
    let mut c = String::from("#include <stdio.h>\n#include <perfmon/pfmlib.h>\nint main(void) {\n");
    for name in &names {
        c.push_str(&format!("\tprintf(\"{name} %d\\n\", (int){name});\n"));
    }
    c.push_str("\treturn 0;\n}\n");
    let dir = common::work_dir("pmu-enum");
    let file = dir.join("enum.c");
    std::fs::write(&file, c).unwrap();
    let run = |inc: &std::path::Path, exe: &str| {
        let exe = dir.join(exe);
        let lib = common::our_lib_dir().join("libpfm.so.4");
        common::compile(&exe, std::slice::from_ref(&file), inc, &lib, &[]);
        String::from_utf8(Command::new(&exe).output().unwrap().stdout).unwrap()
    };
    let (ours, theirs) = (
        run(&common::include_dir(), "ours"),
        run(&src.join("include"), "libpfm4"),
    );
    assert_eq!(
        without_pmu_max(ours.lines(), abi::PFM_PMU_MAX),
        without_pmu_max(theirs.lines(), abi::LIBPFM4_PMU_MAX)
    );
}

/// The i386 layouts of our headers and libpfm4's (`cc -m32`, compiled to
/// assembly only: `tests/c/layout.c` with `LAYOUT_ASM` leaves every offset,
/// size and constant in it, bit fields excepted). The library itself is not
/// built or run for i386 here: this checks what a 32-bit program compiled
/// against our headers would hand libpfm4's 32-bit ABI. Skipped where the
/// compiler has no 32-bit C library headers (Debian: `libc6-dev-i386`),
/// unless `PFMLIB_REQUIRE_M32=1`.
#[test]
fn headers_agree_with_libpfm4s_on_i386() {
    let Some(src) = common::upstream_source() else {
        return;
    };
    let required = std::env::var("PFMLIB_REQUIRE_M32").is_ok_and(|v| v == "1");
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/layout.c");
    let asm = |include: &std::path::Path| -> Result<Vec<String>, String> {
        let mut cc = Command::new(common::cc());
        cc.args([
            "-m32",
            "-O0",
            "-S",
            "-DLAYOUT_ASM",
            "-D_GNU_SOURCE",
            "-w",
            "-I",
        ])
        .arg(include);
        // The kernel's asm/ headers serve both word sizes; Debian installs
        // them for the 64-bit multiarch folder only.
        let multiarch = std::path::Path::new("/usr/include/x86_64-linux-gnu");
        if multiarch.is_dir() {
            cc.arg("-idirafter").arg(multiarch);
        }
        let out = cc
            .arg("-o")
            .arg("-")
            .arg(&file)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().strip_prefix("#LAYOUT "))
            .map(str::to_string)
            .collect())
    };
    let ours = match asm(&common::include_dir()) {
        Ok(v) => v,
        Err(e) => {
            assert!(!required, "cc -m32 failed (PFMLIB_REQUIRE_M32=1): {e}");
            eprintln!("SKIPPED: cc -m32 cannot compile here (no 32-bit C library headers?): {e}");
            return;
        }
    };
    let theirs = asm(&src.join("include")).expect("libpfm4's headers with -m32");
    assert_eq!(
        without_pmu_max(ours.iter().map(String::as_str), abi::PFM_PMU_MAX),
        without_pmu_max(theirs.iter().map(String::as_str), abi::LIBPFM4_PMU_MAX)
    );
    let size = |s: &str| ours.iter().find(|l| l.starts_with(&format!("{s} sizeof ")));
    assert_eq!(
        size("pfm_pmu_info_t").map(String::as_str),
        Some("pfm_pmu_info_t sizeof 0 44")
    );
    assert!(ours.len() >= 70, "{ours:?}");
    eprintln!(
        "i386: {} offsets, sizes and constants identical to libpfm4's headers",
        ours.len()
    );
}
