//! Steps C and D: placing the events on counting monitors (the Itanium
//! permutation search, with the Itanium 2 cache-group rules, or Montecito's
//! phased placement) and programming them.

use super::common::err;
use super::context::{Ctx, Ev, Out};
use super::layout::{Ita2CacheRules, MontCacheRules, Placement};
use crate::error::{DispatchError, DispatchErrorKind as K};
use pfmlib::model_specific::Ia64Group;
use pfmlib::model_specific::{self as source, Ia64CounterSettings};

/// One counter per event, by the model's placement algorithm.
pub(super) fn place(cx: &Ctx<'_>, unavail: &[u32]) -> Result<Vec<u32>, DispatchError> {
    match &cx.layout.placement {
        Placement::Search(rules) => search_placement(cx, rules.as_ref(), unavail),
        Placement::Phased(rules) => phased_placement(cx, rules, unavail),
    }
}

/// Programs the counting monitor of every event.
pub(super) fn program(
    cx: &Ctx<'_>,
    system_wide: bool,
    assign: &[u32],
    out: &mut Out<'_>,
) -> Result<(), DispatchError> {
    for (e, &c) in cx.evs.iter().zip(assign) {
        if e.all_threads {
            return Err(err(
                K::NotSupported,
                format!("{}: counting all threads (.all) is not supported", e.fstr),
            ));
        }
        if e.thres >= e.f.maxincr {
            return Err(err(
                K::Invalid,
                format!(
                    "{}: threshold {} must be below the event's maximum increment per cycle ({}): valid values are 0-{}",
                    e.fstr,
                    e.thres,
                    e.f.maxincr,
                    e.f.maxincr.saturating_sub(1)
                ),
            ));
        }
        let settings = Ia64CounterSettings {
            plm: cx.plm_or_dfl(e.plm),
            system_wide,
            thres: u64::from(e.thres),
            ism: e.ism,
            mesi: e.mesi,
        };
        let value = source::ia64_counter_value(&e.f, settings);
        out.pmcs.push((c, value));
        out.pmds.push(c);
    }
    Ok(())
}

/// Itanium / Itanium 2: the first valid choice of distinct counters, in
/// lexicographic order, honouring counter masks, unavailable PMCs and the
/// cache-group rules.
fn search_placement(
    cx: &Ctx<'_>,
    rules: Option<&Ita2CacheRules>,
    unavail: &[u32],
) -> Result<Vec<u32>, DispatchError> {
    if let Some(r) = rules {
        check_ita2_groups(r, cx.evs)?;
        at_most_one(cx, r.ozq_cancels)?;
    }
    let mut cur = Vec::with_capacity(cx.evs.len());
    if search(cx, rules, unavail, &mut cur) {
        return Ok(cur);
    }
    Err(err(
        K::NoAssign,
        format!(
            "the events cannot all be placed on {} (counter constraints{})",
            cx.layout.counter_names(),
            if unavail.is_empty() {
                ""
            } else {
                " and unavailable PMCs"
            }
        ),
    ))
}

/// Itanium 2: cache events of one group must be of one set, and L2 events
/// of a set not free of the rule must share one unit mask.
fn check_ita2_groups(r: &Ita2CacheRules, evs: &[Ev]) -> Result<(), DispatchError> {
    for (i, a) in evs.iter().enumerate() {
        if a.f.group == Ia64Group::None {
            continue;
        }
        for b in evs[i + 1..].iter().filter(|b| b.f.group == a.f.group) {
            if b.f.set != a.f.set {
                return Err(err(
                    K::EventSet,
                    format!(
                        "{} and {} are cache events of different sets of one group: they cannot be measured together",
                        a.fstr, b.fstr
                    ),
                ));
            }
            if a.f.group == Ia64Group::L2d
                && !a.f.set.is_some_and(|s| r.free_umask_sets.contains(&s))
                && b.f.umask != 0
                && b.f.umask != a.f.umask
            {
                return Err(err(
                    K::NoAssign,
                    format!(
                        "{} and {}: L2 events of this set must share one unit mask",
                        a.fstr, b.fstr
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Depth-first over the counters of each event in turn.
fn search(
    cx: &Ctx<'_>,
    rules: Option<&Ita2CacheRules>,
    unavail: &[u32],
    cur: &mut Vec<u32>,
) -> bool {
    let evs = cx.evs;
    let i = cur.len();
    if i == evs.len() {
        return rules.is_none_or(|r| groups_ok(r, evs, cur));
    }
    for c in cx.layout.counters.clone() {
        if cur.contains(&c) || unavail.contains(&c) || (evs[i].f.counters >> c) & 1 == 0 {
            continue;
        }
        cur.push(c);
        if search(cx, rules, unavail, cur) {
            return true;
        }
        cur.pop();
    }
    false
}

/// Itanium 2: an L1D event must sit on the L1D counter, an L2 event on the
/// L2 counter (whose unit mask the other L2 events share, unless its set
/// is free of that rule).
fn groups_ok(r: &Ita2CacheRules, evs: &[Ev], asg: &[u32]) -> bool {
    let on = |c: u32, g: Ia64Group| {
        evs.iter()
            .zip(asg)
            .position(|(e, &a)| a == c && e.f.group == g)
    };
    let listed = |g: Ia64Group| evs.iter().any(|e| e.f.group == g);
    if listed(Ia64Group::L1d) && on(r.l1d_pmc, Ia64Group::L1d).is_none() {
        return false;
    }
    if !listed(Ia64Group::L2d) {
        return true;
    }
    let Some(k) = on(r.l2_pmc, Ia64Group::L2d) else {
        return false;
    };
    if evs[k].f.set.is_some_and(|s| r.free_umask_sets.contains(&s)) {
        return true;
    }
    let ku = evs[k].f.umask;
    !evs.iter().zip(asg).any(|(e, &c)| {
        c != r.l2_pmc && e.f.group == Ia64Group::L2d && e.f.umask != 0 && e.f.umask != ku
    })
}

/// At most one of mutually exclusive events (the OzQ cancel events).
fn at_most_one(cx: &Ctx<'_>, names: &[&str]) -> Result<(), DispatchError> {
    let codes: Vec<u64> = names.iter().filter_map(|n| cx.code_of(n)).collect();
    let mut seen: Option<&Ev> = None;
    for e in cx.evs.iter().filter(|e| codes.contains(&e.f.code)) {
        if let Some(first) = seen {
            return Err(err(
                K::Invalid,
                format!(
                    "{} and {}: only one L2 OzQ cancel event can be measured at a time",
                    first.fstr, e.fstr
                ),
            ));
        }
        seen = Some(e);
    }
    Ok(())
}

/// Montecito: the L1D event on its counter, the L2D sets on theirs, events
/// restricted to some counters next, the rest on the lowest free counters.
fn phased_placement(
    cx: &Ctx<'_>,
    rules: &MontCacheRules,
    unavail: &[u32],
) -> Result<Vec<u32>, DispatchError> {
    let evs = cx.evs;
    let l1d = l1d_event(evs)?;
    let sets = l2d_sets(evs)?;
    at_most_one(cx, rules.ozq_cancels)?;

    let mut free = Free {
        avail: (0..=*cx.layout.counters.end())
            .map(|c| cx.layout.counters.contains(&c) && !unavail.contains(&c))
            .collect(),
    };
    let mut asg = vec![0u32; evs.len()];
    if let Some(i) = l1d {
        asg[i] = free.take(rules.l1d_pmc)?;
    }
    let mut deferred = Vec::new();
    let mut placed = [0usize; 2];
    'events: for i in 0..evs.len() {
        for (k, slots) in rules.l2d_set_pmcs.iter().enumerate() {
            // The first three events of each L2D set go to that set's counters.
            if placed[k] < slots.len() && sets[k][i] {
                asg[i] = free.take(slots[placed[k]])?;
                placed[k] += 1;
                continue 'events;
            }
        }
        if Some(i) != l1d {
            deferred.push(i);
        }
    }
    place_rest(cx, &deferred, &mut free, &mut asg)?;
    Ok(asg)
}

/// The last L1D event (which gets the L1D counter); L1D events must all be of one set.
fn l1d_event(evs: &[Ev]) -> Result<Option<usize>, DispatchError> {
    let mut l1d = None;
    for (i, a) in evs.iter().enumerate() {
        if a.f.group != Ia64Group::L1d {
            continue;
        }
        l1d = Some(i);
        if let Some(b) = evs[i + 1..]
            .iter()
            .find(|b| b.f.group == Ia64Group::L1d && b.f.set != a.f.set)
        {
            return Err(err(
                K::EventSet,
                format!(
                    "{} and {} are L1D events of different sets: they cannot be measured together",
                    a.fstr, b.fstr
                ),
            ));
        }
    }
    Ok(l1d)
}

/// Membership of each event in the first and the second L2D set (in order
/// of appearance); a third set is refused.
fn l2d_sets(evs: &[Ev]) -> Result<[Vec<bool>; 2], DispatchError> {
    let mut sets: [Option<Option<u8>>; 2] = [None, None];
    let mut member = [vec![false; evs.len()], vec![false; evs.len()]];
    for (i, e) in evs.iter().enumerate() {
        if e.f.group != Ia64Group::L2d {
            continue;
        }
        let k = match sets.iter().position(|s| *s == Some(e.f.set)) {
            Some(k) => k,
            None => {
                let Some(k) = sets.iter().position(Option::is_none) else {
                    return Err(err(
                        K::EventSet,
                        format!(
                            "{}: L2D events of at most two sets can be measured together",
                            e.fstr
                        ),
                    ));
                };
                sets[k] = Some(e.f.set);
                k
            }
        };
        member[k][i] = true;
    }
    Ok(member)
}

/// Counters not taken yet, by PMC number.
struct Free {
    avail: Vec<bool>,
}

impl Free {
    fn is_free(&self, c: u32) -> bool {
        self.avail.get(c as usize).copied().unwrap_or(false)
    }

    /// Takes counter `c`, which a cache event needs.
    fn take(&mut self, c: u32) -> Result<u32, DispatchError> {
        if !self.is_free(c) {
            return Err(err(
                K::NoAssign,
                format!("PMC{c} is needed for a cache event but is unavailable or taken"),
            ));
        }
        self.avail[c as usize] = false;
        Ok(c)
    }
}

/// The other events: those restricted to some counters on the first free
/// one they allow, in order; then the unrestricted ones on the lowest free
/// counters.
fn place_rest(
    cx: &Ctx<'_>,
    deferred: &[usize],
    free: &mut Free,
    asg: &mut [u32],
) -> Result<(), DispatchError> {
    let all = cx.layout.all_counters();
    let mut rest = Vec::new();
    for &i in deferred {
        let m = cx.evs[i].f.counters;
        if m == all {
            rest.push(i);
            continue;
        }
        let Some(c) = cx
            .layout
            .counters
            .clone()
            .find(|&c| (m >> c) & 1 != 0 && free.is_free(c))
        else {
            return Err(err(
                K::NoAssign,
                format!(
                    "{}: none of its counters (mask {m:#x}) is free",
                    cx.evs[i].fstr
                ),
            ));
        };
        asg[i] = free.take(c)?;
    }
    let mut candidates = cx.layout.counters.clone();
    for i in rest {
        let Some(c) = candidates.find(|&c| free.is_free(c)) else {
            return Err(err(
                K::NoAssign,
                format!(
                    "{}: no counter left among {}",
                    cx.evs[i].fstr,
                    cx.layout.counter_names()
                ),
            ));
        };
        asg[i] = free.take(c)?;
    }
    Ok(())
}
