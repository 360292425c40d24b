//! `--pre` and `--post`: shell commands run before and after each run,
//! with `/bin/sh -c` as perf runs them (`system(3)`).

use super::exit;
use std::process::Command;

/// The shell that runs the commands.
const SHELL: &str = "/bin/sh";

/// A hook command that failed: the status to exit with, and why.
#[derive(Debug)]
pub struct HookFailure {
    /// The exit status to give (the command's, or 128 + its signal).
    pub code: u8,
    what: &'static str,
    cmd: String,
    how: String,
}

impl std::fmt::Display for HookFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?} {}", self.what, self.cmd, self.how)
    }
}

/// Runs `cmd` (of option `what`, `--pre` or `--post`) with the shell; its
/// failure (non-zero status, signal, no shell) as a [`HookFailure`].
pub fn run(what: &'static str, cmd: &str) -> Result<(), HookFailure> {
    use std::os::unix::process::ExitStatusExt;
    let fail = |code: u8, how: String| HookFailure {
        code,
        what,
        cmd: cmd.to_string(),
        how,
    };
    let st = Command::new(SHELL)
        .arg("-c")
        .arg(cmd)
        .status()
        .map_err(|e| fail(127, format!("could not run: {e}")))?;
    match (st.code(), st.signal()) {
        (Some(0), _) => Ok(()),
        (Some(c), _) => Err(fail(
            (c & 0xff) as u8,
            format!("failed with exit status {c}"),
        )),
        (None, Some(s)) => Err(fail(
            exit::killed_by(s),
            format!("was killed by signal {s}"),
        )),
        (None, None) => Err(fail(1, "failed".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_of_hooks() {
        assert!(run("--pre", "true").is_ok());
        let e = run("--pre", "exit 3").unwrap_err();
        assert_eq!(e.code, 3);
        assert!(e.to_string().contains("exit status 3"), "{e}");
        assert_eq!(run("--pre", "kill -TERM $$").unwrap_err().code, 143);
    }
}
