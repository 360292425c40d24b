//! Differential sweep against libpfm4 4.13 built for 64-bit Arm (`make
//! ARCH=arm64 lib`), the oracle for the PMUs of that build: tables of every
//! PMU (events, attributes, per OS layer), then every event of every PMU
//! (uncore instances included) with every modifier, valid and invalid
//! values, in PFM_OS_NONE, PFM_OS_PERF_EVENT and PFM_OS_PERF_EVENT_EXT, and
//! the descriptions are our own. The library's path comes from
//! `PFMLIB_LIBPFM4_ARM64` (see `common/arm.rs`); this file loads only that
//! build.

mod common;

use common::arm::{odd_strings, own_words, sweep, tables, Build};

const B: Build = Build::Arm64;

#[test]
fn tables_match_libpfm4_arm64() {
    tables(B);
}

#[test]
fn sweep_arm64_shard_0() {
    sweep(B, 0, 2);
}

#[test]
fn sweep_arm64_shard_1() {
    sweep(B, 1, 2);
}

#[test]
fn odd_strings_arm64() {
    odd_strings(B);
}

#[test]
fn descriptions_are_our_own_arm64() {
    own_words(B);
}
