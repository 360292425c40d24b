//! Vocabulary of the Intel Sandy Bridge / Ivy Bridge client uncore (C-box)
//! family: exactly the x86 core family's (flags, modifiers, fixed fields,
//! extra keys), since its events are encoded by the x86 encoder.

use crate::intel_x86 as x86;
use crate::vocab::FamilyDefs;

/// The family: the x86 vocabulary under another engine.
pub const DEFS: FamilyDefs = FamilyDefs {
    name: "intel_snb_unc",
    pmu_flags: x86::PMU_FLAGS,
    event_flags: x86::EVENT_FLAGS,
    umask_flags: x86::UMASK_FLAGS,
    modifiers: x86::MODIFIERS,
    fixed: x86::FIXED,
    event_ext: x86::EVENT_EXT,
    pmu_ext: x86::PMU_EXT,
    umask_ext: x86::UMASK_EXT,
    all_modifiers: false,
};
