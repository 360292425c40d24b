//! `pfm`: list, inspect, check and count performance-monitoring events.
//!
//! The command only parses arguments and prints; the work is in `pfmlib`.

#[macro_use]
mod cli;
mod check;
mod counters;
mod dispatch;
mod info;
mod input;
mod list;
mod pattern;
mod stat;

use clap::{Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "pfm", version, about = "Performance-monitoring events: list, inspect, check encodings", long_about = None)]
struct Cli {
    #[command(flatten)]
    host: HostArgs,
    #[command(subcommand)]
    cmd: Cmd,
}

/// Where the host facts come from (global options).
#[derive(clap::Args)]
struct HostArgs {
    /// Answer for a recorded host: read `/proc` and `/sys` facts under DIR
    /// (DIR/proc/cpuinfo, DIR/sys/bus/event_source/devices/...) instead of
    /// this machine's. On Arm the CPU is identified from DIR/proc/cpuinfo; on
    /// x86 it is always this machine's (CPUID, which no file can stand for).
    /// Not for stat or counters, which count on this machine.
    #[arg(long, global = true, value_name = "DIR")]
    host_root: Option<std::path::PathBuf>,
    /// Architecture of the recorded host (default: aarch64 when
    /// DIR/proc/cpuinfo has a `CPU implementer` line, otherwise x86).
    #[arg(long, global = true, value_enum, requires = "host_root")]
    host_arch: Option<HostArch>,
}

/// Architecture of a recorded host.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum HostArch {
    /// x86 (CPU from this machine's CPUID).
    X86,
    /// 64-bit Arm (libpfm4's arm64 build).
    #[value(alias = "arm64")]
    Aarch64,
    /// 32-bit Arm (libpfm4's arm build).
    Arm,
}

impl HostArgs {
    /// The library to answer with: the running machine's, or one for the
    /// recorded host, with libpfm4's environment options either way.
    fn library(&self) -> anyhow::Result<Option<pfmlib::Library>> {
        let Some(root) = &self.host_root else {
            return Ok(None);
        };
        if !root.is_dir() {
            anyhow::bail!(
                "--host-root {}: not a directory",
                cli::quoted(&root.to_string_lossy())
            );
        }
        let cpuinfo = std::fs::read_to_string(root.join("proc/cpuinfo")).unwrap_or_default();
        let arch = match self.host_arch {
            Some(HostArch::X86) => pfmlib::Arch::X86,
            Some(HostArch::Aarch64) => pfmlib::Arch::Aarch64,
            Some(HostArch::Arm) => pfmlib::Arch::Arm,
            None if cpuinfo.lines().any(|l| l.starts_with("CPU implementer")) => {
                pfmlib::Arch::Aarch64
            }
            None => pfmlib::Arch::X86,
        };
        let host = pfmlib::Host::detect_with_root(arch, root.clone());
        Ok(Some(pfmlib::Library::new(
            host,
            pfmlib::Options::from_env(),
        )))
    }
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

/// Exit status of a process killed by SIGPIPE, as a shell reports it: what
/// pfm gives when its reader goes away (perf dies of the signal itself).
const EXIT_BROKEN_PIPE: u8 = 128 + 13;
/// Exit status when the output cannot be written (closed or full).
const EXIT_OUTPUT_FAILED: u8 = 1;

/// Is standard output open? A program started with it closed (`>&-`) finds
/// it reopened on `/dev/null` for reading and writing by Rust's start-up
/// code, so writes would vanish without an error; a shell's `>/dev/null`
/// opens it write-only. Where `/proc` cannot tell, it is taken as open.
fn stdout_is_open() -> bool {
    let target = std::fs::read_link("/proc/self/fd/1");
    let flags = std::fs::read_to_string("/proc/self/fdinfo/1");
    let (Ok(target), Ok(flags)) = (target, flags) else {
        return true;
    };
    let mode = flags
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        .map(|f| f & 3);
    !(target == std::path::Path::new("/dev/null") && mode == Some(2))
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
    // Diagnostics only: a failure to write them is not worth failing for.
    let say = |line: String| {
        use std::io::Write as _;
        let _ = if std::env::var_os("LIBPFM_DEBUG_STDOUT").is_some() {
            writeln!(std::io::stdout(), "{line}")
        } else {
            writeln!(std::io::stderr(), "{line}")
        };
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
    if recorded.is_some() && matches!(cli.cmd, Cmd::Stat(_) | Cmd::Counters(_)) {
        warn!("pfm: --host-root answers for a recorded host; stat and counters count on this machine only");
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

/// The exit status and message of a failed command: a reader that went
/// away (`pfm list | head`) ends pfm as SIGPIPE would, silently; another
/// output failure (a full disk, `/dev/full`) is reported.
fn exit_for(e: &anyhow::Error) -> ExitCode {
    let io = e.chain().find_map(|c| c.downcast_ref::<std::io::Error>());
    match io.map(|io| io.kind()) {
        Some(std::io::ErrorKind::BrokenPipe) => ExitCode::from(EXIT_BROKEN_PIPE),
        Some(std::io::ErrorKind::StorageFull | std::io::ErrorKind::WriteZero) => {
            warn!("pfm: cannot write the output: {e:#}");
            ExitCode::from(EXIT_OUTPUT_FAILED)
        }
        _ => {
            warn!("pfm: {e:#}");
            ExitCode::from(2)
        }
    }
}
