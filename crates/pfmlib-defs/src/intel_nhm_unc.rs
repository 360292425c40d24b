//! Vocabulary of the Intel Nehalem/Westmere uncore family: the x86 flag
//! names, modifiers `e i c o`.

use crate::vocab::{FamilyDefs, ModDef, ModKind};

/// Hardware modifiers, by id.
pub const MODIFIERS: &[ModDef] = &[
    ModDef::new("e", ModKind::Bool, "edge detect: count 0-to-1 transitions"),
    ModDef::new("i", ModKind::Bool, "invert the counter-mask comparison"),
    ModDef::new(
        "c",
        ModKind::Int,
        "counter mask: count cycles with at least this many occurrences [0-255]",
    ),
    ModDef::new("o", ModKind::Bool, "reset the queue occupancy counter"),
];

/// The family (flag vocabulary shared with the x86 core family).
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "intel_nhm_unc",
    pmu_flags: crate::intel_x86::PMU_FLAGS,
    event_flags: crate::intel_x86::EVENT_FLAGS,
    umask_flags: crate::intel_x86::UMASK_FLAGS,
    modifiers: MODIFIERS,
    fixed: &[],
    event_ext: &[],
    pmu_ext: &[],
    umask_ext: &[],
    all_modifiers: false,
};
