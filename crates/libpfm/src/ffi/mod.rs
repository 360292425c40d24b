//! The exported functions: libpfm4 4.13's thirteen, with its C ABI. This
//! module and [`sys`] are the only places with `unsafe`: reading and
//! writing the caller's structures and strings. Each function checks its
//! arguments in libpfm4's order (so the same bad call gets the same error
//! code) and hands plain Rust values to the safe modules. No panic crosses
//! the boundary: every body runs under `catch_unwind`.
//!
//! Beyond libpfm4, no caller memory is read past what the caller vouched
//! for: NULL pointers are refused where libpfm4 would dereference them, a
//! string needs its NUL within [`MAX_STRING`] bytes, a structure may
//! declare at most [`MAX_STRUCT`] bytes, and the bytes past what we know
//! are read through the kernel (unreadable ones make the call fail with
//! `PFM_ERR_INVAL`, never a fault).

#![allow(unsafe_code)]

pub(crate) mod sys;

use crate::abi::*;
use crate::attr::{AttrBytes, ATTR_KNOWN};
use crate::cstrings::{c_ptr, opt_c_ptr};
use crate::encode;
use crate::state::{self, State};
use pfmlib::{Event, Os};
use std::ffi::{c_char, c_int, c_uint};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

/// Longest event string accepted: one with no NUL in its first 64 KiB is
/// refused (`PFM_ERR_INVAL`) rather than read on.
pub const MAX_STRING: usize = 1 << 16;

/// Largest `size` a caller's structure may declare (beyond it:
/// `PFM_ERR_INVAL`, without reading the bytes).
pub const MAX_STRUCT: usize = 1 << 16;

/// Runs an exported function's body: its result, its error code, or
/// `panicked` should it panic (a bug: it is reported, not propagated).
fn guard<T>(panicked: T, f: impl FnOnce() -> Result<T, T>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) | Ok(Err(v)) => v,
        Err(_) => panicked,
    }
}

/// libpfm4's size rule for a caller's structure at `base` whose `size`
/// field is at `size_off`: 0 means the first ABI's size; smaller than that
/// is refused; larger than what we know is accepted when the extra bytes
/// are all zero. Returns the size we fill in (ours).
///
/// # Safety
///
/// `base` is non-NULL and points to at least `abi0` readable bytes.
unsafe fn checked_size(
    base: *const u8,
    size_off: usize,
    abi0: usize,
    known: usize,
) -> Result<usize, c_int> {
    // SAFETY: the size field lies within the first ABI's bytes.
    let usz = unsafe { base.add(size_off).cast::<usize>().read_unaligned() };
    let usz = if usz == 0 { abi0 } else { usz };
    if usz < abi0 || usz > MAX_STRUCT {
        return Err(PFM_ERR_INVAL);
    }
    if usz > known && !sys::zero_bytes((base as usize).wrapping_add(known), usz - known) {
        return Err(PFM_ERR_INVAL);
    }
    Ok(known)
}

/// The caller's event string as text.
///
/// # Safety
///
/// `s` is NULL or points to readable memory.
unsafe fn event_string<'a>(s: *const c_char) -> Result<std::borrow::Cow<'a, str>, c_int> {
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { sys::c_string(s, MAX_STRING) }?;
    Ok(encode::text(bytes))
}

fn idx_of(ev: &Event<'_>) -> c_int {
    c_int::try_from(ev.idx()).unwrap_or(-1)
}

/// The event at opaque index `idx`: `PFM_ERR_INVAL` for a negative index,
/// an unknown PMU or position, or an event the PMU does not have here.
fn event_at(st: &State, idx: c_int) -> Result<Event<'_>, c_int> {
    let idx = u32::try_from(idx).map_err(|_| PFM_ERR_INVAL)?;
    st.lib.event_by_idx(idx).ok_or(PFM_ERR_INVAL)
}

fn int(n: impl TryInto<c_int>) -> c_int {
    n.try_into().unwrap_or(c_int::MAX)
}

/// Initialises the library: reads libpfm4's environment variables
/// (`LIBPFM_FORCE_PMU`, `LIBPFM_DISABLED_PMUS`, `LIBPFM_ENCODE_INACTIVE`,
/// `LIBPFM_VERBOSE`, `LIBPFM_DEBUG`, `LIBPFM_DEBUG_STDOUT`), detects the
/// machine and its PMUs. Further calls return at once, until
/// [`pfm_terminate`]. Thread-safe.
#[no_mangle]
pub extern "C" fn pfm_initialize() -> c_int {
    guard(PFM_ERR_NOTSUPP, || Ok(state::initialize()))
}

/// Forgets the initialisation; [`pfm_initialize`] may be called again.
/// Strings returned earlier stay valid.
#[no_mangle]
pub extern "C" fn pfm_terminate() {
    guard((), || {
        state::terminate();
        Ok(())
    })
}

/// `LIBPFM_VERSION` of libpfm4 4.13: major 4, minor 0.
#[no_mangle]
pub extern "C" fn pfm_get_version() -> c_int {
    LIBPFM_VERSION
}

/// A static message for an error code (`"unknown error code"` for any other
/// number). Needs no initialisation.
#[no_mangle]
pub extern "C" fn pfm_strerror(code: c_int) -> *const c_char {
    let msg = code
        .checked_neg()
        .and_then(|c| usize::try_from(c).ok())
        .and_then(|c| ERROR_STRINGS.get(c).copied())
        .unwrap_or(UNKNOWN_ERROR);
    msg.as_ptr()
}

/// Information about PMU `pmu` (a `pfm_pmu_t`).
///
/// # Safety
///
/// `output` is NULL or points to a writable `pfm_pmu_info_t` whose `size`
/// says how large it is (0: `PFM_PMU_INFO_ABI0`).
#[no_mangle]
pub unsafe extern "C" fn pfm_get_pmu_info(pmu: c_uint, output: *mut PmuInfo) -> c_int {
    guard(PFM_ERR_INVAL, || {
        state::with(|st| {
            if pmu >= PFM_PMU_MAX {
                return Err(PFM_ERR_INVAL);
            }
            if output.is_null() {
                return Err(PFM_ERR_INVAL);
            }
            // SAFETY: `output` is non-NULL and, by contract, a pfm_pmu_info_t.
            let size = unsafe {
                checked_size(
                    output.cast(),
                    size_field::PMU_INFO,
                    PFM_PMU_INFO_ABI0,
                    std::mem::size_of::<PmuInfo>(),
                )
            }?;
            let f = st.pmu_facts(pmu).ok_or(PFM_ERR_NOTSUPP)?;
            let info = PmuInfo {
                name: f.name.as_ptr(),
                desc: f.desc.as_ptr(),
                size,
                pmu: pmu as c_int,
                type_: f.kind,
                nevents: f.nevents,
                first_event: f.first_event,
                max_encoding: f.max_encoding,
                num_cntrs: f.num_cntrs,
                num_fixed_cntrs: f.num_fixed_cntrs,
                flags: if f.is_present {
                    bits::PMU_IS_PRESENT
                } else {
                    0
                } | if f.is_dfl { bits::PMU_IS_DFL } else { 0 },
            };
            // SAFETY: `output` is writable for a pfm_pmu_info_t (contract);
            // unaligned writes accept any address.
            unsafe { output.write_unaligned(info) };
            Ok(PFM_SUCCESS)
        })
    })
}

/// The opaque index of the event after `idx` in its PMU, or -1 (at the
/// end, for an invalid index, and before initialisation: -1 is this
/// function's only error value in libpfm4, which loops test for).
#[no_mangle]
pub extern "C" fn pfm_get_event_next(idx: c_int) -> c_int {
    guard(-1, || {
        let next = state::with(|st| {
            let ev = event_at(st, idx)?;
            Ok(ev.next().map_or(-1, |n| idx_of(&n)))
        });
        Ok(next.unwrap_or(-1))
    })
}

/// The opaque index of the event an event string names (attributes are
/// checked too), or an error code.
///
/// # Safety
///
/// `str` is NULL or points to readable memory.
#[no_mangle]
pub unsafe extern "C" fn pfm_find_event(event: *const c_char) -> c_int {
    guard(PFM_ERR_INVAL, || {
        state::with(|st| {
            // SAFETY: forwarded from the caller.
            let s = unsafe { event_string(event) }?;
            match st.lib.find_event(&s).map(|e| e.idx()) {
                Ok(idx) => Ok(int(idx)),
                Err(e) => Err(encode::fail(st, "pfm_find_event", &s, e)),
            }
        })
    })
}

/// Information about the event at opaque index `idx`, its attribute count
/// for OS layer `os`.
///
/// # Safety
///
/// `output` is NULL or points to a writable `pfm_event_info_t` whose `size`
/// says how large it is (0: `PFM_EVENT_INFO_ABI0`).
#[no_mangle]
pub unsafe extern "C" fn pfm_get_event_info(
    idx: c_int,
    os: c_uint,
    output: *mut EventInfo,
) -> c_int {
    guard(PFM_ERR_INVAL, || {
        state::with(|st| {
            let os = encode::os_arg(os)?;
            let ev = event_at(st, idx)?;
            if output.is_null() {
                return Err(PFM_ERR_INVAL);
            }
            // SAFETY: `output` is non-NULL and, by contract, a pfm_event_info_t.
            let size = unsafe {
                checked_size(
                    output.cast(),
                    size_field::EVENT_INFO,
                    PFM_EVENT_INFO_ABI0,
                    std::mem::size_of::<EventInfo>(),
                )
            }?;
            if !st.os_active(os) {
                return Err(PFM_ERR_NOTSUPP);
            }
            let i = ev.info(os);
            let info = EventInfo {
                name: c_ptr(i.name),
                desc: c_ptr(i.desc),
                equiv: opt_c_ptr(i.equiv),
                size,
                code: i.code,
                pmu: int(ev.pmu().id()),
                dtype: PFM_DTYPE_UINT64,
                idx,
                nattrs: int(i.nattrs),
                reserved: 0,
                flags: if i.is_precise {
                    bits::EVENT_IS_PRECISE
                } else {
                    0
                } | i.speculation.code() << bits::EVENT_SPEC_SHIFT
                    | if i.support_hw_smpl {
                        bits::EVENT_HW_SMPL
                    } else {
                        0
                    },
            };
            // SAFETY: `output` is writable for a pfm_event_info_t (contract).
            unsafe { output.write_unaligned(info) };
            Ok(PFM_SUCCESS)
        })
    })
}

/// Information about attribute `attr_idx` of the event at opaque index
/// `idx`, for OS layer `os`.
///
/// # Safety
///
/// `output` is NULL or points to a writable `pfm_event_attr_info_t` whose
/// `size` says how large it is (0: `PFM_ATTR_INFO_ABI0`).
#[no_mangle]
pub unsafe extern "C" fn pfm_get_event_attr_info(
    idx: c_int,
    attr_idx: c_int,
    os: c_uint,
    output: *mut AttrInfo,
) -> c_int {
    guard(PFM_ERR_INVAL, || {
        state::with(|st| {
            let aidx = usize::try_from(attr_idx).map_err(|_| PFM_ERR_INVAL)?;
            let os = encode::os_arg(os)?;
            let ev = event_at(st, idx)?;
            if output.is_null() {
                return Err(PFM_ERR_INVAL);
            }
            // SAFETY: `output` is non-NULL and, by contract, a pfm_event_attr_info_t.
            let size = unsafe {
                checked_size(
                    output.cast(),
                    size_field::ATTR_INFO,
                    PFM_ATTR_INFO_ABI0,
                    ATTR_INFO_KNOWN,
                )
            }?;
            if !st.os_active(os) {
                return Err(PFM_ERR_NOTSUPP);
            }
            let a = ev.attr(os, aidx).ok_or(PFM_ERR_INVAL)?;
            let info = AttrInfo {
                name: c_ptr(a.name),
                desc: c_ptr(a.desc),
                equiv: opt_c_ptr(a.equiv),
                size,
                code: a.code,
                type_: int(a.attr_type.code()),
                idx: attr_idx,
                ctrl: int(a.ctrl.code()),
                flags: if a.is_dfl { bits::ATTR_IS_DFL } else { 0 }
                    | if a.is_precise {
                        bits::ATTR_IS_PRECISE
                    } else {
                        0
                    }
                    | a.speculation.code() << bits::ATTR_SPEC_SHIFT
                    | if a.support_hw_smpl {
                        bits::ATTR_HW_SMPL
                    } else {
                        0
                    }
                    | if a.support_no_mods {
                        bits::ATTR_NO_MODS
                    } else {
                        0
                    },
                dfl_val64: 0,
            };
            // SAFETY: `output` is writable for a pfm_event_attr_info_t (contract).
            unsafe { output.write_unaligned(info) };
            Ok(PFM_SUCCESS)
        })
    })
}

/// Encodes an event string for OS layer `os`: `args` is a
/// `pfm_pmu_encode_arg_t` for `PFM_OS_NONE`, a `pfm_perf_encode_arg_t` for
/// `PFM_OS_PERF_EVENT` and `PFM_OS_PERF_EVENT_EXT`.
///
/// # Safety
///
/// `str` is NULL or points to readable memory; `args` is NULL or points to
/// the writable structure of the OS layer, whose pointers are NULL or
/// valid (`codes` for `count` elements, `fstr` for one pointer, `attr` for
/// the size its `size` field declares, or 64 bytes when 0).
#[no_mangle]
pub unsafe extern "C" fn pfm_get_os_event_encoding(
    event: *const c_char,
    dfl_plm: c_int,
    os: c_uint,
    args: *mut std::ffi::c_void,
) -> c_int {
    guard(PFM_ERR_INVAL, || {
        state::with(|st| {
            if args.is_null() || event.is_null() {
                return Err(PFM_ERR_INVAL);
            }
            let plm = encode::plm_arg(dfl_plm)?;
            match encode::encode_os(st, os)? {
                // SAFETY: forwarded from the caller: `args` is a pfm_pmu_encode_arg_t.
                Os::None => unsafe { encode_raw(st, event, plm, args.cast()) },
                // SAFETY: forwarded: `args` is a pfm_perf_encode_arg_t.
                os => unsafe { encode_perf(st, event, plm, os, args.cast()) },
            }
        })
    })
}

/// `PFM_OS_NONE`: codes into the caller's array (or a new one), the
/// fully-qualified string on request.
///
/// # Safety
///
/// As [`pfm_get_os_event_encoding`], `uarg` non-NULL.
unsafe fn encode_raw(
    st: &State,
    event: *const c_char,
    plm: pfmlib::Plm,
    uarg: *mut PmuEncodeArg,
) -> Result<c_int, c_int> {
    // SAFETY: `uarg` is non-NULL and, by contract, a pfm_pmu_encode_arg_t.
    unsafe {
        checked_size(
            uarg.cast(),
            size_field::RAW_ARG,
            PFM_RAW_ENCODE_ABI0,
            std::mem::size_of::<PmuEncodeArg>(),
        )
    }?;
    // SAFETY: `uarg` is readable for its known size.
    let mut arg = unsafe { uarg.read_unaligned() };
    // SAFETY: forwarded from the caller.
    let s = unsafe { event_string(event) }?;
    let enc = encode::raw(st, &s, plm)?;
    let n = enc.codes.len();
    let count = int(n);
    let mut ours = ptr::null_mut();
    if arg.codes.is_null() {
        ours = sys::malloc_codes(&enc.codes)?;
        arg.codes = ours;
    } else if arg.count < count {
        return Err(PFM_ERR_TOOSMALL);
    } else {
        // SAFETY: the caller's array holds `arg.count` >= n codes (contract).
        unsafe { ptr::copy_nonoverlapping(enc.codes.as_ptr(), arg.codes, n) };
    }
    arg.count = count;
    arg.idx = int(enc.idx);
    if !arg.fstr.is_null() {
        let f = sys::malloc_cstring(&enc.fstr).inspect_err(|_| sys::free(ours))?;
        // SAFETY: `fstr` is writable for one pointer (contract).
        unsafe { arg.fstr.write_unaligned(f) };
    }
    // SAFETY: `uarg` is writable for its known size (contract).
    unsafe { uarg.write_unaligned(arg) };
    Ok(PFM_SUCCESS)
}

/// `PFM_OS_PERF_EVENT[_EXT]`: the encoding merged into the caller's
/// `perf_event_attr` (the bytes its size declares, at most those we know),
/// the CPU and the fully-qualified string on request.
///
/// # Safety
///
/// As [`pfm_get_os_event_encoding`], `uarg` non-NULL.
unsafe fn encode_perf(
    st: &State,
    event: *const c_char,
    plm: pfmlib::Plm,
    os: Os,
    uarg: *mut PerfEncodeArg,
) -> Result<c_int, c_int> {
    // SAFETY: `uarg` is non-NULL and, by contract, a pfm_perf_encode_arg_t.
    unsafe {
        checked_size(
            uarg.cast(),
            size_field::PERF_ARG,
            PFM_PERF_ENCODE_ABI0,
            std::mem::size_of::<PerfEncodeArg>(),
        )
    }?;
    // SAFETY: `uarg` is readable for its known size.
    let mut arg = unsafe { uarg.read_unaligned() };
    if arg.attr.is_null() {
        return Err(PFM_ERR_INVAL);
    }
    // SAFETY: `attr` points to a perf_event_attr (contract), whose `size`
    // field is at bytes 4..8.
    let orig = unsafe { arg.attr.add(4).cast::<u32>().read_unaligned() };
    let asz = match orig as usize {
        0 => PERF_ATTR_SIZE_VER0,
        n => n.min(ATTR_KNOWN),
    };
    let mut attr = AttrBytes::default();
    // SAFETY: the caller's structure holds `asz` bytes (its declared size,
    // or the first published one when it declares 0).
    unsafe { ptr::copy_nonoverlapping(arg.attr, attr.0.as_mut_ptr(), asz) };
    if asz != ATTR_KNOWN {
        st.log.verbose(format_args!(
            "perf_event_attr of {asz} bytes given, {ATTR_KNOWN} known: only the given ones are set"
        ));
    }
    // SAFETY: forwarded from the caller.
    let s = unsafe { event_string(event) }?;
    let (enc, cpu) = encode::perf(st, &s, plm, os, &mut attr)?;
    attr.set_size(orig);
    // SAFETY: as above, `asz` bytes are the caller's, writable; then the
    // size field, which every perf_event_attr has.
    unsafe {
        ptr::copy_nonoverlapping(attr.0.as_ptr(), arg.attr, asz);
        arg.attr.add(4).cast::<u32>().write_unaligned(orig);
    }
    arg.idx = int(enc.idx);
    arg.cpu = cpu;
    // An event given a unit mask without modifiers (libpfm4 upstream's
    // no_mods) has no fully-qualified string: `*fstr` is left alone.
    if !arg.fstr.is_null() && !enc.fstr.is_empty() {
        let f = sys::malloc_cstring(&enc.fstr)?;
        // SAFETY: `fstr` is writable for one pointer (contract).
        unsafe { arg.fstr.write_unaligned(f) };
    }
    // SAFETY: `uarg` is writable for its known size (contract).
    unsafe { uarg.write_unaligned(arg) };
    Ok(PFM_SUCCESS)
}

/// Checks PMU `pmu`'s table, printing problems to `fp`.
///
/// # Safety
///
/// `fp` is NULL or an open `FILE *`.
#[no_mangle]
pub unsafe extern "C" fn pfm_pmu_validate(pmu: c_uint, fp: *mut libc::FILE) -> c_int {
    guard(PFM_ERR_INVAL, || {
        if fp.is_null() {
            return Err(PFM_ERR_INVAL);
        }
        state::with(|st| {
            let mut out = sys::CFile(fp);
            let ret = crate::validate::validate(st, pmu, &mut out);
            let _ = std::io::Write::flush(&mut out);
            Ok(ret)
        })
    })
}

/// The older raw-encoding call: `*codes`/`*count` are the caller's array
/// and its length (both NULL/0: a new array is allocated), `fstr` and `idx`
/// optional outputs.
///
/// # Safety
///
/// `str` is NULL or readable; `codes` and `count` are NULL or valid for one
/// element each, `*codes` NULL or valid for `*count` codes; `fstr` and
/// `idx` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn pfm_get_event_encoding(
    event: *const c_char,
    dfl_plm: c_int,
    fstr: *mut *mut c_char,
    idx: *mut c_int,
    codes: *mut *mut u64,
    count: *mut c_int,
) -> c_int {
    guard(PFM_ERR_INVAL, || {
        if event.is_null() || codes.is_null() || count.is_null() {
            return Err(PFM_ERR_INVAL);
        }
        // SAFETY: non-NULL, valid for one element each (contract).
        let (c, n) = unsafe { (codes.read_unaligned(), count.read_unaligned()) };
        if c.is_null() != (n == 0) {
            return Err(PFM_ERR_INVAL);
        }
        let mut arg = PmuEncodeArg {
            codes: c,
            fstr,
            size: std::mem::size_of::<PmuEncodeArg>(),
            count: n,
            idx: 0,
        };
        // SAFETY: `arg` is a valid pfm_pmu_encode_arg_t on our stack; the
        // pointers in it are the caller's, valid by contract.
        let ret = unsafe {
            pfm_get_os_event_encoding(event, dfl_plm, 0, (&mut arg as *mut PmuEncodeArg).cast())
        };
        if ret != PFM_SUCCESS {
            return Err(ret);
        }
        // SAFETY: as above; `idx` is NULL or writable.
        unsafe {
            codes.write_unaligned(arg.codes);
            count.write_unaligned(arg.count);
            if !idx.is_null() {
                idx.write_unaligned(arg.idx);
            }
        }
        Ok(PFM_SUCCESS)
    })
}

/// The older perf_events call: `PFM_OS_PERF_EVENT_EXT` into `attr`, with
/// optional `fstr` and `idx` outputs.
///
/// # Safety
///
/// `str` is NULL or readable; `attr` NULL or a `perf_event_attr` whose
/// `size` field says how large it is (0: 64 bytes); `fstr` and `idx` NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn pfm_get_perf_event_encoding(
    event: *const c_char,
    dfl_plm: c_int,
    attr: *mut u8,
    fstr: *mut *mut c_char,
    idx: *mut c_int,
) -> c_int {
    guard(PFM_ERR_INVAL, || {
        state::with(|_| Ok(()))?;
        if attr.is_null() || event.is_null() {
            return Err(PFM_ERR_INVAL);
        }
        encode::plm_arg(dfl_plm)?;
        let mut arg = PerfEncodeArg {
            attr,
            fstr,
            size: 0,
            idx: 0,
            cpu: 0,
            flags: 0,
            pad0: 0,
        };
        // SAFETY: `arg` is a valid pfm_perf_encode_arg_t on our stack; its
        // pointers are the caller's, valid by contract.
        let ret = unsafe {
            pfm_get_os_event_encoding(
                event,
                dfl_plm,
                PFM_OS_PERF_EVENT_EXT as c_uint,
                (&mut arg as *mut PerfEncodeArg).cast(),
            )
        };
        if ret != PFM_SUCCESS {
            return Err(ret);
        }
        if !idx.is_null() {
            // SAFETY: `idx` is writable (contract).
            unsafe { idx.write_unaligned(arg.idx) };
        }
        Ok(PFM_SUCCESS)
    })
}
