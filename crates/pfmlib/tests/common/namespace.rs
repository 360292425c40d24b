//! Runs a command, or one test of this test binary, in a private user and
//! mount namespace (`unshare -rm`) where files of our own are bind-mounted
//! over the system's (`/proc/cpuinfo`, `/proc`,
//! `/sys/bus/event_source/devices`): a libpfm4 build loaded there reads a
//! machine of our making, as pfmlib does from the same files.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

/// `program` with `args`, run in a namespace where each `(file, target)`
/// of `mounts` is bind-mounted over `target`, with `env` set; `None` when
/// it cannot be started.
pub fn run(
    mounts: &[(&Path, &str)],
    program: &OsStr,
    args: &[&str],
    env: &[(&str, &str)],
) -> Option<Output> {
    let mut script = String::new();
    for (i, (_, target)) in mounts.iter().enumerate() {
        script += &format!("mount --bind \"${}\" '{target}' && ", i + 1);
    }
    script += &format!("shift {} && exec \"$@\"", mounts.len());
    let mut cmd = Command::new("unshare");
    cmd.args(["-rm", "sh", "-c", &script, "sh"]);
    for (file, _) in mounts {
        cmd.arg(file);
    }
    cmd.arg(program).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().ok()
}

/// The test `test` of this test binary, run alone in such a namespace.
pub fn run_test(mounts: &[(&Path, &str)], test: &str, env: &[(&str, &str)]) -> Option<Output> {
    let exe = std::env::current_exe().ok()?;
    run(
        mounts,
        exe.as_os_str(),
        &["--exact", test, "--nocapture", "--test-threads=1"],
        env,
    )
}

/// [`run_test`], its standard output when it succeeded (saying why not
/// otherwise).
pub fn test_stdout(mounts: &[(&Path, &str)], test: &str, env: &[(&str, &str)]) -> Option<String> {
    let out = run_test(mounts, test, env)?;
    if !out.status.success() {
        eprintln!(
            "libpfm4 child failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// What follows `tag` on each line of `text` that has it (the test harness
/// may have begun the line: "test libpfm4_child ... ").
pub fn tagged<T: FromIterator<String>>(text: &str, tag: &str) -> T {
    text.lines()
        .filter_map(|l| l.split_once(tag).map(|(_, v)| v.to_string()))
        .collect()
}
