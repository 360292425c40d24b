//! The whole-process bulk check: `pfm check --json --os none --input FILE`
//! against `c/check_loop.c`, a C program that reads the same lines and
//! encodes each with libpfm4 (`pfm_get_os_event_encoding(PFM_OS_NONE)`),
//! printing the same JSON lines. Both processes are timed from spawn to
//! exit, so start-up, reading, encoding and writing all count.
//!
//! Only the `report` binary compiles and runs the C program (with `cc`,
//! against the installed `libpfm.so.4`); `cargo test` checks that it
//! compiles and agrees with pfmlib on a few strings.

use crate::{encode_modifiers, encode_umasks, event_names, push_modifiers, PMU};
use pfmlib::{AttrType, Library, Os};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Passes of [`sweep_pass`] in the benchmark's input.
pub const PASSES: usize = 10;

/// The C program.
pub const C_SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/c/check_loop.c");

/// Where Debian and Ubuntu install libpfm4 (package `libpfm4`).
pub const LIBPFM_SO: &str = "/usr/lib/x86_64-linux-gnu/libpfm.so.4";

/// One pass over [`PMU`]: every event (`nhm::EVENT`); every event × unit
/// mask, as given and in lower case; every event with its first unit mask
/// and each `PFM_OS_NONE` modifier alone; every event × unit mask with every
/// modifier; every event with the perf_events modifiers, which
/// `PFM_OS_NONE` refuses; and every event × unit mask with a counter mask
/// out of range (the last two are errors in both libraries).
pub fn sweep_pass(lib: &Library) -> Vec<String> {
    let mut v: Vec<String> = event_names(lib)
        .into_iter()
        .map(|n| format!("{PMU}::{n}"))
        .collect();
    let umasks: Vec<String> = encode_umasks(lib).into_iter().map(|i| i.s).collect();
    v.extend(umasks.iter().cloned());
    v.extend(umasks.iter().map(|s| s.to_lowercase()));
    let Some(pmu) = lib.pmu(PMU) else {
        return v;
    };
    for e in pmu.events() {
        v.extend(single_modifiers(&e));
    }
    for e in pmu.events() {
        v.extend(every_modifier(&e));
    }
    v.extend(
        encode_modifiers(lib, Os::PerfEventExt)
            .into_iter()
            .map(|i| i.s),
    );
    v.extend(umasks.iter().map(|s| format!("{s}:c=256")));
    v
}

/// `nhm::EVENT` with its first unit mask, if it has one.
fn with_first_umask(e: &pfmlib::Event, attrs: &[pfmlib::AttrInfo]) -> String {
    let mut s = format!("{PMU}::{}", e.name());
    if let Some(u) = attrs.iter().find(|a| a.attr_type == AttrType::Umask) {
        s.push(':');
        s.push_str(u.name);
    }
    s
}

/// The event with its first unit mask and one `PFM_OS_NONE` modifier, for
/// each modifier it has.
fn single_modifiers(e: &pfmlib::Event) -> Vec<String> {
    let attrs = e.attrs(Os::None);
    let base = with_first_umask(e, &attrs);
    attrs
        .iter()
        .filter(|a| a.attr_type != AttrType::Umask)
        .map(|a| {
            let val = match a.attr_type {
                AttrType::ModBool => "",
                _ if a.name == "c" => "=3",
                _ => "=4",
            };
            format!("{base}:{}{val}", a.name)
        })
        .collect()
}

/// The event with each of its unit masks (or none) and every `PFM_OS_NONE`
/// modifier.
fn every_modifier(e: &pfmlib::Event) -> Vec<String> {
    let attrs = e.attrs(Os::None);
    let base = format!("{PMU}::{}", e.name());
    let mut v: Vec<String> = attrs
        .iter()
        .filter(|a| a.attr_type == AttrType::Umask)
        .map(|u| format!("{base}:{}", u.name))
        .collect();
    if v.is_empty() {
        v.push(base);
    }
    for s in &mut v {
        push_modifiers(s, &attrs);
    }
    v
}

/// [`PASSES`] passes of [`sweep_pass`], one string per line.
pub fn bulk_input(lib: &Library) -> String {
    let pass = sweep_pass(lib).join("\n");
    let mut s = String::with_capacity((pass.len() + 1) * PASSES);
    for _ in 0..PASSES {
        s.push_str(&pass);
        s.push('\n');
    }
    s
}

/// Compiles [`C_SOURCE`] to `out` with `cc -O2`, linked against
/// [`LIBPFM_SO`] (or `-l:libpfm.so.4` where that path is absent).
pub fn compile_check_loop(out: &Path) -> Result<(), String> {
    let mut cc = Command::new("cc");
    cc.args(["-O2", "-Wall", "-o"]).arg(out).arg(C_SOURCE);
    if Path::new(LIBPFM_SO).exists() {
        cc.arg(LIBPFM_SO);
    } else {
        cc.arg("-l:libpfm.so.4");
    }
    let o = cc
        .output()
        .map_err(|e| format!("cannot run cc (a C compiler is needed): {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "cc failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

/// A command running the compiled C program as the benchmark does
/// (`LIBPFM_ENCODE_INACTIVE=1`: libpfm4 encodes every PMU, as pfm does).
pub fn check_loop_command(bin: &Path) -> Command {
    let mut c = Command::new(bin);
    c.env("LIBPFM_ENCODE_INACTIVE", "1")
        .env_remove("LIBPFM_FORCE_PMU");
    c
}

/// How two outputs compare, line for line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Agreement {
    /// Lines compared (the longer output's count).
    pub lines: usize,
    /// Lines equal byte for byte.
    pub identical: usize,
    /// Lines that differ in the error message text only.
    pub message_only: usize,
    /// Lines that differ otherwise: codes, fstr, idx, PMU, status, error
    /// code or name, or a line missing (0 expected).
    pub differing: usize,
    /// The first differing pair, for the reader.
    pub first_difference: Option<(String, String)>,
}

/// Compares pfm's lines with the C program's: byte for byte, else on every
/// member but the error message.
pub fn compare(pfm: &str, c: &str) -> Agreement {
    let (ours, theirs): (Vec<&str>, Vec<&str>) = (pfm.lines().collect(), c.lines().collect());
    let mut a = Agreement {
        lines: ours.len().max(theirs.len()),
        ..Agreement::default()
    };
    for i in 0..a.lines {
        let (o, t) = (ours.get(i).copied(), theirs.get(i).copied());
        if o.is_some() && o == t {
            a.identical += 1;
        } else if o.zip(t).is_some_and(|(o, t)| same_but_message(o, t)) {
            a.message_only += 1;
        } else {
            a.differing += 1;
            a.first_difference
                .get_or_insert_with(|| (o.unwrap_or("").to_string(), t.unwrap_or("").to_string()));
        }
    }
    a
}

/// Both lines are JSON objects equal once the error messages are removed.
fn same_but_message(a: &str, b: &str) -> bool {
    let parse = |s: &str| -> Option<Value> {
        let mut v: Value = serde_json::from_str(s).ok()?;
        v.get_mut("error")?.as_object_mut()?.remove("message");
        Some(v)
    };
    matches!((parse(a), parse(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_is_about_two_thousand_strings() {
        let lib = Library::global();
        let pass = sweep_pass(lib);
        eprintln!("{} strings per pass", pass.len());
        assert!((1800..2600).contains(&pass.len()), "{}", pass.len());
        let input = bulk_input(lib);
        assert_eq!(input.lines().count(), pass.len() * PASSES);
        assert!(pass.iter().any(|s| s.ends_with(":c=256")));
        assert!(pass.iter().all(|s| !s.is_empty() && !s.contains('\n')));
    }

    #[test]
    fn outputs_compare_line_for_line() {
        let ok = r#"{"codes":["0x1"],"event":"a","fstr":"p::a","idx":1,"ok":true,"pmu":"p"}"#;
        let err = |m: &str| {
            format!(
                r#"{{"error":{{"code":-4,"message":"{m}","name":"PFM_ERR_NOTFOUND"}},"event":"b","ok":false}}"#
            )
        };
        let ours = format!("{ok}\n{}\n{ok}\n", err("event \\\"b\\\" not found"));
        let theirs = format!(
            "{ok}\n{}\n{}\n",
            err("event not found"),
            ok.replace("0x1", "0x2")
        );
        let a = compare(&ours, &theirs);
        assert_eq!(
            (a.lines, a.identical, a.message_only, a.differing),
            (3, 1, 1, 1)
        );
        assert!(a.first_difference.is_some_and(|(_, t)| t.contains("0x2")));
        let a = compare(&ours, ok);
        assert_eq!((a.lines, a.identical, a.differing), (3, 1, 2));
    }

    /// The C program compiles where `cc` and libpfm4 are installed, and on
    /// a few strings agrees with pfm's JSON lines (but for the messages).
    #[test]
    fn the_c_program_compiles_and_agrees() {
        if !Path::new(LIBPFM_SO).exists() || Command::new("cc").arg("--version").output().is_err() {
            eprintln!("SKIPPED: needs cc and {LIBPFM_SO} (Debian: apt-get install gcc libpfm4)");
            return;
        }
        let dir = std::env::temp_dir().join(format!("pfm-bench-c-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let bin = dir.join("check_loop");
        let built = compile_check_loop(&bin);
        let ran = built.is_ok().then(|| run_a_few(&bin));
        let _ = std::fs::remove_dir_all(&dir);
        built.expect("the C program compiles");
        let a = ran.expect("built, so it ran");
        assert_eq!(a.differing, 0, "{a:?}");
        assert!(a.identical >= 2 && a.message_only >= 3, "{a:?}");
    }

    /// Runs the C program on a few strings; its output against pfmlib's.
    fn run_a_few(bin: &Path) -> Agreement {
        use std::io::Write;
        let input = "nhm::ARITH:MUL\r\n\nnhm::NOPE\nnhm::INST_RETIRED:ANY_P:c=2:u\n\
                     nhm::ARITH:MUL:c=300\nnhm::\"quoted\\\n";
        let mut child = check_loop_command(bin)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("run the C program");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(input.as_bytes()).expect("write");
        drop(stdin);
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(1), "some strings fail");
        let ours: String = input
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| json_line(Library::global(), l) + "\n")
            .collect();
        compare(&ours, &String::from_utf8_lossy(&out.stdout))
    }

    /// `pfm check --json --os none`'s line for `s` (keys in order).
    fn json_line(lib: &Library, s: &str) -> String {
        let v = match lib.encode(s, pfmlib::Plm::DEFAULT, Os::None) {
            Ok(e) => serde_json::json!({
                "codes": e.codes.iter().map(|c| format!("{c:#x}")).collect::<Vec<_>>(),
                "event": s, "fstr": e.fstr, "idx": e.idx, "ok": true, "pmu": e.pmu,
            }),
            Err(e) => serde_json::json!({
                "error": {"code": e.code(), "message": e.to_string(), "name": e.kind().name()},
                "event": s, "ok": false,
            }),
        };
        v.to_string()
    }
}
