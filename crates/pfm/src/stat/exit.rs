//! Exit statuses as a shell reports them: a process's own code, or 128 plus
//! the signal that killed it (for the counted command, the `--pre` and
//! `--post` hooks, and pfm stat itself after a stop signal).

/// A process ended by signal N exits with this plus N, as a shell reports it.
pub const EXIT_SIGNAL_BASE: i32 = 128;

/// The status a shell reports for a process killed by signal `sig`.
pub fn killed_by(sig: i32) -> u8 {
    (EXIT_SIGNAL_BASE + (sig & 0x7f)) as u8
}

/// The exit status as a shell reports it: the code, or 128 + the signal.
pub fn status_code(st: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    if let Some(c) = st.code() {
        return (c & 0xff) as u8;
    }
    match st.signal() {
        Some(s) => killed_by(s),
        None => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn statuses_as_a_shell_reports_them() {
        assert_eq!(status_code(std::process::ExitStatus::from_raw(3 << 8)), 3);
        // Killed by SIGKILL (9).
        assert_eq!(status_code(std::process::ExitStatus::from_raw(9)), 137);
    }
}
