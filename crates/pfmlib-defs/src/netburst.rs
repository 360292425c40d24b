//! Vocabulary of the Intel Netburst (Pentium 4) family: an ESCR/CCCR pair
//! per event, modifiers `u k cmpl e thr`, the perf_events event number and
//! the ESCRs an event may use as extra keys.

use crate::vocab::{ExtField, ExtKind, FamilyDefs, ModDef, ModKind};

/// PMU flags: `models_excluded`, the PMU is detected on every model of its
/// family except those of `cpu_models`.
pub const PMU_FLAGS: &[&str] = &["models_excluded"];
/// Event flags: `virtual_masks`, only event-mask bits 0-1 reach the ESCR
/// (the higher unit masks choose the replay tagging set-up instead).
pub const EVENT_FLAGS: &[&str] = &["virtual_masks"];
/// Unit-mask flags: `dfl`, added when no unit mask is given.
pub const UMASK_FLAGS: &[&str] = &["dfl"];

/// Hardware modifiers, by id (libpfm4's attribute order).
pub const MODIFIERS: &[ModDef] = &[
    ModDef::new(
        "u",
        ModKind::Bool,
        "count at privilege levels 1, 2 and 3 (user)",
    ),
    ModDef::new("k", ModKind::Bool, "count at privilege level 0 (kernel)"),
    ModDef::new(
        "cmpl",
        ModKind::Bool,
        "complement: count cycles with at most the threshold (turns the comparison on)",
    ),
    ModDef::new(
        "e",
        ModKind::Bool,
        "edge: count rising edges of the threshold comparison (turns it on)",
    ),
    ModDef::new(
        "thr",
        ModKind::Int,
        "threshold of the per-cycle comparison [0-15]",
    ),
];

/// Extra event keys: `perf_code`, the kernel's Pentium 4 event number that
/// replaces the event select under perf_events; `escr0`/`escr1`, the ESCRs
/// the event may be programmed in (`escr1` absent: only one).
pub const EVENT_EXT: &[ExtField] = &[
    ExtField {
        key: "perf_code",
        kind: ExtKind::Int {
            min: 0,
            max: 63,
            default: 0,
        },
        required: true,
    },
    ExtField {
        key: "escr0",
        kind: ExtKind::Int {
            min: 0,
            max: 44,
            default: 0,
        },
        required: true,
    },
    ExtField {
        key: "escr1",
        kind: ExtKind::OptInt { max: 44 },
        required: false,
    },
];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "netburst",
    pmu_flags: PMU_FLAGS,
    event_flags: EVENT_FLAGS,
    umask_flags: UMASK_FLAGS,
    modifiers: MODIFIERS,
    fixed: &[],
    event_ext: EVENT_EXT,
    pmu_ext: &[],
    umask_ext: &[],
    all_modifiers: true,
};
