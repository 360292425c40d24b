//! The IBM Power Torrent PMU (`power_torrent`) against libpfm4 upstream
//! (June 2026) built for powerpc (`PFMLIB_LIBPFM4_HEAD_POWERPC`, see
//! `common/head.rs`; loaded once for the process): its table, every event in
//! the sweep's strings and strings of our own in the three OS layers, odd
//! strings, our own descriptions (`common/torrent.rs`), as
//! `libpfm4_diff_torrent.rs` does against 4.13 (whose table is the same).

mod common;

use common::arm::Build;
use common::torrent;

const B: Build = Build::HeadPowerpc;

#[test]
fn table_matches_libpfm4_head_powerpc() {
    torrent::tables(B);
}

#[test]
fn sweep_head_powerpc_torrent() {
    torrent::sweep(B);
}

#[test]
fn odd_strings_head_powerpc_torrent() {
    torrent::odd_strings(B);
}

#[test]
fn descriptions_are_our_own_head_powerpc_torrent() {
    torrent::own_words(B);
}
