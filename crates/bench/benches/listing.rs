//! Listing: every event and attribute, with names and descriptions, of every
//! PMU both libraries know (same events), for `PFM_OS_NONE`. Both listings are
//! checked to see the same events and attributes before timing.

mod common;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use pfm_bench::{libpfm4, list_libpfm4, list_pfmlib, paired_here, shared_pmus};
use pfmlib::{Library, Os};

fn listing(c: &mut Criterion) {
    let o = libpfm4(None);
    let lib = Library::global();
    let pmus = shared_pmus(lib, &o);
    let (ours, theirs) = (
        list_pfmlib(lib, &pmus, Os::None),
        list_libpfm4(&o, &pmus, Os::None),
    );
    assert_eq!(
        (ours.events, ours.attrs),
        (theirs.events, theirs.attrs),
        "both libraries list the same events and attributes of {pmus:?}"
    );
    let theirs = || list_libpfm4(&o, black_box(&pmus), Os::None);
    let ours = || list_pfmlib(lib, black_box(&pmus), Os::None);
    let mut g = c.benchmark_group("listing");
    g.bench_function("libpfm4", |b| b.iter(theirs));
    g.bench_function("pfmlib", |b| b.iter(ours));
    g.finish();
    paired_here("listing", theirs, ours);
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = listing
}
criterion_main!(benches);
