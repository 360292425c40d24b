//! PERFEVTSEL encoding of the x86 core family, in libpfm4's steps
//! (`pfm_intel_x86_encode_gen`): the requested unit masks and modifiers, the
//! checks between them, the default privilege levels and unit masks, then
//! the codes (PERFEVTSEL and the second register: offcore response, load
//! latency or precise front end) and the fully-qualified string.

mod groups;

use super::{
    ev_flag, modifier_id as m, offcore_raw_bits, pmu_flag, um_flag, umask_event_code,
    umask_modifiers_required, umask_req_grp, MODIFIERS,
};
use crate::ctx::Ctx;
use crate::desc::{AttrRef, Desc};
use crate::error::{Error, ErrorKind, Result};
use crate::kernel::PerfAttr;
use crate::model::{Plm, PmuKind};
use crate::regs::{PebsFrontend, PerfEvtSel};
use groups::{add_defaults, check_groups, check_required_groups};

/// Load latency used when a load-latency unit mask is given without `ldlat=`.
const LDLAT_DEFAULT: u64 = 3;
/// Front-end latency threshold used when a `fethr` unit mask is given
/// without `fe_thres=` and hard-wires none.
const FETHR_DEFAULT: u64 = 1;
/// Unit-mask groups one event may have (libpfm4's `INTEL_X86_NUM_GRP`).
const MAX_GROUPS: usize = 8;

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
    /// Modifiers given (ldlat aside, as libpfm4 counts them).
    umodmsk: u32,
    /// Modifiers required by the event and the unit masks given.
    modmsk_req: u32,
    /// Privilege-level modifiers given.
    plmmsk: u32,
    /// Unit masks of groups above this one are excluded (`excl_grp_gt`).
    max_grpid: Option<u32>,
    last_grpid: Option<u32>,
    /// Only group 0 and this group may have unit masks (`excl_grp_but_0`).
    excl_grp_but_0: Option<u32>,
    /// Groups some unit mask given requires (`grp_req`), bit = group.
    req_grps: u32,
    last_ucode: Option<u64>,
    ldlat: u64,
    ldlat_um: bool,
    fe_thr: u64,
    fe_thr_um: bool,
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

/// Encodes the event into PERFEVTSEL (and the offcore-response, load-latency
/// or front-end register) and builds the fully-qualified string.
pub(super) fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let ev = d.event;
    let mut st = State {
        reg: PerfEvtSel(ev.code()),
        umask1: (ev.code() >> 8) & 0xff,
        modmsk_req: super::event_modifiers_required(ev),
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
    check_required_groups(st.req_grps, st.ugrpmsk, d)?;
    check_hardwired(&st, d)?;
    default_plm(&mut st, d);
    let grpmsk = all_groups(ev.ngrp());
    let grp_excl = ev.flags() & ev_flag::GRP_EXCL != 0;
    if (st.ugrpmsk != grpmsk && !grp_excl) || st.ugrpmsk == 0 {
        let missing = st.ugrpmsk ^ grpmsk;
        st.umask2 |= add_defaults(d, missing, st.max_grpid, st.excl_grp_but_0)?;
    }
    check_groups(&st.grpcounts, st.excl_grp_but_0, st.max_grpid, d)?;
    check_required_modifiers(&st, d)?;
    d.write_fstr_umasks();
    frontend_threshold(&mut st, d)?;
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
    if flags & um_flag::GRP_REQ != 0 {
        st.req_grps |= 1 << (umask_req_grp(um).unwrap_or(0) & 31);
    }
    st.ncombo[g] |= flags & um_flag::NCOMBO != 0;
    st.ldlat_um |= flags & um_flag::LDLAT != 0;
    st.fe_thr_um |= flags & um_flag::FETHR != 0;
    if st.grpcounts[g] > 1 && st.ncombo[g] {
        return Err(ncombo_error(d, grp));
    }
    st.last_grpid = Some(grp);
    st.modhw |= um.modhw();
    st.umask2 |= um.code();
    st.ugrpmsk |= 1 << (grp & 31);
    st.modmsk_req |= umask_modifiers_required(um);
    if flags & um_flag::CODE_OVERRIDE != 0 {
        let code = umask_event_code(um);
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

fn ncombo_error(d: &Desc, grp: u32) -> Error {
    let others: Vec<&str> = d
        .umask_attrs()
        .map(|j| d.umask(j))
        .filter(|u| u.grp() == grp)
        .map(|u| u.name())
        .collect();
    featcomb(
        d,
        format!(
            "unit masks {} cannot be combined: one of them must be used alone in its group",
            others.join(" and ")
        ),
    )
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

fn out_of_range(d: &Desc, what: &str, ival: u64, range: &str) -> Error {
    Error::new(
        ErrorKind::AttrValue,
        format!(
            "{what}={ival} of {} is out of range [{range}]",
            d.event_name()
        ),
    )
}

fn apply_modifier(st: &mut State, d: &Desc, id: u64, ival: u64) -> Result<()> {
    let on = u64::from(ival != 0);
    let reg = &mut st.reg;
    match id {
        m::I => reg.set_inv(on),
        m::E => reg.set_edge(on),
        m::C => {
            if ival > 255 {
                return Err(out_of_range(d, "counter mask c", ival, "0-255"));
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
                return Err(out_of_range(d, "load latency ldlat", ival, "1-65535"));
            }
            st.ldlat = ival;
            return Ok(());
        }
        m::INTX => reg.set_intx(on),
        m::INTXCP => reg.set_intxcp(on),
        m::FE_THRES => {
            if !(1..=4095).contains(&ival) {
                return Err(out_of_range(
                    d,
                    "front-end threshold fe_thres",
                    ival,
                    "1-4095",
                ));
            }
            st.fe_thr = ival;
        }
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
            return Err(hardwired_error(d, name, fixed, asked));
        }
    }
    Ok(())
}

fn hardwired_error(d: &Desc, name: &str, fixed: u64, asked: u64) -> Error {
    Error::new(
        ErrorKind::AttrSet,
        format!(
            "{}: the unit mask fixes {name}={fixed}, so {name}={asked} cannot be set",
            d.event_name()
        ),
    )
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

/// The modifiers the event and its unit masks require must be exactly the
/// modifiers given (libpfm4 compares the two masks whole).
fn check_required_modifiers(st: &State, d: &Desc) -> Result<()> {
    if st.modmsk_req == 0 || st.umodmsk == st.modmsk_req {
        return Ok(());
    }
    let names: Vec<&str> = MODIFIERS
        .iter()
        .enumerate()
        .filter(|(id, _)| st.modmsk_req >> id & 1 != 0)
        .map(|(_, md)| md.name)
        .collect();
    Err(Error::new(
        ErrorKind::Attr,
        format!(
            "{} must be given exactly the modifiers {} (and no other hardware modifier)",
            d.event_name(),
            names.join(", ")
        ),
    ))
}

/// Precise front-end events: a `fethr` unit mask takes its latency
/// threshold from `fe_thres=` (or the value it hard-wires, or 1) into the
/// bubble-length field of the front-end register value.
fn frontend_threshold(st: &mut State, d: &Desc) -> Result<()> {
    if d.event.flags() & ev_flag::FRONTEND == 0 || !st.fe_thr_um {
        return Ok(());
    }
    let mut fe = PebsFrontend(st.umask2);
    let um_thr = fe.idq_bubble_length();
    if um_thr != 0 {
        if st.modhw & st.umodmsk & (1 << m::FE_THRES) != 0 {
            if st.fe_thr != um_thr {
                return Err(hardwired_error(d, "fe_thres", um_thr, st.fe_thr));
            }
        } else {
            st.fe_thr = um_thr;
        }
    } else if st.fe_thr == 0 {
        st.fe_thr = FETHR_DEFAULT;
    }
    fe.set_idq_bubble_length(st.fe_thr);
    st.umask2 = fe.0;
    Ok(())
}

/// PERFEVTSEL and the second code (offcore response, precise front end or
/// load latency).
fn codes(st: &mut State, d: &Desc) -> Result<Vec<u64>> {
    let mut codes = Vec::with_capacity(2);
    codes.push(0u64);
    if d.event.flags() & (ev_flag::OFFCORE | ev_flag::FRONTEND) != 0 {
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
    values[m::FE_THRES as usize] = st.fe_thr;
    d.write_fstr_mods(MODIFIERS, |id| values.get(id as usize).copied());
}

/// perf_events encoding. Core PMUs follow libpfm4's
/// `pfm_intel_x86_get_perf_encoding`: the raw type (or the type of the PMU's
/// `perf_name`, when the kernel has it), PERFEVTSEL without the bits the
/// kernel controls, the second register in `config1`. Uncore PMUs of this
/// engine (libpfm4's Sandy Bridge and Ivy Bridge client uncore) follow
/// `pfm_intel_nhm_unc_get_perf_encoding`: the type of `perf_name` or an
/// error, and only EN and INT cleared.
pub(super) fn encode_perf(ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
    let codes = encode(d)?;
    let mut reg = PerfEvtSel(codes[0]);
    reg.set_en(0);
    reg.set_int(0);
    if d.pmu.kind() == PmuKind::Uncore {
        attr.type_ = uncore_perf_type(ctx, d)?;
        attr.config = reg.0;
        return Ok(codes);
    }
    // libpfm4 keeps the raw type only when the name is "not supported";
    // any other negative number read becomes the type as it is.
    attr.type_ = match d.pmu.perf_name().map(|name| perf_type(ctx, name)) {
        Some(Ok(t)) => t,
        Some(Err(Some(v))) => v as u32,
        None | Some(Err(None)) => crate::kernel::PERF_TYPE_RAW,
    };
    reg.set_os(0);
    reg.set_usr(0);
    attr.config = reg.0;
    if let Some(&second) = codes.get(1) {
        let has_ldlat = d
            .umask_attrs()
            .any(|j| d.umask(j).flags() & um_flag::LDLAT != 0);
        if d.event.flags() & (ev_flag::OFFCORE | ev_flag::FRONTEND) != 0 || has_ldlat {
            attr.config1 = second;
        }
    }
    Ok(codes)
}

/// The perf_events type of an uncore PMU: its `perf_name`'s, or libpfm4's
/// error (not supported; a negative number read is returned as the error).
fn uncore_perf_type(ctx: &Ctx, d: &Desc) -> Result<u32> {
    let not_supported = || {
        Error::new(
            ErrorKind::NotSupported,
            format!(
                "the kernel exposes no perf_events PMU for {} (no readable type under {})",
                d.pmu.name(),
                crate::host::EVENT_SOURCES
            ),
        )
    };
    let name = d.pmu.perf_name().ok_or_else(not_supported)?;
    match perf_type(ctx, name) {
        Ok(t) => Ok(t),
        Err(None) => Err(not_supported()),
        Err(Some(v)) => Err(Error::new(
            ErrorKind::from_code(v).unwrap_or(ErrorKind::NotSupported),
            format!("the perf_events type of {name} reads as {v}"),
        )),
    }
}

/// The type number of perf_events PMU `name`, as libpfm4's
/// `find_pmu_type_by_name` reads it (`fscanf("%d")`): `Err(None)` where it
/// reports "not supported" (no file, no number, or -1), `Err(Some(v))` for
/// another negative number.
fn perf_type(ctx: &Ctx, name: &str) -> std::result::Result<u32, Option<i32>> {
    match crate::pmu::kernel_type::kernel_pmu_type(&ctx.host, name) {
        None | Some(-1) => Err(None),
        Some(v) if v < 0 => Err(Some(v)),
        Some(v) => Ok(v as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::Offer;
    use crate::host::Host;
    use crate::library::Library;
    use crate::model::{Os, Vendor};
    use crate::tables::PmuDesc;

    fn nhm_desc(event: &str) -> Desc {
        let pmu = PmuDesc::by_name("nhm").expect("nhm table");
        let ev = pmu.find_event(event, |_| true).expect("event");
        Desc::new(pmu, ev, Os::None, Plm::DEFAULT, Offer::default())
    }

    #[test]
    fn required_groups() {
        let d = nhm_desc("ARITH");
        assert!(check_required_groups(0b01, 0b11, &d).is_ok());
        assert!(check_required_groups(0, 0, &d).is_ok());
        let e = check_required_groups(0b110, 0b011, &d).expect_err("group 2 missing");
        assert_eq!(e.kind(), ErrorKind::FeatureCombination);
    }

    /// libpfm4 compares the required modifiers with the given ones whole:
    /// one missing or one more is an attribute error.
    #[test]
    fn required_modifiers_are_exact() {
        let d = nhm_desc("ARITH");
        let req = 1 << m::FE_THRES;
        let st = |umodmsk| State {
            modmsk_req: req,
            umodmsk,
            ..State::default()
        };
        assert!(check_required_modifiers(&st(req), &d).is_ok());
        assert!(check_required_modifiers(&State::default(), &d).is_ok());
        for given in [0, req | 1 << m::C, 1 << m::C] {
            let e = check_required_modifiers(&st(given), &d).expect_err("not exact");
            assert_eq!(e.kind(), ErrorKind::Attr);
        }
    }

    #[test]
    fn perf_type_reads_like_fscanf() {
        let ctx_for = |text: &str| {
            Library::with_host(
                Host::synthetic(Vendor::Intel, 6, 26)
                    .with_file("/sys/bus/event_source/devices/power/type", text),
            )
        };
        for (text, want) in [
            ("12\n", Ok(12)),
            ("  7 junk", Ok(7)),
            ("-1", Err(None)),
            ("-5", Err(Some(-5))),
            ("x1", Err(None)),
            ("", Err(None)),
        ] {
            let lib = ctx_for(text);
            assert_eq!(perf_type(lib.ctx(), "power"), want, "{text:?}");
        }
        let lib = ctx_for("1");
        assert_eq!(perf_type(lib.ctx(), "absent"), Err(None));
    }
}
