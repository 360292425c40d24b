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

/// How serde_json writes each byte inside a string: `0` as is, `u` as
/// `\u00xx`, another letter as that backslash escape.
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0a] = b'n';
    t[0x0c] = b'f';
    t[0x0d] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// `0x01` in every byte of a word.
const ONES: u64 = u64::from_le_bytes([1; 8]);
/// `0x80` in every byte of a word.
const HIGHS: u64 = ONES * 0x80;

/// True when a byte of `w` is below `0x20`, `"` or `\` (needs escaping).
/// Exact as a whole: a borrow can only mark a byte above one that matches.
fn word_needs_escape(w: u64) -> bool {
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w;
    let quote = zero_byte(w ^ (ONES * b'"' as u64));
    let backslash = zero_byte(w ^ (ONES * b'\\' as u64));
    (below_space | quote | backslash) & HIGHS != 0
}

/// `s` escaped, without quotes; runs of plain bytes are copied at once, and
/// looked through eight at a time.
fn push_escaped(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if let Some(word) = bytes[i..].first_chunk::<8>() {
            if !word_needs_escape(u64::from_le_bytes(*word)) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let esc = ESCAPE[b as usize];
        if esc != 0 {
            out.extend_from_slice(&bytes[start..i]);
            out.extend_from_slice(&[b'\\', esc]);
            if esc == b'u' {
                out.extend_from_slice(b"00");
                out.push(HEX_DIGITS[(b >> 4) as usize]);
                out.push(HEX_DIGITS[(b & 0xf) as usize]);
            }
            start = i + 1;
        }
        i += 1;
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
