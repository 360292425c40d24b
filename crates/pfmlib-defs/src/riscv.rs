//! Vocabulary of the RISC-V family (pfmlib's own: no libpfm4 has it): the
//! cores of the Linux perf tool's RISC-V event lists and the SBI firmware
//! events. An event is its code, with no unit masks and no modifiers (the
//! privilege levels are perf_events' own). A core PMU carries the identity
//! registers it is detected by, as perf's RISC-V `mapfile.csv` gives them.

use crate::vocab::{ExtField, ExtKind, FamilyDefs};

/// PMU flags: `firmware`, the SBI firmware events (`config` = 1<<63 | code).
pub const PMU_FLAGS: &[&str] = &["firmware"];

/// A 32-bit integer key, absent: 0.
const fn word(key: &'static str) -> ExtField {
    ExtField {
        key,
        kind: ExtKind::Int {
            min: 0,
            max: u32::MAX,
            default: 0,
        },
        required: false,
    }
}

/// Detection keys of a core PMU (perf's `mapfile.csv` rows, as numbers):
///
/// - `mvendorid`: the JEDEC vendor id (0: no detection, the PMU is not a
///   core's);
/// - `marchid_hi`, `marchid_lo`: the `marchid`, its digits other than the
///   one below as they must be;
/// - `marchid_nibble`, `marchid_digits`: a digit of `marchid` (nibble
///   position, 0 lowest) that may take any value of a set (bit n: n), when
///   `marchid_digits` is not 0;
/// - `mimpid_lead`: the set of leading hexadecimal digits `mimpid` may have
///   (bit n: n), with one digit at least after it; 0: any `mimpid` ...
/// - `mimpid_exact`: ... unless this is set: then `mimpid` must be
///   `mimpid`.
pub const PMU_EXT: &[ExtField] = &[
    word("mvendorid"),
    word("marchid_hi"),
    word("marchid_lo"),
    ExtField {
        key: "marchid_nibble",
        kind: ExtKind::Int {
            min: 0,
            max: 15,
            default: 0,
        },
        required: false,
    },
    ExtField {
        key: "marchid_digits",
        kind: ExtKind::Int {
            min: 0,
            max: 0xffff,
            default: 0,
        },
        required: false,
    },
    ExtField {
        key: "mimpid_lead",
        kind: ExtKind::Int {
            min: 0,
            max: 0xffff,
            default: 0,
        },
        required: false,
    },
    ExtField {
        key: "mimpid_exact",
        kind: ExtKind::OptInt { max: u32::MAX - 1 },
        required: false,
    },
];

/// The family.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "riscv",
    pmu_flags: PMU_FLAGS,
    event_flags: &[],
    umask_flags: &[],
    modifiers: &[],
    fixed: &[],
    event_ext: &[],
    pmu_ext: PMU_EXT,
    umask_ext: &[],
    all_modifiers: false,
};
