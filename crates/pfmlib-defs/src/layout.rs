//! Byte layout of the generated tables: record sizes and field offsets,
//! shared by the generator (which writes the records) and pfmlib's table
//! readers. Every field is little-endian; strings are
//! 32-bit string ids (0 is the empty string, meaning "none" where a string
//! is optional); indexes into other arrays are plain integers. Nothing in
//! the tables is a pointer, so the loader relocates none of it.

/// One PMU model: name, detection, counters, and which shared event table
/// it uses (several PMUs may share one).
pub mod pmu {
    /// Name (string id).
    pub const NAME: usize = 0;
    /// Description (string id).
    pub const DESC: usize = 4;
    /// perf_events PMU name in sysfs (string id, 0: none).
    pub const PERF_NAME: usize = 8;
    /// libpfm4's `pfm_pmu_t` number.
    pub const ID: usize = 12;
    /// Family-defined PMU flags.
    pub const FLAGS: usize = 16;
    /// First extension word (family-defined extra keys), 0: none.
    pub const EXT: usize = 20;
    /// First entry of the CPU models it is detected on.
    pub const MODELS: usize = 24;
    /// Event table (u16).
    pub const TABLE: usize = 28;
    /// Number of CPU model entries (u16).
    pub const NMODELS: usize = 30;
    /// CPU family (u16).
    pub const CPU_FAMILY: usize = 32;
    /// Engine family (u8), position in [`crate::FAMILIES`].
    pub const FAMILY: usize = 34;
    /// Kind (u8): 0 core, 1 uncore, 2 OS generic.
    pub const KIND: usize = 35;
    /// Generic counters (u8).
    pub const NUM_CNTRS: usize = 36;
    /// Fixed counters (u8).
    pub const NUM_FIXED: usize = 37;
    /// Most codes one event needs (u8).
    pub const MAX_ENCODING: usize = 38;
    /// Privilege levels the PMU can filter (u8, `PFM_PLM*` bits).
    pub const SUPPORTED_PLM: usize = 39;
    /// Variant (u8): bit position of this PMU in the table's variant masks.
    pub const VARIANT: usize = 40;
    /// CPU vendor detected on (u8): 0 none, 1 Intel, 2 AMD; Arm implementers
    /// 3 Arm, 4 Broadcom, 5 Cavium, 6 Fujitsu, 7 HiSilicon, 8 Applied Micro,
    /// 9 Qualcomm, 10 NVIDIA; 11 IBM (POWER).
    pub const VENDOR: usize = 41;
    /// Position in the lookup order of x86 and other hosts (u16).
    pub const RANK: usize = 42;
    /// Model-specific dispatcher (u8): 0 none, 1 Nehalem, 2 IA-64.
    pub const DISPATCH: usize = 44;
    /// The libpfm4 builds that have this PMU (u8): [`BUILD_X86_64`],
    /// [`BUILD_ARM`], [`BUILD_ARM64`], [`BUILD_POWERPC`], [`BUILD_S390X`],
    /// [`BUILD_SPARC`], [`BUILD_MIPS`], [`BUILD_RISCV64`] bits (0: in none,
    /// pfmlib's own).
    pub const BUILDS: usize = 45;
    /// [`BUILDS`] bit: libpfm4's x86_64 build.
    pub const BUILD_X86_64: u8 = 1;
    /// [`BUILDS`] bit: libpfm4's 32-bit Arm build.
    pub const BUILD_ARM: u8 = 2;
    /// [`BUILDS`] bit: libpfm4's arm64 build.
    pub const BUILD_ARM64: u8 = 4;
    /// [`BUILDS`] bit: libpfm4's powerpc build.
    pub const BUILD_POWERPC: u8 = 8;
    /// [`BUILDS`] bit: libpfm4's s390x build.
    pub const BUILD_S390X: u8 = 16;
    /// [`BUILDS`] bit: libpfm4's sparc build.
    pub const BUILD_SPARC: u8 = 32;
    /// [`BUILDS`] bit: libpfm4's mips build.
    pub const BUILD_MIPS: u8 = 64;
    /// [`BUILDS`] bit: pfmlib's riscv64 build (no libpfm4 has one: its
    /// PMUs are pfmlib's own, with perf's).
    pub const BUILD_RISCV64: u8 = 128;
    /// The uncore PMU dispatched beside this core PMU (string id, 0: none).
    pub const UNCORE: usize = 48;
    /// Position in the lookup order of libpfm4's 32-bit Arm build (u16).
    pub const RANK_ARM: usize = 52;
    /// Position in the lookup order of libpfm4's arm64 build (u16).
    pub const RANK_ARM64: usize = 54;
    /// Record size.
    pub const SIZE: usize = 56;
}

/// One event table, shared by the PMUs that have the same events.
pub mod table {
    /// First event (global event index).
    pub const FIRST_EVENT: usize = 0;
    /// Number of events.
    pub const NEVENTS: usize = 4;
    /// First unit mask (global unit-mask index).
    pub const FIRST_UMASK: usize = 8;
    /// Number of unit masks.
    pub const NUMASKS: usize = 12;
    /// First slot of the event-name index (in the index array).
    pub const NAME_INDEX: usize = 16;
    /// Slots of the event-name index (a power of two).
    pub const NAME_SLOTS: usize = 20;
    /// First slot of the unit-mask-name index.
    pub const UMASK_INDEX: usize = 24;
    /// Slots of the unit-mask-name index (a power of two).
    pub const UMASK_SLOTS: usize = 28;
    /// Record size.
    pub const SIZE: usize = 32;
}

/// One event.
pub mod event {
    /// Name (string id).
    pub const NAME: usize = 0;
    /// Description (string id).
    pub const DESC: usize = 4;
    /// Alias target, an event string (string id, 0: not an alias).
    pub const EQUIV: usize = 8;
    /// Modifiers it takes (bit = modifier id).
    pub const MODMSK: usize = 12;
    /// Event code (u64).
    pub const CODE: usize = 16;
    /// Counters it may use (u64; bit n generic n, bit 32+n fixed n).
    pub const CNTMSK: usize = 24;
    /// Family-defined event flags.
    pub const FLAGS: usize = 32;
    /// First unit mask (global unit-mask index).
    pub const FIRST_UMASK: usize = 36;
    /// Number of unit masks (u16).
    pub const NUMASKS: usize = 40;
    /// Number of unit-mask groups (u8).
    pub const NGRP: usize = 42;
    /// PMU variants that have it (u8 bit mask).
    pub const VARIANTS: usize = 43;
    /// First extension word, 0: none.
    pub const EXT: usize = 44;
    /// Record size.
    pub const SIZE: usize = 48;
}

/// One unit mask.
pub mod umask {
    /// Name (string id).
    pub const NAME: usize = 0;
    /// Description (string id).
    pub const DESC: usize = 4;
    /// Alias target, an attribute string (string id, 0: none).
    pub const EQUIV: usize = 8;
    /// Family-defined unit-mask flags.
    pub const FLAGS: usize = 12;
    /// Code (u64), hard-wired modifier fields included.
    pub const CODE: usize = 16;
    /// Modifiers it hard-wires (bit = modifier id).
    pub const MODHW: usize = 24;
    /// Group (u8).
    pub const GRP: usize = 28;
    /// PMU variants that have it (u8 bit mask).
    pub const VARIANTS: usize = 29;
    /// First extension word, 0: none.
    pub const EXT: usize = 32;
    /// Record size.
    pub const SIZE: usize = 36;
}

/// A CPU model entry of a PMU's detection list (u32): the model in the low
/// 16 bits, a mask of accepted steppings in the high 16 (0: any stepping).
pub mod model {
    /// Bits of the model number.
    pub const MODEL_MASK: u32 = 0xffff;
    /// Shift of the stepping mask.
    pub const STEPPING_SHIFT: u32 = 16;
}

/// Multiplier that mixes an event's position into the unit-mask-name hash.
pub const UMASK_KEY_MIX: u32 = 0x9e37_79b1;
