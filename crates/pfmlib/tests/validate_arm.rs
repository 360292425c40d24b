//! libpfm4's own Arm test vectors through pfmlib: the event tables of
//! `tests/validate_arm64.c` and `tests/validate_arm.c` (libpfm4 4.13's
//! source, found through `PFMLIB_LIBPFM4_SRC`), parsed at test time and
//! encoded as libpfm4's `validate` does (`pfm_get_event_encoding` with
//! `PFM_PLM0 | PFM_PLM3`): the return code, the number of codes, each code
//! and the fully-qualified string must be the ones the file expects. Error
//! names are read from the same tree's `include/perfmon/pfmlib.h`.
//!
//! Without the source the test prints `SKIPPED` and passes, unless
//! `PFMLIB_REQUIRE_ARM_ORACLES` is set.

mod common;

use common::arm::path_from_env;
use pfmlib::{Host, Library, Os, Plm};
use std::collections::BTreeMap;
use std::path::Path;

/// One test vector.
#[derive(Debug, Default)]
struct Vector {
    name: String,
    fstr: Option<String>,
    ret: String,
    count: usize,
    codes: BTreeMap<usize, u64>,
}

/// The text of a C string literal (simple escapes only).
fn c_string(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &body[i + 1..])),
            '\\' => out.push(chars.next()?.1),
            c => out.push(c),
        }
    }
    None
}

/// The value after `= ` of a designated initializer: a string or a token.
fn value(rest: &str) -> Option<String> {
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    if rest.starts_with('"') {
        return c_string(rest).map(|(s, _)| s);
    }
    let end = rest
        .find(|c: char| c == ',' || c == '}' || c.is_whitespace())
        .unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The designated initializers `.key = value` of one entry, in order
/// (dots inside string literals are not keys).
fn fields(entry: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in entry.char_indices() {
        if in_string {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => escaped = false,
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        } else if c == '.' {
            let rest = &entry[i + 1..];
            let key_end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '[' || c == ']'))
                .unwrap_or(rest.len());
            if let Some(v) = value(&rest[key_end..]) {
                out.push((rest[..key_end].to_string(), v));
            }
        }
    }
    out
}

/// One `{ ... }` entry of the test array.
fn vector(entry: &str) -> Option<Vector> {
    let mut v = Vector::default();
    for (key, val) in fields(entry) {
        match key.as_str() {
            "name" => v.name = val,
            "fstr" => v.fstr = Some(val),
            "ret" => v.ret = val,
            "count" => v.count = number(&val)? as usize,
            k if k.starts_with("codes[") => {
                let i = k.trim_start_matches("codes[").trim_end_matches(']');
                v.codes.insert(i.parse().ok()?, number(&val)?);
            }
            _ => {}
        }
    }
    (!v.name.is_empty()).then_some(v)
}

/// The vectors of `array` in a validate source file: the `{ ... }` entries
/// of its initializer (they hold no braces of their own).
fn vectors(text: &str, array: &str) -> Vec<Vector> {
    let start = text
        .find(&format!("{array}[]"))
        .expect("the test array is in the file");
    let body = &text[start..];
    let body = &body[body.find('{').expect("array opens") + 1..];
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('{') {
        if rest[..open].contains("};") {
            break;
        }
        let close = open + rest[open..].find('}').expect("entry closes");
        out.push(vector(&rest[open + 1..close]).expect("a test vector"));
        rest = &rest[close + 1..];
    }
    out
}

/// `PFM_SUCCESS` and the `PFM_ERR_*` codes of `pfmlib.h`.
fn error_codes(header: &str) -> BTreeMap<String, i32> {
    header
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next()? == "#define").then_some(())?;
            let name = w.next()?;
            let code: i32 = w.next()?.parse().ok()?;
            (name == "PFM_SUCCESS" || name.starts_with("PFM_ERR_"))
                .then(|| (name.to_string(), code))
        })
        .collect()
}

/// Runs one file's vectors; returns the failures and the number run.
fn check(src: &Path, file: &str, array: &str) -> (Vec<String>, usize) {
    let text = std::fs::read_to_string(src.join("tests").join(file)).expect("validate source");
    let header = std::fs::read_to_string(src.join("include/perfmon/pfmlib.h")).expect("pfmlib.h");
    let codes = error_codes(&header);
    let lib = Library::with_host(Host::none());
    let vs = vectors(&text, array);
    let mut bad = Vec::new();
    for v in &vs {
        let want = *codes.get(&v.ret).expect("a known return code");
        let got = lib.encode(&v.name, Plm::PLM0 | Plm::PLM3, Os::None);
        let code = got.as_ref().map_or_else(|e| e.code(), |_| 0);
        if code != want {
            bad.push(format!(
                "{file}: {}: ret {code}, expected {} ({want})",
                v.name, v.ret
            ));
            continue;
        }
        let Ok(enc) = got else { continue };
        let expected: Vec<u64> = (0..v.count)
            .map(|i| v.codes.get(&i).copied().unwrap_or(0))
            .collect();
        if enc.codes != expected {
            bad.push(format!(
                "{file}: {}: codes {:#x?}, expected {expected:#x?}",
                v.name, enc.codes
            ));
        }
        if v.fstr.as_ref().is_some_and(|f| *f != enc.fstr) {
            bad.push(format!(
                "{file}: {}: fstr {}, expected {:?}",
                v.name, enc.fstr, v.fstr
            ));
        }
    }
    (bad, vs.len())
}

#[test]
fn libpfm4_arm_validate_vectors() {
    let Some(src) = path_from_env("PFMLIB_LIBPFM4_SRC", "libpfm4 4.13 source tree") else {
        return;
    };
    let mut bad = Vec::new();
    for (file, array, at_least) in [
        ("validate_arm64.c", "arm64_test_events", 51),
        ("validate_arm.c", "arm_test_events", 32),
    ] {
        let (b, n) = check(&src, file, array);
        assert!(n >= at_least, "{file}: only {n} vectors parsed");
        eprintln!("{file}: {n} vectors, {} failed", b.len());
        bad.extend(b);
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_parser() {
    let text = r#"static const test_event_t t_test_events[]={
        { SRC_LINE,
          .name = "a::B:c",
          .ret  = PFM_SUCCESS,
          .count = 1,
          .codes[0] = 0x8000011,
          .fstr = "a::B.c=1",
        },
        { .name = "x::Y", .ret = PFM_ERR_ATTR, },
    };
    static int f(void) { return 0; }"#;
    let v = vectors(text, "t_test_events");
    assert_eq!(v.len(), 2);
    assert_eq!((v[0].name.as_str(), v[0].count), ("a::B:c", 1));
    assert_eq!(v[0].codes.get(&0), Some(&0x8000011));
    assert_eq!(v[0].fstr.as_deref(), Some("a::B.c=1"));
    assert_eq!(
        (v[1].name.as_str(), v[1].ret.as_str()),
        ("x::Y", "PFM_ERR_ATTR")
    );
    let h = "#define PFM_SUCCESS\t\t0\t/* ok */\n#define PFM_ERR_ATTR\t\t-8\n";
    assert_eq!(error_codes(h).get("PFM_ERR_ATTR"), Some(&-8));
}
