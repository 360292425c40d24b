//! The processor version of a POWER or PowerPC host (a leaf of `host`).
//!
//! libpfm4 reads the Processor Version Register (`mfspr 287`); Linux prints
//! the same register in `/proc/cpuinfo`, on each processor's `revision`
//! line: `revision : 2.2 (pvr 004e 1202)`, the version (high 16 bits) and
//! the revision (low 16 bits) in hexadecimal. In a compatibility mode (a
//! POWER10 partition running as a POWER9, `cpu : POWER9 (architected)`)
//! the register, and so the line, still hold the real processor's version,
//! which is what libpfm4 detects.

/// The Processor Version Register of the first processor `/proc/cpuinfo`
/// describes, if a `revision` line carries one.
pub(crate) fn pvr_from_cpuinfo(text: &str) -> Option<u32> {
    text.lines()
        .filter(|l| {
            l.split(':')
                .next()
                .is_some_and(|k| k.trim_end() == "revision")
        })
        .find_map(pvr_of_line)
}

/// `(pvr VVVV RRRR)` of one line.
fn pvr_of_line(line: &str) -> Option<u32> {
    let rest = &line[line.find("(pvr ")? + 5..];
    let inner = &rest[..rest.find(')')?];
    let mut parts = inner.split_ascii_whitespace();
    let ver = u32::from_str_radix(parts.next()?, 16).ok()?;
    let rev = u32::from_str_radix(parts.next()?, 16).ok()?;
    (ver <= 0xffff && rev <= 0xffff && parts.next().is_none()).then_some(ver << 16 | rev)
}

#[cfg(test)]
mod tests {
    use super::pvr_from_cpuinfo;

    #[test]
    fn the_first_revision_line_gives_the_version() {
        let p9 = "processor\t: 0\ncpu\t\t: POWER9, altivec supported\nclock\t\t: 3800.000000MHz\nrevision\t: 2.2 (pvr 004e 1202)\n\nprocessor\t: 1\nrevision\t: 2.3 (pvr 004e 1203)\n";
        assert_eq!(pvr_from_cpuinfo(p9), Some(0x004e_1202));
        let p10_as_p9 =
            "cpu\t\t: POWER9 (architected), altivec supported\nrevision\t: 2.0 (pvr 0080 0200)\n";
        assert_eq!(pvr_from_cpuinfo(p10_as_p9), Some(0x0080_0200));
    }

    #[test]
    fn lines_without_a_version_give_none() {
        for t in [
            "",
            "revision\t: 2.2\n",
            "revision\t: 2.2 (pvr 004e)\n",
            "revision\t: (pvr zz 1)\n",
            "revision\t: (pvr 1 2 3)\n",
            "revision\t: (pvr 10000 0)\n",
            "cpu revision\t: (pvr 004e 1202)\n",
        ] {
            assert_eq!(pvr_from_cpuinfo(t), None, "{t:?}");
        }
    }
}
