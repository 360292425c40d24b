//! Start-up: what a fresh process pays before its first usable lookup.
//!
//! libpfm4 must call `pfm_initialize` (undone before each run with
//! `pfm_terminate`, outside the timing); pfmlib has no initialisation call:
//! building the library detects the host, then the lookup runs.

mod common;

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use pfm_bench::{libpfm4, pfmlib_find};
use pfmlib::{Host, Library};

const FIRST: &str = "nhm::INST_RETIRED";

fn startup(c: &mut Criterion) {
    let o = libpfm4(None);
    let first = std::ffi::CString::new(FIRST).unwrap();
    assert_eq!(
        pfmlib_find(&Library::with_host(Host::detect()), FIRST),
        o.find_event_c(&first),
        "both libraries find {FIRST}"
    );

    let mut g = c.benchmark_group("startup");
    g.bench_function("libpfm4", |b| {
        b.iter_batched(
            || o.terminate(),
            |()| {
                assert_eq!(o.initialize(), 0);
                black_box(o.find_event_c(black_box(&first)))
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("pfmlib", |b| {
        b.iter_batched(
            || (),
            |()| {
                let lib = Library::with_host(Host::detect());
                black_box(pfmlib_find(&lib, black_box(FIRST)))
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    // The initialisation alone: libpfm4's cost before any lookup can be made.
    let mut g = c.benchmark_group("initialize");
    g.bench_function("libpfm4", |b| {
        b.iter_batched(
            || o.terminate(),
            |()| black_box(o.initialize()),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = startup
}
criterion_main!(benches);
