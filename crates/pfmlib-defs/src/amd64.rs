//! Vocabulary of the AMD64 family (PERF_CTL layout): the core PMUs from K7
//! to Zen 6, the family 15h northbridge and the Zen 3, Zen 5 and Zen 6 L3
//! cache PMUs.

use crate::vocab::{ExtField, ExtKind, FamilyDefs, ModDef, ModKind};

/// PMU flags: `raw_umask` (`:0xNN` accepted), `perf_no_h` (no perf_events
/// `h` attribute: libpfm4's revision without host/guest filtering),
/// `northbridge` (the perf_event layers offer no perf_events attribute at
/// all), `deprecated` (an old name for another PMU: never chosen for an
/// event string without a `pmu::` prefix).
pub const PMU_FLAGS: &[&str] = &["raw_umask", "perf_no_h", "northbridge", "deprecated"];
/// Event flags: the IBS fetch and IBS op pseudo-events (no libpfm4 4.13
/// table uses them; the encoder knows them).
pub const EVENT_FLAGS: &[&str] = &["ibsfetch", "ibsop"];
/// Unit-mask flags.
pub const UMASK_FLAGS: &[&str] = &["dfl", "ncombo", "omit"];

/// The processor revisions libpfm4 tells apart, by the name of the core PMU
/// it detects on each (position 0: none). A PMU is present when the host's
/// revision is the one its `revision` key names.
pub const REVISIONS: &[&str] = &[
    "none",
    "amd64_k7",
    "amd64_k8_revb",
    "amd64_k8_revc",
    "amd64_k8_revd",
    "amd64_k8_reve",
    "amd64_k8_revf",
    "amd64_k8_revg",
    "amd64_fam10h_barcelona",
    "amd64_fam10h_shanghai",
    "amd64_fam10h_istanbul",
    "amd64_fam11h_turion",
    "amd64_fam12h_llano",
    "amd64_fam14h_bobcat",
    "amd64_fam15h_interlagos",
    "amd64_fam16h",
    "amd64_fam17h_zen1",
    "amd64_fam17h_zen2",
    "amd64_fam19h_zen3",
    "amd64_fam19h_zen4",
    "amd64_fam1ah_zen5",
    "amd64_fam1ah_zen6",
];

/// Extra PMU keys: `revision`, the processor revision (one of
/// [`REVISIONS`]) the PMU is detected on.
pub const PMU_EXT: &[ExtField] = &[ExtField {
    key: "revision",
    kind: ExtKind::Enum(REVISIONS),
    required: true,
}];

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
    pmu_ext: PMU_EXT,
    umask_ext: &[],
    all_modifiers: false,
};
