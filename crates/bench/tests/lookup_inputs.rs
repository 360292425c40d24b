//! The lookup benchmark's inputs give the same answers in both libraries
//! when both answer for a Nehalem host (libpfm4 with `LIBPFM_FORCE_PMU=nhm`):
//! every event with and without prefix, and a missing name. Its own process:
//! libpfm4's state is global.
//!
//! Needs `libpfm.so.4`; without it the test says why and passes, unless
//! `PFMLIB_REQUIRE_LIBPFM4` is set (CI sets it).

use pfm_bench::*;
use pfm_oracle::Libpfm4;
use pfmlib::Library;

#[test]
fn lookup_inputs_agree_on_a_nehalem_host() {
    std::env::set_var("LIBPFM_FORCE_PMU", PMU);
    let o = match Libpfm4::load() {
        Ok(o) => o,
        Err(e) if std::env::var_os("PFMLIB_REQUIRE_LIBPFM4").is_none() => {
            eprintln!("SKIPPED: libpfm4 not available ({e})");
            return;
        }
        Err(e) => panic!("libpfm4 required but not loadable: {e}"),
    };
    let lib = Library::with_host(nehalem_host());
    for inputs in [
        lookup_prefixed(&lib),
        lookup_unprefixed(&lib),
        lookup_missing(),
    ] {
        check_lookups(&lib, &o, &inputs);
    }
    // Found, not only equally missing.
    assert!(lookup_unprefixed(&lib)
        .iter()
        .all(|i| o.find_event_c(&i.c) >= 0));
}
