//! Vocabulary of the RAPL family: the energy counters of the kernel's
//! `power` PMU, for Intel (`rapl`) and AMD (`amd64_rapl`). No modifiers;
//! PMU flags for the two vendors' perf_events behaviour, and the Intel
//! event lists that depend on the CPU model.

use crate::vocab::{ExtField, ExtKind, FamilyDefs};

/// PMU flags.
///
/// - `os_detect`: with perf_events, the PMU is active only if the kernel
///   exposes it (`/sys/devices/<perf_name>`).
/// - `type_required`: the perf_events encoding fails without the kernel's
///   type number of the PMU (otherwise it falls back to the raw type).
/// - `plm_attrs`: the perf_events privilege attributes `u k mg mh` are
///   offered, although the PMU filters no privilege level.
pub const PMU_FLAGS: &[&str] = &["os_detect", "type_required", "plm_attrs"];

/// The event lists libpfm4 picks by CPU model for Intel RAPL: the client
/// default, Skylake-era clients, Sandy/Ivy Bridge servers, Haswell-EP and
/// later servers.
pub const EVENT_SETS: &[&str] = &["client", "skl_client", "server", "hsw_server"];

/// Extra event keys: `sets`, the model-dependent event lists that have the
/// event (absent: every model).
pub const EVENT_EXT: &[ExtField] = &[ExtField {
    key: "sets",
    kind: ExtKind::Flags(EVENT_SETS),
    required: false,
}];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "rapl",
    pmu_flags: PMU_FLAGS,
    event_flags: &[],
    umask_flags: &[],
    modifiers: &[],
    fixed: &[],
    event_ext: EVENT_EXT,
    pmu_ext: &[],
    umask_ext: &[],
    all_modifiers: false,
};
