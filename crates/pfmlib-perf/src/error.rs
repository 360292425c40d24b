//! Errors, each naming a cause a person can act on.

use std::fmt;

/// What stands between a request and a count.
///
/// `perf_event_open(2)` failures are explained with what the kernel and the
/// process look like ([`Environment`](crate::Environment)): no hardware PMU
/// (a VM), an event the kernel or PMU lacks, `perf_event_paranoid`, a seccomp
/// filter, a missing process or CPU, a group that cannot be scheduled.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The event string could not be encoded (unknown event, bad attribute...).
    #[error(transparent)]
    Encode(#[from] pfmlib::Error),

    /// An event string in perf's syntax that cannot be resolved (unknown
    /// PMU, term, alias or tracepoint, bad value or modifier).
    #[error("{event}: {error}")]
    Syntax {
        /// The event as requested.
        event: String,
        /// What is wrong (in the message, not a separate source).
        error: crate::syntax_error::SyntaxError,
    },

    /// An event of a PMU this host does not have: its encoding would count
    /// another event of the host's PMU, so it is never opened.
    #[error("{event}: PMU {pmu} is not present on this host (present: {present}); its events can be encoded (pfm check) but not counted here")]
    PmuNotPresent {
        /// The event as requested.
        event: String,
        /// The event's PMU.
        pmu: String,
        /// The PMUs present on this host, comma-separated.
        present: String,
    },

    /// A hardware, cache or raw event on a kernel without a hardware PMU.
    #[error("{event}: not supported: the kernel exposes no hardware PMU (/sys/bus/event_source/devices/cpu is absent, as in most virtual machines); only software events (task-clock, cpu-clock, page-faults, context-switches, cpu-migrations) can be counted here")]
    NoHardwarePmu {
        /// The event as requested.
        event: String,
    },

    /// The kernel or the PMU does not provide this event or configuration.
    #[error("{event}: not supported by this kernel or PMU: {reason}")]
    NotSupported {
        /// The event as requested.
        event: String,
        /// What the kernel said.
        reason: String,
    },

    /// `kernel.perf_event_paranoid` forbids the request for this process.
    #[error("{event}: {advice}")]
    Paranoid {
        /// The event as requested.
        event: String,
        /// The current value of `/proc/sys/kernel/perf_event_paranoid`.
        level: i32,
        /// What the setting forbids and what to do about it.
        advice: String,
    },

    /// A seccomp filter (typically a container's) refuses `perf_event_open`.
    #[error("{event}: perf_event_open(2) is blocked by a seccomp filter (containers block it by default): run the container with --cap-add PERFMON (or SYS_ADMIN) or a seccomp profile that allows perf_event_open")]
    Seccomp {
        /// The event as requested.
        event: String,
    },

    /// Permission denied for another reason.
    #[error("{event}: permission denied: {detail}")]
    PermissionDenied {
        /// The event as requested.
        event: String,
        /// The likely reason.
        detail: String,
    },

    /// The process or thread to count does not exist.
    #[error("{event}: no such process or thread {pid}")]
    NoSuchProcess {
        /// The event as requested.
        event: String,
        /// The pid or tid.
        pid: i32,
    },

    /// The CPU to count on does not exist or is offline.
    #[error("{event}: CPU {cpu} does not exist or is offline")]
    NoSuchCpu {
        /// The event as requested.
        event: String,
        /// The CPU number as asked for (a `u32` too large for the kernel's
        /// `int` is shown as given, not clamped).
        cpu: i64,
    },

    /// The event opens alone but not in its group: the group can never be
    /// on the PMU's counters at the same time.
    #[error("{event}: the group {{{group}}} can never be scheduled on the PMU's counters together (more events than counters, or conflicting counter constraints): split the group or count fewer events in it")]
    GroupUnschedulable {
        /// The event that could not join.
        event: String,
        /// The group's events, comma-separated.
        group: String,
    },

    /// The kernel refuses the attributes (EINVAL).
    #[error("{event}: invalid event configuration for this kernel: {detail}")]
    Invalid {
        /// The event as requested.
        event: String,
        /// What is known about it.
        detail: String,
    },

    /// Out of file descriptors.
    #[error("{event}: too many open files: raise the limit (ulimit -n) or count fewer events, threads or CPUs")]
    TooManyFiles {
        /// The event as requested.
        event: String,
    },

    /// The PMU is held exclusively by someone else.
    #[error("{event}: the PMU is busy (another user holds it exclusively, or a counter needed is taken)")]
    Busy {
        /// The event as requested.
        event: String,
    },

    /// Another system-call failure.
    #[error("{what}: {source}")]
    Os {
        /// What was being done.
        what: String,
        /// The system error.
        #[source]
        source: std::io::Error,
    },

    /// Counter device: counter number not below NPMC.
    #[error("counter {num} is out of range: this host has {npmc} counters{}", CounterRange(*.npmc))]
    CounterOutOfRange {
        /// The counter number asked for.
        num: usize,
        /// The number of counters (NPMC).
        npmc: usize,
    },

    /// Counter device: the counter has not been set up.
    #[error("counter {num} is not set up: set it up first")]
    NotConfigured {
        /// The counter number.
        num: usize,
    },

    /// Counter device: the operation needs a stopped counter.
    #[error("counter {num} is running: stop it before {op}")]
    Running {
        /// The counter number.
        num: usize,
        /// What was attempted ("resetting it", "setting it up again").
        op: &'static str,
    },

    /// Counter device: the operation needs a running counter.
    #[error("counter {num} is not running")]
    NotRunning {
        /// The counter number.
        num: usize,
    },

    /// Counter device: the setup makes no sense.
    #[error("counter {num}: invalid setup: {reason}")]
    InvalidSetup {
        /// The counter number.
        num: usize,
        /// Why.
        reason: String,
    },

    /// The operation does not exist on this machine (architecture, kernel).
    #[error("{0}")]
    Unsupported(String),
}

struct CounterRange(usize);

impl fmt::Display for CounterRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => write!(f, " (no generic counter known for this CPU)"),
            n => write!(f, " (0-{})", n - 1),
        }
    }
}

impl Error {
    /// True for the errors `perf stat` prints as `<not supported>`: the
    /// event does not exist here (no PMU, unknown to the kernel or PMU, or
    /// attributes the kernel refuses).
    pub fn is_not_supported(&self) -> bool {
        matches!(
            self,
            Error::NoHardwarePmu { .. }
                | Error::NotSupported { .. }
                | Error::Invalid { .. }
                | Error::GroupUnschedulable { .. }
        )
    }

    pub(crate) fn os(what: impl Into<String>, source: std::io::Error) -> Error {
        Error::Os {
            what: what.into(),
            source,
        }
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
