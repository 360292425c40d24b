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
    /// Upper-case event names, sorted, with their index in `events`.
    pub names: &'static [(&'static str, u32)],
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
        let upper_cmp = |entry: &str| -> std::cmp::Ordering {
            let a = entry.as_bytes();
            let b = name.as_bytes();
            for (x, y) in a.iter().zip(b.iter()) {
                let c = x.cmp(&y.to_ascii_uppercase());
                if c != std::cmp::Ordering::Equal {
                    return c;
                }
            }
            a.len().cmp(&b.len())
        };
        self.names
            .binary_search_by(|(n, _)| upper_cmp(n))
            .ok()
            .map(|i| self.names[i].1 as usize)
    }
}

include!(concat!(env!("OUT_DIR"), "/tables.rs"));
