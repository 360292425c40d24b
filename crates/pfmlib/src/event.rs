//! Event strings: `[pmu::]EVENT[:ATTR[=VAL]]...` parsed into an event of a PMU
//! and a list of requested attributes, with libpfm4's rules for lookup,
//! aliases (`equiv`), value syntax, duplicates and conflicts.

use crate::error::{Error, ErrorKind, Result};
use crate::model::{AttrCtrl, AttrType, Os, Plm, Speculation};
use crate::registry::Library;
use crate::tables::{eq_ignore_case, PmuDesc};
use crate::{os, pmu};
use std::cell::Cell;

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

/// What parsing needs of an offered attribute (copied out of the list,
/// which parsing may extend).
#[derive(Clone, Copy)]
struct PAttrRef {
    name: &'static str,
    equiv: Option<&'static str>,
    ty: AttrType,
}

impl PAttrRef {
    fn of(p: &PAttr) -> PAttrRef {
        PAttrRef {
            name: p.name,
            equiv: p.equiv,
            ty: p.ty,
        }
    }
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

    /// Appends a piece to the fully-qualified string: character by character
    /// when it has a few, which costs less than a call to `memcpy`.
    fn push_piece(&mut self, s: &str) {
        if s.len() <= 3 {
            for c in s.chars() {
                self.fstr.push(c);
            }
        } else {
            self.fstr.push_str(s);
        }
    }

    /// Appends `:name` to the fully-qualified string (as [`Desc::push_fstr`],
    /// without building the piece first when it fits).
    pub fn push_fstr_attr(&mut self, name: &str) {
        if self.fstr.len() + 1 + name.len() <= MAX_FSTR {
            self.fstr.push(':');
            self.push_piece(name);
        } else {
            push_bounded(&mut self.fstr, &format!(":{name}"));
        }
    }

    /// Writes the fully-qualified string of the engines without special
    /// ordering rules: the event name, the requested unit masks (or raw unit
    /// mask) in attribute order, then each PMU modifier the event offers, in
    /// table order, with the register value `value` gives it (`None`: left out).
    pub fn write_fstr(&mut self, value: impl Fn(u64) -> Option<u64>) {
        self.fstr.clear();
        self.push_fstr(self.pmu.events[self.event].name);
        self.sort_attrs();
        for k in 0..self.attrs.len() {
            let p = *self.pattr(k);
            match (p.ctrl, p.ty) {
                (AttrCtrl::Pmu, AttrType::Umask) => self.push_fstr_attr(p.name),
                (AttrCtrl::Pmu, AttrType::RawUmask) => {
                    self.push_fstr(&format!(":0x{:x}", p.idx as u32))
                }
                _ => {}
            }
        }
        for i in 0..self.pattrs.len() {
            let p = self.pattrs[i];
            if p.ctrl != AttrCtrl::Pmu || matches!(p.ty, AttrType::Umask | AttrType::RawUmask) {
                continue;
            }
            if let Some(v) = value(p.idx) {
                self.push_fstr_val(p.name, v);
            }
        }
    }

    /// Appends `:name=value` (value in decimal) to the fully-qualified string.
    pub fn push_fstr_val(&mut self, name: &str, value: u64) {
        if value < 10 && self.fstr.len() + 3 + name.len() <= MAX_FSTR {
            self.fstr.push(':');
            self.push_piece(name);
            self.fstr.push('=');
            self.fstr.push((b'0' + value as u8) as char);
            return;
        }
        let mut buf = [0u8; 20];
        let digits = decimal(value, &mut buf);
        if self.fstr.len() + 2 + name.len() + digits.len() <= MAX_FSTR {
            self.fstr.push(':');
            self.push_piece(name);
            self.fstr.push('=');
            for &c in digits {
                self.fstr.push(c as char);
            }
        } else {
            push_bounded(&mut self.fstr, &format!(":{name}={value}"));
        }
    }

    /// Appends `setting` (`:name=`, static) and `value` in decimal: the same
    /// as [`Desc::push_fstr_val`] with the name, with one copy for the name.
    pub fn push_fstr_setting(&mut self, setting: &str, value: u64) {
        if value < 10 && self.fstr.len() + setting.len() < MAX_FSTR {
            self.fstr.push_str(setting);
            self.fstr.push((b'0' + value as u8) as char);
            return;
        }
        let mut buf = [0u8; 20];
        let digits = decimal(value, &mut buf);
        if self.fstr.len() + setting.len() + digits.len() <= MAX_FSTR {
            self.fstr.push_str(setting);
            for &c in digits {
                self.fstr.push(c as char);
            }
        } else {
            push_bounded(&mut self.fstr, &format!("{setting}{value}"));
        }
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

/// `v` in decimal ASCII digits, written at the end of `buf`.
fn decimal(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &buf[i..]
}

thread_local! {
    /// The attribute list of the last finished [`Desc`], emptied and kept for
    /// the next one: encoding events one after another allocates it once.
    static SPARE_PATTRS: Cell<Vec<PAttr>> = const { Cell::new(Vec::new()) };
    /// The same for the list of requested attributes.
    static SPARE_ATTRS: Cell<Vec<Attr>> = const { Cell::new(Vec::new()) };
}

/// An empty attribute list with room for `n`, reusing a finished one's memory.
pub(crate) fn pattrs_with_capacity(n: usize) -> Vec<PAttr> {
    let mut v = SPARE_PATTRS.take();
    v.reserve(n);
    v
}

impl Drop for Desc {
    fn drop(&mut self) {
        // Keep ordinary lists only; a rare huge one is freed.
        let mut v = std::mem::take(&mut self.pattrs);
        if v.capacity() <= 256 {
            v.clear();
            let _ = SPARE_PATTRS.try_with(|s| s.set(v));
        }
        let mut v = std::mem::take(&mut self.attrs);
        if v.capacity() <= 256 {
            v.clear();
            let _ = SPARE_ATTRS.try_with(|s| s.set(v));
        }
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
    if let Some(v) = pmu::pattrs_for_os(lib, pmu, event, os) {
        return v;
    }
    let mut v = pmu::pmu_attrs(lib, pmu, event);
    os::append_os_attrs(os, &mut v);
    pmu::validate_pattrs(lib, pmu, event, os, &mut v);
    v
}

/// Splits off the first token ending at `:` or `.`.
fn split_attr(s: &str) -> (&str, Option<&str>) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && SCAN[b[i] as usize] < COLON {
        i += 1;
    }
    if i < b.len() {
        (&s[..i], Some(&s[i + 1..]))
    } else {
        (s, None)
    }
}

/// Byte classes for scanning event strings: 0 (nothing special),
/// [`SEPARATOR`] (`,` space tab newline: refused), [`COLON`], [`DOT`].
static SCAN: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b',' as usize] = SEPARATOR;
    t[b' ' as usize] = SEPARATOR;
    t[b'\t' as usize] = SEPARATOR;
    t[b'\n' as usize] = SEPARATOR;
    t[b':' as usize] = COLON;
    t[b'.' as usize] = DOT;
    t
};
const SEPARATOR: u8 = 1;
const COLON: u8 = 2;
const DOT: u8 = 3;
/// Bytes of a word, for eight-at-a-time byte tests.
const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// An event string's layout: a separator (an error), the first `::` (the
/// end of the PMU name), where the event name starts, and the first `:` or
/// `.` after that (the start of the attributes).
#[derive(Debug, PartialEq, Eq)]
struct Layout {
    bad: Option<u8>,
    pmu_end: Option<usize>,
    start: usize,
    attr_at: Option<usize>,
}

/// The first separator (`,` space tab newline) of `b`, skipping eight bytes
/// at a time while none is below 0x2d (all separators are).
fn first_separator(b: &[u8]) -> Option<u8> {
    let mut i = 0;
    while i + 8 <= b.len() {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        if w.wrapping_sub(LO * 0x2d) & !w & HI != 0 {
            break;
        }
        i += 8;
    }
    b[i..]
        .iter()
        .copied()
        .find(|&c| SCAN[c as usize] == SEPARATOR)
}

/// Finds an event string's [`Layout`] in one pass over its bytes.
fn layout(b: &[u8]) -> Layout {
    let mut l = Layout {
        bad: None,
        pmu_end: None,
        start: 0,
        attr_at: None,
    };
    let mut i = 0;
    loop {
        // Skip eight plain bytes at a time: none below 0x2f (the separators
        // and `.` are) and no `:`.
        while i + 8 <= b.len() {
            let w = u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
            let colons = w ^ (LO * b':' as u64);
            if (w.wrapping_sub(LO * 0x2f) & !w | colons.wrapping_sub(LO) & !colons) & HI != 0 {
                break;
            }
            i += 8;
        }
        while i < b.len() && SCAN[b[i] as usize] == 0 {
            i += 1;
        }
        if i >= b.len() {
            return l;
        }
        match SCAN[b[i] as usize] {
            SEPARATOR => {
                l.bad = Some(b[i]);
                return l;
            }
            c => {
                if c == COLON && l.pmu_end.is_none() && b.get(i + 1) == Some(&b':') {
                    l.pmu_end = Some(i);
                    l.start = i + 2;
                    l.attr_at = None;
                    i += 2;
                    continue;
                }
                if l.attr_at.is_none() {
                    l.attr_at = Some(i);
                    if l.pmu_end.is_some() {
                        // Both found: only a separator can still matter.
                        l.bad = first_separator(&b[i + 1..]);
                        return l;
                    }
                }
            }
        }
        i += 1;
    }
}

/// Appends `s` as `{s:?}` writes it, without the formatting machinery when
/// nothing needs escaping.
fn push_quoted(dst: &mut String, s: &str) {
    if s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        dst.push('"');
        dst.push_str(s);
        dst.push('"');
    } else {
        use std::fmt::Write;
        let _ = write!(dst, "{s:?}");
    }
}

/// Finds the PMU and the event an event string names (before aliases are
/// followed); returns them with the attribute part of the string.
fn resolve<'a>(
    lib: &Library,
    input: &'a str,
) -> Result<(&'static PmuDesc, usize, Option<&'a str>)> {
    let l = layout(input.as_bytes());
    let bad = l.bad;
    if let Some(c) = bad {
        let c = c as char;
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
    let pname = l.pmu_end.map(|e| &input[..e]);
    let (ename, attrs) = match l.attr_at {
        Some(a) => (&input[l.start..a], Some(&input[a + 1..])),
        None => (&input[l.start..], None),
    };

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
        const ANY: &str = "any PMU active on this host (prefix it with pmu:: to use another PMU)";
        let mut msg = String::with_capacity(ename.len() + ANY.len() + 32);
        msg.push_str("event ");
        push_quoted(&mut msg, ename);
        msg.push_str(" not found in ");
        match pname {
            Some(p) => {
                msg.push_str("PMU ");
                msg.push_str(p);
            }
            None => msg.push_str(ANY),
        }
        return Err(Error::new(ErrorKind::NotFound, msg));
    };
    Ok((pmu, idx, attrs))
}

/// The event an alias names, and the attributes it adds.
fn alias_target(
    lib: &Library,
    pmu: &'static PmuDesc,
    idx: usize,
    equiv: &'static str,
) -> Result<(usize, Option<&'static str>)> {
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
    Ok((t, eattrs))
}

/// Looks an event string up: the PMU and the event (aliases followed), with
/// the same answers and errors as [`parse_event`]. A string without
/// attributes needs no attribute list, so none is built.
pub(crate) fn lookup_event(lib: &Library, input: &str) -> Result<(&'static PmuDesc, usize)> {
    let (pmu, idx, attrs) = resolve(lib, input)?;
    if attrs.is_none() {
        match pmu.events[idx].equiv {
            None => return Ok((pmu, idx)),
            Some(equiv) => {
                if let (t, None) = alias_target(lib, pmu, idx, equiv)? {
                    return Ok((pmu, t));
                }
            }
        }
    }
    let d = parse_event(lib, input, Os::None, Plm::DEFAULT)?;
    Ok((d.pmu, d.event))
}

/// Parses an event string into a [`Desc`], resolving the PMU, the event,
/// aliases and every attribute, and removing duplicate settings.
pub(crate) fn parse_event(lib: &Library, input: &str, os: Os, dfl_plm: Plm) -> Result<Desc> {
    let (pmu, idx, attrs) = resolve(lib, input)?;

    let mut d = Desc {
        pmu,
        event: idx,
        dfl_plm,
        pattrs: Vec::new(),
        attrs: {
            let mut v = SPARE_ATTRS.take();
            v.reserve(16);
            v
        },
        // Room for a typical fully-qualified string, grown only for long ones.
        fstr: String::with_capacity(128),
    };
    if let Some(equiv) = pmu.events[idx].equiv {
        // An alias: the event named by the equivalence string, with its attributes.
        let (t, eattrs) = alias_target(lib, pmu, idx, equiv)?;
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
    if d.attrs.len() < 2 {
        return Ok(());
    }
    // Quick proof that no two requested attributes are the same one (same
    // index, type and control): a bit per attribute, by kind and index; a
    // shared bit (perhaps a false alarm) sends it to the full comparison.
    let mut seen = [0u64; 4];
    let mut distinct = true;
    for a in &d.attrs {
        let p = &d.pattrs[a.id];
        let base = match (p.ctrl, p.ty) {
            (AttrCtrl::Pmu, AttrType::Umask) => 64,
            (AttrCtrl::Pmu, AttrType::RawUmask) => 192,
            (AttrCtrl::Pmu, _) => 0,
            (AttrCtrl::PerfEvent, _) => 128,
        };
        let bit = base + (p.idx & 63) as usize;
        if seen[bit / 64] >> (bit % 64) & 1 != 0 {
            distinct = false;
            break;
        }
        seen[bit / 64] |= 1 << (bit % 64);
    }
    if distinct {
        return Ok(());
    }
    let mut i = 0;
    while i < d.attrs.len() {
        let mut j = i + 1;
        while j < d.attrs.len() {
            let (a, b) = (d.pattr(i), d.pattr(j));
            let same = a.idx == b.idx && a.ty == b.ty && a.ctrl == b.ctrl;
            if same {
                if d.attrs[i].ival == d.attrs[j].ival {
                    d.attrs.remove(j);
                } else {
                    let a = d.pattr(i);
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
        let b = cur.as_bytes();
        // The token ends at `:` or `.`; its name at the first `=`.
        let mut end = 0;
        let mut eq = None;
        loop {
            while end < b.len() && !matches!(b[end], b':' | b'.' | b'=') {
                end += 1;
            }
            if end < b.len() && b[end] == b'=' {
                if eq.is_none() {
                    eq = Some(end);
                }
                end += 1;
                continue;
            }
            break;
        }
        let tok = &cur[..end];
        rest = (end < b.len()).then(|| &cur[end + 1..]);
        let (name, val) = match eq {
            Some(i) => (&tok[..i], Some(&tok[i + 1..])),
            None => (tok, None),
        };
        let bytes = name.as_bytes();
        let id;
        let lead = match bytes {
            [a, b, ..] => u16::from_le_bytes([*a, *b | 0x20]),
            _ => 0,
        };
        if lead == u16::from_le_bytes([b'0', b'x']) {
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
            // Quick rejections first: the length, then the first byte (two
            // bytes equal but for case differ at most in bit 5).
            let first = bytes.first().copied().unwrap_or(0);
            let found = d.pattrs.iter().position(|p| {
                p.name.len() == name.len()
                    && p.name
                        .as_bytes()
                        .first()
                        .map_or(0, |&c| (c ^ first) & !0x20)
                        == 0
                    && p.ty != AttrType::RawUmask
                    && eq_ignore_case(p.name.as_bytes(), bytes)
                    && !(val.is_some() && p.ty == AttrType::Umask)
            });
            id = match found {
                Some(i) => i,
                None => return Err(unknown_attr(d, name)),
            };
        }
        let pa = PAttrRef::of(&d.pattrs[id]);
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
    // The common case, a plain decimal number (no sign, space or leading 0),
    // short enough not to overflow.
    if !b.is_empty() && b.len() <= 19 && b[0] != b'0' && b.iter().all(u8::is_ascii_digit) {
        return Some(b.iter().fold(0, |v, &c| v * 10 + (c - b'0') as u64));
    }
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
    use crate::host::Host;
    use crate::tables::{Vendor, ALL_PMUS};

    /// Engines that build an event's attribute list in one pass give the
    /// same list as the PMU attributes, OS attributes and validation steps.
    #[test]
    fn one_pass_attribute_lists_equal_the_steps() {
        let mut hosts = vec![Host::synthetic(Vendor::Intel, 6, 26), Host::none()];
        for eax in [0x0730_0402, 0x0730_0403, 0x0730_0404] {
            let mut h = Host::synthetic(Vendor::Intel, 6, 60);
            h.arch_perfmon = Some(crate::host::ArchPerfmon {
                eax,
                ebx: 0,
                edx: 0x603,
            });
            hosts.push(h);
        }
        for host in hosts {
            let lib = Library::with_host(host);
            for p in ALL_PMUS {
                for e in 0..p.events.len() {
                    for os in [Os::None, Os::PerfEvent, Os::PerfEventExt] {
                        let Some(one) = pmu::pattrs_for_os(&lib, p, e, os) else {
                            continue;
                        };
                        let mut steps = pmu::pmu_attrs(&lib, p, e);
                        os::append_os_attrs(os, &mut steps);
                        pmu::validate_pattrs(&lib, p, e, os, &mut steps);
                        assert_eq!(
                            format!("{one:?}"),
                            format!("{steps:?}"),
                            "{}::{} {os:?}",
                            p.name,
                            p.events[e].name
                        );
                    }
                }
            }
        }
    }

    /// The lookup fast path answers exactly as a full parse: same PMU and
    /// event, or the same error kind and message.
    #[test]
    fn lookup_equals_full_parse() {
        let outcome = |r: Result<(&'static PmuDesc, usize)>| match r {
            Ok((p, i)) => Ok((p.name, i)),
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
        for p in ALL_PMUS {
            for e in p.events {
                inputs.push(e.name.to_string());
                inputs.push(format!("{}::{}", p.name, e.name));
                inputs.push(format!(
                    "{}::{}",
                    p.name.to_uppercase(),
                    e.name.to_lowercase()
                ));
            }
        }
        for host in [Host::synthetic(Vendor::Intel, 6, 26), Host::none()] {
            let lib = Library::with_host(host);
            for s in &inputs {
                let full = parse_event(&lib, s, Os::None, Plm::DEFAULT).map(|d| (d.pmu, d.event));
                assert_eq!(outcome(lookup_event(&lib, s)), outcome(full), "{s:?}");
            }
        }
    }

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
        assert_eq!(c_strtoull("1234567890123456789"), Some(1234567890123456789));
        assert_eq!(c_strtoull("18446744073709551615"), Some(u64::MAX));
        assert_eq!(c_strtoull("18446744073709551616"), Some(u64::MAX));
        assert_eq!(c_strtoull("9"), Some(9));
    }

    #[test]
    fn scans_like_the_plain_searches() {
        let mut inputs = vec![String::new()];
        let alphabet = [
            "a", ":", ".", "::", ",", " ", "\t", "\n", "+", "é", "ABCDEFGH",
        ];
        for x in alphabet {
            for y in alphabet {
                for z in alphabet {
                    inputs.push(format!("{x}{y}{z}"));
                    inputs.push(format!("nhm{x}INST_RETIRED{y}ANY_P{z}k=1"));
                }
            }
        }
        for s in &inputs {
            let plain_split = |s: &str| match s.find([':', '.']) {
                Some(i) => (s[..i].to_string(), Some(s[i + 1..].to_string())),
                None => (s.to_string(), None),
            };
            let (a, b) = split_attr(s);
            assert_eq!(
                (a.to_string(), b.map(str::to_string)),
                plain_split(s),
                "{s:?}"
            );
            let l = layout(s.as_bytes());
            let bad = s.chars().find(|c| matches!(c, ',' | ' ' | '\t' | '\n'));
            assert_eq!(l.bad.map(char::from), bad, "{s:?}");
            if bad.is_some() {
                continue;
            }
            assert_eq!(l.pmu_end, s.find("::"), "{s:?}");
            let rest = l.pmu_end.map_or(s.as_str(), |e| &s[e + 2..]);
            assert_eq!(&s[l.start..], rest, "{s:?}");
            let (ename, attrs) = match l.attr_at {
                Some(a) => (s[l.start..a].to_string(), Some(s[a + 1..].to_string())),
                None => (s[l.start..].to_string(), None),
            };
            assert_eq!((ename, attrs), plain_split(rest), "{s:?}");
        }
    }

    #[test]
    fn quoted_like_debug() {
        for s in [
            "",
            "INST_RETIRED",
            "a'b",
            "a\"b",
            "a\\b",
            "é",
            "\u{7f}",
            "a\u{1}",
            "~!@#$%^&*()",
        ] {
            let mut q = String::from("x");
            push_quoted(&mut q, s);
            assert_eq!(q, format!("x{s:?}"));
        }
    }

    #[test]
    fn decimal_like_display() {
        let mut buf = [0u8; 20];
        for v in [0, 1, 9, 10, 255, 100000, u64::MAX] {
            assert_eq!(decimal(v, &mut buf), v.to_string().as_bytes());
        }
    }

    #[test]
    fn bounded_fstr() {
        let mut s = "a".repeat(250);
        push_bounded(&mut s, "bcdefghij");
        assert_eq!(s.len(), MAX_FSTR);
        assert!(s.ends_with("bcdef"));
    }
}
