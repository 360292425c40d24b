//! Helpers of the command's tests: running `pfm`, and recorded hosts of our
//! own making (a `/proc` and `/sys` tree in a temporary directory).

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// libpfm4's variables, removed so that the caller's environment does not
/// change the answers.
const LIBPFM_VARS: &[&str] = &[
    "LIBPFM_FORCE_PMU",
    "LIBPFM_DISABLED_PMUS",
    "LIBPFM_ENCODE_INACTIVE",
    "LIBPFM_VERBOSE",
    "LIBPFM_DEBUG",
    "LIBPFM_DEBUG_STDOUT",
];

/// `pfm ARGS`, run to the end.
pub fn pfm(args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pfm"));
    for v in LIBPFM_VARS {
        c.env_remove(v);
    }
    c.args(args).output().expect("run pfm")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `/proc/cpuinfo` of an Arm host with `n` CPUs, as its kernel writes it.
pub fn arm_cpuinfo(implementer: u32, part: u32, architecture: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "processor\t: {i}\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm cpuid\n\
                 CPU implementer\t: {implementer:#x}\nCPU architecture: {architecture}\n\
                 CPU variant\t: 0x1\nCPU part\t: {part:#05x}\nCPU revision\t: 1\n\n"
            )
        })
        .collect()
}

/// Writes `files` (path relative to the root, contents) under `root`.
pub fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
}

/// A recorded Arm host: its `/proc/cpuinfo`, perf_events present
/// (`perf_event_paranoid`) and the kernel PMUs named in `pmus` (with their
/// `type` files).
pub fn arm_host(cpuinfo: &str, pmus: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    write_tree(
        dir.path(),
        &[
            ("proc/cpuinfo", cpuinfo),
            ("proc/sys/kernel/perf_event_paranoid", "2\n"),
        ],
    );
    for (i, p) in pmus.iter().enumerate() {
        let ty = format!("{}\n", 8 + i);
        write_tree(
            dir.path(),
            &[(&format!("sys/bus/event_source/devices/{p}/type"), &ty)],
        );
    }
    dir
}

/// A Graviton 2 (Neoverse N1) with its ACPI-named core PMU.
pub fn graviton2() -> tempfile::TempDir {
    arm_host(&arm_cpuinfo(0x41, 0xd0c, "8", 2), &["armv8_pmuv3_0"])
}

/// `pfm --host-root DIR EXTRA... ARGS...`, which must succeed: its output.
pub fn run_on(dir: &Path, extra: &[&str], args: &[&str]) -> String {
    let root = dir.to_string_lossy();
    let mut all = vec!["--host-root", root.as_ref()];
    all.extend_from_slice(extra);
    all.extend_from_slice(args);
    let o = pfm(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    stdout(&o)
}

/// The PMUs `pfm --host-root DIR EXTRA... list` shows as present.
pub fn present(dir: &Path, extra: &[&str]) -> Vec<String> {
    run_on(dir, extra, &["list"])
        .lines()
        .filter(|l| l.starts_with("PMU ") && l.contains(", present,"))
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_string))
        .collect()
}

/// One `pfm --host-root DIR check --json ARGS...` answer (its first
/// line); the command's status must say whether the event encoded.
pub fn check_json_on(dir: &Path, args: &[&str]) -> serde_json::Value {
    let root = dir.to_string_lossy();
    let mut all = vec!["--host-root", root.as_ref(), "check", "--json"];
    all.extend_from_slice(args);
    let o = pfm(&all);
    let v: serde_json::Value =
        serde_json::from_str(stdout(&o).lines().next().unwrap_or_default()).expect("JSON");
    assert_eq!(
        o.status.success(),
        v["ok"] == true,
        "{all:?}: {}",
        stderr(&o)
    );
    v
}
