//! PMU engines, one per PMU family, behind the [`Engine`] trait.
//!
//! A family is an engine module here (`pmu/<family>/`) and its vocabulary
//! (flags, modifiers, extra keys: read by the table generator too) in the
//! `pfmlib-defs` crate (`pfmlib_defs::<family>`); it is registered once in
//! [`pfmlib_defs::FAMILIES`] and [`ENGINES`], in the same position. A new
//! PMU of a known family is only a data file (`data/*.toml`).

pub(crate) mod amd64;
pub(crate) mod arm;
pub(crate) mod common;
pub(crate) mod ia64;
pub(crate) mod intel_nhm_unc;
pub(crate) mod intel_snb_unc;
pub(crate) mod intel_snbep_unc;
pub(crate) mod intel_x86;
pub(crate) mod kernel_type;
pub(crate) mod machinery;
pub(crate) mod mips;
pub(crate) mod netburst;
pub(crate) mod perf;
pub(crate) mod perf_raw;
pub(crate) mod power;
pub(crate) mod power_torrent;
pub(crate) mod rapl;
pub(crate) mod riscv;
pub(crate) mod s390x_cpumf;
pub(crate) mod sparc;

use crate::tables::PmuDesc;
pub(crate) use common::{Engine, EventFlags};

/// `PmuDesc::dispatcher` of the Nehalem/Westmere dispatcher.
pub(crate) const DISPATCH_NEHALEM: u8 = 1;
/// `PmuDesc::dispatcher` of the IA-64 dispatcher.
pub(crate) const DISPATCH_IA64: u8 = 2;

/// Every engine, by family id (the order of [`pfmlib_defs::FAMILIES`]).
/// The family position of the Intel core engine (first in [`ENGINES`]).
pub(crate) const INTEL_X86_FAMILY: usize = 0;

static ENGINES: [&dyn Engine; 17] = [
    &intel_x86::IntelX86,
    &perf::Perf,
    &amd64::Amd64,
    &intel_nhm_unc::NhmUncore,
    &ia64::Ia64,
    &netburst::Netburst,
    &perf_raw::PerfRaw,
    &rapl::Rapl,
    &intel_snb_unc::SnbUncore,
    &intel_snbep_unc::SnbepUncore,
    &arm::Arm,
    &power::Power,
    &power_torrent::Torrent,
    &mips::Mips,
    &sparc::Sparc,
    &s390x_cpumf::S390xCpumf,
    &riscv::Riscv,
];

/// The engine of `pmu`'s family.
#[inline]
pub(crate) fn engine(pmu: PmuDesc) -> &'static dyn Engine {
    ENGINES
        .get(pmu.family())
        .copied()
        .unwrap_or(&intel_x86::IntelX86)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engines are registered in the order of the family list.
    #[test]
    fn engines_follow_the_family_list() {
        assert_eq!(ENGINES.len(), pfmlib_defs::FAMILIES.len());
        for (e, f) in ENGINES.iter().zip(pfmlib_defs::FAMILIES.iter()) {
            assert_eq!(e.defs().name, f.name);
        }
        assert_eq!(
            ENGINES[INTEL_X86_FAMILY].defs().name,
            intel_x86::IntelX86.defs().name
        );
    }
}
