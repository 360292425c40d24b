//! What the C-side tests share: where our `libpfm.so` is, a folder in which
//! it is called `libpfm.so.4` (what programs ask the loader for), the C
//! compiler, the installed libpfm4 and libpfm4's source package.

#![allow(dead_code)]

pub mod listing;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Our headers (`include/`).
pub fn include_dir() -> PathBuf {
    root().join("include")
}

/// `target/<profile>`, from this test binary's place (`.../deps/NAME`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .to_path_buf()
}

/// A scratch folder for this test binary's builds, under `target/`.
pub fn work_dir(name: &str) -> PathBuf {
    let d = profile_dir().join("libpfm-tests").join(name);
    std::fs::create_dir_all(&d).expect("create work dir");
    d
}

/// A host tree for `PFMLIB_HOST_ROOT` (`proc/cpuinfo` with `cpuinfo`,
/// perf_events there), written under `target/`: synthetic, not recorded
/// from a machine, with the lines pfmlib's detection reads.
pub fn host_tree(name: &str, cpuinfo: &str) -> PathBuf {
    let dir = work_dir("host-trees").join(name);
    std::fs::create_dir_all(dir.join("proc/sys/kernel")).expect("create host tree");
    std::fs::write(dir.join("proc/cpuinfo"), cpuinfo).expect("write cpuinfo");
    std::fs::write(dir.join("proc/sys/kernel/perf_event_paranoid"), "2\n").expect("write paranoid");
    dir
}

/// A folder holding our library as `libpfm.so.4` (a link to the cdylib
/// cargo built for these tests).
pub fn our_lib_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // `cargo test` refreshes the library in deps/; the copy beside it
        // is refreshed by `cargo build` only.
        let so = [
            profile_dir().join("deps/libpfm.so"),
            profile_dir().join("libpfm.so"),
        ]
        .into_iter()
        .find(|p| p.exists())
        .expect("libpfm.so built by cargo (crate-type cdylib)");
        let dir = work_dir("lib");
        let link = dir.join("libpfm.so.4");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&so, &link).expect("symlink libpfm.so.4");
        dir
    })
    .clone()
}

/// The variable naming libpfm4 upstream's x86_64 build (`.ci/libpfm4-head`
/// builds it): when set, it is the reference of every comparison here.
pub const UPSTREAM_VAR: &str = "PFMLIB_LIBPFM4_HEAD";

/// libpfm4 upstream's x86_64 build, when [`UPSTREAM_VAR`] names one.
pub fn upstream_libpfm4() -> Option<PathBuf> {
    let p = PathBuf::from(std::env::var_os(UPSTREAM_VAR).filter(|v| !v.is_empty())?);
    p.is_file().then_some(p)
}

/// Is the reference libpfm4 upstream's build (else Debian's 4.13)?
pub fn reference_is_upstream() -> bool {
    upstream_libpfm4().is_some()
}

/// PMU ids upstream numbered after 4.13 (`PFM_PMU_MAX` 517 to 700): 4.13
/// refuses them as out of range (`PFM_ERR_INVAL`), upstream's build and ours
/// as not supported where the build lacks the PMU.
pub const UPSTREAM_IDS: std::ops::Range<u32> = 517..700;

/// libpfm4 upstream's `PFM_PMU_MAX` (4.13's: 517): from it on libpfm4
/// refuses an id as out of range (`PFM_ERR_INVAL`), where ours, whose
/// `PFM_PMU_MAX` is 1024, answers `PFM_ERR_NOTSUPP` for an id without a
/// PMU; pfmlib's own PMUs (beyond libpfm4) are numbered from 701.
pub const LIBPFM4_PMU_MAX: u32 = 700;

/// The reference libpfm4: upstream's x86_64 build when [`UPSTREAM_VAR`]
/// names it, else the installed one, if any (`PFMLIB_REQUIRE_LIBPFM4=1`,
/// set by CI, makes its absence a failure).
pub fn system_libpfm4() -> Option<PathBuf> {
    if let Some(p) = upstream_libpfm4() {
        return Some(p);
    }
    let found = find_system_libpfm4();
    if found.is_none() && std::env::var("PFMLIB_REQUIRE_LIBPFM4").is_ok_and(|v| v == "1") {
        panic!("the installed libpfm4 (libpfm.so.4) is required (PFMLIB_REQUIRE_LIBPFM4=1)");
    }
    found
}

fn find_system_libpfm4() -> Option<PathBuf> {
    let out = Command::new("ldconfig").arg("-p").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter(|l| l.contains("libpfm.so.4 ") && l.contains("x86-64"))
        .filter_map(|l| l.split("=> ").nth(1))
        .map(|p| PathBuf::from(p.trim()))
        .find(|p| p.exists())
        .or_else(|| {
            let p = PathBuf::from("/usr/lib/x86_64-linux-gnu/libpfm.so.4");
            p.exists().then_some(p)
        })
}

/// The C compiler (`$CC`, else `cc`).
pub fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

/// Compiles `sources` into `out` with include folder `inc`, linked against
/// the library file `lib`. Panics with the compiler's output on failure.
pub fn compile(out: &Path, sources: &[PathBuf], inc: &Path, lib: &Path, extra: &[&str]) {
    let o = Command::new(cc())
        .args(["-O1", "-g", "-D_GNU_SOURCE", "-w"])
        .arg("-I")
        .arg(inc)
        .args(extra)
        .arg("-o")
        .arg(out)
        .args(sources)
        .arg(lib)
        .output()
        .expect("run the C compiler");
    assert!(
        o.status.success(),
        "compiling {}: {}",
        out.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A program linked against our library (run it with [`run_ours`]).
pub fn compile_ours(out: &Path, sources: &[PathBuf], extra: &[&str]) {
    let lib = our_lib_dir().join("libpfm.so.4");
    compile(out, sources, &include_dir(), &lib, extra);
}

/// Runs a program linked against our library, found through `LD_LIBRARY_PATH`.
pub fn run_ours(cmd: &mut Command) -> Output {
    cmd.env("LD_LIBRARY_PATH", our_lib_dir())
        .output()
        .expect("run program")
}

/// Runs a program linked against the reference libpfm4 (upstream's build
/// through `LD_LIBRARY_PATH`, or the installed one).
pub fn run_system(cmd: &mut Command) -> Output {
    match upstream_libpfm4().as_deref().and_then(Path::parent) {
        Some(dir) => cmd.env("LD_LIBRARY_PATH", dir),
        None => cmd.env_remove("LD_LIBRARY_PATH"),
    };
    cmd.output().expect("run program")
}

/// libpfm4's source package (unpacked), from `PFMLIB_LIBPFM4_SRC`; `None`
/// (with the reason printed) where it is not there, unless
/// `PFMLIB_REQUIRE_LIBPFM4_SRC=1`, which makes that a failure.
/// libpfm4 upstream's source tree (`PFMLIB_LIBPFM4_HEAD_SRC`, set by
/// `.ci/run` from `.ci/libpfm4-head`): the reference for our headers, whose
/// PMU numbers and structures are upstream's. Its absence is a failure when
/// `PFMLIB_REQUIRE_LIBPFM4_HEAD=1`, else the caller says SKIPPED.
pub fn upstream_source() -> Option<PathBuf> {
    let found = std::env::var_os("PFMLIB_LIBPFM4_HEAD_SRC")
        .map(PathBuf::from)
        .filter(|p| p.join("include/perfmon/pfmlib.h").exists());
    if found.is_none() {
        let why = "libpfm4 upstream's source not found: set PFMLIB_LIBPFM4_HEAD_SRC (.ci/libpfm4-head unpacks it)";
        let required = std::env::var("PFMLIB_REQUIRE_LIBPFM4_HEAD").is_ok_and(|v| v == "1");
        assert!(!required, "{why}");
        eprintln!("SKIPPED: {why}");
    }
    found
}

/// libpfm4 4.13's source package (Debian's), for its tests and examples.
pub fn libpfm4_source() -> Option<PathBuf> {
    let required = std::env::var("PFMLIB_REQUIRE_LIBPFM4_SRC").is_ok_and(|v| v == "1");
    let found = std::env::var_os("PFMLIB_LIBPFM4_SRC")
        .map(PathBuf::from)
        .filter(|p| p.join("tests/validate.c").exists());
    if found.is_none() {
        let why = "libpfm4's source package not found: set PFMLIB_LIBPFM4_SRC to an unpacked `apt-get source libpfm4` (crates/libpfm/conformance.sh does it)";
        assert!(!required, "{why}");
        eprintln!("SKIPPED: {why}");
    }
    found
}
