//! The MIPS family's odd strings, for the sweeps of libpfm4's mips builds
//! (`libpfm4_diff_mips.rs`, `libpfm4_head_diff_mips.rs`): unprefixed
//! names, case, every level modifier alone, together, repeated and in
//! conflict, values out of range, raw unit masks the PMU does not take,
//! the perf_events attributes it keeps and drops, and broken strings.

#![allow(dead_code)]

/// The strings, compared with every default privilege level mask.
pub const ODD: &[&str] = &[
    "CYCLES",
    "cycles",
    "INSTRUCTIONS",
    "perf::cycles",
    "mips_74k::cycles",
    "MIPS_74K::INSTRUCTIONS:K",
    "mips_74k::CYCLES:U",
    "mips_74k::CYCLES:s",
    "mips_74k::CYCLES:e=1",
    "mips_74k::CYCLES:k:u:s:e",
    "mips_74k::CYCLES:k=0:u=0:s=0:e=0",
    "mips_74k::CYCLES:u=1:k=0",
    "mips_74k::CYCLES:k:k",
    "mips_74k::CYCLES:k=1:k=1",
    "mips_74k::CYCLES:k=1:k=0",
    "mips_74k::CYCLES:k=2",
    "mips_74k::CYCLES:k=0xffffffffffffffffff",
    "mips_74k::CYCLES:h",
    "mips_74k::CYCLES:0x1",
    "mips_74k::CYCLES:x",
    "mips_74k::cycles:u:k:s:e:h",
    "mips_74k::JR_31_MISPREDICTIONS:u",
    "mips_74k::JR_31_MISPREDICTIONS:k=0:u=0:s=0:e=0",
    "mips_74k::SYSTEM_EVENT_7:e",
    "mips_74k::WBB_25_50_FULL:s:e",
    "mips_74k::ICACHE_MISSES:period=100",
    "mips_74k::INSTRUCTIONS:u:period=10:freq=5",
    "mips_74k::cycles:e:period=0",
    "mips_74k::WBB_25_50_FULL:precise=1",
    "mips_74k::DCACHE_MISSES:hw_smpl",
    "mips_74k::LOAD_INSNS:mg",
    "mips_74k::LOAD_INSNS:mh:excl:cpu=1:pinned",
    "mips_74k::LOAD_INSNS:u:h=0:k",
    "mips_74k::NO_SUCH_EVENT",
    "mips_74k::CYCLES,mips_74k::INSTRUCTIONS",
    "mips_74k::",
    "::CYCLES",
    "mips_74k::CYCLES:",
];
