//! Unit-mask groups: the default unit masks added for groups the string left
//! empty, and the rules between groups (required groups, groups excluded by
//! `excl_grp_gt` and `excl_grp_but_0`), as libpfm4's x86 engine applies them.

use super::super::{ev_flag, full_grpid, um_flag};
use super::featcomb;
use crate::desc::{Attr, AttrRef, Desc};
use crate::error::{Error, ErrorKind, Result};

/// Every group a `grp_req` unit mask given requires (`required`, bit =
/// group) must have a unit mask (`given`).
pub(super) fn check_required_groups(required: u32, given: u32, d: &Desc) -> Result<()> {
    let missing = required & !given;
    if missing == 0 {
        return Ok(());
    }
    let g = missing.trailing_zeros();
    Err(featcomb(
        d,
        format!("a unit mask given needs a unit mask of group {g} too"),
    ))
}

/// Adds the default unit mask of every group in `missing` (a group bit mask)
/// to the attributes and returns their unit-mask bits. A group is left
/// empty without error when one of its unit masks is excluded (group above
/// `max_grpid`, `grp_dfl_none`, outside `excl_grp_but_0`).
pub(super) fn add_defaults(
    d: &mut Desc,
    missing: u32,
    mut max_grpid: Option<u32>,
    excl_grp_but_0: Option<u32>,
) -> Result<u64> {
    let ev = d.event;
    let variant = d.pmu.variant_bit();
    let grp_excl = ev.flags() & ev_flag::GRP_EXCL != 0;
    let mut bits = 0;
    for g in (0..32u32).filter(|g| missing >> g & 1 != 0) {
        let (mut added, mut skip) = (false, false);
        for j in 0..ev.numasks() {
            let um = ev.umask(j);
            if !um.in_variant(variant) || um.grp() != g {
                continue;
            }
            let flags = um.flags();
            let grpid = full_grpid(um);
            if max_grpid.is_some_and(|mx| g > mx)
                || flags & um_flag::GRP_DFL_NONE != 0
                || excl_grp_but_0.is_some_and(|e| grpid != 0 && e != grpid)
            {
                skip = true;
                continue;
            }
            if flags & um_flag::DFL == 0 {
                continue;
            }
            bits |= um.code();
            d.attrs.push(Attr {
                what: AttrRef::Umask(j as u16),
                ival: 0,
            });
            added = true;
            if grp_excl {
                return Ok(bits);
            }
            if flags & um_flag::EXCL_GRP_GT != 0 {
                if max_grpid.is_some() {
                    return Err(Error::new(
                        ErrorKind::Umask,
                        format!("{}: conflicting default unit masks", d.event_name()),
                    ));
                }
                max_grpid = Some(grpid);
            }
        }
        if !added && !skip {
            return Err(missing_umask(d, g));
        }
    }
    Ok(bits)
}

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

/// The exclusions between groups that the unit masks given ask for: with
/// `excl_grp_but_0`, only group 0 and that group; with `excl_grp_gt`, no
/// group above it (defaults included).
pub(super) fn check_groups(
    grpcounts: &[u32],
    excl_grp_but_0: Option<u32>,
    max_grpid: Option<u32>,
    d: &Desc,
) -> Result<()> {
    if let Some(g) = excl_grp_but_0 {
        for (k, &n) in grpcounts.iter().enumerate().skip(1) {
            if n > 0 && k as u32 != g {
                return Err(featcomb(
                    d,
                    format!("unit masks of group {k} cannot be combined with those of group {g}"),
                ));
            }
        }
    }
    if let Some(max) = max_grpid {
        let over = d
            .umask_attrs()
            .map(|j| d.umask(j))
            .find(|u| full_grpid(*u) > max);
        if let Some(um) = over {
            return Err(featcomb(
                d,
                format!(
                    "unit mask {} cannot be used with the unit masks chosen before it",
                    um.name()
                ),
            ));
        }
    }
    Ok(())
}
