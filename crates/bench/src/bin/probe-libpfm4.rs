//! One process, libpfm4 only (loaded at run time, `LIBPFM_ENCODE_INACTIVE=1`),
//! for the figures a whole process gives: peak resident memory and start-up
//! from exec. pfmlib's tables are not used.
//!
//! `probe-libpfm4 first-lookup` initialises libpfm4, looks one event up and
//! exits; `probe-libpfm4 list PMU,PMU...` initialises it, lists every event
//! and attribute of those PMUs (names and descriptions) and prints what it saw
//! and its peak RSS as JSON.

use pfm_bench::{libpfm4, list_libpfm4, peak_rss_kib, SharedPmu};
use pfmlib::Os;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        // Process start alone, for comparison: the loader's work for this binary.
        Some("nothing") => ExitCode::SUCCESS,
        Some("first-lookup") => {
            let o = libpfm4(None);
            println!("{}", o.find_event_c(c"nhm::INST_RETIRED"));
            ExitCode::SUCCESS
        }
        Some("list") => {
            let o = libpfm4(None);
            let names: Vec<&str> = args
                .get(1)
                .map(|s| s.split(',').collect())
                .unwrap_or_default();
            let pmus: Vec<SharedPmu> = o
                .pmus()
                .into_iter()
                .filter_map(|p| {
                    let name = *names.iter().find(|n| **n == p.name)?;
                    Some(SharedPmu {
                        name: Box::leak(name.to_string().into_boxed_str()),
                        id: p.id,
                        first_event: p.first_event,
                    })
                })
                .collect();
            let l = list_libpfm4(&o, &pmus, Os::None);
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
            eprintln!("usage: probe-libpfm4 nothing | first-lookup | list PMU,PMU...");
            ExitCode::from(2)
        }
    }
}
