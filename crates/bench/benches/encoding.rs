//! Encoding: every event × unit mask string of `nhm` for `PFM_OS_NONE` and
//! `PFM_OS_PERF_EVENT_EXT`, and strings with several modifiers. Both libraries
//! return the codes (or the `perf_event_attr`) and the fully-qualified string;
//! every answer is checked to be the same before timing.

mod common;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use pfm_bench::{
    check_encodings, encode_modifiers, encode_umasks, libpfm4, libpfm4_encode, paired_here, Input,
};
use pfmlib::{Library, Os, Plm};

fn encoding(c: &mut Criterion) {
    let o = libpfm4(None);
    let lib = Library::global();
    let umasks = encode_umasks(lib);
    let sets: [(&str, Os, Vec<Input>); 4] = [
        ("encode_none", Os::None, umasks.clone()),
        ("encode_perf_ext", Os::PerfEventExt, umasks),
        (
            "encode_modifiers_none",
            Os::None,
            encode_modifiers(lib, Os::None),
        ),
        (
            "encode_modifiers_perf_ext",
            Os::PerfEventExt,
            encode_modifiers(lib, Os::PerfEventExt),
        ),
    ];
    for (name, os, inputs) in &sets {
        let os = *os;
        check_encodings(lib, &o, inputs, os);
        let theirs = || {
            let mut sum = 0u64;
            for i in inputs {
                sum = sum.wrapping_add(libpfm4_encode(&o, black_box(&i.c), os).1);
            }
            sum
        };
        let ours = || {
            let mut n = 0usize;
            for i in inputs {
                if let Ok(e) = lib.encode(black_box(&i.s), Plm::DEFAULT, os) {
                    n += e.fstr.len();
                }
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
    targets = encoding
}
criterion_main!(benches);
