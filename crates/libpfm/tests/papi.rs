//! PAPI, an existing program built against Debian's libpfm4, run unchanged
//! on our `libpfm.so.4`: `papi_native_avail` lists the same native events
//! and unit masks (names; descriptions are our own words) as with libpfm4,
//! and `papi_command_line` adds and counts the same perf events. Skipped
//! where PAPI's tools are not installed (Debian: `papi-tools`).

mod common;

use std::process::{Command, Output};

/// Runs PAPI tool `tool` against our library or the installed libpfm4;
/// `None` when the tool is not there.
fn run(tool: &str, args: &[&str], ours: bool) -> Option<Output> {
    let mut cmd = Command::new(tool);
    cmd.args(args);
    for k in [
        "LIBPFM_FORCE_PMU",
        "LIBPFM_DISABLED_PMUS",
        "LIBPFM_ENCODE_INACTIVE",
        "LIBPFM_VERBOSE",
        "LIBPFM_DEBUG",
    ] {
        cmd.env_remove(k);
    }
    if ours {
        cmd.env("LD_LIBRARY_PATH", common::our_lib_dir());
        return cmd.output().ok();
    }
    // The reference: upstream's build when named, else the installed one.
    Some(common::run_system(&mut cmd))
}

/// The names papi_native_avail prints: event lines (`| NAME  |`), unit
/// mask lines (`|     :MASK  |`), component headers and the total.
fn names(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            if l.contains("Native Events in Component") || l.starts_with("Total events") {
                return Some(l.trim().to_string());
            }
            let rest = l.strip_prefix('|')?;
            let word = rest.split_whitespace().next()?;
            let is_name = rest.starts_with(' ') && !rest.starts_with("  ") && word != "|";
            let is_mask = word.starts_with(':') && word.len() > 1;
            (is_name || is_mask).then(|| word.to_string())
        })
        .collect()
}

#[test]
fn papi_native_avail_lists_libpfm4s_events() {
    let Some(theirs) = run("papi_native_avail", &[], false) else {
        eprintln!("SKIPPED: papi_native_avail not installed");
        return;
    };
    if common::system_libpfm4().is_none() {
        eprintln!("SKIPPED: no installed libpfm4 to compare with");
        return;
    }
    let ours = run("papi_native_avail", &[], true).expect("papi_native_avail ran once");
    assert!(ours.status.success(), "{ours:?}");
    let (a, b) = (names(&theirs), names(&ours));
    assert!(
        a.iter().any(|l| l.starts_with("Total events")),
        "unexpected papi_native_avail output: {a:?}"
    );
    assert_eq!(a, b, "papi_native_avail: libpfm4's names / ours");
    eprintln!(
        "papi_native_avail: {} names identical ({})",
        a.len(),
        a.iter()
            .find(|l| l.starts_with("Total events"))
            .map_or("", String::as_str)
    );
}

#[test]
fn papi_command_line_adds_the_same_events() {
    let args = [
        "perf::TASK-CLOCK",
        "perf::PAGE-FAULTS",
        "perf::CONTEXT-SWITCHES:u",
        "no_such_event",
    ];
    let Some(theirs) = run("papi_command_line", &args, false) else {
        eprintln!("SKIPPED: papi_command_line not installed");
        return;
    };
    let ours = run("papi_command_line", &args, true).expect("papi_command_line ran once");
    // What was added or refused, not the counts.
    let verdicts = |o: &Output| -> Vec<String> {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .chain(String::from_utf8_lossy(&o.stderr).lines())
            .filter(|l| l.starts_with("Successfully added") || l.starts_with("Failed adding"))
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (verdicts(&theirs), verdicts(&ours));
    assert_eq!(a, b, "papi_command_line: libpfm4 / ours");
    assert!(
        b.iter().filter(|l| l.starts_with("Successfully")).count() >= 3,
        "{b:?}"
    );
}
