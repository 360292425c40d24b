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
//! Layers, bottom up: static tables generated from `data/*.toml`
//! ([`tables`](crate) internals) → engines per PMU family (`pmu`) → event
//! strings (`event`) → OS encodings (`os`) → the public [`Library`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod dispatch;
mod error;
mod event;
mod host;
pub mod ia64;
mod model;
mod os;
mod pmu;
mod registry;
pub mod regs;
mod tables;

pub use error::{Error, ErrorKind, Result};
pub use host::{ArchPerfmon, Host};
pub use model::{AttrCtrl, AttrInfo, AttrType, EventInfo, Os, Plm, PmuInfo, PmuKind, Speculation};
pub use os::{Encoding, PerfAttr};
pub use registry::{encode, find_event, Event, Library, Pmu};
pub use tables::Vendor;
