//! Definitions shared by pfmlib's table generator (its build script) and
//! its engines at run time, so that both read one source:
//!
//! - the vocabulary of every PMU family ([`FamilyDefs`]: flag names,
//!   hardware modifiers, fields a unit mask may hard-wire, extra keys), one
//!   module per family ([`intel_x86`], [`amd64`], ...) and [`FAMILIES`];
//! - the byte layout of the generated table records ([`layout`]);
//! - the case-folding hash of the name indexes ([`hash`]).
//!
//! Everything here is `const` data or a small pure function over `core`.

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod hash;
pub mod layout;

pub mod amd64;
pub mod arm;
pub mod ia64;
pub mod intel_nhm_unc;
pub mod intel_snb_unc;
pub mod intel_snbep_unc;
pub mod intel_x86;
pub mod mips;
pub mod netburst;
pub mod perf;
pub mod perf_raw;
pub mod power;
pub mod power_torrent;
pub mod rapl;
pub mod riscv;
pub mod s390x_cpumf;
pub mod sparc;

pub mod vocab;

pub use vocab::{
    bit, ext, ext_words, key, modifier, position, ExtField, ExtKind, FamilyDefs, Fixed, ModDef,
    ModKind, NO_KEY,
};

/// Every family, by family id (the `family` byte of a PMU record). The
/// engines are registered in the same order (`pmu::ENGINES`).
pub static FAMILIES: [&FamilyDefs; 17] = [
    &intel_x86::DEFS,
    &perf::DEFS,
    &amd64::DEFS,
    &intel_nhm_unc::DEFS,
    &ia64::DEFS,
    &netburst::DEFS,
    &perf_raw::DEFS,
    &rapl::DEFS,
    &intel_snb_unc::DEFS,
    &intel_snbep_unc::DEFS,
    &arm::DEFS,
    &power::DEFS,
    &power_torrent::DEFS,
    &mips::DEFS,
    &sparc::DEFS,
    &s390x_cpumf::DEFS,
    &riscv::DEFS,
];
