//! An event being encoded: the PMU and event an event string resolved to,
//! what the event offers for the OS layer, the attributes asked for, and the
//! fully-qualified string the engine writes. The data shared by the
//! event-string stages, the engines and the OS layer.

use crate::kernel::PERF_ATTRS;
use crate::model::{Os, Plm};
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use pfmlib_defs::{ModDef, FAMILIES};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Most attributes one event string may carry.
pub(crate) const MAX_ATTRS: usize = 64;
/// Longest fully-qualified string libpfm4 builds (without the PMU prefix), in bytes.
pub(crate) const MAX_FSTR: usize = 255;

/// Which attribute a requested attribute is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AttrRef {
    /// Unit mask `i` of the event.
    Umask(u16),
    /// Hardware modifier `id` of the family.
    Mod(u8),
    /// perf_events attribute `id`.
    Perf(u8),
    /// A raw unit mask, with its value.
    Raw(u64),
}

impl AttrRef {
    /// Order of the attribute in the event's attribute list: unit masks,
    /// then modifiers, then perf_events attributes, then a raw unit mask.
    #[inline]
    pub fn order(self) -> u32 {
        match self {
            AttrRef::Umask(i) => u32::from(i),
            AttrRef::Mod(id) => 0x1_0000 + u32::from(id),
            AttrRef::Perf(id) => 0x2_0000 + u32::from(id),
            AttrRef::Raw(_) => 0x3_0000,
        }
    }
}

/// One requested attribute and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Attr {
    pub what: AttrRef,
    pub ival: u64,
}

/// A quick record of the requested attributes: a bit per attribute, by
/// kind and index, and whether two attributes fell on one bit (perhaps the
/// same attribute twice; perhaps not).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AttrSet {
    bits: [u64; 4],
    /// Two attributes share a bit.
    pub maybe_dup: bool,
}

impl AttrSet {
    /// Records `a`.
    #[inline]
    pub fn insert(&mut self, a: AttrRef) {
        let bit = match a {
            AttrRef::Mod(id) => usize::from(id & 63),
            AttrRef::Umask(i) => 64 + usize::from(i & 63),
            AttrRef::Perf(id) => 128 + usize::from(id & 63),
            AttrRef::Raw(v) => 192 + (v & 63) as usize,
        };
        let m = 1u64 << (bit % 64);
        let w = &mut self.bits[bit / 64];
        self.maybe_dup |= *w & m != 0;
        *w |= m;
    }

    /// The record of `attrs`.
    pub fn of(attrs: &[Attr]) -> AttrSet {
        let mut s = AttrSet::default();
        for a in attrs {
            s.insert(a.what);
        }
        s
    }
}

/// What an event offers for an OS layer, beyond its unit masks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Offer {
    /// Hardware modifiers (bit = modifier id).
    pub mods: u32,
    /// perf_events attributes (bit = attribute id).
    pub perf: u32,
}

/// An event being encoded.
#[derive(Debug)]
pub(crate) struct Desc {
    pub pmu: PmuDesc,
    /// The event (the real one when an alias was given).
    pub event: EventDesc,
    pub dfl_plm: Plm,
    pub os: Os,
    pub offer: Offer,
    /// Requested attributes, in the order given (then sorted by the engine).
    pub attrs: Vec<Attr>,
    /// The record of the attributes parsed ([`Desc::push_attr`]).
    pub parsed: AttrSet,
    /// The value the event's name carried (`Engine::match_event`; 0 for
    /// table names).
    pub name_value: u64,
    /// Fully-qualified string, without the `pmu::` prefix.
    pub fstr: Fstr,
}

thread_local! {
    /// The attribute list of the last finished [`Desc`], emptied and kept for
    /// the next one: encoding events one after another allocates it once.
    static SPARE_ATTRS: Cell<Vec<Attr>> = const { Cell::new(Vec::new()) };
}

impl Drop for Desc {
    fn drop(&mut self) {
        let mut v = std::mem::take(&mut self.attrs);
        if v.capacity() <= 256 {
            v.clear();
            let _ = SPARE_ATTRS.try_with(|s| s.set(v));
        }
    }
}

impl Desc {
    /// A description of `event` with nothing requested yet.
    pub fn new(pmu: PmuDesc, event: EventDesc, os: Os, dfl_plm: Plm, offer: Offer) -> Desc {
        Desc {
            pmu,
            event,
            dfl_plm,
            os,
            offer,
            attrs: {
                let mut v = SPARE_ATTRS.take();
                v.reserve(16);
                v
            },
            parsed: AttrSet::default(),
            name_value: 0,
            fstr: Fstr::new(pmu.name()),
        }
    }

    /// Appends a parsed attribute, recorded in `parsed`.
    #[inline]
    pub fn push_attr(&mut self, a: Attr) {
        self.parsed.insert(a.what);
        self.attrs.push(a);
    }

    /// Unit mask `i` of the event.
    #[inline]
    pub fn umask(&self, i: u16) -> UmaskDesc {
        self.event.umask(i as usize)
    }

    /// The event as a person would write it, for messages.
    pub fn event_name(&self) -> String {
        format!("{}::{}", self.pmu.name(), self.event.name())
    }

    /// Sorts the requested attributes in attribute-list order (stable).
    pub fn sort_attrs(&mut self) {
        if !self.attrs.is_sorted_by_key(|a| a.what.order()) {
            self.attrs.sort_by_key(|a| a.what.order());
        }
    }

    /// The requested unit masks, in the current order.
    pub fn umask_attrs(&self) -> impl Iterator<Item = u16> + '_ {
        self.attrs.iter().filter_map(|a| match a.what {
            AttrRef::Umask(i) => Some(i),
            _ => None,
        })
    }

    /// Appends `:` (with `colon`) and a name of the tables; where it does
    /// not fit whole, as [`Fstr::push`] cuts it.
    #[inline]
    fn push_table_name(&mut self, colon: bool, name: &'static str) {
        if self.fstr.fits(usize::from(colon) + name.len()) {
            if colon {
                self.fstr.push_char(':');
            }
            self.fstr.put(name);
        } else {
            if colon {
                self.fstr.push(":");
            }
            self.fstr.push(name);
        }
    }

    /// Appends `:0x<value>` for a raw unit mask (its low 32 bits, as libpfm4).
    pub fn push_fstr_raw(&mut self, value: u64) {
        self.fstr.push(&format!(":0x{:x}", value as u32));
    }

    /// Starts the fully-qualified string: the event name, then the requested
    /// unit masks (or raw unit mask) in attribute order.
    pub fn write_fstr_umasks(&mut self) {
        self.fstr.clear();
        let ev = self.event;
        self.push_table_name(false, ev.name());
        self.sort_attrs();
        // Sorted: the unit masks first, raw unit masks last.
        let mut k = 0;
        while let Some(&Attr {
            what: AttrRef::Umask(i),
            ..
        }) = self.attrs.get(k)
        {
            let um = self.umask(i);
            self.push_table_name(true, um.name());
            k += 1;
        }
        let raw = self
            .attrs
            .iter()
            .rposition(|a| !matches!(a.what, AttrRef::Raw(_)))
            .map_or(0, |last| last + 1);
        for k in raw.max(k)..self.attrs.len() {
            if let AttrRef::Raw(v) = self.attrs[k].what {
                self.push_fstr_raw(v);
            }
        }
    }

    /// Writes the fully-qualified string of the engines without special
    /// ordering rules: [`Desc::write_fstr_umasks`], then each hardware
    /// modifier offered, in id order, as `:name=value` with the register
    /// value `value` gives it (`None`: left out).
    pub fn write_fstr(&mut self, mods: &'static [ModDef], value: impl Fn(u64) -> Option<u64>) {
        self.write_fstr_umasks();
        self.write_fstr_mods(mods, value);
    }

    /// Appends each hardware modifier offered, in id order, as `:name=value`
    /// with the value `value` gives it (`None`: left out).
    pub fn write_fstr_mods(&mut self, mods: &'static [ModDef], value: impl Fn(u64) -> Option<u64>) {
        let pieces = match family_pieces(self.pmu.family()) {
            Some(f) if f.made_from(mods) => &f.pieces,
            _ => &NO_PIECES,
        };
        let mut offered = self.offer.mods;
        while offered != 0 {
            let id = offered.trailing_zeros();
            offered &= offered - 1;
            let Some(v) = value(u64::from(id)) else {
                continue;
            };
            let p = &pieces[id as usize & 31];
            // The common case: a piece and one digit that fit.
            if v < 10 && self.fstr.push_piece_digit(p, v as u8) {
                continue;
            }
            if let Some(m) = mods.get(id as usize) {
                if !self.fstr.push_piece_decimal(*p, v) {
                    self.push_fstr_val(m.name, v);
                }
            }
        }
    }

    /// Appends `:name=value` (value in decimal).
    pub fn push_fstr_val(&mut self, name: &str, value: u64) {
        if value < 10 && self.fstr.fits(3 + name.len()) {
            self.fstr.push_char(':');
            self.fstr.push_short(name);
            self.fstr.push_char('=');
            self.fstr.push_char((b'0' + value as u8) as char);
            return;
        }
        self.fstr.push(":");
        self.fstr.push(name);
        self.fstr.push("=");
        self.fstr.push_decimal(value);
    }

    /// Appends `setting` (`:name=`) and `value` in decimal.
    pub fn push_fstr_setting(&mut self, setting: &str, value: u64) {
        if value < 10 && self.fstr.fits(setting.len() + 1) {
            self.fstr.push_short(setting);
            self.fstr.push_char((b'0' + value as u8) as char);
            return;
        }
        self.fstr.push(setting);
        self.fstr.push_decimal(value);
    }

    /// Appends the perf_events attributes offered and `shown` (bit = id),
    /// in id order, each with its value in `values` (by id).
    pub fn write_fstr_perf(&mut self, shown: u32, values: &[u64]) {
        let pieces = perf_pieces();
        let mut perf = self.offer.perf & shown;
        while perf != 0 {
            let id = perf.trailing_zeros() as usize;
            perf &= perf - 1;
            let Some(&v) = values.get(id) else {
                continue;
            };
            let p = &pieces[id & 31];
            if v < 10 && self.fstr.push_piece_digit(p, v as u8) {
                continue;
            }
            if let Some(a) = PERF_ATTRS.get(id) {
                if !self.fstr.push_piece_decimal(*p, v) {
                    self.push_fstr_setting(a.setting, v);
                }
            }
        }
    }
}

/// One family's `:name=` pieces, by modifier id.
struct FamilyPieces {
    /// The modifiers they were made from.
    defs: &'static [ModDef],
    /// By id (an empty piece: none).
    pieces: [Piece; 32],
    /// Addresses of modifier lists found equal to `defs` (a `const` list
    /// may have several copies), 0 where none yet.
    seen: [AtomicUsize; 4],
}

impl FamilyPieces {
    /// Were the pieces made from `mods` (the same names, in the same order)?
    #[inline]
    fn made_from(&self, mods: &'static [ModDef]) -> bool {
        let at = mods.as_ptr() as usize;
        if mods.len() != self.defs.len() {
            return false;
        }
        if self.seen.iter().any(|s| s.load(Ordering::Relaxed) == at) {
            return true;
        }
        if !mods.iter().zip(self.defs).all(|(a, b)| a.name == b.name) {
            return false;
        }
        // A static list never changes, nor does another take its address.
        self.seen[at / std::mem::align_of::<ModDef>() % 4].store(at, Ordering::Relaxed);
        true
    }
}

/// The `:name=` pieces of the modifiers of family `f`, made on first use.
fn family_pieces(f: usize) -> Option<&'static FamilyPieces> {
    static ALL: std::sync::OnceLock<Vec<std::sync::OnceLock<FamilyPieces>>> =
        std::sync::OnceLock::new();
    let all = ALL.get_or_init(|| {
        (0..FAMILIES.len())
            .map(|_| std::sync::OnceLock::new())
            .collect()
    });
    let defs = FAMILIES.get(f)?.modifiers;
    Some(all.get(f)?.get_or_init(|| FamilyPieces {
        defs,
        pieces: pieces_of(defs.iter().map(|m| format!(":{}=", m.name))),
        seen: Default::default(),
    }))
}

/// The `:name=` pieces of the perf_events attributes, made on first use.
fn perf_pieces() -> &'static [Piece; 32] {
    static PERF: std::sync::OnceLock<[Piece; 32]> = std::sync::OnceLock::new();
    PERF.get_or_init(|| pieces_of(PERF_ATTRS.iter().map(|a| a.setting.to_string())))
}

/// No pieces: every piece empty.
static NO_PIECES: [Piece; 32] = [Piece::EMPTY; 32];

/// The pieces of the first 32 texts (an empty piece where a text is too long).
fn pieces_of(texts: impl Iterator<Item = String>) -> [Piece; 32] {
    let mut p = [Piece::EMPTY; 32];
    for (slot, t) in p.iter_mut().zip(texts) {
        *slot = Piece::new(&t).unwrap_or(Piece::EMPTY);
    }
    p
}

/// A fully-qualified string being written, `pmu::` prefix included (the
/// engines write after it): at most [`MAX_FSTR`] bytes after the prefix, as
/// libpfm4 bounds it (cut at a character boundary).
///
/// Its buffer has room for [`SLACK`] bytes past the longest string, so that
/// a short piece is appended as one 16-byte copy of fixed size (the bytes
/// past its end are cut off again at once).
pub(crate) struct Fstr {
    /// The prefix, then the string.
    buf: String,
    /// Length of the `pmu::` prefix.
    base: usize,
}

/// Room past the longest string, for whole-piece writes.
const SLACK: usize = 24;

impl std::fmt::Debug for Fstr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// A short piece of a fully-qualified string (`:name=`) as 16 bytes of
/// text (NUL-padded), for [`Fstr::push_piece`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Piece {
    /// The piece, then NULs up to 16 bytes.
    text: &'static str,
    len: u8,
}

impl Piece {
    /// No piece (nothing is written for it).
    pub const EMPTY: Piece = Piece {
        text: "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
        len: 0,
    };

    /// `s` as a piece, if it has at most 16 bytes (made once per family:
    /// its padded text lives as long as the program).
    pub fn new(s: &str) -> Option<Piece> {
        if s.len() > 16 {
            return None;
        }
        let mut text = String::with_capacity(16);
        text.push_str(s);
        text.extend(std::iter::repeat_n('\0', 16 - s.len()));
        Some(Piece {
            text: Box::leak(text.into_boxed_str()),
            len: s.len() as u8,
        })
    }
}

impl Fstr {
    /// An empty string for events of PMU `pmu`.
    pub fn new(pmu: &str) -> Fstr {
        let base = pmu.len() + 2;
        let mut buf = String::with_capacity(base + MAX_FSTR + SLACK);
        buf.push_str(pmu);
        buf.push_str("::");
        Fstr { buf, base }
    }

    /// A placeholder that holds nothing (no allocation).
    pub fn empty() -> Fstr {
        Fstr {
            buf: String::new(),
            base: 0,
        }
    }

    /// Empties it (the prefix stays).
    pub fn clear(&mut self) {
        self.buf.truncate(self.base);
    }

    /// Does a piece of `n` bytes fit whole?
    #[inline]
    pub fn fits(&self, n: usize) -> bool {
        self.buf.len() - self.base + n <= MAX_FSTR
    }

    /// Appends text the caller knows fits.
    #[inline]
    fn put(&mut self, s: &str) {
        self.buf.push_str(s);
    }

    /// Appends a piece that fits ([`Fstr::fits`]): a copy of 16 bytes, the
    /// bytes past the piece cut off.
    #[inline]
    pub fn push_piece(&mut self, p: Piece) {
        let end = self.buf.len() + usize::from(p.len);
        self.push_text16(p.text);
        self.buf.truncate(end);
    }

    /// Appends `p` and `value` in decimal (its digits cut where the string
    /// is full), if `p` and one digit fit; false, and nothing written, if not.
    #[inline]
    pub fn push_piece_decimal(&mut self, p: Piece, value: u64) -> bool {
        if value < 10 {
            return self.push_piece_digit(&p, value as u8);
        }
        if p.len == 0 || !self.fits(usize::from(p.len) + 1) {
            return false;
        }
        self.push_piece(p);
        self.push_decimal(value);
        true
    }

    /// Appends the 16 bytes of a piece's text (a copy of fixed size).
    #[inline]
    fn push_text16(&mut self, text: &str) {
        if let Some(t) = text.get(..16) {
            self.buf.push_str(t);
        }
    }

    /// Appends `p` with decimal digit `digit` (below 10) after it, if both
    /// fit; false, and nothing written, if not.
    #[inline]
    pub fn push_piece_digit(&mut self, p: &Piece, digit: u8) -> bool {
        let n = usize::from(p.len);
        if n == 0 || !self.fits(n + 1) {
            return false;
        }
        let end = self.buf.len() + n;
        self.push_text16(p.text);
        self.buf.truncate(end);
        self.buf.push(char::from(b'0' + digit));
        true
    }

    /// Appends one character the caller knows fits.
    #[inline]
    pub fn push_char(&mut self, c: char) {
        self.buf.push(c);
    }

    /// Appends a piece the caller knows fits.
    #[inline]
    pub fn push_short(&mut self, s: &str) {
        self.put(s);
    }

    /// Appends `s`, or as much of it as fits (whole characters).
    pub fn push(&mut self, s: &str) {
        let room = MAX_FSTR - (self.buf.len() - self.base);
        if s.len() <= room {
            self.put(s);
            return;
        }
        let mut n = room;
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.put(s.get(..n).unwrap_or(""));
    }

    /// Appends `v` in decimal.
    #[inline]
    pub fn push_decimal(&mut self, v: u64) {
        let room = MAX_FSTR - (self.buf.len() - self.base);
        if v < 10 {
            if room > 0 {
                self.buf.push(char::from(b'0' + v as u8));
            }
            return;
        }
        let n = v.ilog10() as usize + 1;
        if n > room {
            let mut digits = [0u8; 20];
            let d = decimal(v, &mut digits);
            self.put(std::str::from_utf8(&d[..room]).unwrap_or(""));
            return;
        }
        // Two digits at a time: the pairs from the last, then written from
        // the first.
        let (mut pairs, mut k, mut v) = ([0u8; 16], 0, v);
        while v >= 100 {
            pairs[k & 15] = (v % 100) as u8;
            k += 1;
            v /= 100;
        }
        if v >= 10 {
            self.push_pair(v as usize);
        } else {
            self.buf.push(char::from(b'0' + v as u8));
        }
        while k > 0 {
            k -= 1;
            self.push_pair(usize::from(pairs[k & 15]));
        }
    }

    /// Appends two decimal digits, `v` below 100 ("00" to "99").
    #[inline]
    fn push_pair(&mut self, v: usize) {
        if let Some(t) = DIGIT_PAIRS.get(2 * v..2 * v + 2) {
            self.buf.push_str(t);
        }
    }

    /// The string so far, without the prefix.
    pub fn as_str(&self) -> &str {
        self.buf.get(self.base..).unwrap_or("")
    }

    /// The whole string, prefix included.
    pub fn into_string(self) -> String {
        self.buf
    }

    /// Its length in bytes, without the prefix.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.buf.len() - self.base
    }
}

/// "00", "01", ... "99".
static DIGIT_PAIRS: &str = match std::str::from_utf8(&DIGIT_PAIR_BYTES) {
    Ok(s) => s,
    Err(_) => panic!("digits are ASCII"),
};

/// The bytes of [`DIGIT_PAIRS`].
const DIGIT_PAIR_BYTES: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_like_display() {
        let mut buf = [0u8; 20];
        for v in [0, 1, 9, 10, 255, 100000, u64::MAX] {
            assert_eq!(decimal(v, &mut buf), v.to_string().as_bytes());
        }
        let mut v = 1u64;
        for _ in 0..64 {
            for w in [v - 1, v, v + 1, v.wrapping_mul(10).wrapping_sub(1)] {
                let mut f = Fstr::new("p");
                f.push_decimal(w);
                assert_eq!(f.as_str(), w.to_string());
                for fill in 240..=MAX_FSTR {
                    let mut f = Fstr::new("p");
                    f.push(&"x".repeat(fill));
                    f.push_decimal(w);
                    let mut want = "x".repeat(fill) + &w.to_string();
                    want.truncate(MAX_FSTR);
                    assert_eq!(f.as_str(), want);
                }
            }
            v = v.wrapping_mul(3).max(1);
        }
    }

    #[test]
    fn bounded_fstr() {
        let mut s = Fstr::new("p");
        s.push(&"a".repeat(250));
        s.push("bcdefghij");
        assert_eq!(s.len(), MAX_FSTR);
        assert!(s.as_str().ends_with("bcdef"));
        s.push_decimal(7);
        assert_eq!(s.len(), MAX_FSTR);
        let mut t = Fstr::new("p");
        t.push(&"a".repeat(254));
        t.push("é");
        assert_eq!(t.len(), 254);
        t.clear();
        t.push_decimal(1234);
        t.push_decimal(5);
        assert_eq!(t.as_str(), "12345");
    }

    /// A piece and its value are written as the plain pushes write them,
    /// near the end of the room too.
    #[test]
    fn pieces_like_plain_pushes() {
        for text in [
            ":k=",
            ":period=",
            ":fe_thres=",
            ":precise=",
            ":a_long_name_16=",
        ] {
            let p = Piece::new(text).unwrap();
            for fill in (0..40).chain(200..=MAX_FSTR) {
                for v in [0, 7, 12, 100000, u64::MAX] {
                    let mut a = Fstr::new("pmu");
                    let mut b = Fstr::new("pmu");
                    a.push(&"x".repeat(fill));
                    b.push(&"x".repeat(fill));
                    if !a.push_piece_decimal(p, v) {
                        assert!(!a.fits(text.len() + 1));
                        a.push(text);
                        a.push_decimal(v);
                    }
                    b.push(text);
                    b.push_decimal(v);
                    assert_eq!(a.as_str(), b.as_str(), "{text} {fill} {v}");
                    a.push_char(':');
                    b.push_char(':');
                    assert_eq!(a.into_string(), b.into_string());
                }
            }
        }
        assert!(Piece::new(&"y".repeat(17)).is_none());
    }

    #[test]
    fn attribute_order() {
        let mut v = [
            AttrRef::Raw(5),
            AttrRef::Perf(0),
            AttrRef::Mod(3),
            AttrRef::Umask(7),
            AttrRef::Mod(0),
        ];
        v.sort_by_key(|a| a.order());
        assert_eq!(
            v,
            [
                AttrRef::Umask(7),
                AttrRef::Mod(0),
                AttrRef::Mod(3),
                AttrRef::Perf(0),
                AttrRef::Raw(5)
            ]
        );
    }
}
