//! libpfm4 with its CPUID answers taken from the environment: the oracle of
//! pfmlib's x86 detection on CPUs other than the running one.
//!
//! `.ci/libpfm4-fake-cpuid` copies libpfm4's source under `target/` and
//! builds it (`make lib`) with every CPUID instruction of `lib/` replaced by
//! a call to `pfmlib_fake_cpuid()` (`c/pfmlib_fake_cpuid.h`, our code), which
//! answers from [`VAR`]. libpfm4 keeps its detection in global state, so one
//! process answers for one CPU: set [`VAR`] before loading the library
//! (the loaded library reads it at `pfm_initialize`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable the built library reads its CPUID answers from.
pub const VAR: &str = "PFMLIB_FAKE_CPUID";

/// The variable naming an already built `libpfm.so.4` (CI sets it).
pub const ORACLE_VAR: &str = "PFMLIB_LIBPFM4_FAKE_CPUID";

/// The script that builds the library.
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.ci/libpfm4-fake-cpuid");

/// One CPUID answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaf {
    /// EAX on input.
    pub leaf: u32,
    /// ECX on input (libpfm4 never sets it: it is always answered as 0).
    pub subleaf: u32,
    /// EAX, EBX, ECX, EDX on output.
    pub regs: [u32; 4],
}

impl Leaf {
    /// The answer `regs` (EAX, EBX, ECX, EDX) to `leaf`, subleaf 0.
    pub const fn new(leaf: u32, regs: [u32; 4]) -> Leaf {
        Leaf {
            leaf,
            subleaf: 0,
            regs,
        }
    }
}

/// The value of [`VAR`] for these answers:
/// `LEAF:SUBLEAF=EAX,EBX,ECX,EDX;...`, numbers in hexadecimal.
pub fn env_value(leaves: &[Leaf]) -> String {
    leaves
        .iter()
        .map(|l| {
            let [a, b, c, d] = l.regs;
            format!("{:#x}:{:#x}={a:#x},{b:#x},{c:#x},{d:#x}", l.leaf, l.subleaf)
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// What the built library answers for `leaf` (subleaf ignored, as libpfm4
/// never sets it): the first answer listed for it with subleaf 0, else zeros.
pub fn answer(leaves: &[Leaf], leaf: u32) -> [u32; 4] {
    leaves
        .iter()
        .find(|l| l.leaf == leaf && l.subleaf == 0)
        .map_or([0; 4], |l| l.regs)
}

/// The built library: [`ORACLE_VAR`] when set, else built from libpfm4's
/// source `src` into `build_dir` by `.ci/libpfm4-fake-cpuid` (reused when
/// built before with the same header). `Err`: why there is none.
pub fn locate_or_build(src: &Path, build_dir: &Path) -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(ORACLE_VAR).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{ORACLE_VAR}={} is not a file", p.display()))
        };
    }
    if !src.join("lib/pfmlib_common.c").is_file() {
        return Err(format!("{} is not libpfm4's source", src.display()));
    }
    let out = Command::new("bash")
        .arg(SCRIPT)
        .arg(src)
        .arg(build_dir)
        .output()
        .map_err(|e| format!("cannot run {SCRIPT}: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{SCRIPT} failed ({}):\n{stderr}", out.status));
    }
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if path.is_empty() || !Path::new(&path).is_file() {
        return Err(format!("{SCRIPT} built nothing:\n{stderr}"));
    }
    Ok(PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_lists_every_answer() {
        let l = [
            Leaf::new(0, [0xb, 0x756e_6547, 0x6c65_746e, 0x4965_6e69]),
            Leaf::new(1, [0x106a5, 0, 0, 0]),
        ];
        assert_eq!(
            env_value(&l),
            "0x0:0x0=0xb,0x756e6547,0x6c65746e,0x49656e69;0x1:0x0=0x106a5,0x0,0x0,0x0"
        );
        assert_eq!(answer(&l, 1), [0x106a5, 0, 0, 0]);
        assert_eq!(answer(&l, 0xa), [0; 4]);
    }
}
