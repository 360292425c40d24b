//! Static PMU tables generated at build time from `data/*.toml`.
//!
//! The types here are the compiled form of the schema in `data/SCHEMA.md`;
//! engines interpret them, nothing else touches the raw flag words.

/// Which engine encodes a PMU's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    /// Intel x86 core PMUs (PERFEVTSEL layout).
    IntelX86,
    /// The Linux perf_events generic PMU.
    Perf,
    /// AMD64 core PMUs (PERF_CTL layout).
    Amd64,
    /// Intel Nehalem/Westmere uncore.
    IntelNhmUnc,
    /// Itanium, Itanium 2 and Montecito (IA-64 PMC layouts).
    Ia64,
}

pub use crate::ia64::{Ia64Ear, Ia64EventType, Ia64Group};
pub use crate::model::PmuKind;

/// CPU vendor, as reported by CPUID leaf 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Vendor {
    /// GenuineIntel.
    Intel,
    /// AuthenticAMD.
    Amd,
    /// Anything else.
    Other,
}

/// CPU family and models a PMU is detected on.
#[derive(Debug)]
pub(crate) struct CpuMatch {
    pub vendor: Vendor,
    pub family: u32,
    pub models: &'static [u32],
}

/// One PMU model.
#[derive(Debug)]
pub(crate) struct PmuDesc {
    pub name: &'static str,
    pub desc: &'static str,
    pub id: u32,
    pub engine: Engine,
    pub kind: PmuKind,
    pub num_cntrs: u32,
    pub num_fixed_cntrs: u32,
    pub max_encoding: u32,
    pub supported_plm: u32,
    pub flags: u32,
    pub cpu: Option<CpuMatch>,
    pub offcore_raw_bits: u32,
    /// perf_events PMU name, for the dynamic `type`.
    pub perf_name: Option<&'static str>,
    pub events: &'static [EventDesc],
    /// Hashed name index: a power-of-two number of slots, at most half
    /// full, each 0 (empty) or 1 + an index in `events` (the first event of
    /// each name); probed linearly from [`name_hash`] of the upper-case name.
    pub index: &'static [u16],
}

/// One event of a PMU.
#[derive(Debug)]
pub(crate) struct EventDesc {
    pub name: &'static str,
    pub desc: &'static str,
    pub code: u64,
    pub cntmsk: u64,
    pub modmsk: u32,
    pub flags: u32,
    pub equiv: Option<&'static str>,
    pub perf_type: u32,
    pub cpuid_bit: i32,
    pub ngrp: u32,
    /// IA-64 facts (`ia64` engine only).
    pub ia64: Option<&'static Ia64Desc>,
    pub umasks: &'static [UmaskDesc],
}

/// IA-64 facts of one event (the `ia64` keys of `data/SCHEMA.md`).
#[derive(Debug)]
pub(crate) struct Ia64Desc {
    /// Most occurrences per cycle; thresholds stay below it.
    pub maxincr: u8,
    /// Unit mask hard-wired into the PMC.
    pub umask: u32,
    /// Qualifiers honoured, see [`crate::ia64::qual`].
    pub qual: u8,
    /// Event Address Register kind.
    pub ear: Ia64Ear,
    /// Cache group.
    pub group: Ia64Group,
    /// Set within the cache group.
    pub set: Option<u8>,
    /// Montecito event type.
    pub ty: Option<Ia64EventType>,
}

/// One unit mask of an event.
#[derive(Debug)]
pub(crate) struct UmaskDesc {
    pub name: &'static str,
    pub desc: &'static str,
    /// Attribute code: unit-mask value plus hard-wired modifiers, as the
    /// register bits above bit 8 (`intel_x86`) or the config bits (`perf`).
    pub code: u64,
    pub grp: u32,
    pub flags: u32,
    /// Modifiers hard-wired by this unit mask (bit = modifier index).
    pub modhw: u32,
    pub equiv: Option<&'static str>,
}

impl PmuDesc {
    /// Finds an event by name, ignoring ASCII case.
    pub fn find_event(&self, name: &str) -> Option<usize> {
        let mask = self.index.len() - 1;
        let mut slot = name_hash(name.as_bytes()) as usize & mask;
        loop {
            let e = *self.index.get(slot)? as usize;
            if e == 0 {
                return None;
            }
            if eq_ignore_case(self.events[e - 1].name.as_bytes(), name.as_bytes()) {
                return Some(e - 1);
            }
            slot = (slot + 1) & mask;
        }
    }
}

/// `a.eq_ignore_ascii_case(b)`, eight bytes at a time while they are equal.
#[inline]
pub(crate) fn eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let word = |c: &[u8]| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8]));
    let (mut ca, mut cb) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut ca).zip(&mut cb) {
        if word(x) != word(y) && !x.eq_ignore_ascii_case(y) {
            return false;
        }
    }
    let (ra, rb) = (ca.remainder(), cb.remainder());
    ra.iter()
        .zip(rb)
        .all(|(x, y)| x == y || x.eq_ignore_ascii_case(y))
}

include!("name_hash.rs");

include!(concat!(env!("OUT_DIR"), "/tables.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    /// The index built by build.rs and the lookup agree: every name finds the
    /// first event of that name (any case), and nothing else is found.
    #[test]
    fn name_index_finds_every_event() {
        for p in ALL_PMUS {
            assert!(p.index.len().is_power_of_two(), "{}", p.name);
            for (i, ev) in p.events.iter().enumerate() {
                let first = p
                    .events
                    .iter()
                    .position(|e| e.name.eq_ignore_ascii_case(ev.name))
                    .unwrap();
                for name in [ev.name.to_string(), ev.name.to_ascii_lowercase()] {
                    assert_eq!(p.find_event(&name), Some(first), "{}::{name} ({i})", p.name);
                }
                assert_eq!(p.find_event(&format!("{}_", ev.name)), None);
            }
            assert_eq!(p.find_event(""), None);
            assert_eq!(p.find_event("NO_SUCH_EVENT"), None);
        }
    }
}
