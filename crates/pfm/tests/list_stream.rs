//! `pfm list` at scale (issue 22): `--all --json` is streamed, so its peak
//! memory stays a few megabytes while it writes tens of megabytes (it took
//! about twelve times its output when built as one value); many patterns
//! list what each of them lists, in table order, with the same warnings.
//! No timing is asserted: memory is the peak resident size of the child
//! (`VmHWM`), sampled while its output is read.

mod common;

use common::{pfm, stderr, stdout};
use std::io::Read;
use std::process::{Command, Stdio};

/// The peak resident size of process `pid` so far, in KiB (None once it
/// has exited).
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `pfm ARGS`, reading and discarding its output: (bytes written,
/// the largest peak resident size seen, in KiB).
fn bytes_and_peak(args: &[&str]) -> (u64, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pfm"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("pfm starts");
    let pid = child.id();
    let mut out = child.stdout.take().expect("piped");
    let (mut bytes, mut peak) = (0u64, 0u64);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = out.read(&mut buf).expect("read pfm's output");
        if n == 0 {
            break;
        }
        bytes += n as u64;
        peak = peak.max(vm_hwm_kib(pid).unwrap_or(0));
    }
    assert!(child.wait().expect("wait").success(), "pfm {args:?} failed");
    (bytes, peak)
}

#[test]
fn list_all_json_is_streamed_in_bounded_memory() {
    if vm_hwm_kib(std::process::id()).is_none() {
        eprintln!("SKIPPED: no VmHWM in /proc/self/status");
        return;
    }
    for extra in [&[][..], &["--os", "perf-ext"]] {
        let mut args = vec!["list", "--all", "--json"];
        args.extend_from_slice(extra);
        let (bytes, peak_kib) = bytes_and_peak(&args);
        // Tens of megabytes out (40 MB and more), a few in memory: 64 MiB
        // leaves room for builds with instrumentation; the whole document
        // as one value took 490 MB and more.
        assert!(bytes > 20_000_000, "{args:?}: only {bytes} bytes");
        assert!(peak_kib > 0, "{args:?}: no sample of the peak");
        assert!(
            peak_kib < 64 * 1024,
            "{args:?}: peak resident size {peak_kib} KiB for {bytes} bytes of output"
        );
    }
}

/// The first column of compact lines.
fn names(text: &str) -> Vec<String> {
    let first = |l: &str| l.split_whitespace().next().map(str::to_string);
    text.lines().filter_map(first).collect()
}

#[test]
fn many_patterns_list_what_each_lists_in_table_order() {
    let all = pfm(&["list", "--all", "--compact"]);
    assert!(all.status.success(), "{}", stderr(&all));
    let every = names(&stdout(&all));
    // Plain names, prefixes, infixes, sets, PMU globs; some match nothing.
    let mut patterns: Vec<String> = every
        .iter()
        .step_by(1999)
        .filter(|n| n.is_ascii() && !n.contains(['*', '?', '[']))
        .flat_map(|n| {
            let (pmu, ev) = n.split_once("::").unwrap_or(("", n));
            [
                n.clone(),
                ev.to_ascii_lowercase(),
                format!("{}*", &ev[..ev.len() / 2]),
                format!("*{}*", &ev[ev.len() / 3..]),
                format!("{}*::{ev}", &pmu[..pmu.len().min(3)]),
            ]
        })
        .collect();
    patterns.extend(
        [
            "l[12]d*",
            "*_[!a-m]ISS*",
            "?nst_retired",
            "perf::*",
            "nothing_like_this",
            "nhm::NO_SUCH_EVENT*",
            "*cycles",
        ]
        .map(String::from),
    );
    let mut args = vec!["list", "--all", "--compact"];
    args.extend(patterns.iter().map(String::as_str));
    let many = pfm(&args);
    assert!(many.status.success(), "{}", stderr(&many));
    // What each pattern lists alone, and its warning when it lists nothing.
    let mut wanted = std::collections::HashSet::new();
    let mut warnings = String::new();
    for p in &patterns {
        let one = pfm(&["list", "--all", "--compact", p]);
        wanted.extend(names(&stdout(&one)));
        warnings += &stderr(&one);
    }
    let expected: Vec<&String> = every.iter().filter(|n| wanted.contains(*n)).collect();
    let got = names(&stdout(&many));
    assert_eq!(got.iter().collect::<Vec<_>>(), expected);
    assert!(got.len() > 100, "{}", got.len());
    let warned = stderr(&many);
    assert!(warned.contains("nothing_like_this"), "{warned}");
    assert_eq!(warned, warnings);
}

#[test]
fn a_reader_that_goes_away_mid_document_ends_pfm_like_sigpipe() {
    // The document is written as it is made: the failed write is SIGPIPE's
    // status (128 + 13), as for the text list.
    let o = Command::new("bash")
        .arg("-c")
        .arg("set -o pipefail; \"$PFM\" list --all --json | head -c 10 >/dev/null; echo $?")
        .env("PFM", env!("CARGO_BIN_EXE_pfm"))
        .output()
        .expect("bash runs");
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "141");
}
