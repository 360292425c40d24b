//! Vocabulary of the POWER family: the core PMUs of IBM's POWER4 to POWER10
//! and PowerPC 970 processors and the POWER8 nest memory-controller
//! bandwidth PMUs. An event is its raw code, with no unit masks and no
//! modifiers (the privilege levels are perf_events' own).

use crate::vocab::FamilyDefs;

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "power",
    pmu_flags: &[],
    event_flags: &[],
    umask_flags: &[],
    modifiers: &[],
    fixed: &[],
    event_ext: &[],
    pmu_ext: &[],
    umask_ext: &[],
    all_modifiers: false,
};
