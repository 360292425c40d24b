//! What the kernel and this process allow, and the explanation of
//! `perf_event_open(2)` failures in those terms.

use crate::error::Error;
use pfmlib::{Host, Library};

/// `CAP_SYS_ADMIN` bit in `CapEff`.
const CAP_SYS_ADMIN: u32 = 21;
/// `CAP_PERFMON` bit in `CapEff` (Linux 5.8+).
const CAP_PERFMON: u32 = 38;

/// The facts a `perf_event_open` failure is explained with.
///
/// [`Environment::detect`] reads them through pfmlib's [`Host`]; tests build
/// them by hand to check every explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// `/proc/sys/kernel/perf_event_paranoid`, when readable.
    pub paranoid: Option<i32>,
    /// The process has `CAP_PERFMON` or `CAP_SYS_ADMIN` (root has both).
    pub privileged: bool,
    /// A seccomp filter is installed on this process (`Seccomp: 2`).
    pub seccomp_filter: bool,
    /// The kernel exposes a hardware CPU PMU (`/sys/bus/event_source/devices/cpu`).
    pub hardware_pmu: bool,
}

impl Environment {
    /// The running system's facts, read through the host of
    /// [`Library::global`] (pfmlib's one source of host facts).
    pub fn detect() -> Environment {
        Environment::from_host(Library::global().host())
    }

    /// The facts of `host`: its paranoid level and PMU, and this process's
    /// capabilities and seccomp state from its `/proc/self/status`.
    pub fn from_host(host: &Host) -> Environment {
        let status = host.read_file_now("/proc/self/status").unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.trim().to_string())
        };
        let cap_eff = field("CapEff:")
            .and_then(|v| u64::from_str_radix(&v, 16).ok())
            .unwrap_or(0);
        let privileged = cap_eff & (1 << CAP_SYS_ADMIN) != 0 || cap_eff & (1 << CAP_PERFMON) != 0;
        let seccomp_filter = field("Seccomp:").is_some_and(|v| v == "2");
        Environment {
            paranoid: host.perf_event_paranoid,
            privileged,
            seccomp_filter,
            hardware_pmu: host.kernel_cpu_pmu,
        }
    }
}

/// True when the kernel exposes a hardware CPU PMU.
pub fn hardware_pmu() -> bool {
    Library::global().host().kernel_cpu_pmu
}

/// Whom an open was for, as far as the explanation is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// The calling thread (and its children).
    CallingThread,
    /// Another process or thread.
    Task(i32),
    /// Every task on a CPU.
    Cpu(i32),
}

/// What was being opened when `perf_event_open` failed.
#[derive(Debug, Clone)]
pub struct OpenContext<'a> {
    /// The event as requested.
    pub event: &'a str,
    /// `perf_event_attr.type`.
    pub type_: u32,
    /// `exclude_kernel` was set (user level only).
    pub exclude_kernel: bool,
    /// `exclude_user` was set (kernel level only, `:k`): counting user
    /// level instead would be another event, so it is never advised.
    pub exclude_user: bool,
    /// Whom the event counts.
    pub target: TargetKind,
    /// The event was joining a group.
    pub in_group: bool,
    /// The target task belongs to another user ([`task_is_foreign`]): the
    /// ptrace check refuses it, however the event is changed.
    pub foreign_task: bool,
}

/// Does task `pid` belong to another user: is one of its real, effective or
/// saved user ids (its `/proc/PID/status` `Uid:` line) not this process's
/// real user id? The kernel lets an unprivileged process count only tasks
/// whose three ids are its own (ptrace's "read" access). `false` when
/// either cannot be read.
pub fn task_is_foreign(host: &Host, pid: i32) -> bool {
    let uids = |path: &str| -> Option<Vec<u32>> {
        let status = host.read_file_now(path)?;
        let line = status.lines().find_map(|l| l.strip_prefix("Uid:"))?;
        line.split_whitespace()
            .take(3)
            .map(|v| v.parse().ok())
            .collect()
    };
    match (
        uids("/proc/self/status"),
        uids(&format!("/proc/{pid}/status")),
    ) {
        (Some(me), Some(them)) => me
            .first()
            .is_some_and(|&real| them.iter().any(|&u| u != real)),
        _ => false,
    }
}

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_TYPE_HW_CACHE: u32 = 3;
const PERF_TYPE_RAW: u32 = 4;

/// True for event types counted by the CPU's PMU.
pub(crate) fn needs_cpu_pmu(type_: u32) -> bool {
    matches!(
        type_,
        PERF_TYPE_HARDWARE | PERF_TYPE_HW_CACHE | PERF_TYPE_RAW
    )
}

const PRIV_ADVICE: &str =
    "run as root, give the program CAP_PERFMON (Linux 5.8+; CAP_SYS_ADMIN before)";

/// Turns the errno of a failed `perf_event_open` into an [`Error`] naming
/// the cause.
///
/// ```
/// use pfmlib_perf::{explain_open_error, Environment, Error, OpenContext, TargetKind};
/// let env = Environment { paranoid: Some(2), privileged: false, seccomp_filter: false, hardware_pmu: true };
/// let ctx = OpenContext { event: "cycles", type_: 0, exclude_kernel: false,
///                         exclude_user: false, target: TargetKind::CallingThread,
///                         in_group: false, foreign_task: false };
/// let e = explain_open_error(libc::EACCES, &ctx, &env);
/// assert!(matches!(e, Error::Paranoid { level: 2, .. }));
/// assert!(e.to_string().contains("kernel.perf_event_paranoid"));
/// ```
pub fn explain_open_error(errno: i32, ctx: &OpenContext<'_>, env: &Environment) -> Error {
    let event = ctx.event.to_string();
    let no_pmu = needs_cpu_pmu(ctx.type_) && !env.hardware_pmu;
    match errno {
        libc::ENOENT | libc::EOPNOTSUPP | libc::ENXIO if no_pmu => Error::NoHardwarePmu { event },
        libc::EINVAL if no_pmu => Error::NoHardwarePmu { event },
        libc::ENOENT => Error::NotSupported {
            event,
            reason: "the kernel knows no such event (ENOENT)".into(),
        },
        libc::EOPNOTSUPP => Error::NotSupported {
            event,
            reason: "the PMU cannot count it with these attributes (EOPNOTSUPP)".into(),
        },
        libc::ENXIO => Error::NotSupported {
            event,
            reason: "no such PMU (ENXIO)".into(),
        },
        libc::ENODEV => match ctx.target {
            TargetKind::Cpu(cpu) => Error::NoSuchCpu {
                event,
                cpu: i64::from(cpu),
            },
            _ => Error::NotSupported {
                event,
                reason: "the PMU does not support this (ENODEV)".into(),
            },
        },
        libc::ESRCH => match ctx.target {
            TargetKind::Task(pid) => Error::NoSuchProcess { event, pid },
            _ => Error::NoSuchProcess { event, pid: 0 },
        },
        libc::EMFILE | libc::ENFILE => Error::TooManyFiles { event },
        // ENOSPC: no free counter of the kind the event needs (breakpoints, some PMUs).
        libc::EBUSY | libc::ENOSPC => Error::Busy { event },
        libc::E2BIG => Error::Invalid {
            event,
            detail: "this kernel does not accept the perf_event_attr size (E2BIG)".into(),
        },
        libc::EINVAL => Error::Invalid {
            event,
            detail: match ctx.target {
                TargetKind::Cpu(cpu) => {
                    format!("the attributes are refused, or CPU {cpu} does not exist (EINVAL)")
                }
                _ => "an attribute value or combination is refused (EINVAL)".into(),
            },
        },
        libc::EACCES | libc::EPERM => explain_permission(event, errno, ctx, env),
        libc::ENOSYS => {
            if env.seccomp_filter {
                Error::Seccomp { event }
            } else {
                Error::Unsupported(format!(
                    "{event}: this kernel has no perf_events (built without CONFIG_PERF_EVENTS)"
                ))
            }
        }
        other => Error::os(
            format!("{event}: perf_event_open"),
            std::io::Error::from_raw_os_error(other),
        ),
    }
}

fn explain_permission(
    event: String,
    errno: i32,
    ctx: &OpenContext<'_>,
    env: &Environment,
) -> Error {
    if !env.privileged {
        if let (TargetKind::Task(pid), true) = (ctx.target, ctx.foreign_task) {
            return Error::PermissionDenied {
                event,
                detail: format!(
                    "process {pid} belongs to another user: counting it needs the right to ptrace it (its user, or CAP_PERFMON; {PRIV_ADVICE})"
                ),
            };
        }
        if let Some(level) = env.paranoid {
            // Level 3 is level 2 on kernels without Debian's patch (where
            // it refuses every unprivileged use): the kernel-level causes
            // are named first, as a user-level event may well be allowed.
            let advice = if let (TargetKind::Cpu(_), true) = (ctx.target, level >= 1) {
                Some(format!(
                    "counting every task of a CPU needs kernel.perf_event_paranoid <= 0 (it is {level}): {PRIV_ADVICE}, or sysctl -w kernel.perf_event_paranoid=0"
                ))
            } else if !ctx.exclude_kernel && ctx.exclude_user && level >= 2 {
                Some(format!(
                    "the event counts kernel level only, which needs kernel.perf_event_paranoid <= 1 (it is {level}): {PRIV_ADVICE}, or sysctl -w kernel.perf_event_paranoid=1"
                ))
            } else if !ctx.exclude_kernel && level >= 2 {
                Some(format!(
                    "counting at kernel level needs kernel.perf_event_paranoid <= 1 (it is {level}): count user level only (add :u to the event), {PRIV_ADVICE}, or sysctl -w kernel.perf_event_paranoid=1"
                ))
            } else if level > 2 {
                Some(format!(
                    "kernel.perf_event_paranoid = {level}, which kernels with Debian's patch read as no perf_event_open for unprivileged users: {PRIV_ADVICE}, or lower it: sysctl -w kernel.perf_event_paranoid=2"
                ))
            } else {
                None
            };
            if let Some(advice) = advice {
                return Error::Paranoid {
                    event,
                    level,
                    advice,
                };
            }
        }
        if let TargetKind::Task(pid) = ctx.target {
            return Error::PermissionDenied {
                event,
                detail: format!(
                    "counting process {pid} needs the right to ptrace it (same user and kernel.yama.ptrace_scope allowing it), or CAP_PERFMON"
                ),
            };
        }
    }
    if env.seccomp_filter {
        return Error::Seccomp { event };
    }
    let name = if errno == libc::EPERM {
        "EPERM"
    } else {
        "EACCES"
    };
    Error::PermissionDenied {
        event,
        detail: format!(
            "refused with {name} although kernel.perf_event_paranoid ({}) and the process's privileges allow it: a security module (SELinux, AppArmor, lockdown) or a container runtime is blocking perf_event_open",
            env.paranoid.map_or_else(|| "unreadable".to_string(), |l| l.to_string())
        ),
    }
}
