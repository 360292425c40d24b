//! The IBM Power Torrent PMU (`power_torrent`) against libpfm4 4.13 built
//! for powerpc (`PFMLIB_LIBPFM4_POWERPC`, see `common/arm.rs`): its table,
//! every event in the sweep's strings and strings of our own in the three OS
//! layers, odd strings, our own descriptions (`common/torrent.rs`). The
//! table is the same upstream (`libpfm4_head_diff_torrent.rs`).

mod common;

use common::arm::Build;
use common::torrent;

const B: Build = Build::Powerpc;

#[test]
fn table_matches_libpfm4_powerpc() {
    torrent::tables(B);
}

#[test]
fn sweep_powerpc_torrent() {
    torrent::sweep(B);
}

#[test]
fn odd_strings_powerpc_torrent() {
    torrent::odd_strings(B);
}

#[test]
fn descriptions_are_our_own_powerpc_torrent() {
    torrent::own_words(B);
}
