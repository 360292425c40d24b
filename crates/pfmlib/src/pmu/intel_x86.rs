//! The Intel x86 core engine: unit-mask groups and defaults, hardware
//! modifiers, PERFEVTSEL encoding and the fully-qualified string, shared by
//! every Intel core PMU table (Nehalem, Westmere, the architectural PMU...).

use crate::error::{Error, ErrorKind, Result};
use crate::event::{Desc, PAttr};
use crate::model::{AttrCtrl, AttrType, Os, Plm, Speculation};
use crate::registry::Library;
use crate::regs::PerfEvtSel;
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};

/// PMU flags (bit order of `build.rs`).
pub(crate) mod pmu_flag {
    pub const RAW_UMASK: u32 = 1 << 0;
    pub const ECMASK: u32 = 1 << 1;
    pub const SPEC: u32 = 1 << 2;
    pub const EXTPEBS: u32 = 1 << 3;
    pub const ARCH: u32 = 1 << 4;
}

/// Event flags.
pub(crate) mod ev_flag {
    pub const PEBS: u32 = 1 << 0;
    pub const GRP_EXCL: u32 = 1 << 1;
    pub const OFFCORE: u32 = 1 << 2;
    pub const SPEC: u32 = 1 << 3;
}

/// Unit-mask flags.
pub(crate) mod um_flag {
    pub const DFL: u32 = 1 << 0;
    pub const PEBS: u32 = 1 << 1;
    pub const NCOMBO: u32 = 1 << 2;
    pub const EXCL_GRP_GT: u32 = 1 << 3;
    pub const GRP_DFL_NONE: u32 = 1 << 4;
    pub const LDLAT: u32 = 1 << 5;
    pub const EXCL_GRP_BUT_0: u32 = 1 << 7;
    pub const CODE_OVERRIDE: u32 = 1 << 8;
}

/// Hardware modifier ids (their attribute code and bit in an event's modifier mask).
pub(crate) mod modifier {
    pub const K: u64 = 0;
    pub const U: u64 = 1;
    pub const E: u64 = 2;
    pub const I: u64 = 3;
    pub const C: u64 = 4;
    pub const T: u64 = 5;
    pub const LDLAT: u64 = 6;
    pub const INTX: u64 = 7;
    pub const INTXCP: u64 = 8;
    pub const FE_THRES: u64 = 9;
}

/// Name, description and type of each hardware modifier, by id.
const MODIFIERS: [(&str, &str, AttrType); 10] = [
    (
        "k",
        "count at privilege level 0 (kernel)",
        AttrType::ModBool,
    ),
    (
        "u",
        "count at privilege levels 1, 2 and 3 (user)",
        AttrType::ModBool,
    ),
    (
        "e",
        "edge detect: count 0-to-1 transitions (may need a counter mask of at least 1)",
        AttrType::ModBool,
    ),
    ("i", "invert the counter-mask comparison", AttrType::ModBool),
    (
        "c",
        "counter mask: count cycles with at least this many occurrences [0-255]",
        AttrType::ModInteger,
    ),
    (
        "t",
        "count occurrences of both hardware threads of the core",
        AttrType::ModBool,
    ),
    (
        "ldlat",
        "load latency threshold in core cycles [1-65535], 3 when not given",
        AttrType::ModInteger,
    ),
    (
        "intx",
        "count only inside transactional regions",
        AttrType::ModBool,
    ),
    (
        "intxcp",
        "leave out occurrences in aborted transactional regions",
        AttrType::ModBool,
    ),
    (
        "fe_thres",
        "front-end bubble latency threshold in cycles [1-4095]",
        AttrType::ModInteger,
    ),
];

/// `:name=` of each hardware modifier, by id, for fully-qualified strings.
const MOD_SETTING: [&str; 10] = [
    ":k=",
    ":u=",
    ":e=",
    ":i=",
    ":c=",
    ":t=",
    ":ldlat=",
    ":intx=",
    ":intxcp=",
    ":fe_thres=",
];

/// Load latency used when a load-latency unit mask is given without `ldlat=`.
const LDLAT_DEFAULT: u64 = 3;
const MAX_GROUPS: usize = 16;

/// Modifier mask of an event on this host. The architectural PMU adds
/// modifiers by perfmon version as libpfm4 does: version 3 adds `t`,
/// version 4 adds `t`, `intx` and `intxcp`, other versions add nothing.
fn modmsk(lib: &Library, pmu: &PmuDesc, ev: &EventDesc) -> u32 {
    let mut m = ev.modmsk;
    if pmu.flags & pmu_flag::ARCH != 0 {
        match lib.host().arch_perfmon.map(|a| a.version()) {
            Some(3) => m |= 1 << modifier::T,
            Some(4) => m |= (1 << modifier::T) | (1 << modifier::INTX) | (1 << modifier::INTXCP),
            _ => {}
        }
    }
    m
}

fn speculation(pmu: &PmuDesc, ev: &EventDesc) -> Speculation {
    if pmu.flags & pmu_flag::SPEC == 0 {
        Speculation::NotAvailable
    } else if ev.flags & ev_flag::SPEC != 0 {
        Speculation::Speculative
    } else {
        Speculation::NonSpeculative
    }
}

/// (is_precise, speculation, support_hw_smpl) of an event.
pub(crate) fn event_flags(pmu: &PmuDesc, ev: &EventDesc) -> (bool, Speculation, bool) {
    let precise = ev.flags & ev_flag::PEBS != 0;
    let hw = precise || pmu.flags & pmu_flag::EXTPEBS != 0;
    (precise, speculation(pmu, ev), hw)
}

/// The unit masks, then the modifiers, of an event.
pub(crate) fn pmu_attrs(lib: &Library, pmu: &PmuDesc, event: usize) -> Vec<PAttr> {
    pmu_attrs_except(lib, pmu, event, 0)
}

/// [`pmu_attrs`] without the modifiers in `left_out` (bit = modifier id).
fn pmu_attrs_except(lib: &Library, pmu: &PmuDesc, event: usize, left_out: u32) -> Vec<PAttr> {
    let ev = &pmu.events[event];
    let extpebs = pmu.flags & pmu_flag::EXTPEBS != 0;
    let spec = speculation(pmu, ev);
    // Room for the modifiers, the OS attributes and a raw unit mask too.
    let mut v = crate::event::pattrs_with_capacity(ev.umasks.len() + MODIFIERS.len() + 16);
    for (i, um) in ev.umasks.iter().enumerate() {
        let precise = um.flags & um_flag::PEBS != 0;
        v.push(PAttr {
            name: um.name,
            desc: um.desc,
            equiv: um.equiv,
            code: if um.flags & um_flag::CODE_OVERRIDE != 0 {
                um.code << 8
            } else {
                um.code
            },
            ty: AttrType::Umask,
            ctrl: AttrCtrl::Pmu,
            idx: i as u64,
            is_dfl: um.flags & um_flag::DFL != 0,
            is_precise: precise,
            spec,
            hw_smpl: precise || extpebs,
        });
    }
    let m = modmsk(lib, pmu, ev) & !left_out;
    for (id, (name, desc, ty)) in MODIFIERS.iter().enumerate() {
        if m & (1 << id) != 0 {
            v.push(PAttr {
                name,
                desc,
                equiv: None,
                code: id as u64,
                ty: *ty,
                ctrl: AttrCtrl::Pmu,
                idx: id as u64,
                is_dfl: false,
                is_precise: false,
                spec: Speculation::NotAvailable,
                hw_smpl: false,
            });
        }
    }
    v
}

/// With perf_events, drops what the OS layer controls or the PMU cannot do:
/// `u`/`k` (perf's exclude bits), `h` (no hypervisor level on Intel),
/// `precise` unless the event has PEBS, `hw_smpl` unless extended PEBS.
pub(crate) fn validate_pattrs(pmu: &PmuDesc, event: usize, os: Os, v: &mut Vec<PAttr>) {
    if os == Os::None {
        return;
    }
    let keep = perf_attr_filter(pmu, event);
    v.retain(|p| match (p.ctrl, p.ty) {
        (_, AttrType::Umask) => true,
        (AttrCtrl::Pmu, _) => p.idx != modifier::U && p.idx != modifier::K,
        (AttrCtrl::PerfEvent, _) => keep(p.idx),
    });
}

/// Which perf_events attributes (by id) an event keeps: `precise` only with
/// PEBS, `hw_smpl` only with extended PEBS and no PEBS, never `h`, and no
/// privilege-level filters on a PMU without any.
fn perf_attr_filter(pmu: &PmuDesc, event: usize) -> impl Fn(u64) -> bool + '_ {
    let ev = &pmu.events[event];
    let has_pebs =
        ev.flags & ev_flag::PEBS != 0 || ev.umasks.iter().any(|u| u.flags & um_flag::PEBS != 0);
    let has_hws = pmu.flags & pmu_flag::EXTPEBS != 0;
    use crate::os::perf_attr as pa;
    move |idx| {
        !((idx == pa::PRECISE && !has_pebs)
            || (idx == pa::HW_SMPL && (!has_hws || has_pebs))
            || idx == pa::H
            || (pmu.supported_plm == 0 && matches!(idx, pa::U | pa::K | pa::MG | pa::MH)))
    }
}

/// The attributes an event offers for `os`, in one pass: the same list as
/// [`pmu_attrs`], then the OS attributes, then [`validate_pattrs`], without
/// building the entries that validation would drop.
pub(crate) fn pattrs_for_os(lib: &Library, pmu: &PmuDesc, event: usize, os: Os) -> Vec<PAttr> {
    if os == Os::None {
        return pmu_attrs(lib, pmu, event);
    }
    let mut v = pmu_attrs_except(lib, pmu, event, (1 << modifier::U) | (1 << modifier::K));
    crate::os::append_os_attrs_where(os, &mut v, perf_attr_filter(pmu, event));
    v
}

fn featcomb(d: &Desc, why: String) -> Error {
    Error::new(
        ErrorKind::FeatureCombination,
        format!("{}: {why}", d.event_name()),
    )
}

/// Encodes the event into PERFEVTSEL (and the offcore-response or
/// load-latency register) and builds the fully-qualified string.
pub(crate) fn encode(_lib: &Library, d: &mut Desc) -> Result<Vec<u64>> {
    let pmu = d.pmu;
    let ev: &EventDesc = &pmu.events[d.event];
    let umasks: &[UmaskDesc] = ev.umasks;

    let mut reg = PerfEvtSel(ev.code);
    let grpmsk: u32 = if ev.ngrp == 0 {
        0
    } else {
        (1u32 << ev.ngrp) - 1
    };
    let umask1 = (ev.code >> 8) & 0xff;
    let mut umask2: u64 = 0;
    let mut ugrpmsk: u32 = 0;
    let mut modhw: u32 = 0;
    let mut umodmsk: u32 = 0;
    let mut plmmsk: u32 = 0;
    let mut max_grpid: Option<u32> = None;
    let mut last_grpid: Option<u32> = None;
    let mut excl_grp_but_0: Option<u32> = None;
    let mut last_ucode: Option<u64> = None;
    let mut ldlat: u64 = 0;
    let mut ldlat_um = false;
    let mut grpcounts = [0u32; MAX_GROUPS];
    let mut ncombo = [false; MAX_GROUPS];

    for k in 0..d.attrs.len() {
        let pa = *d.pattr(k);
        if pa.ctrl != AttrCtrl::Pmu {
            continue;
        }
        let ival = d.attrs[k].ival;
        match pa.ty {
            AttrType::Umask => {
                let um = &umasks[pa.idx as usize];
                let grp = um.grp;
                let g = (grp as usize).min(MAX_GROUPS - 1);
                if last_grpid.is_some_and(|l| l != grp) && ev.flags & ev_flag::GRP_EXCL != 0 {
                    return Err(featcomb(
                        d,
                        format!(
                            "unit mask {} cannot be combined with unit masks of another group",
                            um.name
                        ),
                    ));
                }
                if um.flags & um_flag::EXCL_GRP_GT != 0 {
                    max_grpid = Some(grp);
                }
                if um.flags & um_flag::EXCL_GRP_BUT_0 != 0 {
                    excl_grp_but_0 = Some(grp);
                }
                grpcounts[g] += 1;
                if um.flags & um_flag::NCOMBO != 0 {
                    ncombo[g] = true;
                }
                if um.flags & um_flag::LDLAT != 0 {
                    ldlat_um = true;
                }
                if grpcounts[g] > 1 && ncombo[g] {
                    let others: Vec<&str> = d
                        .attrs
                        .iter()
                        .map(|a| &d.pattrs[a.id])
                        .filter(|p| p.ctrl == AttrCtrl::Pmu && p.ty == AttrType::Umask)
                        .filter(|p| umasks[p.idx as usize].grp == grp)
                        .map(|p| p.name)
                        .collect();
                    return Err(featcomb(
                        d,
                        format!(
                            "unit masks {} cannot be combined: one of them must be used alone in its group",
                            others.join(" and ")
                        ),
                    ));
                }
                last_grpid = Some(grp);
                modhw |= um.modhw;
                umask2 |= um.code;
                ugrpmsk |= 1 << grp;
                if um.flags & um_flag::CODE_OVERRIDE != 0 {
                    let code = um.code & 0xff;
                    if last_ucode.is_some_and(|l| l != code) {
                        return Err(featcomb(
                            d,
                            format!("unit mask {} overrides the event code differently", um.name),
                        ));
                    }
                    last_ucode = Some(code);
                    reg.set_event_select(code);
                }
            }
            AttrType::RawUmask => {
                let bits = if ev.flags & ev_flag::OFFCORE != 0 {
                    pmu.offcore_raw_bits
                } else {
                    8
                };
                let mask = if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                if pa.idx & !mask != 0 {
                    return Err(Error::new(
                        ErrorKind::Attr,
                        format!(
                            "raw unit mask {:#x} of {} is wider than {bits} bits",
                            pa.idx,
                            d.event_name()
                        ),
                    ));
                }
                umask2 = pa.idx & mask;
                ugrpmsk = grpmsk;
            }
            AttrType::ModBool | AttrType::ModInteger => match pa.idx {
                modifier::I => {
                    reg.set_inv((ival != 0) as u64);
                    umodmsk |= 1 << modifier::I;
                }
                modifier::E => {
                    reg.set_edge((ival != 0) as u64);
                    umodmsk |= 1 << modifier::E;
                }
                modifier::C => {
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
                    umodmsk |= 1 << modifier::C;
                }
                modifier::U => {
                    reg.set_usr((ival != 0) as u64);
                    plmmsk |= 1 << modifier::U;
                    umodmsk |= 1 << modifier::U;
                }
                modifier::K => {
                    reg.set_os((ival != 0) as u64);
                    plmmsk |= 1 << modifier::K;
                    umodmsk |= 1 << modifier::K;
                }
                modifier::T => {
                    reg.set_any_thread((ival != 0) as u64);
                    umodmsk |= 1 << modifier::T;
                }
                modifier::LDLAT => {
                    if !(1..=65535).contains(&ival) {
                        return Err(Error::new(
                            ErrorKind::AttrValue,
                            format!(
                                "load latency ldlat={ival} of {} is out of range [1-65535]",
                                d.event_name()
                            ),
                        ));
                    }
                    ldlat = ival;
                }
                modifier::INTX => {
                    reg.set_intx((ival != 0) as u64);
                    umodmsk |= 1 << modifier::INTX;
                }
                modifier::INTXCP => {
                    reg.set_intxcp((ival != 0) as u64);
                    umodmsk |= 1 << modifier::INTXCP;
                }
                _ => {}
            },
        }
    }

    // A modifier hard-wired by a unit mask may be repeated only with the same value.
    let hw = PerfEvtSel((umask1 | umask2) << 8);
    let checks: [(u64, &str, u64, u64); 8] = [
        (modifier::I, "i", hw.inv(), reg.inv()),
        (modifier::E, "e", hw.edge(), reg.edge()),
        (modifier::C, "c", hw.cmask(), reg.cmask()),
        (modifier::U, "u", hw.usr(), reg.usr()),
        (modifier::K, "k", hw.os(), reg.os()),
        (modifier::T, "t", hw.any_thread(), reg.any_thread()),
        (modifier::INTX, "intx", hw.intx(), reg.intx()),
        (modifier::INTXCP, "intxcp", hw.intxcp(), reg.intxcp()),
    ];
    for (id, name, fixed, asked) in checks {
        if modhw & umodmsk & (1 << id) != 0 && fixed != asked {
            return Err(Error::new(
                ErrorKind::AttrSet,
                format!(
                    "{}: the unit mask fixes {name}={fixed}, so {name}={asked} cannot be set",
                    d.event_name()
                ),
            ));
        }
    }

    // No privilege-level modifier given: use the default levels the PMU supports.
    if plmmsk & ((1 << modifier::K) | (1 << modifier::U)) == 0 {
        if d.dfl_plm.contains(Plm::PLM0) && pmu.supported_plm & Plm::PLM0.bits() != 0 {
            reg.set_os(1);
        }
        if d.dfl_plm.contains(Plm::PLM3) && pmu.supported_plm & Plm::PLM3.bits() != 0 {
            reg.set_usr(1);
        }
    }

    // Every unit-mask group needs a unit mask: add the defaults.
    if (ugrpmsk != grpmsk && ev.flags & ev_flag::GRP_EXCL == 0) || ugrpmsk == 0 {
        add_defaults(d, ugrpmsk ^ grpmsk, &mut umask2, max_grpid, excl_grp_but_0)?;
    }

    if let Some(g) = excl_grp_but_0 {
        for (k, &n) in grpcounts.iter().enumerate().skip(1) {
            if n > 0 && k as u32 != g {
                return Err(featcomb(
                    d,
                    format!("unit masks of group {k} cannot be combined with those of group {g}"),
                ));
            }
        }
    }

    if let Some(max) = max_grpid {
        for a in &d.attrs {
            let p = &d.pattrs[a.id];
            if p.ctrl == AttrCtrl::Pmu
                && p.ty == AttrType::Umask
                && umasks[p.idx as usize].grp > max
            {
                return Err(featcomb(
                    d,
                    format!(
                        "unit mask {} cannot be used with the unit masks chosen before it",
                        p.name
                    ),
                ));
            }
        }
    }

    // Fully-qualified string: event, unit masks in table order, modifiers.
    let name = ev.name;
    d.fstr.clear();
    d.push_fstr(name);
    d.sort_attrs();
    for k in 0..d.attrs.len() {
        let p = *d.pattr(k);
        if p.ctrl != AttrCtrl::Pmu {
            continue;
        }
        match p.ty {
            AttrType::Umask => d.push_fstr_attr(p.name),
            AttrType::RawUmask => d.push_fstr(&format!(":0x{:x}", p.idx as u32)),
            _ => {}
        }
    }

    let mut codes = vec![0u64];
    if ev.flags & ev_flag::OFFCORE != 0 {
        codes.push(umask2);
        umask2 = 0;
    }
    if ldlat != 0 && !ldlat_um {
        return Err(Error::new(
            ErrorKind::Attr,
            format!("{}: ldlat= needs a load-latency unit mask", d.event_name()),
        ));
    }
    if ldlat_um && ldlat == 0 {
        ldlat = LDLAT_DEFAULT;
    }
    if ldlat_um {
        codes.truncate(1);
        codes.push(ldlat);
    }

    reg.0 |= (umask1 | umask2) << 8;
    reg.set_en(1);
    reg.set_int(1);
    codes[0] = reg.0;

    if pmu.flags & pmu_flag::ECMASK != 0 && reg.edge() != 0 && reg.cmask() == 0 {
        return Err(Error::new(
            ErrorKind::Attr,
            format!(
                "{}: edge detect (e) needs a counter mask c of at least 1 on this PMU",
                d.event_name()
            ),
        ));
    }

    // Every modifier's final value, by modifier id (a table, not a match:
    // no indirect jump per modifier).
    let mut values = [0u64; MODIFIERS.len()];
    values[modifier::K as usize] = reg.os();
    values[modifier::U as usize] = reg.usr();
    values[modifier::E as usize] = reg.edge();
    values[modifier::I as usize] = reg.inv();
    values[modifier::C as usize] = reg.cmask();
    values[modifier::T as usize] = reg.any_thread();
    values[modifier::LDLAT as usize] = ldlat;
    values[modifier::INTX as usize] = reg.intx();
    values[modifier::INTXCP as usize] = reg.intxcp();
    values[modifier::FE_THRES as usize] = 0;
    for i in 0..d.pattrs.len() {
        let p = &d.pattrs[i];
        if p.ctrl != AttrCtrl::Pmu || p.ty == AttrType::Umask || p.ty == AttrType::RawUmask {
            continue;
        }
        let id = p.idx as usize;
        if let (Some(&v), Some(setting)) = (values.get(id), MOD_SETTING.get(id)) {
            d.push_fstr_setting(setting, v);
        }
    }
    Ok(codes)
}

/// Adds the default unit mask of every group in `missing` (a group bit mask).
fn add_defaults(
    d: &mut Desc,
    missing: u32,
    umask: &mut u64,
    mut max_grpid: Option<u32>,
    excl_grp_but_0: Option<u32>,
) -> Result<()> {
    let ev = &d.pmu.events[d.event];
    for g in 0..32u32 {
        if missing & (1 << g) == 0 {
            continue;
        }
        let mut added = false;
        let mut skip = false;
        for j in 0..d.pattrs.len() {
            let p = d.pattrs[j];
            if p.ctrl != AttrCtrl::Pmu || p.ty != AttrType::Umask {
                continue;
            }
            let um = &ev.umasks[p.idx as usize];
            if um.grp != g {
                continue;
            }
            if max_grpid.is_some_and(|m| g > m) {
                skip = true;
                continue;
            }
            if um.flags & um_flag::GRP_DFL_NONE != 0 {
                skip = true;
                continue;
            }
            if excl_grp_but_0.is_some_and(|e| um.grp != 0 && e != um.grp) {
                skip = true;
                continue;
            }
            if um.flags & um_flag::DFL != 0 {
                *umask |= um.code;
                d.attrs.push(crate::event::Attr { id: j, ival: 0 });
                added = true;
                if ev.flags & ev_flag::GRP_EXCL != 0 {
                    return Ok(());
                }
                if um.flags & um_flag::EXCL_GRP_GT != 0 {
                    if max_grpid.is_some() {
                        return Err(Error::new(
                            ErrorKind::Umask,
                            format!("{}: conflicting default unit masks", d.event_name()),
                        ));
                    }
                    max_grpid = Some(um.grp);
                }
            }
        }
        if !added && !skip {
            let choices: Vec<&str> = ev
                .umasks
                .iter()
                .filter(|u| u.grp == g)
                .map(|u| u.name)
                .collect();
            return Err(Error::new(
                ErrorKind::Umask,
                format!(
                    "{} needs a unit mask{}: one of {}",
                    d.event_name(),
                    if ev.ngrp > 1 {
                        format!(" from group {g}")
                    } else {
                        String::new()
                    },
                    choices.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// perf_events encoding: raw type, PERFEVTSEL without the bits the kernel
/// controls, and the extra register in `config1`.
pub(crate) fn encode_perf(
    lib: &Library,
    d: &mut Desc,
    attr: &mut crate::os::PerfAttr,
) -> Result<Vec<u64>> {
    let codes = encode(lib, d)?;
    let ev = &d.pmu.events[d.event];
    attr.type_ = 4; // PERF_TYPE_RAW
    let mut reg = PerfEvtSel(codes[0]);
    reg.set_en(0);
    reg.set_int(0);
    reg.set_os(0);
    reg.set_usr(0);
    attr.config = reg.0;
    if codes.len() > 1 {
        let has_ldlat = d.attrs.iter().any(|a| {
            let p = &d.pattrs[a.id];
            p.ctrl == AttrCtrl::Pmu
                && p.ty == AttrType::Umask
                && ev.umasks[p.idx as usize].flags & um_flag::LDLAT != 0
        });
        if ev.flags & ev_flag::OFFCORE != 0 || has_ldlat {
            attr.config1 = codes[1];
        }
    }
    Ok(codes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_name_the_modifiers() {
        for (id, (name, ..)) in MODIFIERS.iter().enumerate() {
            assert_eq!(MOD_SETTING[id], format!(":{name}="));
        }
    }
}
