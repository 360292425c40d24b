//! # pfmlib-perf
//!
//! Counting on Linux with `perf_event_open(2)`, for any event string
//! [`pfmlib`] encodes: the OS-access layer of pfmlib.
//!
//! - [`Counter`]: one event for the calling thread, another task or a CPU,
//!   optionally inherited by children and started at exec; enable, disable,
//!   reset, read with `time_enabled`/`time_running` and the scaled value;
//!   [`Counter::read_value`] reads the calling thread's counters with
//!   `rdpmc` through the mmap'd user page when the kernel allows it.
//! - [`Group`]: a leader and members scheduled together, read with one `read`.
//! - [`CounterSet`]: events in groups over threads or CPUs, aggregated (what
//!   `pfm stat` uses).
//! - [`CounterDevice`]: a perfmon(4)-style counter device (setup, get, start,
//!   stop, reset, read, tstamp) over raw `PERFEVTSEL` encodings.
//! - [`perf_syntax`]: perf's event syntax beside pfmlib's (tracepoints,
//!   `pmu/terms/`, `rNNNN`, perf's generic names, `:u`/`:k`/`:ppp`/... modifiers).
//! - [`Error`]: failures explained with their cause (no hardware PMU in a VM,
//!   `perf_event_paranoid`, seccomp, missing pid, unschedulable group...).
//!
//! ```
//! use pfmlib_perf::{Counter, Options, Target};
//! # fn main() -> Result<(), pfmlib_perf::Error> {
//! let c = Counter::open("task-clock", Target::CallingThread, &Options::default().enabled(true))?;
//! let r = c.read()?;
//! assert!(r.value > 0 && r.scaled() == Some(r.value));
//! # Ok(()) }
//! ```
//!
//! `unsafe` code is denied crate-wide (`#![deny(unsafe_code)]`) and allowed
//! only in the two system-call modules, `sys` and `sys_process`, each block
//! with its `SAFETY:` argument.

#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]

#[cfg(not(target_os = "linux"))]
compile_error!("pfmlib-perf counts with Linux perf_events and builds on Linux only");

mod cgroup;
mod counter;
mod device;
mod env;
mod error;
pub mod kernel;
pub mod perf_syntax;
mod process;
mod set;
#[cfg(feature = "sim")]
pub mod sim;
mod syntax_error;
#[allow(unsafe_code)]
mod sys;
#[allow(unsafe_code)]
mod sys_process;
mod tsc;
mod workload;

pub use cgroup::{Cgroup, CgroupError};
pub use counter::{CountStatus, Counter, Group, Options, ReadPath, Reading, Target};
pub use device::{host_npmc, CounterDevice, Pmc, PmcFlags, Setup, MAX_NPMC};
pub use env::{
    explain_open_error, hardware_pmu, task_is_foreign, Environment, OpenContext, TargetKind,
};
pub use error::{Error, Result};
pub use process::{
    interrupt_process, raise_open_files_limit, terminate_process, wait_child, ChildExit, Interrupt,
};
pub use set::{CounterSet, Scope};
pub use tsc::{tsc_rate, tstamp, RateSource, Tstamp};
pub use workload::{
    inherited_fd, stdout_open_at_start, thousands_separator, ChildWait, HeldChild, SpawnError,
};
