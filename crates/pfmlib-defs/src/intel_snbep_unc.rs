//! Vocabulary of the Intel server uncore family (Sandy Bridge-EP to
//! Skylake-X, Knights Landing and Knights Mill, Ice Lake-SP, Sapphire and
//! Emerald Rapids, Granite Rapids): PMU, event and unit-mask flags, the 24
//! modifiers in libpfm4's attribute order (their position is the attribute
//! code), and the extra keys that carry filter words.
//!
//! Several modifiers share a name (`t`, `tf`, `cf`, `nf`: one field per box
//! generation). An event never offers two of one name, but the data must
//! say which one it means, so events list their modifiers in the `mods`
//! key by the unique names of [`MOD_KEYS`] (same positions as
//! [`MODIFIERS`]), not in the common `modifiers` key.

use crate::vocab::{ExtField, ExtKind, FamilyDefs, ModDef, ModKind};

/// PMU flags: `raw_umask` (a raw `:0xNN` unit mask is accepted),
/// `no_smpl` (no sampling: perf `period`, `freq`, `precise` are not
/// offered), `occ` (PCU: events with code bit 7 set count occupancy, their
/// unit mask selects the occupancy counter and `e`/`i` go to its edge and
/// invert bits), `cbo` (C-Box: TOR and LLC lookup events with an opcode
/// filter put both filter words in `config1`), `cha` (Skylake-X CHA: the
/// same for TOR/LLC events, and the default of filter 1), `sysfs` (the PMU
/// is active only where the kernel publishes `/sys/devices/<perf_name>`),
/// `filter_code` (attribute info reports filter 0 as the code of a unit
/// mask whose code is 0).
pub const PMU_FLAGS: &[&str] = &[
    "raw_umask",
    "no_smpl",
    "occ",
    "cbo",
    "cha",
    "sysfs",
    "filter_code",
];

/// Event flags: `grp_excl` (unit masks of one group only), `no_autoencode`
/// (left out of libpfm4's self-test), `fixed` (fixed counter only),
/// `filt_umask` (unit masks set filter bits), `force_filt0` (the first
/// filter word is always part of the encoding, even when 0).
pub const EVENT_FLAGS: &[&str] = &[
    "grp_excl",
    "no_autoencode",
    "fixed",
    "filt_umask",
    "force_filt0",
];

/// Unit-mask flags: `dfl` (default of its group), `ncombo` (not combined
/// with another unit mask of its group), `excl_grp_gt` (no unit mask of a
/// higher group may be used with it), `grp_dfl_none` (its group may stay
/// empty), `grp_req` (it needs a unit mask of group `req_grp`).
pub const UMASK_FLAGS: &[&str] = &["dfl", "ncombo", "excl_grp_gt", "grp_dfl_none", "grp_req"];

/// Unique data names of the modifiers, by id (the position in [`MODIFIERS`]).
pub const MOD_KEYS: &[&str] = &[
    "e", "i", "t8", "t5", "tf", "cf", "nf", "ff", "addr", "nf1", "isoc", "nc", "cf1", "tf1", "cf2",
    "loc", "rem", "lmem", "rmem", "dnid", "rcsnid", "t6", "occ_i", "occ_e",
];

/// Hardware modifiers, by id (libpfm4's attribute index).
pub const MODIFIERS: &[ModDef] = &[
    ModDef::new("e", ModKind::Bool, "edge detect: count rising edges only"),
    ModDef::new("i", ModKind::Bool, "invert the threshold comparison"),
    ModDef::new(
        "t",
        ModKind::Int,
        "threshold: count cycles with at least this many occurrences [0-255]",
    ),
    ModDef::new(
        "t",
        ModKind::Int,
        "threshold: count cycles with at least this many occurrences [0-31]",
    ),
    ModDef::new(
        "tf",
        ModKind::Int,
        "match one hardware thread of the core [0-1]",
    ),
    ModDef::new(
        "cf",
        ModKind::Int,
        "core id to match [0-15]; the filter field keeps the low 3 bits",
    ),
    ModDef::new(
        "nf",
        ModKind::Int,
        "bit mask of NUMA nodes to match [1-255]",
    ),
    ModDef::new(
        "ff",
        ModKind::Int,
        "frequency band threshold, in units of 100 MHz [0-255]",
    ),
    ModDef::new("addr", ModKind::Int, "physical address to match, 40 bits"),
    ModDef::new(
        "nf",
        ModKind::Int,
        "bit mask of NUMA nodes to match [1-255]",
    ),
    ModDef::new("isoc", ModKind::Bool, "match only isochronous requests"),
    ModDef::new("nc", ModKind::Bool, "match only non-coherent requests"),
    ModDef::new(
        "cf",
        ModKind::Int,
        "core id to match [0-63]; the filter field keeps the low 5 bits",
    ),
    ModDef::new("tf", ModKind::Int, "match one hardware thread [0-3]"),
    ModDef::new("cf", ModKind::Int, "match one source (core) id [0-63]"),
    ModDef::new(
        "loc",
        ModKind::Bool,
        "match requests aimed at the local node",
    ),
    ModDef::new(
        "rem",
        ModKind::Bool,
        "match requests aimed at a remote node",
    ),
    ModDef::new(
        "lmem",
        ModKind::Bool,
        "match cacheable local-memory requests",
    ),
    ModDef::new(
        "rmem",
        ModKind::Bool,
        "match cacheable remote-memory requests",
    ),
    ModDef::new(
        "dnid",
        ModKind::Int,
        "match this destination node id [0-15]",
    ),
    ModDef::new("rcsnid", ModKind::Int, "match this RCS node id [0-15]"),
    ModDef::new(
        "t",
        ModKind::Int,
        "threshold: count cycles with at least this many occurrences [0-63]",
    ),
    ModDef::new(
        "occ_i",
        ModKind::Bool,
        "invert the comparison of the occupancy count",
    ),
    ModDef::new(
        "occ_e",
        ModKind::Bool,
        "occupancy edge detect: count rising edges of the occupancy condition",
    ),
];

/// Extra event keys: `mods`, the modifiers the event takes (names from
/// [`MOD_KEYS`]); `modifiers_required`, those it must be given (libpfm4's
/// `modmsk_req`).
pub const EVENT_EXT: &[ExtField] = &[
    ExtField {
        key: "mods",
        kind: ExtKind::Flags(MOD_KEYS),
        required: false,
    },
    ExtField {
        key: "modifiers_required",
        kind: ExtKind::Flags(MOD_KEYS),
        required: false,
    },
];

/// Extra unit-mask keys: `filter0` and `filter1`, what the unit mask does to
/// the two filter words (low 32 bits: bits it sets; high 32 bits: bits it
/// clears; libpfm4's `ufilters`); `req_grp`, the group it needs
/// (`grp_req`); `modifiers_required`, modifiers it needs or allows
/// (libpfm4's `umodmsk_req`, only `nf`/`nf1` in practice).
pub const UMASK_EXT: &[ExtField] = &[
    ExtField {
        key: "filter0",
        kind: ExtKind::U64,
        required: false,
    },
    ExtField {
        key: "filter1",
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
        kind: ExtKind::Flags(MOD_KEYS),
        required: false,
    },
];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "intel_snbep_unc",
    pmu_flags: PMU_FLAGS,
    event_flags: EVENT_FLAGS,
    umask_flags: UMASK_FLAGS,
    modifiers: MODIFIERS,
    fixed: &[],
    event_ext: EVENT_EXT,
    pmu_ext: &[],
    umask_ext: UMASK_EXT,
    all_modifiers: false,
};
