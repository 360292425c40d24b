//! libpfm4's own x86 test vectors (`tests/validate_x86.c` of its source):
//! every vector (all 1,181 of 4.13; none may be skipped) is encoded with the
//! default privilege levels (PLM0|PLM3) and no OS layer, and must give the
//! expected return code, codes and (where the vector has one)
//! fully-qualified string.
//!
//! The C file is parsed at test time from `$PFMLIB_LIBPFM4_SRC/tests/`
//! (default `/tmp/lp/libpfm4-4.13.0`); without it the test prints SKIPPED and
//! passes, unless `PFMLIB_REQUIRE_LIBPFM4_SRC` is set.

use pfmlib::{Host, Library, Options, Os, Plm};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The vectors of libpfm4 4.13's `tests/validate_x86.c`.
const VECTORS_4_13: usize = 1181;

/// Vectors of 4.13 whose expected codes upstream changed (pfmlib follows
/// upstream; `validate_head.rs` runs upstream's own vectors): the vector's
/// name, 4.13's code 0 and upstream's. Each must still fail 4.13's way,
/// answering upstream's code exactly.
const UPSTREAM_CHANGED: &[(&str, u64, u64)] = &[
    // spr INST_RETIRED:ANY: upstream encodes event code 0x00, umask 0x01
    // (4.13: event 0xc0); docs/verification.md's spr row.
    ("spr::inst_retired:any", 0x5301c0, 0x530100),
];

/// The expectation of `v` as upstream's: the code [`UPSTREAM_CHANGED`]
/// names replaced (and whether it was).
fn as_upstream(v: &mut Vector) -> bool {
    let Some((_, old, new)) = UPSTREAM_CHANGED.iter().find(|(n, _, _)| *n == v.name) else {
        return false;
    };
    assert_eq!(
        v.codes.get(&0),
        Some(old),
        "{}: 4.13's vector changed",
        v.name
    );
    v.codes.insert(0, *new);
    true
}

/// One test vector of `x86_test_events[]`.
#[derive(Debug, Default)]
struct Vector {
    line: usize,
    name: String,
    ret: i32,
    count: usize,
    codes: BTreeMap<usize, u64>,
    fstr: Option<String>,
}

/// libpfm4's return code of a `PFM_*` name.
fn ret_code(name: &str) -> Option<i32> {
    const CODES: [(&str, i32); 13] = [
        ("PFM_SUCCESS", 0),
        ("PFM_ERR_NOTSUPP", -1),
        ("PFM_ERR_INVAL", -2),
        ("PFM_ERR_NOINIT", -3),
        ("PFM_ERR_NOTFOUND", -4),
        ("PFM_ERR_FEATCOMB", -5),
        ("PFM_ERR_UMASK", -6),
        ("PFM_ERR_NOMEM", -7),
        ("PFM_ERR_ATTR", -8),
        ("PFM_ERR_ATTR_VAL", -9),
        ("PFM_ERR_ATTR_SET", -10),
        ("PFM_ERR_TOOMANY", -11),
        ("PFM_ERR_TOOSMALL", -12),
    ];
    CODES.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
}

/// A C integer literal (`0x5300c0ull`, `0`, `12`).
fn c_integer(s: &str) -> Option<u64> {
    let s = s.trim().trim_end_matches(['u', 'U', 'l', 'L']);
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// A C string literal starting at `s` (after the opening quote): its text.
fn c_string(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => out.push(chars.next()?),
            c => out.push(c),
        }
    }
    None
}

/// Sets one `.field = value` of a vector from a line of the C file.
fn parse_field(v: &mut Vector, line: &str) -> Result<(), String> {
    let Some(rest) = line.trim().strip_prefix('.') else {
        return Ok(());
    };
    let Some((field, value)) = rest.split_once('=') else {
        return Ok(());
    };
    let value = value.split("/*").next().unwrap_or("").trim();
    let value = value.trim_end_matches(',').trim();
    let bad = || format!("line {}: cannot read {line:?}", v.line);
    match field.trim() {
        "name" | "fstr" => {
            let s = value.strip_prefix('"').and_then(c_string).ok_or_else(bad)?;
            if field.trim() == "name" {
                v.name = s;
            } else {
                v.fstr = Some(s);
            }
        }
        "ret" => v.ret = ret_code(value).ok_or_else(bad)?,
        "count" => v.count = c_integer(value).ok_or_else(bad)? as usize,
        f => {
            let idx = f
                .strip_prefix("codes[")
                .and_then(|x| x.strip_suffix(']'))
                .and_then(|x| x.parse::<usize>().ok());
            if let Some(i) = idx {
                v.codes.insert(i, c_integer(value).ok_or_else(bad)?);
            }
        }
    }
    Ok(())
}

/// Every vector of the C file, in order.
fn parse_vectors(text: &str) -> Result<Vec<Vector>, String> {
    let start = text
        .find("x86_test_events[]")
        .ok_or("no x86_test_events[] array")?;
    let mut out: Vec<Vector> = Vec::new();
    let first_line = text[..start].lines().count();
    for (k, line) in text[start..].lines().enumerate() {
        if line.starts_with("};") {
            return Ok(out);
        }
        if line.contains("SRC_LINE") {
            out.push(Vector {
                line: first_line + k,
                ..Vector::default()
            });
        } else if let Some(v) = out.last_mut() {
            parse_field(v, line)?;
        }
    }
    Err("x86_test_events[] does not end".into())
}

fn source_file() -> Option<PathBuf> {
    let root = std::env::var_os("PFMLIB_LIBPFM4_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/lp/libpfm4-4.13.0"));
    let f = root.join("tests/validate_x86.c");
    if f.is_file() {
        return Some(f);
    }
    if std::env::var_os("PFMLIB_REQUIRE_LIBPFM4_SRC").is_some() {
        panic!("libpfm4 source required but {} is absent", f.display());
    }
    eprintln!(
        "SKIPPED: {} is absent (set PFMLIB_LIBPFM4_SRC to libpfm4's source)",
        f.display()
    );
    None
}

/// What went wrong with one vector, if anything.
fn check(lib: &Library, v: &Vector) -> Option<String> {
    let got = lib.encode(&v.name, Plm::PLM0 | Plm::PLM3, Os::None);
    let at = format!("line {} {}", v.line, v.name);
    match got {
        Err(e) if e.code() == v.ret => None,
        Err(e) => Some(format!(
            "{at}: error {} ({e}), expected {}",
            e.code(),
            v.ret
        )),
        Ok(enc) if v.ret != 0 => Some(format!(
            "{at}: encoded {:#x?} ({}), expected error {}",
            enc.codes, enc.fstr, v.ret
        )),
        Ok(enc) => {
            let want: Vec<u64> = (0..v.count)
                .map(|i| v.codes.get(&i).copied().unwrap_or(0))
                .collect();
            if enc.codes != want {
                return Some(format!(
                    "{at}: codes {:#x?}, expected {want:#x?}",
                    enc.codes
                ));
            }
            match &v.fstr {
                Some(f) if *f != enc.fstr => Some(format!("{at}: fstr {}, expected {f}", enc.fstr)),
                _ => None,
            }
        }
    }
}

#[test]
fn libpfm4_x86_vectors() {
    let Some(file) = source_file() else { return };
    let text = std::fs::read_to_string(&file).expect("readable validate_x86.c");
    let mut vectors = parse_vectors(&text).expect("parsable validate_x86.c");
    let changed = vectors.iter_mut().map(as_upstream).filter(|c| *c).count();
    assert_eq!(
        changed,
        UPSTREAM_CHANGED.len(),
        "every listed vector is there"
    );
    eprintln!("validate_x86: {changed} vectors expected as upstream's: {UPSTREAM_CHANGED:x?}");
    // libpfm4 4.13's file holds 1,181 vectors; issue 12 asks for all of them.
    assert_eq!(
        vectors.len(),
        VECTORS_4_13,
        "vectors read from {}",
        file.display()
    );
    let lib = Library::new(Host::none(), Options::new().encode_inactive(true));
    let mut per_pmu: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut skipped = 0;
    for v in &vectors {
        let pmu = v.name.split("::").next().unwrap_or_default();
        if !v.name.contains("::") || lib.pmu(pmu).is_none() {
            skipped += 1;
            continue;
        }
        let e = per_pmu.entry(pmu.to_string()).or_default();
        e.0 += 1;
        match check(&lib, v) {
            None => e.1 += 1,
            Some(why) => failures.push(why),
        }
    }
    for (pmu, (n, ok)) in &per_pmu {
        eprintln!("validate_x86 {pmu}: {ok}/{n} vectors pass");
    }
    let run: usize = per_pmu.values().map(|t| t.0).sum();
    let passed: usize = per_pmu.values().map(|t| t.1).sum();
    eprintln!(
        "validate_x86: {passed} of {} vectors pass ({run} run, {skipped} skipped for PMUs pfmlib lacks)",
        vectors.len()
    );
    assert!(
        failures.is_empty(),
        "{} vectors fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(skipped, 0, "every vector must run: {skipped} skipped");
    assert_eq!(passed, vectors.len(), "every vector must pass");
}

#[test]
fn the_c_file_reader() {
    let text = r#"
static const test_event_t x86_test_events[]={
	{ SRC_LINE,
	  .name = "core::INST_RETIRED:ANY_P",
	  .ret  = PFM_SUCCESS,
	  .count = 2,
	  .codes[0] = 0x5300c0ull,
	  .codes[1] = 12, /* note */
	  .fstr = "core::INST_RETIRED:ANY_P:k=1",
	},
	{ SRC_LINE,
	  .name = "core::INST_RETIRED:DEAD",
	  .ret  = PFM_ERR_ATTR, /* cannot know */
	},
};
"#;
    let v = parse_vectors(text).expect("parsed");
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].name, "core::INST_RETIRED:ANY_P");
    assert_eq!(v[0].count, 2);
    assert_eq!(v[0].codes.get(&0), Some(&0x5300c0));
    assert_eq!(v[0].codes.get(&1), Some(&12));
    assert_eq!(v[0].fstr.as_deref(), Some("core::INST_RETIRED:ANY_P:k=1"));
    assert_eq!((v[1].ret, v[1].count, v[1].fstr.as_ref()), (-8, 0, None));
    assert!(v[0].line < v[1].line);
}
