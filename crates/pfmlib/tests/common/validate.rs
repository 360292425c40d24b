//! libpfm4's own test vectors (`tests/validate_*.c` of a libpfm4 source
//! tree): the parser of their tables and the check of one file through
//! pfmlib, as libpfm4's `validate` runs them (`pfm_get_event_encoding` with
//! `PFM_PLM0 | PFM_PLM3`): return code, number of codes, each code and the
//! fully-qualified string. Error names are read from the same tree's
//! `include/perfmon/pfmlib.h`.

#![allow(dead_code)]

use pfmlib::{Library, Os, Plm};
use std::collections::BTreeMap;
use std::path::Path;

/// One test vector.
#[derive(Debug, Default)]
pub struct Vector {
    /// The event string.
    pub name: String,
    /// The expected fully-qualified string, if given.
    pub fstr: Option<String>,
    /// The expected return code, by name.
    pub ret: String,
    /// The number of codes.
    pub count: usize,
    /// The codes given.
    pub codes: BTreeMap<usize, u64>,
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

/// A C integer literal (`0x5300c0ull`, `12`).
fn number(s: &str) -> Option<u64> {
    let s = s.trim().trim_end_matches(['u', 'U', 'l', 'L']);
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
pub fn vectors(text: &str, array: &str) -> Vec<Vector> {
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
pub fn error_codes(header: &str) -> BTreeMap<String, i32> {
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

/// What went wrong with one vector through `lib`, if anything (`codes`:
/// the return codes by name).
pub fn check_vector(
    lib: &Library,
    codes: &BTreeMap<String, i32>,
    file: &str,
    v: &Vector,
) -> Option<String> {
    // A vector without `.ret` expects 0 (C's zero initialisation).
    let ret = if v.ret.is_empty() {
        "PFM_SUCCESS"
    } else {
        &v.ret
    };
    let Some(&want) = codes.get(ret) else {
        return Some(format!("{file}: {}: unknown return code {}", v.name, v.ret));
    };
    let got = lib.encode(&v.name, Plm::PLM0 | Plm::PLM3, Os::None);
    let code = got.as_ref().map_or_else(|e| e.code(), |_| 0);
    if code != want {
        return Some(format!(
            "{file}: {}: ret {code}, expected {ret} ({want})",
            v.name
        ));
    }
    let Ok(enc) = got else { return None };
    let expected: Vec<u64> = (0..v.count)
        .map(|i| v.codes.get(&i).copied().unwrap_or(0))
        .collect();
    if enc.codes != expected {
        return Some(format!(
            "{file}: {}: codes {:#x?}, expected {expected:#x?}",
            v.name, enc.codes
        ));
    }
    if v.fstr.as_ref().is_some_and(|f| *f != enc.fstr) {
        return Some(format!(
            "{file}: {}: fstr {}, expected {:?}",
            v.name, enc.fstr, v.fstr
        ));
    }
    None
}

/// The vectors of `file` (array `array`) of the tree `src`, with the
/// return codes of its `pfmlib.h`.
pub fn load(src: &Path, file: &str, array: &str) -> (Vec<Vector>, BTreeMap<String, i32>) {
    let text = std::fs::read_to_string(src.join("tests").join(file)).expect("validate source");
    let header = std::fs::read_to_string(src.join("include/perfmon/pfmlib.h")).expect("pfmlib.h");
    (vectors(&text, array), error_codes(&header))
}

/// Runs one file's vectors; returns the failures and the number run.
pub fn check(lib: &Library, src: &Path, file: &str, array: &str) -> (Vec<String>, usize) {
    let (vs, codes) = load(src, file, array);
    let bad = vs
        .iter()
        .filter_map(|v| check_vector(lib, &codes, file, v))
        .collect();
    (bad, vs.len())
}
