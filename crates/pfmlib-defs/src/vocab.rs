//! The vocabulary every family is written in: modifiers, fields a unit
//! mask may hard-wire, extra keys, the [`FamilyDefs`] record, and the
//! compile-time lookups engines take their constants from.

/// Whether a modifier takes a boolean or an integer value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModKind {
    /// `:m`, `:m=1`, `:m=0` (also y/n, t/f).
    Bool,
    /// `:m=N`.
    Int,
}

/// A hardware modifier of a family; its position in
/// [`FamilyDefs::modifiers`] is its id (attribute code, modifier-mask bit).
#[derive(Debug)]
pub struct ModDef {
    /// Name as written in event strings.
    pub name: &'static str,
    /// Description, our own words.
    pub desc: &'static str,
    /// Boolean or integer.
    pub kind: ModKind,
    /// The name as a [`key`], for lookups.
    pub key: u64,
}

impl ModDef {
    /// A modifier; its lookup key is computed from the name.
    pub const fn new(name: &'static str, kind: ModKind, desc: &'static str) -> ModDef {
        ModDef {
            name,
            desc,
            kind,
            key: key(name.as_bytes()),
        }
    }
}

/// A name of at most 8 bytes as one word, ASCII letters in lower case,
/// first byte lowest: equal keys mean names equal but for case. Longer (or
/// empty) names give [`NO_KEY`], which matches no modifier.
pub const fn key(name: &[u8]) -> u64 {
    if name.is_empty() || name.len() > 8 {
        return NO_KEY;
    }
    let mut k = 0u64;
    let mut i = 0;
    while i < name.len() {
        let c = name[i];
        let c = if c >= b'A' && c <= b'Z' { c + 32 } else { c };
        k |= (c as u64) << (8 * i);
        i += 1;
    }
    k
}

/// The key of names that have none (empty, or longer than 8 bytes).
pub const NO_KEY: u64 = u64::MAX;

/// A modifier a unit mask may hard-wire (`fixed = { c = 1 }` in the data):
/// where its value goes in the unit mask's attribute code.
#[derive(Debug)]
pub struct Fixed {
    /// Modifier name (one of the family's modifiers).
    pub name: &'static str,
    /// Bit position within the attribute code.
    pub shift: u32,
    /// Width in bits.
    pub width: u32,
}

/// What an extra key of an event or PMU holds, and how it is stored (one
/// 32-bit word each, in declaration order).
#[derive(Debug)]
pub enum ExtKind {
    /// An integer in `min..=max`; absent: `default`.
    Int {
        /// Smallest value.
        min: u32,
        /// Largest value.
        max: u32,
        /// Value when the key is absent.
        default: u32,
    },
    /// An integer in `0..=max`, optional: stored as value + 1, absent as 0.
    OptInt {
        /// Largest value.
        max: u32,
    },
    /// One of these names, stored as its position; absent: position 0.
    Enum(&'static [&'static str]),
    /// A list of these names, stored as a bit mask (bit = position).
    Flags(&'static [&'static str]),
    /// A 64-bit integer, stored in two words (low, high); absent: 0.
    U64,
}

/// An extra key a family's data may carry beyond the common schema.
#[derive(Debug)]
pub struct ExtField {
    /// Key in the TOML data.
    pub key: &'static str,
    /// Value kind and storage.
    pub kind: ExtKind,
    /// The key must be present (on every event of the family).
    pub required: bool,
}

/// Everything the generator and the engine of one family agree on.
#[derive(Debug)]
pub struct FamilyDefs {
    /// Name used by `engine = "..."` in the data.
    pub name: &'static str,
    /// PMU flag names, bit n = position n.
    pub pmu_flags: &'static [&'static str],
    /// Event flag names.
    pub event_flags: &'static [&'static str],
    /// Unit-mask flag names.
    pub umask_flags: &'static [&'static str],
    /// Hardware modifiers, by id.
    pub modifiers: &'static [ModDef],
    /// Modifiers a unit mask may hard-wire, and where.
    pub fixed: &'static [Fixed],
    /// Extra per-event keys (stored in the extension words of the event).
    pub event_ext: &'static [ExtField],
    /// Extra per-PMU keys (stored in the extension words of the PMU).
    pub pmu_ext: &'static [ExtField],
    /// Extra per-unit-mask keys (stored in the extension words of the unit mask).
    pub umask_ext: &'static [ExtField],
    /// Every event takes every modifier (the data lists none).
    pub all_modifiers: bool,
}

/// Bit of `name` in a flag list: a compile-time error if it is not there.
pub const fn bit(list: &[&str], name: &str) -> u32 {
    1 << position(list, name)
}

/// Position of `name` in `list`: a compile-time error if it is not there.
pub const fn position(list: &[&str], name: &str) -> u32 {
    let mut i = 0;
    while i < list.len() {
        if str_eq(list[i], name) {
            return i as u32;
        }
        i += 1;
    }
    panic!("name not in list")
}

/// Id of modifier `name` in `mods`: a compile-time error if it is not there.
pub const fn modifier(mods: &[ModDef], name: &str) -> u64 {
    let mut i = 0;
    while i < mods.len() {
        if str_eq(mods[i].name, name) {
            return i as u64;
        }
        i += 1;
    }
    panic!("no such modifier")
}

/// First word of extra key `key` in `fields` (a [`ExtKind::U64`] key takes
/// two words): a compile-time error if absent.
pub const fn ext(fields: &[ExtField], key: &str) -> usize {
    let mut i = 0;
    let mut word = 0;
    while i < fields.len() {
        if str_eq(fields[i].key, key) {
            return word;
        }
        word += ext_words(&fields[i].kind);
        i += 1;
    }
    panic!("no such extra key")
}

/// Words one extra key takes.
pub const fn ext_words(kind: &ExtKind) -> usize {
    match kind {
        ExtKind::U64 => 2,
        _ => 1,
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
