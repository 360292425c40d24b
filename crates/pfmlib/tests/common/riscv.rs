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

/// The vendor lists' RISC-V folder: beside `$PFMLIB_ORACLE_DIR` (the
/// IA-64 oracle folder `.ci/run` exports) or in a `shared/oracle/` beside
/// the checkout. `None` (with a printed `SKIPPED`) when it is missing,
/// a failure when `PFMLIB_REQUIRE_ORACLE` is set.
pub fn vendor_dir(test: &str) -> Option<PathBuf> {
    let env =
        std::env::var_os("PFMLIB_ORACLE_DIR").map(|d| PathBuf::from(d).join("../vendor/riscv"));
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let found = env
        .into_iter()
        .chain(
            here.ancestors()
                .map(|a| a.join("shared/oracle/vendor/riscv")),
        )
        .find(|p| p.join("mapfile.csv").is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("PFMLIB_REQUIRE_ORACLE").is_none(),
            "{test}: ../shared/oracle/vendor/riscv not found and PFMLIB_REQUIRE_ORACLE is set"
        );
        eprintln!("{test}: SKIPPED (../shared/oracle/vendor/riscv not found)");
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
