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
        } else {
            Arch::Other
        }
    }
}
