//! The raw encoding (PFM_OS_NONE) of a server uncore event, step for step
//! as libpfm4 4.13's `pfm_intel_snbep_unc_get_encoding`: the attributes in
//! the order given (unit masks set the control register and the filter
//! words, modifiers set their fields), then the defaults of the missing
//! unit-mask groups, the checks of required modifiers, the CHA filter-1
//! default, and the codes: control, filter 0, filter 1, address match.
//! The group rules and modifier ranges are the shared machinery's.

use super::filters::{fstr_value, place_modifier, Regs};
use super::vocab::{ev_flag, is_cha_filter_event, mod_id, required_names, um_flag, umask_ext};
use crate::desc::Desc;
use crate::error::{Error, ErrorKind, Result};
use crate::pmu::machinery::{all_groups, Encoding, ModSpec, ModTable, Own, UmaskRules, Umasks};
use crate::tables::UmaskDesc;
use pfmlib_defs::intel_snbep_unc::{MODIFIERS, MOD_KEYS};
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
        ModSpec::own(0, 63),            // t6
        ModSpec::own(0, 1),             // occ_i
        ModSpec::own(0, 1),             // occ_e
    ],
    ErrorKind::AttrValue,
);

/// The modifiers that count for the required-modifier checks.
const UMOD_MODS: u32 = {
    let ids = [
        "e", "i", "t8", "t5", "tf", "tf1", "cf", "cf1", "nf", "nf1", "cf2", "ff", "addr", "t6",
        "occ_i", "occ_e",
    ];
    let mut m = 0;
    let mut k = 0;
    while k < ids.len() {
        m |= 1 << position(MOD_KEYS, ids[k]);
        k += 1;
    }
    m
};

/// Modifiers given that take part in the required-modifier checks.
fn umodmsk(st: &Regs) -> u32 {
    st.given & UMOD_MODS
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

/// One requested unit mask (its group rules applied): its filter words and
/// its bits in the control register (the occupancy select on a PCU
/// occupancy event).
fn umask_effects(st: &mut Regs, um: UmaskDesc) {
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
}

/// Encodes the event: control register, filters, address match, and the
/// fully-qualified string.
pub(super) fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let mut st = Regs::new(d);
    let mut e = Encoding::default();
    e.apply_attrs(&UMASK_RULES, &MODS, d, 8, |_, own| {
        match own {
            Own::Umask(um) => umask_effects(&mut st, um),
            Own::Raw(v) => st.umask2 = v,
            Own::Mod(id, ival) => place_modifier(&mut st, id, ival),
            Own::Unknown => {
                return Err(Error::new(
                    ErrorKind::Attr,
                    format!("{}: no such modifier", d.event_name()),
                ))
            }
        }
        Ok(())
    })?;
    st.given = e.given;
    st.modmsk_r |= e.um.mods_required;
    e.um.check_required_groups(d)?;
    complete_umasks(&mut st, &mut e.um, d)?;
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
fn complete_umasks(st: &mut Regs, um: &mut Umasks, d: &mut Desc) -> Result<()> {
    let ev = d.event;
    if ev.numasks() == 0 {
        return Ok(());
    }
    let grpmsk = all_groups(ev);
    if um.groups != grpmsk || um.groups == 0 {
        let missing = um.groups ^ grpmsk;
        um.add_defaults(&UMASK_RULES, d, missing, |u| {
            set_filters(&mut st.filters, u);
            st.umask2 |= u.code();
        })?;
    }
    if um.count == 0 {
        return Err(Error::new(
            ErrorKind::Attr,
            format!("{} needs a unit mask", d.event_name()),
        ));
    }
    Ok(())
}

/// `nf` only where a unit mask asks for it; required modifiers given.
fn check_modifiers(st: &Regs, d: &Desc) -> Result<()> {
    for nf in [mod_id::NF, mod_id::NF1] {
        let bit = 1u32 << nf;
        if st.modmsk_r & bit == 0 && umodmsk(st) & bit != 0 {
            return Err(Error::new(
                ErrorKind::Attr,
                format!(
                    "{}: nf= is only taken with a unit mask that filters on node ids",
                    d.event_name()
                ),
            ));
        }
    }
    if st.modmsk_r != 0 && umodmsk(st) & st.modmsk_r == 0 {
        let names = required_names(st.modmsk_r);
        return Err(Error::new(
            ErrorKind::Attr,
            format!("{} needs the modifier {names}", d.event_name()),
        ));
    }
    Ok(())
}

/// Skylake-X CHA TOR events: filter 1 defaults to every opcode, node and
/// memory kind; an opcode given turns "every opcode" off.
fn cha_filter1_default(st: &mut Regs, d: &Desc) {
    if !is_cha_filter_event(d.pmu, st.reg, 1) {
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
fn write_fstr_modifiers(st: &Regs, d: &mut Desc) {
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
