//! One process, pfmlib only, for the figures a whole process gives: peak
//! resident memory and start-up from exec. libpfm4 is not linked or loaded.
//!
//! `probe-pfmlib first-lookup` looks one event up and exits;
//! `probe-pfmlib list PMU,PMU...` lists every event and attribute of those PMUs
//! (names and descriptions) and prints what it saw and its peak RSS as JSON.

use pfm_bench::{list_pfmlib, peak_rss_kib, SharedPmu};
use pfmlib::{Library, Os};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        // Process start alone, for comparison: the loader's work for this binary.
        Some("nothing") => ExitCode::SUCCESS,
        Some("first-lookup") => {
            let idx = pfm_bench::pfmlib_find(Library::global(), "nhm::INST_RETIRED");
            println!("{idx}");
            ExitCode::SUCCESS
        }
        Some("list") => {
            let lib = Library::global();
            let names = args.get(1).map(String::as_str).unwrap_or_default();
            let pmus: Vec<SharedPmu> = names
                .split(',')
                .filter_map(|n| lib.pmu(n))
                .map(|p| SharedPmu {
                    name: p.name(),
                    id: p.info().id as i32,
                    first_event: 0,
                })
                .collect();
            let l = list_pfmlib(lib, &pmus, Os::None);
            println!(
                "{}",
                serde_json::json!({
                    "events": l.events, "attrs": l.attrs, "bytes": l.bytes,
                    "peak_rss_kib": peak_rss_kib(),
                })
            );
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("usage: probe-pfmlib nothing | first-lookup | list PMU,PMU...");
            ExitCode::from(2)
        }
    }
}
