//! Support for the C library (`crates/libpfm`, libpfm4's C interface):
//! what a C-ABI layer over pfmlib needs and Rust callers do not. Table
//! strings are stored followed by a NUL, so C may be handed them without a
//! copy.

use crate::tables::{pool_cstr, pool_nul_terminated};
use std::ffi::CStr;

/// A string of pfmlib's tables as a NUL-terminated C string, without a
/// copy: names and descriptions of PMUs, events and unit masks, and alias
/// strings, as [`Pmu`](crate::Pmu), [`Event`](crate::Event),
/// [`EventInfo`](crate::EventInfo) and [`AttrInfo`](crate::AttrInfo)
/// return them. `None` for any other string (modifier and perf_events
/// attribute names and descriptions are Rust constants, without a NUL).
///
/// ```
/// use pfmlib::c_support::table_cstr;
/// let ev = pfmlib::Library::global().find_event("nhm::INST_RETIRED").unwrap();
/// assert_eq!(table_cstr(ev.name()), Some(c"INST_RETIRED"));
/// assert_eq!(table_cstr("INST_RETIRED"), None);
/// ```
pub fn table_cstr(s: &'static str) -> Option<&'static CStr> {
    pool_cstr(s)
}

/// Is `s` a string of pfmlib's tables, so that a NUL follows its last byte
/// (`s.as_ptr()` may then be handed to C as a C string)? What
/// [`table_cstr`] answers, without looking through the string: one
/// comparison and one byte read, for callers that hand out many strings.
///
/// ```
/// use pfmlib::c_support::is_table_string;
/// let ev = pfmlib::Library::global().find_event("nhm::INST_RETIRED").unwrap();
/// assert!(is_table_string(ev.desc()));
/// assert!(!is_table_string("INST_RETIRED"));
/// ```
pub fn is_table_string(s: &'static str) -> bool {
    pool_nul_terminated(s)
}
