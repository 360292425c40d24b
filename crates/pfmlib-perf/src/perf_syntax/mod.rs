//! perf's event syntax beside pfmlib's: what `perf stat -e` accepts,
//! resolved to a `perf_event_attr` with the host's sysfs and tracefs.
//!
//! An event string is read as the first of these that applies:
//!
//! 1. **sysfs PMU** — it contains `/`: `pmu/term=value,.../[modifiers]` or
//!    `pmu/alias/` from `/sys/bus/event_source/devices/<pmu>/{type,format,events}`
//!    ([`sysfs_pmu`]); pfmlib's names never contain `/`.
//! 2. **tracepoint** — `subsystem:event[:modifiers]` where `subsystem` is a
//!    directory of tracefs's `events/` and `event` one of its events (globs
//!    `*`, `?`, `[...]` allowed in both parts) ([`tracepoint`]). A string
//!    with `::` is never a tracepoint.
//! 3. **pfmlib** — `[pmu::]EVENT[:UMASK...][:mod=val...]` as pfmlib encodes it
//!    for `perf_event_open` (perf's generic names among them, via the `perf`
//!    PMU: `cycles`, `page-faults`, `L1-dcache-loads`...).
//! 4. **perf's other forms**, with an optional trailing `:modifiers`
//!    ([`Modifiers`]): raw `rNNNN` ([`raw_config`]), perf's tool event
//!    `duration_time`, perf's software names pfmlib lacks (`alignment-faults`,
//!    `emulation-faults`, `dummy`, `bpf-output`, ...) ([`generic`]), then any
//!    pfmlib event followed by perf modifiers (`cycles:ppp`, `page-faults:u`).
//!
//! Where both readings exist they mean the same event (`cycles:u`,
//! `r1a8` = `perf_raw::r1a8`), and pfmlib's wins because it comes first;
//! a `subsystem:event` that names an existing tracepoint is a tracepoint even
//! if pfmlib had an event named like the subsystem, because that is what
//! perf would count. When `subsystem` exists but not `event`, and neither
//! pfmlib nor step 4 reads the string, the error is "no such tracepoint"
//! (with an unreadable tracefs, that it cannot be checked, and pfmlib's error).
//!
//! [`parse_event_list`] splits `-e` lists (groups `{a,b}`, group modifiers
//! `{a,b}:u`, commas inside `pmu/.../`); [`expand_groups`] turns tracepoint
//! globs into one name per tracepoint before counting, and on a hybrid host
//! [`expand_hybrid`] makes each generic hardware event one per core PMU
//! (`cpu_core/cycles/`, `cpu_atom/cycles/`; see [`hybrid`]). An uncore
//! PMU named without its instance suffix (`uncore_imc/cas_count_read/`,
//! `skx_unc_imc::X`) means every instance ([`uncore`]): counted merged
//! under the one name, or one event per box with [`expand_uncore`].

pub mod energy;
pub mod generic;
pub mod hybrid;
mod modifiers;
mod raw;
pub mod sysfs_pmu;
pub mod tracepoint;
pub mod uncore;

pub use crate::syntax_error::SyntaxError;
pub use generic::Tool;
pub use hybrid::expand_hybrid;
pub use modifiers::{split_suffix, Modifiers, MAX_PRECISE};
pub use raw::{raw_config, PERF_TYPE_RAW};
pub use uncore::expand_uncore;

use crate::error::{Error, Result};
use pfmlib::{Host, Library, Os, PerfAttr, Plm};

/// Which syntax an event string was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// pfmlib's `[pmu::]EVENT[:UMASK][:mod=val]`.
    Pfmlib,
    /// A tracefs tracepoint `subsystem:event`.
    Tracepoint,
    /// A sysfs PMU `pmu/terms/`.
    SysfsPmu,
    /// perf's raw `rNNNN`.
    Raw,
    /// One of perf's generic software names.
    Generic,
}

/// An event string resolved to what `perf_event_open` needs.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PerfEvent {
    /// The event as requested (a glob's expansion names each tracepoint).
    pub name: String,
    /// How the string was read.
    pub syntax: Syntax,
    /// The attributes to open.
    pub attr: PerfAttr,
    /// The CPU the event asks for (pfmlib's `cpu=`), if any.
    pub cpu: Option<i32>,
    /// `:P`: open with the highest `precise_ip` the CPU allows.
    pub precise_max: bool,
    /// `:S`: `PERF_SAMPLE_READ` in the sample type.
    pub sample_read: bool,
    /// `:I`: `exclude_idle`.
    pub exclude_idle: bool,
    /// A value perf computes itself (`duration_time`).
    pub tool: Option<Tool>,
    /// Multiply the count by this to get `unit` (a sysfs alias's `.scale`).
    pub scale: Option<f64>,
    /// The unit of the scaled count (a sysfs alias's `.unit`).
    pub unit: Option<String>,
    /// `:W`: its group is weak (counted event by event when it cannot be
    /// opened whole).
    pub weak_group: bool,
}

impl PerfEvent {
    /// An event of given attributes, nothing more.
    pub fn from_attr(name: &str, syntax: Syntax, attr: PerfAttr, cpu: Option<i32>) -> PerfEvent {
        PerfEvent {
            name: name.to_string(),
            syntax,
            attr,
            cpu,
            precise_max: false,
            sample_read: false,
            exclude_idle: false,
            tool: None,
            scale: None,
            unit: None,
            weak_group: false,
        }
    }

    fn modified(mut self, mods: Option<&Modifiers>) -> PerfEvent {
        if let Some(m) = mods {
            m.apply(&mut self.attr);
            self.precise_max |= m.precise_max;
            self.sample_read |= m.sample_read;
            self.exclude_idle |= m.exclude_idle;
            self.weak_group |= m.weak_group;
        }
        self
    }
}

/// The attributes of an event of `type_`/`config` at the levels of `plm`
/// (the hypervisor follows perf's default: counted).
fn base_attr(type_: u32, config: u64, plm: Plm) -> PerfAttr {
    PerfAttr::new(type_, config)
        .exclude_user(!plm.contains(Plm::PLM3))
        .exclude_kernel(!plm.contains(Plm::PLM0))
}

fn syntax_err(event: &str, error: SyntaxError) -> Error {
    Error::Syntax {
        event: event.to_string(),
        error,
    }
}

/// Resolves `event` in any syntax this module reads (see the module
/// documentation for the order); a tracepoint glob gives every match.
/// `plm` is the levels counted when the event does not say.
///
/// ```
/// use pfmlib_perf::perf_syntax::{resolve, Syntax};
/// let lib = pfmlib::Library::global();
/// let e = resolve(lib, "alignment-faults:u", pfmlib::Plm::DEFAULT).unwrap();
/// assert_eq!((e[0].syntax, e[0].attr.type_, e[0].attr.config), (Syntax::Generic, 1, 7));
/// assert!(e[0].attr.exclude_kernel && !e[0].attr.exclude_user);
/// ```
pub fn resolve(lib: &Library, event: &str, plm: Plm) -> Result<Vec<PerfEvent>> {
    let event = event.trim();
    if let Some(first) = uncore::first_instance(lib, event) {
        // `uncore_imc/x/`, `skx_unc_imc::X`: described by its first
        // instance (type, scale, unit); counted on each ([`uncore::parts`]).
        let mut v = resolve(lib, &first, plm)?;
        v.iter_mut().for_each(|e| e.name = event.to_string());
        return Ok(v);
    }
    if event.contains('/') {
        if let Some(e) = on_core_pmu(lib, event, plm) {
            return Ok(vec![e?]);
        }
        return Ok(vec![sysfs(lib.host(), event, plm)?]);
    }
    let tp = match_tracepoint(lib.host(), event, plm);
    match tp {
        TpMatch::Found(v) => return Ok(v),
        TpMatch::Error(e) => return Err(syntax_err(event, e)),
        TpMatch::No | TpMatch::Unknown(_) => {}
    }
    let pfm = pfmlib_event(lib, event, plm);
    let pfm_err = match pfm {
        Ok(e) => return Ok(vec![e]),
        Err(e) => e,
    };
    if let Some(e) = perf_form(lib, event, plm)? {
        return Ok(vec![e]);
    }
    match tp {
        TpMatch::Unknown(mut e) => {
            if let SyntaxError::TracefsUnreadable { pfmlib, .. } = &mut e {
                *pfmlib = Some(pfm_err.to_string());
            }
            Err(syntax_err(event, e))
        }
        _ => Err(pfm_err),
    }
}

/// Step 4 of the module's order: perf's raw, tool and software names, or a
/// pfmlib event, each with perf's modifier suffix; `None` when none reads it.
fn perf_form(lib: &Library, event: &str, plm: Plm) -> Result<Option<PerfEvent>> {
    let (base, suffix) = split_suffix(event);
    let mods = match suffix {
        Some(s) => Some(Modifiers::parse(s).map_err(|e| syntax_err(event, e))?),
        None => None,
    };
    if let Some(e) = perf_generic(event, base, plm) {
        return Ok(Some(e.modified(mods.as_ref())));
    }
    if suffix.is_some() {
        if let Ok(mut e) = pfmlib_event(lib, base, plm) {
            e.name = event.to_string();
            return Ok(Some(e.modified(mods.as_ref())));
        }
    }
    Ok(None)
}

/// [`resolve`] for one counter: a glob must match exactly one tracepoint.
pub fn resolve_one(lib: &Library, event: &str, plm: Plm) -> Result<PerfEvent> {
    let mut v = resolve(lib, event, plm)?;
    match v.len() {
        1 => Ok(v.remove(0)),
        n => Err(syntax_err(event, SyntaxError::Ambiguous { count: n })),
    }
}

/// True when `event` is perf's tool event (`duration_time[:mods]`), a
/// value perf computes once rather than a count per thread or CPU.
pub fn is_tool(event: &str) -> bool {
    generic::tool(split_suffix(event.trim()).0).is_some()
}

/// perf's raw, tool and software names (step 4 of the module's order).
fn perf_generic(event: &str, base: &str, plm: Plm) -> Option<PerfEvent> {
    if let Some(c) = raw_config(base) {
        let attr = base_attr(PERF_TYPE_RAW, c, plm);
        return Some(PerfEvent::from_attr(event, Syntax::Raw, attr, None));
    }
    if let Some(t) = generic::tool(base) {
        let attr = base_attr(generic::PERF_TYPE_SOFTWARE, generic::SW_DUMMY, plm);
        let mut e = PerfEvent::from_attr(event, Syntax::Generic, attr, None);
        e.tool = Some(t);
        return Some(e);
    }
    let c = generic::software(base)?;
    let attr = base_attr(generic::PERF_TYPE_SOFTWARE, c, plm);
    Some(PerfEvent::from_attr(event, Syntax::Generic, attr, None))
}

/// pfmlib's encoding, refusing an event of a PMU that is not present on
/// the host: its raw code would count something else there.
fn pfmlib_event(lib: &Library, event: &str, plm: Plm) -> Result<PerfEvent> {
    let enc = lib.encode(event, plm, Os::PerfEventExt)?;
    if !lib.pmu(enc.pmu).is_some_and(|p| p.is_present()) {
        let present: Vec<&str> = lib.active_pmus().map(|p| p.name()).collect();
        return Err(Error::PmuNotPresent {
            event: event.to_string(),
            pmu: enc.pmu.to_string(),
            present: if present.is_empty() {
                "none".into()
            } else {
                present.join(", ")
            },
        });
    }
    let attr = enc.perf.ok_or_else(|| Error::Invalid {
        event: event.to_string(),
        detail: "the encoding has no perf_event_attr".into(),
    })?;
    let mut e = PerfEvent::from_attr(event, Syntax::Pfmlib, attr, enc.cpu);
    if let Some((scale, unit)) = energy::pfmlib_scale(lib.host(), enc.pmu, e.attr.config) {
        e.scale = Some(scale);
        e.unit = Some(unit);
    }
    Ok(e)
}

/// `cpu_core/cycles/[modifiers]`: a generic hardware or cache event on one
/// hybrid core PMU ([`hybrid`]), its PMU's type in `config` bits 32-63;
/// `None` when `event` is not of that form (another PMU, terms, or a name
/// that is not a generic hardware event).
fn on_core_pmu(lib: &Library, event: &str, plm: Plm) -> Option<Result<PerfEvent>> {
    let (pmu, rest) = event.split_once('/')?;
    let (body, suffix) = rest.rsplit_once('/')?;
    let body = body.trim();
    if !hybrid::CORE_PMUS.contains(&pmu) || body.is_empty() || body.contains([',', '=']) {
        return None;
    }
    let core = hybrid::core_pmus(lib.host())
        .into_iter()
        .find(|p| p.name == pmu)?;
    let generic = hybrid::generic_hardware(lib, body, plm)?;
    let suffix = suffix.strip_prefix(':').unwrap_or(suffix);
    let mods = if suffix.is_empty() {
        None
    } else {
        match Modifiers::parse(suffix) {
            Ok(m) => Some(m),
            Err(e) => return Some(Err(syntax_err(event, e))),
        }
    };
    let config = (generic.config & 0xffff_ffff) | u64::from(core.type_) << hybrid::PMU_TYPE_SHIFT;
    let attr = base_attr(generic.type_, config, plm);
    let e = PerfEvent::from_attr(event, Syntax::SysfsPmu, attr, None);
    Some(Ok(e.modified(mods.as_ref())))
}

/// `pmu/terms/[modifiers]`.
fn sysfs(host: &Host, event: &str, plm: Plm) -> Result<PerfEvent> {
    let err = |e| syntax_err(event, e);
    let (pmu, rest) = event.split_once('/').unwrap_or((event, ""));
    let (body, suffix) = rest.rsplit_once('/').ok_or_else(|| {
        err(SyntaxError::BadSyntax {
            detail: "a PMU event is pmu/terms/: the closing '/' is missing".into(),
        })
    })?;
    if pmu.is_empty() || body.trim().is_empty() {
        return Err(err(SyntaxError::BadSyntax {
            detail: "a PMU event is pmu/terms/: give the PMU and at least one term".into(),
        }));
    }
    let suffix = suffix.strip_prefix(':').unwrap_or(suffix);
    let mods = if suffix.is_empty() {
        None
    } else {
        Some(Modifiers::parse(suffix).map_err(err)?)
    };
    let s = sysfs_pmu::resolve(host, pmu, body).map_err(err)?;
    let mut attr = base_attr(s.type_, s.config[0], plm);
    attr.config1 = s.config[1];
    attr.config2 = s.config[2];
    attr.sample_period = s.sample_period.unwrap_or(0);
    let mut e = PerfEvent::from_attr(event, Syntax::SysfsPmu, attr, None);
    e.scale = s.scale;
    e.unit = s.unit;
    Ok(e.modified(mods.as_ref()))
}

/// What the tracepoint reading of a string found.
enum TpMatch {
    /// Not a tracepoint form, or no such subsystem.
    No,
    /// The subsystem exists but not the event: the error, unless pfmlib reads it.
    Unknown(SyntaxError),
    /// A tracepoint form that cannot be anything else, in error.
    Error(SyntaxError),
    /// The tracepoints.
    Found(Vec<PerfEvent>),
}

fn match_tracepoint(host: &Host, event: &str, plm: Plm) -> TpMatch {
    if event.contains("::") {
        return TpMatch::No;
    }
    let mut parts = event.splitn(3, ':');
    let (Some(sys), Some(name)) = (parts.next(), parts.next()) else {
        return TpMatch::No;
    };
    let suffix = parts.next();
    if sys.is_empty() || name.is_empty() {
        return TpMatch::No;
    }
    let glob = tracepoint::is_glob(sys) || tracepoint::is_glob(name);
    let Some(dir) = tracepoint::events_dir(host) else {
        return match (tracepoint::unreadable(host), glob) {
            (Some(d), true) => TpMatch::Error(SyntaxError::TracefsUnreadable {
                dir: d.into(),
                pfmlib: None,
            }),
            (Some(d), false) => TpMatch::Unknown(SyntaxError::TracefsUnreadable {
                dir: d.into(),
                pfmlib: None,
            }),
            (None, true) => TpMatch::Error(SyntaxError::NoTracefs),
            (None, false) => TpMatch::No,
        };
    };
    if tracepoint::subsystems(host, dir, sys).is_empty() {
        if tracepoint::out_of_descriptors() {
            return TpMatch::Error(SyntaxError::TooManyFiles);
        }
        return if glob {
            TpMatch::Error(SyntaxError::UnknownTracepoint { dir: dir.into() })
        } else {
            TpMatch::No
        };
    }
    let found = tracepoint::expand(host, dir, sys, name);
    if found.is_empty() && tracepoint::out_of_descriptors() {
        return TpMatch::Error(SyntaxError::TooManyFiles);
    }
    if found.is_empty() {
        let e = SyntaxError::UnknownTracepoint { dir: dir.into() };
        return if glob {
            TpMatch::Error(e)
        } else {
            TpMatch::Unknown(e)
        };
    }
    let mods = match suffix.map(Modifiers::parse).transpose() {
        Ok(m) => m,
        Err(e) => return TpMatch::Error(e),
    };
    let mut out = Vec::new();
    for (s, e) in found {
        let id = match tracepoint::id(host, dir, &s, &e) {
            Ok(id) => id,
            Err(_) if tracepoint::out_of_descriptors() => {
                return TpMatch::Error(SyntaxError::TooManyFiles)
            }
            Err(err) => return TpMatch::Error(err),
        };
        let attr = base_attr(tracepoint::PERF_TYPE_TRACEPOINT, id, plm);
        let name = match suffix {
            Some(m) => format!("{s}:{e}:{m}"),
            None => format!("{s}:{e}"),
        };
        out.push(
            PerfEvent::from_attr(&name, Syntax::Tracepoint, attr, None).modified(mods.as_ref()),
        );
    }
    TpMatch::Found(out)
}

/// The event names of `groups` with every tracepoint glob replaced by the
/// tracepoints it matches (in order, in the same group); other names stay.
///
/// ```
/// let g = vec![vec!["task-clock".to_string()]];
/// let host = pfmlib::Library::global().host();
/// assert_eq!(pfmlib_perf::perf_syntax::expand_groups(host, &g).unwrap(), g);
/// ```
pub fn expand_groups(host: &Host, groups: &[Vec<String>]) -> Result<Vec<Vec<String>>> {
    groups
        .iter()
        .map(|g| {
            let mut out = Vec::new();
            for name in g {
                out.extend(expand_name(host, name)?);
            }
            Ok(out)
        })
        .collect()
}

/// One name, or the tracepoints its glob matches.
fn expand_name(host: &Host, name: &str) -> Result<Vec<String>> {
    if name.contains('/') || name.contains("::") {
        return Ok(vec![name.to_string()]);
    }
    let (sys, rest) = name.split_once(':').unwrap_or((name, ""));
    let ev = rest.split(':').next().unwrap_or("");
    if !tracepoint::is_glob(sys) && !tracepoint::is_glob(ev) {
        return Ok(vec![name.to_string()]);
    }
    match match_tracepoint(host, name, Plm::DEFAULT) {
        TpMatch::Found(v) => Ok(v.into_iter().map(|e| e.name).collect()),
        TpMatch::Error(e) | TpMatch::Unknown(e) => Err(syntax_err(name, e)),
        TpMatch::No => Ok(vec![name.to_string()]),
    }
}

/// Splits an event list into groups as perf reads it: `a,{b,c},d` →
/// `[[a],[b,c],[d]]`; commas inside a `pmu/.../` event stay in it; a
/// group's modifiers (`{a,b}:u`) go to each member (after its own letters).
///
/// ```
/// let g = pfmlib_perf::perf_syntax::parse_event_list("msr/tsc/,{cpu/event=0x3c,umask=0/,r1a8:k}:u").unwrap();
/// assert_eq!(g, vec![vec!["msr/tsc/".to_string()], vec!["cpu/event=0x3c,umask=0/u".into(), "r1a8:ku".into()]]);
/// ```
pub fn parse_event_list(s: &str) -> std::result::Result<Vec<Vec<String>>, String> {
    let mut groups = Vec::new();
    let mut rest = s.trim();
    if rest.is_empty() {
        return Err("no event given".into());
    }
    while !rest.is_empty() {
        let after = match rest.strip_prefix('{') {
            Some(inner) => {
                let end = find_outside_pmu(s, inner, '}')?
                    .ok_or_else(|| format!("unclosed group in {s:?}: missing '}}'"))?;
                let mut members = split_members(s, &inner[..end])?;
                let mut after = &inner[end + 1..];
                if let Some(m) = after.strip_prefix(':') {
                    let e = m.find(',').unwrap_or(m.len());
                    let mods = m[..e].trim();
                    if !Modifiers::is_modifier_list(mods) {
                        return Err(format!(
                            "{mods:?} after a group is not a list of perf modifiers"
                        ));
                    }
                    members.iter_mut().for_each(|ev| add_modifiers(ev, mods));
                    after = &m[e..];
                }
                groups.push(members);
                after.trim_start()
            }
            None => {
                let end = find_outside_pmu(s, rest, ',')?.unwrap_or(rest.len());
                groups.push(split_members(s, &rest[..end])?);
                &rest[end..]
            }
        };
        rest = match after.strip_prefix(',') {
            Some(r) if r.trim().is_empty() => return Err(format!("empty event name in {s:?}")),
            Some(r) => r.trim_start(),
            None if after.is_empty() => after,
            None => {
                return Err(format!(
                    "unexpected {after:?} after a group in {s:?}: separate events with ','"
                ))
            }
        };
    }
    Ok(groups)
}

/// The byte index of the first `target` in `text` outside `pmu/.../` terms.
fn find_outside_pmu(
    whole: &str,
    text: &str,
    target: char,
) -> std::result::Result<Option<usize>, String> {
    let mut in_pmu = false;
    for (i, c) in text.char_indices() {
        if c == '/' {
            in_pmu = !in_pmu;
        } else if c == target && !in_pmu {
            return Ok(Some(i));
        }
    }
    if in_pmu {
        return Err(format!("unclosed PMU event in {whole:?}: missing '/'"));
    }
    Ok(None)
}

/// The comma-separated events of `body` (a group's inside, or one event).
fn split_members(whole: &str, body: &str) -> std::result::Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = body;
    loop {
        let end = find_outside_pmu(whole, rest, ',')?.unwrap_or(rest.len());
        let ev = rest[..end].trim();
        if ev.is_empty() {
            return Err(format!("empty event name in {whole:?}"));
        }
        if ev.contains(['{', '}']) {
            return Err(format!("misplaced brace in {ev:?}"));
        }
        out.push(ev.to_string());
        match rest.get(end + 1..) {
            Some(r) => rest = r,
            None => return Ok(out),
        }
    }
}

/// Adds a group's modifier letters to one member: after its own letters
/// (`a:k` → `a:ku`, `pmu/x/k` → `pmu/x/ku`), else as a new suffix.
fn add_modifiers(ev: &mut String, mods: &str) {
    if !ev.contains('/') && split_suffix(ev).1.is_none() {
        ev.push(':');
    }
    ev.push_str(mods);
}
