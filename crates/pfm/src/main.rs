//! `pfm`: list, inspect, check and count performance-monitoring events.
//!
//! The command only parses arguments and prints; the work is in `pfmlib`.

mod check;
mod counters;
mod dispatch;
mod info;
mod list;
mod stat;

use clap::{Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "pfm", version, about = "Performance-monitoring events: list, inspect, check encodings", long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// List PMUs and their events, unit masks and modifiers.
    List(list::Args),
    /// Show one event in full.
    Info(info::Args),
    /// Encode events and show the register values / perf_event_attr.
    Check(check::Args),
    /// Assign counters and compute every register for several events (JSON request).
    Dispatch(dispatch::Args),
    /// Count events for a command, processes or CPUs (like perf stat).
    Stat(stat::Args),
    /// A perfmon(4)-style counter device: setup, get, start, stop, reset, read, tstamp.
    Counters(counters::Args),
}

/// OS layer for encodings and attribute lists.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum OsArg {
    /// Raw PMU register values.
    None,
    /// Linux perf_events (PMU attributes).
    Perf,
    /// Linux perf_events with sampling and scheduling attributes.
    PerfExt,
}

impl From<OsArg> for pfmlib::Os {
    fn from(o: OsArg) -> pfmlib::Os {
        match o {
            OsArg::None => pfmlib::Os::None,
            OsArg::Perf => pfmlib::Os::PerfEvent,
            OsArg::PerfExt => pfmlib::Os::PerfEventExt,
        }
    }
}

/// One line describing the host for people.
pub fn host_line(lib: &pfmlib::Library) -> String {
    let h = lib.host();
    let cpu = h.brand.clone().unwrap_or_else(|| format!("{:?}", h.vendor));
    let pmu = if h.kernel_cpu_pmu {
        "the kernel exposes a hardware CPU PMU".to_string()
    } else {
        "the kernel exposes no hardware CPU PMU (/sys/bus/event_source/devices/cpu is absent, as in most VMs): hardware events can be encoded but not counted here".to_string()
    };
    format!(
        "Host: {cpu} (family {}, model {}); {pmu}",
        h.family, h.model
    )
}

/// libpfm4's diagnostics, which pfm honours as libpfm4's tools do:
/// `LIBPFM_VERBOSE` (a digit) names a forced PMU, `LIBPFM_DEBUG` (a digit)
/// the PMUs chosen; on standard error, or standard output with
/// `LIBPFM_DEBUG_STDOUT`. (`LIBPFM_FORCE_PMU`, `LIBPFM_DISABLED_PMUS` and
/// `LIBPFM_ENCODE_INACTIVE` are read by the library itself.)
fn announce(lib: &pfmlib::Library) {
    let level = |k: &str| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.bytes().next())
            .filter(u8::is_ascii_digit)
            .map_or(0, |c| c - b'0')
    };
    let (verbose, debug) = (level("LIBPFM_VERBOSE"), level("LIBPFM_DEBUG"));
    let say = |line: String| {
        if std::env::var_os("LIBPFM_DEBUG_STDOUT").is_some() {
            println!("{line}");
        } else {
            eprintln!("{line}");
        }
    };
    if verbose > 0 && lib.options().force_pmu.is_some() {
        match lib.active_pmus().next() {
            Some(p) => say(format!(
                "forced PMU: {} ({}), the only one active",
                p.name(),
                p.info().desc
            )),
            None => say("LIBPFM_FORCE_PMU names no PMU: none is active".to_string()),
        }
    }
    if debug > 0 {
        let active: Vec<&str> = lib.active_pmus().map(|p| p.name()).collect();
        say(format!(
            "pfmlib: {} PMUs known, {} active: {}",
            lib.pmus().count(),
            active.len(),
            active.join(" ")
        ));
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let lib = pfmlib::Library::global();
    announce(lib);
    let res = match cli.cmd {
        Cmd::List(a) => list::run(lib, a),
        Cmd::Info(a) => info::run(lib, a),
        Cmd::Check(a) => check::run(lib, a),
        Cmd::Dispatch(a) => dispatch::run(lib, a),
        Cmd::Stat(a) => stat::run(lib, a),
        Cmd::Counters(a) => counters::run(lib, a),
    };
    match res {
        Ok(code) => code,
        Err(e) => {
            let broken_pipe = e
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe);
            if broken_pipe {
                // The reader went away (`pfm list | head`): not an error.
                return ExitCode::SUCCESS;
            }
            eprintln!("pfm: {e:#}");
            ExitCode::from(2)
        }
    }
}
