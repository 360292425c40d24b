//! How pfm ends when something fails: the exit status and message of a
//! failed command, and whether standard output can take the results.

use std::process::ExitCode;

/// Exit status of a process killed by SIGPIPE, as a shell reports it: what
/// pfm gives when its reader goes away (perf dies of the signal itself).
const EXIT_BROKEN_PIPE: u8 = 128 + 13;
/// Exit status when the output cannot be written (closed or full).
pub const EXIT_OUTPUT_FAILED: u8 = 1;

/// Is standard output open? A program started with it closed (`>&-`) finds
/// it reopened on `/dev/null` by Rust's start-up code, so writes would
/// vanish without an error: pfmlib-perf notes, before that code runs,
/// whether it was open. A `/dev/null` given on purpose, write-only (a
/// shell's `>/dev/null`) or for reading and writing (`1<>/dev/null`,
/// Python's `subprocess.DEVNULL`, `daemon(3)`, systemd's
/// `StandardOutput=null`), is open. Where the note is missing, `/proc`
/// decides as before: `/dev/null` for reading and writing counts as closed.
pub fn stdout_is_open() -> bool {
    if let Some(open) = pfmlib_perf::stdout_open_at_start() {
        return open;
    }
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

/// The exit status and message of a failed command: a reader that went
/// away (`pfm list | head`) ends pfm as SIGPIPE would, silently; another
/// output failure (a full disk, `/dev/full`) is reported.
pub fn exit_for(e: &anyhow::Error) -> ExitCode {
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
