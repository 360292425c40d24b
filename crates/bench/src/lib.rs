//! Benchmarks of pfmlib against the installed libpfm4.
//!
//! Both libraries run in the same process on the same inputs; every input is
//! first checked to give the same answer in both (so both do the same work),
//! then the criterion benches in `benches/` time them and the `report` binary
//! prints the table (figure, libpfm4, pfmlib, ratio libpfm4 / pfmlib).
//!
//! The figures, one bench target (one process) each:
//!
//! - `startup`: initialisation plus the first lookup (libpfm4 must call
//!   `pfm_initialize`; pfmlib has no initialisation call, the first lookup
//!   detects the host).
//! - `lookup`: every event name of `nhm` with and without the `nhm::` prefix,
//!   and a name that does not exist. Unprefixed names are looked up in the
//!   PMUs active on the host, so both libraries are given a Nehalem host:
//!   libpfm4 with `LIBPFM_FORCE_PMU=nhm`, pfmlib with [`nehalem_host`].
//! - `encoding`: every event × unit mask string of `nhm` for `PFM_OS_NONE` and
//!   `PFM_OS_PERF_EVENT_EXT`, and strings with several modifiers.
//! - `listing`: every event and attribute, with descriptions, of every PMU
//!   both libraries share.
//!
//! Peak memory is measured by the `probe-libpfm4` and `probe-pfmlib`
//! binaries, one library each.
//!
//! [`bulk`]: the whole-process row, `pfm check --input` against a C loop
//! over libpfm4 (`c/check_loop.c`), both timed from spawn to exit.
//!
//! [`capi`]: the C interface, pfmlib's `libpfm.so.4` against libpfm4's,
//! called by the same C program (`c/capi_bench.c`), one process per library.

pub mod bulk;
pub mod capi;

use pfm_oracle::Libpfm4;
use pfmlib::{AttrType, Host, Library, Os, Plm, Vendor};
use std::ffi::CString;

/// The PMU whose events are looked up and encoded.
pub const PMU: &str = "nhm";

/// An event string in both forms: Rust for pfmlib, C for libpfm4.
#[derive(Debug, Clone)]
pub struct Input {
    /// For pfmlib.
    pub s: String,
    /// For libpfm4.
    pub c: CString,
}

impl Input {
    /// Both forms of `s`.
    pub fn new(s: String) -> Input {
        let c = CString::new(s.as_str()).expect("no NUL in event strings");
        Input { s, c }
    }
}

/// Loads libpfm4 (`LIBPFM_ENCODE_INACTIVE=1`), optionally forcing one PMU to be
/// the active one (`LIBPFM_FORCE_PMU`), as on a machine of that model.
///
/// Panics with the reason when `libpfm.so.4` cannot be loaded: the benchmarks
/// need it.
pub fn libpfm4(force_pmu: Option<&str>) -> Libpfm4 {
    match force_pmu {
        Some(p) => std::env::set_var("LIBPFM_FORCE_PMU", p),
        None => std::env::remove_var("LIBPFM_FORCE_PMU"),
    }
    Libpfm4::load().unwrap_or_else(|e| {
        panic!("{e}: the benchmarks compare with libpfm4 (Debian/Ubuntu: apt-get install libpfm4)")
    })
}

/// A Nehalem machine (family 6, model 26) with perf_events, for pfmlib.
pub fn nehalem_host() -> Host {
    Host::synthetic(Vendor::Intel, 6, 26)
}

/// libpfm4's code for an OS layer.
pub fn os_code(os: Os) -> i32 {
    os.code() as i32
}

/// The event names of [`PMU`], in table order.
pub fn event_names(lib: &Library) -> Vec<&'static str> {
    lib.pmu(PMU)
        .expect("pfmlib knows nhm")
        .events()
        .map(|e| e.name())
        .collect()
}

/// Lookup inputs: every event with the `nhm::` prefix.
pub fn lookup_prefixed(lib: &Library) -> Vec<Input> {
    event_names(lib)
        .into_iter()
        .map(|n| Input::new(format!("{PMU}::{n}")))
        .collect()
}

/// Lookup inputs: every event without prefix.
pub fn lookup_unprefixed(lib: &Library) -> Vec<Input> {
    event_names(lib)
        .into_iter()
        .map(|n| Input::new(n.to_string()))
        .collect()
}

/// Lookup inputs: a name that exists nowhere, with and without prefix.
pub fn lookup_missing() -> Vec<Input> {
    vec![
        Input::new(format!("{PMU}::NO_SUCH_EVENT")),
        Input::new("NO_SUCH_EVENT".to_string()),
    ]
}

/// Encoding inputs: every event × unit mask of [`PMU`] (`nhm::EVENT:UMASK`;
/// `nhm::EVENT` for an event without unit masks).
pub fn encode_umasks(lib: &Library) -> Vec<Input> {
    let pmu = lib.pmu(PMU).expect("pfmlib knows nhm");
    let mut v = Vec::new();
    for e in pmu.events() {
        let umasks: Vec<&str> = e
            .attrs(Os::None)
            .iter()
            .filter(|a| a.attr_type == AttrType::Umask)
            .map(|a| a.name)
            .collect();
        if umasks.is_empty() {
            v.push(Input::new(format!("{PMU}::{}", e.name())));
        }
        for u in umasks {
            v.push(Input::new(format!("{PMU}::{}:{u}", e.name())));
        }
    }
    v
}

/// Encoding inputs with several modifiers: each event of [`PMU`] with its
/// first unit mask and every modifier the OS layer offers it (a value chosen
/// per modifier; `freq` is left out as it excludes `period`).
pub fn encode_modifiers(lib: &Library, os: Os) -> Vec<Input> {
    let pmu = lib.pmu(PMU).expect("pfmlib knows nhm");
    let mut v = Vec::new();
    for e in pmu.events() {
        let attrs = e.attrs(os);
        let mut s = format!("{PMU}::{}", e.name());
        if let Some(u) = attrs.iter().find(|a| a.attr_type == AttrType::Umask) {
            s.push(':');
            s.push_str(u.name);
        }
        push_modifiers(&mut s, &attrs);
        v.push(Input::new(s));
    }
    v
}

/// The value given to a modifier in the inputs with every modifier (`freq`
/// is left out as it excludes `period`, and so are the rare ones).
pub fn modifier_value(attr_type: AttrType, name: &str) -> Option<&'static str> {
    Some(match (attr_type, name) {
        (AttrType::ModBool, "k") => "=0",
        (AttrType::ModBool, "u" | "e" | "mh") => "",
        (AttrType::ModBool, _) => "=1",
        (_, "c") => "=2",
        (_, "period") => "=100000",
        (_, "precise") => "=2",
        (_, "cpu") => "=1",
        _ => return None,
    })
}

/// Appends `:name=value` for every modifier of `attrs` that
/// [`modifier_value`] gives a value.
pub fn push_modifiers(s: &mut String, attrs: &[pfmlib::AttrInfo]) {
    for a in attrs.iter().filter(|a| a.attr_type != AttrType::Umask) {
        if let Some(val) = modifier_value(a.attr_type, a.name) {
            s.push(':');
            s.push_str(a.name);
            s.push_str(val);
        }
    }
}

/// pfmlib's answer as libpfm4 would give it: status and first code (or `config`).
pub fn pfmlib_encode(lib: &Library, s: &str, os: Os) -> (i32, u64) {
    match lib.encode(s, Plm::DEFAULT, os) {
        Ok(e) => match e.perf {
            Some(p) => (0, p.config),
            None => (0, e.codes.first().copied().unwrap_or(0)),
        },
        Err(e) => (e.kind().code(), 0),
    }
}

/// libpfm4's answer: status and first code (or `config`).
pub fn libpfm4_encode(o: &Libpfm4, c: &std::ffi::CStr, os: Os) -> (i32, u64) {
    match os {
        Os::None => o.encode_raw_c(c, Plm::DEFAULT.bits()),
        Os::PerfEvent => o.encode_perf_c(c, Plm::DEFAULT.bits(), false),
        Os::PerfEventExt => o.encode_perf_c(c, Plm::DEFAULT.bits(), true),
        // A layer libpfm4 4.13 does not have.
        _ => (pfmlib::ErrorKind::NotSupported.code(), 0),
    }
}

/// pfmlib's lookup answer: the libpfm4-compatible index, or the error code.
pub fn pfmlib_find(lib: &Library, s: &str) -> i32 {
    match lib.find_event(s) {
        Ok(e) => e.info(Os::None).idx as i32,
        Err(e) => e.kind().code(),
    }
}

/// Panics unless both libraries give the same answer for every lookup input.
pub fn check_lookups(lib: &Library, o: &Libpfm4, inputs: &[Input]) {
    for i in inputs {
        let (ours, theirs) = (pfmlib_find(lib, &i.s), o.find_event_c(&i.c));
        assert_eq!(
            ours, theirs,
            "lookup of {:?}: pfmlib {ours}, libpfm4 {theirs}",
            i.s
        );
    }
}

/// Panics unless both libraries give the same answer for every encoding input;
/// returns how many encode successfully.
pub fn check_encodings(lib: &Library, o: &Libpfm4, inputs: &[Input], os: Os) -> usize {
    let mut ok = 0;
    for i in inputs {
        let (ours, theirs) = (pfmlib_encode(lib, &i.s, os), libpfm4_encode(o, &i.c, os));
        assert_eq!(ours, theirs, "encoding of {:?} for {os:?}", i.s);
        ok += (ours.0 == 0) as usize;
    }
    ok
}

/// A PMU both libraries know with the same events: its name and libpfm4 id.
#[derive(Debug, Clone)]
pub struct SharedPmu {
    /// Name.
    pub name: &'static str,
    /// libpfm4's PMU id.
    pub id: i32,
    /// libpfm4's opaque index of the first event.
    pub first_event: i32,
}

/// Every PMU pfmlib and libpfm4 both know with the same number of events.
pub fn shared_pmus(lib: &Library, o: &Libpfm4) -> Vec<SharedPmu> {
    let theirs = o.pmus();
    lib.pmus()
        .filter_map(|p| {
            let t = theirs.iter().find(|t| t.name == p.name())?;
            (t.nevents as usize == p.info().nevents && t.first_event >= 0).then(|| SharedPmu {
                name: p.name(),
                id: t.id,
                first_event: t.first_event,
            })
        })
        .collect()
}

/// What a listing saw: events, attributes, bytes of names and descriptions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Listed {
    /// Events.
    pub events: usize,
    /// Attributes (unit masks and modifiers).
    pub attrs: usize,
    /// Bytes of every name and description read.
    pub bytes: usize,
}

/// Lists every event and attribute of `pmus` through pfmlib's public API.
pub fn list_pfmlib(lib: &Library, pmus: &[SharedPmu], os: Os) -> Listed {
    let mut l = Listed::default();
    for sp in pmus {
        let Some(p) = lib.pmu(sp.name) else { continue };
        let pi = p.info();
        l.bytes += pi.name.len() + pi.desc.len();
        for e in p.events() {
            let ei = e.info(os);
            l.events += 1;
            l.bytes += ei.name.len() + ei.desc.len();
            for a in e.attrs(os) {
                l.attrs += 1;
                l.bytes += a.name.len() + a.desc.len();
            }
        }
    }
    l
}

/// Lists every event and attribute of `pmus` through libpfm4's API
/// (`pfm_get_pmu_info`, `pfm_get_event_next`, `pfm_get_event_info`,
/// `pfm_get_event_attr_info`), reading every name and description.
pub fn list_libpfm4(o: &Libpfm4, pmus: &[SharedPmu], os: Os) -> Listed {
    let osc = os_code(os);
    let mut l = Listed::default();
    for sp in pmus {
        let Some(pi) = o.pmu(sp.id) else { continue };
        l.bytes += pi.name.len();
        let mut idx = pi.first_event;
        while idx >= 0 {
            if let Some(ei) = o.event_info_c(idx, osc) {
                l.events += 1;
                l.bytes += ei.name.to_bytes().len() + ei.desc.to_bytes().len();
                for a in 0..ei.nattrs {
                    if let Some(ai) = o.attr_info_c(idx, a, osc) {
                        l.attrs += 1;
                        l.bytes += ai.name.to_bytes().len() + ai.desc.to_bytes().len();
                    }
                }
            }
            idx = o.event_next(idx);
        }
    }
    l
}

/// A ratio measured in pairs: libpfm4 and pfmlib timed alternately in short
/// slices, so that both see the same state of a noisy machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    /// Median over the slices of (libpfm4 time / pfmlib time).
    pub ratio: f64,
    /// Median time of one call of libpfm4's routine, in nanoseconds.
    pub theirs_ns: f64,
    /// Median time of one call of pfmlib's routine, in nanoseconds.
    pub ours_ns: f64,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Times `theirs` and `ours` alternately, `slices` times each (about
/// `slice` long per routine and slice), and returns the median ratio.
pub fn paired(
    mut theirs: impl FnMut(),
    mut ours: impl FnMut(),
    slices: usize,
    slice: std::time::Duration,
) -> Paired {
    use std::time::Instant;
    let calls = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        let one = start.elapsed().max(std::time::Duration::from_nanos(1));
        (slice.as_nanos() / one.as_nanos()).clamp(1, 1_000_000) as usize
    };
    let (nt, no) = (calls(&mut theirs), calls(&mut ours));
    let time = |f: &mut dyn FnMut(), n: usize| {
        let start = Instant::now();
        for _ in 0..n {
            f();
        }
        start.elapsed().as_nanos() as f64 / n as f64
    };
    let (mut ratios, mut ts, mut os) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..slices.max(1) {
        let (t, o) = if k % 2 == 0 {
            let t = time(&mut theirs, nt);
            (t, time(&mut ours, no))
        } else {
            let o = time(&mut ours, no);
            (time(&mut theirs, nt), o)
        };
        ratios.push(t / o);
        ts.push(t);
        os.push(o);
    }
    Paired {
        ratio: median(&mut ratios),
        theirs_ns: median(&mut ts),
        ours_ns: median(&mut os),
    }
}

/// Where the benches leave paired ratios for the report: `CRITERION_HOME`
/// (as the report sets it), else `target/criterion` of the workspace.
pub fn paired_path(group: &str) -> std::path::PathBuf {
    let home = std::env::var_os("CRITERION_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/criterion")
        });
    home.join(group).join("paired.json")
}

/// Saves a paired ratio where the report reads it.
pub fn save_paired(group: &str, p: &Paired) {
    let path = paired_path(group);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let json = serde_json::json!({
        "ratio": p.ratio, "libpfm4_ns": p.theirs_ns, "pfmlib_ns": p.ours_ns,
    });
    if let Err(e) = std::fs::write(&path, json.to_string()) {
        eprintln!("cannot write {}: {e}", path.display());
    }
    eprintln!("{group}: paired ratio libpfm4/pfmlib {:.2}", p.ratio);
}

/// The benches' paired measurement: 41 slices of about 2 ms per routine
/// (about 0.2 s per figure), saved for the report. Only under `cargo bench`
/// (which passes `--bench`): a bench run as a test measures nothing.
pub fn paired_here<A, B>(group: &str, mut theirs: impl FnMut() -> A, mut ours: impl FnMut() -> B) {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let p = paired(
        || {
            std::hint::black_box(theirs());
        },
        || {
            std::hint::black_box(ours());
        },
        41,
        std::time::Duration::from_millis(2),
    );
    save_paired(group, &p);
}

/// Peak resident set size of this process in KiB (`VmHWM` of `/proc/self/status`).
pub fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_built_from_the_tables() {
        let lib = Library::with_host(nehalem_host());
        let names = event_names(&lib);
        assert!(names.len() > 50);
        assert_eq!(lookup_prefixed(&lib).len(), names.len());
        assert!(encode_umasks(&lib).len() > names.len());
        let m = encode_modifiers(&lib, Os::PerfEventExt);
        assert!(m.iter().any(|i| i.s.contains(":period=100000")));
    }

    #[test]
    fn peak_rss_is_read() {
        if cfg!(target_os = "linux") {
            assert!(peak_rss_kib().is_some_and(|k| k > 0));
        }
    }
}
