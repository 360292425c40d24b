//! # pfmlib-dispatch
//!
//! libpfm-3 compatibility over pfmlib: model-specific dispatch (libpfm-3's
//! `pfm_dispatch_events`) for Intel Nehalem / Westmere and IA-64, its
//! libpfm-3 request format ([`libpfm3`]), and the IA-64 per-event queries of
//! the libpfm-3 pages ([`ia64`]; for any event, [`model_facts`]).
//!
//! Dispatch takes several events and model-specific parameters, assigns
//! counters and computes every register value to program. The request and
//! result types are serde types: `pfm dispatch` reads and prints them as
//! JSON, and they are the library API.
//!
//! ```
//! use pfmlib_dispatch::{dispatch, Request};
//! let req: Request = serde_json::from_str(r#"{
//!     "pmu": "nhm",
//!     "events": [{"event": "INSTRUCTION_RETIRED"}, {"event": "ARITH:MUL", "cnt_mask": 2}]
//! }"#).unwrap();
//! let res = dispatch(pfmlib::Library::global(), &req).unwrap();
//! assert_eq!(res.assignments[0].counter.name, "FIXED_CTR0");
//! assert_eq!(res.assignments[1].counter.name, "PMC0");
//! ```
//!
//! Everything pfmlib-specific it needs (which dispatcher serves a PMU, an
//! event encoded for its register, the IA-64 facts of an event) comes through
//! [`pfmlib::model_specific`]; the rest is pfmlib's public API.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod facts;
pub mod ia64;
mod ia64_dispatch;
pub mod libpfm3;
mod nhm;
mod request;
mod response;
mod select;

pub use error::{DispatchError, DispatchErrorKind};
pub use facts::{model_facts, ModelFacts};
pub use request::{
    AddrRange, BtbParams, EarModeParam, EarParams, EventFlag, EventRequest, Ia64Params,
    IpearParams, Ism, LbrFilter, LbrParams, NhmParams, Num, Opcm, PebsParams, PlmSpec, RangeParams,
    Request,
};
pub use response::{Assignment, Dispatch, RangeInfo, RangeResult, Reg, RegValue};
pub use select::dispatch;
