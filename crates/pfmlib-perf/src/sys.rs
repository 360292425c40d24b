//! The kernel interface: with `sys_process`, the only module of this crate
//! allowed `unsafe` code (the crate root denies it everywhere else).
//!
//! Each block says why it is sound in a `SAFETY:` comment (enforced by
//! `clippy::undocumented_unsafe_blocks`). Everything above this module is
//! safe Rust over these few functions: `perf_event_open(2)`, its ioctls, the
//! mmap'd user page's fields with `rdpmc`, `rdtsc`, `gettid`, and the process
//! calls `pfm stat` needs (`wait4`, `kill`, a stop-signal flag). Counting
//! reaches the perf calls through `crate::kernel::Real`.

use perf_event_open_sys as pes;
use perf_event_open_sys::bindings as pb;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// `perf_event_open(attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC | flags)`
/// (`PERF_FLAG_PID_CGROUP`: `pid` is then a cgroup directory's descriptor).
///
/// Returns the new descriptor as a `File` (reads go through `Read`), or the errno.
pub(crate) fn perf_event_open(
    attr: &mut pb::perf_event_attr,
    pid: i32,
    cpu: i32,
    group: Option<&File>,
    flags: u64,
) -> Result<File, i32> {
    attr.size = std::mem::size_of::<pb::perf_event_attr>() as u32;
    let group_fd = group.map_or(-1, |g| g.as_raw_fd());
    // SAFETY: `attr` is an exclusively borrowed, fully initialised
    // perf_event_attr whose `size` field is its true size; the kernel reads at
    // most that many bytes and writes back only `size` (on E2BIG). `group_fd`
    // is -1 or a descriptor kept open by the borrowed `File`; with
    // PERF_FLAG_PID_CGROUP, `pid` is a descriptor the caller keeps open.
    let fd = unsafe {
        pes::perf_event_open(
            attr,
            pid,
            cpu,
            group_fd,
            (pb::PERF_FLAG_FD_CLOEXEC as u64 | flags) as libc::c_ulong,
        )
    };
    if fd < 0 {
        return Err(errno());
    }
    // SAFETY: the kernel just returned this descriptor; nothing else owns it.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    Ok(File::from(owned))
}

/// The three argument-less perf ioctls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ioctl {
    /// `PERF_EVENT_IOC_ENABLE`: start counting.
    Enable,
    /// `PERF_EVENT_IOC_DISABLE`: stop counting.
    Disable,
    /// `PERF_EVENT_IOC_RESET`: zero the count.
    Reset,
}

/// Issues `op` on `fd`; with `group`, on the whole group led by `fd`.
pub(crate) fn ioctl(fd: &File, op: Ioctl, group: bool) -> io::Result<()> {
    let arg = if group { pb::PERF_IOC_FLAG_GROUP } else { 0 };
    let raw = fd.as_raw_fd();
    // SAFETY: `raw` is a perf event descriptor kept open by `fd`; these
    // ioctls take an integer argument and touch no user memory.
    let r = unsafe {
        match op {
            Ioctl::Enable => pes::ioctls::ENABLE(raw, arg),
            Ioctl::Disable => pes::ioctls::DISABLE(raw, arg),
            Ioctl::Reset => pes::ioctls::RESET(raw, arg),
        }
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The kernel's unique id of the event behind `fd` (`PERF_EVENT_IOC_ID`).
pub(crate) fn event_id(fd: &File) -> io::Result<u64> {
    let mut id: u64 = 0;
    // SAFETY: `fd` is an open perf event descriptor and `id` a valid, writable
    // u64 that outlives the call; the kernel writes exactly one u64 there.
    let r = unsafe { pes::ioctls::ID(fd.as_raw_fd(), &mut id) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(id)
    }
}

/// The calling thread's kernel id.
pub(crate) fn gettid() -> i32 {
    // SAFETY: gettid takes no arguments, cannot fail and touches no memory.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) };
    tid as i32
}

fn page_size() -> usize {
    // SAFETY: sysconf reads a configuration value and touches no user memory.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

/// The first page of a perf event mapped read-only: the kernel's
/// `perf_event_mmap_page`, where it publishes the counter index for `rdpmc`.
/// Each accessor is one volatile read; `crate::kernel` reads them under the
/// page's seqlock.
#[derive(Debug)]
pub struct MappedPage {
    page: NonNull<pb::perf_event_mmap_page>,
    len: usize,
}

// SAFETY: the mapping is owned by this value alone (unmapped in Drop), is
// never written by us, and every access is a volatile read; moving the owner
// to another thread is sound. (rdpmc is additionally guarded by a thread check
// in the caller.)
unsafe impl Send for MappedPage {}

// SAFETY: `&MappedPage` only allows volatile reads of the read-only mapping
// (no interior mutability on our side), which any number of threads may do
// at once; rdpmc is used only from the counted thread (checked by the caller).
unsafe impl Sync for MappedPage {}

macro_rules! page_field {
    ($page:expr, $($field:tt)+) => {
        // SAFETY: `$page` points to a live, page-aligned mapping at least one
        // page long (checked by `map`), which covers the whole
        // perf_event_mmap_page; the kernel updates it concurrently, hence a
        // volatile read of a naturally aligned plain integer field.
        unsafe { std::ptr::addr_of!((*$page.as_ptr()).$($field)+).read_volatile() }
    };
}

impl MappedPage {
    /// Maps the user page of the event behind `fd`.
    pub(crate) fn map(fd: &File) -> io::Result<MappedPage> {
        let len = page_size();
        if len < std::mem::size_of::<pb::perf_event_mmap_page>() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "page smaller than perf_event_mmap_page",
            ));
        }
        // SAFETY: a fresh shared read-only mapping chosen by the kernel
        // (address NULL) of one page of a perf event descriptor; no existing
        // memory is affected.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        match NonNull::new(p.cast::<pb::perf_event_mmap_page>()) {
            Some(page) => Ok(MappedPage { page, len }),
            None => Err(io::Error::other("mmap returned NULL")),
        }
    }

    /// `lock`: the seqlock.
    pub(crate) fn lock(&self) -> u32 {
        page_field!(self.page, lock)
    }

    /// `capabilities` (a plain u64 in a union).
    pub(crate) fn capabilities(&self) -> u64 {
        page_field!(self.page, __bindgen_anon_1.capabilities)
    }

    /// `index`.
    pub(crate) fn index(&self) -> u32 {
        page_field!(self.page, index)
    }

    /// `offset`.
    pub(crate) fn offset(&self) -> i64 {
        page_field!(self.page, offset)
    }

    /// `pmc_width`.
    pub(crate) fn pmc_width(&self) -> u16 {
        page_field!(self.page, pmc_width)
    }

    /// `time_mult`.
    pub(crate) fn time_mult(&self) -> u32 {
        page_field!(self.page, time_mult)
    }

    /// `time_shift`.
    pub(crate) fn time_shift(&self) -> u16 {
        page_field!(self.page, time_shift)
    }
}

impl Drop for MappedPage {
    fn drop(&mut self) {
        // SAFETY: `page`/`len` describe exactly the mapping made in `map`,
        // unmapped once here; no reference into it outlives `self`.
        unsafe {
            libc::munmap(self.page.as_ptr().cast(), self.len);
        }
    }
}

/// Hardware counter `counter` (`rdpmc`), on x86-64.
///
/// Only for `crate::kernel::read_rdpmc`, which calls it when the user page
/// of an event of the calling thread advertises `cap_user_rdpmc` with a
/// non-zero index (elsewhere the instruction faults).
#[cfg(target_arch = "x86_64")]
pub(crate) fn rdpmc(counter: u32) -> Option<u64> {
    let lo: u32;
    let hi: u32;
    // SAFETY: rdpmc reads a register and touches no memory. Its one caller
    // reaches it only when the kernel's user page of an event of the
    // calling thread advertises cap_user_rdpmc with a non-zero index, i.e. the
    // kernel has enabled user rdpmc (CR4.PCE) for this address space and the
    // event sits on hardware counter `counter`; the seqlock around the call
    // discards the value if the event moved.
    unsafe {
        std::arch::asm!(
            "rdpmc",
            in("ecx") counter,
            out("eax") lo,
            out("edx") hi,
            options(nostack, nomem, preserves_flags)
        );
    }
    Some((u64::from(hi) << 32) | u64::from(lo))
}

/// Hardware counter `counter` (`rdpmc`), on x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn rdpmc(_counter: u32) -> Option<u64> {
    None
}

/// The time-stamp counter, on x86-64.
#[cfg(target_arch = "x86_64")]
pub(crate) fn rdtsc() -> Option<u64> {
    // SAFETY: rdtsc exists on every x86-64 CPU, reads a register and touches
    // no memory.
    Some(unsafe { std::arch::x86_64::_rdtsc() })
}

/// The time-stamp counter, on x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn rdtsc() -> Option<u64> {
    None
}

/// The stop signal that arrived last (0: none), set by [`on_stop_signal`].
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// The signals that stop a counting command: Ctrl-C, `kill`, a hang-up,
/// Ctrl-\\.
pub(crate) const STOP_SIGNALS: [libc::c_int; 4] =
    [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

extern "C" fn on_stop_signal(sig: libc::c_int) {
    // Async-signal-safe: one atomic store.
    RECEIVED.store(sig, Ordering::SeqCst);
}

/// Installs, for each of [`STOP_SIGNALS`], a handler that only records the
/// signal (no `SA_RESTART`, so a blocking `wait4` returns `EINTR`). A
/// handled signal is reset to its default in programs started afterwards
/// (exec), so a child still dies of it.
pub(crate) fn install_stop_signal_flag() -> io::Result<()> {
    for sig in STOP_SIGNALS {
        // SAFETY: zero is a valid bit pattern for the plain C struct sigaction.
        let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
        sa.sa_sigaction = on_stop_signal as *const () as libc::sighandler_t;
        sa.sa_flags = 0;
        // SAFETY: `sa.sa_mask` is a valid sigset_t owned by this frame.
        unsafe {
            libc::sigemptyset(&mut sa.sa_mask);
        }
        // SAFETY: `sa` is fully initialised and lives across the call; the
        // handler is an `extern "C"` function doing one atomic store
        // (async-signal-safe); the old action is not requested (NULL).
        let r = unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The stop signal received (after [`install_stop_signal_flag`]), if any.
pub(crate) fn stop_signal_received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Sends `sig` to process `pid`.
pub(crate) fn kill(pid: i32, sig: i32) -> io::Result<()> {
    if pid <= 0 {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: kill takes two integers and touches no memory; `pid > 0` so it
    // targets exactly one process, never a process group.
    let r = unsafe { libc::kill(pid, sig) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// How a waited-for child ended, with its resource usage.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reaped {
    pub status: ExitStatus,
    pub user: Duration,
    pub sys: Duration,
}

pub(crate) fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(tv.tv_sec.max(0) as u64) + Duration::from_micros(tv.tv_usec.max(0) as u64)
}

/// `wait4(pid)` once; `Err` of kind `Interrupted` on EINTR (a signal arrived).
pub(crate) fn wait4(pid: i32) -> io::Result<Reaped> {
    if pid <= 0 {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let mut status: libc::c_int = 0;
    // SAFETY: zero is a valid bit pattern for the plain C struct rusage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `status` and `ru` are valid, writable and outlive the call;
    // `pid > 0` waits for that one child only.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Reaped {
        status: ExitStatus::from_raw(status),
        user: timeval(ru.ru_utime),
        sys: timeval(ru.ru_stime),
    })
}
