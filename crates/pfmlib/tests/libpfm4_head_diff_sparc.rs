//! Differential sweep against libpfm4 upstream built for `sparc` (`make
//! ARCH=sparc lib` of the tree in `../shared/oracle/libpfm4-head/`, found
//! through `PFMLIB_LIBPFM4_HEAD_SPARC`, see `common/head.rs`): the tables of
//! every PMU of that build (UltraSPARC I/II to IV+, Niagara I and II), every
//! event with every unit mask and modifier in the three OS layers, odd
//! strings of its own, and our own descriptions. The oracle is loaded once
//! for the process.

mod common;

#[path = "sparc_strings/mod.rs"]
mod sparc_strings;

use common::arm::{odd_strings_of, own_words_with, sweep_with, tables_with, Build};
use sparc_strings::ODD;

const B: Build = Build::HeadSparc;

/// PMUs pfmlib does not follow upstream for yet (see `common/head.rs`).
const NOT_YET: &[&str] = &[];

#[test]
fn tables_match_libpfm4_head_sparc() {
    tables_with(B, NOT_YET);
}

#[test]
fn sweep_head_sparc_shard_0() {
    sweep_with(B, 0, 2, NOT_YET);
}

#[test]
fn sweep_head_sparc_shard_1() {
    sweep_with(B, 1, 2, NOT_YET);
}

#[test]
fn odd_strings_head_sparc() {
    odd_strings_of(B, ODD, NOT_YET);
}

#[test]
fn descriptions_are_our_own_head_sparc() {
    own_words_with(B, NOT_YET);
}
