//! Vocabulary of the perf_events generic PMU: no hardware modifiers; the
//! event's `perf_event_attr.type` as an extra key.

use crate::vocab::{ExtField, ExtKind, FamilyDefs};

/// PMU flags.
pub const PMU_FLAGS: &[&str] = &["raw_umask"];
/// Event flags.
pub const EVENT_FLAGS: &[&str] = &["precise"];
/// Unit-mask flags.
pub const UMASK_FLAGS: &[&str] = &["dfl"];

/// `perf_type` names, by `perf_event_attr.type` value.
pub const PERF_TYPES: &[&str] = &["hardware", "software", "tracepoint", "hw_cache", "raw"];

/// Extra event keys.
pub const EVENT_EXT: &[ExtField] = &[ExtField {
    key: "perf_type",
    kind: ExtKind::Enum(PERF_TYPES),
    required: false,
}];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "perf",
    pmu_flags: PMU_FLAGS,
    event_flags: EVENT_FLAGS,
    umask_flags: UMASK_FLAGS,
    modifiers: &[],
    fixed: &[],
    event_ext: EVENT_EXT,
    pmu_ext: &[],
    umask_ext: &[],
    all_modifiers: false,
};
