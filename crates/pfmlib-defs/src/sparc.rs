//! Vocabulary of the SPARC family: the performance instrumentation counters
//! of UltraSPARC I/II, III, IIIi, III+, IV+ and of the Niagara (UltraSPARC
//! T1, T2) processors, as libpfm4's sparc build drives them.

use crate::vocab::{ExtField, ExtKind, FamilyDefs, ModDef, ModKind};

/// Hardware modifiers, by id (libpfm4's `SPARC_ATTR_K`, `_U`, `_H`). Every
/// event takes all three; libpfm4 accepts them and programs nothing from
/// them (the raw encoding carries no privilege-level bits).
pub const MODIFIERS: &[ModDef] = &[
    ModDef::new(
        "k",
        ModKind::Bool,
        "count at privilege level 0, where the kernel runs",
    ),
    ModDef::new(
        "u",
        ModKind::Bool,
        "count at the user privilege levels (1 to 3)",
    ),
    ModDef::new("h", ModKind::Bool, "count while the hypervisor runs"),
];

/// Extra event keys.
pub const EVENT_EXT: &[ExtField] = &[
    // The counters the event can be selected on (libpfm4's `ctrl`): `s0`
    // (PIC0, selected by the S0 field of the control register), `s1` (PIC1),
    // or both. Stored as libpfm4's value: bit 0 S0, bit 1 S1.
    ExtField {
        key: "ctrl",
        kind: ExtKind::Flags(&["s0", "s1"]),
        required: true,
    },
];

/// The values of `/proc/cpuinfo`'s `pmu` line that libpfm4 maps to a PMU
/// (`pmu_name_to_pmu_type`), in its order.
pub const CPUINFO_PMUS: &[&str] = &[
    "ultra12", "ultra3", "ultra3i", "ultra3+", "ultra4+", "niagara2", "niagara",
];

/// Extra PMU keys.
pub const PMU_EXT: &[ExtField] = &[
    // The `pmu` value of `/proc/cpuinfo` the PMU is detected on.
    ExtField {
        key: "cpuinfo_pmu",
        kind: ExtKind::Enum(CPUINFO_PMUS),
        required: true,
    },
];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "sparc",
    pmu_flags: &[],
    event_flags: &[],
    umask_flags: &[],
    modifiers: MODIFIERS,
    fixed: &[],
    event_ext: EVENT_EXT,
    pmu_ext: PMU_EXT,
    umask_ext: &[],
    all_modifiers: true,
};
