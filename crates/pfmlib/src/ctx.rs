//! What the stages below the library need to know about one library
//! instance: the host facts, which PMUs are active (in lookup order) or
//! visible at all, and the options that change lookups. Engines receive it
//! instead of the library.

use crate::host::Host;
use crate::model::PmuKind;
use crate::tables::PmuDesc;

/// One library instance's facts, as the engines and the event-string stages see them.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    /// The machine answered for.
    pub host: Host,
    /// Active PMUs, in lookup order.
    pub active: Vec<PmuDesc>,
    /// Some active PMU is a deprecated name, which an event name without a
    /// `pmu::` prefix passes over ([`Ctx::note_deprecated`]).
    pub any_deprecated: bool,
    /// Bit per PMU (by [`PmuDesc::index`]): active.
    active_set: Vec<u64>,
    /// Bit per PMU: visible (known and not disabled).
    visible_set: Vec<u64>,
    /// Bit per PMU of the build, when left-out PMUs may be named with a
    /// `pmu::` prefix; `None`: only the visible ones may (no copy kept).
    prefix_set: Option<Vec<u64>>,
    /// A `pmu::` prefix may name an inactive (but reachable) PMU.
    pub encode_inactive: bool,
    /// Privilege levels of the first active core PMU (the perf_events
    /// generic PMU takes them, as libpfm4 does).
    pub core_plm: Option<u32>,
    /// The PMU forced active whatever the host (`LIBPFM_FORCE_PMU`).
    pub forced: Option<PmuDesc>,
    /// A PMU was forced (found or not): no PMU ran its detection, so
    /// nothing was learned of the host that way.
    pub forcing: bool,
}

fn set(bits: &mut [u64], i: usize) {
    if let Some(w) = bits.get_mut(i / 64) {
        *w |= 1 << (i % 64);
    }
}

fn get(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0)
}

impl Ctx {
    /// A context with `visible` PMUs, of which `active` (lookup order).
    /// With `encode_left_out` (and `encode_inactive`), a prefix reaches
    /// every PMU of the build for the host's architecture, visible or not.
    pub fn new(
        host: Host,
        visible: &[PmuDesc],
        mut active: Vec<PmuDesc>,
        encode_inactive: bool,
        encode_left_out: bool,
        forced: Option<PmuDesc>,
        forcing: bool,
    ) -> Ctx {
        active.sort_by_key(|p| (p.rank(host.arch), p.id()));
        let words = PmuDesc::all().count().div_ceil(64);
        let (mut active_set, mut visible_set) = (vec![0; words], vec![0; words]);
        for p in &active {
            set(&mut active_set, p.index());
        }
        for p in visible {
            set(&mut visible_set, p.index());
        }
        let prefix_set = (encode_inactive && encode_left_out).then(|| {
            let mut bits = visible_set.clone();
            for p in PmuDesc::in_lookup_order(host.arch) {
                set(&mut bits, p.index());
            }
            bits
        });
        let core_plm = active
            .iter()
            .find(|p| p.kind() == PmuKind::Core)
            .map(|p| p.supported_plm());
        Ctx {
            host,
            any_deprecated: true,
            active,
            active_set,
            visible_set,
            prefix_set,
            encode_inactive,
            core_plm,
            forced,
            forcing,
        }
    }

    /// Narrows what a `pmu::` prefix reaches beyond the visible PMUs (with
    /// `encode_left_out`) to the PMUs `keep` accepts.
    pub fn reach_only(&mut self, keep: impl Fn(PmuDesc) -> bool) {
        if let Some(bits) = self.prefix_set.as_mut() {
            for p in PmuDesc::all().filter(|&p| !keep(p)) {
                if let Some(w) = bits.get_mut(p.index() / 64) {
                    *w &= !(1 << (p.index() % 64));
                }
            }
        }
    }

    /// Notes whether an active PMU is one that `deprecated` accepts
    /// (libpfm4 passes deprecated PMU names over without a prefix): when
    /// none is, the unprefixed lookup asks no engine about it.
    pub fn note_deprecated(&mut self, deprecated: impl Fn(PmuDesc) -> bool) {
        self.any_deprecated = self.active.iter().any(|&p| deprecated(p));
    }

    /// Is `p` active?
    pub fn is_active(&self, p: PmuDesc) -> bool {
        get(&self.active_set, p.index())
    }

    /// Is `p` visible (known and not disabled)?
    pub fn is_visible(&self, p: PmuDesc) -> bool {
        get(&self.visible_set, p.index())
    }

    /// May `p` be named with a `pmu::` prefix (visible, or left out but
    /// reachable)?
    pub fn is_prefixable(&self, p: PmuDesc) -> bool {
        get(
            self.prefix_set.as_ref().unwrap_or(&self.visible_set),
            p.index(),
        )
    }

    /// May events of `p` be encoded with an explicit `pmu::` prefix?
    pub fn may_encode(&self, p: PmuDesc) -> bool {
        self.is_active(p) || (self.encode_inactive && self.is_prefixable(p))
    }
}
