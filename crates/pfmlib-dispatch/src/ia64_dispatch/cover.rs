//! Covering address ranges with debug-register pairs (`IBRn`/`DBRn`: an
//! address and a mask): several pairs per range (normal), one aligned block
//! (single), or a lower and an upper bound (fine mode).

use super::common::{err, ia64_reg, plm4};
use crate::error::{DispatchError, DispatchErrorKind as K};
use crate::request::RangeParams;
use crate::response::{RangeInfo, RangeResult, RegValue};
use pfmlib::regs::DbrMask;

/// Address bits a debug-register mask covers.
pub(super) const M56: u64 = (1 << 56) - 1;

/// Debug-register pairs computed for a set of ranges.
#[derive(Default)]
pub(super) struct Rr {
    /// (register number, value), two per pair.
    pub br: Vec<(u32, u64)>,
    /// Per range: how far the cover starts before and ends after it.
    pub infos: [(u64, u64); 4],
}

impl Rr {
    /// The result, registers named `kind` (`IBR`, `DBR`).
    pub fn result(&self, kind: &'static str) -> RangeResult {
        RangeResult {
            rr_nbr_used: self.br.len() as u32,
            rr_br: self
                .br
                .iter()
                .map(|&(n, v)| RegValue {
                    reg: ia64_reg(kind, n),
                    value: v,
                })
                .collect(),
            rr_infos: self
                .infos
                .iter()
                .map(|&(soff, eoff)| RangeInfo { soff, eoff })
                .collect(),
        }
    }

    /// Is debug register `reg` programmed?
    pub fn uses(&self, reg: u32) -> bool {
        self.br.iter().any(|&(r, _)| r == reg)
    }
}

/// One validated range: start, end, privilege levels (0: default).
pub(super) type Range = (u64, u64, u32);

/// The mask half of a pair covering 2^p bytes at privilege levels `plm`.
fn dbr_mask(p: u32, plm: u32) -> u64 {
    let mut m = DbrMask::default();
    m.set_mask(if p >= 56 { 0 } else { !((1u64 << p) - 1) & M56 });
    m.set_plm(u64::from(plm));
    m.0
}

fn pow2(p: u32) -> u64 {
    if p >= 64 {
        0
    } else {
        1u64 << p
    }
}

fn align_down(a: u64, p: u32) -> u64 {
    if p >= 64 {
        0
    } else {
        a & !((1u64 << p) - 1)
    }
}

/// Index of the most significant set bit.
fn fls(x: u64) -> u32 {
    63 - x.leading_zeros()
}

/// Checks up to four ranges; a zero range ends the list.
pub(super) fn check_intervals(rr: &RangeParams, code: bool) -> Result<Vec<Range>, DispatchError> {
    let what = if code { "code" } else { "data" };
    let mut v = Vec::new();
    for (i, r) in rr.ranges.iter().enumerate() {
        if i == 4 {
            return Err(err(
                if code { K::IrrTooMany } else { K::DrrTooMany },
                format!("{} {what} ranges: at most 4", rr.ranges.len()),
            ));
        }
        let (s, e) = (r.start.0, r.end.0);
        if s == 0 && e == 0 {
            break;
        }
        if s >= e {
            return Err(err(
                K::IrrInvalid,
                format!("range [{s:#x}, {e:#x}) is empty or reversed: start must be below end"),
            ));
        }
        if code && (s & 0xf != 0 || e & 0xf != 0) {
            return Err(err(
                K::IrrAlign,
                format!("code range [{s:#x}, {e:#x}) is not bundle-aligned: start and end must be multiples of 16"),
            ));
        }
        let plm = match &r.plm {
            Some(p) => plm4(p)?,
            None => 0,
        };
        v.push((s, e, plm));
    }
    if v.is_empty() {
        return Err(if code {
            err(K::IrrInvalid, "code range restriction asked with no range")
        } else {
            err(K::DrrInvalid, "data range restriction asked with no range")
        });
    }
    Ok(v)
}

/// Pairs being written for one range, from register `next` on.
struct Pairs<'a> {
    next: u32,
    plm: u32,
    br: &'a mut Vec<(u32, u64)>,
}

impl Pairs<'_> {
    /// One pair: the block of 2^p bytes at `base`.
    fn push(&mut self, base: u64, p: u32) {
        self.br.push((self.next, base));
        self.br.push((self.next + 1, dbr_mask(p, self.plm)));
        self.next += 2;
    }

    /// Covers `[start, end)` with at most `nbr` pairs (recursively: one
    /// aligned power-of-two block, then the left and right leftovers), never
    /// covering less than asked.
    fn cover(&mut self, start: u64, end: u64, nbr: u32, right: bool) {
        if nbr < 1 || end <= start {
            return;
        }
        let size = end - start;
        let mut p = fls(size);
        let c = align_down(end, p);
        let mut l = if c.wrapping_sub(pow2(p)) >= start && c >= pow2(p) {
            c - pow2(p)
        } else {
            p = p.saturating_sub(1);
            if c.checked_add(pow2(p)).is_some_and(|x| x <= end) {
                c
            } else {
                c.wrapping_sub(pow2(p))
            }
        };
        let lsz = l.wrapping_sub(start);
        let rsz = end.wrapping_sub(l.wrapping_add(pow2(p)));
        if !right && lsz != 0 && nbr == 1 {
            p += 1;
            l = end.wrapping_sub(pow2(p));
        } else if right && rsz != 0 && nbr == 1 {
            p += 1;
            l = start;
        }
        let lsz = l.wrapping_sub(start);
        let rsz = end.wrapping_sub(l.wrapping_add(pow2(p)));
        self.push(l, p);
        let nbr = nbr - 1;
        if nbr > 0 {
            let (mut ln, mut rn) = (nbr / 2, nbr / 2);
            if nbr & 1 != 0 {
                if lsz > rsz {
                    ln += 1;
                } else {
                    rn += 1;
                }
            }
            self.cover(start, l, ln, false);
            self.cover(l.wrapping_add(pow2(p)), end, rn, true);
        }
    }
}

/// Covers every range with the debug-register pairs left (normal mode).
pub(super) fn cover_all(
    ranges: &[Range],
    dfl_plm: u32,
    rr: &mut Rr,
    code: bool,
) -> Result<(), DispatchError> {
    let mut reg = 0;
    for (i, &(s, e, plm)) in ranges.iter().enumerate() {
        if rr.br.len() >= 8 || reg >= 8 {
            return Err(err(
                if code { K::IrrTooMany } else { K::DrrTooMany },
                format!(
                    "{} range {} of {} finds no debug-register pair left (4 pairs in all)",
                    if code { "code" } else { "data" },
                    i + 1,
                    ranges.len()
                ),
            ));
        }
        let prev = rr.br.len();
        let mut pairs = Pairs {
            next: reg,
            plm: if plm != 0 { plm } else { dfl_plm },
            br: &mut rr.br,
        };
        pairs.cover(s, e, 4 - reg / 2, false);
        reg = pairs.next;
        rr.infos[i] = offsets(&rr.br[prev..], s, e);
    }
    Ok(())
}

/// How far the pairs' blocks start before `s` and end after `e`.
fn offsets(pairs: &[(u32, u64)], s: u64, e: u64) -> (u64, u64) {
    let (mut soff, mut eoff) = (0, 0);
    for pair in pairs.chunks(2) {
        let base = pair[0].1;
        let m = pair.get(1).map_or(0, |p| p.1) & M56;
        let size = (!m).wrapping_add(1) & M56;
        if base <= s {
            soff = s - base;
        }
        if base.wrapping_add(size) >= e {
            eoff = base.wrapping_add(size) - e;
        }
    }
    (soff, eoff)
}

/// One pair from register `base` on covering the first range: the smallest
/// aligned power-of-two block.
pub(super) fn cover_single(
    ranges: &[Range],
    dfl_plm: u32,
    base: u32,
    rr: &mut Rr,
) -> Result<(), DispatchError> {
    let (s, e, plm) = ranges[0];
    let size = e - s;
    let l = fls(size);
    let mut m = l;
    if size & (pow2(l) - 1) != 0 {
        if l > 62 {
            return Err(err(
                K::IrrTooBig,
                format!("code range [{s:#x}, {e:#x}) is too big for one debug-register pair"),
            ));
        }
        m += 1;
    }
    let Some((m, ps, pe)) = (m..64)
        .map(|m| {
            let ps = align_down(s, m);
            (m, ps, ps.wrapping_add(pow2(m)))
        })
        .find(|&(_, _, pe)| pe >= e)
    else {
        return Err(err(
            K::IrrInvalid,
            format!("code range [{s:#x}, {e:#x}) cannot be covered by one aligned block"),
        ));
    };
    let mut pairs = Pairs {
        next: base,
        plm: if plm != 0 { plm } else { dfl_plm },
        br: &mut rr.br,
    };
    pairs.push(ps, m);
    rr.infos[0] = (s - ps, pe - e);
    Ok(())
}

/// Fine mode: per range a lower and an upper bound in pairs `reg` and
/// `reg + 4`, from `base` on; returns the next free register. The erratum
/// workaround aligns the bounds to 32 bytes.
pub(super) fn cover_fine(
    ranges: &[Range],
    dfl_plm: u32,
    base: u32,
    rr: &mut Rr,
    boundary_bits: u32,
    erratum: bool,
) -> Result<u32, DispatchError> {
    if ranges.len() > 2 {
        return Err(err(
            K::IrrTooMany,
            format!("{} code ranges in fine mode: at most 2", ranges.len()),
        ));
    }
    let mut reg = base;
    for (i, &(s, e, plm)) in ranges.iter().enumerate() {
        let mut m = DbrMask::default();
        m.set_mask(!(pow2(boundary_bits) - 1) & M56);
        m.set_plm(u64::from(if plm != 0 { plm } else { dfl_plm }));
        let lo = if erratum { align_down(s, 5) } else { s };
        let mut hi = e - 0x10;
        if erratum && hi & 0x1f == 0 {
            hi = hi.wrapping_add(0x10);
        }
        rr.br.push((reg, lo));
        rr.br.push((reg + 1, m.0));
        rr.br.push((reg + 4, hi));
        rr.br.push((reg + 5, m.0));
        rr.infos[i] = (s - lo, hi.wrapping_add(0x10).wrapping_sub(e));
        reg += 2;
    }
    Ok(reg)
}
