//! IBM Z (s390x) facts, read as libpfm4's `pfmlib_s390x_cpumf.c` reads
//! them: the machine type (`Type:` of `/proc/sysinfo`, C's `strtol`) and the
//! counter facility's first and second version numbers (`CPU-MF: Counter
//! facility: version=A.B` of `/proc/service_levels`, `sscanf("%u.%u")`).
//!
//! libpfm4 reads lines with its `pfmlib_getl`, which gives up on a last line
//! without a newline: such a line is not looked at here either.

/// Where the machine type is.
pub(crate) const SYSINFO: &str = "/proc/sysinfo";
/// Where the counter facility's versions are.
pub(crate) const SERVICE_LEVELS: &str = "/proc/service_levels";
/// The line prefix of the counter facility's versions.
const CF_VERSION: &str = "CPU-MF: Counter facility: version=";

/// The facts of an s390x host that choose `cpum_cf`'s counter sets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct S390xFacts {
    /// The machine type (`2964` is a z13, `8561` a z15, `9175` a z17); 0
    /// when `/proc/sysinfo` has no `Type:` line or no number there.
    pub machine_type: i64,
    /// The counter facility's first version number (`cfvn`; 0: unknown).
    pub cfvn: u32,
    /// The counter facility's second version number (`csvn`; 0: unknown).
    pub csvn: u32,
}

impl S390xFacts {
    /// The facts from the texts of `/proc/sysinfo` and
    /// `/proc/service_levels` (`None`: absent).
    pub fn from_files(sysinfo: Option<&str>, service_levels: Option<&str>) -> S390xFacts {
        let (cfvn, csvn) = service_levels.map_or((0, 0), cf_versions);
        S390xFacts {
            machine_type: sysinfo.map_or(0, machine_type),
            cfvn,
            csvn,
        }
    }
}

/// The lines `pfmlib_getl` returns: each ended by a newline (a last line
/// without one is dropped), seen by the C string functions up to a NUL.
fn getl_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut parts: Vec<&str> = text.split('\n').collect();
    parts.pop(); // after the last newline: nothing, or a line getl drops
    parts
        .into_iter()
        .map(|l| l.split('\0').next().unwrap_or_default())
}

/// C's `isspace` in the C locale.
fn c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// libpfm4's `get_machine_type`: the first line starting with `Type:`, its
/// value by `strtol(.., 10)` (0 when none).
fn machine_type(text: &str) -> i64 {
    getl_lines(text)
        .find_map(|l| l.strip_prefix("Type:"))
        .map_or(0, strtol10)
}

/// C's `strtol(s, NULL, 10)`: leading blanks, a sign, digits; saturated.
fn strtol10(s: &str) -> i64 {
    let b = s.as_bytes();
    let mut i = b.iter().take_while(|&&c| c_space(c)).count();
    let neg = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let mut v: i64 = 0;
    for &c in b[i..].iter().take_while(|c| c.is_ascii_digit()) {
        let d = i64::from(c - b'0');
        v = match v.checked_mul(10).and_then(|v| {
            if neg {
                v.checked_sub(d)
            } else {
                v.checked_add(d)
            }
        }) {
            Some(v) => v,
            None => return if neg { i64::MIN } else { i64::MAX },
        };
    }
    v
}

/// One `%u` conversion of glibc's `sscanf` at the start of `s`: the value
/// (as `unsigned int`) and the rest, or `None` when no digit is there.
pub(crate) fn scan_u32(s: &str) -> Option<(u32, &str)> {
    let b = s.as_bytes();
    let mut i = b.iter().take_while(|&&c| c_space(c)).count();
    let neg = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    // strtoul: out of range is ULONG_MAX whatever the sign; a minus sign
    // negates (modulo 2^64); the store into an unsigned int keeps 32 bits.
    let mut v: u64 = 0;
    let mut over = false;
    for &c in &b[i..i + digits] {
        match v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(c - b'0')))
        {
            Some(n) => v = n,
            None => over = true,
        }
    }
    let v = if over {
        u64::MAX
    } else if neg {
        v.wrapping_neg()
    } else {
        v
    };
    Some((v as u32, &s[i + digits..]))
}

/// Is `s` nothing but blanks (where `sscanf` reaches the end of its input
/// before any conversion, and answers `EOF`)?
pub(crate) fn only_blanks(s: &str) -> bool {
    s.bytes().all(c_space)
}

/// libpfm4's `get_cf_version`: the first line starting with the prefix,
/// `%u.%u` after it; both 0 unless the two numbers are there.
fn cf_versions(text: &str) -> (u32, u32) {
    let Some(rest) = getl_lines(text).find_map(|l| l.strip_prefix(CF_VERSION)) else {
        return (0, 0);
    };
    scan_u32(rest)
        .and_then(|(a, r)| Some((a, scan_u32(r.strip_prefix('.')?)?.0)))
        .unwrap_or((0, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_types_read_like_strtol() {
        assert_eq!(machine_type("Manufacturer:   IBM\nType:   8561\n"), 8561);
        assert_eq!(machine_type("Type: 3931 \nType: 2964\n"), 3931);
        assert_eq!(machine_type("Type:\t+2097x\n"), 2097);
        assert_eq!(machine_type("Type: -9175\n"), -9175);
        assert_eq!(machine_type("Type:\n8561\n"), 0);
        assert_eq!(machine_type(" Type: 8561\n"), 0);
        assert_eq!(machine_type("type: 8561\n"), 0);
        // The last line without a newline is never read.
        assert_eq!(machine_type("Type: 8561"), 0);
        assert_eq!(machine_type("Type: 99999999999999999999\n"), i64::MAX);
        assert_eq!(machine_type("Type: 85\x0061\n"), 85);
        assert_eq!(machine_type(""), 0);
    }

    #[test]
    fn versions_read_like_sscanf() {
        let v = |s: &str| cf_versions(s);
        assert_eq!(
            v("CPU-MF: Counter facility: version=3.6 authorization=002f\n"),
            (3, 6)
        );
        assert_eq!(v("x\nCPU-MF: Counter facility: version=1.2\n"), (1, 2));
        assert_eq!(v("CPU-MF: Counter facility: version= 3. 5\n"), (3, 5));
        assert_eq!(v("CPU-MF: Counter facility: version=3 .5\n"), (0, 0));
        assert_eq!(v("CPU-MF: Counter facility: version=3\n"), (0, 0));
        assert_eq!(
            v("CPU-MF: Counter facility: version=-1.+7\n"),
            (u32::MAX, 7)
        );
        assert_eq!(
            v("CPU-MF: Counter facility: version=4294967299.1\n"),
            (3, 1)
        );
        assert_eq!(
            v("CPU-MF: Counter facility: version=99999999999999999999.1\n"),
            (u32::MAX, 1)
        );
        assert_eq!(v("CPU-MF: Counter facility: version=3.6"), (0, 0));
        assert_eq!(
            v("CPU-MF: Counter facility: version=x\nCPU-MF: Counter facility: version=3.6\n"),
            (0, 0)
        );
        assert_eq!(v(""), (0, 0));
    }

    #[test]
    fn facts_of_absent_files() {
        assert_eq!(S390xFacts::from_files(None, None), S390xFacts::default());
    }
}
