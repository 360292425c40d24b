//! libpfm4 4.13's C interface as Rust types: the structures its callers
//! pass (`#[repr(C)]`, field for field as `include/perfmon/pfmlib.h` and
//! `pfmlib_perf_event.h` declare them), the error codes and the constants.
//! Layouts are pinned by `tests/layout.rs` against the C compiler's
//! `offsetof`/`sizeof` over our headers.

use std::ffi::{c_char, c_int};

/// `PFM_SUCCESS`.
pub const PFM_SUCCESS: c_int = 0;
/// `PFM_ERR_NOTSUPP`: not supported.
pub const PFM_ERR_NOTSUPP: c_int = -1;
/// `PFM_ERR_INVAL`: invalid parameters.
pub const PFM_ERR_INVAL: c_int = -2;
/// `PFM_ERR_NOINIT`: library not initialised.
pub const PFM_ERR_NOINIT: c_int = -3;
/// `PFM_ERR_NOTFOUND`: event not found.
pub const PFM_ERR_NOTFOUND: c_int = -4;
/// `PFM_ERR_FEATCOMB`: invalid combination of features.
pub const PFM_ERR_FEATCOMB: c_int = -5;
/// `PFM_ERR_UMASK`: invalid or missing unit mask.
pub const PFM_ERR_UMASK: c_int = -6;
/// `PFM_ERR_NOMEM`: out of memory.
pub const PFM_ERR_NOMEM: c_int = -7;
/// `PFM_ERR_ATTR`: invalid event attribute.
pub const PFM_ERR_ATTR: c_int = -8;
/// `PFM_ERR_ATTR_VAL`: invalid event attribute value.
pub const PFM_ERR_ATTR_VAL: c_int = -9;
/// `PFM_ERR_ATTR_SET`: attribute value already set.
pub const PFM_ERR_ATTR_SET: c_int = -10;
/// `PFM_ERR_TOOMANY`: too many parameters.
pub const PFM_ERR_TOOMANY: c_int = -11;
/// `PFM_ERR_TOOSMALL`: parameter too small.
pub const PFM_ERR_TOOSMALL: c_int = -12;

/// `LIBPFM_VERSION`: major 4, minor 0 (what libpfm4 4.13 reports).
pub const LIBPFM_VERSION: c_int = 4 << 16;

/// `PFM_PMU_MAX` of libpfm4 upstream (June 2026; 517 in 4.13): PMU ids
/// below it are libpfm4's; pfmlib's own PMUs (beyond libpfm4) are numbered
/// above it, below [`PMU_ID_LIMIT`].
pub const LIBPFM4_PMU_MAX: u32 = 700;
/// One past the largest PMU id the event-index scheme can carry (`0x3ff`):
/// every PMU id pfmlib gives is below it.
pub const PMU_ID_LIMIT: u32 = 1 << 10;
/// `PFM_PMU_MAX` of our header (`include/perfmon/pfmlib.h`) and of this
/// library: [`PMU_ID_LIMIT`], so that a C caller walking the ids below it
/// reaches pfmlib's own PMUs too. `pfm_get_pmu_info` answers
/// `PFM_ERR_NOTSUPP` below it where there is no PMU, `PFM_ERR_INVAL` from
/// it on (as libpfm4 with its own `PFM_PMU_MAX`).
pub const PFM_PMU_MAX: u32 = PMU_ID_LIMIT;

/// `PFM_OS_NONE`, `PFM_OS_PERF_EVENT`, `PFM_OS_PERF_EVENT_EXT`; `PFM_OS_MAX`.
pub const PFM_OS_NONE: c_int = 0;
/// `PFM_OS_PERF_EVENT`.
pub const PFM_OS_PERF_EVENT: c_int = 1;
/// `PFM_OS_PERF_EVENT_EXT`.
pub const PFM_OS_PERF_EVENT_EXT: c_int = 2;
/// `PFM_OS_MAX`.
pub const PFM_OS_MAX: c_int = 3;

/// Every privilege-level bit (`PFM_PLM0 | PFM_PLM1 | PFM_PLM2 | PFM_PLM3 | PFM_PLMH`).
pub const PFM_PLM_ALL: c_int = 0x1f;

/// `PFM_DTYPE_UINT64`, the data type of every event.
pub const PFM_DTYPE_UINT64: c_int = 1;

/// `pfm_pmu_info_t` (56 bytes on 64-bit).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PmuInfo {
    /// `name`.
    pub name: *const c_char,
    /// `desc`.
    pub desc: *const c_char,
    /// `size`.
    pub size: usize,
    /// `pmu` (`pfm_pmu_t`).
    pub pmu: c_int,
    /// `type` (`pfm_pmu_type_t`).
    pub type_: c_int,
    /// `nevents`.
    pub nevents: c_int,
    /// `first_event`.
    pub first_event: c_int,
    /// `max_encoding`.
    pub max_encoding: c_int,
    /// `num_cntrs`.
    pub num_cntrs: c_int,
    /// `num_fixed_cntrs`.
    pub num_fixed_cntrs: c_int,
    /// Bit fields: `is_present:1`, `is_dfl:1`, `reserved_bits:30`.
    pub flags: u32,
}

/// `pfm_event_info_t` (64 bytes on 64-bit).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct EventInfo {
    /// `name`.
    pub name: *const c_char,
    /// `desc`.
    pub desc: *const c_char,
    /// `equiv`.
    pub equiv: *const c_char,
    /// `size`.
    pub size: usize,
    /// `code`.
    pub code: u64,
    /// `pmu` (`pfm_pmu_t`).
    pub pmu: c_int,
    /// `dtype` (`pfm_dtype_t`).
    pub dtype: c_int,
    /// `idx`.
    pub idx: c_int,
    /// `nattrs`.
    pub nattrs: c_int,
    /// `reserved`.
    pub reserved: c_int,
    /// Bit fields: `is_precise:1`, `is_speculative:2`, `support_hw_smpl:1`, `reserved_bits:28`.
    pub flags: u32,
}

/// `pfm_event_attr_info_t` (64 bytes on 64-bit).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct AttrInfo {
    /// `name`.
    pub name: *const c_char,
    /// `desc`.
    pub desc: *const c_char,
    /// `equiv`.
    pub equiv: *const c_char,
    /// `size`.
    pub size: usize,
    /// `code`.
    pub code: u64,
    /// `type` (`pfm_attr_t`).
    pub type_: c_int,
    /// `idx`.
    pub idx: c_int,
    /// `ctrl` (`pfm_attr_ctrl_t`).
    pub ctrl: c_int,
    /// Bit fields: `is_dfl:1`, `is_precise:1`, `is_speculative:2`, `support_hw_smpl:1`, `support_no_mods:1`, `reserved_bits:26`.
    pub flags: u32,
    /// The `defaults` union (`dfl_val64`, `dfl_str`, `dfl_bool`, `dfl_int`).
    pub dfl_val64: u64,
}

/// `pfm_pmu_encode_arg_t` (32 bytes on 64-bit), for `PFM_OS_NONE`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PmuEncodeArg {
    /// `codes`: in, a caller array or NULL; out, the codes.
    pub codes: *mut u64,
    /// `fstr`: where to store the fully-qualified string, or NULL.
    pub fstr: *mut *mut c_char,
    /// `size`.
    pub size: usize,
    /// `count`: in, the caller array's length; out, how many codes.
    pub count: c_int,
    /// `idx`: out, the event's opaque index.
    pub idx: c_int,
}

/// `pfm_perf_encode_arg_t` (40 bytes on 64-bit), for the perf_events layers.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PerfEncodeArg {
    /// `attr`: the caller's `struct perf_event_attr`.
    pub attr: *mut u8,
    /// `fstr`: where to store the fully-qualified string, or NULL.
    pub fstr: *mut *mut c_char,
    /// `size`.
    pub size: usize,
    /// `idx`: out, the event's opaque index.
    pub idx: c_int,
    /// `cpu`: out, the CPU `cpu=` asked for, -1 if none.
    pub cpu: c_int,
    /// `flags`: perf_event_open() flags (libpfm4 leaves them as given).
    pub flags: c_int,
    /// `pad0`.
    pub pad0: c_int,
}

/// `PFM_PMU_INFO_ABI0`: the size of the first ABI's `pfm_pmu_info_t`.
pub const PFM_PMU_INFO_ABI0: usize = 56;
/// `PFM_EVENT_INFO_ABI0`.
pub const PFM_EVENT_INFO_ABI0: usize = 64;
/// `PFM_ATTR_INFO_ABI0`.
pub const PFM_ATTR_INFO_ABI0: usize = 64;
/// The size `pfm_get_event_attr_info` knows and reports (its `size` on
/// return): libpfm4 checks the caller's size against its internal
/// attribute record, 72 bytes on 64-bit, not against the 64-byte public
/// structure. So does this library: a caller's bytes 64 to 71 are not
/// looked at, and `size` comes back as 72, as with libpfm4.
pub const ATTR_INFO_KNOWN: usize = 72;
/// `PFM_RAW_ENCODE_ABI0`.
pub const PFM_RAW_ENCODE_ABI0: usize = 32;
/// `PFM_PERF_ENCODE_ABI0` (4 bytes of padding included).
pub const PFM_PERF_ENCODE_ABI0: usize = 40;

/// `PERF_ATTR_SIZE_VER0`: a `perf_event_attr` of declared size 0 is this
/// first published layout.
pub const PERF_ATTR_SIZE_VER0: usize = 64;

/// The kernel's `struct perf_event_attr`: where the fields an encoding
/// sets are (byte offsets; bit positions in the one-bit-field word at
/// [`FLAGS`](perf_event_attr::FLAGS)). Kernel ABI: fields never move, new
/// ones are appended.
pub mod perf_event_attr {
    /// Bytes of the structure this library knows (`PERF_ATTR_SIZE_VER8`,
    /// as libpfm4 upstream's header; 4.13's stopped at `PERF_ATTR_SIZE_VER7`,
    /// 128, without `config3`).
    pub const KNOWN: usize = 136;
    /// `type`.
    pub const TYPE: usize = 0;
    /// `size`.
    pub const SIZE: usize = 4;
    /// `config`.
    pub const CONFIG: usize = 8;
    /// `sample_period` / `sample_freq` (a union).
    pub const SAMPLE_PERIOD: usize = 16;
    /// The word of one-bit fields (`disabled` is bit 0).
    pub const FLAGS: usize = 40;
    /// `config1`.
    pub const CONFIG1: usize = 56;
    /// `config2`.
    pub const CONFIG2: usize = 64;
    /// `config3` (`PERF_ATTR_SIZE_VER8`).
    pub const CONFIG3: usize = 128;
    /// `pinned`.
    pub const PINNED: u32 = 2;
    /// `exclusive`.
    pub const EXCLUSIVE: u32 = 3;
    /// `exclude_user`.
    pub const EXCLUDE_USER: u32 = 4;
    /// `exclude_kernel`.
    pub const EXCLUDE_KERNEL: u32 = 5;
    /// `exclude_hv`.
    pub const EXCLUDE_HV: u32 = 6;
    /// `freq`.
    pub const FREQ: u32 = 10;
    /// `precise_ip` (two bits).
    pub const PRECISE_IP: u32 = 15;
    /// `exclude_host`.
    pub const EXCLUDE_HOST: u32 = 19;
    /// `exclude_guest`.
    pub const EXCLUDE_GUEST: u32 = 20;
}

/// Bits of the bit-field words (`flags` of the structures above).
pub mod bits {
    /// `pfm_pmu_info_t.is_present`.
    pub const PMU_IS_PRESENT: u32 = 1;
    /// `pfm_pmu_info_t.is_dfl`.
    pub const PMU_IS_DFL: u32 = 1 << 1;
    /// `pfm_event_info_t.is_precise`.
    pub const EVENT_IS_PRECISE: u32 = 1;
    /// `pfm_event_info_t.is_speculative` (two bits) starts here.
    pub const EVENT_SPEC_SHIFT: u32 = 1;
    /// `pfm_event_info_t.support_hw_smpl`.
    pub const EVENT_HW_SMPL: u32 = 1 << 3;
    /// `pfm_event_attr_info_t.is_dfl`.
    pub const ATTR_IS_DFL: u32 = 1;
    /// `pfm_event_attr_info_t.is_precise`.
    pub const ATTR_IS_PRECISE: u32 = 1 << 1;
    /// `pfm_event_attr_info_t.is_speculative` (two bits) starts here.
    pub const ATTR_SPEC_SHIFT: u32 = 2;
    /// `pfm_event_attr_info_t.support_hw_smpl`.
    pub const ATTR_HW_SMPL: u32 = 1 << 4;
    /// `pfm_event_attr_info_t.support_no_mods` (libpfm4 upstream).
    pub const ATTR_NO_MODS: u32 = 1 << 5;
}

/// The `size` field of each structure, as an offset.
pub mod size_field {
    use std::mem::offset_of;

    /// `pfm_pmu_info_t.size`.
    pub const PMU_INFO: usize = offset_of!(super::PmuInfo, size);
    /// `pfm_event_info_t.size`.
    pub const EVENT_INFO: usize = offset_of!(super::EventInfo, size);
    /// `pfm_event_attr_info_t.size`.
    pub const ATTR_INFO: usize = offset_of!(super::AttrInfo, size);
    /// `pfm_pmu_encode_arg_t.size`.
    pub const RAW_ARG: usize = offset_of!(super::PmuEncodeArg, size);
    /// `pfm_perf_encode_arg_t.size`.
    pub const PERF_ARG: usize = offset_of!(super::PerfEncodeArg, size);
}

#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(std::mem::size_of::<PmuInfo>() == PFM_PMU_INFO_ABI0);
    assert!(std::mem::size_of::<EventInfo>() == PFM_EVENT_INFO_ABI0);
    assert!(std::mem::size_of::<AttrInfo>() == PFM_ATTR_INFO_ABI0);
    assert!(std::mem::size_of::<PmuEncodeArg>() == PFM_RAW_ENCODE_ABI0);
    assert!(std::mem::size_of::<PerfEncodeArg>() == PFM_PERF_ENCODE_ABI0);
};

/// `pfm_strerror`'s messages, by `-code`: libpfm4's texts, which callers may compare.
pub const ERROR_STRINGS: [&std::ffi::CStr; 13] = [
    c"success",
    c"not supported",
    c"invalid parameters",
    c"pfmlib not initialized",
    c"event not found",
    c"invalid combination of model specific features",
    c"invalid or missing unit mask",
    c"out of memory",
    c"invalid event attribute",
    c"invalid event attribute value",
    c"attribute value already set",
    c"too many parameters",
    c"parameter is too small",
];

/// `pfm_strerror`'s answer for a code that is none of libpfm4's.
pub const UNKNOWN_ERROR: &std::ffi::CStr = c"unknown error code";
