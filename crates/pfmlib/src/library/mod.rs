//! The library: which PMUs are visible and active for a host and a set of
//! [`Options`] (libpfm4's environment variables as values), and the public
//! handles over the static tables ([`Pmu`], [`Event`]).

mod handles;
mod options;

pub use handles::{Event, Pmu};
pub use options::Options;

use handles::EVENT_POSITION_MASK;

use crate::ctx::Ctx;
use crate::desc::AttrRef;
use crate::error::Result;
use crate::event::lookup_event;
use crate::event::parse_event;
use crate::host::Host;
use crate::kernel::perf_attr as pa;
use crate::model::{Os, Plm};
use crate::os::{self, Encoding};
use crate::pmu::engine;
use crate::tables::{PmuDesc, EVENT_INDEX_SHIFT};
use std::sync::OnceLock;

/// The set of PMUs pfmlib knows, with those active on a given host.
///
/// [`Library::global`] detects the running machine on first use (no explicit
/// initialisation); [`Library::with_host`] answers for any other machine,
/// and [`Library::new`] also takes [`Options`]. A library is immutable:
/// build another one to change the host or the options.
#[derive(Debug, Clone)]
pub struct Library {
    ctx: Ctx,
    options: Options,
}

static GLOBAL: OnceLock<Library> = OnceLock::new();

impl Library {
    /// The library for the running machine, detected once, with the options
    /// of the environment ([`Options::from_env`]).
    pub fn global() -> &'static Library {
        GLOBAL.get_or_init(|| Library::new(Host::detect(), Options::from_env()))
    }

    /// A library answering as if running on `host`, with pfmlib's default
    /// options (every PMU may be named with its prefix).
    pub fn with_host(host: Host) -> Library {
        Library::new(host, Options::new())
    }

    /// A library for `host` with `options`.
    ///
    /// ```
    /// use pfmlib::{Host, Library, Options, Os, Plm};
    /// // libpfm4's LIBPFM_FORCE_PMU=nhm: Nehalem events without a prefix, anywhere.
    /// let lib = Library::new(Host::none(), Options::new().force_pmu("nhm"));
    /// let enc = lib.encode("INST_RETIRED:ANY_P", Plm::DEFAULT, Os::None).unwrap();
    /// assert_eq!(enc.codes, vec![0x5300c0]);
    /// ```
    pub fn new(host: Host, options: Options) -> Library {
        let (visible, active, forced) = select_pmus(&host, &options);
        let mut ctx = Ctx::new(
            host,
            &visible,
            active,
            options.encode_inactive,
            options.encode_left_out,
            forced,
            options.force_pmu.is_some(),
        );
        if options.host_build_only {
            let arch = ctx.host.arch;
            ctx.reach_only(|p| p.in_build(arch));
        }
        ctx.note_deprecated(|p| engine(p).deprecated(p));
        Library { ctx, options }
    }

    /// The host this library answers for.
    pub fn host(&self) -> &Host {
        &self.ctx.host
    }

    /// The options this library was built with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Every PMU this library knows (not disabled), active or not, by
    /// libpfm4 PMU id.
    pub fn pmus(&self) -> impl Iterator<Item = Pmu<'_>> {
        PmuDesc::all()
            .filter(move |&d| self.ctx.is_visible(d))
            .map(move |d| Pmu::new(&self.ctx, d))
    }

    /// The PMUs active on the host, in the order unprefixed names are looked up.
    pub fn active_pmus(&self) -> impl Iterator<Item = Pmu<'_>> {
        self.ctx.active.iter().map(move |&d| Pmu::new(&self.ctx, d))
    }

    /// A PMU by name, ignoring case.
    pub fn pmu(&self, name: &str) -> Option<Pmu<'_>> {
        PmuDesc::by_name(name)
            .filter(|&d| self.ctx.is_visible(d))
            .map(|d| Pmu::new(&self.ctx, d))
    }

    /// Looks an event up by name (`[pmu::]EVENT`, attributes ignored).
    ///
    /// ```
    /// let lib = pfmlib::Library::global();
    /// let ev = lib.find_event("nhm::inst_retired").unwrap();
    /// assert_eq!(ev.info(pfmlib::Os::None).name, "INST_RETIRED");
    /// ```
    pub fn find_event(&self, s: &str) -> Result<Event<'_>> {
        let (pmu, ev) = lookup_event(&self.ctx, s)?;
        Ok(Event::new(Pmu::new(&self.ctx, pmu), ev))
    }

    /// Encodes an event string for an OS layer with default privilege levels `plm`.
    ///
    /// ```
    /// use pfmlib::{Library, Os, Plm};
    /// let enc = Library::global().encode("nhm::INST_RETIRED:ANY_P", Plm::DEFAULT, Os::None).unwrap();
    /// assert_eq!(enc.codes, vec![0x5300c0]);
    /// assert_eq!(enc.fstr, "nhm::INST_RETIRED:ANY_P:k=1:u=1:e=0:i=0:c=0:t=0");
    /// ```
    pub fn encode(&self, s: &str, plm: Plm, os: Os) -> Result<Encoding> {
        os::encode(&self.ctx, s, plm, os)
    }

    /// A PMU by libpfm4 id (`pfm_pmu_t`), if this library knows it and it is
    /// not disabled (what libpfm4's `pfm_get_pmu_info` answers for).
    ///
    /// ```
    /// let lib = pfmlib::Library::global();
    /// assert_eq!(lib.pmu_by_id(15).unwrap().name(), "nhm");
    /// assert!(lib.pmu_by_id(0).is_none());
    /// ```
    pub fn pmu_by_id(&self, id: u32) -> Option<Pmu<'_>> {
        PmuDesc::by_id(id)
            .filter(|&d| self.ctx.is_visible(d))
            .map(|d| Pmu::new(&self.ctx, d))
    }

    /// An event by its opaque libpfm4 index (`pmu id << 21 | position`):
    /// `None` when the PMU is unknown or disabled, or no event available
    /// for that PMU is at that position. Indexes are libpfm4's, so an index
    /// a program stored from libpfm4 names the same event here.
    ///
    /// ```
    /// let lib = pfmlib::Library::global();
    /// let ev = lib.find_event("nhm::INST_RETIRED").unwrap();
    /// assert_eq!(lib.event_by_idx(ev.idx()).unwrap().name(), "INST_RETIRED");
    /// assert!(lib.event_by_idx(u32::MAX).is_none());
    /// ```
    pub fn event_by_idx(&self, idx: u32) -> Option<Event<'_>> {
        self.pmu_by_id(idx >> EVENT_INDEX_SHIFT)?
            .event_at((idx & EVENT_POSITION_MASK) as usize)
    }

    /// The event an encoding of this library is of (by its
    /// [`Encoding::idx`]), also where its PMU is not listed but was reached
    /// by its `pmu::` prefix ([`Options::encode_left_out`]), which
    /// [`Library::event_by_idx`] passes over.
    ///
    /// ```
    /// use pfmlib::{Host, Library, Options, Os, Plm};
    /// let lib = Library::new(Host::none(), Options::new().disable_pmus("nhm").encode_left_out(true));
    /// let enc = lib.encode("nhm::INST_RETIRED:ANY_P", Plm::DEFAULT, Os::None).unwrap();
    /// assert!(lib.event_by_idx(enc.idx).is_none());
    /// assert_eq!(lib.event_of(&enc).unwrap().name(), "INST_RETIRED");
    /// ```
    pub fn event_of(&self, enc: &Encoding) -> Option<Event<'_>> {
        let d = PmuDesc::by_id(enc.idx >> EVENT_INDEX_SHIFT).filter(|&d| self.ctx.may_encode(d))?;
        Pmu::new(&self.ctx, d).event_at((enc.idx & EVENT_POSITION_MASK) as usize)
    }

    /// [`Library::encode`], also saying which perf_events attributes the
    /// string set: what a caller needs to merge the encoding into a
    /// `perf_event_attr` it filled in part itself, as libpfm4's C interface
    /// does (it keeps the caller's fields that no attribute of the string
    /// touched).
    ///
    /// ```
    /// use pfmlib::{Library, Os, Plm};
    /// let (enc, set) = Library::global()
    ///     .encode_with_settings("perf::cycles:period=1000", Plm::DEFAULT, Os::PerfEventExt)
    ///     .unwrap();
    /// assert_eq!(enc.perf.unwrap().sample_period, 1000);
    /// assert!(set.period && !set.freq && !set.precise);
    /// ```
    pub fn encode_with_settings(
        &self,
        s: &str,
        plm: Plm,
        os: Os,
    ) -> Result<(Encoding, PerfSettings)> {
        let mut d = parse_event(&self.ctx, s, os, plm)?;
        let mut set = PerfSettings::default();
        for a in &d.attrs {
            if let AttrRef::Perf(id) = a.what {
                match u64::from(id) {
                    pa::PERIOD => set.period = true,
                    pa::FREQ => set.freq = true,
                    pa::PRECISE | pa::HW_SMPL => set.precise = true,
                    pa::EXCL => set.excl = true,
                    _ => {}
                }
            }
        }
        let enc = os::encode_desc(&self.ctx, &mut d)?;
        Ok((enc, set))
    }

    pub(crate) fn ctx(&self) -> &Ctx {
        &self.ctx
    }
}

/// Which perf_events attributes an event string set (see
/// [`Library::encode_with_settings`]); the privilege levels and `mg`/`mh`
/// always end up in the exclude bits, so they are not listed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PerfSettings {
    /// `period=` (sets `sample_period`).
    pub period: bool,
    /// `freq=` (sets `sample_freq` and `freq`).
    pub freq: bool,
    /// `precise=` or `hw_smpl=` (set `precise_ip`).
    pub precise: bool,
    /// `excl=` (may set `exclusive`).
    pub excl: bool,
}

/// The visible PMUs, the active ones and the forced one, as libpfm4's
/// initialisation decides them: PMUs in the lookup order of the build for
/// the host's architecture (see `data/libpfm4_pmus.toml`), disabled ones left
/// out; without a forced PMU every detected PMU is active; with one, only
/// it is (whatever the host), and the PMUs after it are not set up at all.
fn select_pmus(host: &Host, o: &Options) -> (Vec<PmuDesc>, Vec<PmuDesc>, Option<PmuDesc>) {
    let order = PmuDesc::in_lookup_order(host.arch);
    let (mut visible, mut active) = (Vec::with_capacity(order.len()), Vec::new());
    let order = order
        .filter(|p| !o.host_build_only || p.in_build(host.arch))
        .filter(|p| o.disabled_pmus.is_empty() || !o.is_disabled(p.name()));
    let Some(forced) = o.force_pmu.as_deref() else {
        for p in order {
            let e = engine(p);
            if e.detect(p, host) && e.os_exported(p, host) && !second_table(o, p, &active) {
                active.push(p);
            }
            visible.push(p);
        }
        return (visible, active, None);
    };
    for p in order {
        visible.push(p);
        // A forced PMU the OS does not publish is passed over (libpfm4).
        if options::matches_forced(p.name(), forced) && engine(p).os_exported(p, host) {
            active.push(p);
            return (visible, active, Some(p));
        }
    }
    (visible, active, None)
}

/// pfmlib's own second tables of cores that a libpfm4 PMU already covers,
/// with that PMU: `ehl` (Intel's whole Tremont list) beside libpfm4's `tmt`.
/// As libpfm4's build (`Options::host_build_only`, the C library) they are
/// active only where the first is not (disabled) or when forced
/// (`LIBPFM_FORCE_PMU=ehl`): libpfm4 sets up one core PMU per kind of core,
/// and callers take the one they find as the core PMU (PAPI refuses two).
const SECOND_TABLES: &[(&str, &str)] = &[("ehl", "tmt")];

/// Is `p` a second table whose first is already active, in libpfm4's build?
fn second_table(o: &Options, p: PmuDesc, active: &[PmuDesc]) -> bool {
    o.host_build_only
        && SECOND_TABLES
            .iter()
            .any(|&(second, first)| p.name() == second && active.iter().any(|a| a.name() == first))
}

/// Encodes `s` for `os` with the default privilege levels (kernel and user),
/// on the running machine. See [`Library::encode`].
///
/// ```
/// let enc = pfmlib::encode("perf::cycles", pfmlib::Os::PerfEventExt).unwrap();
/// let perf = enc.perf.unwrap();
/// assert_eq!(perf.type_, 0); // PERF_TYPE_HARDWARE
/// ```
pub fn encode(s: &str, os: Os) -> Result<Encoding> {
    Library::global().encode(s, Plm::DEFAULT, os)
}

/// Looks an event up on the running machine. See [`Library::find_event`].
pub fn find_event(s: &str) -> Result<Event<'static>> {
    Library::global().find_event(s)
}
