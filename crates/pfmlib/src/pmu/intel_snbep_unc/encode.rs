//! The raw encoding (PFM_OS_NONE) of a server uncore event, step for step
//! as libpfm4 4.13's `pfm_intel_snbep_unc_get_encoding`: the attributes in
//! the order given (unit masks set the control register and the filter
//! words, modifiers set their fields), then the defaults of the missing
//! unit-mask groups, the checks of required modifiers, the CHA filter-1
//! default, and the codes: control, filter 0, filter 1, address match.
//! The group rules and modifier ranges are the shared machinery's.

use super::filters::{apply_modifier, fstr_value};
use super::{
    ev_flag, mod_id, pmu_flag, um_flag, umask_ext, EXT_MODS_REQUIRED, MODIFIERS, MOD_KEYS,
};
use crate::desc::{AttrRef, Desc};
use crate::error::{Error, ErrorKind, Result};
use crate::pmu::machinery::{all_groups, Applied, ModSpec, ModTable, UmaskRules, Umasks};
use crate::tables::UmaskDesc;
use pfmlib_defs::position;

/// The unit-mask rules of the family.
const UMASK_RULES: UmaskRules = UmaskRules {
    dfl: um_flag::DFL,
    ncombo: um_flag::NCOMBO,
    excl_grp_gt: um_flag::EXCL_GRP_GT,
    grp_dfl_none: um_flag::GRP_DFL_NONE,
    grp_req: um_flag::GRP_REQ,
    grp_excl: ev_flag::GRP_EXCL,
    req_grp_ext: Some(umask_ext::REQ_GRP),
    mods_required_ext: Some(umask_ext::MODS_REQUIRED),
    ..UmaskRules::NONE
};

/// The values each modifier takes; `filters` places them all.
const MODS: ModTable = ModTable::new(
    MODIFIERS,
    &[
        ModSpec::own(0, 1),             // e
        ModSpec::own(0, 1),             // i
        ModSpec::own(0, 255),           // t8
        ModSpec::own(0, 31),            // t5
        ModSpec::own(0, 1),             // tf
        ModSpec::own(0, 15),            // cf
        ModSpec::own(1, 255),           // nf
        ModSpec::own(0, 255),           // ff
        ModSpec::own(0, (1 << 40) - 1), // addr
        ModSpec::own(1, 255),           // nf1
        ModSpec::own(0, 1),             // isoc
        ModSpec::own(0, 1),             // nc
        ModSpec::own(0, 63),            // cf1
        ModSpec::own(0, 7),             // tf1
        ModSpec::own(0, 64),            // cf2
        ModSpec::own(0, 1),             // loc
        ModSpec::own(0, 1),             // rem
        ModSpec::own(0, 1),             // lmem
        ModSpec::own(0, 1),             // rmem
        ModSpec::own(0, 15),            // dnid
        ModSpec::own(0, 15),            // rcsnid
    ],
    ErrorKind::AttrValue,
);

/// The modifiers that count for the required-modifier checks.
const UMOD_MODS: u32 = {
    let ids = [
        "e", "i", "t8", "t5", "tf", "tf1", "cf", "cf1", "nf", "nf1", "cf2", "ff", "addr",
    ];
    let mut m = 0;
    let mut k = 0;
    while k < ids.len() {
        m |= 1 << position(MOD_KEYS, ids[k]);
        k += 1;
    }
    m
};

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
    /// Modifiers given (bit = id).
    pub given: u32,
    /// Modifiers required (event and unit masks).
    pub modmsk_r: u32,
    /// Filter 0 is part of the codes even when 0.
    pub must_have_filt0: bool,
    /// PCU frequency band of `ff` (-1: none given).
    pub pcu_band: i64,
    /// Is this a PCU occupancy event?
    pub occ: bool,
    um: Umasks,
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
            given: 0,
            modmsk_r: ev.ext(EXT_MODS_REQUIRED),
            must_have_filt0: ev.flags() & ev_flag::FORCE_FILT0 != 0,
            pcu_band: -1,
            occ: d.pmu.flags() & pmu_flag::OCC != 0 && code & 0x80 != 0,
            um: Umasks::default(),
        }
    }

    /// Modifiers given that take part in the required-modifier checks.
    fn umodmsk(&self) -> u32 {
        self.given & UMOD_MODS
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

/// One requested unit mask: the group rules, then its filter words and
/// its bits in the control register (the occupancy select on a PCU
/// occupancy event).
fn apply_umask(st: &mut State, d: &Desc, i: u16) -> Result<()> {
    let um = d.umask(i);
    st.um.apply(&UMASK_RULES, d, um)?;
    set_filters(&mut st.filters, um);
    st.umask2 |= um.code();
    if st.occ {
        let mut pcu = super::regs::PcuCtl(st.reg);
        pcu.set_occ_sel(st.umask2 >> 6);
        st.reg = pcu.0;
        st.umask2 = 0;
    } else {
        st.reg |= st.umask2 << 8;
    }
    Ok(())
}

/// One modifier: its range, then its place (`filters`).
fn apply_mod(st: &mut State, d: &Desc, id: u64, ival: u64) -> Result<()> {
    match MODS.apply(d, &mut st.reg, &mut st.given, id, ival)? {
        Applied::Unknown => Err(Error::new(
            ErrorKind::Attr,
            format!("{}: no such modifier", d.event_name()),
        )),
        _ => {
            apply_modifier(st, id, ival);
            Ok(())
        }
    }
}

/// Encodes the event: control register, filters, address match, and the
/// fully-qualified string.
pub(super) fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let mut st = State::new(d);
    for k in 0..d.attrs.len() {
        let a = d.attrs[k];
        match a.what {
            AttrRef::Umask(i) => apply_umask(&mut st, d, i)?,
            AttrRef::Raw(v) => {
                st.um.raw(d, v, 8)?;
                st.umask2 = v;
            }
            AttrRef::Mod(m) => apply_mod(&mut st, d, u64::from(m), a.ival)?,
            AttrRef::Perf(_) => {}
        }
    }
    st.modmsk_r |= st.um.mods_required;
    st.um.check_required_groups(d)?;
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

/// Adds the defaults of the groups left empty (with their filter words);
/// an event with unit masks needs at least one.
fn complete_umasks(st: &mut State, d: &mut Desc) -> Result<()> {
    let ev = d.event;
    if ev.numasks() == 0 {
        return Ok(());
    }
    let grpmsk = all_groups(ev);
    if st.um.groups != grpmsk || st.um.groups == 0 {
        let missing = st.um.groups ^ grpmsk;
        let (filters, umask2) = (&mut st.filters, &mut st.umask2);
        st.um.add_defaults(&UMASK_RULES, d, missing, |um| {
            set_filters(filters, um);
            *umask2 |= um.code();
        })?;
    }
    if st.um.count == 0 {
        return Err(Error::new(
            ErrorKind::Attr,
            format!("{} needs a unit mask", d.event_name()),
        ));
    }
    Ok(())
}

/// `nf` only where a unit mask asks for it; required modifiers given.
fn check_modifiers(st: &State, d: &Desc) -> Result<()> {
    for nf in [mod_id::NF, mod_id::NF1] {
        let bit = 1u32 << nf;
        if st.modmsk_r & bit == 0 && st.umodmsk() & bit != 0 {
            return Err(Error::new(
                ErrorKind::Attr,
                format!(
                    "{}: nf= is only taken with a unit mask that filters on node ids",
                    d.event_name()
                ),
            ));
        }
    }
    if st.modmsk_r != 0 && st.umodmsk() & st.modmsk_r == 0 {
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
        let Some(m) = MODIFIERS.get(id as usize) else {
            continue;
        };
        match fstr_value(st, id) {
            Some(v) if id == mod_id::ADDR => d.fstr.push(&format!(":{}=0x{v:x}", m.name)),
            Some(v) => d.push_fstr_val(m.name, v),
            None => {}
        }
    }
}
