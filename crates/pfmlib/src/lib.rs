//! # pfmlib
//!
//! A pure-Rust implementation of the perfmon2 performance-monitoring library
//! (libpfm4): PMU models with their events, unit masks and modifiers; event
//! strings `[pmu::]EVENT[:UMASK...][:mod=val...]`; encodings for the raw PMU
//! registers and for Linux `perf_event_attr`, bit-for-bit equal to libpfm4.
//!
//! ```
//! use pfmlib::{Library, Os, Plm};
//!
//! let lib = Library::global();
//! // Raw PERFEVTSEL value and fully-qualified string for Intel Nehalem.
//! let enc = lib.encode("nhm::ARITH:MUL:c=2", Plm::DEFAULT, Os::None).unwrap();
//! assert_eq!(enc.codes, vec![0x02530214]);
//!
//! // The same event for perf_event_open(2).
//! let enc = lib.encode("nhm::ARITH:MUL:u", Plm::DEFAULT, Os::PerfEventExt).unwrap();
//! let attr = enc.perf.unwrap();
//! assert_eq!((attr.type_, attr.config, attr.exclude_kernel), (4, 0x214, true));
//! ```
//!
//! Layers, bottom up (see ARCHITECTURE.md): static tables generated from
//! `data/*.toml` (`tables`) → one engine per PMU family (`pmu`) → event
//! strings (`event`: resolve, then attributes) → OS encodings (`os`) → the
//! public [`Library`]; the machine's facts come through one [`Host`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod attrs;
pub mod c_support;
pub mod cpulist;
mod ctx;
mod desc;
mod error;
mod event;
pub mod host;
mod kernel;
mod library;
mod model;
pub mod model_specific;
mod os;
mod pmu;
pub mod regs;
mod tables;

pub use error::{Error, ErrorKind, Result};
pub use event::quoted;
pub use host::{Arch, ArchPerfmon, Host, RiscvIds};
pub use kernel::PerfAttr;
pub use library::{encode, find_event, Event, Library, Options, PerfSettings, Pmu};
pub use model::{
    AttrCtrl, AttrInfo, AttrType, EventInfo, KernelPmu, Os, Plm, PmuInfo, PmuKind, Speculation,
    Vendor,
};
pub use os::Encoding;
/// The kernel's `perf_event_attr` (from `perf-event-open-sys`), which
/// [`PerfAttr::to_kernel`] returns.
pub use perf_event_open_sys::bindings::perf_event_attr;

/// The README's Rust examples, compiled and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
