//! The Arm CPUs' identities from `/proc/cpuinfo`, read exactly as libpfm4
//! upstream reads them (`pfmlib_init_cpuids` and `pfm_arm_detect` in
//! `pfmlib_arm.c`, June 2026, which replaced 4.13's single lookup so that a
//! machine with two kinds of cores has both detected), quirks included:
//!
//! - the file is read line by line; a last line without a newline is never
//!   looked at (libpfm4's `pfmlib_getl` reports end of file for it);
//! - blank lines and lines without `:` are skipped;
//! - a line counts when its key (the text before the first `:`) *starts
//!   with* `CPU implementer`, `CPU architecture` or `CPU part`; the value
//!   starts two bytes after the `:` (the colon and one space) and loses its
//!   last byte (the newline), and is read with C's `strtoul(value, NULL, 0)`
//!   (so `0x41` is hexadecimal, `41` decimal, `041` octal) into a C `int`;
//! - every third such line read completes an identity (the values persist
//!   from one identity to the next), which is recorded when the *next* line
//!   is read (a file ending right after it records nothing) and unless one
//!   with the same implementer and part is already recorded;
//! - at most 8 identities are kept (libpfm4 stops reading at a ninth).
//!
//! A PMU is detected when one of the identities has its implementer and
//! part; the architecture is read but decides nothing.

use super::arch::Arch;

/// What libpfm4 knows of one kind of Arm core: the three `/proc/cpuinfo`
/// values it reads, as it reads them (`strtoul(.., 0)` stored in a C `int`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ArmCpuId {
    /// `CPU implementer` (0x41 Arm, 0x43 Cavium, 0x48 HiSilicon, ...).
    pub implementer: i32,
    /// `CPU part` (0xd0c Neoverse N1, 0xd40 Neoverse V1, ...).
    pub part: i32,
    /// `CPU architecture` (`8`; `AArch64` reads as 0). libpfm4 reads it but
    /// no PMU depends on it.
    pub architecture: i32,
}

/// The attribute names libpfm4 looks for.
const IMPLEMENTER: &[u8] = b"CPU implementer";
const PART: &[u8] = b"CPU part";
const ARCHITECTURE: &[u8] = b"CPU architecture";

/// libpfm4's `MAX_ARM_CPUIDS`.
pub const MAX_ARM_CPUIDS: usize = 8;

impl ArmCpuId {
    /// The first identity libpfm4 built for `arch` records (see
    /// [`ArmCpuId::all_from_cpuinfo`]).
    pub fn from_cpuinfo(text: &[u8], arch: Arch) -> Option<ArmCpuId> {
        Self::all_from_cpuinfo(text, arch).first().copied()
    }

    /// Every distinct identity (implementer and part) libpfm4 built for
    /// `arch` records from the text of `/proc/cpuinfo` (its `long` is 32
    /// bits on 32-bit Arm, 64 elsewhere), in file order, at most 8
    /// (libpfm4's `MAX_ARM_CPUIDS`).
    pub fn all_from_cpuinfo(text: &[u8], arch: Arch) -> Vec<ArmCpuId> {
        let long_bits = if arch == Arch::Arm { 32 } else { 64 };
        let mut ids: Vec<ArmCpuId> = Vec::new();
        let mut cur = ArmCpuId {
            implementer: 0,
            part: 0,
            architecture: 0,
        };
        let mut nattrs = 0;
        // Only newline-terminated lines: the rest of the file is never seen.
        for line in text.split_inclusive(|&b| b == b'\n') {
            if line.last() != Some(&b'\n') {
                break;
            }
            if nattrs == 3 {
                let known = ids
                    .iter()
                    .any(|i| i.implementer == cur.implementer && i.part == cur.part);
                if !known {
                    if ids.len() == MAX_ARM_CPUIDS {
                        break;
                    }
                    ids.push(cur);
                }
                nattrs = 0;
            }
            let s = c_str(line);
            if matches!(s.first(), Some(b'\n' | b'\r')) {
                continue;
            }
            let Some(colon) = s.iter().position(|&b| b == b':') else {
                continue;
            };
            let (key, v) = (&s[..colon], s.get(colon + 2..).unwrap_or_default());
            let v = &v[..v.len().saturating_sub(1)];
            let value = strtoul0(v, long_bits) as i32;
            if key.starts_with(IMPLEMENTER) {
                cur.implementer = value;
            } else if key.starts_with(ARCHITECTURE) {
                cur.architecture = value;
            } else if key.starts_with(PART) {
                cur.part = value;
            } else {
                continue;
            }
            nattrs += 1;
        }
        ids
    }
}

/// The bytes of a line as C string functions see them: up to the first NUL.
fn c_str(line: &[u8]) -> &[u8] {
    line.iter()
        .position(|&b| b == 0)
        .map_or(line, |end| &line[..end])
}

/// C's `strtoul(s, NULL, 0)` with a `long` of `long_bits` bits: leading
/// white space, a sign, then `0x` and hexadecimal digits, `0` and octal
/// digits, or decimal digits; `ULONG_MAX` on overflow; a minus sign negates
/// in unsigned arithmetic; 0 when there are no digits.
pub(crate) fn strtoul0(s: &[u8], long_bits: u32) -> u64 {
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
    let digit = |c: Option<&u8>, radix: u32| c.and_then(|&c| (c as char).to_digit(radix));
    let radix = if s.get(i) == Some(&b'0') && matches!(s.get(i + 1), Some(b'x' | b'X')) {
        if digit(s.get(i + 2), 16).is_some() {
            i += 2;
            16
        } else {
            // "0x" without a hexadecimal digit: the "0" alone is read.
            return 0;
        }
    } else if s.get(i) == Some(&b'0') {
        8
    } else {
        10
    };
    let max = if long_bits == 32 {
        u64::from(u32::MAX)
    } else {
        u64::MAX
    };
    let mut v: u64 = 0;
    let mut overflow = false;
    while let Some(d) = digit(s.get(i), radix) {
        match v
            .checked_mul(u64::from(radix))
            .and_then(|x| x.checked_add(u64::from(d)))
        {
            Some(x) if x <= max => v = x,
            _ => overflow = true,
        }
        i += 1;
    }
    if overflow {
        max
    } else if negative {
        v.wrapping_neg() & max
    } else {
        v
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

    fn ids(text: &str, arch: Arch) -> Vec<(i32, i32, i32)> {
        ArmCpuId::all_from_cpuinfo(text.as_bytes(), arch)
            .iter()
            .map(|a| (a.implementer, a.part, a.architecture))
            .collect()
    }

    #[test]
    fn a_recorded_graviton2() {
        // The second processor's block is incomplete: nothing more recorded.
        assert_eq!(ids(GRAVITON2, Arch::Aarch64), [(0x41, 0xd0c, 8)]);
    }

    #[test]
    fn every_kind_of_core_once() {
        let core = |part: &str| {
            format!("CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: {part}\nCPU revision\t: 0\n\n")
        };
        let t = [core("0xd05"), core("0xd05"), core("0xd0b"), core("0xd05")].concat();
        assert_eq!(ids(&t, Arch::Aarch64), [(0x41, 0xd05, 8), (0x41, 0xd0b, 8)]);
        // At most eight.
        let t: String = (0..10).map(|p| core(&format!("{p}"))).collect();
        assert_eq!(ids(&t, Arch::Aarch64).len(), MAX_ARM_CPUIDS);
    }

    #[test]
    fn an_identity_is_recorded_when_the_next_line_is_read() {
        let t = "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\n";
        assert_eq!(ids(t, Arch::Aarch64), []);
        assert_eq!(ids(&format!("{t}\n"), Arch::Aarch64), [(0x41, 0xd0c, 8)]);
        // Values persist: the third attribute of the next block completes it.
        let t = "CPU implementer\t: 0x41\nCPU part\t: 0xd40\n\nCPU architecture: 8\n\n";
        assert_eq!(ids(t, Arch::Aarch64), [(0x41, 0xd40, 8)]);
        // Keys match by prefix; lines without a colon are skipped.
        let t = "CPU implementer (main)\t: 0x43\ngarbage\nCPU part number\t: 0x0af\nCPU architecture: 8\n\n";
        assert_eq!(ids(t, Arch::Aarch64), [(0x43, 0xaf, 8)]);
        assert_eq!(ids("", Arch::Aarch64), []);
    }

    #[test]
    fn the_value_starts_two_bytes_after_the_colon_and_loses_one_byte() {
        // No space after the colon: "0x41" loses its "0", "x41" reads as 0.
        let t = "CPU implementer:0x41\nCPU part: 0xd0c\nCPU architecture: 8\n\n";
        assert_eq!(ids(t, Arch::Aarch64), [(0, 0xd0c, 8)]);
        // A carriage return before the newline stays and ends the number.
        let t = "CPU implementer\t: 0x41\r\nCPU part\t: 0xd0c\nCPU architecture: 8\n\n";
        assert_eq!(ids(t, Arch::Aarch64), [(0x41, 0xd0c, 8)]);
    }

    #[test]
    fn strtoul_in_base_0() {
        let t = |s: &str| strtoul0(s.as_bytes(), 64);
        assert_eq!(t("0x41"), 0x41);
        assert_eq!(t("  0XD0C"), 0xd0c);
        assert_eq!(t("41"), 41);
        assert_eq!(t("d0c"), 0);
        assert_eq!(t("017"), 0o17);
        assert_eq!(t("-1"), u64::MAX);
        assert_eq!(t("+7"), 7);
        assert_eq!(t("0x"), 0);
        assert_eq!(t("0xg"), 0);
        assert_eq!(t("AArch64"), 0);
        assert_eq!(t(""), 0);
        assert_eq!(t("0xfffffffffffffffff"), u64::MAX);
        assert_eq!(strtoul0(b"0x100000000", 32), u64::from(u32::MAX));
        assert_eq!(strtoul0(b"-1", 32), u64::from(u32::MAX));
        assert_eq!(strtoul0(b"0xffffffff", 64) as i32, -1);
    }
}
