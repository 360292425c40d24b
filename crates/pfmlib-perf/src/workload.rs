//! A command started the way `perf stat` starts it: forked, held before its
//! `execve` while counters are opened on its pid, then let go. Counting the
//! child itself (not the calling thread) lets a caller choose inheritance
//! (`-i`) and when counting starts (at exec, or later: `-D`).

use crate::process::{ChildExit, Interrupt};
use crate::{sys, sys_process};
use std::ffi::{CString, OsStr, OsString};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where commands are looked for when `PATH` is not set (the C library's default).
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// Why a held command could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// No such program (in `PATH`, or at the path given): a shell's 127.
    #[error("cannot run {0}: command not found")]
    NotFound(String),
    /// Found, but it cannot run (permissions, format...): a shell's 126.
    #[error("cannot run {program}: {source}")]
    CannotRun {
        /// The program.
        program: String,
        /// The OS's reason.
        source: io::Error,
    },
}

impl SpawnError {
    /// The exit status a shell gives for this failure (127 or 126).
    pub fn exit_code(&self) -> u8 {
        match self {
            SpawnError::NotFound(_) => 127,
            SpawnError::CannotRun { .. } => 126,
        }
    }
}

/// A command forked and waiting before its `execve` until [`HeldChild::start`].
///
/// Dropped before it was started, the child exits (127) and is reaped.
#[derive(Debug)]
pub struct HeldChild {
    pid: i32,
    program: String,
    go: Option<std::fs::File>,
    err: Option<std::fs::File>,
}

fn cstring(s: &OsStr, program: &str) -> Result<CString, SpawnError> {
    CString::new(s.as_bytes()).map_err(|_| SpawnError::CannotRun {
        program: program.to_string(),
        source: io::Error::new(io::ErrorKind::InvalidInput, "argument with a NUL byte"),
    })
}

/// `program` as `execvp` finds it: a path when it has a `/`, else the first
/// executable file of that name in `PATH`.
fn find_program(program: &OsStr) -> Option<PathBuf> {
    if program.as_bytes().contains(&b'/') {
        return Some(PathBuf::from(program));
    }
    if program.is_empty() {
        return None;
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| DEFAULT_PATH.into());
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| is_executable_file(p))
}

fn is_executable_file(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

impl HeldChild {
    /// Forks `argv` (program and arguments, looked up in `PATH` as a shell
    /// does) with this process's environment, held before its `execve`.
    pub fn spawn(argv: &[OsString]) -> Result<HeldChild, SpawnError> {
        let Some(first) = argv.first() else {
            return Err(SpawnError::NotFound(String::new()));
        };
        let program = first.to_string_lossy().into_owned();
        let path = find_program(first).ok_or_else(|| SpawnError::NotFound(program.clone()))?;
        let c_path = cstring(path.as_os_str(), &program)?;
        let c_argv = argv
            .iter()
            .map(|a| cstring(a, &program))
            .collect::<Result<Vec<_>, _>>()?;
        let c_env = std::env::vars_os()
            .map(|(k, v)| {
                let mut kv = k;
                kv.push("=");
                kv.push(v);
                cstring(&kv, &program)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let f = sys_process::fork_held(&c_path, &c_argv, &c_env).map_err(|source| {
            SpawnError::CannotRun {
                program: program.clone(),
                source,
            }
        })?;
        Ok(HeldChild {
            pid: f.pid,
            program,
            go: Some(f.go),
            err: Some(f.err),
        })
    }

    /// The child's process id (counters can be opened on it now).
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Lets the child run its `execve`. When that fails, the child has
    /// exited (and is reaped here): the error says why.
    pub fn start(&mut self) -> Result<(), SpawnError> {
        let fail = |source: io::Error, program: &str| SpawnError::CannotRun {
            program: program.to_string(),
            source,
        };
        if let Some(mut go) = self.go.take() {
            go.write_all(&[1]).map_err(|e| fail(e, &self.program))?;
        }
        let Some(mut err) = self.err.take() else {
            return Ok(());
        };
        let mut buf = Vec::new();
        err.read_to_end(&mut buf)
            .map_err(|e| fail(e, &self.program))?;
        let Ok(bytes) = <[u8; 4]>::try_from(buf.as_slice()) else {
            return Ok(());
        };
        let errno = i32::from_ne_bytes(bytes);
        let _ = sys::wait4(self.pid);
        self.pid = 0;
        if errno == libc::ENOENT {
            return Err(SpawnError::NotFound(self.program.clone()));
        }
        Err(fail(io::Error::from_raw_os_error(errno), &self.program))
    }
}

impl Drop for HeldChild {
    fn drop(&mut self) {
        if self.go.take().is_some() && self.pid > 0 {
            // Its go pipe is closed now: the child exits without running.
            let _ = sys::wait4(self.pid);
        }
    }
}

/// Waiting for a child with deadlines (interval printing, time limits),
/// passing a stop signal on to it once, as [`crate::wait_child`] does.
#[derive(Debug)]
pub struct ChildWait {
    pid: i32,
    interrupt: Option<Interrupt>,
    forwarded: bool,
    pidfd: Option<std::fs::File>,
}

impl ChildWait {
    /// Waits for child `pid` (started by this process, not yet reaped).
    pub fn new(pid: u32, interrupt: Option<Interrupt>) -> io::Result<ChildWait> {
        let pid = i32::try_from(pid).map_err(|_| io::Error::from_raw_os_error(libc::ESRCH))?;
        Ok(ChildWait {
            pid,
            interrupt,
            forwarded: false,
            // Without a pidfd (old kernels), look every millisecond.
            pidfd: sys_process::pidfd_open(pid).ok(),
        })
    }

    fn forward(&mut self) {
        if let Some(sig) = self.interrupt.and_then(|i| i.signal()) {
            if !self.forwarded {
                self.forwarded = true;
                // The child may be gone already (a terminal's Ctrl-C reaches it too).
                let _ = sys::kill(self.pid, sig);
            }
        }
    }

    /// Waits until the child ends (its exit) or `deadline` (`None`).
    pub fn until(&mut self, deadline: Instant) -> io::Result<Option<ChildExit>> {
        loop {
            self.forward();
            if let Some(r) = sys_process::wait4_nohang(self.pid)? {
                return Ok(Some(ChildExit {
                    status: r.status,
                    user: r.user,
                    sys: r.sys,
                }));
            }
            let now = Instant::now();
            if now >= deadline {
                self.forward();
                return Ok(None);
            }
            let step = deadline - now;
            let r = match &self.pidfd {
                Some(fd) => sys_process::poll_readable(fd, step).map(|_| ()),
                None => {
                    std::thread::sleep(step.min(std::time::Duration::from_millis(1)));
                    Ok(())
                }
            };
            match r {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => other?,
            }
        }
    }
}

/// Duplicates descriptor `fd`, inherited by this process, as a file to
/// write to (`--log-fd`); an error when it is not open, or open for
/// reading only (checked before anything is counted, so no count is lost).
pub fn inherited_fd(fd: i32) -> io::Result<std::fs::File> {
    sys_process::dup_fd(fd)
}

/// Was standard output open when this process was started? `Some(false)`
/// when it was started with descriptor 1 closed (`>&-`), which Rust's
/// start-up code then reopens on `/dev/null`, so that it cannot be told
/// from a `/dev/null` given on purpose (`1<>/dev/null`, Python's
/// `subprocess.DEVNULL`, systemd's `StandardOutput=null`) any other way;
/// `None` where the platform's loader did not say.
pub fn stdout_open_at_start() -> Option<bool> {
    sys_process::stdout_open_at_start()
}

/// The thousands separator of the user's locale (empty in the C locale),
/// for counts printed with `-B`.
pub fn thousands_separator() -> String {
    sys_process::locale_thousands_sep()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn programs_are_found_as_a_shell_finds_them() {
        assert!(find_program(OsStr::new("sh")).is_some());
        assert!(find_program(OsStr::new("no-such-program-pfm")).is_none());
        assert_eq!(find_program(OsStr::new("./x")), Some(PathBuf::from("./x")));
        assert!(find_program(OsStr::new("")).is_none());
    }

    #[test]
    fn held_children_run_when_started() {
        let mut c = HeldChild::spawn(&["sh".into(), "-c".into(), "exit 7".into()]).unwrap();
        let pid = c.pid() as u32;
        c.start().unwrap();
        let far = Instant::now() + std::time::Duration::from_secs(30);
        let exit = ChildWait::new(pid, None)
            .unwrap()
            .until(far)
            .unwrap()
            .unwrap();
        assert_eq!(exit.status.code(), Some(7));
        assert!(matches!(
            HeldChild::spawn(&["no-such-program-pfm".into()]),
            Err(SpawnError::NotFound(_))
        ));
        // Dropped unstarted: nothing runs, nothing is left behind.
        drop(HeldChild::spawn(&["true".into()]).unwrap());
    }

    #[test]
    fn waiting_stops_at_the_deadline() {
        let mut c = HeldChild::spawn(&["sleep".into(), "5".into()]).unwrap();
        c.start().unwrap();
        let pid = c.pid();
        let mut w = ChildWait::new(pid as u32, None).unwrap();
        let soon = Instant::now() + std::time::Duration::from_millis(50);
        assert!(w.until(soon).unwrap().is_none());
        sys::kill(pid, libc::SIGKILL).unwrap();
        let far = Instant::now() + std::time::Duration::from_secs(30);
        let exit = w.until(far).unwrap().unwrap();
        assert_eq!(exit.status.signal(), Some(libc::SIGKILL));
    }

    #[test]
    fn the_thousands_separator_is_read_from_any_thread() {
        // No process-global locale change: concurrent calls agree.
        let one = thousands_separator();
        let all: Vec<String> = std::thread::scope(|s| {
            let h: Vec<_> = (0..8).map(|_| s.spawn(thousands_separator)).collect();
            h.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(all.iter().all(|x| *x == one), "{one:?} vs {all:?}");
    }

    #[test]
    fn inherited_descriptors() {
        assert!(inherited_fd(2).is_ok());
        assert!(inherited_fd(-1).is_err());
        assert!(inherited_fd(100_000).is_err());
    }
}
