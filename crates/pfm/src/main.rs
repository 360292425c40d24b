//! `pfm`: list, inspect, check and count performance-monitoring events.
//!
//! The command only parses arguments and prints; the work is in `pfmlib`
//! and `pfmlib-perf`. This file wires the subcommands (one module each);
//! `cli` holds what they share, `host` the global options, `exit` how pfm
//! ends on a failure.

#[macro_use]
mod cli;
mod check;
mod counters;
mod dispatch;
mod exit;
mod host;
mod info;
mod input;
mod json_strict;
mod list;
mod list_json;
mod pattern;
mod pattern_set;
mod stat;

use clap::{Parser, Subcommand};
use exit::{exit_for, stdout_is_open, EXIT_OUTPUT_FAILED};
use host::{announce, HostArgs};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "pfm", version, about = "Performance-monitoring events: list, inspect, check encodings", long_about = None)]
struct Cli {
    #[command(flatten)]
    host: HostArgs,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// List PMUs and their events, unit masks and modifiers (all, or the events matching patterns).
    List(list::Args),
    /// Show events in full.
    Info(info::Args),
    /// Encode events and show the register values / perf_event_attr.
    Check(check::Args),
    /// Assign counters and compute every register for several events (JSON request).
    Dispatch(dispatch::Args),
    /// Count events for a command, processes or CPUs (like perf stat).
    Stat(Box<stat::Args>),
    /// A perfmon(4)-style counter device: setup, get, start, stop, reset, read, tstamp.
    Counters(counters::Args),
}

/// Parses the arguments; help and version go to standard output, and a
/// failure to write them is reported instead of lost.
fn parse_args() -> Result<Cli, ExitCode> {
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(e) => {
            let to_stdout = !e.use_stderr();
            if to_stdout && !stdout_is_open() {
                warn!("pfm: cannot write the help: standard output is closed");
                return Err(ExitCode::from(EXIT_OUTPUT_FAILED));
            }
            if let Err(io) = e.print() {
                // A reader that went away (`pfm --help | head`) ends pfm as
                // SIGPIPE would, silently, as any other output.
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return Err(exit_for(&anyhow::Error::from(io)));
                }
                if to_stdout {
                    warn!("pfm: cannot write the help: {io}");
                }
                return Err(ExitCode::from(EXIT_OUTPUT_FAILED));
            }
            use std::io::Write as _;
            if to_stdout && std::io::stdout().flush().is_err() {
                return Err(ExitCode::from(EXIT_OUTPUT_FAILED));
            }
            Err(ExitCode::from(e.exit_code().clamp(0, 255) as u8))
        }
    }
}

fn main() -> ExitCode {
    let cli = match parse_args() {
        Ok(c) => c,
        Err(code) => return code,
    };
    if !matches!(cli.cmd, Cmd::Stat(_)) && !stdout_is_open() {
        warn!("pfm: standard output is closed: nowhere to write the results");
        return ExitCode::from(EXIT_OUTPUT_FAILED);
    }
    let recorded = match cli.host.library() {
        Ok(r) => r,
        Err(e) => return exit_for(&e),
    };
    if cli.host.elsewhere() && matches!(cli.cmd, Cmd::Stat(_) | Cmd::Counters(_)) {
        warn!("pfm: --host-root and --host-arch answer for another host; stat and counters count on this machine only");
        return ExitCode::from(2);
    }
    let lib = recorded
        .as_ref()
        .unwrap_or_else(|| pfmlib::Library::global());
    announce(lib);
    let res = match cli.cmd {
        Cmd::List(a) => list::run(lib, a),
        Cmd::Info(a) => info::run(lib, a),
        Cmd::Check(a) => check::run(lib, a),
        Cmd::Dispatch(a) => dispatch::run(lib, a),
        Cmd::Stat(a) => stat::run(lib, *a),
        Cmd::Counters(a) => counters::run(lib, a),
    };
    match res {
        Ok(code) => code,
        Err(e) => exit_for(&e),
    }
}
