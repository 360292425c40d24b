//! The installed libpfm4 as a reference oracle for tests and benchmarks.
//!
//! `libpfm.so.4` is opened at run time with `LIBPFM_ENCODE_INACTIVE=1`, so it
//! encodes for every PMU, not only the host's. This crate is test tooling: the
//! product never links or loads libpfm4. The FFI here is the only `unsafe`
//! outside pfmlib's kernel-access layer; each block says why it is sound.

use libloading::Library;
use perf_event_open_sys::bindings::perf_event_attr;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr;

pub mod fake_cpuid;

/// `pfm_pmu_info_t`.
#[repr(C)]
struct PmuInfoC {
    name: *const c_char,
    desc: *const c_char,
    size: usize,
    pmu: c_int,
    type_: c_int,
    nevents: c_int,
    first_event: c_int,
    max_encoding: c_int,
    num_cntrs: c_int,
    num_fixed_cntrs: c_int,
    flags: u32,
}

/// `pfm_event_info_t`.
#[repr(C)]
struct EventInfoC {
    name: *const c_char,
    desc: *const c_char,
    equiv: *const c_char,
    size: usize,
    code: u64,
    pmu: c_int,
    dtype: c_int,
    idx: c_int,
    nattrs: c_int,
    reserved: c_int,
    flags: u32,
}

/// `pfm_event_attr_info_t`.
#[repr(C)]
struct AttrInfoC {
    name: *const c_char,
    desc: *const c_char,
    equiv: *const c_char,
    size: usize,
    code: u64,
    type_: c_int,
    idx: c_int,
    ctrl: c_int,
    flags: u32,
    dfl: u64,
}

/// `pfm_pmu_encode_arg_t`.
#[repr(C)]
struct RawArgC {
    codes: *mut u64,
    fstr: *mut *mut c_char,
    size: usize,
    count: c_int,
    idx: c_int,
}

/// `pfm_perf_encode_arg_t`.
#[repr(C)]
struct PerfArgC {
    attr: *mut perf_event_attr,
    fstr: *mut *mut c_char,
    size: usize,
    idx: c_int,
    cpu: c_int,
    flags: c_int,
    pad0: c_int,
}

type InitFn = unsafe extern "C" fn() -> c_int;
type TerminateFn = unsafe extern "C" fn();
type PmuInfoFn = unsafe extern "C" fn(c_int, *mut PmuInfoC) -> c_int;
type EventNextFn = unsafe extern "C" fn(c_int) -> c_int;
type EventInfoFn = unsafe extern "C" fn(c_int, c_int, *mut EventInfoC) -> c_int;
type AttrInfoFn = unsafe extern "C" fn(c_int, c_int, c_int, *mut AttrInfoC) -> c_int;
type EncodeFn = unsafe extern "C" fn(*const c_char, c_int, c_int, *mut c_void) -> c_int;
type FindFn = unsafe extern "C" fn(*const c_char) -> c_int;

/// PMU information as libpfm4 reports it.
#[derive(Debug, Clone)]
pub struct PmuInfo {
    /// libpfm4 PMU id.
    pub id: i32,
    /// Name.
    pub name: String,
    /// Description.
    pub desc: String,
    /// Type (1 core, 2 uncore, 3 OS generic).
    pub kind: i32,
    /// Events.
    pub nevents: i32,
    /// Generic counters.
    pub num_cntrs: i32,
    /// Fixed counters.
    pub num_fixed_cntrs: i32,
    /// Max encoding.
    pub max_encoding: i32,
    /// Present on the host.
    pub is_present: bool,
    /// Opaque index of the first event (-1: none).
    pub first_event: i32,
}

/// Event information as libpfm4 reports it.
#[derive(Debug, Clone)]
pub struct EventInfo {
    /// Opaque index.
    pub idx: i32,
    /// Name.
    pub name: String,
    /// Description.
    pub desc: String,
    /// Equivalent string.
    pub equiv: Option<String>,
    /// Code.
    pub code: u64,
    /// Number of attributes for the OS asked.
    pub nattrs: i32,
    /// Precise flag.
    pub is_precise: bool,
    /// Speculation (0 NA, 1 true, 2 false).
    pub speculation: u32,
    /// Can be recorded by a hardware sampling buffer.
    pub support_hw_smpl: bool,
    /// Attributes.
    pub attrs: Vec<AttrInfo>,
}

/// Attribute information as libpfm4 reports it.
#[derive(Debug, Clone)]
pub struct AttrInfo {
    /// Name.
    pub name: String,
    /// Description.
    pub desc: String,
    /// Equivalent string.
    pub equiv: Option<String>,
    /// Code.
    pub code: u64,
    /// Type (1 umask, 2 bool, 3 int).
    pub type_: i32,
    /// Control (1 PMU, 2 perf_event).
    pub ctrl: i32,
    /// Default unit mask.
    pub is_dfl: bool,
    /// Precise.
    pub is_precise: bool,
    /// Speculation (0 NA, 1 true, 2 false).
    pub speculation: u32,
    /// Can be recorded by a hardware sampling buffer.
    pub support_hw_smpl: bool,
}

/// The perf_event_attr fields libpfm4 sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PerfFields {
    /// type.
    pub type_: u32,
    /// config.
    pub config: u64,
    /// config1.
    pub config1: u64,
    /// config2.
    pub config2: u64,
    /// exclude_user.
    pub exclude_user: bool,
    /// exclude_kernel.
    pub exclude_kernel: bool,
    /// exclude_hv.
    pub exclude_hv: bool,
    /// exclude_host.
    pub exclude_host: bool,
    /// exclude_guest.
    pub exclude_guest: bool,
    /// precise_ip.
    pub precise_ip: u8,
    /// sample_period (or sample_freq).
    pub sample_period: u64,
    /// freq.
    pub freq: bool,
    /// pinned.
    pub pinned: bool,
    /// exclusive.
    pub exclusive: bool,
}

/// A successful libpfm4 encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// Opaque event index.
    pub idx: i32,
    /// Fully-qualified string.
    pub fstr: String,
    /// Codes (raw encoding only).
    pub codes: Vec<u64>,
    /// perf_event_attr fields (perf encodings only).
    pub perf: Option<PerfFields>,
    /// CPU (perf encodings only; -1 when not set).
    pub cpu: i32,
}

/// The loaded libpfm4.
pub struct Libpfm4 {
    _lib: Library,
    init: InitFn,
    terminate: TerminateFn,
    pmu_info: PmuInfoFn,
    event_next: EventNextFn,
    event_info: EventInfoFn,
    attr_info: AttrInfoFn,
    encode: EncodeFn,
    find: FindFn,
    free: unsafe extern "C" fn(*mut c_void),
}

fn cstr(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: libpfm4 returns NUL-terminated strings that live as long as the library.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

/// Event or attribute information borrowed from libpfm4's tables
/// (see [`Libpfm4::event_info_c`]).
#[derive(Debug, Clone, Copy)]
pub struct RawInfo<'a> {
    /// Name.
    pub name: &'a CStr,
    /// Description (empty when libpfm4 has none).
    pub desc: &'a CStr,
    /// Code.
    pub code: u64,
    /// Number of attributes (events only).
    pub nattrs: i32,
}

fn cstr_ref<'a>(p: *const c_char) -> &'a CStr {
    if p.is_null() {
        c""
    } else {
        // SAFETY: libpfm4 returns NUL-terminated strings that live as long as the library.
        unsafe { CStr::from_ptr(p) }
    }
}

impl Libpfm4 {
    /// Loads `libpfm.so.4` and initialises it with `LIBPFM_ENCODE_INACTIVE=1`.
    pub fn load() -> Result<Libpfm4, String> {
        Libpfm4::open("libpfm.so.4")
    }

    /// Loads the libpfm4 at `path` (a build for another architecture, say:
    /// `make ARCH=arm64 lib` gives `lib/libpfm.so.4`) and initialises it with
    /// `LIBPFM_ENCODE_INACTIVE=1`. Load one libpfm4 per process: two builds
    /// loaded together would each answer with their own tables, but share
    /// the process's environment and its C library state.
    pub fn load_from(path: &std::path::Path) -> Result<Libpfm4, String> {
        if !path.is_file() {
            return Err(format!("{} is not a file", path.display()));
        }
        Libpfm4::open(path.as_os_str())
    }

    fn open(name: impl AsRef<std::ffi::OsStr>) -> Result<Libpfm4, String> {
        let name = name.as_ref();
        // libpfm4's `pfm_initialize` is not safe to run in two threads at
        // once: both pass its `initdone` test, and upstream's (after 4.13)
        // then links each PMU into its active list twice, which makes a
        // cycle every later lookup walks forever (test threads that each
        // load the oracle spun at 100% CPU). Loads are serialised; a later
        // `pfm_initialize` returns at once.
        static INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _serial = INIT.lock().unwrap_or_else(|e| e.into_inner());
        std::env::set_var("LIBPFM_ENCODE_INACTIVE", "1");
        // SAFETY: loading a shared library runs its constructors; libpfm4 has none that
        // affect this process beyond its own state.
        let lib = unsafe { Library::new(name) }
            .map_err(|e| format!("cannot load {}: {e}", name.to_string_lossy()))?;
        let libc = unsafe { Library::new("libc.so.6") }.map_err(|e| e.to_string())?;
        // SAFETY: the symbol types match the prototypes in <perfmon/pfmlib.h>.
        unsafe {
            let init: InitFn = *lib
                .get::<InitFn>(b"pfm_initialize\0")
                .map_err(|e| e.to_string())?;
            let ret = init();
            if ret != 0 {
                return Err(format!("pfm_initialize failed: {ret}"));
            }
            let free = *libc
                .get::<unsafe extern "C" fn(*mut c_void)>(b"free\0")
                .map_err(|e| e.to_string())?;
            std::mem::forget(libc);
            Ok(Libpfm4 {
                init,
                terminate: *lib.get(b"pfm_terminate\0").map_err(|e| e.to_string())?,
                pmu_info: *lib.get(b"pfm_get_pmu_info\0").map_err(|e| e.to_string())?,
                event_next: *lib
                    .get(b"pfm_get_event_next\0")
                    .map_err(|e| e.to_string())?,
                event_info: *lib
                    .get(b"pfm_get_event_info\0")
                    .map_err(|e| e.to_string())?,
                attr_info: *lib
                    .get(b"pfm_get_event_attr_info\0")
                    .map_err(|e| e.to_string())?,
                encode: *lib
                    .get(b"pfm_get_os_event_encoding\0")
                    .map_err(|e| e.to_string())?,
                find: *lib.get(b"pfm_find_event\0").map_err(|e| e.to_string())?,
                free,
                _lib: lib,
            })
        }
    }

    /// Every PMU libpfm4 knows (ids 0..1024 that answer).
    pub fn pmus(&self) -> Vec<PmuInfo> {
        (0..1024).filter_map(|id| self.pmu(id)).collect()
    }

    /// One PMU by libpfm4 id.
    pub fn pmu(&self, id: i32) -> Option<PmuInfo> {
        let mut p = PmuInfoC {
            name: ptr::null(),
            desc: ptr::null(),
            size: std::mem::size_of::<PmuInfoC>(),
            pmu: 0,
            type_: 0,
            nevents: 0,
            first_event: 0,
            max_encoding: 0,
            num_cntrs: 0,
            num_fixed_cntrs: 0,
            flags: 0,
        };
        // SAFETY: p is a valid, writable pfm_pmu_info_t with its size set.
        let ret = unsafe { (self.pmu_info)(id, &mut p) };
        if ret != 0 {
            return None;
        }
        Some(PmuInfo {
            id,
            name: cstr(p.name)?,
            desc: cstr(p.desc).unwrap_or_default(),
            kind: p.type_,
            nevents: p.nevents,
            num_cntrs: p.num_cntrs,
            num_fixed_cntrs: p.num_fixed_cntrs,
            max_encoding: p.max_encoding,
            is_present: p.flags & 1 != 0,
            first_event: p.first_event,
        })
    }

    /// A PMU by name.
    pub fn pmu_by_name(&self, name: &str) -> Option<PmuInfo> {
        self.pmus().into_iter().find(|p| p.name == name)
    }

    /// Every event of a PMU with its attributes, for an OS layer (0 none, 1 perf, 2 perf ext).
    pub fn events(&self, pmu: &PmuInfo, os: i32) -> Vec<EventInfo> {
        let mut out = Vec::new();
        let mut idx = pmu.first_event;
        while idx >= 0 {
            if let Some(e) = self.event(idx, os) {
                out.push(e);
            }
            // SAFETY: plain integer call.
            idx = unsafe { (self.event_next)(idx) };
        }
        out
    }

    /// One event by opaque index.
    pub fn event(&self, idx: i32, os: i32) -> Option<EventInfo> {
        let mut e = EventInfoC {
            name: ptr::null(),
            desc: ptr::null(),
            equiv: ptr::null(),
            size: std::mem::size_of::<EventInfoC>(),
            code: 0,
            pmu: 0,
            dtype: 0,
            idx: 0,
            nattrs: 0,
            reserved: 0,
            flags: 0,
        };
        // SAFETY: e is a valid, writable pfm_event_info_t with its size set.
        if unsafe { (self.event_info)(idx, os, &mut e) } != 0 {
            return None;
        }
        let mut attrs = Vec::new();
        for a in 0..e.nattrs {
            let mut ai = AttrInfoC {
                name: ptr::null(),
                desc: ptr::null(),
                equiv: ptr::null(),
                size: std::mem::size_of::<AttrInfoC>(),
                code: 0,
                type_: 0,
                idx: 0,
                ctrl: 0,
                flags: 0,
                dfl: 0,
            };
            // SAFETY: ai is a valid, writable pfm_event_attr_info_t with its size set.
            if unsafe { (self.attr_info)(idx, a, os, &mut ai) } != 0 {
                continue;
            }
            attrs.push(AttrInfo {
                name: cstr(ai.name).unwrap_or_default(),
                desc: cstr(ai.desc).unwrap_or_default(),
                equiv: cstr(ai.equiv),
                code: ai.code,
                type_: ai.type_,
                ctrl: ai.ctrl,
                is_dfl: ai.flags & 1 != 0,
                is_precise: ai.flags & 2 != 0,
                speculation: (ai.flags >> 2) & 3,
                support_hw_smpl: ai.flags & 0x10 != 0,
            });
        }
        Some(EventInfo {
            idx,
            name: cstr(e.name).unwrap_or_default(),
            desc: cstr(e.desc).unwrap_or_default(),
            equiv: cstr(e.equiv),
            code: e.code,
            nattrs: e.nattrs,
            is_precise: e.flags & 1 != 0,
            speculation: (e.flags >> 1) & 3,
            support_hw_smpl: e.flags & 8 != 0,
            attrs,
        })
    }

    /// `pfm_find_event`: opaque index or error code.
    pub fn find_event(&self, s: &str) -> Result<i32, i32> {
        let c = CString::new(s).map_err(|_| -2)?;
        // SAFETY: c is NUL-terminated.
        let r = unsafe { (self.find)(c.as_ptr()) };
        if r < 0 {
            Err(r)
        } else {
            Ok(r)
        }
    }

    fn take_fstr(&self, p: *mut c_char) -> String {
        let s = cstr(p).unwrap_or_default();
        if !p.is_null() {
            // SAFETY: libpfm4 allocated the string with malloc and hands it to us.
            unsafe { (self.free)(p as *mut c_void) };
        }
        s
    }

    /// Raw encoding (`PFM_OS_NONE`): codes and fstr, or the error code.
    pub fn encode_raw(&self, s: &str, plm: u32) -> Result<Encoded, i32> {
        let c = CString::new(s).map_err(|_| -2)?;
        let mut fstr: *mut c_char = ptr::null_mut();
        let mut arg = RawArgC {
            codes: ptr::null_mut(),
            fstr: &mut fstr,
            size: std::mem::size_of::<RawArgC>(),
            count: 0,
            idx: 0,
        };
        // SAFETY: arg is a valid pfm_pmu_encode_arg_t; libpfm4 allocates codes and fstr.
        let ret = unsafe {
            (self.encode)(
                c.as_ptr(),
                plm as c_int,
                0,
                &mut arg as *mut _ as *mut c_void,
            )
        };
        if ret != 0 {
            return Err(ret);
        }
        let codes = if arg.codes.is_null() {
            Vec::new()
        } else {
            // SAFETY: libpfm4 filled `count` codes in a malloc'ed array we now own.
            let v = unsafe { std::slice::from_raw_parts(arg.codes, arg.count as usize) }.to_vec();
            unsafe { (self.free)(arg.codes as *mut c_void) };
            v
        };
        Ok(Encoded {
            idx: arg.idx,
            fstr: self.take_fstr(fstr),
            codes,
            perf: None,
            cpu: -1,
        })
    }

    /// perf_event encoding (`ext`: PFM_OS_PERF_EVENT_EXT, else PFM_OS_PERF_EVENT).
    pub fn encode_perf(&self, s: &str, plm: u32, ext: bool) -> Result<Encoded, i32> {
        let c = CString::new(s).map_err(|_| -2)?;
        let mut fstr: *mut c_char = ptr::null_mut();
        let mut attr = perf_event_attr {
            size: std::mem::size_of::<perf_event_attr>() as u32,
            ..Default::default()
        };
        let mut arg = PerfArgC {
            attr: &mut attr,
            fstr: &mut fstr,
            size: std::mem::size_of::<PerfArgC>(),
            idx: 0,
            cpu: 0,
            flags: 0,
            pad0: 0,
        };
        let os = if ext { 2 } else { 1 };
        // SAFETY: arg and attr are valid and writable; libpfm4 allocates fstr.
        let ret = unsafe {
            (self.encode)(
                c.as_ptr(),
                plm as c_int,
                os,
                &mut arg as *mut _ as *mut c_void,
            )
        };
        if ret != 0 {
            return Err(ret);
        }
        // SAFETY: the unions hold plain integers; every bit pattern is valid.
        let (period, config1, config2) = unsafe {
            (
                attr.__bindgen_anon_1.sample_period,
                attr.__bindgen_anon_3.config1,
                attr.__bindgen_anon_4.config2,
            )
        };
        let perf = PerfFields {
            type_: attr.type_,
            config: attr.config,
            config1,
            config2,
            exclude_user: attr.exclude_user() != 0,
            exclude_kernel: attr.exclude_kernel() != 0,
            exclude_hv: attr.exclude_hv() != 0,
            exclude_host: attr.exclude_host() != 0,
            exclude_guest: attr.exclude_guest() != 0,
            precise_ip: attr.precise_ip() as u8,
            sample_period: period,
            freq: attr.freq() != 0,
            pinned: attr.pinned() != 0,
            exclusive: attr.exclusive() != 0,
        };
        Ok(Encoded {
            idx: arg.idx,
            fstr: self.take_fstr(fstr),
            codes: Vec::new(),
            perf: Some(perf),
            cpu: arg.cpu,
        })
    }

    // ---- Lean entry points for benchmarks -------------------------------------
    //
    // These call libpfm4 with inputs prepared beforehand (C strings) and return
    // only a status, so that a benchmark times libpfm4 itself, not conversions to
    // Rust types. Whatever libpfm4 allocates for the caller is freed, as a C
    // caller would.

    /// `pfm_initialize`: 0 or a libpfm4 error code. After [`Libpfm4::terminate`]
    /// it initialises the library again (PMU detection, tables, OS layers).
    pub fn initialize(&self) -> i32 {
        // SAFETY: no arguments; libpfm4 keeps its own global state.
        unsafe { (self.init)() }
    }

    /// `pfm_terminate`: the next [`Libpfm4::initialize`] starts from scratch.
    pub fn terminate(&self) {
        // SAFETY: no arguments; libpfm4 keeps its own global state.
        unsafe { (self.terminate)() }
    }

    /// `pfm_find_event` on a prepared C string: opaque index (>= 0) or error code.
    pub fn find_event_c(&self, s: &CStr) -> i32 {
        // SAFETY: s is NUL-terminated.
        unsafe { (self.find)(s.as_ptr()) }
    }

    /// `pfm_get_os_event_encoding(PFM_OS_NONE)` asking for the codes and the
    /// fully-qualified string, both freed here. Returns the status and the first code.
    pub fn encode_raw_c(&self, s: &CStr, plm: u32) -> (i32, u64) {
        let mut fstr: *mut c_char = ptr::null_mut();
        let mut arg = RawArgC {
            codes: ptr::null_mut(),
            fstr: &mut fstr,
            size: std::mem::size_of::<RawArgC>(),
            count: 0,
            idx: 0,
        };
        // SAFETY: arg is a valid pfm_pmu_encode_arg_t; libpfm4 allocates codes and fstr.
        let ret = unsafe {
            (self.encode)(
                s.as_ptr(),
                plm as c_int,
                0,
                &mut arg as *mut _ as *mut c_void,
            )
        };
        let mut code = 0;
        if !arg.codes.is_null() {
            // SAFETY: libpfm4 filled `count` codes in a malloc'ed array we now own.
            unsafe {
                if arg.count > 0 {
                    code = *arg.codes;
                }
                (self.free)(arg.codes as *mut c_void);
            }
        }
        if !fstr.is_null() {
            // SAFETY: libpfm4 allocated the string with malloc and hands it to us.
            unsafe { (self.free)(fstr as *mut c_void) };
        }
        (ret, code)
    }

    /// `pfm_get_os_event_encoding(PFM_OS_PERF_EVENT[_EXT])` asking for the
    /// `perf_event_attr` and the fully-qualified string (freed here). Returns
    /// the status and `config`.
    pub fn encode_perf_c(&self, s: &CStr, plm: u32, ext: bool) -> (i32, u64) {
        let mut fstr: *mut c_char = ptr::null_mut();
        let mut attr = perf_event_attr {
            size: std::mem::size_of::<perf_event_attr>() as u32,
            ..Default::default()
        };
        let mut arg = PerfArgC {
            attr: &mut attr,
            fstr: &mut fstr,
            size: std::mem::size_of::<PerfArgC>(),
            idx: 0,
            cpu: 0,
            flags: 0,
            pad0: 0,
        };
        let os = if ext { 2 } else { 1 };
        // SAFETY: arg and attr are valid and writable; libpfm4 allocates fstr.
        let ret = unsafe {
            (self.encode)(
                s.as_ptr(),
                plm as c_int,
                os,
                &mut arg as *mut _ as *mut c_void,
            )
        };
        if !fstr.is_null() {
            // SAFETY: libpfm4 allocated the string with malloc and hands it to us.
            unsafe { (self.free)(fstr as *mut c_void) };
        }
        (ret, attr.config)
    }

    /// `pfm_get_event_next`: the next event's opaque index, or -1.
    pub fn event_next(&self, idx: i32) -> i32 {
        // SAFETY: plain integer call.
        unsafe { (self.event_next)(idx) }
    }

    /// `pfm_get_event_info` without copies: name, description and attribute count
    /// for an OS layer (0 none, 1 perf, 2 perf ext).
    pub fn event_info_c(&self, idx: i32, os: i32) -> Option<RawInfo<'_>> {
        let mut e = EventInfoC {
            name: ptr::null(),
            desc: ptr::null(),
            equiv: ptr::null(),
            size: std::mem::size_of::<EventInfoC>(),
            code: 0,
            pmu: 0,
            dtype: 0,
            idx: 0,
            nattrs: 0,
            reserved: 0,
            flags: 0,
        };
        // SAFETY: e is a valid, writable pfm_event_info_t with its size set.
        if unsafe { (self.event_info)(idx, os, &mut e) } != 0 {
            return None;
        }
        Some(RawInfo {
            name: cstr_ref(e.name),
            desc: cstr_ref(e.desc),
            code: e.code,
            nattrs: e.nattrs,
        })
    }

    /// `pfm_get_event_attr_info` without copies: name, description and code
    /// (`nattrs` is 0).
    pub fn attr_info_c(&self, idx: i32, attr: i32, os: i32) -> Option<RawInfo<'_>> {
        let mut ai = AttrInfoC {
            name: ptr::null(),
            desc: ptr::null(),
            equiv: ptr::null(),
            size: std::mem::size_of::<AttrInfoC>(),
            code: 0,
            type_: 0,
            idx: 0,
            ctrl: 0,
            flags: 0,
            dfl: 0,
        };
        // SAFETY: ai is a valid, writable pfm_event_attr_info_t with its size set.
        if unsafe { (self.attr_info)(idx, attr, os, &mut ai) } != 0 {
            return None;
        }
        Some(RawInfo {
            name: cstr_ref(ai.name),
            desc: cstr_ref(ai.desc),
            code: ai.code,
            nattrs: 0,
        })
    }
}
