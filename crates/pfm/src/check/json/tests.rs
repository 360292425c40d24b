//! The direct writer against serde_json's output of the same objects (the
//! code `pfm check --json` used before), over every `nhm` event, unit mask
//! and modifier, a sample of every other PMU, failures, and strings with
//! quotes, backslashes, control characters and non-ASCII text.

use super::*;
use crate::check::error_json;
use pfmlib::{AttrType, Library, Os, Plm};
use serde_json::json;

/// What `pfm check --json` printed for one event before the direct writer.
fn reference(ev: &str, res: &Result<Encoding, Error>) -> String {
    let enc = match res {
        Ok(enc) => enc,
        Err(e) => return error_json(ev, e).to_string(),
    };
    let mut v = json!({
        "event": ev,
        "ok": true,
        "pmu": enc.pmu,
        "fstr": enc.fstr,
        "idx": enc.idx,
        "codes": enc.codes.iter().map(|c| format!("{c:#x}")).collect::<Vec<_>>(),
    });
    if let Some(p) = &enc.perf {
        v["perf"] = json!({
            "type": p.type_,
            "config": format!("{:#x}", p.config),
            "config1": format!("{:#x}", p.config1),
            "config2": format!("{:#x}", p.config2),
            "exclude_user": p.exclude_user,
            "exclude_kernel": p.exclude_kernel,
            "exclude_hv": p.exclude_hv,
            "exclude_host": p.exclude_host,
            "exclude_guest": p.exclude_guest,
            "precise_ip": p.precise_ip,
            "sample_period": p.sample_period,
            "freq": p.freq,
            "pinned": p.pinned,
            "exclusive": p.exclusive,
        });
        if let Some(cpu) = enc.cpu {
            v["perf"]["cpu"] = cpu.into();
        }
    }
    v.to_string()
}

/// The direct writer's line for the same result.
fn direct(ev: &str, res: &Result<Encoding, Error>) -> String {
    let mut out = Vec::new();
    match res {
        Ok(enc) => write_encoding(&mut out, ev, enc),
        Err(e) => write_error(&mut out, ev, e),
    }
    String::from_utf8(out).expect("the writer writes UTF-8")
}

/// A value for a modifier, as the benchmarks choose them.
fn modifier_value(attr_type: AttrType, name: &str) -> Option<&'static str> {
    Some(match (attr_type, name) {
        (AttrType::ModBool, "k") => "=0",
        (AttrType::ModBool, "u" | "e" | "mh") => "",
        (AttrType::ModBool, _) => "=1",
        (_, "c") => "=2",
        (_, "period") => "=100000",
        (_, "freq") => "=1000",
        (_, "precise") => "=2",
        (_, "cpu") => "=3",
        (_, "ldlat") => "=5",
        (_, "thres") => "=1",
        _ => return None,
    })
}

/// Every event of `pmu` (the first `limit`) alone, with each unit mask,
/// and with its first unit mask and every modifier of `os`.
fn strings_of(lib: &Library, pmu: &str, os: Os, limit: usize) -> Vec<String> {
    let mut v = Vec::new();
    let Some(p) = lib.pmu(pmu) else { return v };
    for e in p.events().take(limit) {
        let base = format!("{pmu}::{}", e.name());
        v.push(base.clone());
        let attrs = e.attrs(os);
        let mut all = base.clone();
        for a in attrs.iter().filter(|a| a.attr_type == AttrType::Umask) {
            v.push(format!("{base}:{}", a.name));
        }
        if let Some(u) = attrs.iter().find(|a| a.attr_type == AttrType::Umask) {
            all = format!("{all}:{}", u.name);
        }
        for a in attrs.iter().filter(|a| a.attr_type != AttrType::Umask) {
            if let Some(val) = modifier_value(a.attr_type, a.name) {
                v.push(format!("{base}:{}{val}", a.name));
                all = format!("{all}:{}{val}", a.name);
            }
        }
        v.push(all);
    }
    v
}

/// Strings that fail, or carry characters JSON must escape.
fn odd_strings() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        "::",
        "nhm::",
        "nhm::NOPE",
        "NOPE",
        "nopmu::INST_RETIRED",
        "nhm::ARITH:MUL:c=300",
        "nhm::ARITH:MUL:DIV",
        "nhm::ARITH:MUL:u=2",
        "nhm::ARITH:MUL:c=1:c=2",
        "nhm::ARITH:NOPE",
        "nhm::ARITH:0x12",
        "nhm::INST_RETIRED:ANY_P:period=10",
        "perf::cycles:freq=1000:period=5",
        "perf::cycles:cpu=-1",
        "perf::cycles:precise=9",
        "itanium2::CPU_CYCLES:thres=99",
        "montecito::L3_READS_ALL_ALL:M:E",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let odd = [
        "\"quoted\"",
        "back\\slash",
        "\\\"",
        "tab\there",
        "nl\nx",
        "cr\rx",
        "\u{8}\u{c}",
        "\u{0}\u{1}\u{1f}\u{7f}",
        "é",
        "€uro",
        "日本",
        "😀",
        "\u{2028}\u{2029}",
        "a b",
        "/",
        "</script>",
    ];
    for o in odd {
        v.push(o.to_string());
        v.push(format!("nhm::{o}"));
        v.push(format!("nhm::ARITH:{o}"));
        v.push(format!("nhm::ARITH:MUL:c={o}"));
        v.push(format!("perf::cycles:{o}=1"));
        v.push(format!("{o}::INST_RETIRED"));
    }
    v
}

#[test]
fn the_direct_writer_matches_serde_json() {
    let lib = Library::global();
    let mut compared = 0;
    let (mut ok, mut failed) = (0, 0);
    let mut perf = 0;
    for os in [Os::None, Os::PerfEvent, Os::PerfEventExt] {
        let mut strings = strings_of(lib, "nhm", os, usize::MAX);
        for pmu in lib.pmus() {
            if pmu.name() != "nhm" {
                strings.extend(strings_of(lib, pmu.name(), os, 8));
            }
        }
        strings.extend(odd_strings());
        for plm in [Plm::DEFAULT, Plm::PLM3] {
            for s in &strings {
                let res = lib.encode(s, plm, os);
                let (want, got) = (reference(s, &res), direct(s, &res));
                assert_eq!(got, want, "{s:?} for {os:?}");
                compared += 1;
                match &res {
                    Ok(e) => {
                        ok += 1;
                        perf += e.perf.is_some() as usize;
                    }
                    Err(_) => failed += 1,
                }
            }
        }
    }
    eprintln!("{compared} results compared: {ok} encodings ({perf} with perf_event_attr), {failed} errors");
    assert!(compared > 5000, "{compared} strings compared");
    assert!(
        ok > 3000 && failed > 300 && perf > 1000,
        "{ok} {failed} {perf}"
    );
}

#[test]
fn numbers_and_strings_in_serde_json_form() {
    for v in [0, 1, 9, 10, 0xf, 0x10, 0xdead_beef, u64::MAX / 3, u64::MAX] {
        let (mut hex, mut dec) = (Vec::new(), Vec::new());
        push_hex(&mut hex, v);
        push_u64(&mut dec, v);
        assert_eq!(hex, format!("{v:#x}").into_bytes());
        assert_eq!(dec, v.to_string().into_bytes());
    }
    for v in [0, -1, -4, 7, i64::MIN, i64::MAX] {
        let mut dec = Vec::new();
        push_i64(&mut dec, v);
        assert_eq!(dec, v.to_string().into_bytes());
    }
    // Each character that needs escaping at each place of strings of 0-19 bytes.
    for len in 0..20 {
        for at in 0..len {
            for c in ['"', '\\', '\n', '\u{1}', '\u{1f}', 'é'] {
                let s: String = (0..len).map(|i| if i == at { c } else { 'x' }).collect();
                let mut out = Vec::new();
                push_str(&mut out, &s);
                assert_eq!(out, serde_json::to_vec(&s).unwrap(), "{s:?}");
            }
        }
    }
    let every_char: String = (0u32..0x800).filter_map(char::from_u32).collect();
    for s in [every_char.as_str(), "", "plain", "\"\\\u{0}\u{7f}😀"] {
        let mut out = Vec::new();
        push_str(&mut out, s);
        assert_eq!(out, serde_json::to_vec(s).unwrap(), "{s:?}");
    }
}

#[test]
fn words_needing_escapes_are_found() {
    let needs = |w: u64| w.to_le_bytes().iter().any(|&b| ESCAPE[b as usize] != 0);
    for b in 0..=255u8 {
        for at in 0..8 {
            for fill in [b'a', 0xff, 0x20, 0x80, 0x21] {
                let mut bytes = [fill; 8];
                bytes[at] = b;
                let w = u64::from_le_bytes(bytes);
                assert_eq!(word_needs_escape(w), needs(w), "{bytes:?}");
            }
        }
    }
    // Pseudo-random words (xorshift), and the same with bytes pushed
    // towards the boundaries (below 0x80, with bit 5 often set).
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let near = (x & 0x7f7f_7f7f_7f7f_7f7f) | ((x >> 3) & 0x2020_2020_2020_2020);
        for w in [x, near] {
            assert_eq!(word_needs_escape(w), needs(w), "{w:#x}");
        }
    }
}
