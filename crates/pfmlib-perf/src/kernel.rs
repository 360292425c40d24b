//! The seam between counting and the kernel.
//!
//! [`Counter`](crate::Counter), [`Group`](crate::Group) and
//! [`CounterSet`](crate::CounterSet) reach the kernel only through a
//! [`Kernel`]: `perf_event_open(2)`, `read(2)`, the enable / disable / reset
//! / id ioctls, the mapped user page with its seqlock fields and `rdpmc`,
//! and `close` (dropping an event). [`Real`] is the running kernel (the
//! default type parameter, a zero-sized value: calls are static, nothing is
//! boxed); with the `sim` feature, `sim::SimKernel` is a simulated machine
//! with a PMU for tests.
//!
//! The trait is sealed: the crate's two kernels are its only implementors.

use crate::env::Environment;
use crate::sys;
use std::fmt;
use std::fs::File;
use std::io;
use std::sync::atomic::{compiler_fence, Ordering};
use std::sync::OnceLock;

pub use crate::sys::Ioctl;

/// `perf_event_attr` as the kernel takes it.
pub type KernelAttr = perf_event_open_sys::bindings::perf_event_attr;

/// `perf_event_mmap_page.capabilities`: `rdpmc` allowed.
pub(crate) const CAP_USER_RDPMC: u64 = 1 << 2;
/// `perf_event_mmap_page.capabilities`: `time_mult` / `time_shift` valid.
pub(crate) const CAP_USER_TIME: u64 = 1 << 3;

pub(crate) mod sealed {
    /// Keeps [`super::Kernel`] and [`super::UserPage`] implemented here only.
    pub trait Sealed {}
}

/// The system calls counting needs (see the module documentation).
pub trait Kernel: Clone + fmt::Debug + Send + Sync + sealed::Sealed {
    /// An open perf event; dropping it closes it.
    type Event: fmt::Debug + Send + Sync;
    /// The first page of an event, mapped read-only.
    type Page: UserPage;

    /// `perf_event_open(attr, pid, cpu, group, PERF_FLAG_FD_CLOEXEC | flags)`:
    /// the new event, or the errno.
    fn open(
        &self,
        attr: &mut KernelAttr,
        pid: i32,
        cpu: i32,
        group: Option<&Self::Event>,
        flags: u64,
    ) -> Result<Self::Event, i32>;

    /// `read(2)` on the event: the bytes its `read_format` lays out.
    fn read(&self, event: &Self::Event, buf: &mut [u8]) -> io::Result<usize>;

    /// Issues `op` on the event; with `group`, on the whole group it leads.
    fn ioctl(&self, event: &Self::Event, op: Ioctl, group: bool) -> io::Result<()>;

    /// The kernel's unique id of the event (`PERF_EVENT_IOC_ID`).
    fn id(&self, event: &Self::Event) -> io::Result<u64>;

    /// Maps the event's user page.
    fn map_page(&self, event: &Self::Event) -> io::Result<Self::Page>;

    /// The calling thread's id.
    fn gettid(&self) -> i32;

    /// What explains a refused open (paranoid level, privileges, PMU...).
    fn environment(&self) -> Environment;

    /// True when CPU `cpu` exists.
    fn cpu_exists(&self, cpu: i32) -> bool;

    /// True when task `pid` belongs to another user (one of its real,
    /// effective or saved user ids is not this process's real one), so the
    /// kernel's ptrace check refuses to count it whatever else is allowed.
    fn task_is_foreign(&self, pid: i32) -> bool {
        let _ = pid;
        false
    }

    /// The highest `precise_ip` the CPU's PMU takes (perf's `:P`).
    fn max_precise_ip(&self) -> u8 {
        probe_precise_ip(self)
    }
}

/// The fields of a perf event's user page (`perf_event_mmap_page`), each
/// one read of what the kernel may be changing meanwhile; the crate reads
/// them consistently under the page's seqlock (`lock`).
pub trait UserPage: fmt::Debug + Send + Sync + sealed::Sealed {
    /// The seqlock: changes whenever the kernel updates the page.
    fn lock(&self) -> u32;
    /// The capability bits (bit 2: `cap_user_rdpmc`, bit 3: `cap_user_time`).
    fn capabilities(&self) -> u64;
    /// Hardware counter index + 1, 0 when the event is not on a counter now.
    fn index(&self) -> u32;
    /// What to add to the sign-extended counter to get the count.
    fn offset(&self) -> i64;
    /// Width of the hardware counters in bits.
    fn pmc_width(&self) -> u16;
    /// TSC to nanoseconds: `ns = (cyc * time_mult) >> time_shift`.
    fn time_mult(&self) -> u32;
    /// See `time_mult`.
    fn time_shift(&self) -> u16;
    /// The raw value of hardware counter `counter` (`rdpmc`); `None` where
    /// the architecture has no such instruction.
    fn rdpmc(&self, counter: u32) -> Option<u64>;
}

/// What the user page says about an event, read consistently.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PageSnapshot {
    /// `cap_user_rdpmc`.
    pub cap_user_rdpmc: bool,
    /// `cap_user_time`.
    pub cap_user_time: bool,
    /// Hardware counter index + 1, 0 when the event is not on a counter now.
    pub index: u32,
    /// Width of the hardware counters in bits.
    pub pmc_width: u16,
    /// TSC to nanoseconds: `ns = (cyc * time_mult) >> time_shift`.
    pub time_mult: u32,
    /// See `time_mult`.
    pub time_shift: u16,
}

/// The seqlock reader: `read` of `page`, repeated until the page's lock is
/// the same before and after it (the kernel changed nothing meanwhile).
fn consistent<P: UserPage, T>(page: &P, read: impl Fn(&P) -> T) -> T {
    loop {
        let seq = page.lock();
        compiler_fence(Ordering::SeqCst);
        let value = read(page);
        compiler_fence(Ordering::SeqCst);
        if page.lock() == seq {
            return value;
        }
    }
}

/// A consistent snapshot of the page's capability and time fields.
pub(crate) fn snapshot<P: UserPage>(page: &P) -> PageSnapshot {
    consistent(page, |p| {
        let caps = p.capabilities();
        PageSnapshot {
            cap_user_rdpmc: caps & CAP_USER_RDPMC != 0,
            cap_user_time: caps & CAP_USER_TIME != 0,
            index: p.index(),
            pmc_width: p.pmc_width(),
            time_mult: p.time_mult(),
            time_shift: p.time_shift(),
        }
    })
}

/// The event's count read with `rdpmc` under the page's seqlock, or `None`
/// when the kernel does not allow it now (no `cap_user_rdpmc`, or the event
/// is not on a hardware counter at this moment).
///
/// Only meaningful from the thread the event counts (the caller checks).
pub(crate) fn read_rdpmc<P: UserPage>(page: &P) -> Option<u64> {
    let (offset, width, raw) = consistent(page, |p| {
        let index = p.index();
        if p.capabilities() & CAP_USER_RDPMC == 0 || index == 0 {
            return None;
        }
        Some((p.offset(), p.pmc_width(), p.rdpmc(index - 1)?))
    })?;
    // Sign-extend the `width`-bit counter, then add the kernel's offset.
    let shift = 64 - u32::from(width).clamp(1, 64);
    let pmc = ((raw << shift) as i64) >> shift;
    Some(offset.wrapping_add(pmc) as u64)
}

/// Probes the highest `precise_ip` as perf does: a user-level cycles event
/// opened with 3, 2, then 1; 0 when none opens (no hardware PMU).
fn probe_precise_ip<K: Kernel>(kernel: &K) -> u8 {
    (1..=crate::perf_syntax::MAX_PRECISE)
        .rev()
        .find(|&p| {
            let attr = pfmlib::PerfAttr::new(0, 0)
                .exclude_kernel(true)
                .exclude_hv(true)
                .precise_ip(p);
            let mut k = attr.to_kernel();
            k.set_disabled(1);
            kernel.open(&mut k, 0, -1, None, 0).is_ok()
        })
        .unwrap_or(0)
}

/// The running kernel: the system calls themselves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Real;

impl sealed::Sealed for Real {}
impl sealed::Sealed for sys::MappedPage {}

impl Kernel for Real {
    type Event = File;
    type Page = sys::MappedPage;

    fn open(
        &self,
        attr: &mut KernelAttr,
        pid: i32,
        cpu: i32,
        group: Option<&File>,
        flags: u64,
    ) -> Result<File, i32> {
        sys::perf_event_open(attr, pid, cpu, group, flags)
    }

    fn read(&self, event: &File, buf: &mut [u8]) -> io::Result<usize> {
        io::Read::read(&mut &*event, buf)
    }

    fn ioctl(&self, event: &File, op: Ioctl, group: bool) -> io::Result<()> {
        sys::ioctl(event, op, group)
    }

    fn id(&self, event: &File) -> io::Result<u64> {
        sys::event_id(event)
    }

    fn map_page(&self, event: &File) -> io::Result<sys::MappedPage> {
        sys::MappedPage::map(event)
    }

    fn gettid(&self) -> i32 {
        sys::gettid()
    }

    fn environment(&self) -> Environment {
        Environment::detect()
    }

    fn cpu_exists(&self, cpu: i32) -> bool {
        pfmlib::Library::global()
            .host()
            .file_exists(&format!("/sys/devices/system/cpu/cpu{cpu}"))
    }

    fn task_is_foreign(&self, pid: i32) -> bool {
        crate::env::task_is_foreign(pfmlib::Library::global().host(), pid)
    }

    /// Probed once per process.
    fn max_precise_ip(&self) -> u8 {
        static MAX: OnceLock<u8> = OnceLock::new();
        *MAX.get_or_init(|| probe_precise_ip(self))
    }
}

impl UserPage for sys::MappedPage {
    fn lock(&self) -> u32 {
        sys::MappedPage::lock(self)
    }
    fn capabilities(&self) -> u64 {
        sys::MappedPage::capabilities(self)
    }
    fn index(&self) -> u32 {
        sys::MappedPage::index(self)
    }
    fn offset(&self) -> i64 {
        sys::MappedPage::offset(self)
    }
    fn pmc_width(&self) -> u16 {
        sys::MappedPage::pmc_width(self)
    }
    fn time_mult(&self) -> u32 {
        sys::MappedPage::time_mult(self)
    }
    fn time_shift(&self) -> u16 {
        sys::MappedPage::time_shift(self)
    }
    fn rdpmc(&self, counter: u32) -> Option<u64> {
        sys::rdpmc(counter)
    }
}
