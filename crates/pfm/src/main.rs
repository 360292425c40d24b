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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let lib = pfmlib::Library::global();
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
