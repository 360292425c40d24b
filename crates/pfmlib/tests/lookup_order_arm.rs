//! The PMU lookup order of libpfm4 4.13 built for arm (`make ARCH=arm lib`,
//! through `PFMLIB_LIBPFM4_ARM`) is pfmlib's on a host of that
//! architecture: the PMU a forced prefix picks, the PMUs set up before it,
//! and the order of every PMU of the build (see `common/order.rs`); the
//! PMUs upstream added are left out of pfmlib's answers there. The same
//! against libpfm4 upstream's arm build (`PFMLIB_LIBPFM4_HEAD_ARM`),
//! every PMU compared.

mod common;
#[path = "common/order.rs"]
mod order;

use common::arm::Build;
use pfmlib::Arch;

/// Does nothing but in the probe processes `order` starts.
#[test]
fn probe_arm() {
    order::probe(Build::Arm);
}

#[test]
fn forced_prefixes_and_lookup_order_match_libpfm4_arm() {
    order::forced_choice_and_order(Build::Arm, Arch::Arm, "probe_arm");
}

/// Does nothing but in the probe processes of the upstream comparison.
#[test]
fn probe_head_arm() {
    order::probe(Build::HeadArm);
}

/// The same against libpfm4 upstream's arm build
/// (`PFMLIB_LIBPFM4_HEAD_ARM`), every PMU compared.
#[test]
fn forced_prefixes_and_lookup_order_match_libpfm4_head_arm() {
    order::forced_choice_and_order(Build::HeadArm, Arch::Arm, "probe_head_arm");
}
