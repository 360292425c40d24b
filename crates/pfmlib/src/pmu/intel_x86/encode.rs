//! PERFEVTSEL encoding of the x86 core family, in libpfm4's steps
//! (`pfm_intel_x86_encode_gen`): the requested unit masks and modifiers, the
//! checks between them, the default privilege levels and unit masks, then
//! the codes (PERFEVTSEL and the second register: offcore response, load
//! latency or precise front end) and the fully-qualified string.

use super::vocab::{
    ev_flag, event_modifiers_required, modifier_id as m, offcore_raw_bits, pmu_flag, um_flag,
    umask_event_code, umask_frontend, umask_ldlat, UMASK_EXT_MODS_REQUIRED, UMASK_EXT_REQ_GRP,
};
use crate::ctx::Ctx;
use crate::desc::Desc;
use crate::error::{Error, ErrorKind, Result};
use crate::kernel::PerfAttr;
use crate::model::PmuKind;
use crate::pmu::machinery::{
    all_groups, featcomb, hardwired_error, perfevtsel, Encoding, ModSpec, ModTable, Own, UmaskRules,
};
use crate::regs::{PebsFrontend, PerfEvtSel};
use crate::tables::UmaskDesc;
use pfmlib_defs::intel_x86::MODIFIERS;

/// Load latency used when a load-latency unit mask is given without `ldlat=`.
const LDLAT_DEFAULT: u64 = 3;
/// Front-end latency threshold used when a `fethr` unit mask is given
/// without `fe_thres=` and hard-wires none.
const FETHR_DEFAULT: u64 = 1;

/// The unit-mask rules of the family (libpfm4's x86 group rules).
const UMASK_RULES: UmaskRules = UmaskRules {
    dfl: um_flag::DFL,
    ncombo: um_flag::NCOMBO,
    excl_grp_gt: um_flag::EXCL_GRP_GT,
    excl_grp_but_0: um_flag::EXCL_GRP_BUT_0,
    grp_dfl_none: um_flag::GRP_DFL_NONE,
    grp_req: um_flag::GRP_REQ,
    grp_excl: ev_flag::GRP_EXCL,
    req_grp_ext: Some(UMASK_EXT_REQ_GRP),
    mods_required_ext: Some(UMASK_EXT_MODS_REQUIRED),
    full_grpid: true,
    ..UmaskRules::NONE
};

/// The modifiers: PERFEVTSEL fields, and the two thresholds of the second
/// register (`ldlat`, `fe_thres`).
const MODS: ModTable = ModTable::new(
    MODIFIERS,
    &[
        perfevtsel::K,
        perfevtsel::U,
        perfevtsel::E,
        perfevtsel::I,
        perfevtsel::C,
        ModSpec::bit(21),       // t: any thread
        ModSpec::own(1, 65535), // ldlat
        ModSpec::bit(32),       // intx
        ModSpec::bit(33),       // intxcp
        ModSpec::own(1, 4095),  // fe_thres
    ],
    ErrorKind::AttrValue,
);

/// What the requested attributes have set beyond the shared [`Encoding`]:
/// the second register's thresholds and the event-code override.
#[derive(Default)]
struct Extra {
    last_ucode: Option<u64>,
    ldlat: u64,
    ldlat_um: bool,
    /// The threshold a unit mask given hard-wires.
    ldlat_hw: Option<u64>,
    fe_thr: u64,
    fe_thr_um: bool,
    /// The front-end register value a unit mask given hard-wires
    /// (pfmlib's own `frontend` key).
    fe_hw: Option<u64>,
    /// A unit mask given takes no modifier: none is written in the
    /// fully-qualified string.
    no_mods: bool,
}

/// Modifiers given, as libpfm4 counts them for its checks (ldlat aside).
fn umodmsk(e: &Encoding) -> u32 {
    e.given & !(1 << m::LDLAT)
}

/// Encodes the event into PERFEVTSEL (and the offcore-response, load-latency
/// or front-end register) and builds the fully-qualified string.
pub(super) fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let ev = d.event;
    let umask1 = (ev.code() >> 8) & 0xff;
    let mut e = Encoding::new(ev.code());
    let mut x = Extra::default();
    e.apply_attrs(&UMASK_RULES, &MODS, d, raw_width(d), |e, own| {
        match own {
            Own::Umask(um) => umask_effects(&mut x, e, d, um)?,
            Own::Mod(m::LDLAT, ival) => x.ldlat = ival,
            Own::Mod(_, ival) => x.fe_thr = ival,
            Own::Raw(_) | Own::Unknown => {}
        }
        Ok(())
    })?;
    e.um.check_required_groups(d)?;
    let fixed = (umask1 | e.um.bits) << 8;
    MODS.check_hardwired(d, e.um.modhw & umodmsk(&e), fixed, e.reg)?;
    MODS.default_plm(d, &mut e.reg, e.given, d.pmu.supported_plm());
    let grpmsk = all_groups(ev);
    let grp_excl = ev.flags() & ev_flag::GRP_EXCL != 0;
    if (e.um.groups != grpmsk && !grp_excl) || e.um.groups == 0 {
        let missing = e.um.groups ^ grpmsk;
        e.um.add_defaults(&UMASK_RULES, d, missing, |_| {})?;
    }
    e.um.check_exclusions(&UMASK_RULES, d)?;
    let required = event_modifiers_required(ev) | e.um.mods_required;
    check_required_modifiers(required, umodmsk(&e), d)?;
    d.write_fstr_umasks();
    let mut umask2 = e.um.bits;
    frontend_threshold(&mut x, &e, &mut umask2, d)?;
    let codes = codes(&mut x, &mut e, umask1, umask2, d)?;
    if x.no_mods {
        return Ok(codes);
    }
    let (ldlat, fe_thr) = (x.ldlat, x.fe_thr);
    MODS.write_fstr_mods(d, e.reg, |id| match id {
        m::LDLAT => Some(ldlat),
        m::FE_THRES => Some(fe_thr),
        _ => None,
    });
    Ok(codes)
}

/// Width of a raw unit mask: the offcore-response register's on offcore
/// events, 8 bits elsewhere.
fn raw_width(d: &Desc) -> u32 {
    if d.event.flags() & ev_flag::OFFCORE != 0 {
        offcore_raw_bits(d.pmu)
    } else {
        8
    }
}

/// What only this family's unit masks do: load latency, front-end
/// threshold, event-code override.
fn umask_effects(x: &mut Extra, e: &mut Encoding, d: &Desc, um: UmaskDesc) -> Result<()> {
    let flags = um.flags();
    x.ldlat_um |= flags & um_flag::LDLAT != 0;
    if let Some(v) = umask_ldlat(um) {
        x.ldlat_hw = Some(v);
    }
    x.fe_thr_um |= flags & um_flag::FETHR != 0;
    if let Some(v) = umask_frontend(um) {
        x.fe_hw = Some(v);
    }
    x.no_mods |= flags & um_flag::NO_MODS != 0;
    if flags & um_flag::CODE_OVERRIDE != 0 {
        let code = umask_event_code(um);
        if x.last_ucode.is_some_and(|l| l != code) {
            return Err(featcomb(
                d,
                format_args!(
                    "unit mask {} overrides the event code differently",
                    um.name()
                ),
            ));
        }
        x.last_ucode = Some(code);
        let mut reg = PerfEvtSel(e.reg);
        reg.set_event_select(code);
        e.reg = reg.0;
    }
    Ok(())
}

/// The modifiers the event and its unit masks require must be exactly the
/// modifiers given (libpfm4 compares the two masks whole).
fn check_required_modifiers(required: u32, given: u32, d: &Desc) -> Result<()> {
    if required == 0 || given == required {
        return Ok(());
    }
    let names: Vec<&str> = MODIFIERS
        .iter()
        .enumerate()
        .filter(|(id, _)| required >> id & 1 != 0)
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
fn frontend_threshold(st: &mut Extra, e: &Encoding, umask2: &mut u64, d: &Desc) -> Result<()> {
    if d.event.flags() & ev_flag::FRONTEND == 0 || !st.fe_thr_um {
        return Ok(());
    }
    let mut fe = PebsFrontend(*umask2);
    let um_thr = fe.idq_bubble_length();
    if um_thr != 0 {
        if e.um.modhw & umodmsk(e) & (1 << m::FE_THRES) != 0 {
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
    *umask2 = fe.0;
    Ok(())
}

/// PERFEVTSEL and the second code (offcore response, precise front end or
/// load latency).
/// `umask1` is the event code's unit-mask bits, `umask2` the unit masks'.
fn codes(
    st: &mut Extra,
    e: &mut Encoding,
    umask1: u64,
    mut umask2: u64,
    d: &Desc,
) -> Result<Vec<u64>> {
    let mut codes = Vec::with_capacity(2);
    codes.push(0u64);
    if d.event.flags() & (ev_flag::OFFCORE | ev_flag::FRONTEND) != 0 {
        codes.push(umask2);
        umask2 = 0;
    }
    if st.ldlat != 0 && !st.ldlat_um {
        return Err(Error::new(
            ErrorKind::Attr,
            format!("{}: ldlat= needs a load-latency unit mask", d.event_name()),
        ));
    }
    if let Some(hw) = st.ldlat_hw {
        if st.ldlat != 0 && st.ldlat != hw {
            return Err(hardwired_error(d, "ldlat", hw, st.ldlat));
        }
        st.ldlat = hw;
    }
    if st.ldlat_um {
        if st.ldlat == 0 {
            st.ldlat = LDLAT_DEFAULT;
        }
        codes.truncate(1);
        codes.push(st.ldlat);
    }
    if let Some(fe) = st.fe_hw {
        codes.truncate(1);
        codes.push(fe);
    }
    let mut reg = PerfEvtSel(e.reg | (umask1 | umask2) << 8);
    reg.set_en(1);
    reg.set_int(1);
    e.reg = reg.0;
    codes[0] = reg.0;
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
    // `perf_name` (the hybrid core PMUs) may list several kernel PMUs
    // (libpfm4 upstream's `pfm_perf_find_pmu_type`, the lookup `pfm list`
    // shows too): the first one published gives the type; none published
    // (a kernel without hybrid support, say) keeps the raw type.
    attr.type_ = d
        .pmu
        .perf_name()
        .and_then(|names| crate::pmu::kernel_type::find_kernel_pmu(&ctx.host, names))
        .map_or(crate::kernel::PERF_TYPE_RAW, |(_, t)| t as u32);
    reg.set_os(0);
    reg.set_usr(0);
    attr.config = reg.0;
    if let Some(&second) = codes.get(1) {
        // A unit mask given that hard-wires the second register.
        let second_um = d.umask_attrs().any(|j| {
            let um = d.umask(j);
            um.flags() & um_flag::LDLAT != 0 || umask_frontend(um).is_some()
        });
        if d.event.flags() & (ev_flag::OFFCORE | ev_flag::FRONTEND) != 0 || second_um {
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
    use crate::model::Plm;
    use crate::model::{Os, Vendor};
    use crate::pmu::machinery::Umasks;
    use crate::tables::PmuDesc;

    fn nhm_desc(event: &str) -> Desc {
        let pmu = PmuDesc::by_name("nhm").expect("nhm table");
        let ev = pmu.find_event(event, |_| true).expect("event");
        Desc::new(pmu, ev, Os::None, Plm::DEFAULT, Offer::default())
    }

    #[test]
    fn required_groups() {
        let d = nhm_desc("ARITH");
        let um = |req_groups, groups| {
            let mut um = Umasks::default();
            um.req_groups = req_groups;
            um.groups = groups;
            um
        };
        assert!(um(0b01, 0b11).check_required_groups(&d).is_ok());
        assert!(um(0, 0).check_required_groups(&d).is_ok());
        let e = um(0b110, 0b011)
            .check_required_groups(&d)
            .expect_err("group 2 missing");
        assert_eq!(e.kind(), ErrorKind::FeatureCombination);
    }

    /// libpfm4 compares the required modifiers with the given ones whole:
    /// one missing or one more is an attribute error.
    #[test]
    fn required_modifiers_are_exact() {
        let d = nhm_desc("ARITH");
        let req = 1 << m::FE_THRES;
        assert!(check_required_modifiers(req, req, &d).is_ok());
        assert!(check_required_modifiers(0, 0, &d).is_ok());
        for given in [0, req | 1 << m::C, 1 << m::C] {
            let e = check_required_modifiers(req, given, &d).expect_err("not exact");
            assert_eq!(e.kind(), ErrorKind::Attr);
        }
    }

    /// A unit mask with a hard-wired load latency (`ldlat` key): it is the
    /// second code; `ldlat=` may repeat it only.
    #[test]
    fn hard_wired_ldlat() {
        let pmu = PmuDesc::by_name("srf").expect("srf table");
        let ev = pmu.find_event("MEM_UOPS_RETIRED", |_| true).expect("event");
        let um = ev
            .umasks()
            .find(|u| u.name() == "LOAD_LATENCY_GT_128")
            .expect("unit mask");
        assert_eq!(super::umask_ldlat(um), Some(128));
        let lib = Library::with_host(Host::none());
        let enc = |s: &str| lib.encode(s, Plm::DEFAULT, Os::None);
        let e = enc("srf::MEM_UOPS_RETIRED:LOAD_LATENCY_GT_128").expect("encodes");
        assert_eq!(e.codes, [0x5305d0, 128]);
        let e = enc("srf::MEM_UOPS_RETIRED:LOAD_LATENCY_GT_128:ldlat=128").expect("same");
        assert_eq!(e.codes, [0x5305d0, 128]);
        let err = enc("srf::MEM_UOPS_RETIRED:LOAD_LATENCY_GT_128:ldlat=3").expect_err("other");
        assert_eq!(err.kind(), ErrorKind::AttrSet);
        assert!(super::umask_ldlat(ev.umasks().next().expect("ALL")).is_none());
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
