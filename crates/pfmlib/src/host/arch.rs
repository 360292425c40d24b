//! The processor architecture a host is (a leaf: `cpuinfo.rs` and the
//! host itself use it).

/// The processor architecture of a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Arch {
    /// x86 (32 or 64 bits).
    X86,
    /// 64-bit Arm.
    Aarch64,
    /// 32-bit Arm.
    Arm,
    /// IBM POWER and PowerPC (32 or 64 bits).
    PowerPc,
    /// IBM Z (64-bit s390).
    S390x,
    /// SPARC (32 or 64 bits).
    Sparc,
    /// MIPS (32 or 64 bits).
    Mips,
    /// 64-bit RISC-V (pfmlib's own: no libpfm4 builds for it).
    #[cfg_attr(feature = "serde", serde(rename = "riscv64"))]
    RiscV64,
    /// Anything else.
    Other,
}

impl Arch {
    /// The architecture this program was built for.
    pub fn native() -> Arch {
        if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
            Arch::X86
        } else if cfg!(target_arch = "aarch64") {
            Arch::Aarch64
        } else if cfg!(target_arch = "arm") {
            Arch::Arm
        } else if cfg!(any(target_arch = "powerpc", target_arch = "powerpc64")) {
            Arch::PowerPc
        } else if cfg!(target_arch = "s390x") {
            Arch::S390x
        } else if cfg!(any(target_arch = "sparc", target_arch = "sparc64")) {
            Arch::Sparc
        } else if cfg!(any(
            target_arch = "mips",
            target_arch = "mips64",
            target_arch = "mips32r6",
            target_arch = "mips64r6"
        )) {
            Arch::Mips
        } else if cfg!(target_arch = "riscv64") {
            Arch::RiscV64
        } else {
            Arch::Other
        }
    }
}

/// `/proc/cpuinfo` lines that only one architecture's kernel writes: the
/// start of a line (its key), a piece its value must hold (or `""`), and
/// the architecture. The first line matching any rule decides.
const CPUINFO_MARKS: &[(&str, &str, Arch)] = &[
    ("vendor_id", "IBM/S390", Arch::S390x),
    ("cpu model", "MIPS", Arch::Mips),
    ("isa", "rv64", Arch::RiscV64),
    ("mvendorid", "", Arch::RiscV64),
    ("revision", "(pvr ", Arch::PowerPc),
    ("pmu", "", Arch::Sparc),
    ("type", "sun4", Arch::Sparc),
    ("CPU implementer", "", Arch::Aarch64),
    ("vendor_id", "", Arch::X86),
];

/// Names of the architectures (as `uname -m`, libpfm4's `ARCH=` and Rust
/// spell them), by architecture.
const NAMES: &[(&str, Arch)] = &[
    ("x86_64", Arch::X86),
    ("x86", Arch::X86),
    ("i386", Arch::X86),
    ("i686", Arch::X86),
    ("aarch64", Arch::Aarch64),
    ("arm64", Arch::Aarch64),
    ("arm", Arch::Arm),
    ("armv7l", Arch::Arm),
    ("powerpc", Arch::PowerPc),
    ("powerpc64", Arch::PowerPc),
    ("powerpc64le", Arch::PowerPc),
    ("ppc64", Arch::PowerPc),
    ("ppc64le", Arch::PowerPc),
    ("s390x", Arch::S390x),
    ("sparc", Arch::Sparc),
    ("sparc64", Arch::Sparc),
    ("mips", Arch::Mips),
    ("mips64", Arch::Mips),
    ("mipsel", Arch::Mips),
    ("riscv64", Arch::RiscV64),
    ("riscv", Arch::RiscV64),
];

impl Arch {
    /// The architecture a name designates: `uname -m`'s names, libpfm4's
    /// `ARCH=` values and Rust's (`x86_64`, `i686`, `aarch64`, `arm64`,
    /// `arm`, `powerpc`, `ppc64le`, `s390x`, `sparc64`, `mips`, `riscv64`,
    /// ...), in any case.
    ///
    /// ```
    /// use pfmlib::Arch;
    /// assert_eq!(Arch::from_name("ppc64le"), Some(Arch::PowerPc));
    /// assert_eq!(Arch::from_name("ARM64"), Some(Arch::Aarch64));
    /// assert_eq!(Arch::from_name("vax"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Arch> {
        NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, a)| a)
    }

    /// The architecture whose kernel wrote this `/proc/cpuinfo` text, when
    /// it tells (a recorded host's file, say): `vendor_id : IBM/S390` is
    /// s390x, `cpu model : MIPS ...` MIPS, `isa : rv64...` or an
    /// `mvendorid` line 64-bit RISC-V, a `revision` with a `(pvr ...)`
    /// POWER, a `pmu` line or a `sun4` type SPARC, a `CPU implementer` line
    /// 64-bit Arm (32-bit Arm writes the same lines: name it yourself), a
    /// `vendor_id` x86.
    ///
    /// ```
    /// use pfmlib::Arch;
    /// let p9 = "processor\t: 0\ncpu\t\t: POWER9, altivec supported\nrevision\t: 2.2 (pvr 004e 1202)\n";
    /// assert_eq!(Arch::from_cpuinfo(p9), Some(Arch::PowerPc));
    /// assert_eq!(Arch::from_cpuinfo("vendor_id\t: GenuineIntel\n"), Some(Arch::X86));
    /// assert_eq!(Arch::from_cpuinfo(""), None);
    /// ```
    pub fn from_cpuinfo(text: &str) -> Option<Arch> {
        text.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            let key = key.trim_end();
            CPUINFO_MARKS
                .iter()
                .find(|(k, piece, _)| key == *k && value.contains(piece))
                .map(|&(_, _, arch)| arch)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Arch;

    #[test]
    fn cpuinfo_names_its_architecture() {
        let cases = [
            ("vendor_id       : IBM/S390\n# processors    : 4\n", Some(Arch::S390x)),
            ("system type\t\t: Broadcom BCM4716\nprocessor\t\t: 0\ncpu model\t\t: MIPS 74Kc V4.0\n", Some(Arch::Mips)),
            ("cpu\t\t: POWER10 (architected), altivec supported\nrevision\t: 2.0 (pvr 0080 0200)\n", Some(Arch::PowerPc)),
            ("cpu\t\t: UltraSparc T2 (Niagara2)\nfpu\t\t: UltraSparc T2 integrated FPU\npmu\t\t: niagara2\n", Some(Arch::Sparc)),
            ("processor\t: 0\nCPU implementer\t: 0x41\n", Some(Arch::Aarch64)),
            ("processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdc_zicntr\nmmu\t\t: sv39\n", Some(Arch::RiscV64)),
            ("processor\t: 0\nvendor_id\t: AuthenticAMD\n", Some(Arch::X86)),
            ("processor\t: 0\n", None),
        ];
        for (text, arch) in cases {
            assert_eq!(Arch::from_cpuinfo(text), arch, "{text:?}");
        }
    }
}
