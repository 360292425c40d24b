//! Unit masks: the group rules of a family ([`UmaskRules`]) applied to the
//! unit masks of an event string ([`Umasks`]), and the defaults of the
//! groups left empty.

use crate::desc::{Attr, AttrRef, Desc};
use crate::error::{Error, ErrorKind, Result};
use crate::tables::{EventDesc, UmaskDesc};

/// Bit mask of the groups `0..ngrp` of `ev`.
#[inline]
pub(crate) fn all_groups(ev: EventDesc) -> u32 {
    1u32.checked_shl(ev.ngrp()).map_or(u32::MAX, |b| b - 1)
}

/// A feature-combination error about the event of `d`.
pub(crate) fn featcomb(d: &Desc, why: std::fmt::Arguments<'_>) -> Error {
    Error::new(
        ErrorKind::FeatureCombination,
        format!("{}: {why}", d.event_name()),
    )
}

/// Adds unit mask `j` of the event to the attributes (a default chosen by
/// the engine: it then shows in the fully-qualified string).
#[inline]
pub(crate) fn push_umask(d: &mut Desc, j: usize) {
    d.attrs.push(Attr {
        what: AttrRef::Umask(j as u16),
        ival: 0,
    });
}

/// How a family treats unit masks: the flag bit that carries each rule (0
/// where the family has no such rule) and where its extra words are.
pub(crate) struct UmaskRules {
    /// Unit-mask flag: a default of its group.
    pub dfl: u32,
    /// Unit-mask flag: not combined with another unit mask of its group.
    pub ncombo: u32,
    /// Unit-mask flag: no unit mask of a higher group may be used with it.
    pub excl_grp_gt: u32,
    /// Unit-mask flag: only group 0 and its own group may have unit masks.
    pub excl_grp_but_0: u32,
    /// Unit-mask flag: its group may stay empty (it is never a default).
    pub grp_dfl_none: u32,
    /// Unit-mask flag: it needs a unit mask of the group its extra word
    /// [`UmaskRules::req_grp_ext`] names.
    pub grp_req: u32,
    /// Unit-mask flag: a group without default whose unit masks all carry
    /// it may stay empty.
    pub omit: u32,
    /// Event flag: unit masks of one group only (and one default).
    pub grp_excl: u32,
    /// Unit-mask extra word: the required group + 1.
    pub req_grp_ext: Option<usize>,
    /// Unit-mask extra word: modifiers the unit mask requires.
    pub mods_required_ext: Option<usize>,
    /// Compare groups as libpfm4's x86 16-bit group id (the required group
    /// in bits 8-15) where exclusions are decided.
    pub full_grpid: bool,
    /// Add only the first default of a group.
    pub first_default_only: bool,
}

impl UmaskRules {
    /// No rule at all: the base of a family's rules.
    pub const NONE: UmaskRules = UmaskRules {
        dfl: 0,
        ncombo: 0,
        excl_grp_gt: 0,
        excl_grp_but_0: 0,
        grp_dfl_none: 0,
        grp_req: 0,
        omit: 0,
        grp_excl: 0,
        req_grp_ext: None,
        mods_required_ext: None,
        full_grpid: false,
        first_default_only: false,
    };

    /// The group a `grp_req` unit mask needs.
    #[inline]
    fn req_grp(&self, um: UmaskDesc) -> u32 {
        self.req_grp_ext
            .map_or(0, |w| um.ext(w).saturating_sub(1) & 31)
    }

    /// The group id exclusions compare.
    #[inline]
    pub fn grpid(&self, um: UmaskDesc) -> u32 {
        if self.full_grpid {
            let req = self.req_grp_ext.map_or(0, |w| um.ext(w));
            um.grp() | req.checked_sub(1).map_or(0, |g| (g & 0xff) << 8)
        } else {
            um.grp()
        }
    }
}

/// The unit masks an event string gave, as the rules between them need.
#[derive(Default, Clone, Copy)]
pub(crate) struct Umasks {
    /// Their codes ORed (a raw unit mask replaces them), defaults included.
    pub bits: u64,
    /// Groups that have a unit mask (all of them after a raw unit mask).
    pub groups: u32,
    /// Unit masks given (a raw one included) and defaults added.
    pub count: u32,
    /// Modifiers the unit masks given hard-wire.
    pub modhw: u32,
    /// Modifiers the unit masks given require.
    pub mods_required: u32,
    /// No unit mask of a group above this one (`excl_grp_gt`).
    pub max_grpid: Option<u32>,
    /// Only group 0 and this group (`excl_grp_but_0`).
    pub excl_grp_but_0: Option<u32>,
    /// Groups the unit masks given require (`grp_req`).
    pub req_groups: u32,
    /// Groups with a unit mask given (raw aside), and with two or more.
    seen: u32,
    multi: u32,
    /// Groups with a unit mask that is not combined.
    ncombo: u32,
    last_grp: Option<u32>,
}

impl Umasks {
    /// Applies one unit mask given under `r`.
    #[inline]
    pub fn apply(&mut self, r: &UmaskRules, d: &Desc, um: UmaskDesc) -> Result<()> {
        let grp = um.grp();
        let bit = 1u32.checked_shl(grp).unwrap_or(0);
        let flags = um.flags();
        if d.event.flags() & r.grp_excl != 0 && self.last_grp.is_some_and(|l| l != grp) {
            return Err(featcomb(
                d,
                format_args!(
                    "unit mask {} cannot be combined with unit masks of another group",
                    um.name()
                ),
            ));
        }
        if flags & r.excl_grp_gt != 0 {
            self.max_grpid = Some(grp);
        }
        if flags & r.excl_grp_but_0 != 0 {
            self.excl_grp_but_0 = Some(grp);
        }
        self.multi |= self.seen & bit;
        self.seen |= bit;
        if flags & r.grp_req != 0 {
            self.req_groups |= 1 << r.req_grp(um);
        }
        if flags & r.ncombo != 0 {
            self.ncombo |= bit;
        }
        if self.multi & self.ncombo & bit != 0 {
            return Err(ncombo_error(d, grp));
        }
        self.last_grp = Some(grp);
        self.modhw |= um.modhw();
        self.bits |= um.code();
        self.groups |= bit;
        if let Some(w) = r.mods_required_ext {
            self.mods_required |= um.ext(w);
        }
        self.count += 1;
        Ok(())
    }

    /// A raw unit mask of at most `width` bits: it replaces the unit-mask
    /// bits and stands for every group.
    pub fn raw(&mut self, d: &Desc, value: u64, width: u32) -> Result<()> {
        if width < 64 && value >> width != 0 {
            return Err(Error::new(
                ErrorKind::Attr,
                format!(
                    "raw unit mask {value:#x} of {} is wider than {width} bits",
                    d.event_name()
                ),
            ));
        }
        self.bits = value;
        self.groups = all_groups(d.event);
        self.count += 1;
        Ok(())
    }

    /// Every required group has a unit mask.
    #[inline]
    pub fn check_required_groups(&self, d: &Desc) -> Result<()> {
        let missing = self.req_groups & !self.groups;
        if missing == 0 {
            return Ok(());
        }
        let g = missing.trailing_zeros();
        Err(featcomb(
            d,
            format_args!("a unit mask given needs a unit mask of group {g} too"),
        ))
    }

    /// The exclusions between groups the unit masks given ask for: with
    /// `excl_grp_but_0`, only group 0 and that group; with `excl_grp_gt`,
    /// no group above it (defaults included).
    #[inline]
    pub fn check_exclusions(&self, r: &UmaskRules, d: &Desc) -> Result<()> {
        if let Some(g) = self.excl_grp_but_0 {
            let others = self.seen & !1 & !1u32.checked_shl(g).unwrap_or(0);
            if others != 0 {
                let k = others.trailing_zeros();
                return Err(featcomb(
                    d,
                    format_args!(
                        "unit masks of group {k} cannot be combined with those of group {g}"
                    ),
                ));
            }
        }
        if let Some(max) = self.max_grpid {
            let over = d
                .umask_attrs()
                .map(|j| d.umask(j))
                .find(|u| r.grpid(*u) > max);
            if let Some(um) = over {
                return Err(featcomb(
                    d,
                    format_args!(
                        "unit mask {} cannot be used with the unit masks chosen before it",
                        um.name()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Adds the defaults of every group of `missing` (a group mask) to the
    /// attributes and to [`Umasks::bits`], calling `added` with each. A
    /// group stays empty without error when one of its unit masks is
    /// excluded (a group above `excl_grp_gt`, `grp_dfl_none`, outside
    /// `excl_grp_but_0`) or all of them are `omit`; under `grp_excl` the
    /// first default is the only one.
    pub fn add_defaults(
        &mut self,
        r: &UmaskRules,
        d: &mut Desc,
        missing: u32,
        mut added: impl FnMut(UmaskDesc),
    ) -> Result<()> {
        let ev = d.event;
        let variant = d.pmu.variant_bit();
        let grp_excl = ev.flags() & r.grp_excl != 0;
        let mut max_grpid = self.max_grpid;
        let mut rest = missing;
        while rest != 0 {
            let g = rest.trailing_zeros();
            rest &= rest - 1;
            let (mut any, mut skip) = (false, false);
            for j in 0..ev.numasks() {
                let um = ev.umask(j);
                if !um.in_variant(variant) || um.grp() != g {
                    continue;
                }
                let flags = um.flags();
                let grpid = r.grpid(um);
                if max_grpid.is_some_and(|mx| g > mx)
                    || flags & r.grp_dfl_none != 0
                    || self
                        .excl_grp_but_0
                        .is_some_and(|e| grpid != 0 && e != grpid)
                {
                    skip = true;
                    continue;
                }
                if flags & r.dfl == 0 {
                    continue;
                }
                self.bits |= um.code();
                self.count += 1;
                push_umask(d, j);
                added(um);
                any = true;
                if grp_excl {
                    return Ok(());
                }
                if flags & r.excl_grp_gt != 0 {
                    if max_grpid.is_some() {
                        return Err(Error::new(
                            ErrorKind::Umask,
                            format!("{}: conflicting default unit masks", d.event_name()),
                        ));
                    }
                    max_grpid = Some(grpid);
                }
                if r.first_default_only {
                    break;
                }
            }
            if !any && !skip && !all_omitted(r, d, g) {
                return Err(missing_umask(d, g));
            }
        }
        Ok(())
    }
}

/// Do all unit masks of group `g` carry the family's `omit` flag?
fn all_omitted(r: &UmaskRules, d: &Desc, g: u32) -> bool {
    let variant = d.pmu.variant_bit();
    r.omit != 0
        && d.event
            .umasks()
            .filter(|u| u.in_variant(variant) && u.grp() == g)
            .all(|u| u.flags() & r.omit != 0)
}

/// The event needs a unit mask of group `g`, and has no default there.
fn missing_umask(d: &Desc, g: u32) -> Error {
    let ev = d.event;
    let choices: Vec<&str> = ev
        .umasks()
        .filter(|u| u.in_variant(d.pmu.variant_bit()) && u.grp() == g)
        .map(|u| u.name())
        .collect();
    let group = if ev.ngrp() > 1 {
        format!(" from group {g}")
    } else {
        String::new()
    };
    Error::new(
        ErrorKind::Umask,
        format!(
            "{} needs a unit mask{group}: one of {}",
            d.event_name(),
            choices.join(", ")
        ),
    )
}

fn ncombo_error(d: &Desc, grp: u32) -> Error {
    let others: Vec<&str> = d
        .umask_attrs()
        .map(|j| d.umask(j))
        .filter(|u| u.grp() == grp)
        .map(|u| u.name())
        .collect();
    featcomb(
        d,
        format_args!(
            "unit masks {} cannot be combined: one of them must be used alone in its group",
            others.join(" and ")
        ),
    )
}
