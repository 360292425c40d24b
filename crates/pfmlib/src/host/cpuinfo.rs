//! The Arm CPU's identity from `/proc/cpuinfo`, read exactly as libpfm4
//! 4.13 reads it (`pfmlib_getcpuinfo_attr` and `pfm_arm_detect` in
//! `pfmlib_arm.c`), quirks included:
//!
//! - the file is read line by line; a last line without a newline is never
//!   looked at (libpfm4's `pfmlib_getl` reports end of file for it);
//! - blank lines are skipped; a line without `:` ends the search with
//!   "not found";
//! - a line matches when its key (the text before the first `:`) *starts
//!   with* the attribute name (`CPU implementer\t` matches `CPU implementer`);
//! - the value starts two bytes after the `:` (the colon and one space) and
//!   loses its last byte (the newline);
//! - when no line matches, the value of the last line read is the answer;
//! - values are read with C's `strtol(value, NULL, 16)` into a C `int`.
//!
//! All three attributes (`CPU implementer`, `CPU part`, `CPU architecture`)
//! must be "found" for any Arm PMU to be detected; only the first two decide
//! which.

use super::arch::Arch;

/// What libpfm4 knows of an Arm CPU: the three `/proc/cpuinfo` values it
/// reads, as it reads them (`strtol(.., 16)` stored in a C `int`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ArmCpuId {
    /// `CPU implementer` (0x41 Arm, 0x43 Cavium, 0x48 HiSilicon, ...).
    pub implementer: i32,
    /// `CPU part` (0xd0c Neoverse N1, 0xd40 Neoverse V1, ...).
    pub part: i32,
    /// `CPU architecture`, read in base 16 as libpfm4 does (`8` → 8,
    /// `AArch64` → 0xaa). libpfm4 reads it but no PMU depends on it.
    pub architecture: i32,
}

/// The attribute names libpfm4 looks up.
const IMPLEMENTER: &str = "CPU implementer";
const PART: &str = "CPU part";
const ARCHITECTURE: &str = "CPU architecture";

/// libpfm4's value buffer holds 127 bytes and a NUL.
const VALUE_MAX: usize = 127;

impl ArmCpuId {
    /// Reads the identity from the text of `/proc/cpuinfo` as libpfm4 built
    /// for `arch` does (its `long` is 32 bits on 32-bit Arm, 64 elsewhere);
    /// `None` when libpfm4 would find an attribute missing.
    pub fn from_cpuinfo(text: &[u8], arch: Arch) -> Option<ArmCpuId> {
        let long_bits = if arch == Arch::Arm { 32 } else { 64 };
        let get = |attr: &str| lookup(text, attr).map(|v| strtol16(&v, long_bits) as i32);
        Some(ArmCpuId {
            implementer: get(IMPLEMENTER)?,
            part: get(PART)?,
            architecture: get(ARCHITECTURE)?,
        })
    }
}

/// The bytes of a line as C string functions see them: up to the first NUL.
fn c_str(line: &[u8]) -> &[u8] {
    line.iter()
        .position(|&b| b == 0)
        .map_or(line, |end| &line[..end])
}

/// libpfm4's `pfmlib_getcpuinfo_attr`: the value of the first line whose key
/// starts with `attr`, else the value of the last line read; `None` when the
/// search fails (a non-blank line without `:`) or reads no line at all.
fn lookup(text: &[u8], attr: &str) -> Option<Vec<u8>> {
    let mut value: Option<&[u8]> = None;
    // Only newline-terminated lines: the rest of the file is never seen.
    for line in text.split_inclusive(|&b| b == b'\n') {
        if line.last() != Some(&b'\n') {
            break;
        }
        let s = c_str(line);
        if s.first() == Some(&b'\n') {
            continue;
        }
        let colon = s.iter().position(|&b| b == b':')?;
        let v = s.get(colon + 2..).unwrap_or_default();
        let v = &v[..v.len().saturating_sub(1)];
        value = Some(v);
        if s[..colon].starts_with(attr.as_bytes()) {
            break;
        }
    }
    value.map(|v| v[..v.len().min(VALUE_MAX)].to_vec())
}

/// C's `strtol(s, NULL, 16)` with a `long` of `long_bits` bits: leading
/// white space, a sign, an optional `0x`, hexadecimal digits; saturated at
/// the `long` range; 0 when there are no digits.
pub(crate) fn strtol16(s: &[u8], long_bits: u32) -> i64 {
    let mut i = 0;
    while s
        .get(i)
        .is_some_and(|&c| c == b' ' || (b'\t'..=b'\r').contains(&c))
    {
        i += 1;
    }
    let negative = s.get(i) == Some(&b'-');
    if matches!(s.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let hex = |c: Option<&u8>| c.and_then(|&c| (c as char).to_digit(16));
    if s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && hex(s.get(i + 2)).is_some()
    {
        i += 2;
    }
    let max = if long_bits == 32 {
        i64::from(i32::MAX)
    } else {
        i64::MAX
    };
    let mut v: i64 = 0;
    let mut overflow = false;
    while let Some(d) = hex(s.get(i)) {
        match v.checked_mul(16).and_then(|x| x.checked_add(i64::from(d))) {
            Some(x) if x <= max => v = x,
            _ => overflow = true,
        }
        i += 1;
    }
    match (overflow, negative) {
        (true, false) => max,
        (true, true) => -max - 1,
        (false, true) => -v,
        (false, false) => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRAVITON2: &str = "processor\t: 0\nBogoMIPS\t: 243.75\n\
        Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\n\
        CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n\
        CPU part\t: 0xd0c\nCPU revision\t: 1\n\n\
        processor\t: 1\nCPU implementer\t: 0x48\n\n";

    fn id(text: &str, arch: Arch) -> Option<ArmCpuId> {
        ArmCpuId::from_cpuinfo(text.as_bytes(), arch)
    }

    #[test]
    fn a_recorded_graviton2() {
        let a = id(GRAVITON2, Arch::Aarch64).unwrap();
        assert_eq!((a.implementer, a.part, a.architecture), (0x41, 0xd0c, 8));
    }

    #[test]
    fn keys_match_by_prefix_and_the_first_match_wins() {
        let t = "CPU implementer extra\t: 0x43\nCPU part\t: 0x0af\nCPU architecture: 8\n\
                 CPU implementer\t: 0x41\n";
        let a = id(t, Arch::Aarch64).unwrap();
        assert_eq!((a.implementer, a.part), (0x43, 0xaf));
    }

    #[test]
    fn a_missing_attribute_takes_the_last_value_read() {
        // No "CPU part": the value of the last line ("8") is used.
        let t = "CPU implementer\t: 0x41\nCPU architecture: 8\n\n";
        assert_eq!(id(t, Arch::Aarch64).unwrap().part, 8);
        // An x86 file: nothing matches, the last line has an empty value.
        let x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\npower management:\n\n";
        let a = id(x86, Arch::Aarch64).unwrap();
        assert_eq!((a.implementer, a.part, a.architecture), (0, 0, 0));
    }

    #[test]
    fn failures() {
        // A line without a colon ends the search: not found.
        assert_eq!(
            id("garbage\nCPU implementer\t: 0x41\n", Arch::Aarch64),
            None
        );
        // No complete line at all.
        assert_eq!(id("", Arch::Aarch64), None);
        assert_eq!(id("CPU implementer\t: 0x41", Arch::Aarch64), None);
        assert_eq!(id("\n\n", Arch::Aarch64), None);
    }

    #[test]
    fn the_value_starts_two_bytes_after_the_colon_and_loses_one_byte() {
        // No space after the colon: "0x41" loses its "0", "x41" reads as 0.
        let t = "CPU implementer:0x41\nCPU part: 0xd0c\nCPU architecture: 8\n";
        assert_eq!(id(t, Arch::Aarch64).unwrap().implementer, 0);
        // A carriage return before the newline stays and ends the number.
        let t = "CPU implementer\t: 0x41\r\nCPU part\t: 0xd0c\nCPU architecture: 8\n";
        assert_eq!(id(t, Arch::Aarch64).unwrap().implementer, 0x41);
    }

    #[test]
    fn strtol_in_base_16() {
        let t = |s: &str| strtol16(s.as_bytes(), 64);
        assert_eq!(t("0x41"), 0x41);
        assert_eq!(t("  0XD0C"), 0xd0c);
        assert_eq!(t("d0c"), 0xd0c);
        assert_eq!(t("-0x1"), -1);
        assert_eq!(t("+7"), 7);
        assert_eq!(t("0x"), 0);
        assert_eq!(t("0xg"), 0);
        assert_eq!(t("AArch64"), 0xaa);
        assert_eq!(t(""), 0);
        assert_eq!(t("fffffffffffffffff"), i64::MAX);
        assert_eq!(t("-fffffffffffffffff"), i64::MIN);
        assert_eq!(strtol16(b"100000000", 32), i64::from(i32::MAX));
        assert_eq!(strtol16(b"ffffffff", 64) as i32, -1);
    }
}
