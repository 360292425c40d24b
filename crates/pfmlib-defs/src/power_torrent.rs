//! Vocabulary of the IBM Power Torrent family: the hub chip of the Power 775
//! (PERCS) machines, whose PowerBus links, memory-coherence directories
//! (MCD), bus-utilisation monitor, MMU and collective-acceleration unit
//! count events (libpfm4's `power_torrent`). No flags, no extra keys.

use crate::vocab::{FamilyDefs, ModDef, ModKind};

/// Hardware modifiers, by id (libpfm4's `TORRENT_ATTR_*`: the bit of each in
/// an event's modifier mask). `type` belongs to the MCD events, `sel` with
/// `lo_cmp` or `hi_cmp` to the utilisation counts.
pub const MODIFIERS: &[ModDef] = &[
    ModDef::new(
        "type",
        ModKind::Int,
        "width and prescaling of the MCD counters: 0 two 64-bit with a 32-bit prescaler, 1 four 32-bit with a 16-bit prescaler, 2 two 32-bit, 3 four 16-bit, both unscaled",
    ),
    ModDef::new(
        "sel",
        ModKind::Int,
        "sampling window and command weight of the utilisation monitor: 0 256 cycles (+16), 1 512 (+8), 2 1024 (+4), 3 2048 (+2)",
    ),
    ModDef::new(
        "lo_cmp",
        ModKind::Int,
        "lower utilisation threshold the count is compared with, 0 to 31",
    ),
    ModDef::new(
        "hi_cmp",
        ModKind::Int,
        "upper utilisation threshold the count is compared with, 0 to 31",
    ),
];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "power_torrent",
    pmu_flags: &[],
    event_flags: &[],
    umask_flags: &[],
    modifiers: MODIFIERS,
    fixed: &[],
    event_ext: &[],
    pmu_ext: &[],
    umask_ext: &[],
    all_modifiers: false,
};
