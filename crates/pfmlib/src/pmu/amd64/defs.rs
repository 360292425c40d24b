//! Vocabulary of the AMD64 core family (PERF_CTL layout).

use super::{FamilyDefs, ModDef, ModKind};

/// PMU flags.
pub const PMU_FLAGS: &[&str] = &["raw_umask", "perf_no_h"];
/// Event flags.
pub const EVENT_FLAGS: &[&str] = &["ibsfetch", "ibsop"];
/// Unit-mask flags.
pub const UMASK_FLAGS: &[&str] = &["dfl", "ncombo", "omit"];

/// Hardware modifiers, by id.
pub const MODIFIERS: &[ModDef] = &[
    ModDef::new("k", ModKind::Bool, "count at privilege level 0 (kernel)"),
    ModDef::new(
        "u",
        ModKind::Bool,
        "count at privilege levels 1, 2 and 3 (user)",
    ),
    ModDef::new("e", ModKind::Bool, "edge detect: count 0-to-1 transitions"),
    ModDef::new("i", ModKind::Bool, "invert the counter-mask comparison"),
    ModDef::new(
        "c",
        ModKind::Int,
        "counter mask: count cycles with at least this many occurrences [0-255]",
    ),
    ModDef::new(
        "h",
        ModKind::Bool,
        "count while the host runs (host-only bit)",
    ),
    ModDef::new(
        "g",
        ModKind::Bool,
        "count while a guest runs (guest-only bit)",
    ),
];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "amd64",
    pmu_flags: PMU_FLAGS,
    event_flags: EVENT_FLAGS,
    umask_flags: UMASK_FLAGS,
    modifiers: MODIFIERS,
    fixed: &[],
    event_ext: &[],
    pmu_ext: &[],
    umask_ext: &[],
    all_modifiers: false,
};
