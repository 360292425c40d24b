//! [`Pmu`] and [`Event`]: copyable handles over the static tables, tied to
//! the library that answers for a host.

use super::Library;
use crate::attrs;
use crate::model::{AttrInfo, EventInfo, Os, Plm, PmuInfo};
use crate::os::event_index;
use crate::pmu::engine;
use crate::tables::{EventDesc, PmuDesc};

/// A PMU model.
#[derive(Debug, Clone, Copy)]
pub struct Pmu<'a> {
    lib: &'a Library,
    pub(crate) desc: PmuDesc,
}

impl<'a> Pmu<'a> {
    pub(crate) fn new(lib: &'a Library, desc: PmuDesc) -> Pmu<'a> {
        Pmu { lib, desc }
    }

    /// Short name (`nhm`).
    pub fn name(&self) -> &'static str {
        self.desc.name()
    }

    /// Is the PMU present (active) on the library's host? Cheaper than
    /// [`Pmu::info`]`.is_present`.
    pub fn is_present(&self) -> bool {
        self.lib.ctx().is_active(self.desc)
    }

    /// PMU information.
    pub fn info(&self) -> PmuInfo {
        let ctx = self.lib.ctx();
        let (num_cntrs, num_fixed_cntrs) = engine(self.desc).counters(ctx, self.desc);
        PmuInfo {
            name: self.desc.name(),
            desc: self.desc.desc(),
            id: self.desc.id(),
            kind: self.desc.kind(),
            num_cntrs,
            num_fixed_cntrs,
            max_encoding: self.desc.max_encoding(),
            is_present: ctx.is_active(self.desc),
            nevents: self.events().count(),
            supported_plm: Plm::from_bits(self.desc.supported_plm()).unwrap_or_default(),
        }
    }

    /// The events of this PMU available here, in table order. The iterator
    /// borrows the library, not this handle, so it chains:
    ///
    /// ```
    /// let lib = pfmlib::Library::global();
    /// let n = lib.pmus().flat_map(|p| p.events()).count();
    /// assert!(n > 1000);
    /// ```
    pub fn events(self) -> impl Iterator<Item = Event<'a>> + 'a {
        let (ctx, e) = (self.lib.ctx(), engine(self.desc));
        self.desc
            .events()
            .filter(move |&ev| e.event_available(ctx, self.desc, ev))
            .map(move |ev| Event::new(self, ev))
    }

    /// An event of this PMU by name, ignoring case.
    pub fn event(&self, name: &str) -> Option<Event<'a>> {
        crate::event::find_event_in(self.lib.ctx(), self.desc, name).map(|ev| Event::new(*self, ev))
    }
}

/// One event of a PMU.
#[derive(Debug, Clone, Copy)]
pub struct Event<'a> {
    pmu: Pmu<'a>,
    pub(crate) desc: EventDesc,
}

impl<'a> Event<'a> {
    pub(crate) fn new(pmu: Pmu<'a>, desc: EventDesc) -> Event<'a> {
        Event { pmu, desc }
    }

    /// The PMU the event belongs to.
    pub fn pmu(&self) -> Pmu<'a> {
        self.pmu
    }

    /// Event name.
    pub fn name(&self) -> &'static str {
        self.desc.name()
    }

    /// Event information for an OS layer (the attribute count depends on it).
    pub fn info(&self, os: Os) -> EventInfo {
        let p = self.pmu.desc;
        let flags = engine(p).event_flags(p, self.desc);
        EventInfo {
            name: self.desc.name(),
            desc: self.desc.desc(),
            equiv: self.desc.equiv(),
            code: self.desc.code(),
            pmu: p.name(),
            idx: event_index(
                p.id(),
                engine(p).event_index(self.pmu.lib.ctx(), p, self.desc),
            ),
            nattrs: attrs::count(self.pmu.lib.ctx(), p, self.desc, os),
            is_precise: flags.precise,
            speculation: flags.spec,
            support_hw_smpl: flags.hw_smpl,
        }
    }

    /// The attributes (unit masks, then modifiers) the event takes with `os`.
    pub fn attrs(&self, os: Os) -> Vec<AttrInfo> {
        attrs::list(self.pmu.lib.ctx(), self.pmu.desc, self.desc, os)
            .iter()
            .enumerate()
            .map(|(i, a)| AttrInfo {
                name: a.name,
                desc: a.desc,
                equiv: a.equiv,
                code: a.code,
                attr_type: a.ty,
                ctrl: a.ctrl,
                idx: i,
                is_dfl: a.is_dfl,
                is_precise: a.flags.precise,
                speculation: a.flags.spec,
                support_hw_smpl: a.flags.hw_smpl,
            })
            .collect()
    }

    /// The IA-64 per-event queries, for events of the `itanium`, `itanium2`
    /// and `montecito` PMUs (`None` elsewhere).
    pub fn ia64(&self) -> Option<crate::ia64::Ia64Event<'a>> {
        crate::ia64::Ia64Event::new(*self)
    }

    /// Counters the event may use: bit n is generic counter n, bit 32+n fixed
    /// counter n (IA-64: bit n is PMCn).
    pub fn counter_mask(&self) -> u64 {
        self.desc.cntmsk()
    }
}
