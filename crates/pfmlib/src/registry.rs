//! The library: every PMU table, which of them are active on the host, and
//! the public handles ([`Pmu`], [`Event`]) over the static tables.

use crate::error::Result;
use crate::event::{build_pattrs, lookup_event};
use crate::host::Host;
use crate::model::{AttrInfo, EventInfo, Os, Plm, PmuInfo, PmuKind};
use crate::os::{self, Encoding};
use crate::pmu;
use crate::tables::{PmuDesc, ALL_PMUS};
use std::sync::OnceLock;

/// The set of PMUs pfmlib knows, with those active on a given host.
///
/// [`Library::global`] detects the running machine on first use (no explicit
/// initialisation); [`Library::with_host`] answers for any other machine.
#[derive(Debug, Clone)]
pub struct Library {
    host: Host,
    /// Active PMUs in lookup order (model-specific before architectural, OS generic last).
    active: Vec<&'static PmuDesc>,
}

static GLOBAL: OnceLock<Library> = OnceLock::new();

impl Library {
    /// The library for the running machine, detected once.
    pub fn global() -> &'static Library {
        GLOBAL.get_or_init(|| Library::with_host(Host::detect()))
    }

    /// A library answering as if running on `host`.
    pub fn with_host(host: Host) -> Library {
        let mut active: Vec<&'static PmuDesc> = ALL_PMUS
            .iter()
            .copied()
            .filter(|p| pmu::detect(p, &host))
            .collect();
        active.sort_by_key(|p| search_rank(p));
        Library { host, active }
    }

    /// The host this library answers for.
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// Every PMU pfmlib knows, active or not.
    pub fn pmus(&self) -> impl Iterator<Item = Pmu<'_>> {
        ALL_PMUS.iter().map(move |d| Pmu { lib: self, desc: d })
    }

    /// The PMUs active on the host, in the order unprefixed names are looked up.
    pub fn active_pmus(&self) -> impl Iterator<Item = Pmu<'_>> {
        self.active.iter().map(move |d| Pmu { lib: self, desc: d })
    }

    /// A PMU by name, ignoring case.
    pub fn pmu(&self, name: &str) -> Option<Pmu<'_>> {
        self.pmu_by_name(name).map(|d| Pmu { lib: self, desc: d })
    }

    /// Looks an event up by name (`[pmu::]EVENT`, attributes ignored).
    ///
    /// ```
    /// let lib = pfmlib::Library::global();
    /// let ev = lib.find_event("nhm::inst_retired").unwrap();
    /// assert_eq!(ev.info(pfmlib::Os::None).name, "INST_RETIRED");
    /// ```
    pub fn find_event(&self, s: &str) -> Result<Event<'_>> {
        let (desc, idx) = lookup_event(self, s)?;
        Ok(Event {
            pmu: Pmu { lib: self, desc },
            idx,
        })
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
        os::encode(self, s, plm, os)
    }

    pub(crate) fn pmu_by_name(&self, name: &str) -> Option<&'static PmuDesc> {
        ALL_PMUS
            .iter()
            .copied()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    pub(crate) fn search_order(&self) -> impl Iterator<Item = &'static PmuDesc> + '_ {
        self.active.iter().copied()
    }

    pub(crate) fn is_active(&self, p: &PmuDesc) -> bool {
        self.active.iter().any(|a| std::ptr::eq(*a, p))
    }

    /// Index of an event of `pmu` by name, if it exists and is available here.
    pub(crate) fn find_event_in(&self, p: &'static PmuDesc, name: &str) -> Option<usize> {
        p.find_event(name)
            .filter(|&i| pmu::event_available(self, p, i))
    }
}

/// Lookup rank: libpfm4 tries model-specific PMUs first, the architectural
/// PMU after them and the OS-generic ones last.
fn search_rank(p: &PmuDesc) -> (u32, u32) {
    let class = if p.kind == PmuKind::OsGeneric {
        2
    } else if pmu::is_arch_fallback(p) {
        1
    } else {
        0
    };
    (class, p.id)
}

/// A PMU model.
#[derive(Debug, Clone, Copy)]
pub struct Pmu<'a> {
    lib: &'a Library,
    pub(crate) desc: &'static PmuDesc,
}

impl<'a> Pmu<'a> {
    /// Short name (`nhm`).
    pub fn name(&self) -> &'static str {
        self.desc.name
    }

    /// PMU information.
    pub fn info(&self) -> PmuInfo {
        let (num_cntrs, num_fixed) = pmu::counters(self.lib, self.desc);
        PmuInfo {
            name: self.desc.name,
            desc: self.desc.desc,
            id: self.desc.id,
            kind: self.desc.kind,
            num_cntrs,
            num_fixed_cntrs: num_fixed,
            max_encoding: self.desc.max_encoding,
            is_present: self.lib.is_active(self.desc),
            nevents: self.events().count(),
            supported_plm: Plm::from_bits(self.desc.supported_plm).unwrap_or_default(),
        }
    }

    /// The events of this PMU available here, in table order.
    pub fn events(&self) -> impl Iterator<Item = Event<'a>> + '_ {
        let me = *self;
        (0..self.desc.events.len())
            .filter(move |&i| pmu::event_available(me.lib, me.desc, i))
            .map(move |idx| Event { pmu: me, idx })
    }

    /// An event of this PMU by name, ignoring case.
    pub fn event(&self, name: &str) -> Option<Event<'a>> {
        self.lib
            .find_event_in(self.desc, name)
            .map(|idx| Event { pmu: *self, idx })
    }
}

/// One event of a PMU.
#[derive(Debug, Clone, Copy)]
pub struct Event<'a> {
    pmu: Pmu<'a>,
    idx: usize,
}

impl<'a> Event<'a> {
    /// The PMU the event belongs to.
    pub fn pmu(&self) -> Pmu<'a> {
        self.pmu
    }

    /// Event name.
    pub fn name(&self) -> &'static str {
        self.pmu.desc.events[self.idx].name
    }

    /// Event information for an OS layer (the attribute count depends on it).
    pub fn info(&self, os: Os) -> EventInfo {
        let ev = &self.pmu.desc.events[self.idx];
        let (is_precise, speculation, support_hw_smpl) = pmu::event_flags(self.pmu.desc, ev);
        EventInfo {
            name: ev.name,
            desc: ev.desc,
            equiv: ev.equiv,
            code: ev.code,
            pmu: self.pmu.desc.name,
            idx: (self.pmu.desc.id << 21) | self.idx as u32,
            nattrs: build_pattrs(self.pmu.lib, self.pmu.desc, self.idx, os).len(),
            is_precise,
            speculation,
            support_hw_smpl,
        }
    }

    /// The attributes (unit masks, then modifiers) the event takes with `os`.
    pub fn attrs(&self, os: Os) -> Vec<AttrInfo> {
        build_pattrs(self.pmu.lib, self.pmu.desc, self.idx, os)
            .iter()
            .enumerate()
            .map(|(i, p)| AttrInfo {
                name: p.name,
                desc: p.desc,
                equiv: p.equiv,
                code: p.code,
                attr_type: p.ty,
                ctrl: p.ctrl,
                idx: i,
                is_dfl: p.is_dfl,
                is_precise: p.is_precise,
                speculation: p.spec,
                support_hw_smpl: p.hw_smpl,
            })
            .collect()
    }

    /// The IA-64 per-event queries, for events of the `itanium`, `itanium2`
    /// and `montecito` PMUs (`None` elsewhere).
    pub fn ia64(&self) -> Option<crate::ia64::Ia64Event<'a>> {
        let d = self.pmu.desc.events[self.idx].ia64?;
        crate::ia64::Ia64Event::new(*self, d)
    }

    /// The static table entry of the event.
    pub(crate) fn desc(&self) -> &'static crate::tables::EventDesc {
        &self.pmu.desc.events[self.idx]
    }

    /// Counters the event may use: bit n is generic counter n, bit 32+n fixed
    /// counter n (IA-64: bit n is PMCn).
    pub fn counter_mask(&self) -> u64 {
        self.pmu.desc.events[self.idx].cntmsk
    }
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
