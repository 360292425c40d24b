//! One workload of the benchmarks, repeated, for a profiler: callgrind counts
//! instructions repeatably where wall-clock times are noisy.
//!
//! ```console
//! $ valgrind --tool=callgrind target/release/profile encode-none pfmlib 20
//! ```
//!
//! Workloads: `lookup-prefixed`, `lookup-unprefixed`, `lookup-missing`,
//! `encode-none`, `encode-perf-ext`, `encode-modifiers-none`,
//! `encode-modifiers-perf-ext`, `listing`, `startup`; library: `pfmlib` or
//! `libpfm4`; then the number of repetitions (default 10). `capi-input`
//! (any library) prints the lookup and encoding lines of the C interface
//! program's input (`capi_bench INPUT find none perf`).

use pfm_bench::*;
use pfmlib::{Host, Library, Os, Plm};
use std::hint::black_box;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(work), Some(which)) = (args.first(), args.get(1)) else {
        eprintln!("usage: profile WORKLOAD pfmlib|libpfm4 [REPETITIONS]");
        return ExitCode::from(2);
    };
    let reps: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(10);
    let ours = match which.as_str() {
        "pfmlib" => true,
        "libpfm4" => false,
        _ => {
            eprintln!("library: pfmlib or libpfm4");
            return ExitCode::from(2);
        }
    };
    if work == "capi-input" {
        // The lookup and encoding lines of the C program's input, to count
        // its instructions (callgrind) outside the report.
        print!("{}", capi::input(&Library::with_host(nehalem_host()), &[]));
        return ExitCode::SUCCESS;
    }
    let lookup = work.starts_with("lookup");
    let o = libpfm4(lookup.then_some(PMU));
    let lib = if lookup {
        Box::leak(Box::new(Library::with_host(nehalem_host())))
    } else {
        Library::global()
    };
    let inputs = match work.as_str() {
        "lookup-prefixed" => lookup_prefixed(lib),
        "lookup-unprefixed" => lookup_unprefixed(lib),
        "lookup-missing" => lookup_missing(),
        "encode-none" | "encode-perf-ext" => encode_umasks(lib),
        "encode-modifiers-none" => encode_modifiers(lib, Os::None),
        "encode-modifiers-perf-ext" => encode_modifiers(lib, Os::PerfEventExt),
        "listing" | "startup" => Vec::new(),
        _ => {
            eprintln!("unknown workload {work:?}");
            return ExitCode::from(2);
        }
    };
    let os = if work.ends_with("perf-ext") {
        Os::PerfEventExt
    } else {
        Os::None
    };
    let pmus = shared_pmus(lib, &o);
    for _ in 0..reps {
        match work.as_str() {
            w if w.starts_with("lookup") => {
                for i in &inputs {
                    if ours {
                        black_box(lib.find_event(&i.s).is_ok());
                    } else {
                        black_box(o.find_event_c(&i.c));
                    }
                }
            }
            w if w.starts_with("encode") => {
                for i in &inputs {
                    if ours {
                        black_box(lib.encode(&i.s, Plm::DEFAULT, os).is_ok());
                    } else {
                        black_box(libpfm4_encode(&o, &i.c, os));
                    }
                }
            }
            "listing" => {
                if ours {
                    black_box(list_pfmlib(lib, &pmus, Os::None));
                } else {
                    black_box(list_libpfm4(&o, &pmus, Os::None));
                }
            }
            _ => {
                if ours {
                    let l = Library::with_host(Host::detect());
                    black_box(pfmlib_find(&l, "nhm::INST_RETIRED"));
                } else {
                    o.terminate();
                    o.initialize();
                    black_box(o.find_event_c(c"nhm::INST_RETIRED"));
                }
            }
        }
    }
    ExitCode::SUCCESS
}
