//! Vocabulary of the IA-64 family (Itanium, Itanium 2, Montecito): modifiers
//! `k u thres` on every event, and the per-event facts of libpfm-3's
//! model-specific queries as extra keys.

use crate::vocab::{ExtField, ExtKind, FamilyDefs, ModDef, ModKind};

/// Event flags.
pub const EVENT_FLAGS: &[&str] = &["btb", "etb"];

/// Hardware modifiers, by id.
pub const MODIFIERS: &[ModDef] = &[
    ModDef::new("k", ModKind::Bool, "count at privilege level 0 (kernel)"),
    ModDef::new("u", ModKind::Bool, "count at privilege level 3 (user)"),
    ModDef::new("thres", ModKind::Int, "threshold: count only cycles with more than this many occurrences (below the event's maximum increment)"),
];

/// Qualifier names of `qual`, by bit.
pub const QUALIFIERS: &[&str] = &["opcm", "iarr", "darr", "all"];
/// EAR kinds of `ear`, by stored value.
pub const EARS: &[&str] = &[
    "none",
    "dear_cache",
    "dear_tlb",
    "dear_alat",
    "iear_cache",
    "iear_tlb",
];
/// Cache groups of `group`, by stored value.
pub const GROUPS: &[&str] = &["none", "l1d", "l2d"];
/// Montecito event types of `type`, by stored value.
pub const TYPES: &[&str] = &["none", "active", "floating", "causal", "self_floating"];

/// Extra event keys, in storage order.
pub const EVENT_EXT: &[ExtField] = &[
    ExtField {
        key: "maxincr",
        kind: ExtKind::Int {
            min: 1,
            max: 8,
            default: 1,
        },
        required: true,
    },
    ExtField {
        key: "pmc_umask",
        kind: ExtKind::Int {
            min: 0,
            max: 0xffff,
            default: 0,
        },
        required: false,
    },
    ExtField {
        key: "qual",
        kind: ExtKind::Flags(QUALIFIERS),
        required: false,
    },
    ExtField {
        key: "ear",
        kind: ExtKind::Enum(EARS),
        required: false,
    },
    ExtField {
        key: "group",
        kind: ExtKind::Enum(GROUPS),
        required: false,
    },
    ExtField {
        key: "set",
        kind: ExtKind::OptInt { max: 15 },
        required: false,
    },
    ExtField {
        key: "type",
        kind: ExtKind::Enum(TYPES),
        required: false,
    },
];

/// Models of `model`, by stored value.
pub const MODELS: &[&str] = &["itanium", "itanium2", "montecito"];

/// Extra PMU keys: which IA-64 model the PMU is.
pub const PMU_EXT: &[ExtField] = &[ExtField {
    key: "model",
    kind: ExtKind::Enum(MODELS),
    required: true,
}];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "ia64",
    pmu_flags: &[],
    event_flags: EVENT_FLAGS,
    umask_flags: &[],
    modifiers: MODIFIERS,
    fixed: &[],
    event_ext: EVENT_EXT,
    pmu_ext: PMU_EXT,
    umask_ext: &[],
    all_modifiers: true,
};
