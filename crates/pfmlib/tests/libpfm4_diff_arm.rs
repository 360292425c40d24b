//! Differential sweep against libpfm4 4.13 built for 32-bit Arm (`make
//! ARCH=arm lib`), the oracle for the PMUs of that build: tables of every
//! PMU (events, attributes, per OS layer), then every event of every PMU
//! (uncore instances included) with every modifier, valid and invalid
//! values, in PFM_OS_NONE, PFM_OS_PERF_EVENT and PFM_OS_PERF_EVENT_EXT, and
//! the descriptions are our own. The library's path comes from
//! `PFMLIB_LIBPFM4_ARM` (see `common/arm.rs`); this file loads only that
//! build.

mod common;

use common::arm::{odd_strings, own_words, sweep, tables, Build};

const B: Build = Build::Arm;

#[test]
fn tables_match_libpfm4_arm() {
    tables(B);
}

#[test]
fn sweep_arm_shard_0() {
    sweep(B, 0, 2);
}

#[test]
fn sweep_arm_shard_1() {
    sweep(B, 1, 2);
}

#[test]
fn odd_strings_arm() {
    odd_strings(B);
}

#[test]
fn descriptions_are_our_own_arm() {
    own_words(B);
}
