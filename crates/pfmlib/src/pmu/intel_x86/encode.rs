//! PERFEVTSEL encoding of the x86 core family, in steps: the requested
//! unit masks and modifiers, the checks between them, the default unit
//! masks and privilege levels, then the codes and the fully-qualified string.

use super::{ev_flag, modifier_id as m, offcore_raw_bits, pmu_flag, um_flag, MODIFIERS};
use crate::desc::{Attr, AttrRef, Desc};
use crate::error::{Error, ErrorKind, Result};
use crate::kernel::PerfAttr;
use crate::model::Plm;
use crate::regs::PerfEvtSel;

/// Load latency used when a load-latency unit mask is given without `ldlat=`.
const LDLAT_DEFAULT: u64 = 3;
const MAX_GROUPS: usize = 16;

/// What the requested attributes have set so far.
#[derive(Default)]
struct State {
    reg: PerfEvtSel,
    /// Unit mask bits hard-wired in the event code.
    umask1: u64,
    /// Unit mask bits from unit masks (or the offcore/raw value).
    umask2: u64,
    /// Groups that got a unit mask.
    ugrpmsk: u32,
    /// Modifiers hard-wired by the unit masks given.
    modhw: u32,
    /// Modifiers given.
    umodmsk: u32,
    /// Privilege-level modifiers given.
    plmmsk: u32,
    max_grpid: Option<u32>,
    last_grpid: Option<u32>,
    excl_grp_but_0: Option<u32>,
    last_ucode: Option<u64>,
    ldlat: u64,
    ldlat_um: bool,
    grpcounts: [u32; MAX_GROUPS],
    ncombo: [bool; MAX_GROUPS],
}

fn featcomb(d: &Desc, why: String) -> Error {
    Error::new(
        ErrorKind::FeatureCombination,
        format!("{}: {why}", d.event_name()),
    )
}

fn all_groups(ngrp: u32) -> u32 {
    if ngrp == 0 {
        0
    } else {
        (1u32 << ngrp) - 1
    }
}

/// Encodes the event into PERFEVTSEL (and the offcore-response or
/// load-latency register) and builds the fully-qualified string.
pub(super) fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let ev = d.event;
    let mut st = State {
        reg: PerfEvtSel(ev.code()),
        umask1: (ev.code() >> 8) & 0xff,
        ..State::default()
    };
    for k in 0..d.attrs.len() {
        let a = d.attrs[k];
        match a.what {
            AttrRef::Umask(i) => apply_umask(&mut st, d, i)?,
            AttrRef::Raw(v) => apply_raw(&mut st, d, v)?,
            AttrRef::Mod(id) => apply_modifier(&mut st, d, u64::from(id), a.ival)?,
            AttrRef::Perf(_) => {}
        }
    }
    check_hardwired(&st, d)?;
    default_plm(&mut st, d);
    let grpmsk = all_groups(ev.ngrp());
    let grp_excl = ev.flags() & ev_flag::GRP_EXCL != 0;
    if (st.ugrpmsk != grpmsk && !grp_excl) || st.ugrpmsk == 0 {
        let missing = st.ugrpmsk ^ grpmsk;
        add_defaults(&mut st, d, missing)?;
    }
    check_groups(&st, d)?;
    d.write_fstr_umasks();
    let codes = codes(&mut st, d)?;
    write_modifiers(&st, d);
    Ok(codes)
}

fn apply_umask(st: &mut State, d: &Desc, i: u16) -> Result<()> {
    let um = d.umask(i);
    let grp = um.grp();
    let g = (grp as usize).min(MAX_GROUPS - 1);
    let flags = um.flags();
    if st.last_grpid.is_some_and(|l| l != grp) && d.event.flags() & ev_flag::GRP_EXCL != 0 {
        return Err(featcomb(
            d,
            format!(
                "unit mask {} cannot be combined with unit masks of another group",
                um.name()
            ),
        ));
    }
    if flags & um_flag::EXCL_GRP_GT != 0 {
        st.max_grpid = Some(grp);
    }
    if flags & um_flag::EXCL_GRP_BUT_0 != 0 {
        st.excl_grp_but_0 = Some(grp);
    }
    st.grpcounts[g] += 1;
    if flags & um_flag::NCOMBO != 0 {
        st.ncombo[g] = true;
    }
    if flags & um_flag::LDLAT != 0 {
        st.ldlat_um = true;
    }
    if st.grpcounts[g] > 1 && st.ncombo[g] {
        let others: Vec<&str> = d
            .umask_attrs()
            .map(|j| d.umask(j))
            .filter(|u| u.grp() == grp)
            .map(|u| u.name())
            .collect();
        return Err(featcomb(
            d,
            format!(
                "unit masks {} cannot be combined: one of them must be used alone in its group",
                others.join(" and ")
            ),
        ));
    }
    st.last_grpid = Some(grp);
    st.modhw |= um.modhw();
    // A code-overriding unit mask holds the unit mask in bits 8-15 and the
    // event select that replaces the event's in bits 0-7.
    let overrides = flags & um_flag::CODE_OVERRIDE != 0;
    st.umask2 |= if overrides { um.code() >> 8 } else { um.code() };
    st.ugrpmsk |= 1 << grp;
    if overrides {
        let code = um.code() & 0xff;
        if st.last_ucode.is_some_and(|l| l != code) {
            return Err(featcomb(
                d,
                format!(
                    "unit mask {} overrides the event code differently",
                    um.name()
                ),
            ));
        }
        st.last_ucode = Some(code);
        st.reg.set_event_select(code);
    }
    Ok(())
}

fn apply_raw(st: &mut State, d: &Desc, value: u64) -> Result<()> {
    let bits = if d.event.flags() & ev_flag::OFFCORE != 0 {
        offcore_raw_bits(d.pmu)
    } else {
        8
    };
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    if value & !mask != 0 {
        return Err(Error::new(
            ErrorKind::Attr,
            format!(
                "raw unit mask {value:#x} of {} is wider than {bits} bits",
                d.event_name()
            ),
        ));
    }
    st.umask2 = value & mask;
    st.ugrpmsk = all_groups(d.event.ngrp());
    Ok(())
}

fn apply_modifier(st: &mut State, d: &Desc, id: u64, ival: u64) -> Result<()> {
    let on = u64::from(ival != 0);
    let reg = &mut st.reg;
    match id {
        m::I => reg.set_inv(on),
        m::E => reg.set_edge(on),
        m::C => {
            if ival > 255 {
                return Err(Error::new(
                    ErrorKind::AttrValue,
                    format!(
                        "counter mask c={ival} of {} is out of range [0-255]",
                        d.event_name()
                    ),
                ));
            }
            reg.set_cmask(ival);
        }
        m::U => {
            reg.set_usr(on);
            st.plmmsk |= 1 << m::U;
        }
        m::K => {
            reg.set_os(on);
            st.plmmsk |= 1 << m::K;
        }
        m::T => reg.set_any_thread(on),
        m::LDLAT => {
            if !(1..=65535).contains(&ival) {
                return Err(Error::new(
                    ErrorKind::AttrValue,
                    format!(
                        "load latency ldlat={ival} of {} is out of range [1-65535]",
                        d.event_name()
                    ),
                ));
            }
            st.ldlat = ival;
            return Ok(());
        }
        m::INTX => reg.set_intx(on),
        m::INTXCP => reg.set_intxcp(on),
        _ => return Ok(()),
    }
    st.umodmsk |= 1 << id;
    Ok(())
}

/// A modifier hard-wired by a unit mask may be repeated only with the same value.
fn check_hardwired(st: &State, d: &Desc) -> Result<()> {
    let hw = PerfEvtSel((st.umask1 | st.umask2) << 8);
    let reg = &st.reg;
    let checks: [(u64, &str, u64, u64); 8] = [
        (m::I, "i", hw.inv(), reg.inv()),
        (m::E, "e", hw.edge(), reg.edge()),
        (m::C, "c", hw.cmask(), reg.cmask()),
        (m::U, "u", hw.usr(), reg.usr()),
        (m::K, "k", hw.os(), reg.os()),
        (m::T, "t", hw.any_thread(), reg.any_thread()),
        (m::INTX, "intx", hw.intx(), reg.intx()),
        (m::INTXCP, "intxcp", hw.intxcp(), reg.intxcp()),
    ];
    for (id, name, fixed, asked) in checks {
        if st.modhw & st.umodmsk & (1 << id) != 0 && fixed != asked {
            return Err(Error::new(
                ErrorKind::AttrSet,
                format!(
                    "{}: the unit mask fixes {name}={fixed}, so {name}={asked} cannot be set",
                    d.event_name()
                ),
            ));
        }
    }
    Ok(())
}

/// No privilege-level modifier given: the default levels the PMU supports.
fn default_plm(st: &mut State, d: &Desc) {
    if st.plmmsk & ((1 << m::K) | (1 << m::U)) != 0 {
        return;
    }
    let supported = d.pmu.supported_plm();
    if d.dfl_plm.contains(Plm::PLM0) && supported & Plm::PLM0.bits() != 0 {
        st.reg.set_os(1);
    }
    if d.dfl_plm.contains(Plm::PLM3) && supported & Plm::PLM3.bits() != 0 {
        st.reg.set_usr(1);
    }
}

/// Adds the default unit mask of every group in `missing` (a group bit mask).
fn add_defaults(st: &mut State, d: &mut Desc, missing: u32) -> Result<()> {
    let ev = d.event;
    let variant = d.pmu.variant_bit();
    let grp_excl = ev.flags() & ev_flag::GRP_EXCL != 0;
    // A default's `excl_grp_gt` limits the later defaults only, not the
    // unit masks given (libpfm4 works on a copy of the limit).
    let mut max_grpid = st.max_grpid;
    for g in 0..32u32 {
        if missing & (1 << g) == 0 {
            continue;
        }
        let (mut added, mut skip) = (false, false);
        for j in 0..ev.numasks() {
            let um = ev.umask(j);
            if !um.in_variant(variant) || um.grp() != g {
                continue;
            }
            let flags = um.flags();
            if max_grpid.is_some_and(|mx| g > mx)
                || flags & um_flag::GRP_DFL_NONE != 0
                || st
                    .excl_grp_but_0
                    .is_some_and(|e| um.grp() != 0 && e != um.grp())
            {
                skip = true;
                continue;
            }
            if flags & um_flag::DFL == 0 {
                continue;
            }
            st.umask2 |= um.code();
            d.attrs.push(Attr {
                what: AttrRef::Umask(j as u16),
                ival: 0,
            });
            added = true;
            if grp_excl {
                return Ok(());
            }
            if flags & um_flag::EXCL_GRP_GT != 0 {
                if max_grpid.is_some() {
                    return Err(Error::new(
                        ErrorKind::Umask,
                        format!("{}: conflicting default unit masks", d.event_name()),
                    ));
                }
                max_grpid = Some(um.grp());
            }
        }
        if !added && !skip {
            return Err(missing_umask(d, g));
        }
    }
    Ok(())
}

fn missing_umask(d: &Desc, g: u32) -> Error {
    let ev = d.event;
    let choices: Vec<&str> = ev
        .umasks()
        .filter(|u| u.in_variant(d.pmu.variant_bit()) && u.grp() == g)
        .map(|u| u.name())
        .collect();
    if choices.is_empty() {
        return Error::new(
            ErrorKind::Umask,
            format!(
                "{} needs a unit mask, and none of its unit masks exists on PMU {}",
                d.event_name(),
                d.pmu.name()
            ),
        );
    }
    let group = if ev.ngrp() > 1 {
        format!(" from group {g}")
    } else {
        String::new()
    };
    Error::new(
        ErrorKind::Umask,
        format!(
            "{} needs a unit mask{group}: one of {}",
            d.event_name(),
            choices.join(", ")
        ),
    )
}

/// The exclusions between groups that the unit masks given ask for.
fn check_groups(st: &State, d: &Desc) -> Result<()> {
    if let Some(g) = st.excl_grp_but_0 {
        for (k, &n) in st.grpcounts.iter().enumerate().skip(1) {
            if n > 0 && k as u32 != g {
                return Err(featcomb(
                    d,
                    format!("unit masks of group {k} cannot be combined with those of group {g}"),
                ));
            }
        }
    }
    if let Some(max) = st.max_grpid {
        if let Some(um) = d.umask_attrs().map(|j| d.umask(j)).find(|u| u.grp() > max) {
            return Err(featcomb(
                d,
                format!(
                    "unit mask {} cannot be used with the unit masks chosen before it",
                    um.name()
                ),
            ));
        }
    }
    Ok(())
}

/// PERFEVTSEL and the second code (offcore response or load latency).
fn codes(st: &mut State, d: &Desc) -> Result<Vec<u64>> {
    let mut codes = Vec::with_capacity(2);
    codes.push(0u64);
    if d.event.flags() & ev_flag::OFFCORE != 0 {
        codes.push(st.umask2);
        st.umask2 = 0;
    }
    if st.ldlat != 0 && !st.ldlat_um {
        return Err(Error::new(
            ErrorKind::Attr,
            format!("{}: ldlat= needs a load-latency unit mask", d.event_name()),
        ));
    }
    if st.ldlat_um {
        if st.ldlat == 0 {
            st.ldlat = LDLAT_DEFAULT;
        }
        codes.truncate(1);
        codes.push(st.ldlat);
    }
    st.reg.0 |= (st.umask1 | st.umask2) << 8;
    st.reg.set_en(1);
    st.reg.set_int(1);
    codes[0] = st.reg.0;
    let reg = &st.reg;
    if d.pmu.flags() & pmu_flag::ECMASK != 0 && reg.edge() != 0 && reg.cmask() == 0 {
        return Err(Error::new(
            ErrorKind::Attr,
            format!(
                "{}: edge detect (e) needs a counter mask c of at least 1 on this PMU",
                d.event_name()
            ),
        ));
    }
    Ok(codes)
}

/// Every offered modifier's final value in the fully-qualified string.
fn write_modifiers(st: &State, d: &mut Desc) {
    let reg = st.reg;
    let mut values = [0u64; MODIFIERS.len()];
    values[m::K as usize] = reg.os();
    values[m::U as usize] = reg.usr();
    values[m::E as usize] = reg.edge();
    values[m::I as usize] = reg.inv();
    values[m::C as usize] = reg.cmask();
    values[m::T as usize] = reg.any_thread();
    values[m::LDLAT as usize] = st.ldlat;
    values[m::INTX as usize] = reg.intx();
    values[m::INTXCP as usize] = reg.intxcp();
    values[m::FE_THRES as usize] = 0;
    d.write_fstr_mods(MODIFIERS, |id| values.get(id as usize).copied());
}

/// perf_events encoding: raw type, PERFEVTSEL without the bits the kernel
/// controls, and the extra register in `config1`.
pub(super) fn encode_perf(d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
    let codes = encode(d)?;
    attr.type_ = crate::kernel::PERF_TYPE_RAW;
    let mut reg = PerfEvtSel(codes[0]);
    reg.set_en(0);
    reg.set_int(0);
    reg.set_os(0);
    reg.set_usr(0);
    attr.config = reg.0;
    if let Some(&second) = codes.get(1) {
        let has_ldlat = d
            .umask_attrs()
            .any(|j| d.umask(j).flags() & um_flag::LDLAT != 0);
        if d.event.flags() & ev_flag::OFFCORE != 0 || has_ldlat {
            attr.config1 = second;
        }
    }
    Ok(codes)
}
