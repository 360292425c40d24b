//! The Intel Netburst (Pentium 4) family: every event is an ESCR (event
//! select, event mask, tags, privilege levels) feeding a counter through
//! its CCCR (ESCR choice, threshold comparison, edge). Two codes per event;
//! under perf_events both travel in `config` (ESCR high, CCCR low) with the
//! kernel's own event number in the ESCR's event-select field.

pub(crate) use pfmlib_defs::netburst as defs;

use super::common::{cpu_matches, offer_of, Engine, EventFlags, UmaskInfo};
use super::machinery::{push_umask, Encoding, ModSpec, ModTable, Own, UmaskRules};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::{Error, ErrorKind, Result};
use crate::host::Host;
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::{Os, Plm};
use crate::regs::{NetburstCccr, NetburstEscr};
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use defs::MODIFIERS;
use pfmlib_defs::{bit, ext, modifier, FamilyDefs};

/// Modifier ids (attribute codes).
mod id {
    use super::{modifier, MODIFIERS};
    pub const U: u64 = modifier(MODIFIERS, "u");
    pub const K: u64 = modifier(MODIFIERS, "k");
    pub const CMPL: u64 = modifier(MODIFIERS, "cmpl");
    pub const E: u64 = modifier(MODIFIERS, "e");
    pub const THR: u64 = modifier(MODIFIERS, "thr");
}

/// PMU flag: `cpu_models` lists the models the PMU is NOT detected on.
const PMU_MODELS_EXCLUDED: u32 = bit(defs::PMU_FLAGS, "models_excluded");
/// Event flag: only event-mask bits 0-1 are real ESCR bits.
const EV_VIRTUAL_MASKS: u32 = bit(defs::EVENT_FLAGS, "virtual_masks");
/// Unit-mask flag: the default unit mask.
const UM_DFL: u32 = bit(defs::UMASK_FLAGS, "dfl");
/// Extra event word: the kernel's event number.
const EXT_PERF_CODE: usize = ext(defs::EVENT_EXT, "perf_code");

/// Width of the ESCR event mask; unit-mask bits from here on are tag bits.
const EVENT_MASK_BITS: u64 = 16;
/// The event-mask bits of a `virtual_masks` event that reach the ESCR.
const REAL_MASK: u64 = 0x3;
/// CCCR active-thread setting: count when either logical processor is active.
const ANY_THREAD_ACTIVE: u64 = 3;
/// Largest threshold (`thr`).
const MAX_THRESHOLD: u64 = 15;

/// The engine.
pub(crate) struct Netburst;

impl Engine for Netburst {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// Intel family 15; `netburst` on every model but Prescott's (3, 4, 6),
    /// `netburst_p` only on those.
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        if pmu.flags() & PMU_MODELS_EXCLUDED == 0 {
            return cpu_matches(pmu, host);
        }
        pmu.vendor() == Some(host.vendor)
            && pmu.cpu_family() == host.family
            && !pmu.matches_model(host.model, host.stepping)
    }

    fn umask_info(&self, _pmu: PmuDesc, _ev: EventDesc, um: UmaskDesc) -> UmaskInfo {
        UmaskInfo {
            code: um.code(),
            is_dfl: um.flags() & UM_DFL != 0,
            flags: EventFlags::NONE,
        }
    }

    /// Under perf_events the privilege levels are perf's (`u`/`k` go), and
    /// there is neither a hypervisor level nor precise or hardware sampling.
    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        offer_of(os, ev.modmsk(), (1 << id::U) | (1 << id::K), |a| {
            !matches!(a, pa::PRECISE | pa::H | pa::HW_SMPL)
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        let (escr, cccr) = encode(d)?;
        Ok(vec![escr.0, cccr.0])
    }

    /// `config` = ESCR (event select replaced by the kernel's event number)
    /// in the high half, CCCR in the low half; raw type.
    fn encode_perf(&self, _ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let (mut escr, cccr) = encode(d)?;
        let codes = vec![escr.0, cccr.0];
        escr.set_event_select(u64::from(d.event.ext(EXT_PERF_CODE)));
        attr.type_ = PERF_TYPE_RAW;
        attr.config = escr.0 << 32 | cccr.0;
        Ok(codes)
    }
}

/// The modifiers' values; the ESCR/CCCR placement is the family's own.
const MODS: ModTable = ModTable::new(
    MODIFIERS,
    &[
        ModSpec::own(0, 1),             // u
        ModSpec::own(0, 1),             // k
        ModSpec::own(0, 1),             // cmpl
        ModSpec::own(0, 1),             // e
        ModSpec::own(0, MAX_THRESHOLD), // thr
    ],
    ErrorKind::AttrValue,
);

/// What the requested attributes set: the ESCR/CCCR pair, and the event
/// mask and tag bits the unit masks select (a unit mask's code is a bit
/// number).
#[derive(Default)]
struct EscrCccr {
    escr: NetburstEscr,
    cccr: NetburstCccr,
    evmask: u64,
    tags: u64,
}

/// The ESCR and CCCR of the event, and the fully-qualified string.
fn encode(d: &mut Desc) -> Result<(NetburstEscr, NetburstCccr)> {
    let mut st = EscrCccr::default();
    let mut e = Encoding::default();
    e.apply_attrs(&UmaskRules::NONE, &MODS, d, 0, |_, own| {
        match own {
            Own::Umask(um) => {
                let b = um.code();
                if b < EVENT_MASK_BITS {
                    st.evmask |= 1 << b;
                } else {
                    st.tags |= 1 << (b - EVENT_MASK_BITS);
                }
            }
            Own::Mod(m, ival) => place_modifier(&mut st, m, ival),
            // The parser refuses raw unit masks: this PMU takes none.
            Own::Raw(_) => return Err(Error::new(ErrorKind::Attr, "raw unit mask")),
            Own::Unknown => {}
        }
        Ok(())
    })?;
    if e.given & ((1 << id::U) | (1 << id::K)) == 0 {
        let (os, usr) = (d.dfl_plm.contains(Plm::PLM0), d.dfl_plm.contains(Plm::PLM3));
        set_plm(&mut st.escr, id::K, u64::from(os));
        set_plm(&mut st.escr, id::U, u64::from(usr));
    }
    if e.um.count == 0 {
        st.evmask = add_default(d)?;
    }
    let ev = d.event;
    let mut escr = st.escr;
    escr.set_tag_enable(u64::from(st.tags != 0));
    escr.set_tag_value(st.tags);
    escr.set_event_mask(st.evmask);
    escr.set_event_select(ev.code() & 0xff);
    if ev.flags() & EV_VIRTUAL_MASKS != 0 {
        escr.set_event_mask(escr.event_mask() & REAL_MASK);
    }
    let mut cccr = st.cccr;
    cccr.set_enable(1);
    cccr.set_escr_select((ev.code() >> 8) & 0xff);
    cccr.set_active_thread(ANY_THREAD_ACTIVE);
    write_fstr(d, escr, cccr);
    Ok((escr, cccr))
}

/// Both threads' bit of privilege level `which` (`id::K` or `id::U`).
fn set_plm(escr: &mut NetburstEscr, which: u64, on: u64) {
    if which == id::K {
        escr.set_t0_os(on);
        escr.set_t1_os(on);
    } else {
        escr.set_t0_usr(on);
        escr.set_t1_usr(on);
    }
}

/// Places modifier `m` (its value in range) in the ESCR or CCCR.
fn place_modifier(st: &mut EscrCccr, m: u64, ival: u64) {
    let on = u64::from(ival != 0);
    match m {
        id::U | id::K => set_plm(&mut st.escr, m, on),
        id::E if on != 0 => {
            st.cccr.set_compare(1);
            st.cccr.set_edge(1);
        }
        id::CMPL if on != 0 => {
            st.cccr.set_compare(1);
            st.cccr.set_complement(1);
        }
        id::THR if ival != 0 => {
            st.cccr.set_compare(1);
            st.cccr.set_threshold(ival);
        }
        _ => {}
    }
}

/// No unit mask given: the event's default one, added to the attributes.
fn add_default(d: &mut Desc) -> Result<u64> {
    let ev = d.event;
    let Some(j) = (0..ev.numasks()).find(|&j| ev.umask(j).flags() & UM_DFL != 0) else {
        let names: Vec<&str> = ev.umasks().map(|u| u.name()).collect();
        return Err(Error::new(
            ErrorKind::Attr,
            format!(
                "{} has no default unit mask: give one of {}",
                d.event_name(),
                names.join(", ")
            ),
        ));
    };
    push_umask(d, j);
    // libpfm4 puts a default's bit in the event mask whatever its position.
    Ok(1u64.checked_shl(ev.umask(j).code() as u32).unwrap_or(0))
}

/// `EVENT:UMASKS...` then every modifier with its register value, always
/// in the order `k u e cmpl thr` (whatever the OS layer offers).
fn write_fstr(d: &mut Desc, escr: NetburstEscr, cccr: NetburstCccr) {
    d.write_fstr_umasks();
    let values = [
        (id::K, escr.t0_os()),
        (id::U, escr.t0_usr()),
        (id::E, cccr.edge()),
        (id::CMPL, cccr.complement()),
        (id::THR, cccr.threshold()),
    ];
    for (m, v) in values {
        d.push_fstr_val(MODIFIERS[m as usize].name, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ESCR and CCCR fields sit where the SDM (and libpfm4's bit
    /// fields) put them.
    #[test]
    fn escr_and_cccr_layouts() {
        type EscrSet = fn(&mut NetburstEscr, u64);
        let escr: [(EscrSet, u64); 8] = [
            (NetburstEscr::set_t1_usr, 1),
            (NetburstEscr::set_t1_os, 1 << 1),
            (NetburstEscr::set_t0_usr, 1 << 2),
            (NetburstEscr::set_t0_os, 1 << 3),
            (NetburstEscr::set_tag_enable, 1 << 4),
            (NetburstEscr::set_tag_value, 0xf << 5),
            (NetburstEscr::set_event_mask, 0xffff << 9),
            (NetburstEscr::set_event_select, 0x3f << 25),
        ];
        for (set, bits) in escr {
            let mut r = NetburstEscr::default();
            set(&mut r, u64::MAX);
            assert_eq!(r.0, bits);
        }
        type CccrSet = fn(&mut NetburstCccr, u64);
        let cccr: [(CccrSet, u64); 7] = [
            (NetburstCccr::set_enable, 1 << 12),
            (NetburstCccr::set_escr_select, 7 << 13),
            (NetburstCccr::set_active_thread, 3 << 16),
            (NetburstCccr::set_compare, 1 << 18),
            (NetburstCccr::set_complement, 1 << 19),
            (NetburstCccr::set_threshold, 0xf << 20),
            (NetburstCccr::set_edge, 1 << 24),
        ];
        for (set, bits) in cccr {
            let mut r = NetburstCccr::default();
            set(&mut r, u64::MAX);
            assert_eq!(r.0, bits);
        }
    }
}
