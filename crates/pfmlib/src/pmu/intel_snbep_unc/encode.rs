//! The raw encoding (PFM_OS_NONE) of a server uncore event, step for step
//! as libpfm4 4.13's `pfm_intel_snbep_unc_get_encoding`: the attributes in
//! the order given (unit masks set the control register and the filter
//! words, modifiers set their fields), then the defaults of the missing
//! unit-mask groups, the checks of required modifiers, the CHA filter-1
//! default, and the codes: control, filter 0, filter 1, address match.

use super::filters::{apply_modifier, fstr_value};
use super::{ev_flag, mod_id, pmu_flag, um_flag, umask_ext, EXT_MODS_REQUIRED};
use crate::desc::{Attr, AttrRef, Desc};
use crate::error::{Error, ErrorKind, Result};
use crate::tables::{EventDesc, UmaskDesc};

/// Unit-mask groups libpfm4 tracks.
const NUM_GRP: usize = 32;

/// What the attributes asked for so far.
pub(super) struct State {
    /// The control register.
    pub reg: u64,
    /// Unit mask bits the event code hard-wires (code >> 8).
    pub umask1: u64,
    /// Unit mask bits requested (libpfm4's `umask2`).
    pub umask2: u64,
    /// Filter words 0 and 1.
    pub filters: [u64; 2],
    /// Home agent address match.
    pub addr: u64,
    /// Modifiers given that take part in the required-modifier checks.
    pub umodmsk: u32,
    /// Modifiers required (event and unit masks).
    pub modmsk_r: u32,
    /// Filter 0 is part of the codes even when 0.
    pub must_have_filt0: bool,
    /// PCU frequency band of `ff` (-1: none given).
    pub pcu_band: i64,
    /// Is this a PCU occupancy event?
    pub occ: bool,
    grpcounts: [u32; NUM_GRP],
    ncombo: [bool; NUM_GRP],
    req_grps: Option<[bool; NUM_GRP]>,
    max_req_grpid: Option<usize>,
    max_grpid: Option<u32>,
    last_grpid: Option<u32>,
    ugrpmsk: u32,
    numasks: u32,
}

impl State {
    fn new(d: &Desc) -> State {
        let ev = d.event;
        let code = ev.code();
        State {
            reg: code,
            umask1: code >> 8,
            umask2: code >> 8,
            filters: [0; 2],
            addr: 0,
            umodmsk: 0,
            modmsk_r: ev.ext(EXT_MODS_REQUIRED),
            must_have_filt0: ev.flags() & ev_flag::FORCE_FILT0 != 0,
            pcu_band: -1,
            occ: d.pmu.flags() & pmu_flag::OCC != 0 && code & 0x80 != 0,
            grpcounts: [0; NUM_GRP],
            ncombo: [false; NUM_GRP],
            req_grps: None,
            max_req_grpid: None,
            max_grpid: None,
            last_grpid: None,
            ugrpmsk: 0,
            numasks: 0,
        }
    }
}

/// Applies what a unit mask does to the two filter words: the low half of
/// each extra word sets bits, the high half clears them.
pub(super) fn set_filters(filters: &mut [u64; 2], um: UmaskDesc) {
    for (k, f) in filters.iter_mut().enumerate() {
        let w = umask_ext::filter(um, k);
        *f |= w & 0xffff_ffff;
        *f &= !(w >> 32);
    }
}

fn featcomb(d: &Desc, um: UmaskDesc, why: &str) -> Error {
    Error::new(
        ErrorKind::FeatureCombination,
        format!("{}: unit mask {} {why}", d.event_name(), um.name()),
    )
}

/// One requested unit mask.
fn apply_umask(st: &mut State, d: &Desc, i: u16) -> Result<()> {
    let um = d.umask(i);
    let grpid = um.grp();
    let g = grpid as usize % NUM_GRP;
    let excl = d.event.flags() & ev_flag::GRP_EXCL != 0;
    if excl && st.last_grpid.is_some_and(|l| l != grpid) {
        return Err(featcomb(
            d,
            um,
            "cannot be combined with unit masks of another group",
        ));
    }
    if um.flags() & um_flag::EXCL_GRP_GT != 0 {
        st.max_grpid = Some(grpid);
    }
    st.grpcounts[g] += 1;
    if um.flags() & um_flag::GRP_REQ != 0 {
        let req = umask_ext::req_grp(um) % NUM_GRP;
        let grps = st.req_grps.get_or_insert([false; NUM_GRP]);
        grps[req] = true;
        st.max_req_grpid = Some(st.max_req_grpid.map_or(req, |m| m.max(req)));
    }
    if um.flags() & um_flag::NCOMBO != 0 {
        st.ncombo[g] = true;
    }
    if st.grpcounts[g] > 1 && st.ncombo[g] {
        return Err(featcomb(
            d,
            um,
            "cannot be combined with another unit mask of its group",
        ));
    }
    st.last_grpid = Some(grpid);
    set_filters(&mut st.filters, um);
    st.umask2 |= um.code();
    st.ugrpmsk |= 1u32.checked_shl(grpid).unwrap_or(0);
    if st.occ {
        let mut pcu = super::regs::PcuCtl(st.reg);
        pcu.set_occ_sel(st.umask2 >> 6);
        st.reg = pcu.0;
        st.umask2 = 0;
    } else {
        st.reg |= st.umask2 << 8;
    }
    st.modmsk_r |= umask_ext::mods_required(um);
    st.numasks += 1;
    Ok(())
}

/// A raw unit mask: it replaces the unit mask and satisfies every group.
fn apply_raw(st: &mut State, d: &Desc, v: u64) -> Result<()> {
    if v & !0xff != 0 {
        return Err(Error::new(
            ErrorKind::Attr,
            format!(
                "raw unit mask {v:#x} of {} is wider than 8 bits",
                d.event_name()
            ),
        ));
    }
    st.umask2 = v;
    st.ugrpmsk = all_groups(d.event);
    st.numasks += 1;
    Ok(())
}

fn all_groups(ev: EventDesc) -> u32 {
    1u32.checked_shl(ev.ngrp()).map_or(u32::MAX, |b| b - 1)
}

/// Encodes the event: control register, filters, address match, and the
/// fully-qualified string.
pub(super) fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let mut st = State::new(d);
    for k in 0..d.attrs.len() {
        let a = d.attrs[k];
        match a.what {
            AttrRef::Umask(i) => apply_umask(&mut st, d, i)?,
            AttrRef::Raw(v) => apply_raw(&mut st, d, v)?,
            AttrRef::Mod(m) => apply_modifier(&mut st, d, u64::from(m), a.ival)?,
            AttrRef::Perf(_) => {}
        }
    }
    check_groups(&st, d)?;
    complete_umasks(&mut st, d)?;
    check_modifiers(&st, d)?;
    cha_filter1_default(&mut st, d);
    st.reg |= (st.umask1 | st.umask2) << 8;
    d.write_fstr_umasks();
    write_fstr_modifiers(&st, d);
    let mut codes = vec![st.reg];
    if st.filters[0] != 0 || st.filters[1] != 0 || st.must_have_filt0 {
        codes.push(st.filters[0]);
    }
    if st.filters[1] != 0 {
        codes.push(st.filters[1]);
    }
    if st.addr != 0 {
        codes.push(st.addr);
    }
    Ok(codes)
}

/// Groups other unit masks asked for must be there.
fn check_groups(st: &State, d: &Desc) -> Result<()> {
    let (Some(req), Some(max)) = (st.req_grps, st.max_req_grpid) else {
        return Ok(());
    };
    for (x, _) in req.iter().enumerate().take(max + 1).filter(|(_, r)| **r) {
        if st.ugrpmsk & 1u32.checked_shl(x as u32).unwrap_or(0) == 0 {
            return Err(Error::new(
                ErrorKind::FeatureCombination,
                format!(
                    "{}: a unit mask given needs one of group {x} as well",
                    d.event_name()
                ),
            ));
        }
    }
    Ok(())
}

/// Adds the defaults of the groups left empty; an event with unit masks
/// needs at least one.
fn complete_umasks(st: &mut State, d: &mut Desc) -> Result<()> {
    let ev = d.event;
    if ev.numasks() == 0 {
        return Ok(());
    }
    let grpmsk = all_groups(ev);
    if st.ugrpmsk != grpmsk || st.ugrpmsk == 0 {
        let missing = st.ugrpmsk ^ grpmsk;
        add_defaults(st, d, missing)?;
    }
    if st.numasks == 0 {
        return Err(Error::new(
            ErrorKind::Attr,
            format!("{} needs a unit mask", d.event_name()),
        ));
    }
    Ok(())
}

/// libpfm4's `snbep_unc_add_defaults`: for each group of `msk`, every
/// default unit mask in table order, unless the group may stay empty or
/// lies above an exclusive group.
fn add_defaults(st: &mut State, d: &mut Desc, msk: u32) -> Result<()> {
    let ev = d.event;
    let variant = d.pmu.variant_bit();
    let excl = ev.flags() & ev_flag::GRP_EXCL != 0;
    let mut um_bits = 0u64;
    for i in (0..32u32).filter(|i| msk >> i & 1 != 0) {
        let (mut added, mut skip) = (false, false);
        for j in 0..ev.numasks() {
            let um = ev.umask(j);
            if !um.in_variant(variant) || um.grp() != i {
                continue;
            }
            if st.max_grpid.is_some_and(|m| i > m) || um.flags() & um_flag::GRP_DFL_NONE != 0 {
                skip = true;
                continue;
            }
            if um.flags() & um_flag::DFL == 0 {
                continue;
            }
            um_bits |= um.code();
            set_filters(&mut st.filters, um);
            d.attrs.push(Attr {
                what: AttrRef::Umask(j as u16),
                ival: 0,
            });
            st.numasks += 1;
            added = true;
            if excl {
                st.umask2 |= um_bits;
                return Ok(());
            }
            if um.flags() & um_flag::EXCL_GRP_GT != 0 {
                if st.max_grpid.is_some() {
                    return Err(no_default(d, i));
                }
                st.max_grpid = Some(um.grp());
            }
        }
        if !added && !skip {
            return Err(no_default(d, i));
        }
    }
    st.umask2 |= um_bits;
    Ok(())
}

fn no_default(d: &Desc, grp: u32) -> Error {
    let ev = d.event;
    let variant = d.pmu.variant_bit();
    let names: Vec<&str> = (0..ev.numasks())
        .map(|j| ev.umask(j))
        .filter(|u| u.in_variant(variant) && u.grp() == grp)
        .map(|u| u.name())
        .collect();
    Error::new(
        ErrorKind::Umask,
        format!(
            "{} needs a unit mask of group {grp}: one of {}",
            d.event_name(),
            names.join(", ")
        ),
    )
}

/// `nf` only where a unit mask asks for it; required modifiers given.
fn check_modifiers(st: &State, d: &Desc) -> Result<()> {
    for nf in [mod_id::NF, mod_id::NF1] {
        let bit = 1u32 << nf;
        if st.modmsk_r & bit == 0 && st.umodmsk & bit != 0 {
            return Err(Error::new(
                ErrorKind::Attr,
                format!(
                    "{}: nf= is only taken with a unit mask that filters on node ids",
                    d.event_name()
                ),
            ));
        }
    }
    if st.modmsk_r != 0 && st.umodmsk & st.modmsk_r == 0 {
        let names = super::required_names(st.modmsk_r);
        return Err(Error::new(
            ErrorKind::Attr,
            format!("{} needs the modifier {names}", d.event_name()),
        ));
    }
    Ok(())
}

/// Skylake-X CHA TOR events: filter 1 defaults to every opcode, node and
/// memory kind; an opcode given turns "every opcode" off.
fn cha_filter1_default(st: &mut State, d: &Desc) {
    if !super::is_cha_filter_event(d.pmu, st.reg, 1) {
        return;
    }
    let mut f1 = super::regs::SkxChaFilter1(st.filters[1]);
    if f1.0 == 0 {
        f1.0 = 0x3b;
    } else if f1.opc0() != 0 || f1.opc1() != 0 {
        f1.set_all_opc(0);
    }
    st.filters[1] = f1.0;
}

/// Appends every modifier the event offers with its value, in id order.
fn write_fstr_modifiers(st: &State, d: &mut Desc) {
    let mut offered = d.offer.mods;
    while offered != 0 {
        let id = u64::from(offered.trailing_zeros());
        offered &= offered - 1;
        let Some(m) = super::defs::MODIFIERS.get(id as usize) else {
            continue;
        };
        match fstr_value(st, id) {
            Some(v) if id == mod_id::ADDR => d.fstr.push(&format!(":{}=0x{v:x}", m.name)),
            Some(v) => d.push_fstr_val(m.name, v),
            None => {}
        }
    }
}
