//! libpfm4's own MIPS test vectors through pfmlib: the event table of
//! `tests/validate_mips.c`, from libpfm4 4.13's source (`PFMLIB_LIBPFM4_SRC`)
//! and upstream's (`PFMLIB_LIBPFM4_HEAD_SRC`), parsed at test time and
//! encoded as libpfm4's `validate` does (`pfm_get_event_encoding` with
//! `PFM_PLM0 | PFM_PLM3`): the return code, the number of codes, each code
//! and the fully-qualified string must be the ones the file expects; no
//! vector is skipped. Each runs on a host that is no MIPS (the PMU reached
//! through its prefix, as libpfm4's build does on any host) and on a MIPS
//! 74K whose PMU is detected.
//!
//! Without the sources the test prints `SKIPPED` and passes, unless
//! `PFMLIB_REQUIRE_ARM_ORACLES` is set.

mod common;

use common::arm::path_from_env;
use common::validate::check;
use pfmlib::{Arch, Host, Library};

/// The vectors libpfm4's file has (4.13 and upstream alike).
const VECTORS: usize = 14;

/// A MIPS 74K's `/proc/cpuinfo` (a Broadcom BCM4716 router).
const BCM4716: &str = "system type\t\t: Broadcom BCM4716 chip rev 1\nprocessor\t\t: 0\n\
                       cpu model\t\t: MIPS 74K V4.0\nBogoMIPS\t\t: 239.20\n\
                       wait instruction\t: no\nmicrosecond timers\t: yes\ntlb_entries\t\t: 64\n\n";

fn run(var: &str, what: &str) {
    let Some(src) = path_from_env(var, what) else {
        return;
    };
    let hosts = [Host::none(), Host::from_cpuinfo(Arch::Mips, BCM4716)];
    let mut bad = Vec::new();
    for host in hosts {
        let lib = Library::with_host(host);
        let (b, n) = check(&lib, &src, "validate_mips.c", "mips_test_events");
        assert_eq!(n, VECTORS, "validate_mips.c: vectors parsed");
        eprintln!("{var}: validate_mips.c: {n} vectors, {} failed", b.len());
        bad.extend(b);
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn libpfm4_mips_validate_vectors() {
    run("PFMLIB_LIBPFM4_SRC", "libpfm4 4.13 source tree");
}

#[test]
fn libpfm4_head_mips_validate_vectors() {
    run("PFMLIB_LIBPFM4_HEAD_SRC", "libpfm4 upstream source tree");
}

#[test]
fn the_74k_is_detected_for_the_vectors() {
    let lib = Library::with_host(Host::from_cpuinfo(Arch::Mips, BCM4716));
    assert!(lib.pmu("mips_74k").expect("known").info().is_present);
}
