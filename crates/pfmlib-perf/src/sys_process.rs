//! The process-side kernel calls of `pfm stat`'s everyday options: a
//! command forked and held before its `execve` (so counters can be opened
//! on it first), waiting for it with a time limit, duplicating an inherited
//! descriptor (`--log-fd`), and the locale's thousands separator (`-B`).
//! Like [`crate::sys`], each `unsafe` block says why it is sound.

use crate::sys::Reaped;
use std::ffi::{CStr, CString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

/// A forked child waiting for a byte on `go` before its `execve`; `err`
/// gives the `execve` errno (4 bytes) or end-of-file once it succeeded.
#[derive(Debug)]
pub(crate) struct Forked {
    pub pid: i32,
    pub go: File,
    pub err: File,
}

fn pipe_cloexec() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is a valid, writable array of two ints that outlives the call.
    let r = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 just created these two descriptors; nothing else owns them.
    let pair = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok(pair)
}

/// Null-terminated pointer array over `v` (which must outlive its use).
fn pointers(v: &[CString]) -> Vec<*const libc::c_char> {
    v.iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

/// Forks a child that, once a byte arrives on the returned `go` pipe, runs
/// `path` with `argv` and `envp` (default signal mask and SIGPIPE action,
/// as `std::process::Command` gives). If `go` closes first, it exits 127.
pub(crate) fn fork_held(path: &CStr, argv: &[CString], envp: &[CString]) -> io::Result<Forked> {
    let (go_r, go_w) = pipe_cloexec()?;
    let (err_r, err_w) = pipe_cloexec()?;
    let argv_p = pointers(argv);
    let envp_p = pointers(envp);
    let (go_r_fd, go_w_fd, err_r_fd, err_w_fd) = (
        go_r.as_raw_fd(),
        go_w.as_raw_fd(),
        err_r.as_raw_fd(),
        err_w.as_raw_fd(),
    );
    // SAFETY: fork has no memory arguments. In the child only async-signal-
    // safe calls follow (close, sigaction, sigprocmask, read, execve, write,
    // _exit) on data prepared before the fork (`path`, the pointer arrays
    // and the CStrings they point into stay alive in this frame), and the
    // child never returns from this block.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: see the fork above; this branch runs in the child only.
        unsafe { held_child(go_r_fd, go_w_fd, err_r_fd, err_w_fd, path, &argv_p, &envp_p) }
    }
    drop(go_r);
    drop(err_w);
    Ok(Forked {
        pid,
        go: File::from(go_w),
        err: File::from(err_r),
    })
}

/// The child's side of [`fork_held`]: wait for the go byte, then exec.
///
/// # Safety
/// Must run in a freshly forked child, with the descriptors and pointer
/// arrays of [`fork_held`]; it never returns.
unsafe fn held_child(
    go_r: i32,
    go_w: i32,
    err_r: i32,
    err_w: i32,
    path: &CStr,
    argv: &[*const libc::c_char],
    envp: &[*const libc::c_char],
) -> ! {
    // SAFETY: the caller guarantees a freshly forked child; every call here
    // is async-signal-safe and its pointers valid (see `fork_held`).
    unsafe {
        libc::close(go_w);
        libc::close(err_r);
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGPIPE, &sa, std::ptr::null_mut());
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        let mut b = 0u8;
        loop {
            let n = libc::read(go_r, std::ptr::addr_of_mut!(b).cast(), 1);
            if n == 1 {
                break;
            }
            if n == 0 || *libc::__errno_location() != libc::EINTR {
                libc::_exit(127);
            }
        }
        libc::execve(path.as_ptr(), argv.as_ptr(), envp.as_ptr());
        let e: i32 = *libc::__errno_location();
        let bytes = e.to_ne_bytes();
        libc::write(err_w, bytes.as_ptr().cast(), bytes.len());
        libc::_exit(127)
    }
}

/// `wait4(pid, WNOHANG)`: `None` while the child runs; `Err` of kind
/// `Interrupted` on EINTR.
pub(crate) fn wait4_nohang(pid: i32) -> io::Result<Option<Reaped>> {
    if pid <= 0 {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let mut status: libc::c_int = 0;
    // SAFETY: zero is a valid bit pattern for the plain C struct rusage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `status` and `ru` are valid, writable and outlive the call;
    // `pid > 0` waits for that one child only.
    let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    if r == 0 {
        return Ok(None);
    }
    Ok(Some(Reaped {
        status: ExitStatus::from_raw(status),
        user: crate::sys::timeval(ru.ru_utime),
        sys: crate::sys::timeval(ru.ru_stime),
    }))
}

/// A descriptor that becomes readable when process `pid` ends (`pidfd_open`).
pub(crate) fn pidfd_open(pid: i32) -> io::Result<File> {
    // SAFETY: pidfd_open takes two integers and touches no user memory.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = i32::try_from(fd).map_err(|_| io::Error::from_raw_os_error(libc::EBADF))?;
    // SAFETY: the kernel just returned this descriptor; nothing else owns it.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Waits up to `timeout` for `f` to become readable: `Ok(true)` when it is,
/// `Ok(false)` on timeout, `Err` of kind `Interrupted` when a signal came.
pub(crate) fn poll_readable(f: &File, timeout: Duration) -> io::Result<bool> {
    let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    let mut p = libc::pollfd {
        fd: f.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `p` is one valid, writable pollfd that outlives the call.
    let r = unsafe { libc::poll(&mut p, 1, ms) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(r > 0)
}

/// A close-on-exec duplicate of descriptor `fd`, which this process
/// inherited (`--log-fd N`); an error when `fd` is not open.
pub(crate) fn dup_fd(fd: i32) -> io::Result<File> {
    if fd < 0 {
        return Err(io::Error::from_raw_os_error(libc::EBADF));
    }
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) takes integers and touches no memory;
    // on an unopened `fd` it fails with EBADF.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fcntl just returned this new descriptor; nothing else owns it.
    let file = File::from(unsafe { OwnedFd::from_raw_fd(new) });
    // SAFETY: fcntl(F_GETFL) on a descriptor we own only reads its flags.
    let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
    if flags >= 0 && flags & libc::O_ACCMODE == libc::O_RDONLY {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "it is open for reading only, and the counts are written to it",
        ));
    }
    Ok(file)
}

/// Raises this process's soft limit on open descriptors to `want`, or to
/// its hard limit when that is lower; the limit it has afterwards.
// `rlim_t` is `u64` here but narrower on some 32-bit targets.
#[allow(clippy::unnecessary_cast)]
pub(crate) fn raise_nofile_limit(want: u64) -> io::Result<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the valid struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let want = libc::rlim_t::try_from(want).unwrap_or(libc::rlim_t::MAX);
    let target = want.min(lim.rlim_max);
    if lim.rlim_cur >= target {
        return Ok(lim.rlim_cur as u64);
    }
    lim.rlim_cur = target;
    // SAFETY: setrlimit reads the valid struct it is given; the soft limit
    // stays within the hard one, so no privilege is needed.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(target as u64)
}

/// The thousands separator of the user's numeric locale (`LC_ALL`,
/// `LC_NUMERIC`, `LANG`), as the C library gives it; empty in the C locale.
///
/// The locale is opened as a separate object (`newlocale`) and read with
/// `nl_langinfo_l`: the process's own locale is never changed, so this is
/// safe to call from any thread.
pub(crate) fn locale_thousands_sep() -> String {
    // SAFETY: newlocale takes a valid NUL-terminated name ("": from the
    // environment) and a null base; it returns a new locale object or null.
    let loc = unsafe { libc::newlocale(libc::LC_NUMERIC_MASK, c"".as_ptr(), std::ptr::null_mut()) };
    if loc.is_null() {
        return String::new();
    }
    // SAFETY: `loc` is the valid locale object just created; nl_langinfo_l
    // returns a NUL-terminated string owned by that object (possibly empty),
    // copied here before the object is freed.
    let sep = unsafe {
        let p = libc::nl_langinfo_l(libc::THOUSEP, loc);
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    // SAFETY: `loc` came from newlocale, is freed once, and nothing refers
    // into it any more (`sep` is an owned copy).
    unsafe { libc::freelocale(loc) };
    sep
}

/// What [`note_stdout_at_start`] found of descriptor 1 when the process
/// was loaded: 0 not looked, 1 open, 2 closed.
static STDOUT_AT_START: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Runs from `.init_array`, before Rust's start-up code reopens a closed
/// standard descriptor on `/dev/null` (after which `>&-` and `1<>/dev/null`
/// look alike): notes whether descriptor 1 was open.
extern "C" fn note_stdout_at_start() {
    // SAFETY: fcntl(F_GETFD) only queries the descriptor table; no pointer
    // is passed and nothing is changed.
    let r = unsafe { libc::fcntl(1, libc::F_GETFD) };
    let v = if r == -1 { 2 } else { 1 };
    STDOUT_AT_START.store(v, std::sync::atomic::Ordering::Relaxed);
}

/// The loader calls the functions of `.init_array` before `main`.
#[used]
#[link_section = ".init_array"]
static NOTE_STDOUT_AT_START: extern "C" fn() = note_stdout_at_start;

/// Was descriptor 1 open when the process was loaded (`None`: not known,
/// the loader did not run the note)?
pub(crate) fn stdout_open_at_start() -> Option<bool> {
    match STDOUT_AT_START.load(std::sync::atomic::Ordering::Relaxed) {
        1 => Some(true),
        2 => Some(false),
        _ => None,
    }
}

/// Mounts tracefs on `/sys/kernel/tracing`, as perf does when it needs
/// tracepoints and finds it unmounted (root or CAP_SYS_ADMIN only).
pub(crate) fn mount_tracefs() -> io::Result<()> {
    let (source, target, fstype) = (c"nodev", c"/sys/kernel/tracing", c"tracefs");
    // SAFETY: three NUL-terminated strings that live across the call and a
    // NULL data pointer, which tracefs accepts (no mount options).
    let r = unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
