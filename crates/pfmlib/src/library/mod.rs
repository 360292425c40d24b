//! The library: which PMUs are visible and active for a host and a set of
//! [`Options`] (libpfm4's environment variables as values), and the public
//! handles over the static tables ([`Pmu`], [`Event`]).

mod handles;
mod options;

pub use handles::{Event, Pmu};
pub use options::Options;

use crate::ctx::Ctx;
use crate::error::Result;
use crate::event::lookup_event;
use crate::host::Host;
use crate::model::{Os, Plm};
use crate::os::{self, Encoding};
use crate::pmu::engine;
use crate::tables::PmuDesc;
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
        Library {
            ctx: Ctx::new(
                host,
                &visible,
                active,
                options.encode_inactive,
                forced,
                options.force_pmu.is_some(),
            ),
            options,
        }
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
            .map(move |d| Pmu::new(self, d))
    }

    /// The PMUs active on the host, in the order unprefixed names are looked up.
    pub fn active_pmus(&self) -> impl Iterator<Item = Pmu<'_>> {
        self.ctx.active.iter().map(move |&d| Pmu::new(self, d))
    }

    /// A PMU by name, ignoring case.
    pub fn pmu(&self, name: &str) -> Option<Pmu<'_>> {
        PmuDesc::by_name(name)
            .filter(|&d| self.ctx.is_visible(d))
            .map(|d| Pmu::new(self, d))
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
        Ok(Event::new(Pmu::new(self, pmu), ev))
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

    pub(crate) fn ctx(&self) -> &Ctx {
        &self.ctx
    }
}

/// The visible PMUs, the active ones and the forced one, as libpfm4's
/// initialisation decides them: PMUs in lookup order, disabled ones left
/// out; without a forced PMU every detected PMU is active; with one, only
/// it is (whatever the host), and the PMUs after it are not set up at all.
fn select_pmus(host: &Host, o: &Options) -> (Vec<PmuDesc>, Vec<PmuDesc>, Option<PmuDesc>) {
    let mut order: Vec<PmuDesc> = PmuDesc::all()
        .filter(|p| !o.is_disabled(p.name()))
        .collect();
    order.sort_by_key(|p| (p.rank(), p.id()));
    let (mut visible, mut active) = (Vec::new(), Vec::new());
    let Some(forced) = o.force_pmu.as_deref() else {
        for p in order {
            let e = engine(p);
            if e.detect(p, host) && e.os_exported(p, host) {
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
