//! Event strings: `[pmu::]EVENT[:ATTR[=VAL]]...` resolved to an event of a
//! PMU and a list of requested attributes ([`Desc`]), with libpfm4's rules
//! for lookup, aliases (`equiv`), value syntax, duplicates and conflicts.
//!
//! Two stages, each callable alone: [`resolve`] finds the PMU and the event;
//! [`parse_event`] also resolves every attribute against what the event
//! offers for the OS layer.

mod keys;
pub(crate) mod scan;

use crate::ctx::Ctx;
use crate::desc::{Attr, AttrRef, AttrSet, Desc, MAX_ATTRS};
use crate::error::{Error, ErrorKind, Result};
use crate::kernel::PERF_ATTRS;
use crate::model::{AttrType, Os, Plm};
use crate::pmu::intel_x86::IntelX86;
use crate::pmu::{engine, Engine, INTEL_X86_FAMILY};
use crate::tables::{EventDesc, PmuDesc};
pub(crate) use scan::c_strtoull;
use scan::{c_strtoull_bytes, layout, push_quoted, scan_token, split_attr};

/// Longest piece of user input quoted whole in a message.
const QUOTE_MAX: usize = 120;

/// `s` quoted for a message (`{s:?}`), cut after 120 bytes with its length
/// said: a megabyte of input does not make a megabyte of message. pfmlib's
/// errors quote user input this way; programs can quote theirs alike.
pub fn quoted(s: &str) -> String {
    if s.len() <= QUOTE_MAX {
        return format!("{s:?}");
    }
    let mut cut = QUOTE_MAX;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{:?}... ({} bytes)", &s[..cut], s.len())
}

/// The first event of `pmu` named `name` that is there on this host.
pub(crate) fn find_event_in(ctx: &Ctx, pmu: PmuDesc, name: &str) -> Option<EventDesc> {
    match_in(ctx, pmu, name).map(|(ev, _)| ev)
}

/// The event of `pmu` named `name` and the value the name carries.
/// The Intel core engine, whose PMUs most strings name, is called directly
/// (inlined) rather than through its trait object.
#[inline]
fn match_in(ctx: &Ctx, pmu: PmuDesc, name: &str) -> Option<(EventDesc, u64)> {
    if pmu.family() == INTEL_X86_FAMILY {
        return IntelX86.match_event(ctx, pmu, name);
    }
    engine(pmu).match_event(ctx, pmu, name)
}

/// Finds the PMU and the event an event string names (before aliases are
/// followed); returns them with the value the name carries and the
/// attribute part of the string.
pub(crate) fn resolve<'a>(
    ctx: &Ctx,
    input: &'a str,
) -> Result<(PmuDesc, EventDesc, u64, Option<&'a str>)> {
    resolve_inline(ctx, input)
}

/// [`resolve`], inlined into the lookup (where the call is a tenth of the
/// work), called elsewhere.
#[inline(always)]
fn resolve_inline<'a>(
    ctx: &Ctx,
    input: &'a str,
) -> Result<(PmuDesc, EventDesc, u64, Option<&'a str>)> {
    let l = layout(input.as_bytes());
    if let Some(c) = l.bad {
        let c = c as char;
        return Err(Error::new(
            ErrorKind::Invalid,
            format!(
                "event string {} contains {c:?}: give one event per string (separators , space tab newline are not allowed)",
                quoted(input)
            ),
        ));
    }
    if input.is_empty() {
        return Err(Error::new(
            ErrorKind::NotFound,
            "empty event string: give [pmu::]EVENT[:ATTR...]; event not found",
        ));
    }
    let pname = l.pmu_end.map(|e| &input[..e]);
    let (ename, attrs) = match l.attr_at {
        Some(a) => (&input[l.start..a], Some(&input[a + 1..])),
        None => (&input[l.start..], None),
    };
    let found = match pname {
        Some(p) => {
            let pmu = prefixed_pmu(ctx, p, input)?;
            match_in(ctx, pmu, ename).map(|(e, v)| (pmu, e, v))
        }
        // Without a prefix, deprecated PMU names are passed over (libpfm4);
        // the library noted whether any is active.
        None => ctx
            .active
            .iter()
            .filter(|&&pmu| !ctx.any_deprecated || !engine(pmu).deprecated(pmu))
            .find_map(|&pmu| match_in(ctx, pmu, ename).map(|(e, v)| (pmu, e, v))),
    };
    match found {
        Some((pmu, ev, v)) => Ok((pmu, ev, v, attrs)),
        None => Err(not_found_here(ctx, ename, pname)),
    }
}

/// [`not_found`], saying why when the named PMU offers no event at all on
/// this host (IBM Z's `cpum_cf`, whose counters depend on the machine).
#[cold]
fn not_found_here(ctx: &Ctx, ename: &str, pname: Option<&str>) -> Error {
    let err = not_found(ename, pname);
    let Some(pmu) = pname.and_then(PmuDesc::by_name) else {
        return err;
    };
    let e = engine(pmu);
    if pmu.nevents() == 0 || pmu.events().any(|ev| e.event_available(ctx, pmu, ev)) {
        return err;
    }
    Error::new(
        ErrorKind::NotFound,
        format!(
            "{}: PMU {} offers no events on this host (its event list depends on the machine it runs on)",
            err.message(),
            pmu.name()
        ),
    )
}

/// The PMU a `pmu::` prefix names, if events may be encoded for it here.
#[inline]
fn prefixed_pmu(ctx: &Ctx, name: &str, input: &str) -> Result<PmuDesc> {
    let pmu = PmuDesc::by_name(name)
        .filter(|&p| ctx.is_prefixable(p))
        .ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!(
                    "unknown PMU {} in event string {}",
                    quoted(name),
                    quoted(input)
                ),
            )
        })?;
    if !ctx.may_encode(pmu) {
        return Err(Error::new(
            ErrorKind::NotFound,
            format!(
                "PMU {} is not active on this host, and this library encodes only for active PMUs (libpfm4: set LIBPFM_ENCODE_INACTIVE)",
                pmu.name()
            ),
        ));
    }
    Ok(pmu)
}

fn not_found(ename: &str, pname: Option<&str>) -> Error {
    const ANY: &str = "any PMU active on this host (prefix it with pmu:: to use another PMU)";
    let mut msg = String::with_capacity(ename.len() + ANY.len() + 32);
    msg.push_str("event ");
    if ename.len() <= QUOTE_MAX {
        push_quoted(&mut msg, ename);
    } else {
        msg.push_str(&quoted(ename));
    }
    msg.push_str(" not found in ");
    match pname {
        Some(p) => {
            msg.push_str("PMU ");
            msg.push_str(p);
        }
        None => msg.push_str(ANY),
    }
    Error::new(ErrorKind::NotFound, msg)
}

/// The event an alias names, and the attributes it adds.
fn alias_target(
    ctx: &Ctx,
    pmu: PmuDesc,
    ev: EventDesc,
    equiv: &'static str,
) -> Result<(EventDesc, Option<&'static str>)> {
    let (target, eattrs) = split_attr(equiv);
    let t = find_event_in(ctx, pmu, target).ok_or_else(|| {
        Error::new(
            ErrorKind::NotFound,
            format!(
                "alias {} of PMU {} names unknown event {target}",
                ev.name(),
                pmu.name()
            ),
        )
    })?;
    Ok((t, eattrs))
}

/// Looks an event string up: the PMU and the event (aliases followed), with
/// the same answers and errors as [`parse_event`]. A string without
/// attributes needs no attribute resolution, so none is done.
#[inline]
pub(crate) fn lookup_event(ctx: &Ctx, input: &str) -> Result<(PmuDesc, EventDesc)> {
    let (pmu, ev, _, attrs) = resolve_inline(ctx, input)?;
    if attrs.is_none() {
        match ev.equiv() {
            None => return Ok((pmu, ev)),
            Some(equiv) => {
                if let (t, None) = alias_target(ctx, pmu, ev, equiv)? {
                    return Ok((pmu, t));
                }
            }
        }
    }
    let d = parse_event(ctx, input, Os::None, Plm::DEFAULT)?;
    Ok((d.pmu, d.event))
}

/// Parses an event string into a [`Desc`], resolving the PMU, the event,
/// aliases and every attribute, and removing duplicate settings.
pub(crate) fn parse_event(ctx: &Ctx, input: &str, os: Os, dfl_plm: Plm) -> Result<Desc> {
    let (pmu, ev, name_value, attrs) = resolve(ctx, input)?;
    let e = engine(pmu);
    let mut d = match ev.equiv() {
        Some(equiv) => {
            // An alias: the event named by the equivalence string, with its attributes.
            let (t, eattrs) = alias_target(ctx, pmu, ev, equiv)?;
            let mut d = Desc::new(pmu, t, os, dfl_plm, e.offer(ctx, pmu, t, os));
            if let Some(a) = eattrs {
                parse_attrs(ctx, a, &mut d)?;
            }
            sanitize(&mut d)?;
            d
        }
        None => Desc::new(pmu, ev, os, dfl_plm, e.offer(ctx, pmu, ev, os)),
    };
    d.name_value = name_value;
    if let Some(a) = attrs {
        parse_attrs(ctx, a, &mut d)?;
    }
    sanitize(&mut d)?;
    Ok(d)
}

/// Removes repeated identical settings; refuses one attribute set to two values.
///
/// Like libpfm4, after removing a duplicate the scan moves on without looking
/// at the entry that slid into its place, so a third copy survives (and the
/// engine then sees two copies).
///
/// Where libpfm4 gives every hardware modifier of a family one attribute
/// index (`Engine::modifiers_one_attr`: SPARC), any two modifiers are one
/// attribute to this check, as to libpfm4's `pfmlib_same_attr`.
fn sanitize(d: &mut Desc) -> Result<()> {
    if d.attrs.len() < 2 {
        return Ok(());
    }
    let one_mod = d.pmu.family() != INTEL_X86_FAMILY && engine(d.pmu).modifiers_one_attr();
    if !d.parsed.maybe_dup && !one_mod {
        return Ok(());
    }
    let same = |a: AttrRef, b: AttrRef| {
        a == b || (one_mod && matches!((a, b), (AttrRef::Mod(_), AttrRef::Mod(_))))
    };
    let mut i = 0;
    while i < d.attrs.len() {
        let mut j = i + 1;
        while j < d.attrs.len() {
            if same(d.attrs[i].what, d.attrs[j].what) {
                if d.attrs[i].ival == d.attrs[j].ival {
                    d.attrs.remove(j);
                } else {
                    let (v1, v2) = (d.attrs[i].ival, d.attrs[j].ival);
                    let (a, b) = (d.attrs[i].what, d.attrs[j].what);
                    let what = if a == b {
                        format!("attribute {}", attr_name(d, a))
                    } else {
                        format!(
                            "modifiers {} and {} (one attribute to libpfm4)",
                            attr_name(d, a),
                            attr_name(d, b)
                        )
                    };
                    return Err(Error::new(
                        ErrorKind::AttrSet,
                        format!(
                            "{what} of {} is given two values, {v1} and {v2} (a unit mask may fix it)",
                            d.event_name()
                        ),
                    ));
                }
            }
            j += 1;
        }
        i += 1;
    }
    d.parsed = AttrSet::of(&d.attrs);
    Ok(())
}

/// The name of an attribute, for messages.
pub(crate) fn attr_name(d: &Desc, a: AttrRef) -> &'static str {
    match a {
        AttrRef::Umask(i) => d.umask(i).name(),
        AttrRef::Mod(id) => engine(d.pmu)
            .defs()
            .modifiers
            .get(usize::from(id))
            .map_or("?", |m| m.name),
        AttrRef::Perf(id) => PERF_ATTRS.get(usize::from(id)).map_or("?", |a| a.name),
        AttrRef::Raw(_) => "RAW_UMASK",
    }
}

/// Parses `:`/`.`-separated attributes and appends them to `d.attrs`.
///
/// A token that names a hardware modifier or perf_events attribute the
/// event offers, which no unit mask of the event's table shadows, with a
/// plain value, takes the short path; every other token (unit masks, raw
/// unit masks, aliases, odd values, errors) takes [`parse_token`].
fn parse_attrs(ctx: &Ctx, s: &str, d: &mut Desc) -> Result<()> {
    let mut seen = Seen::default();
    let names = keys::names(d.pmu);
    let has_umasks = d.event.numasks() > 0;
    let b = s.as_bytes();
    let mut at = 0;
    loop {
        let t = scan_token(b, at);
        // `0x`, lower-cased in the key: a raw unit mask, for the general parse.
        let c = if t.key & 0xffff == 0x7830 {
            None
        } else {
            Some(names.get(t.key, t.name_end - t.start))
        };
        if c == Some(keys::Candidates::default())
            && t.value.is_none()
            && !seen.raw
            && !is_hex_prefix(&b[t.start..t.name_end])
        {
            // No modifier has the name: a unit mask, most likely.
            if let Some(i) = plain_umask(d, &b[t.start..t.name_end]) {
                seen.umask = true;
                push_attr(
                    d,
                    Attr {
                        what: AttrRef::Umask(i),
                        ival: 0,
                    },
                )?;
                at = t.end + 1;
                if at > b.len() {
                    return Ok(());
                }
                continue;
            }
        }
        match c.and_then(|c| quick_attr(d, names, has_umasks, &t, c)) {
            Some((what, int)) => {
                let ival = match (int, t.value) {
                    (false, None) => 1,
                    (true, Some(v)) => match plain_decimal(&b[v..t.end]) {
                        Some(n) => n,
                        None => parse_value(d, what, AttrType::ModInteger, &b[v..t.end])?,
                    },
                    (false, Some(v)) => match b[v..t.end] {
                        [b'y' | b'Y' | b't' | b'T' | b'1'] => 1,
                        [b'n' | b'N' | b'f' | b'F' | b'0'] => 0,
                        _ => parse_value(d, what, AttrType::ModBool, &b[v..t.end])?,
                    },
                    (true, None) => {
                        let ty = AttrType::ModInteger;
                        attr_value(d, what, ty, || text(s, t.start, t.name_end), None)?
                    }
                };
                push_attr(d, Attr { what, ival })?;
            }
            None => parse_token(ctx, s, d, names, has_umasks, &t, &mut seen)?,
        }
        at = t.end + 1;
        if at > b.len() {
            return Ok(());
        }
    }
}

/// The unit masks seen so far in an attribute string, raw or named.
#[derive(Default)]
struct Seen {
    raw: bool,
    umask: bool,
}

/// The modifier or perf_events attribute a token names (and whether it
/// takes an integer), when no unit mask can be meant: the name is one of
/// the family's modifiers or a perf_events attribute, offered, not a raw
/// unit mask, and (without a value) no unit mask of the table bears it.
#[inline]
fn quick_attr(
    d: &Desc,
    names: &keys::Names,
    has_umasks: bool,
    t: &scan::Token,
    c: keys::Candidates,
) -> Option<(AttrRef, bool)> {
    let mods = c.mods & d.offer.mods;
    let perf = c.perf & d.offer.perf;
    if mods | perf == 0
        || (t.value.is_none() && has_umasks && keys::umask_may_clash(d.pmu, d.event, c))
    {
        return None;
    }
    if mods != 0 {
        let id = mods.trailing_zeros();
        return Some((AttrRef::Mod(id as u8), names.is_int(id)));
    }
    let id = perf.trailing_zeros() as usize;
    let ty = PERF_ATTRS.get(id)?.ty;
    match ty {
        AttrType::ModInteger => Some((AttrRef::Perf(id as u8), true)),
        AttrType::ModBool => Some((AttrRef::Perf(id as u8), false)),
        _ => None,
    }
}

/// The unit mask of the event named `name` that is there for the PMU and
/// is no alias (an alias, or none: `None`, for the general parse).
#[inline]
fn plain_umask(d: &Desc, name: &[u8]) -> Option<u16> {
    let variant = d.pmu.variant_bit();
    let i = d.event.find_umask(name, |u| u.in_variant(variant))? as u16;
    d.umask(i).equiv().is_none().then_some(i)
}

/// Appends a parsed attribute, if there is room.
#[inline]
fn push_attr(d: &mut Desc, a: Attr) -> Result<()> {
    if d.attrs.len() == MAX_ATTRS {
        return Err(too_many(d));
    }
    d.push_attr(a);
    Ok(())
}

#[cold]
fn too_many(d: &Desc) -> Error {
    Error::new(
        ErrorKind::TooMany,
        format!(
            "too many attributes for {} (at most {MAX_ATTRS})",
            d.event_name()
        ),
    )
}

/// Parses one attribute token the general way (see [`parse_attrs`]).
fn parse_token(
    ctx: &Ctx,
    s: &str,
    d: &mut Desc,
    names: &keys::Names,
    has_umasks: bool,
    t: &scan::Token,
    seen: &mut Seen,
) -> Result<()> {
    let b = s.as_bytes();
    let name = &b[t.start..t.name_end];
    let val = t.value.map(|v| &b[v..t.end]);
    let (what, ty) = if is_hex_prefix(name) {
        (
            raw_umask(d, text(s, t.start, t.name_end), seen.raw || seen.umask)?,
            AttrType::RawUmask,
        )
    } else {
        let c = names.get(t.key, name.len());
        find_attr(d, names, c, has_umasks, name, val.is_some())
            .ok_or_else(|| unknown_attr(ctx, d, text(s, t.start, t.name_end)))?
    };
    match what {
        AttrRef::Raw(_) => seen.raw = true,
        AttrRef::Umask(i) => {
            seen.umask = true;
            if umask_alias(ctx, d, i, seen.raw, val.is_some())? {
                return Ok(());
            }
        }
        _ => {}
    }
    let ival = attr_value(d, what, ty, || text(s, t.start, t.name_end), val)?;
    push_attr(d, Attr { what, ival })
}

/// A value of one to eight decimal digits, the first not 0: what
/// `c_strtoull` reads from it, from one load where eight bytes are there.
#[inline]
fn plain_decimal(v: &[u8]) -> Option<u64> {
    match v {
        [c @ b'1'..=b'9'] => Some(u64::from(c - b'0')),
        [b'1'..=b'9', ..] if v.len() <= 8 => {
            let mut n = 0;
            for &c in v {
                if !c.is_ascii_digit() {
                    return None;
                }
                n = n * 10 + u64::from(c - b'0');
            }
            Some(n)
        }
        _ => None,
    }
}

/// `s[a..b]` for messages ("" if it is not a character range).
fn text(s: &str, a: usize, b: usize) -> &str {
    s.get(a..b).unwrap_or("")
}

/// Checks a unit mask given after a raw one, and parses the attributes of
/// a unit mask that is an alias; true when it was one.
fn umask_alias(ctx: &Ctx, d: &mut Desc, i: u16, has_raw: bool, has_value: bool) -> Result<bool> {
    if has_raw {
        return Err(Error::new(
            ErrorKind::Attr,
            format!(
                "unit mask {} cannot be combined with a raw unit mask",
                d.umask(i).name()
            ),
        ));
    }
    let Some(eq) = d.umask(i).equiv() else {
        return Ok(false);
    };
    if has_value {
        return Err(Error::new(
            ErrorKind::AttrValue,
            format!(
                "{} of {} is an alias for {eq} and takes no value",
                d.umask(i).name(),
                d.event_name()
            ),
        ));
    }
    parse_attrs(ctx, eq, d)?;
    Ok(true)
}

/// Does the token start with `0x` (any case)?
fn is_hex_prefix(b: &[u8]) -> bool {
    matches!(b, [b'0', x, ..] if *x | 0x20 == b'x')
}

/// A raw unit mask in hex.
fn raw_umask(d: &Desc, name: &str, has_other: bool) -> Result<AttrRef> {
    if has_other {
        return Err(Error::new(
            ErrorKind::Attr,
            format!("raw unit mask {name} cannot be combined with another unit mask"),
        ));
    }
    if !engine(d.pmu).raw_umask(d.pmu) {
        return Err(Error::new(
            ErrorKind::Attr,
            format!(
                "PMU {} does not accept raw unit masks such as {name}",
                d.pmu.name()
            ),
        ));
    }
    let value = c_strtoull(name).ok_or_else(|| {
        Error::new(
            ErrorKind::Attr,
            format!("raw unit mask {name} is not a hex number"),
        )
    })?;
    Ok(AttrRef::Raw(value))
}

/// The attribute `name` names and its kind, in libpfm4's search order: a
/// unit mask (not when a value is given), then a hardware modifier, then a
/// perf_events attribute, each only if the event offers it. Modifiers and
/// perf_events attributes are found by their one-word keys.
fn find_attr(
    d: &Desc,
    names: &keys::Names,
    c: keys::Candidates,
    has_umasks: bool,
    name: &[u8],
    has_value: bool,
) -> Option<(AttrRef, AttrType)> {
    if !has_value
        && has_umasks
        && (c == keys::Candidates::default() || keys::umask_may_clash(d.pmu, d.event, c))
    {
        let variant = d.pmu.variant_bit();
        if let Some(i) = d.event.find_umask(name, |u| u.in_variant(variant)) {
            return Some((AttrRef::Umask(i as u16), AttrType::Umask));
        }
    }
    let mods = c.mods & d.offer.mods;
    if mods != 0 {
        let id = mods.trailing_zeros();
        let ty = if names.is_int(id) {
            AttrType::ModInteger
        } else {
            AttrType::ModBool
        };
        return Some((AttrRef::Mod(id as u8), ty));
    }
    let perf = c.perf & d.offer.perf;
    let id = perf.trailing_zeros() as usize;
    PERF_ATTRS.get(id).map(|a| (AttrRef::Perf(id as u8), a.ty))
}

/// The value of a requested attribute.
fn attr_value<'s>(
    d: &Desc,
    what: AttrRef,
    ty: AttrType,
    name: impl Fn() -> &'s str,
    val: Option<&[u8]>,
) -> Result<u64> {
    match (ty, val) {
        (AttrType::Umask | AttrType::RawUmask, None) => Ok(0),
        (AttrType::Umask | AttrType::RawUmask, Some(_)) => Err(Error::new(
            ErrorKind::AttrValue,
            format!("unit mask {} of {} takes no value", name(), d.event_name()),
        )),
        (AttrType::ModBool, None) => Ok(1),
        (AttrType::ModInteger, None) => {
            let n = attr_name(d, what);
            Err(Error::new(
                ErrorKind::AttrValue,
                format!(
                    "modifier {n} of {} needs a value, as in {n}=N",
                    d.event_name()
                ),
            ))
        }
        (ty, Some(v)) => parse_value(d, what, ty, v),
    }
}

fn parse_value(d: &Desc, what: AttrRef, ty: AttrType, v: &[u8]) -> Result<u64> {
    let bad = |why: &str| {
        Error::new(
            ErrorKind::AttrValue,
            format!(
                "invalid value {} for modifier {} of {}: {why}",
                quoted(&String::from_utf8_lossy(v)),
                attr_name(d, what),
                d.event_name()
            ),
        )
    };
    if v.is_empty() {
        return Err(bad("empty value"));
    }
    match ty {
        AttrType::ModBool => match v {
            [b'y' | b'Y' | b't' | b'T' | b'1'] => Ok(1),
            [b'n' | b'N' | b'f' | b'F' | b'0'] => Ok(0),
            _ => Err(bad("expected 0 or 1 (also y/n, t/f)")),
        },
        _ => c_strtoull_bytes(v)
            .ok_or_else(|| bad("expected an integer (decimal, 0x hex or 0 octal)")),
    }
}

fn unknown_attr(ctx: &Ctx, d: &Desc, name: &str) -> Error {
    let mut known: Vec<&str> = crate::attrs::names(ctx, d.pmu, d.event, d.offer).collect();
    known.dedup();
    let list = if known.is_empty() {
        "it takes none".to_string()
    } else {
        format!("valid: {}", known.join(", "))
    };
    Error::new(
        ErrorKind::Attr,
        format!(
            "{} has no unit mask or modifier {} ({list})",
            d.event_name(),
            quoted(name)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Host;
    use crate::library::Library;
    use crate::model::Vendor;

    /// The lookup fast path answers exactly as a full parse: same PMU and
    /// event, or the same error kind and message.
    #[test]
    fn lookup_equals_full_parse() {
        let outcome = |r: Result<(PmuDesc, EventDesc)>| match r {
            Ok((p, e)) => Ok((p.name(), e.index())),
            Err(e) => Err((e.kind(), e.message().to_string())),
        };
        let mut inputs: Vec<String> = [
            "",
            ":",
            "::",
            ":::",
            "nhm::",
            "nhm:::",
            "nhm:::INST_RETIRED",
            "::INST_RETIRED",
            "nhm::INST_RETIRED:",
            "nhm::INST_RETIRED.",
            "nhm::inst_retired.any_p",
            "INST_RETIRED:ANY_P",
            "a:b::c",
            "a.b::c",
            "nope::X",
            "NHM::arith",
            "x,y",
            "nhm::ARITH MUL",
            "a\tb",
            "nhm::\"quoted\"",
            "nhm::é",
            "cycles",
            "perf::CYCLES",
            "nhm::ARITH:NOPE",
            "nhm::ARITH:MUL:c=2",
            "wsm::ARITH::MUL",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for p in PmuDesc::all() {
            for e in p.events() {
                inputs.push(e.name().to_string());
                inputs.push(format!("{}::{}", p.name(), e.name()));
                inputs.push(format!(
                    "{}::{}",
                    p.name().to_uppercase(),
                    e.name().to_lowercase()
                ));
            }
        }
        for host in [Host::synthetic(Vendor::Intel, 6, 26), Host::none()] {
            let lib = Library::with_host(host);
            let ctx = lib.ctx();
            for s in &inputs {
                let full = parse_event(ctx, s, Os::None, Plm::DEFAULT).map(|d| (d.pmu, d.event));
                assert_eq!(outcome(lookup_event(ctx, s)), outcome(full), "{s:?}");
            }
        }
    }
}
