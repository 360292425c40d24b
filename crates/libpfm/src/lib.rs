//! # libpfm — `libpfm.so.4` from pfmlib
//!
//! A shared library with libpfm4 4.13's C interface, so that C programs
//! written for libpfm4 (PAPI, PCP, llvm-exegesis, libpfm4's own tools) run
//! on pfmlib unchanged: the same SONAME (`libpfm.so.4`), the same thirteen
//! functions with the same structures, error codes, PMU ids and opaque
//! event indexes, and the same environment variables. The headers are in
//! `include/perfmon/` at the top of the repository.
//!
//! Layers: [`abi`] (the C structures and constants) · `state` (the global
//! library between `pfm_initialize` and `pfm_terminate`) · `encode`,
//! `attr`, `validate`, `cstrings`, `log` (what the calls do, in safe Rust)
//! · `ffi` (the exported functions; with `ffi::sys`, the only `unsafe`
//! code, each block with its `SAFETY:` argument).

#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod abi;
mod attr;
mod cstrings;
mod encode;
mod ffi;
mod log;
mod state;
mod validate;

pub use ffi::{
    pfm_find_event, pfm_get_event_attr_info, pfm_get_event_encoding, pfm_get_event_info,
    pfm_get_event_next, pfm_get_os_event_encoding, pfm_get_perf_event_encoding, pfm_get_pmu_info,
    pfm_get_version, pfm_initialize, pfm_pmu_validate, pfm_strerror, pfm_terminate, MAX_STRING,
    MAX_STRUCT,
};
