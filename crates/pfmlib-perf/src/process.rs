//! What a counting command needs from the OS besides perf events: wait for
//! its child with resource usage, pass Ctrl-C on.

use std::io;
use std::process::ExitStatus;
use std::time::Duration;

use crate::sys;

/// Stop-signal handling for a program that counts a command.
///
/// After [`Interrupt::install`], SIGINT (Ctrl-C), SIGTERM, SIGHUP and
/// SIGQUIT no longer kill this process; the signal is recorded
/// ([`Interrupt::signal`]) and [`wait_child`] passes it on to the child, so
/// the counts can still be printed. Programs started afterwards get the
/// default actions back at exec.
#[derive(Debug, Clone, Copy)]
pub struct Interrupt;

impl Interrupt {
    /// Installs the handlers.
    pub fn install() -> io::Result<Interrupt> {
        sys::install_stop_signal_flag()?;
        Ok(Interrupt)
    }

    /// True once a stop signal arrived.
    pub fn received(&self) -> bool {
        sys::stop_signal_received().is_some()
    }

    /// The stop signal that arrived (the last one), if any.
    pub fn signal(&self) -> Option<i32> {
        sys::stop_signal_received()
    }
}

/// Lets this process hold `want` open descriptors where its hard limit
/// allows (perf raises its limit likewise for counters on many threads or
/// CPUs): the soft limit afterwards. Programs started later inherit it.
pub fn raise_open_files_limit(want: u64) -> io::Result<u64> {
    crate::sys_process::raise_nofile_limit(want)
}

/// How a child ended, and the CPU time it and its waited-for children used.
#[derive(Debug, Clone, Copy)]
pub struct ChildExit {
    /// Exit status (code or signal).
    pub status: ExitStatus,
    /// User CPU time.
    pub user: Duration,
    /// System CPU time.
    pub sys: Duration,
}

/// Waits for child `pid` (started with `std::process::Command`; do not
/// also `wait` it there). If a stop signal arrived (before the wait too,
/// even before the child started) and `interrupt` is installed, the child
/// gets the same signal and is waited for.
pub fn wait_child(pid: u32, interrupt: Option<Interrupt>) -> io::Result<ChildExit> {
    let pid = i32::try_from(pid).map_err(|_| io::Error::from_raw_os_error(libc::ESRCH))?;
    let mut forwarded = false;
    let forward = |forwarded: &mut bool| {
        if let Some(sig) = interrupt.and_then(|i| i.signal()) {
            if !*forwarded {
                *forwarded = true;
                // The child may be gone already (a terminal's Ctrl-C reaches it too).
                let _ = sys::kill(pid, sig);
            }
        }
    };
    forward(&mut forwarded);
    loop {
        match sys::wait4(pid) {
            Ok(r) => {
                return Ok(ChildExit {
                    status: r.status,
                    user: r.user,
                    sys: r.sys,
                })
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => forward(&mut forwarded),
            Err(e) => return Err(e),
        }
    }
}

/// Sends SIGINT to process `pid`.
pub fn interrupt_process(pid: u32) -> io::Result<()> {
    let pid = i32::try_from(pid).map_err(|_| io::Error::from_raw_os_error(libc::ESRCH))?;
    sys::kill(pid, libc::SIGINT)
}

/// Sends SIGTERM to process `pid` (a command's time limit is up).
pub fn terminate_process(pid: u32) -> io::Result<()> {
    let pid = i32::try_from(pid).map_err(|_| io::Error::from_raw_os_error(libc::ESRCH))?;
    sys::kill(pid, libc::SIGTERM)
}
