//! The library's one global state, as libpfm4 keeps it: nothing until
//! `pfm_initialize`, then a pfmlib [`Library`] for the running machine and
//! libpfm4's environment, until `pfm_terminate`. Behind a read-write lock:
//! every call holds it for reading, so calls run in parallel, and
//! initialisation and termination wait for the calls in flight.

use crate::abi::{PFM_ERR_NOINIT, PFM_SUCCESS, PMU_ID_LIMIT};
use crate::log::Log;
use pfmlib::{Host, Library, Options, Pmu};
use std::ffi::{c_int, CStr};
use std::sync::{OnceLock, PoisonError, RwLock};

/// What `pfm_get_pmu_info` reports of one PMU, computed on first request
/// (counting a PMU's events walks its table).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PmuFacts {
    pub name: &'static CStr,
    pub desc: &'static CStr,
    pub kind: c_int,
    pub nevents: c_int,
    pub first_event: c_int,
    pub max_encoding: c_int,
    pub num_cntrs: c_int,
    pub num_fixed_cntrs: c_int,
    pub is_present: bool,
    pub is_dfl: bool,
}

/// An initialised library.
pub(crate) struct State {
    /// pfmlib for this machine, with libpfm4's environment. With
    /// `LIBPFM_ENCODE_INACTIVE`, its `pmu::` prefixes reach the PMUs set
    /// up but not active, not those `LIBPFM_DISABLED_PMUS` or a forced PMU
    /// left out, as libpfm4 upstream's (4.13 reached those too:
    /// [`Options::encode_left_out`]).
    pub lib: Library,
    /// The perf_events OS layers are there (`PFM_OS_PERF_EVENT*`): the
    /// kernel has perf_events, which libpfm4 tells by
    /// `/proc/sys/kernel/perf_event_paranoid`.
    pub perf_os: bool,
    /// Verbose and debug output (`LIBPFM_VERBOSE`, `LIBPFM_DEBUG`, `LIBPFM_DEBUG_STDOUT`).
    pub log: Log,
    /// Per PMU id, its facts once asked for.
    pmus: Box<[OnceLock<Option<PmuFacts>>]>,
}

impl State {
    fn new(lib: Library, log: Log) -> State {
        let perf_os = lib.host().perf_events;
        let ids = lib.pmus().map(|p| p.id() + 1).max().unwrap_or(0);
        State {
            pmus: (0..ids.min(PMU_ID_LIMIT))
                .map(|_| OnceLock::new())
                .collect(),
            lib,
            perf_os,
            log,
        }
    }

    /// Is OS layer `os` (already checked to be below `PFM_OS_MAX`) there?
    pub fn os_active(&self, os: pfmlib::Os) -> bool {
        os == pfmlib::Os::None || self.perf_os
    }

    /// The facts of PMU `id`, if this library knows it and it is not disabled.
    pub fn pmu_facts(&self, id: u32) -> Option<PmuFacts> {
        let slot = self.pmus.get(id as usize)?;
        *slot.get_or_init(|| self.lib.pmu_by_id(id).map(facts))
    }
}

fn int(n: impl TryInto<c_int>) -> c_int {
    n.try_into().unwrap_or(c_int::MAX)
}

fn facts(p: Pmu<'_>) -> PmuFacts {
    let info = p.info();
    PmuFacts {
        name: p.name_cstr(),
        desc: p.desc_cstr(),
        kind: int(info.kind.code()),
        nevents: int(info.nevents),
        first_event: p.first_event().map_or(-1, |e| int(e.idx())),
        max_encoding: int(info.max_encoding),
        num_cntrs: int(info.num_cntrs),
        num_fixed_cntrs: int(info.num_fixed_cntrs),
        is_present: info.is_present,
        is_dfl: p.is_arch_default(),
    }
}

static STATE: RwLock<Option<State>> = RwLock::new(None);

/// Runs `f` on the initialised library; `PFM_ERR_NOINIT` before
/// `pfm_initialize` (or after `pfm_terminate`).
pub(crate) fn with<T>(f: impl FnOnce(&State) -> Result<T, c_int>) -> Result<T, c_int> {
    let guard = STATE.read().unwrap_or_else(PoisonError::into_inner);
    match guard.as_ref() {
        Some(st) => f(st),
        None => Err(PFM_ERR_NOINIT),
    }
}

/// `pfm_initialize`: reads libpfm4's environment, detects the machine and
/// chooses the PMUs. Once initialised, it returns at once (the answer of
/// the first call: always success here, as libpfm4's on x86).
pub(crate) fn initialize() -> c_int {
    let mut guard = STATE.write().unwrap_or_else(PoisonError::into_inner);
    if guard.is_some() {
        return PFM_SUCCESS;
    }
    let log = Log::from_env();
    let options = Options::libpfm4_env().host_build_only(!all_architectures());
    let (host, ignored) = host_as_asked();
    if let Some(why) = ignored {
        log.verbose(format_args!("{why}"));
    }
    let lib = Library::new(host, options);
    announce(&lib, &log);
    *guard = Some(State::new(lib, log));
    PFM_SUCCESS
}

/// The variable that opts in to every table pfmlib has, other
/// architectures' (IA-64 included) with them, where libpfm4's build for the
/// host's architecture has only its own: `PFMLIB_ALL_ARCHITECTURES=1`.
pub(crate) const ALL_ARCHITECTURES: &str = "PFMLIB_ALL_ARCHITECTURES";

/// The variable that makes the library answer as libpfm4's build for
/// another architecture would on this machine (`PFMLIB_HOST_ARCH=powerpc`:
/// that build's PMUs, this machine's files read as a POWER host's): for
/// tests and for inspecting another architecture's tables through C tools.
/// Names as [`pfmlib::Arch::from_name`]; an unknown name is ignored.
pub(crate) const HOST_ARCH: &str = "PFMLIB_HOST_ARCH";

/// The variable that makes the library answer for a recorded host
/// (`PFMLIB_HOST_ROOT=DIR`): its `/proc` and `/sys` are the folders under
/// DIR, as `pfm --host-root DIR` reads them (pfmlib's
/// [`Host::detect_with_root`]): on x86 the CPU of `DIR/proc/cpuinfo` when it
/// names one (else this machine's CPUID), on Arm, RISC-V and the others the
/// CPU `DIR/proc/cpuinfo` names, perf_events there when
/// `DIR/proc/sys/kernel/perf_event_paranoid` is. The architecture is
/// [`HOST_ARCH`]'s when set, else the one `DIR/proc/cpuinfo` names (x86
/// when it names none), and the PMUs are that architecture's build's. A
/// value that is not a directory is ignored (`LIBPFM_VERBOSE` says so).
pub(crate) const HOST_ROOT: &str = "PFMLIB_HOST_ROOT";

/// This machine, this machine as [`HOST_ARCH`] names it, or the recorded
/// host [`HOST_ROOT`] names; with the reason a [`HOST_ROOT`] was ignored.
fn host_as_asked() -> (Host, Option<String>) {
    let asked = std::env::var(HOST_ARCH)
        .ok()
        .and_then(|a| pfmlib::Arch::from_name(&a));
    let mut ignored = None;
    if let Some(root) = std::env::var_os(HOST_ROOT).filter(|r| !r.is_empty()) {
        // Relative to the working directory, as a C program's paths.
        let root = std::path::absolute(&root).unwrap_or_else(|_| root.into());
        if root.is_dir() {
            return (recorded_host(root, asked), None);
        }
        ignored = Some(format!(
            "{HOST_ROOT}={}: not a directory, ignored",
            root.display()
        ));
    }
    let host = match asked {
        Some(arch) => Host::detect_as(arch),
        None => Host::detect(),
    };
    (host, ignored)
}

/// The recorded host under `root`, of architecture `asked` or the one its
/// `/proc/cpuinfo` names (x86 when none), as `pfm --host-root` chooses.
fn recorded_host(root: std::path::PathBuf, asked: Option<pfmlib::Arch>) -> Host {
    let arch = asked.unwrap_or_else(|| {
        Host::from_root(pfmlib::Arch::Other, root.clone())
            .read_file_now("/proc/cpuinfo")
            .and_then(|c| pfmlib::Arch::from_cpuinfo(&c))
            .unwrap_or(pfmlib::Arch::X86)
    });
    Host::detect_with_root(arch, root)
}

/// Is [`ALL_ARCHITECTURES`] set to something other than `0` or nothing?
fn all_architectures() -> bool {
    std::env::var_os(ALL_ARCHITECTURES).is_some_and(|v| !v.is_empty() && v != "0")
}

/// `pfm_terminate`: forgets everything; `pfm_initialize` may start again
/// (and reads the environment again). Strings already handed out stay valid.
pub(crate) fn terminate() {
    let old = STATE.write().unwrap_or_else(PoisonError::into_inner).take();
    if let Some(st) = old {
        st.log.debug(format_args!("terminated"));
    }
}

/// What libpfm4 says at initialisation: the forced PMU (verbose), the OS
/// layers and the PMUs chosen (debug).
fn announce(lib: &Library, log: &Log) {
    if !log.verbose_on() && !log.debug_on() {
        return;
    }
    let host = lib.host();
    log.debug(format_args!(
        "host: {:?} family {} model {} stepping {}; perf_events {}",
        host.vendor,
        host.family,
        host.model,
        host.stepping,
        if host.perf_events {
            "present"
        } else {
            "absent"
        }
    ));
    if let Some(forced) = lib.options().force_pmu.as_deref() {
        match lib.active_pmus().next() {
            Some(p) => log.verbose(format_args!(
                "forced PMU: {} ({}), the only one active",
                p.name(),
                p.desc()
            )),
            None => log.verbose(format_args!(
                "LIBPFM_FORCE_PMU={forced} names no PMU: none is active"
            )),
        }
    }
    let active: Vec<&str> = lib.active_pmus().map(|p| p.name()).collect();
    log.debug(format_args!(
        "{} PMUs known, {} active: {}",
        lib.pmus().count(),
        active.len(),
        active.join(" ")
    ));
}
