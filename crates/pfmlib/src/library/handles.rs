//! [`Pmu`] and [`Event`]: copyable handles over the static tables, tied to
//! the library that answers for a host.

use crate::attrs::{self, AttrEntry};
use crate::ctx::Ctx;
use crate::model::{AttrInfo, EventInfo, KernelPmu, Os, Plm, PmuInfo};
use crate::os::event_index;
use crate::pmu::engine;
use crate::tables::{pool_cstr, EventDesc, PmuDesc, EVENT_INDEX_SHIFT};
use std::ffi::CStr;

/// A PMU model.
#[derive(Debug, Clone, Copy)]
pub struct Pmu<'a> {
    ctx: &'a Ctx,
    pub(crate) desc: PmuDesc,
}

impl<'a> Pmu<'a> {
    pub(crate) fn new(ctx: &'a Ctx, desc: PmuDesc) -> Pmu<'a> {
        Pmu { ctx, desc }
    }

    /// Short name (`nhm`).
    pub fn name(&self) -> &'static str {
        self.desc.name()
    }

    /// Is the PMU present (active) on the library's host? Cheaper than
    /// [`Pmu::info`]`.is_present`.
    pub fn is_present(&self) -> bool {
        self.ctx.is_active(self.desc)
    }

    /// PMU information.
    pub fn info(&self) -> PmuInfo {
        let ctx = self.ctx;
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

    /// The kernel's perf_events PMU this PMU's events are encoded for on the
    /// library's host: the first name of the table's `perf_name` (a
    /// comma-separated list) that the kernel publishes with a type number,
    /// with the CPUs of its `cpus` file. `None` for a PMU without
    /// `perf_name` (its events go to `PERF_TYPE_RAW`, or to the perf
    /// generic types) or when the kernel publishes none of its names.
    ///
    /// ```
    /// use pfmlib::{Host, Library, Vendor};
    /// let adl = Host::synthetic(Vendor::Intel, 6, 0x97)
    ///     .with_file("/sys/bus/event_source/devices/cpu_atom/type", "10\n")
    ///     .with_file("/sys/bus/event_source/devices/cpu_atom/perf_event_mux_interval_ms", "4\n")
    ///     .with_file("/sys/bus/event_source/devices/cpu_atom/cpus", "16-23\n");
    /// let lib = Library::with_host(adl);
    /// let k = lib.pmu("adl_grt").unwrap().kernel_pmu().unwrap();
    /// assert_eq!((k.name, k.type_), ("cpu_atom", 10));
    /// assert_eq!(k.cpus, Some((16..=23).collect()));
    /// ```
    pub fn kernel_pmu(&self) -> Option<KernelPmu> {
        let host = &self.ctx.host;
        let (name, type_) = crate::pmu::kernel_type::find_kernel_pmu(host, self.desc.perf_name()?)?;
        let cpus = host
            .perf_pmu_cpus(name)
            .and_then(|t| crate::cpulist::parse(&t));
        Some(KernelPmu { name, type_, cpus })
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
        let (ctx, e) = (self.ctx, engine(self.desc));
        self.desc
            .events()
            .filter(move |&ev| e.event_available(ctx, self.desc, ev))
            .map(move |ev| Event::new(self, ev))
    }

    /// An event of this PMU by name, ignoring case.
    pub fn event(&self, name: &str) -> Option<Event<'a>> {
        crate::event::find_event_in(self.ctx, self.desc, name).map(|ev| Event::new(*self, ev))
    }

    /// libpfm4's PMU id (`pfm_pmu_t`), without computing the rest of [`Pmu::info`].
    pub fn id(&self) -> u32 {
        self.desc.id()
    }

    /// Description.
    pub fn desc(&self) -> &'static str {
        self.desc.desc()
    }

    /// The name as a NUL-terminated C string (no copy: the tables end every
    /// string with a NUL).
    pub fn name_cstr(&self) -> &'static CStr {
        pool_cstr(self.desc.name()).unwrap_or(c"")
    }

    /// The description as a NUL-terminated C string (no copy).
    pub fn desc_cstr(&self) -> &'static CStr {
        pool_cstr(self.desc.desc()).unwrap_or(c"")
    }

    /// Is this PMU active here: detected on the host, or forced?
    pub fn is_active(&self) -> bool {
        self.ctx.is_active(self.desc)
    }

    /// The first event of this PMU available here, in table order (the
    /// start of libpfm4's `first_event` / `pfm_get_event_next` walk).
    pub fn first_event(self) -> Option<Event<'a>> {
        self.event_from(0)
    }

    /// The first available event at table position `local` or after it.
    fn event_from(self, local: usize) -> Option<Event<'a>> {
        let (ctx, e) = (self.ctx, engine(self.desc));
        (local..self.desc.nevents())
            .map(|i| self.desc.event(i))
            .find(|&ev| e.event_available(ctx, self.desc, ev))
            .map(|ev| Event::new(self, ev))
    }

    /// The event available here whose libpfm4 index on this host is
    /// `local` (the low bits of its opaque index): the one at that table
    /// position, except for PMUs libpfm4 numbers among the events there
    /// alone (the architectural and RAPL PMUs).
    pub fn event_at(self, local: usize) -> Option<Event<'a>> {
        if local >= self.desc.nevents() {
            return None;
        }
        let (ctx, e) = (self.ctx, engine(self.desc));
        let there = |ev: &EventDesc| e.event_available(ctx, self.desc, *ev);
        let at = |ev: &EventDesc| e.event_index(ctx, self.desc, *ev) == local;
        let ev = self.desc.event(local);
        if there(&ev) && at(&ev) {
            return Some(Event::new(self, ev));
        }
        self.desc
            .events()
            .filter(there)
            .find(at)
            .map(|ev| Event::new(self, ev))
    }

    /// Is this the architecture's default PMU (libpfm4's `is_dfl` flag: the
    /// Intel architectural PMU)? A PMU is when its family has a PMU flag
    /// named `arch` and the PMU sets it.
    pub fn is_arch_default(&self) -> bool {
        let flags = engine(self.desc).defs().pmu_flags;
        flags
            .iter()
            .position(|&f| f == "arch")
            .is_some_and(|b| self.desc.flags() >> b & 1 != 0)
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
            idx: self.idx(),
            nattrs: attrs::count(self.pmu.ctx, p, self.desc, os),
            is_precise: flags.precise,
            speculation: flags.spec,
            support_hw_smpl: flags.hw_smpl,
        }
    }

    /// The attributes (unit masks, then modifiers) the event takes with `os`.
    pub fn attrs(&self, os: Os) -> Vec<AttrInfo> {
        attrs::list(self.pmu.ctx, self.pmu.desc, self.desc, os)
            .iter()
            .enumerate()
            .map(|(i, a)| attr_info(a, i))
            .collect()
    }

    /// Attribute `i` of [`Event::attrs`], without building the others:
    /// what libpfm4's `pfm_get_event_attr_info` answers for one index.
    ///
    /// ```
    /// use pfmlib::Os;
    /// let ev = pfmlib::Library::global().find_event("nhm::ARITH").unwrap();
    /// let all = ev.attrs(Os::PerfEventExt);
    /// assert_eq!(ev.attr(Os::PerfEventExt, 2).unwrap().name, all[2].name);
    /// assert!(ev.attr(Os::PerfEventExt, all.len()).is_none());
    /// ```
    pub fn attr(&self, os: Os, i: usize) -> Option<AttrInfo> {
        let (ctx, p, ev) = (self.pmu.ctx, self.pmu.desc, self.desc);
        let e = engine(p);
        let variant = p.variant_bit();
        let mut k = i;
        for um in ev.umasks().filter(|u| u.in_variant(variant)) {
            if k == 0 {
                return Some(attr_info(&attrs::umask_entry(p, ev, um), i));
            }
            k -= 1;
        }
        let offer = e.offer(ctx, p, ev, os);
        let nmods = offer.mods.count_ones() as usize;
        let a = if k < nmods {
            attrs::mod_entry(p, nth_bit(offer.mods, k)?)?
        } else {
            attrs::perf_entry(nth_bit(offer.perf, k - nmods)?)?
        };
        Some(attr_info(&a, i))
    }

    /// The opaque libpfm4 index (`pmu id << 21 | position`), without
    /// computing the rest of [`Event::info`].
    pub fn idx(&self) -> u32 {
        let p = self.pmu.desc;
        event_index(p.id(), engine(p).event_index(self.pmu.ctx, p, self.desc))
    }

    /// The next event of the same PMU available here, in table order
    /// (libpfm4's `pfm_get_event_next`).
    pub fn next(&self) -> Option<Event<'a>> {
        self.pmu.event_from(self.desc.index() + 1)
    }

    /// Description.
    pub fn desc(&self) -> &'static str {
        self.desc.desc()
    }

    /// For an alias, the event string it stands for.
    pub fn equiv(&self) -> Option<&'static str> {
        self.desc.equiv()
    }

    /// Raw event code (event select, without unit masks or modifiers).
    pub fn code(&self) -> u64 {
        self.desc.code()
    }

    /// Could a table check encode this event with unit mask `umask` (its
    /// position among [`Event::attrs`]) alone, or with no unit mask when
    /// `umask` is past the unit masks? libpfm4's `can_auto_encode` rule for
    /// the PMU families that mark such events (a `no_autoencode` flag on the
    /// event or the unit mask): `None` for a family without that flag, whose
    /// every encoding failure is a table error.
    pub fn can_auto_encode(&self, umask: usize) -> Option<bool> {
        let (p, ev) = (self.pmu.desc, self.desc);
        let defs = engine(p).defs();
        let flag = |names: &[&str]| names.iter().position(|&f| f == "no_autoencode");
        let (eb, ub) = (flag(defs.event_flags)?, flag(defs.umask_flags));
        if ev.flags() >> eb & 1 != 0 {
            return Some(false);
        }
        let variant = p.variant_bit();
        let Some(um) = ev.umasks().filter(|u| u.in_variant(variant)).nth(umask) else {
            return Some(false);
        };
        Some(ub.is_none_or(|b| um.flags() >> b & 1 == 0))
    }

    /// Counters the event may use: bit n is generic counter n, bit 32+n fixed
    /// counter n (IA-64: bit n is PMCn).
    pub fn counter_mask(&self) -> u64 {
        self.desc.cntmsk()
    }
}

/// The public form of an attribute list entry at position `i`.
fn attr_info(a: &AttrEntry, i: usize) -> AttrInfo {
    AttrInfo {
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
        support_no_mods: a.no_mods,
    }
}

/// Position of the `n`-th set bit of `mask` (from the lowest).
fn nth_bit(mut mask: u32, n: usize) -> Option<usize> {
    for _ in 0..n {
        if mask == 0 {
            return None;
        }
        mask &= mask - 1;
    }
    (mask != 0).then(|| mask.trailing_zeros() as usize)
}

/// The low bits of an opaque event index: the event's table position.
pub(crate) const EVENT_POSITION_MASK: u32 = (1 << EVENT_INDEX_SHIFT) - 1;
