//! What the POWER comparisons share (`libpfm4_diff_powerpc.rs`,
//! `libpfm4_head_diff_powerpc.rs`).

#![allow(dead_code)]

/// Strings beyond the per-event sweep: names without a prefix, case,
/// attributes POWER events do not take, perf_events attributes.
pub const ODD: &[&str] = &[
    "PM_CYC",
    "power8::pm_cyc",
    "POWER9::PM_RUN_INST_CMPL",
    "power9::PM_RUN_INST_CMPL:u",
    "power9::PM_RUN_INST_CMPL:k=1",
    "power9::PM_RUN_INST_CMPL:0x1",
    "power10::PM_CYC:precise=1",
    "power10::PM_CYC:period=1000:freq=0",
    "power10::PM_CYC:excl",
    "power10::PM_INST_CMPL:u:k:h",
    "power10::PM_INST_CMPL:mg",
    "power7::PM_CYC:hw_smpl",
    "ppc970::PM_CYC",
    "ppc970mp::PM_INST_CMPL:u=0",
    "power4::PM_CYC:k",
    "power5p::PM_RUN_CYC",
    "power6::PM_CYC,power6::PM_INST_CMPL",
    "powerpc_nest_mcs_read::MCS_00",
    "powerpc_nest_mcs_write::mcs_03:u",
    "powerpc_nest_mcs_read::MCS_04",
    "power8::",
    "::PM_CYC",
];
