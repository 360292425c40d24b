//! The Intel Nehalem/Westmere uncore family: socket-level counters that see
//! every privilege level, modifiers `e i c o` (o: occupancy reset), and a
//! perf_events type read from the kernel's PMU list.

pub(crate) use pfmlib_defs::intel_nhm_unc as defs;

use super::intel_x86::{ev_flag, pmu_flag, um_flag};
use super::{offer_of, Engine, UmaskInfo};
use crate::ctx::Ctx;
use crate::desc::{Attr, AttrRef, Desc, Offer};
use crate::error::{Error, ErrorKind, Result};
use crate::kernel::{perf_attr as pa, PerfAttr};
use crate::model::Os;
use crate::regs::UncPerfEvtSel;
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use defs::MODIFIERS;
use pfmlib_defs::{modifier, FamilyDefs};

mod id {
    use super::{modifier, MODIFIERS};
    pub const E: u64 = modifier(MODIFIERS, "e");
    pub const I: u64 = modifier(MODIFIERS, "i");
    pub const C: u64 = modifier(MODIFIERS, "c");
    pub const O: u64 = modifier(MODIFIERS, "o");
}

/// The engine.
pub(crate) struct NhmUncore;

impl Engine for NhmUncore {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    fn umask_info(&self, _pmu: PmuDesc, _ev: EventDesc, um: UmaskDesc) -> UmaskInfo {
        UmaskInfo {
            code: um.code(),
            is_dfl: um.flags() & um_flag::DFL != 0,
            flags: super::EventFlags::NONE,
        }
    }

    fn raw_umask(&self, pmu: PmuDesc) -> bool {
        pmu.flags() & pmu_flag::RAW_UMASK != 0
    }

    /// With perf_events, libpfm4 drops the hardware attributes with ids 0
    /// and 1 (meant for the core's `k`/`u`, here `e` and `i`), `h`,
    /// `precise`, `hw_smpl`, and — no privilege filtering — `u`, `k`, `mg`, `mh`.
    fn offer(&self, _ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        let no_plm = pmu.supported_plm() == 0;
        offer_of(os, ev.modmsk(), (1 << id::E) | (1 << id::I), |a| {
            !(matches!(a, pa::PRECISE | pa::HW_SMPL | pa::H)
                || (no_plm && matches!(a, pa::U | pa::K | pa::MG | pa::MH)))
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        encode(d)
    }

    /// The uncore PMU's dynamic type, the code without EN/PMI.
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let codes = encode(d)?;
        attr.type_ = super::kernel_type::perf_type(
            ctx,
            d.pmu.perf_name().unwrap_or("uncore"),
            "uncore events",
        )?;
        let mut reg = UncPerfEvtSel(codes[0]);
        reg.set_en(0);
        reg.set_pmi(0);
        attr.config = reg.0;
        Ok(codes)
    }
}

/// What the requested attributes have set.
struct State {
    reg: UncPerfEvtSel,
    umask: u64,
    given: bool,
    last_grp: Option<u32>,
    counts: [u32; 8],
    ncombo: [bool; 8],
}

/// Encodes the uncore PERFEVTSEL and builds the fully-qualified string.
fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let mut st = State {
        reg: UncPerfEvtSel(d.event.code()),
        umask: 0,
        given: false,
        last_grp: None,
        counts: [0; 8],
        ncombo: [false; 8],
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
                st.given = true;
            }
            AttrRef::Mod(m) => apply_modifier(&mut st.reg, d, u64::from(m), a.ival)?,
            AttrRef::Perf(_) => {}
        }
    }
    if !st.given && d.event.ngrp() > 0 {
        add_defaults(&mut st, d)?;
    }
    st.reg.0 |= st.umask << 8;
    st.reg.set_pmi(1);
    st.reg.set_en(1);
    let reg = st.reg;
    d.write_fstr(MODIFIERS, |m| match m {
        id::E => Some(reg.edge()),
        id::I => Some(reg.inv()),
        id::C => Some(reg.cmask()),
        id::O => Some(reg.occ_rst()),
        _ => None,
    });
    Ok(vec![reg.0])
}

fn featcomb(d: &Desc, name: &str, why: &str) -> Error {
    Error::new(
        ErrorKind::FeatureCombination,
        format!(
            "{}: unit mask {name} cannot be combined with {why}",
            d.event_name()
        ),
    )
}

fn apply_umask(st: &mut State, d: &Desc, i: u16) -> Result<()> {
    let um = d.umask(i);
    let g = (um.grp() as usize).min(7);
    if st.last_grp.is_some_and(|l| l != um.grp()) && d.event.flags() & ev_flag::GRP_EXCL != 0 {
        return Err(featcomb(d, um.name(), "unit masks of another group"));
    }
    st.counts[g] += 1;
    if um.flags() & um_flag::NCOMBO != 0 {
        st.ncombo[g] = true;
    }
    if st.counts[g] > 1 && st.ncombo[g] {
        return Err(featcomb(d, um.name(), "another of its group"));
    }
    st.last_grp = Some(um.grp());
    st.umask |= um.code();
    st.given = true;
    Ok(())
}

fn apply_modifier(reg: &mut UncPerfEvtSel, d: &Desc, m: u64, ival: u64) -> Result<()> {
    let on = u64::from(ival != 0);
    match m {
        id::E => reg.set_edge(on),
        id::I => reg.set_inv(on),
        id::O => reg.set_occ_rst(on),
        id::C => {
            if ival > 255 {
                return Err(Error::new(
                    ErrorKind::Invalid,
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

/// The default of each group (only the first, under `grp_excl`).
fn add_defaults(st: &mut State, d: &mut Desc) -> Result<()> {
    let ev = d.event;
    let variant = d.pmu.variant_bit();
    let in_group = |j: usize, g: u32| ev.umask(j).in_variant(variant) && ev.umask(j).grp() == g;
    for g in 0..ev.ngrp() {
        let dfl =
            (0..ev.numasks()).find(|&j| in_group(j, g) && ev.umask(j).flags() & um_flag::DFL != 0);
        let Some(j) = dfl else {
            let names: Vec<&str> = (0..ev.numasks())
                .filter(|&j| in_group(j, g))
                .map(|j| ev.umask(j).name())
                .collect();
            return Err(Error::new(
                ErrorKind::Umask,
                format!(
                    "{} needs a unit mask: one of {}",
                    d.event_name(),
                    names.join(", ")
                ),
            ));
        };
        st.umask |= ev.umask(j).code();
        d.attrs.push(Attr {
            what: AttrRef::Umask(j as u16),
            ival: 0,
        });
        if ev.flags() & ev_flag::GRP_EXCL != 0 {
            break;
        }
    }
    Ok(())
}
