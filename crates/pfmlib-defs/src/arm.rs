//! Vocabulary of the Arm family: Armv6/v7/v8/v9 core PMUs (Cortex, Neoverse,
//! Krait, X-Gene, ThunderX2, A64FX, Kunpeng) and the uncore PMUs libpfm4
//! drives through perf_events (ThunderX2 DMC/LLC/CCPI, Kunpeng DDRC/HHA/L3C).

use crate::vocab::{ExtField, ExtKind, FamilyDefs, ModDef, ModKind};

/// Hardware modifiers, by id (libpfm4's `ARM_ATTR_K`, `_U`, `_HV`): the
/// privilege-level filter bits of the event type register.
pub const MODIFIERS: &[ModDef] = &[
    ModDef::new(
        "k",
        ModKind::Bool,
        "count at EL1, the operating system's level",
    ),
    ModDef::new("u", ModKind::Bool, "count at EL0, where applications run"),
    ModDef::new("hv", ModKind::Bool, "count at EL2, the hypervisor's level"),
];

/// Extra PMU keys: detection beyond `cpu_vendor` (the implementer) and
/// `cpu_models` (the parts).
pub const PMU_EXT: &[ExtField] = &[
    // The libpfm4 builds that have the PMU: `any` (both), `arm` (32-bit
    // only) or `arm64` (64-bit only). It is detected only on such a host.
    ExtField {
        key: "arch",
        kind: ExtKind::Enum(&["any", "arm", "arm64"]),
        required: false,
    },
    // The part number is shifted right by this much before it is compared
    // with `cpu_models` (Krait: bits 15:10 of the Main ID Register).
    ExtField {
        key: "part_shift",
        kind: ExtKind::Int {
            min: 0,
            max: 11,
            default: 0,
        },
        required: false,
    },
    // A second implementer and part the PMU is also detected on.
    ExtField {
        key: "alt_implementer",
        kind: ExtKind::OptInt { max: 0xff },
        required: false,
    },
    ExtField {
        key: "alt_part",
        kind: ExtKind::OptInt { max: 0xfff },
        required: false,
    },
];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "arm",
    pmu_flags: &[],
    event_flags: &[],
    umask_flags: &[],
    modifiers: MODIFIERS,
    fixed: &[],
    event_ext: &[],
    pmu_ext: PMU_EXT,
    umask_ext: &[],
    all_modifiers: false,
};
