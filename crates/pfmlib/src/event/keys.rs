//! Attribute names by key, for the attribute search of `find_attr`.
//!
//! Per family, one probe of a small hashed table says which hardware
//! modifiers and perf_events attributes a name (as its `defs::key` and
//! length) may be, instead of a scan of every offered one. Per event table,
//! a mask says which of them a unit mask of the table is also named after:
//! libpfm4 looks a name without a value up among the unit masks first, and
//! where no unit mask of the table bears a modifier's name, that search
//! cannot succeed and is skipped. Both are built on first use.

use crate::kernel::PERF_ATTRS;
use crate::tables::{EventDesc, PmuDesc};
use pfmlib_defs::{ModKind, FAMILIES, NO_KEY};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Slots of a family's table (a power of two, at least twice the 32
/// modifiers and 12 perf_events attributes a family can have).
const SLOTS: usize = 128;

/// The modifiers and perf_events attributes a name may be (bit = id).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Candidates {
    pub mods: u32,
    pub perf: u32,
}

impl Candidates {
    /// Both sets in one word: modifiers low, perf_events attributes high.
    #[inline]
    fn bits(self) -> u64 {
        u64::from(self.mods) | u64::from(self.perf) << 32
    }
}

#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    /// Name length; 0: an empty slot.
    len: u8,
    found: Candidates,
}

/// One family's names.
pub(crate) struct Names {
    slots: [Slot; SLOTS],
    /// Modifiers that take an integer value (bit = id).
    int_mods: u32,
}

impl Names {
    fn build(family: usize) -> Names {
        let mut n = Names {
            slots: [Slot::default(); SLOTS],
            int_mods: 0,
        };
        let mods = FAMILIES.get(family).map_or(&[][..], |f| f.modifiers);
        for (id, m) in mods.iter().enumerate().take(32) {
            if m.key != NO_KEY {
                n.slot_mut(m.key, m.name.len()).found.mods |= 1 << id;
            }
            if m.kind == ModKind::Int {
                n.int_mods |= 1 << id;
            }
        }
        for (id, a) in PERF_ATTRS.iter().enumerate() {
            if a.key != NO_KEY {
                n.slot_mut(a.key, a.name.len()).found.perf |= 1 << id;
            }
        }
        n
    }

    #[inline]
    fn home(key: u64, len: usize) -> usize {
        ((key ^ len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 57) as usize & (SLOTS - 1)
    }

    fn slot_mut(&mut self, key: u64, len: usize) -> &mut Slot {
        let mut i = Names::home(key, len);
        while self.slots[i].len != 0
            && (self.slots[i].key, self.slots[i].len as usize) != (key, len)
        {
            i = (i + 1) & (SLOTS - 1);
        }
        let s = &mut self.slots[i];
        s.key = key;
        s.len = len as u8;
        s
    }

    /// What a name of `len` bytes with key `key` may be (nothing for
    /// [`NO_KEY`]).
    #[inline]
    pub fn get(&self, key: u64, len: usize) -> Candidates {
        if key == NO_KEY {
            return Candidates::default();
        }
        let mut i = Names::home(key, len);
        loop {
            let s = &self.slots[i];
            if s.len == 0 {
                return Candidates::default();
            }
            if s.key == key && s.len as usize == len {
                return s.found;
            }
            i = (i + 1) & (SLOTS - 1);
        }
    }

    /// Does modifier `id` take an integer value?
    #[inline]
    pub fn is_int(&self, id: u32) -> bool {
        self.int_mods >> (id & 31) & 1 != 0
    }
}

/// The names of `pmu`'s family (the engine's: an unknown family is the
/// first, as `pmu::engine` has it).
#[inline]
pub(crate) fn names(pmu: PmuDesc) -> &'static Names {
    // Each family's table is made on its first use.
    static ALL: OnceLock<Vec<OnceLock<Names>>> = OnceLock::new();
    let all = ALL.get_or_init(|| (0..FAMILIES.len()).map(|_| OnceLock::new()).collect());
    let f = if pmu.family() < all.len() {
        pmu.family()
    } else {
        0
    };
    all[f].get_or_init(|| Names::build(f))
}

/// Per event table: 0 (not computed yet), or [`COMPUTED`] | the family
/// (plus one) at bit 48 | the candidates a unit mask name of the table
/// matches ([`Candidates::bits`]).
static CLASHES: OnceLock<Vec<AtomicU64>> = OnceLock::new();
const COMPUTED: u64 = 1 << 63;
const CANDIDATE_BITS: u64 = (1 << 48) - 1;

/// Of the candidates `c` of a name, do any share it with a unit mask of the
/// table of `ev` (any event, any variant)? When not, a unit-mask search for
/// that name cannot succeed.
#[inline]
pub(crate) fn umask_may_clash(pmu: PmuDesc, ev: EventDesc, c: Candidates) -> bool {
    let all = CLASHES.get_or_init(|| {
        (0..EventDesc::num_tables())
            .map(|_| AtomicU64::new(0))
            .collect()
    });
    let Some(cell) = all.get(ev.table_id()) else {
        return true;
    };
    let tag = COMPUTED | (pmu.family() as u64 + 1) << 48;
    let mut v = cell.load(Ordering::Relaxed);
    if v & !CANDIDATE_BITS != tag {
        let names = names(pmu);
        let clash = ev
            .table_umask_names()
            .filter(|n| (1..=8).contains(&n.len()))
            .fold(0, |m, n| m | names.get(pfmlib_defs::key(n), n.len()).bits());
        v = tag | clash;
        cell.store(v, Ordering::Relaxed);
    }
    v & c.bits() != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table answers as a scan of every modifier and perf_events
    /// attribute by key and length would.
    #[test]
    fn names_like_a_scan() {
        for (f, defs) in FAMILIES.iter().enumerate() {
            let n = Names::build(f);
            let mut probes: Vec<&str> = defs.modifiers.iter().map(|m| m.name).collect();
            probes.extend(PERF_ATTRS.iter().map(|a| a.name));
            probes.extend(["x", "uu", "K", "PERIOD", "k\0", "", "abcdefghi", "intx"]);
            for p in probes {
                let key = pfmlib_defs::key(p.as_bytes());
                let mut want = Candidates::default();
                if key != NO_KEY {
                    for (id, m) in defs.modifiers.iter().enumerate().take(32) {
                        if m.key == key && m.name.len() == p.len() {
                            want.mods |= 1 << id;
                        }
                    }
                    for (id, a) in PERF_ATTRS.iter().enumerate() {
                        if a.key == key && a.name.len() == p.len() {
                            want.perf |= 1 << id;
                        }
                    }
                }
                assert_eq!(n.get(key, p.len()), want, "{} {p:?}", defs.name);
            }
            for (id, m) in defs.modifiers.iter().enumerate().take(32) {
                assert_eq!(n.is_int(id as u32), m.kind == ModKind::Int);
            }
        }
    }

    /// The clash mask is exact for every table: a candidate clashes when
    /// some unit mask of the table has its name (any case).
    #[test]
    fn clashes_are_exact() {
        let mut seen = std::collections::HashSet::new();
        for p in PmuDesc::all() {
            let Some(ev) = p.events().next() else {
                continue;
            };
            if !seen.insert((ev.table_id(), p.family())) {
                continue;
            }
            let defs = FAMILIES[p.family()];
            for (id, m) in defs.modifiers.iter().enumerate().take(32) {
                if m.key == NO_KEY {
                    continue;
                }
                let named = ev
                    .table_umask_names()
                    .any(|u| u.eq_ignore_ascii_case(m.name.as_bytes()));
                let c = Candidates {
                    mods: 1 << id,
                    perf: 0,
                };
                assert_eq!(umask_may_clash(p, ev, c), named, "{} {}", p.name(), m.name);
            }
            for (id, a) in PERF_ATTRS.iter().enumerate() {
                if a.key == NO_KEY {
                    continue;
                }
                let named = ev
                    .table_umask_names()
                    .any(|u| u.eq_ignore_ascii_case(a.name.as_bytes()));
                let c = Candidates {
                    mods: 0,
                    perf: 1 << id,
                };
                assert_eq!(umask_may_clash(p, ev, c), named, "{} {}", p.name(), a.name);
            }
        }
    }
}
