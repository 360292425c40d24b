//! Event strings: `[pmu::]EVENT[:ATTR[=VAL]]...` parsed into an event of a PMU
//! and a list of requested attributes, with libpfm4's rules for lookup,
//! aliases (`equiv`), value syntax, duplicates and conflicts.

use crate::error::{Error, ErrorKind, Result};
use crate::model::{AttrCtrl, AttrType, Os, Plm, Speculation};
use crate::registry::Library;
use crate::tables::PmuDesc;
use crate::{os, pmu};

/// Most attributes one event string may carry.
pub(crate) const MAX_ATTRS: usize = 64;
/// Longest fully-qualified string libpfm4 builds (without the PMU prefix), in bytes.
pub(crate) const MAX_FSTR: usize = 255;

/// One attribute an event may take, as offered for a given OS layer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PAttr {
    pub name: &'static str,
    pub desc: &'static str,
    pub equiv: Option<&'static str>,
    pub code: u64,
    pub ty: AttrType,
    pub ctrl: AttrCtrl,
    /// Unit-mask index in the event table, modifier id, perf attribute id,
    /// or the value of a raw unit mask.
    pub idx: u64,
    pub is_dfl: bool,
    pub is_precise: bool,
    pub spec: Speculation,
    pub hw_smpl: bool,
}

/// One requested attribute: an index into `pattrs` and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Attr {
    pub id: usize,
    pub ival: u64,
}

/// An event being encoded: the PMU, the event, what it may take and what was asked.
#[derive(Debug, Clone)]
pub(crate) struct Desc {
    pub pmu: &'static PmuDesc,
    pub event: usize,
    pub dfl_plm: Plm,
    pub pattrs: Vec<PAttr>,
    pub attrs: Vec<Attr>,
    /// Fully-qualified string, without the `pmu::` prefix.
    pub fstr: String,
}

impl Desc {
    /// The attribute description behind requested attribute `k`.
    pub fn pattr(&self, k: usize) -> &PAttr {
        &self.pattrs[self.attrs[k].id]
    }

    /// Appends to the fully-qualified string, truncating at libpfm4's limit.
    pub fn push_fstr(&mut self, s: &str) {
        push_bounded(&mut self.fstr, s);
    }

    /// Sorts requested attributes by attribute index.
    pub fn sort_attrs(&mut self) {
        self.attrs.sort_by_key(|a| a.id);
    }

    /// The event string as a person would write it, for messages.
    pub fn event_name(&self) -> String {
        format!("{}::{}", self.pmu.name, self.pmu.events[self.event].name)
    }
}

/// Appends `s` to `dst`, never growing `dst` past [`MAX_FSTR`] bytes.
pub(crate) fn push_bounded(dst: &mut String, s: &str) {
    let room = MAX_FSTR.saturating_sub(dst.len());
    if s.len() <= room {
        dst.push_str(s);
    } else {
        let mut cut = room;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        dst.push_str(&s[..cut]);
    }
}

/// Builds the attribute list an event offers for an OS layer: the PMU's
/// unit masks and modifiers, then the OS attributes, less conflicts.
pub(crate) fn build_pattrs(
    lib: &Library,
    pmu: &'static PmuDesc,
    event: usize,
    os: Os,
) -> Vec<PAttr> {
    let mut v = pmu::pmu_attrs(lib, pmu, event);
    os::append_os_attrs(os, &mut v);
    pmu::validate_pattrs(lib, pmu, event, os, &mut v);
    v
}

/// Splits off the first token ending at `:` or `.`.
fn split_attr(s: &str) -> (&str, Option<&str>) {
    match s.find([':', '.']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    }
}

/// Parses an event string into a [`Desc`], resolving the PMU, the event,
/// aliases and every attribute, and removing duplicate settings.
pub(crate) fn parse_event(lib: &Library, input: &str, os: Os, dfl_plm: Plm) -> Result<Desc> {
    if let Some(c) = input.chars().find(|c| matches!(c, ',' | ' ' | '\t' | '\n')) {
        return Err(Error::new(
            ErrorKind::Invalid,
            format!(
                "event string {input:?} contains {c:?}: give one event per string (separators , space tab newline are not allowed)"
            ),
        ));
    }
    if input.is_empty() {
        return Err(Error::new(
            ErrorKind::NotFound,
            "empty event string: give [pmu::]EVENT[:ATTR...]; event not found",
        ));
    }
    let (pname, rest) = match input.find("::") {
        Some(i) => (Some(&input[..i]), &input[i + 2..]),
        None => (None, input),
    };
    let (ename, attrs) = split_attr(rest);

    let found = match pname {
        Some(p) => {
            let pmu = lib.pmu_by_name(p).ok_or_else(|| {
                Error::new(
                    ErrorKind::NotFound,
                    format!("unknown PMU {p:?} in event string {input:?}"),
                )
            })?;
            lib.find_event_in(pmu, ename).map(|i| (pmu, i))
        }
        None => lib
            .search_order()
            .find_map(|pmu| lib.find_event_in(pmu, ename).map(|i| (pmu, i))),
    };
    let Some((pmu, idx)) = found else {
        let where_ = match pname {
            Some(p) => format!("PMU {p}"),
            None => {
                "any PMU active on this host (prefix it with pmu:: to use another PMU)".to_string()
            }
        };
        return Err(Error::new(
            ErrorKind::NotFound,
            format!("event {ename:?} not found in {where_}"),
        ));
    };

    let mut d = Desc {
        pmu,
        event: idx,
        dfl_plm,
        pattrs: Vec::new(),
        attrs: Vec::new(),
        fstr: String::new(),
    };
    if let Some(equiv) = pmu.events[idx].equiv {
        // An alias: the event named by the equivalence string, with its attributes.
        let (target, eattrs) = split_attr(equiv);
        let t = lib.find_event_in(pmu, target).ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!(
                    "alias {} of PMU {} names unknown event {target}",
                    pmu.events[idx].name, pmu.name
                ),
            )
        })?;
        d.event = t;
        d.pattrs = build_pattrs(lib, pmu, t, os);
        if let Some(a) = eattrs {
            parse_attrs(a, &mut d)?;
        }
        sanitize(&mut d)?;
    } else {
        d.pattrs = build_pattrs(lib, pmu, idx, os);
    }
    if let Some(a) = attrs {
        parse_attrs(a, &mut d)?;
    }
    sanitize(&mut d)?;
    Ok(d)
}

/// Removes repeated identical settings; refuses one attribute set to two values.
///
/// Like libpfm4, after removing a duplicate the scan moves on without looking
/// at the entry that slid into its place, so a third copy survives (and the
/// engine then sees two copies).
fn sanitize(d: &mut Desc) -> Result<()> {
    let mut i = 0;
    while i < d.attrs.len() {
        let mut j = i + 1;
        while j < d.attrs.len() {
            let (a, b) = (d.pattr(i), d.pattr(j));
            if a.idx == b.idx && a.ty == b.ty && a.ctrl == b.ctrl {
                if d.attrs[i].ival == d.attrs[j].ival {
                    d.attrs.remove(j);
                } else {
                    let name = a.name;
                    let (v1, v2) = (d.attrs[i].ival, d.attrs[j].ival);
                    return Err(Error::new(
                        ErrorKind::AttrSet,
                        format!(
                            "attribute {name} of {} is given two values, {v1} and {v2} (a unit mask may fix it)",
                            d.event_name()
                        ),
                    ));
                }
            }
            j += 1;
        }
        i += 1;
    }
    Ok(())
}

/// Parses `:`/`.`-separated attributes and appends them to `d.attrs`.
fn parse_attrs(s: &str, d: &mut Desc) -> Result<()> {
    let mut has_raw = false;
    let mut has_um = false;
    let mut rest = Some(s);
    while let Some(cur) = rest {
        let (tok, next) = split_attr(cur);
        rest = next;
        let (name, val) = match tok.find('=') {
            Some(i) => (&tok[..i], Some(&tok[i + 1..])),
            None => (tok, None),
        };
        let bytes = name.as_bytes();
        let id;
        if bytes.len() >= 2 && bytes[0] == b'0' && bytes[1].eq_ignore_ascii_case(&b'x') {
            // A raw unit mask in hex.
            if has_raw || has_um {
                return Err(attr_err(
                    d,
                    format!("raw unit mask {name} cannot be combined with another unit mask"),
                ));
            }
            if !pmu::supports_raw_umask(d.pmu) {
                return Err(attr_err(
                    d,
                    format!(
                        "PMU {} does not accept raw unit masks such as {name}",
                        d.pmu.name
                    ),
                ));
            }
            let value = c_strtoull(name)
                .ok_or_else(|| attr_err(d, format!("raw unit mask {name} is not a hex number")))?;
            has_raw = true;
            d.pattrs.push(PAttr {
                name: "RAW_UMASK",
                desc: "raw unit mask",
                equiv: None,
                code: 0,
                ty: AttrType::RawUmask,
                ctrl: AttrCtrl::Pmu,
                idx: value,
                is_dfl: false,
                is_precise: false,
                spec: Speculation::NotAvailable,
                hw_smpl: false,
            });
            id = d.pattrs.len() - 1;
        } else {
            let found = d.pattrs.iter().position(|p| {
                p.ty != AttrType::RawUmask
                    && p.name.eq_ignore_ascii_case(name)
                    && !(val.is_some() && p.ty == AttrType::Umask)
            });
            id = match found {
                Some(i) => i,
                None => return Err(unknown_attr(d, name)),
            };
        }
        let pa = d.pattrs[id];
        if pa.ty == AttrType::Umask {
            has_um = true;
            if has_raw {
                return Err(attr_err(
                    d,
                    format!(
                        "unit mask {} cannot be combined with a raw unit mask",
                        pa.name
                    ),
                ));
            }
        }
        if let Some(eq) = pa.equiv {
            if val.is_some() {
                return Err(Error::new(
                    ErrorKind::AttrValue,
                    format!(
                        "{} of {} is an alias for {eq} and takes no value",
                        pa.name,
                        d.event_name()
                    ),
                ));
            }
            parse_attrs(eq, d)?;
            continue;
        }
        let ival = match (pa.ty, val) {
            (AttrType::Umask | AttrType::RawUmask, None) => 0,
            (AttrType::Umask | AttrType::RawUmask, Some(_)) => {
                return Err(Error::new(
                    ErrorKind::AttrValue,
                    format!("unit mask {name} of {} takes no value", d.event_name()),
                ))
            }
            (AttrType::ModBool, None) => 1,
            (AttrType::ModInteger, None) => {
                return Err(Error::new(
                    ErrorKind::AttrValue,
                    format!(
                        "modifier {} of {} needs a value, as in {}=N",
                        pa.name,
                        d.event_name(),
                        pa.name
                    ),
                ))
            }
            (ty, Some(v)) => parse_value(d, pa.name, ty, v)?,
        };
        if d.attrs.len() == MAX_ATTRS {
            return Err(Error::new(
                ErrorKind::TooMany,
                format!(
                    "too many attributes for {} (at most {MAX_ATTRS})",
                    d.event_name()
                ),
            ));
        }
        d.attrs.push(Attr { id, ival });
    }
    Ok(())
}

fn parse_value(d: &Desc, name: &str, ty: AttrType, v: &str) -> Result<u64> {
    let bad = |why: &str| {
        Error::new(
            ErrorKind::AttrValue,
            format!(
                "invalid value {v:?} for modifier {name} of {}: {why}",
                d.event_name()
            ),
        )
    };
    if v.is_empty() {
        return Err(bad("empty value"));
    }
    match ty {
        AttrType::ModBool => match v.as_bytes() {
            [b'y' | b'Y' | b't' | b'T' | b'1'] => Ok(1),
            [b'n' | b'N' | b'f' | b'F' | b'0'] => Ok(0),
            _ => Err(bad("expected 0 or 1 (also y/n, t/f)")),
        },
        _ => c_strtoull(v).ok_or_else(|| bad("expected an integer (decimal, 0x hex or 0 octal)")),
    }
}

fn attr_err(d: &Desc, msg: String) -> Error {
    let _ = d;
    Error::new(ErrorKind::Attr, msg)
}

fn unknown_attr(d: &Desc, name: &str) -> Error {
    let mut known: Vec<&str> = d
        .pattrs
        .iter()
        .filter(|p| p.ty != AttrType::RawUmask)
        .map(|p| p.name)
        .collect();
    known.dedup();
    let list = if known.is_empty() {
        "it takes none".to_string()
    } else {
        format!("valid: {}", known.join(", "))
    };
    Error::new(
        ErrorKind::Attr,
        format!(
            "{} has no unit mask or modifier {name:?} ({list})",
            d.event_name()
        ),
    )
}

/// Parses an unsigned integer the way C's `strtoull(s, &end, 0)` does, and
/// requires the whole string to be consumed: optional leading white space,
/// optional sign (a minus negates modulo 2^64), `0x` hex, leading-`0` octal
/// or decimal; overflow saturates.
pub(crate) fn c_strtoull(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let mut base = 10u64;
    if i + 1 < b.len()
        && b[i] == b'0'
        && (b[i + 1] | 0x20) == b'x'
        && i + 2 < b.len()
        && b[i + 2].is_ascii_hexdigit()
    {
        base = 16;
        i += 2;
    } else if i < b.len() && b[i] == b'0' {
        base = 8;
    }
    let start = i;
    let mut val: u64 = 0;
    let mut overflow = false;
    while i < b.len() {
        let digit = match b[i] {
            c @ b'0'..=b'9' => (c - b'0') as u64,
            c @ b'a'..=b'f' => (c - b'a' + 10) as u64,
            c @ b'A'..=b'F' => (c - b'A' + 10) as u64,
            _ => break,
        };
        if digit >= base {
            break;
        }
        match val.checked_mul(base).and_then(|v| v.checked_add(digit)) {
            Some(v) => val = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start || i != b.len() {
        return None;
    }
    if overflow {
        return Some(u64::MAX);
    }
    Some(if neg { val.wrapping_neg() } else { val })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtoull_like_c() {
        assert_eq!(c_strtoull("10"), Some(10));
        assert_eq!(c_strtoull("0x10"), Some(16));
        assert_eq!(c_strtoull("0X1f"), Some(31));
        assert_eq!(c_strtoull("010"), Some(8));
        assert_eq!(c_strtoull("0"), Some(0));
        assert_eq!(c_strtoull("+5"), Some(5));
        assert_eq!(c_strtoull("-1"), Some(u64::MAX));
        assert_eq!(c_strtoull("\x0b7"), Some(7));
        assert_eq!(c_strtoull("99999999999999999999999"), Some(u64::MAX));
        assert_eq!(c_strtoull("0x"), None);
        assert_eq!(c_strtoull("08"), None);
        assert_eq!(c_strtoull("12a"), None);
        assert_eq!(c_strtoull("+"), None);
        assert_eq!(c_strtoull(""), None);
    }

    #[test]
    fn bounded_fstr() {
        let mut s = "a".repeat(250);
        push_bounded(&mut s, "bcdefghij");
        assert_eq!(s.len(), MAX_FSTR);
        assert!(s.ends_with("bcdef"));
    }
}
