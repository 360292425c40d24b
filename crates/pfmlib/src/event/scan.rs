//! Scanning event strings: where the PMU name, the event name and the
//! attributes are, C's `strtoull` for values, quoting for messages.

/// Splits off the first token ending at `:` or `.`.
pub(crate) fn split_attr(s: &str) -> (&str, Option<&str>) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && SCAN[b[i] as usize] < COLON {
        i += 1;
    }
    if i < b.len() {
        (&s[..i], Some(&s[i + 1..]))
    } else {
        (s, None)
    }
}

/// Byte classes for scanning event strings: 0 (nothing special),
/// [`SEPARATOR`] (`,` space tab newline: refused), [`COLON`], [`DOT`].
static SCAN: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b',' as usize] = SEPARATOR;
    t[b' ' as usize] = SEPARATOR;
    t[b'\t' as usize] = SEPARATOR;
    t[b'\n' as usize] = SEPARATOR;
    t[b':' as usize] = COLON;
    t[b'.' as usize] = DOT;
    t
};
const SEPARATOR: u8 = 1;
const COLON: u8 = 2;
const DOT: u8 = 3;
/// Bytes that end an attribute token or its name: `:`, `.`, `=`.
#[cfg(test)]
static TOKEN_END: [bool; 256] = {
    let mut t = [false; 256];
    t[b':' as usize] = true;
    t[b'.' as usize] = true;
    t[b'=' as usize] = true;
    t
};

/// One attribute token found by [`scan_token`]: byte positions in the
/// attribute string, and the name's lookup key (`defs::key`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    /// Start of the name.
    pub start: usize,
    /// End of the name (the first `=`, or the end of the token).
    pub name_end: usize,
    /// Start of the value (after the first `=`), if there is one.
    pub value: Option<usize>,
    /// End of the token (the `:` or `.` that ends it, or the end).
    pub end: usize,
    /// The name's key: its bytes, capitals made small, in one word.
    pub key: u64,
}

/// Scans the token starting at `start` of `b` in one pass: where its name
/// and value are, and the name's key (as `defs::key` computes it). Eight
/// bytes at a time where eight are left.
#[inline]
pub(crate) fn scan_token(b: &[u8], start: usize) -> Token {
    // The name: up to `=`, `:` or `.`.
    let name_end = find_end(b, start, true);
    let n = name_end - start;
    let key = if n == 0 || n > 8 {
        pfmlib_defs::NO_KEY
    } else {
        name_key(b, start, n)
    };
    let mut value = None;
    let mut end = name_end;
    if b.get(name_end) == Some(&b'=') {
        value = Some(name_end + 1);
        // The value runs to the next `:` or `.` (further `=` are part of it).
        end = find_end(b, name_end + 1, false);
    }
    Token {
        start,
        name_end,
        value,
        end,
        key,
    }
}

/// Bytes of a word whose value is `c`: the lowest flagged byte is exact
/// (borrows only flag bytes above a true match).
#[inline]
fn bytes_equal(w: u64, c: u8) -> u64 {
    let x = w ^ (LO * u64::from(c));
    x.wrapping_sub(LO) & !x & HI
}

/// The first `:` or `.` (and `=` when `eq`) of `b` from `i`, or its length.
#[inline]
fn find_end(b: &[u8], mut i: usize, eq: bool) -> usize {
    while let Some(c) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        let mut m = bytes_equal(w, b':') | bytes_equal(w, b'.');
        if eq {
            m |= bytes_equal(w, b'=');
        }
        if m != 0 {
            // The flags of the three searches may each carry false ones
            // above their first true one, never below: the lowest is true.
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !(b[i] == b':' || b[i] == b'.' || (eq && b[i] == b'=')) {
        i += 1;
    }
    i
}

/// `defs::key` of the `n` bytes (1 to 8) of `b` at `start`: one load
/// where eight bytes are there, capitals made small in the word.
#[inline]
fn name_key(b: &[u8], start: usize, n: usize) -> u64 {
    let w = match b.get(start..start + 8) {
        Some(c) => u64::from_le_bytes(c.try_into().unwrap_or([0; 8])),
        None => b[start..start + n]
            .iter()
            .rev()
            .fold(0u64, |w, &c| w << 8 | u64::from(c)),
    };
    let w = if n == 8 {
        w
    } else {
        w & ((1u64 << (8 * n)) - 1)
    };
    // Per byte below 0x80: bit 7 of x + 0x3f is set from 'A' on, of
    // x + 0x25 from '[' on (no carry leaves a byte: x <= 0x7f).
    let x = w & !HI;
    let ge_a = x.wrapping_add(LO * 0x3f);
    let gt_z = x.wrapping_add(LO * 0x25);
    let upper = ge_a & !gt_z & !w & HI;
    w | upper >> 2
}

/// One `name[=value]` token of an attribute string, and the rest: the token
/// ends at `:` or `.`, its name at its first `=` (the plain form of
/// [`scan_token`], which the tests hold it to).
#[cfg(test)]
fn next_token(cur: &str) -> (&str, Option<&str>, Option<&str>) {
    let b = cur.as_bytes();
    let mut end = 0;
    let mut eq = None;
    loop {
        while end < b.len() && !TOKEN_END[b[end] as usize] {
            end += 1;
        }
        if end < b.len() && b[end] == b'=' {
            eq.get_or_insert(end);
            end += 1;
            continue;
        }
        break;
    }
    let rest = cur.get(end + 1..);
    match (eq, cur.get(..end)) {
        (Some(i), Some(tok)) => (&tok[..i], tok.get(i + 1..), rest),
        (None, Some(tok)) => (tok, None, rest),
        _ => (cur, None, None),
    }
}

/// Bytes of a word, for eight-at-a-time byte tests.
const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// An event string's layout: a separator (an error), the first `::` (the
/// end of the PMU name), where the event name starts, and the first `:` or
/// `.` after that (the start of the attributes).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub bad: Option<u8>,
    pub pmu_end: Option<usize>,
    pub start: usize,
    pub attr_at: Option<usize>,
}

/// The first separator (`,` space tab newline) of `b`, skipping eight bytes
/// at a time while none is below 0x2d (all separators are).
fn first_separator(b: &[u8]) -> Option<u8> {
    let mut i = 0;
    while i + 8 <= b.len() {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        if w.wrapping_sub(LO * 0x2d) & !w & HI != 0 {
            break;
        }
        i += 8;
    }
    b[i..]
        .iter()
        .copied()
        .find(|&c| SCAN[c as usize] == SEPARATOR)
}

/// Finds an event string's [`Layout`] in one pass over its bytes.
#[inline]
pub(crate) fn layout(b: &[u8]) -> Layout {
    let mut l = Layout {
        bad: None,
        pmu_end: None,
        start: 0,
        attr_at: None,
    };
    let mut i = 0;
    loop {
        match next_candidate(b, i) {
            Some(at) => i = at,
            None => return l,
        }
        match SCAN[b[i] as usize] {
            0 => {}
            SEPARATOR => {
                l.bad = Some(b[i]);
                return l;
            }
            c => {
                if c == COLON && l.pmu_end.is_none() && b.get(i + 1) == Some(&b':') {
                    l.pmu_end = Some(i);
                    l.start = i + 2;
                    l.attr_at = None;
                    i += 2;
                    continue;
                }
                if l.attr_at.is_none() {
                    l.attr_at = Some(i);
                    if l.pmu_end.is_some() {
                        // Both found: only a separator can still matter.
                        l.bad = first_separator(&b[i + 1..]);
                        return l;
                    }
                }
            }
        }
        i += 1;
    }
}

/// Bytes of a word that may be special in an event string: below 0x2f
/// (the separators and `.` are) or `:`. The lowest flagged byte is exact
/// (borrows only flag bytes above a true one).
#[inline]
fn candidates(w: u64) -> u64 {
    let colons = w ^ (LO * u64::from(b':'));
    (w.wrapping_sub(LO * 0x2f) & !w | colons.wrapping_sub(LO) & !colons) & HI
}

/// The first byte of `b` from `i` that [`candidates`] flags: eight bytes at
/// a time, the last few as the string's last eight shifted down.
#[inline]
fn next_candidate(b: &[u8], mut i: usize) -> Option<usize> {
    while let Some(c) = b.get(i..i + 8) {
        let m = candidates(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    let left = b.len().checked_sub(i).filter(|&n| n > 0)?;
    match b.len().checked_sub(8).and_then(|s| b.get(s..)) {
        Some(last) => {
            // The bytes before `i` are shifted out before the test, so that
            // none of them can flag a byte of the rest.
            let w = u64::from_le_bytes(last.try_into().unwrap_or([0; 8])) >> (8 * (8 - left));
            let m = candidates(w) & ((1u64 << (8 * left)) - 1);
            (m != 0).then(|| i + (m.trailing_zeros() / 8) as usize)
        }
        None => (i..b.len()).find(|&j| SCAN[b[j] as usize] != 0),
    }
}

/// Appends `s` as `{s:?}` writes it, without the formatting machinery when
/// nothing needs escaping.
pub(crate) fn push_quoted(dst: &mut String, s: &str) {
    if s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        dst.push('"');
        dst.push_str(s);
        dst.push('"');
    } else {
        use std::fmt::Write;
        let _ = write!(dst, "{s:?}");
    }
}

/// Parses an unsigned integer the way C's `strtoull(s, &end, 0)` does, and
/// requires the whole string to be consumed: optional leading white space,
/// optional sign (a minus negates modulo 2^64), `0x` hex, leading-`0` octal
/// or decimal; overflow saturates.
pub(crate) fn c_strtoull(s: &str) -> Option<u64> {
    c_strtoull_bytes(s.as_bytes())
}

/// [`c_strtoull`] over bytes.
pub(crate) fn c_strtoull_bytes(b: &[u8]) -> Option<u64> {
    // The common case, a plain decimal number (no sign, space or leading 0),
    // short enough not to overflow.
    if !b.is_empty() && b.len() <= 19 && b[0] != b'0' && b.iter().all(u8::is_ascii_digit) {
        return Some(b.iter().fold(0, |v, &c| v * 10 + (c - b'0') as u64));
    }
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let mut base = 10u64;
    if i + 1 < b.len()
        && b[i] == b'0'
        && (b[i + 1] | 0x20) == b'x'
        && i + 2 < b.len()
        && b[i + 2].is_ascii_hexdigit()
    {
        base = 16;
        i += 2;
    } else if i < b.len() && b[i] == b'0' {
        base = 8;
    }
    let start = i;
    let mut val: u64 = 0;
    let mut overflow = false;
    while i < b.len() {
        let digit = match b[i] {
            c @ b'0'..=b'9' => (c - b'0') as u64,
            c @ b'a'..=b'f' => (c - b'a' + 10) as u64,
            c @ b'A'..=b'F' => (c - b'A' + 10) as u64,
            _ => break,
        };
        if digit >= base {
            break;
        }
        match val.checked_mul(base).and_then(|v| v.checked_add(digit)) {
            Some(v) => val = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start || i != b.len() {
        return None;
    }
    if overflow {
        return Some(u64::MAX);
    }
    Some(if neg { val.wrapping_neg() } else { val })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass scanner agrees with `next_token` and `defs::key`.
    #[test]
    fn scan_token_like_next_token() {
        let samples = [
            "",
            "k",
            "k=1",
            "K=1:u",
            "c=2=3",
            "ldlat=4.u",
            ":",
            "::",
            "=",
            "=5",
            "a=",
            "ABCDEFGH=1",
            "ABCDEFGHI",
            "é=1",
            "0x12",
            "x.y:z",
            "fe_thres=10:t",
        ];
        let long = [
            "k=1:u:e:i=1:c=2:t=1:period=100000:EXCL=1:Mg:mh:cpu=1",
            "AbC:dEf.GHIJKLMNOP=QRSTUVWXYZ[@`{=z:0x12.y",
            "CYCLES_DIV_BUSY:k=0:u:e:i=1:c=2:t=1:fe_thres=10",
            "\u{7f}\u{80}ÀÉZa=é:ÿ=:==.:.",
        ];
        let mut all: Vec<String> = samples.iter().map(|s| s.to_string()).collect();
        for l in long {
            // Every suffix, so that every token sits at every distance
            // from the end of the string.
            for i in (0..l.len()).filter(|&i| l.is_char_boundary(i)) {
                all.push(l[i..].to_string());
            }
        }
        for s in &all {
            let s = s.as_str();
            let (name, val, rest) = next_token(s);
            let t = scan_token(s.as_bytes(), 0);
            assert_eq!(&s[t.start..t.name_end], name, "{s:?}");
            assert_eq!(t.value.map(|v| &s[v..t.end]), val, "{s:?}");
            assert_eq!(s.get(t.end + 1..), rest, "{s:?}");
            assert_eq!(t.key, pfmlib_defs::key(name.as_bytes()), "{s:?}");
        }
        // Every byte value in every position of an eight-byte name.
        for pos in 0..8 {
            for c in 0..=255u8 {
                let mut b = *b"abcdefgh=1";
                b[pos] = c;
                let t = scan_token(&b, 0);
                let name_end = b.iter().position(|x| b":.=".contains(x)).unwrap_or(b.len());
                assert_eq!(t.name_end, name_end, "{b:?}");
                assert_eq!(t.key, pfmlib_defs::key(&b[..name_end]), "{b:?}");
            }
        }
    }

    #[test]
    fn strtoull_like_c() {
        assert_eq!(c_strtoull("10"), Some(10));
        assert_eq!(c_strtoull("0x10"), Some(16));
        assert_eq!(c_strtoull("0X1f"), Some(31));
        assert_eq!(c_strtoull("010"), Some(8));
        assert_eq!(c_strtoull("0"), Some(0));
        assert_eq!(c_strtoull("+5"), Some(5));
        assert_eq!(c_strtoull("-1"), Some(u64::MAX));
        assert_eq!(c_strtoull("\x0b7"), Some(7));
        assert_eq!(c_strtoull("99999999999999999999999"), Some(u64::MAX));
        assert_eq!(c_strtoull("0x"), None);
        assert_eq!(c_strtoull("08"), None);
        assert_eq!(c_strtoull("12a"), None);
        assert_eq!(c_strtoull("+"), None);
        assert_eq!(c_strtoull(""), None);
        assert_eq!(c_strtoull("1234567890123456789"), Some(1234567890123456789));
        assert_eq!(c_strtoull("18446744073709551615"), Some(u64::MAX));
        assert_eq!(c_strtoull("18446744073709551616"), Some(u64::MAX));
        assert_eq!(c_strtoull("9"), Some(9));
    }

    #[test]
    fn scans_like_the_plain_searches() {
        let mut inputs = vec![String::new()];
        let alphabet = [
            "a", ":", ".", "::", ",", " ", "\t", "\n", "+", "é", "ABCDEFGH",
        ];
        for x in alphabet {
            for y in alphabet {
                for z in alphabet {
                    inputs.push(format!("{x}{y}{z}"));
                    inputs.push(format!("nhm{x}INST_RETIRED{y}ANY_P{z}k=1"));
                }
            }
        }
        // One or two odd bytes at every position of names of 0 to 19 bytes
        // (the word-at-a-time scan reads the last eight bytes separately).
        let odd = [":", ".", "::", ",", "-", ";", "/", "\t", "é", "="];
        for len in 0..20 {
            for pos in 0..=len {
                for x in odd {
                    let base = "A".repeat(len);
                    let one = format!("{}{x}{}", &base[..pos], &base[pos..]);
                    for y in odd {
                        inputs.push(format!("{one}{y}B"));
                    }
                    inputs.push(one);
                }
            }
        }
        for s in &inputs {
            let plain_split = |s: &str| match s.find([':', '.']) {
                Some(i) => (s[..i].to_string(), Some(s[i + 1..].to_string())),
                None => (s.to_string(), None),
            };
            let (a, b) = split_attr(s);
            assert_eq!(
                (a.to_string(), b.map(str::to_string)),
                plain_split(s),
                "{s:?}"
            );
            let l = layout(s.as_bytes());
            let bad = s.chars().find(|c| matches!(c, ',' | ' ' | '\t' | '\n'));
            assert_eq!(l.bad.map(char::from), bad, "{s:?}");
            if bad.is_some() {
                continue;
            }
            assert_eq!(l.pmu_end, s.find("::"), "{s:?}");
            let rest = l.pmu_end.map_or(s.as_str(), |e| &s[e + 2..]);
            assert_eq!(&s[l.start..], rest, "{s:?}");
            let (ename, attrs) = match l.attr_at {
                Some(a) => (s[l.start..a].to_string(), Some(s[a + 1..].to_string())),
                None => (s[l.start..].to_string(), None),
            };
            assert_eq!((ename, attrs), plain_split(rest), "{s:?}");
        }
    }

    #[test]
    fn quoted_like_debug() {
        for s in [
            "",
            "INST_RETIRED",
            "a'b",
            "a\"b",
            "a\\b",
            "é",
            "\u{7f}",
            "a\u{1}",
            "~!@#$%^&*()",
        ] {
            let mut q = String::from("x");
            push_quoted(&mut q, s);
            assert_eq!(q, format!("x{s:?}"));
        }
    }
}
