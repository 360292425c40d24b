//! The AMD64 core family (`PERF_CTL` layout): unit-mask groups and
//! defaults, modifiers `k u e i c h g`, 12-bit event selects.

pub(crate) use crate::defs::amd64 as defs;

use super::{offer_of, Engine, UmaskInfo};
use crate::ctx::Ctx;
use crate::defs::{bit, modifier, FamilyDefs};
use crate::desc::{Attr, AttrRef, Desc, Offer};
use crate::error::{Error, ErrorKind, Result};
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::{Os, Plm};
use crate::regs::AmdPerfCtl;
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use defs::{MODIFIERS, PMU_FLAGS as PF, UMASK_FLAGS as UF};

const RAW_UMASK: u32 = bit(PF, "raw_umask");
const PERF_NO_H: u32 = bit(PF, "perf_no_h");
const DFL: u32 = bit(UF, "dfl");
const NCOMBO: u32 = bit(UF, "ncombo");
const OMIT: u32 = bit(UF, "omit");

mod id {
    use super::{modifier, MODIFIERS};
    pub const K: u64 = modifier(MODIFIERS, "k");
    pub const U: u64 = modifier(MODIFIERS, "u");
    pub const E: u64 = modifier(MODIFIERS, "e");
    pub const I: u64 = modifier(MODIFIERS, "i");
    pub const C: u64 = modifier(MODIFIERS, "c");
    pub const H: u64 = modifier(MODIFIERS, "h");
    pub const G: u64 = modifier(MODIFIERS, "g");
}

/// The engine.
pub(crate) struct Amd64;

impl Engine for Amd64 {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    fn umask_info(&self, _pmu: PmuDesc, _ev: EventDesc, um: UmaskDesc) -> UmaskInfo {
        UmaskInfo {
            code: um.code(),
            is_dfl: um.flags() & DFL != 0,
            flags: super::EventFlags::NONE,
        }
    }

    fn raw_umask(&self, pmu: PmuDesc) -> bool {
        pmu.flags() & RAW_UMASK != 0
    }

    /// With perf_events: `k u h` are the OS layer's, there is no precise or
    /// hardware sampling, and some models have no perf `h`.
    fn offer(&self, _ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        let no_h = pmu.flags() & PERF_NO_H != 0;
        let drop = (1 << id::K) | (1 << id::U) | (1 << id::H);
        offer_of(os, ev.modmsk(), drop, |a| {
            !(a == pa::PRECISE || a == pa::HW_SMPL || (no_h && a == pa::H))
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        encode(d)
    }

    /// Raw type, PERF_CTL without what the kernel controls.
    fn encode_perf(&self, _ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let codes = encode(d)?;
        let mut reg = AmdPerfCtl(codes[0]);
        reg.set_en(0);
        reg.set_int(0);
        reg.set_os(0);
        reg.set_usr(0);
        reg.set_guest_only(0);
        reg.set_host_only(0);
        attr.type_ = PERF_TYPE_RAW;
        attr.config = reg.0;
        Ok(codes)
    }
}

/// What the requested attributes have set.
struct State {
    reg: AmdPerfCtl,
    umask: u64,
    ugrpmsk: u32,
    plm_given: bool,
    ncombo: [bool; 8],
    counts: [u32; 8],
}

/// Encodes PERF_CTL and builds the fully-qualified string.
fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let ev = d.event;
    let mut st = State {
        reg: AmdPerfCtl::default(),
        umask: 0,
        ugrpmsk: 0,
        plm_given: false,
        ncombo: [false; 8],
        counts: [0; 8],
    };
    for k in 0..d.attrs.len() {
        let a = d.attrs[k];
        match a.what {
            AttrRef::Umask(i) => apply_umask(&mut st, d, i)?,
            AttrRef::Raw(v) => {
                if v > 0xff {
                    return Err(Error::new(
                        ErrorKind::Attr,
                        format!(
                            "raw unit mask {v:#x} of {} is wider than 8 bits",
                            d.event_name()
                        ),
                    ));
                }
                st.umask = v;
                st.ugrpmsk = if ev.ngrp() == 0 {
                    0
                } else {
                    (1 << ev.ngrp()) - 1
                };
            }
            AttrRef::Mod(m) => apply_modifier(&mut st, d, u64::from(m), a.ival)?,
            AttrRef::Perf(_) => {}
        }
    }
    if !st.plm_given {
        st.reg.set_os(d.dfl_plm.contains(Plm::PLM0) as u64);
        st.reg.set_usr(d.dfl_plm.contains(Plm::PLM3) as u64);
        st.reg.set_host_only(d.dfl_plm.contains(Plm::PLMH) as u64);
    }
    add_defaults(&mut st, d)?;
    let reg = &mut st.reg;
    reg.set_event_lo(ev.code() & 0xff);
    reg.set_event_hi((ev.code() >> 8) & 0xf);
    reg.set_unit_mask(st.umask);
    reg.set_int(1);
    reg.set_en(1);
    let reg = *reg;
    d.write_fstr(MODIFIERS, |m| match m {
        id::K => Some(reg.os()),
        id::U => Some(reg.usr()),
        id::E => Some(reg.edge()),
        id::I => Some(reg.inv()),
        id::C => Some(reg.cmask()),
        id::H => Some(reg.host_only()),
        id::G => Some(reg.guest_only()),
        _ => None,
    });
    Ok(vec![reg.0])
}

fn apply_umask(st: &mut State, d: &Desc, i: u16) -> Result<()> {
    let um = d.umask(i);
    let g = (um.grp() as usize).min(7);
    st.counts[g] += 1;
    if um.flags() & NCOMBO != 0 {
        st.ncombo[g] = true;
    }
    if st.counts[g] > 1 && st.ncombo[g] {
        return Err(Error::new(
            ErrorKind::FeatureCombination,
            format!(
                "{}: unit mask {} cannot be combined with another of its group",
                d.event_name(),
                um.name()
            ),
        ));
    }
    st.umask |= um.code();
    st.ugrpmsk |= 1 << um.grp();
    Ok(())
}

fn apply_modifier(st: &mut State, d: &Desc, m: u64, ival: u64) -> Result<()> {
    let on = u64::from(ival != 0);
    let reg = &mut st.reg;
    match m {
        id::K | id::U | id::H => {
            match m {
                id::K => reg.set_os(on),
                id::U => reg.set_usr(on),
                _ => reg.set_host_only(on),
            }
            st.plm_given = true;
        }
        id::G => reg.set_guest_only(on),
        id::E => reg.set_edge(on),
        id::I => reg.set_inv(on),
        id::C => {
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
        _ => {}
    }
    Ok(())
}

/// Every group without a unit mask gets its defaults (all of them), unless
/// all its unit masks may be left out.
fn add_defaults(st: &mut State, d: &mut Desc) -> Result<()> {
    let ev = d.event;
    let variant = d.pmu.variant_bit();
    for g in 0..ev.ngrp() {
        if st.ugrpmsk & (1 << g) != 0 {
            continue;
        }
        let members: Vec<usize> = (0..ev.numasks())
            .filter(|&j| ev.umask(j).in_variant(variant) && ev.umask(j).grp() == g)
            .collect();
        let dfl: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&j| ev.umask(j).flags() & DFL != 0)
            .collect();
        if dfl.is_empty() {
            if members.iter().all(|&j| ev.umask(j).flags() & OMIT != 0) {
                continue;
            }
            let names: Vec<&str> = members.iter().map(|&j| ev.umask(j).name()).collect();
            return Err(Error::new(
                ErrorKind::Umask,
                format!(
                    "{} needs a unit mask: one or more of {}",
                    d.event_name(),
                    names.join(", ")
                ),
            ));
        }
        for j in dfl {
            st.umask |= ev.umask(j).code();
            d.attrs.push(Attr {
                what: AttrRef::Umask(j as u16),
                ival: 0,
            });
        }
    }
    Ok(())
}
