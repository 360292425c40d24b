//! A simulated kernel with a PMU, for tests (cargo feature `sim`).
//!
//! [`SimKernel`] is a [`Kernel`]: counters, groups and counter sets opened
//! on it ([`Counter::open_on`](crate::Counter::open_on),
//! [`Group::open_on`](crate::Group::open_on),
//! [`CounterSet::open_on`](crate::CounterSet::open_on)) run the crate's own
//! code against a machine whose every count is known in advance:
//!
//! - time passes only in [`SimKernel::run`]; each event counts at a fixed
//!   rate while it is on the PMU (cycles 3 per ns, instructions 2,
//!   `task-clock`/`cpu-clock` 1, page faults 1 per µs...);
//! - hardware events need one of [`SimConfig::counters`] counters; groups
//!   that do not all fit take turns (one turn per `run`), so their enabled
//!   and running times differ, and a group that never got on reads as not
//!   counted;
//! - the user page publishes the counter index, an offset and a raw counter
//!   value with its top bit set (so `rdpmc` needs the sign extension), and
//!   [`SimKernel::interfere_with_next_rdpmc`] makes the kernel reprogram the
//!   counter during the next `rdpmc`, which the seqlock reader must retry;
//! - opens fail as the kernel's do (no PMU, paranoid level, missing task or
//!   CPU, a group that can never fit...), or with any errno queued by
//!   [`SimKernel::refuse_next_open`].
//!
//! ```
//! use pfmlib_perf::{sim::{SimConfig, SimKernel}, Counter, Options, Target};
//! let sim = SimKernel::new(SimConfig::default());
//! let lib = pfmlib::Library::global();
//! let c = Counter::open_on(&sim, lib, "cycles", Target::CallingThread, &Options::default()).unwrap();
//! c.enable().unwrap();
//! sim.run(1_000);
//! assert_eq!(c.read().unwrap().value, 3_000);
//! ```

mod machine;

pub use machine::{SimConfig, SimHybrid};

use crate::env::Environment;
use crate::kernel::{sealed, Ioctl, Kernel, KernelAttr, UserPage};
use machine::Machine;
use perf_event_open_sys::bindings as pb;
use std::io;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// A simulated machine with a PMU; clones share the same machine.
#[derive(Debug, Clone)]
pub struct SimKernel {
    machine: Arc<Mutex<Machine>>,
}

impl Default for SimKernel {
    fn default() -> SimKernel {
        SimKernel::new(SimConfig::default())
    }
}

impl SimKernel {
    /// A machine as `cfg` describes it, with nothing open and the clock at 0.
    pub fn new(cfg: SimConfig) -> SimKernel {
        SimKernel {
            machine: Arc::new(Mutex::new(Machine::new(cfg))),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Machine> {
        // A test that panicked while holding it leaves consistent state behind.
        self.machine.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The machine's configuration.
    pub fn config(&self) -> SimConfig {
        self.lock().cfg.clone()
    }

    /// `ns` nanoseconds go by: events on the PMU count, then groups waiting
    /// for counters get their turn.
    pub fn run(&self, ns: u64) {
        self.lock().run(ns);
    }

    /// A new task (process) that counters can target: its pid.
    pub fn spawn_task(&self) -> i32 {
        self.lock().spawn_task()
    }

    /// Task `pid` exits: its counters stop and stay readable; new opens on
    /// it fail with `ESRCH`.
    pub fn exit_task(&self, pid: i32) {
        self.lock().exit_task(pid);
    }

    /// The counted tasks call `execve`: counters opened with
    /// enable-on-exec start.
    pub fn exec(&self) {
        self.lock().exec();
    }

    /// The next `perf_event_open` fails with `errno` (queued in order).
    pub fn refuse_next_open(&self, errno: i32) {
        self.lock().refuse_next_open(errno);
    }

    /// During the next `rdpmc`, the kernel moves the event to a freshly
    /// programmed counter (new raw value, new offset, new lock).
    pub fn interfere_with_next_rdpmc(&self) {
        self.lock().interfere_with_next_rdpmc();
    }

    /// How many times `rdpmc` ran.
    pub fn rdpmc_calls(&self) -> u64 {
        self.lock().rdpmc_calls
    }

    /// Events open now (dropping a counter closes its event).
    pub fn open_events(&self) -> usize {
        self.lock().open_events()
    }
}

/// An event open on a [`SimKernel`]; dropping it closes it.
#[derive(Debug)]
pub struct SimEvent {
    kernel: SimKernel,
    idx: usize,
}

impl Drop for SimEvent {
    fn drop(&mut self) {
        self.kernel.lock().close(self.idx);
    }
}

/// The user page of a [`SimEvent`].
#[derive(Debug)]
pub struct SimPage {
    kernel: SimKernel,
    idx: usize,
}

impl sealed::Sealed for SimKernel {}
impl sealed::Sealed for SimPage {}

/// The simulated TSC runs at 1 GHz: one cycle per nanosecond.
const TIME_SHIFT: u16 = 10;
const TIME_MULT: u32 = 1 << TIME_SHIFT;

impl Kernel for SimKernel {
    type Event = SimEvent;
    type Page = SimPage;

    fn open(
        &self,
        attr: &mut KernelAttr,
        pid: i32,
        cpu: i32,
        group: Option<&SimEvent>,
        flags: u64,
    ) -> Result<SimEvent, i32> {
        // A cgroup's descriptor in place of the pid counts on the CPU.
        let pid = if flags & u64::from(pb::PERF_FLAG_PID_CGROUP) != 0 {
            -1
        } else {
            pid
        };
        let idx = self.lock().open(attr, pid, cpu, group.map(|g| g.idx))?;
        Ok(SimEvent {
            kernel: self.clone(),
            idx,
        })
    }

    fn read(&self, event: &SimEvent, buf: &mut [u8]) -> io::Result<usize> {
        let words = self.lock().read_words(event.idx);
        if buf.len() < words.len() * 8 {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        for (chunk, w) in buf.chunks_exact_mut(8).zip(&words) {
            chunk.copy_from_slice(&w.to_ne_bytes());
        }
        Ok(words.len() * 8)
    }

    fn ioctl(&self, event: &SimEvent, op: Ioctl, group: bool) -> io::Result<()> {
        self.lock().ioctl(event.idx, op, group);
        Ok(())
    }

    fn id(&self, event: &SimEvent) -> io::Result<u64> {
        Ok(Machine::id(event.idx))
    }

    fn map_page(&self, event: &SimEvent) -> io::Result<SimPage> {
        Ok(SimPage {
            kernel: self.clone(),
            idx: event.idx,
        })
    }

    /// A simulated id per OS thread (threads differ, one thread keeps its own).
    fn gettid(&self) -> i32 {
        static NEXT: AtomicI32 = AtomicI32::new(1);
        thread_local! {
            static TID: i32 = NEXT.fetch_add(1, Ordering::Relaxed);
        }
        TID.with(|t| *t)
    }

    fn environment(&self) -> Environment {
        let m = self.lock();
        Environment {
            paranoid: Some(m.cfg.paranoid),
            privileged: m.cfg.privileged,
            seccomp_filter: false,
            hardware_pmu: m.cfg.hardware_pmu,
        }
    }

    fn cpu_exists(&self, cpu: i32) -> bool {
        u32::try_from(cpu).is_ok_and(|c| c < self.lock().cfg.cpus)
    }

    fn max_precise_ip(&self) -> u8 {
        let m = self.lock();
        if m.cfg.hardware_pmu {
            m.cfg.max_precise
        } else {
            0
        }
    }
}

impl UserPage for SimPage {
    fn lock(&self) -> u32 {
        self.kernel.lock().page(self.idx).lock
    }
    fn capabilities(&self) -> u64 {
        self.kernel.lock().page(self.idx).capabilities
    }
    fn index(&self) -> u32 {
        self.kernel.lock().page(self.idx).index
    }
    fn offset(&self) -> i64 {
        self.kernel.lock().page(self.idx).offset
    }
    fn pmc_width(&self) -> u16 {
        self.kernel.lock().page(self.idx).pmc_width
    }
    fn time_mult(&self) -> u32 {
        TIME_MULT
    }
    fn time_shift(&self) -> u16 {
        TIME_SHIFT
    }
    fn rdpmc(&self, counter: u32) -> Option<u64> {
        Some(self.kernel.lock().rdpmc(counter))
    }
}
