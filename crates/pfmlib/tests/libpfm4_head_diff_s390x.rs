//! Differential sweep against libpfm4 upstream built for `s390x` (`make ARCH=s390x lib` of the tree in `../shared/oracle/libpfm4-head/`, found through `PFMLIB_LIBPFM4_HEAD_S390X`, see `common/head.rs`):
//! the tables of every PMU of that build, every event in the three OS
//! layers, odd strings and our own descriptions, here (where libpfm4 finds
//! no counter facility: `cpum_cf` has no events) and, for every IBM Z
//! generation and counter-facility version, in a private namespace where
//! both libraries see the files of such a machine (`s390x/generations.rs`).

mod common;
#[path = "s390x/generations.rs"]
mod generations;

use common::arm::{odd_strings_of, own_words_with, sweep_with, tables_with, Build};

const B: Build = Build::HeadS390x;

/// PMUs pfmlib does not have yet: none.
const NOT_YET: &[&str] = &[];

/// Strings off an s390x machine: `cpum_cf` has no events, `cpum_sf` its two.
const ODD: &[&str] = &[
    "CPU_CYCLES",
    "cpum_cf::CPU_CYCLES",
    "SF_CYCLES_BASIC",
    "cpum_sf::sf_cycles_basic:u",
    "cpum_sf::SF_CYCLES_BASIC:precise=1",
    "cpum_sf::SF_CYCLES_BASIC:hw_smpl",
    "cpum_sf::SF_CYCLES_BASIC_DIAG:k=1:period=10",
    "cpum_sf::SF_CYCLES_BASIC:0x1",
    "cpum_sf::",
];

#[test]
fn tables_match_libpfm4_head_s390x() {
    tables_with(B, NOT_YET);
}

#[test]
fn sweep_head_s390x() {
    sweep_with(B, 0, 1, NOT_YET);
}

#[test]
fn odd_strings_head_s390x() {
    odd_strings_of(B, ODD, NOT_YET);
}

#[test]
fn descriptions_are_our_own_head_s390x() {
    own_words_with(B, NOT_YET);
}

/// Every generation and version, each in a child in a namespace of its own.
#[test]
fn generations_head_s390x() {
    generations::generations(B, "generations_head_s390x");
}
