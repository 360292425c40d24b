//! The MIPS family, as libpfm4 drives it (`pfmlib_mips.c`,
//! `pfmlib_mips_74k.c`, `pfmlib_mips_perf_event.c`; the same in 4.13 and
//! upstream): the MIPS 74K.
//!
//! - Two codes per event: the Performance Control register value (event
//!   number bits 0-6 at bits 5-11, the level enables exception level bit 0,
//!   kernel bit 1, supervisor bit 2, user bit 3, from `e`, `k`, `s`, `u` or,
//!   when none of them is given, from the default levels PLM2, PLM0, PLM1,
//!   PLM3), and the counters the event may use: all of them for codes 0 and
//!   1 (cycles, instructions), else the odd counters for codes with bit 7
//!   set and the even ones for the others. Bit 7 itself is not in the
//!   register.
//! - perf_events: `PERF_TYPE_RAW`, `config` the event number (the register
//!   shifted right by 5, the level bits gone), with bit 7 set when the event
//!   counts on odd counters only (above code 1), as the kernel's MIPS PMU
//!   driver expects. The levels are the OS layer's `u`, `k`, `h`; the four
//!   modifiers, `precise` and `hw_smpl` are not offered.
//! - Detection on a MIPS host whose `/proc/cpuinfo` `cpu model`, as
//!   libpfm4 reads it (`Host::mips_cpu_model`), holds `MIPS 74K`.

pub(crate) use pfmlib_defs::mips as defs;

use super::common::{offer_of, Engine};
use crate::ctx::Ctx;
use crate::desc::{AttrRef, Desc, Offer};
use crate::error::Result;
use crate::host::{Arch, Host};
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::{Os, Plm};
use crate::tables::{EventDesc, PmuDesc};
use defs::MODIFIERS;
use pfmlib_defs::{modifier, FamilyDefs};

mod id {
    use super::{modifier, MODIFIERS};
    pub const K: u64 = modifier(MODIFIERS, "k");
    pub const U: u64 = modifier(MODIFIERS, "u");
    pub const S: u64 = modifier(MODIFIERS, "s");
    pub const E: u64 = modifier(MODIFIERS, "e");
}

/// Every modifier: all are privilege levels (libpfm4's `MIPS_PLM_ALL`).
const PLM_MODS: u32 = 1 << id::K | 1 << id::U | 1 << id::S | 1 << id::E;

/// What a MIPS 74K's `cpu model` line holds (libpfm4's `strstr`).
const MODEL_74K: &str = "MIPS 74K";

crate::regs::register! {
    /// The MIPS Performance Control register as libpfm4 builds it
    /// (`pfm_mips_sel_reg_t`).
    struct PerfCtl {
        /// Count while EXL is set (exception level).
        exl / set_exl: 0 ..= 0,
        /// Count in kernel mode.
        os / set_os: 1 ..= 1,
        /// Count in supervisor mode.
        sup / set_sup: 2 ..= 2,
        /// Count in user mode.
        usr / set_usr: 3 ..= 3,
        /// Event number (bits 0-6 of the table's code).
        event / set_event: 5 ..= 11,
    }
}

/// The engine.
pub(crate) struct Mips;

impl Engine for Mips {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// On a MIPS host whose `cpu model` holds `MIPS 74K` (libpfm4's
    /// `pfm_mips_detect_74k`; `pfm_mips_detect`'s "MIPS" is part of it).
    fn detect(&self, _pmu: PmuDesc, host: &Host) -> bool {
        host.arch == Arch::Mips
            && host
                .mips_cpu_model
                .as_deref()
                .is_some_and(|m| m.contains(MODEL_74K))
    }

    /// With perf_events the levels are the OS layer's, and there is no
    /// precise or hardware sampling.
    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        offer_of(os, ev.modmsk(), PLM_MODS, |a| {
            a != pa::PRECISE && a != pa::HW_SMPL
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        let (ctl, counters) = encode(d);
        Ok(vec![ctl, counters])
    }

    /// `PERF_TYPE_RAW`; `config` the event number, bit 7 for the events of
    /// the odd counters.
    fn encode_perf(&self, _ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let (ctl, counters) = encode(d);
        let mut config = ctl >> 5;
        if counters & 0x2 != 0 && config > 1 {
            config |= 1 << 7;
        }
        attr.type_ = PERF_TYPE_RAW;
        attr.config = config;
        Ok(vec![ctl, counters])
    }
}

/// The Performance Control register value and the counter mask, and the
/// fully-qualified string: the event name, then `:k= :u= :s= :e=` for the
/// modifiers offered.
fn encode(d: &mut Desc) -> (u64, u64) {
    let code = d.event.code();
    d.write_fstr_umasks();
    let mut reg = PerfCtl::default();
    reg.set_event(code);
    let plm = levels_asked(d).unwrap_or(d.dfl_plm);
    reg.set_os(u64::from(plm.contains(Plm::PLM0)));
    reg.set_sup(u64::from(plm.contains(Plm::PLM1)));
    reg.set_exl(u64::from(plm.contains(Plm::PLM2)));
    reg.set_usr(u64::from(plm.contains(Plm::PLM3)));
    let shown = reg;
    d.write_fstr_mods(MODIFIERS, |m| match m {
        id::K => Some(shown.os()),
        id::U => Some(shown.usr()),
        id::S => Some(shown.sup()),
        id::E => Some(shown.exl()),
        _ => None,
    });
    (reg.0, counter_mask(code, d.pmu.num_cntrs()))
}

/// The counters an event may use (libpfm4's `codes[1]`): every one for
/// codes 0 and 1, else every other one, starting at counter 1 when bit 7 of
/// the code is set and at counter 0 otherwise.
fn counter_mask(code: u64, num_cntrs: u32) -> u64 {
    let n = num_cntrs.min(64);
    if code <= 1 {
        return u64::MAX.checked_shr(64 - n).unwrap_or(0);
    }
    let first = u32::from(code & 0x80 != 0);
    (first..n).step_by(2).fold(0, |m, k| m | 1 << k)
}

/// The levels `k`, `u`, `s`, `e` ask for, as the default levels they stand
/// for (PLM0, PLM3, PLM1, PLM2), if any of them is given (whatever its
/// value).
fn levels_asked(d: &Desc) -> Option<Plm> {
    let mut plm = Plm::default();
    let mut given = false;
    for a in &d.attrs {
        let AttrRef::Mod(m) = a.what else { continue };
        let level = match u64::from(m) {
            id::K => Plm::PLM0,
            id::U => Plm::PLM3,
            id::S => Plm::PLM1,
            id::E => Plm::PLM2,
            _ => continue,
        };
        given = true;
        if a.ival != 0 {
            plm = plm | level;
        }
    }
    given.then_some(plm)
}

#[cfg(test)]
mod tests {
    use super::counter_mask;

    #[test]
    fn counters_of_a_code() {
        assert_eq!(counter_mask(0, 4), 0xf);
        assert_eq!(counter_mask(1, 4), 0xf);
        assert_eq!(counter_mask(0x2, 4), 0x5);
        assert_eq!(counter_mask(0x82, 4), 0xa);
        assert_eq!(counter_mask(0x80, 4), 0xa);
        assert_eq!(counter_mask(0, 0), 0);
        assert_eq!(counter_mask(0x3, 1), 0x1);
    }
}
