//! Vocabulary of the Intel x86 core family (PERFEVTSEL layout).

use crate::vocab::{ExtField, ExtKind, FamilyDefs, Fixed, ModDef, ModKind};

/// PMU flags.
///
/// `raw_umask`: a raw hexadecimal unit mask is accepted; `ecmask`: edge
/// detect needs a counter mask of at least 1; `spec`: events report whether
/// they count speculative occurrences; `extpebs`: every event may sample
/// into the PEBS buffer (extended PEBS); `arch`: the architectural PMU,
/// built from CPUID leaf 0xA; `no_smpl`: the PMU cannot sample, so the
/// perf_events layers offer no `period`, `freq` or `precise`.
pub const PMU_FLAGS: &[&str] = &["raw_umask", "ecmask", "spec", "extpebs", "arch", "no_smpl"];
/// Event flags (libpfm4's `INTEL_X86_*` flags that apply to events).
///
/// `deprecated` and `code_dup` (libpfm4 upstream's `INTEL_X86_DEPRECATED`,
/// `INTEL_X86_CODE_DUP`) only excuse an event whose code another event
/// shares in table validation; they have no encoding effect.
pub const EVENT_FLAGS: &[&str] = &[
    "pebs",
    "grp_excl",
    "offcore",
    "spec",
    "deprecated",
    "ncombo",
    "fallback_gen",
    "excl_grp_gt",
    "fixed",
    "no_autoencode",
    "code_override",
    "ldlat",
    "grp_dfl_none",
    "frontend",
    "fethr",
    "excl_grp_but_0",
    "grp_req",
    "code_dup",
];
/// Unit-mask flags (libpfm4's `INTEL_X86_*` flags that apply to unit masks).
///
/// `no_mods` (libpfm4 upstream's `INTEL_X86_NO_MODS`): the unit mask takes
/// no modifier (the topdown metrics of `TOPDOWN_M`): given, the
/// fully-qualified string lists no modifier, and under perf_events no
/// perf_events attribute but `pinned` may be set; never precise.
pub const UMASK_FLAGS: &[&str] = &[
    "dfl",
    "pebs",
    "ncombo",
    "excl_grp_gt",
    "grp_dfl_none",
    "ldlat",
    "grp_req",
    "excl_grp_but_0",
    "code_override",
    "fallback_gen",
    "fixed",
    "no_autoencode",
    "frontend",
    "fethr",
    "spec",
    "no_mods",
];

/// Modifier names, by id, for the `*_required` keys.
pub const MODIFIER_NAMES: &[&str] = &[
    "k", "u", "e", "i", "c", "t", "ldlat", "intx", "intxcp", "fe_thres",
];

/// Hardware modifiers, by id.
pub const MODIFIERS: &[ModDef] = &[
    ModDef::new("k", ModKind::Bool, "count at privilege level 0 (kernel)"),
    ModDef::new(
        "u",
        ModKind::Bool,
        "count at privilege levels 1, 2 and 3 (user)",
    ),
    ModDef::new(
        "e",
        ModKind::Bool,
        "edge detect: count 0-to-1 transitions (may need a counter mask of at least 1)",
    ),
    ModDef::new("i", ModKind::Bool, "invert the counter-mask comparison"),
    ModDef::new(
        "c",
        ModKind::Int,
        "counter mask: count cycles with at least this many occurrences [0-255]",
    ),
    ModDef::new(
        "t",
        ModKind::Bool,
        "count occurrences of both hardware threads of the core",
    ),
    ModDef::new(
        "ldlat",
        ModKind::Int,
        "load latency threshold in core cycles [1-65535], 3 when not given",
    ),
    ModDef::new(
        "intx",
        ModKind::Bool,
        "count only inside transactional regions",
    ),
    ModDef::new(
        "intxcp",
        ModKind::Bool,
        "leave out occurrences in aborted transactional regions",
    ),
    ModDef::new(
        "fe_thres",
        ModKind::Int,
        "front-end bubble latency threshold in cycles [1-4095]",
    ),
];

/// Modifiers a unit mask may hard-wire: PERFEVTSEL bit minus 8 (the
/// attribute code is the register's bits from 8 up).
pub const FIXED: &[Fixed] = &[
    Fixed {
        name: "u",
        shift: 8,
        width: 1,
    },
    Fixed {
        name: "k",
        shift: 9,
        width: 1,
    },
    Fixed {
        name: "e",
        shift: 10,
        width: 1,
    },
    Fixed {
        name: "t",
        shift: 13,
        width: 1,
    },
    Fixed {
        name: "i",
        shift: 15,
        width: 1,
    },
    Fixed {
        name: "c",
        shift: 16,
        width: 8,
    },
    Fixed {
        name: "intx",
        shift: 24,
        width: 1,
    },
    Fixed {
        name: "intxcp",
        shift: 25,
        width: 1,
    },
    // Precise front-end events: the latency threshold a unit mask
    // hard-wires, bits 8-19 of the value for the front-end register.
    Fixed {
        name: "fe_thres",
        shift: 8,
        width: 12,
    },
];

/// Extra PMU keys: `offcore_raw_bits`, the width of a raw unit mask on an
/// offcore event; `core_type` and `native_model` (pfmlib's own, the hybrid
/// clients of the vendor lists): the kind of core the PMU counts on, as
/// CPUID leaf 0x1A gives it (core type, EAX bits 31-24: 0x20 Atom, 0x40
/// Core; native model id, bits 23-0), so that a hybrid CPU's PMUs are
/// detected per kind of core it has.
pub const PMU_EXT: &[ExtField] = &[
    ExtField {
        key: "offcore_raw_bits",
        kind: ExtKind::Int {
            min: 1,
            max: 64,
            default: 38,
        },
        required: false,
    },
    ExtField {
        key: "core_type",
        kind: ExtKind::OptInt { max: 0xff },
        required: false,
    },
    ExtField {
        key: "native_model",
        kind: ExtKind::OptInt { max: 0xff_ffff },
        required: false,
    },
];

/// Extra event keys: `cpuid_bit`, the bit of CPUID.0AH:EBX that tells
/// whether an architectural event exists (absent: always there);
/// `modifiers_required`, modifiers the event must be given (libpfm4's
/// `modmsk_req`).
pub const EVENT_EXT: &[ExtField] = &[
    ExtField {
        key: "cpuid_bit",
        kind: ExtKind::OptInt { max: 31 },
        required: false,
    },
    ExtField {
        key: "modifiers_required",
        kind: ExtKind::Flags(MODIFIER_NAMES),
        required: false,
    },
];

/// Extra unit-mask keys: `cntmsk`, counters the unit mask may use (it then
/// supersedes the event's; libpfm4's `ucntmsk`); `req_grp`, the group whose
/// unit mask it needs (`grp_req`); `modifiers_required` (libpfm4's
/// `umodmsk_req`); `event_code`, the event select a `code_override` unit
/// mask puts in place of the event's (libpfm4's `ucode & 0xff`); `ldlat`,
/// the load-latency threshold a `ldlat` unit mask hard-wires (pfmlib's own,
/// for the vendor lists' `LOAD_LATENCY_GT_<n>` events); `frontend`, the
/// value a unit mask hard-wires in the precise front-end register
/// (`MSR_PEBS_FRONTEND`, 0x3f7; pfmlib's own, for the vendor lists' events
/// with that MSR): the second code (`config1`) when the unit mask is given.
pub const UMASK_EXT: &[ExtField] = &[
    ExtField {
        key: "cntmsk",
        kind: ExtKind::U64,
        required: false,
    },
    ExtField {
        key: "req_grp",
        kind: ExtKind::OptInt { max: 255 },
        required: false,
    },
    ExtField {
        key: "modifiers_required",
        kind: ExtKind::Flags(MODIFIER_NAMES),
        required: false,
    },
    ExtField {
        key: "event_code",
        kind: ExtKind::OptInt { max: 255 },
        required: false,
    },
    ExtField {
        key: "ldlat",
        kind: ExtKind::OptInt { max: 65535 },
        required: false,
    },
    ExtField {
        key: "frontend",
        kind: ExtKind::OptInt { max: 0xff_ffff },
        required: false,
    },
];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "intel_x86",
    pmu_flags: PMU_FLAGS,
    event_flags: EVENT_FLAGS,
    umask_flags: UMASK_FLAGS,
    modifiers: MODIFIERS,
    fixed: FIXED,
    event_ext: EVENT_EXT,
    pmu_ext: PMU_EXT,
    umask_ext: UMASK_EXT,
    all_modifiers: false,
};
