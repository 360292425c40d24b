//! Lookup: every event name of `nhm` with and without the `nhm::` prefix, and
//! a name that does not exist.
//!
//! Unprefixed names are searched in the PMUs active on the host, so both
//! libraries answer for a Nehalem machine: libpfm4 with `LIBPFM_FORCE_PMU=nhm`,
//! pfmlib with a synthetic Nehalem host. Every answer is checked to be the same
//! before timing.

mod common;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use pfm_bench::{
    check_lookups, libpfm4, lookup_missing, lookup_prefixed, lookup_unprefixed, nehalem_host,
    paired_here, Input,
};
use pfmlib::Library;

fn lookup(c: &mut Criterion) {
    let o = libpfm4(Some(pfm_bench::PMU));
    let lib = Library::with_host(nehalem_host());
    let sets: [(&str, Vec<Input>); 3] = [
        ("lookup_prefixed", lookup_prefixed(&lib)),
        ("lookup_unprefixed", lookup_unprefixed(&lib)),
        ("lookup_missing", lookup_missing()),
    ];
    for (name, inputs) in &sets {
        check_lookups(&lib, &o, inputs);
        let theirs = || {
            let mut sum = 0i64;
            for i in inputs {
                sum += o.find_event_c(black_box(&i.c)) as i64;
            }
            sum
        };
        let ours = || {
            let mut n = 0usize;
            for i in inputs {
                n += lib.find_event(black_box(&i.s)).is_ok() as usize;
            }
            n
        };
        let mut g = c.benchmark_group(*name);
        g.throughput(Throughput::Elements(inputs.len() as u64));
        g.bench_function("libpfm4", |b| b.iter(theirs));
        g.bench_function("pfmlib", |b| b.iter(ours));
        g.finish();
        paired_here(name, theirs, ours);
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = lookup
}
criterion_main!(benches);
