//! Opcode matchers: Itanium's raw PMC8/PMC9, Itanium 2's PMC8/PMC9 with
//! their per-IBR-pair enables in PMC15, Montecito's two match/mask pairs
//! PMC32/33 and PMC34/35 with their enables in PMC36.

use super::common::err;
use super::context::{Ctx, Ev, State};
use super::layout::{Ia64Layout, Matchers};
use crate::error::{DispatchError, DispatchErrorKind as K};
use crate::request::{Ia64Params, Opcm};
use pfmlib::regs::{Ita2Opcm, MontOpcmMask, MontOpcmMatch, OpcmChannels};

/// Itanium 2 PMC8 when only a code range uses it: match everything.
const ITA2_PMC8_NEUTRAL: u64 = 0xffff_ffff_3fff_ffff;
/// Itanium 2 PMC15: every channel ignores its matcher.
const ITA2_CHANNELS_NEUTRAL: u64 = 0xffff_ffff;
/// Montecito PMC32 without opcm1: every slot, any opcode.
const MONT_OPCM1_NEUTRAL: u64 = 0x030f_01ff_ffff_ffff;
/// Montecito PMC34 base value.
const MONT_OPCM2_BASE: u64 = 0x01ff_ffff_ffff;
/// Montecito PMC36 default value (written only when it changes).
const MONT_CHANNELS_DEFAULT: u64 = 0xffff_fff0;

/// The tagged events of each matcher, per IBR pair: (pair, event name).
type Tagged = [(u32, &'static str); 2];

const ITA2_PMC8_TAGGED: Tagged = [
    (0, "IA64_TAGGED_INST_RETIRED_IBRP0_PMC8"),
    (2, "IA64_TAGGED_INST_RETIRED_IBRP2_PMC8"),
];
const ITA2_PMC9_TAGGED: Tagged = [
    (1, "IA64_TAGGED_INST_RETIRED_IBRP1_PMC9"),
    (3, "IA64_TAGGED_INST_RETIRED_IBRP3_PMC9"),
];
const MONT_OPCM1_TAGGED: Tagged = [
    (0, "IA64_TAGGED_INST_RETIRED_IBRP0_PMC32_33"),
    (2, "IA64_TAGGED_INST_RETIRED_IBRP2_PMC32_33"),
];
const MONT_OPCM2_TAGGED: Tagged = [
    (1, "IA64_TAGGED_INST_RETIRED_IBRP1_PMC34_35"),
    (3, "IA64_TAGGED_INST_RETIRED_IBRP3_PMC34_35"),
];

/// Which of the model's two matchers the parameters use.
pub(super) fn used(layout: &Ia64Layout, prm: &Ia64Params) -> [bool; 2] {
    if layout.matchers.raw_params() {
        [prm.pmc8.is_some(), prm.pmc9.is_some()]
    } else {
        [prm.opcm1.is_some(), prm.opcm2.is_some()]
    }
}

/// The matcher step of the model.
pub(super) fn matchers(cx: &Ctx<'_>, st: &mut State<'_>) -> Result<(), DispatchError> {
    match cx.layout.matchers {
        Matchers::Raw { pmcs: [p8, p9] } => {
            if let Some(v) = cx.prm.pmc8 {
                st.out.emit(p8, v.0)?;
            }
            if let Some(v) = cx.prm.pmc9 {
                st.out.emit(p9, v.0)?;
            }
            Ok(())
        }
        Matchers::Itanium2 { pmcs, channels } if cx.mod_present => itanium2(cx, st, pmcs, channels),
        Matchers::Itanium2 { .. } => Ok(()),
        Matchers::Montecito { pairs, channels } => montecito(cx, st, pairs, channels),
    }
}

/// Clears the "ignore matcher" bits of the two IBR pairs a matcher serves:
/// a pair is qualified when its tagged event is measured, or when neither
/// pair's tagged event is.
fn enable_channels(reg: &mut OpcmChannels, evs: &[Ev], [lo, hi]: Tagged) {
    let has = |n: &str| evs.iter().any(|e| e.f.name == n);
    let (h1, h2) = (has(lo.1), has(hi.1));
    if h1 || !h2 {
        reg.set_ig_opcm(lo.0, 0);
    }
    if h2 || !h1 {
        reg.set_ig_opcm(hi.0, 0);
    }
}

/// Does a code range use the matchers (a range with programmed pairs)?
fn code_range_active(cx: &Ctx<'_>, st: &State<'_>) -> bool {
    cx.prm.irange.is_some() && !st.irr.br.is_empty()
}

/// Itanium 2: PMC8, PMC9 and their enables in PMC15 (always written).
fn itanium2(
    cx: &Ctx<'_>,
    st: &mut State<'_>,
    [p8, p9]: [u32; 2],
    channels: u32,
) -> Result<(), DispatchError> {
    let prm = cx.prm;
    let mut enables = OpcmChannels(ITA2_CHANNELS_NEUTRAL);
    if prm.pmc8.is_some() || code_range_active(cx, st) {
        let mut r = Ita2Opcm(prm.pmc8.map_or(ITA2_PMC8_NEUTRAL, |v| v.0));
        match &prm.irange {
            Some(ir) => {
                r.set_ig_ad(0);
                r.set_inv(u64::from(ir.inv));
            }
            None => {
                r.set_ig_ad(1);
                r.set_inv(0);
            }
        }
        r.set_enable(1);
        st.out.emit(p8, r.0)?;
        if prm.pmc8.is_some() {
            enable_channels(&mut enables, cx.evs, ITA2_PMC8_TAGGED);
        }
    }
    if let Some(v) = prm.pmc9 {
        let rc = cx.code_of("IA64_INST_RETIRED_THIS");
        if let Some(e) = cx.evs.iter().find(|e| Some(e.f.code) != rc) {
            return Err(err(
                K::FeatureCombination,
                format!(
                    "{}: opcode matcher PMC9 only qualifies IA64_INST_RETIRED events",
                    e.fstr
                ),
            ));
        }
        let mut r = Ita2Opcm(v.0);
        r.set_ig_ad(1);
        r.set_inv(0);
        r.set_enable(1);
        st.out.emit(p9, r.0)?;
        enable_channels(&mut enables, cx.evs, ITA2_PMC9_TAGGED);
    }
    st.out.emit(channels, enables.0)
}

/// The mask register of a Montecito matcher: slots and mask.
fn mont_mask(base: u64, o: &Opcm) -> MontOpcmMask {
    let mut r = MontOpcmMask(base);
    r.set_mask(o.mask.0);
    r.set_b(u64::from(o.b));
    r.set_f(u64::from(o.f));
    r.set_i(u64::from(o.i));
    r.set_m(u64::from(o.m));
    r
}

/// The match register of a Montecito matcher.
fn mont_match(o: &Opcm) -> u64 {
    let mut m = MontOpcmMatch::default();
    m.set_match(o.match_.0);
    m.0
}

/// Montecito: PMC32-PMC35, and PMC36 when a channel changes.
fn montecito(
    cx: &Ctx<'_>,
    st: &mut State<'_>,
    [(mask1, match1), (mask2, match2)]: [(u32, u32); 2],
    channels: u32,
) -> Result<(), DispatchError> {
    let prm = cx.prm;
    if prm.opcm1.is_none() && prm.opcm2.is_none() && prm.irange.is_none() {
        return Ok(());
    }
    let mut enables = OpcmChannels(MONT_CHANNELS_DEFAULT);
    if prm.opcm1.is_some() || code_range_active(cx, st) {
        let mut r = match &prm.opcm1 {
            Some(o) => mont_mask(MONT_OPCM1_NEUTRAL, o),
            None => MontOpcmMask(MONT_OPCM1_NEUTRAL),
        };
        match &prm.irange {
            Some(ir) => {
                r.set_ig_ad(0);
                r.set_inv(u64::from(ir.inv));
            }
            None => {
                r.set_ig_ad(1);
                r.set_inv(0);
            }
        }
        st.out.emit(mask1, r.0)?;
        if let Some(o) = &prm.opcm1 {
            st.out.emit(match1, mont_match(o))?;
            enable_channels(&mut enables, cx.evs, MONT_OPCM1_TAGGED);
        }
    }
    if let Some(o) = &prm.opcm2 {
        st.out.check_avail(mask2)?;
        st.out.check_avail(match2)?;
        st.out.emit(mask2, mont_mask(MONT_OPCM2_BASE, o).0)?;
        st.out.emit(match2, mont_match(o))?;
        enable_channels(&mut enables, cx.evs, MONT_OPCM2_TAGGED);
    }
    if enables.0 != MONT_CHANNELS_DEFAULT {
        st.out.emit(channels, enables.0)?;
    }
    Ok(())
}
