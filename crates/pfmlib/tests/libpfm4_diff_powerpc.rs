//! Differential sweep against libpfm4 4.13 built for `powerpc` (`make
//! ARCH=powerpc lib` of Debian's source package, found through
//! `PFMLIB_LIBPFM4_POWERPC`, see `common/arm.rs`): the tables of every PMU of
//! that build, every event of every PMU with every attribute in the three OS
//! layers, odd strings, and our own descriptions. On this host no POWER PMU
//! is detected, so both libraries encode with the PMU's prefix
//! (`LIBPFM_ENCODE_INACTIVE=1`).

mod common;

use common::arm::{odd_strings_of, own_words_with, sweep_with, tables_with, Build};
use common::power::ODD;

const B: Build = Build::Powerpc;

/// PMUs left out of this 4.13 comparison, each with why: their tables
/// changed upstream, and pfmlib follows upstream (`libpfm4_head_diff_powerpc`
/// compares them), or they are not in pfmlib yet.
const LEFT_OUT: &[&str] = &[
    // Upstream adds 21 events (4.13: 950).
    "power10",
];

#[test]
fn tables_match_libpfm4_powerpc() {
    tables_with(B, LEFT_OUT);
}

#[test]
fn sweep_powerpc_shard_0() {
    sweep_with(B, 0, 2, LEFT_OUT);
}

#[test]
fn sweep_powerpc_shard_1() {
    sweep_with(B, 1, 2, LEFT_OUT);
}

#[test]
fn odd_strings_powerpc() {
    odd_strings_of(B, ODD, LEFT_OUT);
}

#[test]
fn descriptions_are_our_own_powerpc() {
    own_words_with(B, LEFT_OUT);
}
