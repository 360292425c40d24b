//! Hardware modifiers: the values each takes and where it goes
//! ([`ModSpec`], [`ModTable`]), checked and placed in one step.

use crate::desc::Desc;
use crate::error::{Error, ErrorKind, Result};
use crate::model::Plm;
use pfmlib_defs::{ModDef, ModKind};

/// The fields of Intel's PERFEVTSEL that AMD's PERF_CTL and the Nehalem
/// uncore PERFEVTSEL share: privilege levels, edge, invert, counter mask.
pub(crate) mod perfevtsel {
    use super::ModSpec;
    use crate::model::Plm;
    /// `k`: count at level 0 (OS, bit 17).
    pub const K: ModSpec = ModSpec::plm(17, Plm::PLM0);
    /// `u`: count at levels 1-3 (USR, bit 16).
    pub const U: ModSpec = ModSpec::plm(16, Plm::PLM3);
    /// `e`: edge detect (bit 18).
    pub const E: ModSpec = ModSpec::bit(18);
    /// `i`: invert the counter-mask comparison (bit 23).
    pub const I: ModSpec = ModSpec::bit(23);
    /// `c`: counter mask (bits 24-31).
    pub const C: ModSpec = ModSpec::int(24, 8, 0, 255);
}

/// Where a hardware modifier's value goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// The family's own code places it.
    Own,
    /// The bits of `mask` in the main register, from bit `lo` (a boolean
    /// modifier writes 0 or 1).
    Field {
        /// Lowest bit.
        lo: u8,
        /// The field's bits, in place.
        mask: u64,
    },
}

impl Place {
    /// Bits `lo .. lo + width`.
    const fn field(lo: u8, width: u8) -> Place {
        Place::Field {
            lo,
            mask: (u64::MAX >> (64 - width as u32)) << lo,
        }
    }
}

/// One hardware modifier of a family: the values it takes, where it goes,
/// and the privilege level it filters, if any.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ModSpec {
    /// Where the value goes.
    pub place: Place,
    /// Smallest and largest value of an integer modifier.
    pub min: u64,
    /// Largest value.
    pub max: u64,
    /// The privilege level it filters, if any.
    pub plm: Option<Plm>,
}

impl ModSpec {
    /// A boolean in one bit of the main register.
    pub const fn bit(lo: u8) -> ModSpec {
        ModSpec {
            place: Place::field(lo, 1),
            min: 0,
            max: 1,
            plm: None,
        }
    }

    /// A privilege-level filter in one bit of the main register.
    pub const fn plm(lo: u8, plm: Plm) -> ModSpec {
        ModSpec {
            plm: Some(plm),
            ..ModSpec::bit(lo)
        }
    }

    /// An integer in `min..=max`, in bits `lo .. lo + width`.
    pub const fn int(lo: u8, width: u8, min: u64, max: u64) -> ModSpec {
        ModSpec {
            place: Place::field(lo, width),
            min,
            max,
            plm: None,
        }
    }

    /// A modifier the family places itself; integers take `min..=max`.
    pub const fn own(min: u64, max: u64) -> ModSpec {
        ModSpec {
            place: Place::Own,
            min,
            max,
            plm: None,
        }
    }
}

/// A family's hardware modifiers: their names (from its vocabulary) and,
/// by the same id, their specs.
pub(crate) struct ModTable {
    /// Names and kinds, by id.
    pub defs: &'static [ModDef],
    /// Values and places, by id.
    pub specs: &'static [ModSpec],
    /// The error kind of a value out of range.
    pub range_error: ErrorKind,
    /// The privilege-level modifiers (bit = id).
    plm_mods: u32,
    /// The modifiers placed in a field of the main register (bit = id).
    fields: u32,
    /// By id, the lowest bit and the bits of its field (0 where none).
    field_lo: [u8; 32],
    /// By id, the bits of its field in place.
    field_mask: [u64; 32],
}

impl ModTable {
    /// A table of `specs` for the modifiers `defs` (same ids): a
    /// compile-time error if the two lists differ in length.
    pub const fn new(
        defs: &'static [ModDef],
        specs: &'static [ModSpec],
        range_error: ErrorKind,
    ) -> ModTable {
        assert!(defs.len() == specs.len(), "one spec per modifier");
        assert!(specs.len() <= 32, "at most 32 modifiers");
        let mut plm_mods = 0;
        let (mut fields, mut field_lo, mut field_mask) = (0, [0u8; 32], [0u64; 32]);
        let mut id = 0;
        while id < specs.len() {
            if specs[id].plm.is_some() {
                plm_mods |= 1 << id;
            }
            if let Place::Field { lo, mask } = specs[id].place {
                fields |= 1 << id;
                field_lo[id] = lo;
                field_mask[id] = mask;
            }
            id += 1;
        }
        ModTable {
            defs,
            specs,
            range_error,
            plm_mods,
            fields,
            field_lo,
            field_mask,
        }
    }
}

/// What [`ModTable::apply`] did with a modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Applied {
    /// Placed in the main register.
    Placed,
    /// In range; the family places it.
    Own,
    /// Not a modifier of the table.
    Unknown,
}

impl ModTable {
    /// Checks modifier `id`'s value `ival`, records it in `given` (bit =
    /// id) and places it in `reg` when its place is a field.
    #[inline]
    pub fn apply(
        &self,
        d: &Desc,
        reg: &mut u64,
        given: &mut u32,
        id: u64,
        ival: u64,
    ) -> Result<Applied> {
        let (Some(s), Some(m)) = (self.specs.get(id as usize), self.defs.get(id as usize)) else {
            return Ok(Applied::Unknown);
        };
        let value = if m.kind == ModKind::Bool {
            u64::from(ival != 0)
        } else if ival < s.min || ival > s.max {
            return Err(self.out_of_range(d, m, s, ival));
        } else {
            ival
        };
        *given |= 1 << id;
        match s.place {
            Place::Field { lo, mask } => {
                *reg = (*reg & !mask) | ((value << lo) & mask);
                Ok(Applied::Placed)
            }
            Place::Own => Ok(Applied::Own),
        }
    }

    /// Modifier `m` (spec `s`) was given `ival`, outside its range.
    #[cold]
    #[inline(never)]
    fn out_of_range(&self, d: &Desc, m: &ModDef, s: &ModSpec, ival: u64) -> Error {
        Error::new(
            self.range_error,
            format!(
                "{}={ival} of {} is out of range [{}-{}]",
                m.name,
                d.event_name(),
                s.min,
                s.max
            ),
        )
    }

    /// The value of field modifier `id` in `reg` (`None`: placed by the
    /// family, or unknown).
    #[inline]
    pub fn value(&self, reg: u64, id: u64) -> Option<u64> {
        if id >= 32 || self.fields >> id & 1 == 0 {
            return None;
        }
        let i = id as usize & 31;
        Some((reg & self.field_mask[i]) >> self.field_lo[i])
    }

    /// No privilege-level modifier in `given`: sets the bit of each level
    /// of the event's default levels (`d.dfl_plm`) that `supported` (`PFM_PLM*`
    /// bits) has.
    pub fn default_plm(&self, d: &Desc, reg: &mut u64, given: u32, supported: u32) {
        if given & self.plm_mods != 0 {
            return;
        }
        for s in self.specs {
            if let (Place::Field { lo, .. }, Some(plm)) = (s.place, s.plm) {
                if d.dfl_plm.contains(plm) && supported & plm.bits() == plm.bits() {
                    *reg |= 1 << lo;
                }
            }
        }
    }

    /// A field modifier in `ids` (bit = id) both hard-wired in `fixed` (a
    /// register with the unit masks' fields) and given in `reg` must have
    /// the same value in both.
    pub fn check_hardwired(&self, d: &Desc, ids: u32, fixed: u64, reg: u64) -> Result<()> {
        let mut rest = ids;
        while rest != 0 {
            let id = u64::from(rest.trailing_zeros());
            rest &= rest - 1;
            if let (Some(want), Some(got)) = (self.value(fixed, id), self.value(reg, id)) {
                if want != got {
                    let name = self.defs.get(id as usize).map_or("?", |m| m.name);
                    return Err(hardwired_error(d, name, want, got));
                }
            }
        }
        Ok(())
    }

    /// Writes the fully-qualified string: unit masks, then each modifier
    /// offered with its field's value in `reg`, or `own`'s for the others.
    pub fn write_fstr(&self, d: &mut Desc, reg: u64, own: impl Fn(u64) -> Option<u64>) {
        d.write_fstr(self.defs, |id| self.value(reg, id).or_else(|| own(id)));
    }

    /// Appends each modifier offered with its value, as
    /// [`ModTable::write_fstr`] does after the unit masks.
    pub fn write_fstr_mods(&self, d: &mut Desc, reg: u64, own: impl Fn(u64) -> Option<u64>) {
        d.write_fstr_mods(self.defs, |id| self.value(reg, id).or_else(|| own(id)));
    }
}

/// A unit mask hard-wires `name=fixed`, and `name=asked` was given.
pub(crate) fn hardwired_error(d: &Desc, name: &str, fixed: u64, asked: u64) -> Error {
    Error::new(
        ErrorKind::AttrSet,
        format!(
            "{}: the unit mask fixes {name}={fixed}, so {name}={asked} cannot be set",
            d.event_name()
        ),
    )
}
