//! The attribute list of an event for an OS layer, as attribute info
//! reports it: its unit masks (those its PMU variant has), then the
//! hardware modifiers and the perf_events attributes it offers, in id order.

use crate::ctx::Ctx;
use crate::desc::Offer;
use crate::kernel::PERF_ATTRS;
use crate::model::{AttrCtrl, AttrType, Os};
use crate::pmu::{engine, EventFlags};
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use pfmlib_defs::ModKind;

/// One attribute of an event.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AttrEntry {
    pub name: &'static str,
    pub desc: &'static str,
    pub equiv: Option<&'static str>,
    pub code: u64,
    pub ty: AttrType,
    pub ctrl: AttrCtrl,
    pub is_dfl: bool,
    pub flags: EventFlags,
    /// A unit mask that takes no modifier (libpfm4's `support_no_mods`).
    pub no_mods: bool,
}

fn bits(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            b
        })
    })
}

/// The entry of unit mask `um` of `ev` (a unit mask of its PMU's variant).
pub(crate) fn umask_entry(pmu: PmuDesc, ev: EventDesc, um: UmaskDesc) -> AttrEntry {
    let e = engine(pmu);
    let info = e.umask_info(pmu, ev, um);
    AttrEntry {
        name: um.name(),
        desc: um.desc(),
        equiv: um.equiv(),
        code: info.code,
        ty: AttrType::Umask,
        ctrl: AttrCtrl::Pmu,
        is_dfl: info.is_dfl,
        flags: info.flags,
        no_mods: e.umask_no_mods(um),
    }
}

/// The entry of hardware modifier `id` of `pmu`'s family.
pub(crate) fn mod_entry(pmu: PmuDesc, id: usize) -> Option<AttrEntry> {
    let m = engine(pmu).defs().modifiers.get(id)?;
    Some(AttrEntry {
        name: m.name,
        desc: m.desc,
        equiv: None,
        code: id as u64,
        ty: if m.kind == ModKind::Int {
            AttrType::ModInteger
        } else {
            AttrType::ModBool
        },
        ctrl: AttrCtrl::Pmu,
        is_dfl: false,
        flags: EventFlags::NONE,
        no_mods: false,
    })
}

/// The entry of perf_events attribute `id`.
pub(crate) fn perf_entry(id: usize) -> Option<AttrEntry> {
    let a = PERF_ATTRS.get(id)?;
    Some(AttrEntry {
        name: a.name,
        desc: a.desc,
        equiv: None,
        code: id as u64,
        ty: a.ty,
        ctrl: AttrCtrl::PerfEvent,
        is_dfl: false,
        flags: EventFlags::NONE,
        no_mods: false,
    })
}

/// The attributes `ev` of `pmu` takes with `os`.
pub(crate) fn list(ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> Vec<AttrEntry> {
    let offer = engine(pmu).offer(ctx, pmu, ev, os);
    let variant = pmu.variant_bit();
    let mut v: Vec<AttrEntry> = ev
        .umasks()
        .filter(|u| u.in_variant(variant))
        .map(|um| umask_entry(pmu, ev, um))
        .collect();
    v.extend(bits(offer.mods).filter_map(|id| mod_entry(pmu, id)));
    v.extend(bits(offer.perf).filter_map(perf_entry));
    v
}

/// How many attributes `ev` takes with `os`.
pub(crate) fn count(ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> usize {
    let offer = engine(pmu).offer(ctx, pmu, ev, os);
    let variant = pmu.variant_bit();
    ev.umasks().filter(|u| u.in_variant(variant)).count()
        + offer.mods.count_ones() as usize
        + offer.perf.count_ones() as usize
}

/// The names of the attributes an event offers, in list order.
pub(crate) fn names(
    ctx: &Ctx,
    pmu: PmuDesc,
    ev: EventDesc,
    offer: Offer,
) -> impl Iterator<Item = &'static str> {
    let _ = ctx;
    let variant = pmu.variant_bit();
    let mods = engine(pmu).defs().modifiers;
    ev.umasks()
        .filter(move |u| u.in_variant(variant))
        .map(|u| u.name())
        .chain(bits(offer.mods).filter_map(move |id| mods.get(id).map(|m| m.name)))
        .chain(bits(offer.perf).filter_map(|id| PERF_ATTRS.get(id).map(|a| a.name)))
}
