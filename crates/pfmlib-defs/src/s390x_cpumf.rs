//! Vocabulary of the s390x CPU-measurement facilities (IBM Z): the counter
//! facility `cpum_cf`, whose events are the counter sets of the machine it
//! runs on, and the sampling facility `cpum_sf`. No modifiers, no unit
//! masks.

use crate::vocab::{ExtField, ExtKind, FamilyDefs};

/// PMU flags.
///
/// - `arch`: the architecture's default PMU (libpfm4's
///   `PFMLIB_PMU_FL_ARCH_DFL`; pmu info reports `is_dfl`).
/// - `composed`: the events are composed at detection from the host's
///   counter-facility versions and machine type (the `set` of each event);
///   the PMU has no events until it is detected or forced.
pub const PMU_FLAGS: &[&str] = &["arch", "composed"];

/// The counter sets of libpfm4's `cpumcf_*_counters` tables: `any` (every
/// host: the sampling facility), the first-version sets `fvn1` and `fvn3`,
/// the generic second-version set `svn` and its four counters added with
/// second version 6 (`svn6`), and each machine generation's extended set.
pub const SETS: &[&str] = &[
    "any", "fvn1", "fvn3", "svn", "svn6", "z10", "z196", "zec12", "z13", "z14", "z15", "z16", "z17",
];

/// The counter set a counter belongs to in the architecture (libpfm4's
/// `ctrset`): a fact of the table, not used to encode.
pub const CTRSETS: &[&str] = &[
    "none",
    "basic",
    "problem_state",
    "crypto",
    "extended",
    "mt_diag",
];

/// Extra event keys: `set`, the table the counter comes from (absent:
/// `any`); `ctrset`, its architected counter set.
pub const EVENT_EXT: &[ExtField] = &[
    ExtField {
        key: "set",
        kind: ExtKind::Enum(SETS),
        required: false,
    },
    ExtField {
        key: "ctrset",
        kind: ExtKind::Enum(CTRSETS),
        required: false,
    },
];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "s390x_cpumf",
    pmu_flags: PMU_FLAGS,
    event_flags: &[],
    umask_flags: &[],
    modifiers: &[],
    fixed: &[],
    event_ext: EVENT_EXT,
    pmu_ext: &[],
    umask_ext: &[],
    all_modifiers: false,
};
