//! The PMU lookup order of libpfm4 4.13 built for arm64 (`make ARCH=arm64 lib`,
//! through `PFMLIB_LIBPFM4_ARM64`) is pfmlib's on a host of that
//! architecture: the PMU a forced prefix picks, the PMUs set up before it,
//! and the order of every PMU of the build (see `common/order.rs`); the
//! PMUs upstream added are left out of pfmlib's answers there. The same
//! against libpfm4 upstream's arm64 build (`PFMLIB_LIBPFM4_HEAD_ARM64`),
//! every PMU compared.

mod common;
#[path = "common/order.rs"]
mod order;

use common::arm::Build;
use pfmlib::Arch;

/// Does nothing but in the probe processes `order` starts.
#[test]
fn probe_arm64() {
    order::probe(Build::Arm64);
}

#[test]
fn forced_prefixes_and_lookup_order_match_libpfm4_arm64() {
    order::forced_choice_and_order(Build::Arm64, Arch::Aarch64, "probe_arm64");
}

/// Does nothing but in the probe processes of the upstream comparison.
#[test]
fn probe_head_arm64() {
    order::probe(Build::HeadArm64);
}

/// The same against libpfm4 upstream's arm64 build
/// (`PFMLIB_LIBPFM4_HEAD_ARM64`), every PMU compared.
#[test]
fn forced_prefixes_and_lookup_order_match_libpfm4_head_arm64() {
    order::forced_choice_and_order(Build::HeadArm64, Arch::Aarch64, "probe_head_arm64");
}
