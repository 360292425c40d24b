//! The benchmark inputs give the same answers in both libraries, so that
//! both do the same work when timed: every encoding input for both OS layers,
//! the listing (same events and attributes) and the lookups that do not
//! depend on the host. One test per process: libpfm4's state is global.
//!
//! Needs `libpfm.so.4`; without it the test says why and passes, unless
//! `PFMLIB_REQUIRE_LIBPFM4` is set (CI sets it).

use pfm_bench::*;
use pfm_oracle::Libpfm4;
use pfmlib::{Library, Os};

#[test]
fn encoding_listing_and_prefixed_lookup_inputs_agree() {
    let o = match Libpfm4::load() {
        Ok(o) => o,
        Err(e) if std::env::var_os("PFMLIB_REQUIRE_LIBPFM4").is_none() => {
            eprintln!("SKIPPED: libpfm4 not available ({e})");
            return;
        }
        Err(e) => panic!("libpfm4 required but not loadable: {e}"),
    };
    let lib = Library::global();
    let umasks = encode_umasks(lib);
    for os in [Os::None, Os::PerfEventExt] {
        let ok = check_encodings(lib, &o, &umasks, os);
        assert!(
            ok * 10 > umasks.len() * 9,
            "most unit-mask strings encode ({ok})"
        );
        let mods = encode_modifiers(lib, os);
        let ok = check_encodings(lib, &o, &mods, os);
        assert!(
            ok * 10 > mods.len() * 9,
            "most modifier strings encode ({ok})"
        );
    }
    check_lookups(lib, &o, &lookup_prefixed(lib));
    check_lookups(lib, &o, &lookup_missing()[..1]);

    let pmus = shared_pmus(lib, &o);
    assert!(pmus.iter().any(|p| p.name == PMU));
    let (ours, theirs) = (
        list_pfmlib(lib, &pmus, Os::None),
        list_libpfm4(&o, &pmus, Os::None),
    );
    assert_eq!((ours.events, ours.attrs), (theirs.events, theirs.attrs));
}
