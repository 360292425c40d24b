//! Vocabulary of the MIPS family (libpfm4's `mips` build: the MIPS 74K):
//! the four privilege-level modifiers of the Performance Control register,
//! taken by every event; no flags, no unit masks, no extra keys.

use crate::vocab::{FamilyDefs, ModDef, ModKind};

/// Hardware modifiers, by id (libpfm4's `MIPS_ATTR_K`, `_U`, `_S`, `_E`):
/// the level-enable bits of the Performance Control register.
pub const MODIFIERS: &[ModDef] = &[
    ModDef::new("k", ModKind::Bool, "count in kernel mode"),
    ModDef::new("u", ModKind::Bool, "count in user mode"),
    ModDef::new("s", ModKind::Bool, "count in supervisor mode"),
    ModDef::new(
        "e",
        ModKind::Bool,
        "count while an exception is being handled (EXL set)",
    ),
];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "mips",
    pmu_flags: &[],
    event_flags: &[],
    umask_flags: &[],
    modifiers: MODIFIERS,
    fixed: &[],
    event_ext: &[],
    pmu_ext: &[],
    umask_ext: &[],
    all_modifiers: true,
};
