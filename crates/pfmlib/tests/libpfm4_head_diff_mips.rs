//! Differential sweep against libpfm4 upstream built for MIPS (`make
//! ARCH=mips lib` of the tree in `../shared/oracle/libpfm4-head/`, found
//! through `PFMLIB_LIBPFM4_HEAD_MIPS`, see `common/head.rs`): the tables of
//! every PMU of that build, every event with every modifier in the three OS
//! layers, the MIPS odd strings (`common/mips.rs`), and our own
//! descriptions, as `libpfm4_diff_mips.rs` does against 4.13. The oracle is
//! loaded once for the process.

mod common;

use common::arm::{odd_strings_of, own_words_with, sweep_with, tables_with, Build};
use common::mips::ODD;

const B: Build = Build::HeadMips;

/// PMUs pfmlib does not follow upstream for yet (see `common/head.rs`):
/// none.
const NOT_YET: &[&str] = &[];

#[test]
fn tables_match_libpfm4_head_mips() {
    tables_with(B, NOT_YET);
}

#[test]
fn sweep_head_mips() {
    sweep_with(B, 0, 1, NOT_YET);
}

#[test]
fn odd_strings_head_mips() {
    odd_strings_of(B, ODD, NOT_YET);
}

#[test]
fn descriptions_are_our_own_head_mips() {
    own_words_with(B, NOT_YET);
}
