//! The JSON lines of `pfm check --json`, written straight into a byte
//! buffer: no value tree per event. The bytes are serde_json's compact form
//! of the same objects: keys in sorted order (serde_json's map without
//! `preserve_order`), integers in decimal, codes as `0x` hex strings, and
//! strings escaped as serde_json escapes them (`\"`, `\\`, `\b \t \n \f \r`,
//! other control characters as `\u00xx`, everything else as is). The tests
//! compare both over thousands of events.

use pfmlib::{Encoding, Error, PerfAttr};
use std::fmt::Write as _;

/// The line of an event that encoded:
/// `{"codes":[..],"event":..,"fstr":..,"idx":..,"ok":true[,"perf":{..}],"pmu":..}`.
pub fn write_encoding(out: &mut Vec<u8>, event: &str, enc: &Encoding) {
    out.extend_from_slice(b"{\"codes\":[");
    for (i, c) in enc.codes.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'"');
        push_hex(out, *c);
        out.push(b'"');
    }
    out.extend_from_slice(b"],\"event\":");
    push_str(out, event);
    out.extend_from_slice(b",\"fstr\":");
    push_str(out, &enc.fstr);
    out.extend_from_slice(b",\"idx\":");
    push_u64(out, enc.idx.into());
    out.extend_from_slice(b",\"ok\":true");
    if let Some(p) = &enc.perf {
        out.extend_from_slice(b",\"perf\":");
        write_perf(out, p, enc.cpu);
    }
    out.extend_from_slice(b",\"pmu\":");
    push_str(out, enc.pmu);
    out.push(b'}');
}

/// The perf_event_attr object, keys sorted (`cpu` only when requested).
fn write_perf(out: &mut Vec<u8>, p: &PerfAttr, cpu: Option<i32>) {
    let hex = |out: &mut Vec<u8>, key: &[u8], v: u64| {
        out.extend_from_slice(key);
        out.push(b'"');
        push_hex(out, v);
        out.push(b'"');
    };
    hex(out, b"{\"config\":", p.config);
    hex(out, b",\"config1\":", p.config1);
    hex(out, b",\"config2\":", p.config2);
    if let Some(cpu) = cpu {
        out.extend_from_slice(b",\"cpu\":");
        push_i64(out, cpu.into());
    }
    for (key, v) in [
        (&b",\"exclude_guest\":"[..], p.exclude_guest),
        (b",\"exclude_host\":", p.exclude_host),
        (b",\"exclude_hv\":", p.exclude_hv),
        (b",\"exclude_kernel\":", p.exclude_kernel),
        (b",\"exclude_user\":", p.exclude_user),
        (b",\"exclusive\":", p.exclusive),
        (b",\"freq\":", p.freq),
        (b",\"pinned\":", p.pinned),
    ] {
        out.extend_from_slice(key);
        out.extend_from_slice(if v { b"true" } else { b"false" });
    }
    out.extend_from_slice(b",\"precise_ip\":");
    push_u64(out, p.precise_ip.into());
    out.extend_from_slice(b",\"sample_period\":");
    push_u64(out, p.sample_period);
    out.extend_from_slice(b",\"type\":");
    push_u64(out, p.type_.into());
    out.push(b'}');
}

/// The line of an event that did not encode:
/// `{"error":{"code":..,"message":..,"name":..},"event":..,"ok":false}`.
pub fn write_error(out: &mut Vec<u8>, event: &str, e: &Error) {
    out.extend_from_slice(b"{\"error\":{\"code\":");
    push_i64(out, e.code().into());
    out.extend_from_slice(b",\"message\":\"");
    // The message as `Display` gives it, escaped piece by piece.
    let _ = write!(Escaped(out), "{e}");
    out.extend_from_slice(b"\",\"name\":");
    push_str(out, e.kind().name());
    out.extend_from_slice(b"},\"event\":");
    push_str(out, event);
    out.extend_from_slice(b",\"ok\":false}");
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// `v` as `{:#x}` writes it: `0x`, lowercase digits, no leading zeros.
pub fn push_hex(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(b"0x");
    let digits = (64 - v.leading_zeros() as usize).div_ceil(4).max(1);
    for i in (0..digits).rev() {
        out.push(HEX_DIGITS[((v >> (4 * i)) & 0xf) as usize]);
    }
}

/// `v` in decimal.
pub fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// `v` in decimal, with its sign.
pub fn push_i64(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    push_u64(out, v.unsigned_abs());
}

/// `s` as a JSON string, quotes included.
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    push_escaped(out, s);
    out.push(b'"');
}

/// How serde_json writes byte `b` inside a string: `0` as is, `u` as
/// `\u00xx`, another letter as that backslash escape.
fn escape_of(b: u8) -> u8 {
    match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x09 => b't',
        0x0a => b'n',
        0x0c => b'f',
        0x0d => b'r',
        0x00..=0x1f => b'u',
        _ => 0,
    }
}

/// `s` escaped, without quotes; runs of plain bytes are copied at once.
fn push_escaped(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc = escape_of(b);
        if esc == 0 {
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        out.push(b'\\');
        out.push(esc);
        if esc == b'u' {
            out.extend_from_slice(b"00");
            out.push(HEX_DIGITS[(b >> 4) as usize]);
            out.push(HEX_DIGITS[(b & 0xf) as usize]);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// A `fmt::Write` that escapes what it is given into a JSON string's body.
struct Escaped<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        push_escaped(self.0, s);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
