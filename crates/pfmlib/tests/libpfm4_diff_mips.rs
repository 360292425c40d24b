//! Differential sweep against libpfm4 4.13 built for MIPS (`make ARCH=mips
//! lib`), the oracle for the PMUs of that build: tables of every PMU
//! (events, attributes, per OS layer), then every event with every modifier,
//! valid and invalid values, in PFM_OS_NONE, PFM_OS_PERF_EVENT and
//! PFM_OS_PERF_EVENT_EXT, odd strings of the MIPS family
//! (`common/mips.rs`), and the descriptions are our own. The library's path
//! comes from `PFMLIB_LIBPFM4_MIPS` (see `common/arm.rs`); this file loads
//! only that build.

mod common;

use common::arm::{odd_strings_of, own_words, sweep, tables, Build};
use common::mips::ODD;

const B: Build = Build::Mips;

#[test]
fn tables_match_libpfm4_mips() {
    tables(B);
}

#[test]
fn sweep_mips() {
    sweep(B, 0, 1);
}

#[test]
fn odd_strings_mips() {
    odd_strings_of(B, ODD, &[]);
}

#[test]
fn descriptions_are_our_own_mips() {
    own_words(B);
}
