//! The modifiers: where each one's value goes (control register, filter
//! words, address match; ranges are in `encode`'s table), and the value the fully-qualified
//! string shows for it — libpfm4's field for field, including the fields
//! it shows in place of the one it sets (`tf`, `lmem`, `rmem`).

use super::regs::{
    BoxCtl, CboFilter1, HaAddrMatch, HswepCboFilter0, IcxPcuCtl, PcuCtl, SkxChaFilter0,
    SkxChaFilter1, SkxUpiFilter, SnbepCboFilter,
};
use super::vocab::{ev_flag, mod_id as m, pmu_flag, EXT_MODS_REQUIRED};
use crate::desc::Desc;

/// Event code of the PCU's first frequency-band event (bands 0-3 follow).
const PCU_FREQ_BAND0_CODE: i64 = 0xb;

/// Sets a field of a control register view.
fn ctl(st: &mut Regs, f: impl FnOnce(&mut BoxCtl)) {
    let mut r = BoxCtl(st.reg);
    f(&mut r);
    st.reg = r.0;
}

fn pcu(st: &mut Regs, f: impl FnOnce(&mut PcuCtl)) {
    let mut r = PcuCtl(st.reg);
    f(&mut r);
    st.reg = r.0;
}

fn icx_pcu(st: &mut Regs, f: impl FnOnce(&mut IcxPcuCtl)) {
    let mut r = IcxPcuCtl(st.reg);
    f(&mut r);
    st.reg = r.0;
}

/// Sets fields of filter word `$k` through the register view `$ty`.
macro_rules! filter {
    ($st:expr, $k:expr, $ty:ident, |$f:ident| $body:expr) => {{
        let mut $f = $ty($st.filters[$k]);
        $body;
        $st.filters[$k] = $f.0;
    }};
}

/// Places one modifier, its value already checked against its range.
pub(super) fn place_modifier(st: &mut Regs, id: u64, ival: u64) {
    let on = u64::from(ival != 0);
    match id {
        m::I | m::E => apply_edge_inv(st, id, on),
        m::T8 => ctl(st, |r| r.set_thres(ival)),
        m::T5 => pcu(st, |r| r.set_thres(ival)),
        // The whole 8-bit field is written (the occupancy bits above a
        // 6-bit threshold are cleared), as libpfm4 does.
        m::T6 => ctl(st, |r| r.set_thres(ival)),
        m::OCC_I => icx_pcu(st, |r| r.set_occ_inv(on)),
        m::OCC_E => icx_pcu(st, |r| r.set_occ_edge(on)),
        m::TF | m::CF | m::CF1 | m::TF1 | m::CF2 => apply_core_filter(st, id, ival),
        m::NF => filter!(st, 0, SnbepCboFilter, |f| f.set_nid(ival)),
        m::NF1 => filter!(st, 1, CboFilter1, |f| f.set_nid(ival)),
        m::FF => {
            st.pcu_band = PcuCtl(st.reg).event() as i64 - PCU_FREQ_BAND0_CODE;
            st.filters[0] = ival.wrapping_shl(band_shift(st.pcu_band));
        }
        m::ADDR => {
            let mut a = HaAddrMatch(st.addr);
            a.set_lo(ival);
            a.set_hi(ival >> 26);
            st.addr = a.0;
        }
        _ => apply_filter1_bit(st, id, ival, on),
    }
}

/// The shift of a frequency band's byte in filter 0 (the hardware's shift
/// count, taken modulo 64 as x86 does for a band of -1).
fn band_shift(band: i64) -> u32 {
    (band.wrapping_mul(8) & 63) as u32
}

/// `e` and `i`: the occupancy edge/invert bits on a PCU occupancy event.
fn apply_edge_inv(st: &mut Regs, id: u64, on: u64) {
    match (st.occ, id) {
        (true, m::I) => pcu(st, |r| r.set_occ_inv(on)),
        (true, _) => pcu(st, |r| r.set_occ_edge(on)),
        (false, m::I) => ctl(st, |r| r.set_inv(on)),
        (false, _) => ctl(st, |r| r.set_edge(on)),
    }
}

/// Thread and core filters: they enable the filter in the control register
/// and make filter 0 part of the codes.
fn apply_core_filter(st: &mut Regs, id: u64, ival: u64) {
    match id {
        m::TF => filter!(st, 0, SnbepCboFilter, |f| f.set_tid(ival)),
        m::TF1 => filter!(st, 0, SkxChaFilter0, |f| f.set_tid(ival)),
        m::CF => filter!(st, 0, SnbepCboFilter, |f| f.set_cid(ival)),
        m::CF1 => filter!(st, 0, HswepCboFilter0, |f| f.set_cid(ival)),
        _ => filter!(st, 0, SkxChaFilter0, |f| f.set_sid(ival)),
    }
    ctl(st, |r| r.set_tid_en(1));
    st.must_have_filt0 = true;
}

/// Filter-1 request-kind bits (C-Box/CHA) and the UPI node id matches.
fn apply_filter1_bit(st: &mut Regs, id: u64, ival: u64, on: u64) {
    match id {
        m::ISOC => filter!(st, 1, CboFilter1, |f| f.set_isoc(on)),
        m::NC => filter!(st, 1, CboFilter1, |f| f.set_nc(on)),
        // libpfm4 sets the local-target bit for `lmem` as well.
        m::LOC | m::LMEM => filter!(st, 1, SkxChaFilter1, |f| f.set_loc(on)),
        m::REM => filter!(st, 1, SkxChaFilter1, |f| f.set_rem(on)),
        m::RMEM => filter!(st, 1, SkxChaFilter1, |f| f.set_not_nm(on)),
        m::DNID => filter!(st, 0, SkxUpiFilter, |f| {
            f.set_dnid(ival);
            f.set_en_dnid(1);
        }),
        m::RCSNID => filter!(st, 0, SkxUpiFilter, |f| {
            f.set_rcsnid(ival);
            f.set_en_rcsnid(1);
        }),
        _ => {}
    }
}

/// The value the fully-qualified string shows for modifier `id` (`None`:
/// not shown).
pub(super) fn fstr_value(st: &Regs, id: u64) -> Option<u64> {
    let (c, p) = (BoxCtl(st.reg), PcuCtl(st.reg));
    let (f0, f1) = (st.filters[0], st.filters[1]);
    let v = match id {
        m::E if st.occ => p.occ_edge(),
        m::E => c.edge(),
        m::I if st.occ => p.occ_inv(),
        m::I => c.inv(),
        m::T8 => c.thres(),
        m::T5 => p.thres(),
        // The enable bit, not the thread id.
        m::TF => c.tid_en(),
        m::TF1 => SkxChaFilter0(f0).tid(),
        m::CF => SnbepCboFilter(f0).cid(),
        m::CF1 => HswepCboFilter0(f0).cid(),
        m::CF2 => SkxChaFilter0(f0).sid(),
        m::FF => (f0 >> band_shift(st.pcu_band)) & 0xff,
        m::ISOC => CboFilter1(f1).isoc(),
        m::NC => CboFilter1(f1).nc(),
        m::NF if st.modmsk_r & (1 << m::NF) != 0 => SnbepCboFilter(f0).nid(),
        m::NF1 if st.modmsk_r & (1 << m::NF1) != 0 => CboFilter1(f1).nid(),
        m::NF | m::NF1 => return None,
        m::ADDR => {
            let a = HaAddrMatch(st.addr);
            a.hi() << 26 | a.lo()
        }
        // `rmem` and `lmem` show the remote and local target bits.
        m::REM | m::RMEM => SkxChaFilter1(f1).rem(),
        m::LOC | m::LMEM => SkxChaFilter1(f1).loc(),
        m::DNID => SkxUpiFilter(f0).dnid(),
        m::RCSNID => SkxUpiFilter(f0).rcsnid(),
        m::T6 => IcxPcuCtl(st.reg).thres(),
        m::OCC_I => IcxPcuCtl(st.reg).occ_inv(),
        m::OCC_E => IcxPcuCtl(st.reg).occ_edge(),
        _ => return None,
    };
    Some(v)
}

/// The box's registers as the attributes set them (control, filter words,
/// address match) and what the filter rules need to know.
pub(super) struct Regs {
    /// The control register.
    pub reg: u64,
    /// Unit mask bits the event code hard-wires (code >> 8).
    pub umask1: u64,
    /// Unit mask bits requested (libpfm4's `umask2`).
    pub umask2: u64,
    /// Filter words 0 and 1.
    pub filters: [u64; 2],
    /// Home agent address match.
    pub addr: u64,
    /// Modifiers given (bit = id).
    pub given: u32,
    /// Modifiers required (event and unit masks).
    pub modmsk_r: u32,
    /// Filter 0 is part of the codes even when 0.
    pub must_have_filt0: bool,
    /// PCU frequency band of `ff` (-1: none given).
    pub pcu_band: i64,
    /// Is this a PCU occupancy event?
    pub occ: bool,
}

impl Regs {
    pub fn new(d: &Desc) -> Regs {
        let ev = d.event;
        let code = ev.code();
        Regs {
            reg: code,
            umask1: code >> 8,
            umask2: code >> 8,
            filters: [0; 2],
            addr: 0,
            given: 0,
            modmsk_r: ev.ext(EXT_MODS_REQUIRED),
            must_have_filt0: ev.flags() & ev_flag::FORCE_FILT0 != 0,
            pcu_band: -1,
            occ: d.pmu.flags() & pmu_flag::OCC != 0 && code & 0x80 != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regs(code: u64, occ: bool) -> Regs {
        Regs {
            reg: code,
            umask1: code >> 8,
            umask2: code >> 8,
            filters: [0; 2],
            addr: 0,
            given: 0,
            modmsk_r: 0,
            must_have_filt0: false,
            pcu_band: -1,
            occ,
        }
    }

    /// Ice Lake-SP PCU modifiers: a 6-bit threshold in the common field,
    /// and the occupancy invert/edge bits whatever the event.
    #[test]
    fn icx_threshold_and_occupancy_bits() {
        let mut st = regs(0x35, false);
        place_modifier(&mut st, m::OCC_I, 1);
        place_modifier(&mut st, m::OCC_E, 1);
        assert_eq!(st.reg, 0xc000_0035);
        assert_eq!(fstr_value(&st, m::OCC_I), Some(1));
        assert_eq!(fstr_value(&st, m::OCC_E), Some(1));
        // The threshold writes the whole 8-bit field: the occupancy bits go.
        place_modifier(&mut st, m::T6, 0x3f);
        assert_eq!(st.reg, 0x3f00_0035);
        assert_eq!(fstr_value(&st, m::T6), Some(0x3f));
        assert_eq!(fstr_value(&st, m::OCC_I), Some(0));
        // Set after the threshold, they stay and the threshold shows 6 bits.
        place_modifier(&mut st, m::OCC_E, 1);
        assert_eq!(st.reg, 0xbf00_0035);
        assert_eq!(fstr_value(&st, m::T6), Some(0x3f));
        assert_eq!(fstr_value(&st, m::T8), Some(0xbf));
        // `e` and `i` keep their own bits on a non-occupancy event.
        place_modifier(&mut st, m::I, 1);
        place_modifier(&mut st, m::E, 1);
        assert_eq!(st.reg, 0xbf84_0035);
    }

    /// On an occupancy event (`occ` PMU, code bit 7) `e`/`i` and
    /// `occ_e`/`occ_i` set the same bits.
    #[test]
    fn occupancy_event_edge_invert() {
        let mut st = regs(0x80, true);
        place_modifier(&mut st, m::E, 1);
        assert_eq!(st.reg, 0x8000_0080);
        assert_eq!(fstr_value(&st, m::OCC_E), Some(1));
        place_modifier(&mut st, m::OCC_I, 1);
        assert_eq!(fstr_value(&st, m::I), Some(1));
    }
}
