//! Differential sweep against libpfm4 upstream built for `sparc` (`make
//! ARCH=sparc lib` of the tree in `../shared/oracle/libpfm4-head/`, found
//! through `PFMLIB_LIBPFM4_HEAD_SPARC`, see `common/head.rs`): the tables of
//! every PMU of that build (UltraSPARC I/II to IV+, Niagara I and II), every
//! event with every unit mask and modifier in the three OS layers, odd
//! strings of its own, and our own descriptions. The oracle is loaded once
//! for the process.

mod common;

use common::arm::{odd_strings_of, own_words_with, sweep_with, tables_with, Build};

const B: Build = Build::HeadSparc;

/// PMUs pfmlib does not follow upstream for yet (see `common/head.rs`).
const NOT_YET: &[&str] = &[];

/// Strings beyond the per-event sweep: unprefixed names (the first PMU of
/// the lookup order that has the event, none of them active here), case,
/// repeated and conflicting levels, the same unit-mask bit twice, every
/// unit mask at once, duplicate event names, raw unit masks.
pub const ODD: &[&str] = &[
    "Cycle_cnt",
    "cycle_cnt",
    "Instr_cnt",
    "ultra12::cycle_cnt:k:u:h",
    "ultra12::Cycle_cnt:k=0:u=0:h=0",
    "ultra12::Cycle_cnt:k:k",
    "ultra12::Cycle_cnt:k=1:k=0",
    "ultra12::Cycle_cnt:hv",
    "ultra12::Cycle_cnt:0x1",
    "ULTRA3::DISPATCH0_RS_MISPRED",
    "ultra3::Dispatch0_rs_mispred:u:period=100",
    "ultra3i::Re_DC_missovhd",
    "ultra3i::Re_DC_missovhd:k:excl",
    "ultra3p::Re_DC_missovhd:h",
    "ultra3p::EC_miss_mtag_remote",
    "ultra4p::SSM_L3_miss_mtag_remote",
    "ultra4p::SSM_L3_miss_mtag_remote:u=1:k=0",
    "niagara1::Instr_cnt:h",
    "niagara2::Instr_cnt:Loads:Stores",
    "niagara2::Instr_cnt:Stores:Loads:u",
    "niagara2::Instr_cnt:branches:taken_branches:FGU_arith:Loads:Stores:SW_count:other:atomics",
    "niagara2::Instr_cnt:atomics:atomics",
    "niagara2::Instr_cnt:LOADS",
    "niagara2::Instr_cnt:0x8",
    "niagara2::cache:IC_miss:L2LD_miss:h=1:mg",
    "niagara2::spu_ops:DES:AES:RC4:HASH:MA:CSUM:k=0:u=1:h=0",
    "niagara2::spu_busy:CSUM:precise=1",
    "niagara2::tlb_miss:ITLB:DTLB:hw_smpl",
    "niagara2::mem:cpu_store:mmu_load:freq=10",
    "niagara2::TLB",
    "niagara2::Instr_cnt,niagara2::cache",
    "niagara2::",
    "::Instr_cnt",
];

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
