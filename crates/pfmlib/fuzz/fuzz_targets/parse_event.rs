//! Fuzz the event-string parser and every encoder: no input may panic.
//!
//! Run with `cargo +nightly fuzz run parse_event` from `crates/pfmlib`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pfmlib::{Library, Os, Plm};

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let lib = Library::global();
    for os in [Os::None, Os::PerfEvent, Os::PerfEventExt] {
        let _ = lib.encode(&s, Plm::DEFAULT, os);
    }
    let _ = lib.find_event(&s);
});
