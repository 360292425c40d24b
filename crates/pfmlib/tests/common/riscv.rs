//! RISC-V test hosts (`/proc/cpuinfo` texts as Linux's RISC-V kernel
//! writes them, `arch/riscv/kernel/cpu.c`) and the vendor lists' folder
//! (`../shared/oracle/vendor/riscv/`, the perf tool's RISC-V event lists).

#![allow(dead_code)]

use pfmlib::{Arch, Host};
use std::path::PathBuf;

/// One hart as `/proc/cpuinfo` shows it.
pub struct Hart<'a> {
    /// `isa`.
    pub isa: &'a str,
    /// `uarch` (the device tree's compatible), when the kernel has one.
    pub uarch: Option<&'a str>,
    /// `mvendorid`, `marchid`, `mimpid`.
    pub ids: (u64, u64, u64),
}

/// A RISC-V `/proc/cpuinfo` of `n` harts like `hart` (hart numbers from
/// `first`).
pub fn cpuinfo(hart: &Hart, first: usize, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s += &format!("processor\t: {i}\nhart\t\t: {}\n", first + i);
        s += &format!("isa\t\t: {}\nmmu\t\t: sv39\n", hart.isa);
        if let Some(u) = hart.uarch {
            s += &format!("uarch\t\t: {u}\n");
        }
        let (v, a, m) = hart.ids;
        s += &format!("mvendorid\t: {v:#x}\nmarchid\t\t: {a:#x}\nmimpid\t\t: {m:#x}\n");
        s += &format!("hart isa\t: {}\n\n", hart.isa);
    }
    s
}

/// A RISC-V host of this `/proc/cpuinfo`, its kernel publishing the `cpu`
/// PMU (the SBI PMU driver) when `sbi_pmu`.
pub fn host(cpuinfo: &str, sbi_pmu: bool) -> Host {
    let mut h = Host::from_cpuinfo(Arch::RiscV64, cpuinfo);
    h.kernel_cpu_pmu = sbi_pmu;
    h
}

/// The vendor lists' RISC-V folder (found as `common::vendor` finds the
/// vendor folder). `None` (with a printed `SKIPPED`) when it is missing, a
/// failure when `PFMLIB_REQUIRE_ORACLE` is set.
pub fn vendor_dir(test: &str) -> Option<PathBuf> {
    let found = super::vendor::vendor_dir("riscv").map(|d| d.join("riscv"));
    if found.is_none() {
        eprintln!("{test}: SKIPPED");
    }
    found
}

/// The perf tool's folders and our PMUs (the generator's table).
pub const CORES: &[(&str, &str)] = &[
    ("sifive/bullet", "riscv_sifive_u74"),
    ("sifive/bullet-07", "riscv_sifive_u74_r07"),
    ("sifive/bullet-0d", "riscv_sifive_u74_r0d"),
    ("sifive/p550", "riscv_sifive_p550"),
    ("sifive/p650", "riscv_sifive_p650"),
    ("thead/c900-legacy", "riscv_thead_c900"),
    ("andes/ax45", "riscv_andes_ax45"),
    ("starfive/dubhe-80", "riscv_starfive_dubhe80"),
];
