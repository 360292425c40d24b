//! Vocabulary of the perf_events raw PMU (`perf_raw::`): one pseudo event,
//! no flags, no modifiers, no extra keys.

use crate::vocab::FamilyDefs;

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "perf_raw",
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
