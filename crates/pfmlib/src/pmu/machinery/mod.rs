//! The unit-mask and modifier machinery the register-based families share,
//! driven by each family's rules instead of written again by each:
//!
//! - [`UmaskRules`] says which of a family's flags carry each generic rule
//!   (default, not combined, group exclusions, required groups, groups that
//!   may stay empty) and where its extra words are; [`Umasks`] applies the
//!   unit masks of an event string under those rules, adds the defaults of
//!   the groups left empty and checks the rules between groups.
//! - [`ModTable`] says, per hardware modifier, which values it takes and
//!   where it goes (a field of the main register, or the family's own
//!   code); [`ModTable::apply`] checks and places a modifier, and gives
//!   the value the fully-qualified string shows.
//! - [`Encoding::apply_attrs`] is the one loop over an event string's
//!   attributes: it applies both and hands the family only what is its own
//!   ([`Own`]: a unit mask's other effects, a modifier it places itself).
//!
//! Everything here is plain data read in place: no allocation and no
//! dynamic call per attribute (the hooks are generic closures).

mod modifiers;
mod umasks;

pub(crate) use modifiers::{hardwired_error, perfevtsel, Applied, ModSpec, ModTable};
pub(crate) use umasks::{all_groups, featcomb, push_umask, UmaskRules, Umasks};

use crate::desc::{AttrRef, Desc};
use crate::error::Result;
use crate::tables::UmaskDesc;

/// What the standard attribute loop ([`Encoding::apply_attrs`]) hands to
/// the family after the shared rules.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Own {
    /// A unit mask given, its group rules applied.
    Umask(UmaskDesc),
    /// A raw unit mask, its width checked.
    Raw(u64),
    /// A modifier the family places itself (id, value in range).
    Mod(u64, u64),
    /// A modifier id the table does not have.
    Unknown,
}

/// An encoding in progress: the main register, the unit masks given and
/// the modifiers given, which every family starts from.
#[derive(Default)]
pub(crate) struct Encoding {
    /// The main register (modifier fields placed by the table).
    pub reg: u64,
    /// The unit masks given, and the defaults added.
    pub um: Umasks,
    /// Modifiers given (bit = id).
    pub given: u32,
}

impl Encoding {
    /// An encoding starting from register value `reg`.
    pub fn new(reg: u64) -> Encoding {
        Encoding {
            reg,
            ..Encoding::default()
        }
    }

    /// The attributes of `d` in order: unit masks through `rules`, raw
    /// unit masks of at most `raw_width` bits, modifiers through `mods`;
    /// what is the family's own goes to `own`.
    #[inline]
    pub fn apply_attrs(
        &mut self,
        rules: &UmaskRules,
        mods: &ModTable,
        d: &Desc,
        raw_width: u32,
        mut own: impl FnMut(&mut Encoding, Own) -> Result<()>,
    ) -> Result<()> {
        for a in &d.attrs {
            match a.what {
                AttrRef::Umask(i) => {
                    let um = d.umask(i);
                    self.um.apply(rules, d, um)?;
                    own(self, Own::Umask(um))?;
                }
                AttrRef::Raw(v) => {
                    self.um.raw(d, v, raw_width)?;
                    own(self, Own::Raw(v))?;
                }
                AttrRef::Mod(m) => {
                    let id = u64::from(m);
                    match mods.apply(d, &mut self.reg, &mut self.given, id, a.ival)? {
                        Applied::Placed => {}
                        Applied::Own => own(self, Own::Mod(id, a.ival))?,
                        Applied::Unknown => own(self, Own::Unknown)?,
                    }
                }
                AttrRef::Perf(_) => {}
            }
        }
        Ok(())
    }
}
