//! Counters and groups over `perf_event_open(2)`.

use crate::env::{explain_open_error, OpenContext, TargetKind};
use crate::error::{Error, Result};
use crate::kernel::{self, Ioctl, Kernel, Real};
use crate::perf_syntax::{self, PerfEvent, Syntax, Tool};
use perf_event_open_sys::bindings as pb;
use pfmlib::{Library, PerfAttr, Plm};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// Whom a counter counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target {
    /// The calling thread, on any CPU (with [`Options::inherit`], also the
    /// threads and processes it creates afterwards).
    CallingThread,
    /// Another process or thread by id, on any CPU.
    Task(i32),
    /// Every task running on one CPU (system-wide counting).
    Cpu(u32),
    /// The tasks of one cgroup while they run on one CPU (`perf stat -G`):
    /// `fd` is an open descriptor of the cgroup's directory, which the
    /// caller keeps open while the counter is opened.
    Cgroup {
        /// The cgroup directory's descriptor.
        fd: i32,
        /// The CPU.
        cpu: u32,
    },
}

/// How counters are opened.
///
/// ```
/// let opts = pfmlib_perf::Options::default().inherit(true).enable_on_exec(true);
/// assert!(opts.inherit && !opts.enabled);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Privilege levels for events that do not say (`:u`, `:k`); default user and kernel.
    pub plm: Plm,
    /// Count the threads and processes the target creates after the open too.
    pub inherit: bool,
    /// Start counting when the target calls `execve` (the leader of a group).
    pub enable_on_exec: bool,
    /// Start counting at once (otherwise call `enable`).
    pub enabled: bool,
    /// Map the counter's user page for the `rdpmc` fast path, where it can apply.
    pub user_page: bool,
    /// When `perf_event_paranoid` forbids kernel-level counting, count user
    /// level only instead of failing (as `perf stat` does).
    pub user_only_fallback: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            plm: Plm::DEFAULT,
            inherit: false,
            enable_on_exec: false,
            enabled: false,
            user_page: true,
            user_only_fallback: false,
        }
    }
}

impl Options {
    /// Sets [`Options::plm`].
    pub fn plm(mut self, plm: Plm) -> Options {
        self.plm = plm;
        self
    }
    /// Sets [`Options::inherit`].
    pub fn inherit(mut self, on: bool) -> Options {
        self.inherit = on;
        self
    }
    /// Sets [`Options::enable_on_exec`].
    pub fn enable_on_exec(mut self, on: bool) -> Options {
        self.enable_on_exec = on;
        self
    }
    /// Sets [`Options::enabled`].
    pub fn enabled(mut self, on: bool) -> Options {
        self.enabled = on;
        self
    }
    /// Sets [`Options::user_page`].
    pub fn user_page(mut self, on: bool) -> Options {
        self.user_page = on;
        self
    }
    /// Sets [`Options::user_only_fallback`].
    pub fn user_only_fallback(mut self, on: bool) -> Options {
        self.user_only_fallback = on;
        self
    }
}

/// One read of a counter: the raw count and how long the counter was
/// enabled and actually on the PMU (they differ when the kernel multiplexes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Reading {
    /// Raw count, while on the PMU.
    pub value: u64,
    /// Nanoseconds the counter was enabled.
    pub time_enabled: u64,
    /// Nanoseconds the counter was on the PMU.
    pub time_running: u64,
}

/// Whether a reading is a count, an estimate, or nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CountStatus {
    /// On the PMU the whole time it was enabled: the value is exact.
    Counted,
    /// On the PMU part of the time: the value is scaled; `running_pct` of the time counted.
    Multiplexed {
        /// Percentage of the enabled time the counter ran.
        running_pct: f64,
    },
    /// Never on the PMU (or never enabled): there is no count, not a zero.
    NotCounted,
}

impl Reading {
    /// A reading of `value` over `time_enabled` nanoseconds, `time_running` of them on the PMU.
    pub const fn new(value: u64, time_enabled: u64, time_running: u64) -> Reading {
        Reading {
            value,
            time_enabled,
            time_running,
        }
    }

    /// The count scaled to the whole enabled time (`value × enabled / running`),
    /// `None` when the counter never ran (`<not counted>`, not zero).
    ///
    /// ```
    /// use pfmlib_perf::Reading;
    /// let r = Reading::new(100, 200, 50);
    /// assert_eq!(r.scaled(), Some(400));
    /// assert_eq!(Reading::new(0, 10, 0).scaled(), None);
    /// ```
    pub fn scaled(&self) -> Option<u64> {
        if self.time_running == 0 || self.time_enabled == 0 {
            return None;
        }
        if self.time_running >= self.time_enabled {
            return Some(self.value);
        }
        let v =
            u128::from(self.value) * u128::from(self.time_enabled) / u128::from(self.time_running);
        Some(u64::try_from(v).unwrap_or(u64::MAX))
    }

    /// Exact, scaled, or not counted.
    pub fn status(&self) -> CountStatus {
        if self.time_running == 0 || self.time_enabled == 0 {
            CountStatus::NotCounted
        } else if self.time_running < self.time_enabled {
            CountStatus::Multiplexed {
                running_pct: self.time_running as f64 * 100.0 / self.time_enabled as f64,
            }
        } else {
            CountStatus::Counted
        }
    }

    /// Adds another reading (aggregation over CPUs or threads, as perf does).
    pub fn accumulate(&mut self, other: &Reading) {
        self.value = self.value.saturating_add(other.value);
        self.time_enabled = self.time_enabled.saturating_add(other.time_enabled);
        self.time_running = self.time_running.saturating_add(other.time_running);
    }
}

/// Which way [`Counter::read_value`] got its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadPath {
    /// `rdpmc` through the mmap'd user page, no system call.
    Rdpmc,
    /// `read(2)` on the event's descriptor.
    Syscall,
}

const FORMAT_SINGLE: u64 = (pb::PERF_FORMAT_TOTAL_TIME_ENABLED
    | pb::PERF_FORMAT_TOTAL_TIME_RUNNING
    | pb::PERF_FORMAT_ID) as u64;
const FORMAT_GROUP: u64 = FORMAT_SINGLE | pb::PERF_FORMAT_GROUP as u64;

/// One open perf event.
///
/// Closed when dropped. A counter of the calling thread (not inherited)
/// can be read without a system call through `rdpmc` where the kernel allows
/// it ([`Counter::read_value`]). `K` is the kernel it counts on: the running
/// one by default ([`kernel`](crate::kernel)).
#[derive(Debug)]
pub struct Counter<K: Kernel = Real> {
    kernel: K,
    name: String,
    attr: PerfAttr,
    event: K::Event,
    id: u64,
    pid: i32,
    cpu: i32,
    inherit: bool,
    read_format: u64,
    /// The thread this counter counts, when that is the opener's own thread.
    owner_tid: Option<i32>,
    page: Option<K::Page>,
    user_only: bool,
    cgroup: bool,
    tool: Option<Tool>,
    clock: ToolClock,
}

/// Wall-clock time between enables and disables, for tool events
/// (`duration_time`): nanoseconds since [`epoch`], 0 when stopped.
#[derive(Debug, Default)]
struct ToolClock {
    started: AtomicU64,
    total: AtomicU64,
}

/// A fixed instant the tool clocks count from.
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_ns() -> u64 {
    u64::try_from(epoch().elapsed().as_nanos())
        .unwrap_or(u64::MAX)
        .max(1)
}

impl ToolClock {
    fn start(&self) {
        let _ = self
            .started
            .compare_exchange(0, now_ns(), Ordering::SeqCst, Ordering::SeqCst);
    }

    fn stop(&self) {
        let t0 = self.started.swap(0, Ordering::SeqCst);
        if t0 != 0 {
            self.total
                .fetch_add(now_ns().saturating_sub(t0), Ordering::SeqCst);
        }
    }

    fn read(&self) -> u64 {
        let t0 = self.started.load(Ordering::SeqCst);
        let running = if t0 == 0 {
            0
        } else {
            now_ns().saturating_sub(t0)
        };
        self.total.load(Ordering::SeqCst).saturating_add(running)
    }
}

/// Where a counter is opened: `(pid, cpu)` for the kernel.
fn resolve(target: Target, enc_cpu: Option<i32>, event: &str) -> Result<(i32, i32, TargetKind)> {
    Ok(match (target, enc_cpu) {
        (Target::CallingThread, None) => (0, -1, TargetKind::CallingThread),
        (Target::CallingThread, Some(c)) => (0, c, TargetKind::CallingThread),
        (Target::Task(pid), None) => {
            if pid <= 0 {
                return Err(Error::NoSuchProcess {
                    event: event.to_string(),
                    pid,
                });
            }
            (pid, -1, TargetKind::Task(pid))
        }
        (Target::Task(pid), Some(c)) => (pid, c, TargetKind::Task(pid)),
        (Target::Cpu(cpu), enc) => {
            let cpu = i32::try_from(cpu).map_err(|_| Error::NoSuchCpu {
                event: event.to_string(),
                cpu: i64::from(cpu),
            })?;
            if let Some(c) = enc {
                if c != cpu {
                    return Err(Error::Invalid {
                        event: event.to_string(),
                        detail: format!("the event asks for cpu={c} but counting is on CPU {cpu}"),
                    });
                }
            }
            (-1, cpu, TargetKind::Cpu(cpu))
        }
        (Target::Cgroup { fd, cpu }, enc) => {
            let (_, cpu, kind) = resolve(Target::Cpu(cpu), enc, event)?;
            (fd, cpu, kind)
        }
    })
}

impl Counter {
    /// Opens `event` for `target`, with the library of the running machine:
    /// any string pfmlib encodes (hardware, cache, raw, software) or perf's
    /// syntax ([`perf_syntax`]: tracepoints, `pmu/terms/`, `rNNNN`, perf's
    /// generic names and modifiers).
    ///
    /// ```
    /// use pfmlib_perf::{Counter, Options, Target};
    /// # fn main() -> Result<(), pfmlib_perf::Error> {
    /// let c = Counter::open("page-faults", Target::CallingThread, &Options::default())?;
    /// c.enable()?;
    /// let v: Vec<u8> = vec![1; 1 << 20]; // touch some pages
    /// c.disable()?;
    /// assert!(c.read()?.value > 0 && v[0] == 1);
    /// # Ok(()) }
    /// ```
    pub fn open(event: &str, target: Target, opts: &Options) -> Result<Counter> {
        Counter::open_with(Library::global(), event, target, opts)
    }

    /// [`Counter::open`] with a given library (for instance for another host's tables).
    pub fn open_with(
        lib: &Library,
        event: &str,
        target: Target,
        opts: &Options,
    ) -> Result<Counter> {
        Counter::open_on(&Real, lib, event, target, opts)
    }

    /// Opens a `perf_event_attr` built elsewhere; `name` is for messages.
    /// `cpu` pins a task counter to one CPU (the `cpu=` attribute).
    pub fn open_perf_attr(
        name: &str,
        attr: &PerfAttr,
        cpu: Option<i32>,
        target: Target,
        opts: &Options,
    ) -> Result<Counter> {
        let ev = PerfEvent::from_attr(name, Syntax::Pfmlib, *attr, cpu);
        Counter::open_attr(&Real, &ev, cpu, target, opts, None, FORMAT_SINGLE)
    }

    /// The user page's capability and time fields, when the page is mapped.
    pub(crate) fn user_page_snapshot(&self) -> Option<kernel::PageSnapshot> {
        self.page.as_ref().map(kernel::snapshot)
    }
}

impl<K: Kernel> Counter<K> {
    /// [`Counter::open_with`] on a given kernel (for instance a simulated one).
    pub fn open_on(
        kernel: &K,
        lib: &Library,
        event: &str,
        target: Target,
        opts: &Options,
    ) -> Result<Counter<K>> {
        let ev = perf_syntax::resolve_one(lib, event, opts.plm)?;
        Counter::open_attr(kernel, &ev, ev.cpu, target, opts, None, FORMAT_SINGLE)
    }

    /// Opens `event` as a member of the group led by `leader`, on the
    /// leader's target and kernel; the member follows the leader's enable state.
    pub fn open_member(
        lib: &Library,
        leader: &Counter<K>,
        event: &str,
        opts: &Options,
    ) -> Result<Counter<K>> {
        let mut ev = perf_syntax::resolve_one(lib, event, opts.plm)?;
        // The kernel pins or isolates whole groups through their leader
        // only; a member asking for it (`{a,b}:D`) follows the leader, as in perf.
        ev.attr.pinned = false;
        ev.attr.exclusive = false;
        let cpu = ev.cpu;
        let (target, enc_cpu) = match leader.target() {
            Target::Cpu(c) => (Target::Cpu(c), cpu),
            t @ Target::Cgroup { .. } => (t, cpu),
            t => {
                let leader_cpu = (leader.cpu != -1).then_some(leader.cpu);
                if cpu.is_some() && cpu != leader_cpu {
                    return Err(Error::Invalid {
                        event: event.to_string(),
                        detail: "a group member cannot ask for another CPU than its leader".into(),
                    });
                }
                (t, leader_cpu)
            }
        };
        let k = &leader.kernel;
        let r = Counter::open_attr(k, &ev, enc_cpu, target, opts, Some(leader), FORMAT_GROUP);
        match r {
            Err(Error::Invalid { .. }) => {
                // Does it open alone? Then it is the group that cannot be scheduled.
                let alone = Counter::open_attr(
                    k,
                    &ev,
                    enc_cpu,
                    target,
                    &opts.enabled(false),
                    None,
                    FORMAT_SINGLE,
                );
                match alone {
                    Ok(_) => Err(Error::GroupUnschedulable {
                        event: event.to_string(),
                        group: format!("{},{}", leader.name, event),
                    }),
                    Err(e) => Err(e),
                }
            }
            other => other,
        }
    }

    fn open_attr(
        kernel: &K,
        ev: &PerfEvent,
        enc_cpu: Option<i32>,
        target: Target,
        opts: &Options,
        leader: Option<&Counter<K>>,
        read_format: u64,
    ) -> Result<Counter<K>> {
        let name = ev.name.as_str();
        let (pid, cpu, kind) = resolve(target, enc_cpu, name)?;
        let cgroup = matches!(target, Target::Cgroup { .. });
        let flags = if cgroup {
            pb::PERF_FLAG_PID_CGROUP as u64
        } else {
            0
        };
        let mut attr = ev.attr;
        if ev.precise_max {
            attr.precise_ip = kernel.max_precise_ip();
        }
        let mut user_only = false;
        let inherit = opts.inherit && pid != -1 && !cgroup;
        // `:S` asks for PERF_SAMPLE_READ; it changes nothing to a count, so
        // a kernel that refuses it with inheritance (before 6.12) counts without it.
        let mut sample_read = ev.sample_read;
        attr.read_format = read_format;
        attr.exclude_idle |= ev.exclude_idle;
        let sample_type = attr.sample_type;
        let event = loop {
            attr.sample_type = if sample_read {
                sample_type | pb::PERF_SAMPLE_READ | pb::PERF_SAMPLE_TID
            } else {
                sample_type
            };
            let mut k = attr.to_kernel();
            match leader {
                // Members follow the leader: enabled, no enable-on-exec of their own.
                Some(_) => k.set_disabled(0),
                None => {
                    k.set_disabled(u64::from(!opts.enabled));
                    k.set_enable_on_exec(u64::from(opts.enable_on_exec && pid != -1 && !cgroup));
                }
            }
            k.set_inherit(u64::from(inherit));
            let group = leader.map(|l| &l.event);
            match kernel.open(&mut k, pid, cpu, group, flags) {
                Ok(f) => break f,
                Err(libc::EINVAL) if sample_read && inherit => sample_read = false,
                Err(errno) => {
                    let ctx = OpenContext {
                        event: name,
                        type_: attr.type_,
                        exclude_kernel: attr.exclude_kernel,
                        exclude_user: attr.exclude_user,
                        target: kind,
                        in_group: leader.is_some(),
                        foreign_task: match kind {
                            TargetKind::Task(pid) => kernel.task_is_foreign(pid),
                            _ => false,
                        },
                    };
                    let e = explain(kernel, errno, &ctx, cpu);
                    // User level only, and only where the event counts
                    // user level at all: a `:k` event retried without the
                    // kernel would count nothing and show a made-up 0.
                    if opts.user_only_fallback
                        && !attr.exclude_kernel
                        && !attr.exclude_user
                        && matches!(e, Error::Paranoid { .. })
                    {
                        attr.exclude_kernel = true;
                        attr.exclude_hv = true;
                        user_only = true;
                        continue;
                    }
                    return Err(e);
                }
            }
        };
        let id = kernel
            .id(&event)
            .map_err(|e| Error::os(format!("{name}: PERF_EVENT_IOC_ID"), e))?;
        let own_thread = pid == 0 && cpu == -1 && !cgroup;
        let owner_tid = own_thread.then(|| kernel.gettid());
        // The fast path reads the hardware counter of this thread only:
        // never for other tasks, CPUs, or inherited counts.
        let page = if opts.user_page && own_thread && !inherit {
            kernel.map_page(&event).ok()
        } else {
            None
        };
        Ok(Counter {
            kernel: kernel.clone(),
            name: name.to_string(),
            attr,
            event,
            id,
            pid,
            cpu,
            inherit,
            read_format,
            owner_tid,
            page,
            user_only,
            cgroup,
            tool: ev.tool,
            clock: ToolClock::default(),
        })
    }

    /// The event as requested.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `perf_event_attr` fields the counter was opened with.
    pub fn attr(&self) -> &PerfAttr {
        &self.attr
    }

    /// The kernel's id of the event.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// True when kernel-level counting was refused and the counter counts
    /// user level only ([`Options::user_only_fallback`]).
    pub fn user_only(&self) -> bool {
        self.user_only
    }

    /// Whom the counter counts.
    pub fn target(&self) -> Target {
        if self.cgroup {
            Target::Cgroup {
                fd: self.pid,
                cpu: self.cpu.max(0) as u32,
            }
        } else if self.pid == -1 {
            Target::Cpu(self.cpu.max(0) as u32)
        } else if self.pid == 0 {
            Target::CallingThread
        } else {
            Target::Task(self.pid)
        }
    }

    /// Counts also the tasks created by the target after the open.
    pub fn inherits(&self) -> bool {
        self.inherit
    }

    fn ioctl(&self, op: Ioctl, group: bool, what: &str) -> Result<()> {
        self.kernel
            .ioctl(&self.event, op, group)
            .map_err(|e| Error::os(format!("{}: {what}", self.name), e))
    }

    /// Starts counting.
    pub fn enable(&self) -> Result<()> {
        self.tool_start();
        self.ioctl(Ioctl::Enable, false, "enable")
    }

    /// Stops counting (the count is kept).
    pub fn disable(&self) -> Result<()> {
        self.tool_stop();
        self.ioctl(Ioctl::Disable, false, "disable")
    }

    /// Starts a tool event's clock (counters started at exec: just before it).
    pub(crate) fn tool_start(&self) {
        if self.tool.is_some() {
            self.clock.start();
        }
    }

    /// Stops a tool event's clock.
    pub(crate) fn tool_stop(&self) {
        if self.tool.is_some() {
            self.clock.stop();
        }
    }

    /// Sets the count to zero (the enabled and running times are kept).
    pub fn reset(&self) -> Result<()> {
        self.ioctl(Ioctl::Reset, false, "reset")
    }

    /// Reads the count and times with `read(2)`; with inheritance, the
    /// count includes the children (finished or not).
    pub fn read(&self) -> Result<Reading> {
        let words = read_words(&self.kernel, &self.event, &self.name)?;
        if self.read_format & pb::PERF_FORMAT_GROUP as u64 != 0 {
            let g = parse_group(&words, &self.name)?;
            let value = g
                .values
                .iter()
                .find(|(_, id)| *id == self.id)
                .map(|(v, _)| *v)
                .ok_or_else(|| short_read(&self.name))?;
            Ok(self.tool_value(Reading {
                value,
                time_enabled: g.time_enabled,
                time_running: g.time_running,
            }))
        } else {
            match words.as_slice() {
                [value, time_enabled, time_running, ..] => Ok(self.tool_value(Reading {
                    value: *value,
                    time_enabled: *time_enabled,
                    time_running: *time_running,
                })),
                _ => Err(short_read(&self.name)),
            }
        }
    }

    /// A tool event's value in place of its (dummy) count: for
    /// `duration_time`, the wall-clock nanoseconds between enables and
    /// disables, counted whole (never scaled).
    fn tool_value(&self, r: Reading) -> Reading {
        match self.tool {
            Some(Tool::DurationTime) => {
                let ns = self.clock.read();
                Reading {
                    value: ns,
                    time_enabled: ns,
                    time_running: ns,
                }
            }
            None => r,
        }
    }

    /// The value perf computes itself in place of a count, if any (`duration_time`).
    pub fn tool(&self) -> Option<Tool> {
        self.tool
    }

    /// True when [`Counter::read_value`] can use `rdpmc` now: the counter
    /// counts the calling thread, is not inherited, its user page is mapped
    /// and the kernel advertises `cap_user_rdpmc`.
    pub fn rdpmc_allowed(&self) -> bool {
        self.fast_path_page()
            .is_some_and(|p| kernel::snapshot(p).cap_user_rdpmc)
    }

    fn fast_path_page(&self) -> Option<&K::Page> {
        let page = self.page.as_ref()?;
        let owner = self.owner_tid?;
        // Only from the very thread being counted: another thread's rdpmc
        // would read its own CPU's counter, not this event's.
        (owner == self.kernel.gettid()).then_some(page)
    }

    /// The raw count, through `rdpmc` when [`Counter::rdpmc_allowed`] and the
    /// event is on a hardware counter right now, otherwise through `read(2)`;
    /// both give the same value.
    pub fn read_value(&self) -> Result<(u64, ReadPath)> {
        if let Some(v) = self.fast_path_page().and_then(kernel::read_rdpmc) {
            return Ok((v, ReadPath::Rdpmc));
        }
        Ok((self.read()?.value, ReadPath::Syscall))
    }
}

/// Why `perf_event_open` failed with `errno` on `cpu` (-1: any).
fn explain<K: Kernel>(kernel: &K, errno: i32, ctx: &OpenContext<'_>, cpu: i32) -> Error {
    // The CPU of `-C` / a CPU target, or of the event's own `cpu=`
    // attribute: a missing one is the same clear error.
    if cpu >= 0 && matches!(errno, libc::EINVAL | libc::ENODEV) && !kernel.cpu_exists(cpu) {
        return Error::NoSuchCpu {
            event: ctx.event.to_string(),
            cpu: i64::from(cpu),
        };
    }
    explain_open_error(errno, ctx, &kernel.environment())
}

fn short_read(name: &str) -> Error {
    Error::os(
        format!("{name}: read"),
        std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "short or malformed read from the perf event",
        ),
    )
}

fn read_words<K: Kernel>(kernel: &K, event: &K::Event, name: &str) -> Result<Vec<u64>> {
    let mut len = 8 * (3 + 2 * 16);
    loop {
        let mut buf = vec![0u8; len];
        match kernel.read(event, &mut buf) {
            Ok(n) => {
                return Ok(buf[..n - n % 8]
                    .chunks_exact(8)
                    .map(|c| {
                        let mut b = [0u8; 8];
                        b.copy_from_slice(c);
                        u64::from_ne_bytes(b)
                    })
                    .collect())
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) && len < (1 << 20) => len *= 4,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::os(format!("{name}: read"), e)),
        }
    }
}

struct GroupWords {
    time_enabled: u64,
    time_running: u64,
    values: Vec<(u64, u64)>,
}

fn parse_group(words: &[u64], name: &str) -> Result<GroupWords> {
    let (nr, time_enabled, time_running, rest) = match words {
        [nr, e, r, rest @ ..] => (*nr, *e, *r, rest),
        _ => return Err(short_read(name)),
    };
    let nr = usize::try_from(nr).map_err(|_| short_read(name))?;
    if rest.len() / 2 < nr {
        return Err(short_read(name));
    }
    Ok(GroupWords {
        time_enabled,
        time_running,
        values: rest
            .chunks_exact(2)
            .take(nr)
            .map(|c| (c[0], c[1]))
            .collect(),
    })
}

/// A leader and members scheduled on the PMU together and read with one
/// `read(2)`.
#[derive(Debug)]
pub struct Group<K: Kernel = Real> {
    counters: Vec<Counter<K>>,
}

impl Group {
    /// Opens `events` as one group for `target` (the first is the leader).
    ///
    /// ```
    /// use pfmlib_perf::{Group, Options, Target};
    /// # fn main() -> Result<(), pfmlib_perf::Error> {
    /// let g = Group::open(&["task-clock", "page-faults"], Target::CallingThread, &Options::default())?;
    /// g.enable()?;
    /// let v: Vec<u8> = vec![1; 1 << 20];
    /// g.disable()?;
    /// let r = g.read()?;
    /// assert!(r[0].value > 0 && r[1].value > 0 && v[0] == 1);
    /// assert_eq!(r[0].time_enabled, r[1].time_enabled); // one read, one set of times
    /// # Ok(()) }
    /// ```
    pub fn open(events: &[&str], target: Target, opts: &Options) -> Result<Group> {
        Group::open_with(Library::global(), events, target, opts)
    }

    /// [`Group::open`] with a given library.
    pub fn open_with(
        lib: &Library,
        events: &[&str],
        target: Target,
        opts: &Options,
    ) -> Result<Group> {
        Group::open_on(&Real, lib, events, target, opts)
    }
}

impl<K: Kernel> Group<K> {
    /// [`Group::open_with`] on a given kernel (for instance a simulated one).
    pub fn open_on(
        kernel: &K,
        lib: &Library,
        events: &[&str],
        target: Target,
        opts: &Options,
    ) -> Result<Group<K>> {
        let (first, rest) = events.split_first().ok_or_else(|| Error::Invalid {
            event: String::new(),
            detail: "a group needs at least one event".into(),
        })?;
        let leader = open_leader(kernel, lib, first, target, opts)?;
        let mut counters = vec![leader];
        for ev in rest {
            let m = Counter::open_member(lib, &counters[0], ev, opts).map_err(|e| match e {
                Error::GroupUnschedulable { event, .. } => Error::GroupUnschedulable {
                    event,
                    group: events.join(","),
                },
                other => other,
            })?;
            counters.push(m);
        }
        Ok(Group { counters })
    }

    /// The counters, leader first.
    pub fn counters(&self) -> &[Counter<K>] {
        &self.counters
    }

    /// The leader.
    pub fn leader(&self) -> &Counter<K> {
        &self.counters[0]
    }

    /// Starts the whole group.
    pub fn enable(&self) -> Result<()> {
        self.counters.iter().for_each(Counter::tool_start);
        self.leader().ioctl(Ioctl::Enable, true, "enable group")
    }

    /// Stops the whole group.
    pub fn disable(&self) -> Result<()> {
        self.counters.iter().for_each(Counter::tool_stop);
        self.leader().ioctl(Ioctl::Disable, true, "disable group")
    }

    /// Zeroes every count of the group.
    pub fn reset(&self) -> Result<()> {
        self.leader().ioctl(Ioctl::Reset, true, "reset group")
    }

    /// Reads every counter with one `read(2)` on the leader, in counter
    /// order; all readings share the group's enabled and running times.
    pub fn read(&self) -> Result<Vec<Reading>> {
        read_group(&self.counters)
    }
}

/// Opens `event` as the leader of a new group (group read format).
pub(crate) fn open_leader<K: Kernel>(
    kernel: &K,
    lib: &Library,
    event: &str,
    target: Target,
    opts: &Options,
) -> Result<Counter<K>> {
    let ev = perf_syntax::resolve_one(lib, event, opts.plm)?;
    Counter::open_attr(kernel, &ev, ev.cpu, target, opts, None, FORMAT_GROUP)
}

/// Issues `op` on the whole group `counters` (leader first), starting or
/// stopping their tool clocks with it.
pub(crate) fn group_ioctl<K: Kernel>(counters: &[Counter<K>], op: Ioctl) -> Result<()> {
    let Some(leader) = counters.first() else {
        return Ok(());
    };
    match op {
        Ioctl::Enable => counters.iter().for_each(Counter::tool_start),
        Ioctl::Disable => counters.iter().for_each(Counter::tool_stop),
        _ => {}
    }
    leader.ioctl(op, true, "group ioctl")
}

/// Reads `counters` (a leader followed by its members) with one read.
pub(crate) fn read_group<K: Kernel>(counters: &[Counter<K>]) -> Result<Vec<Reading>> {
    let Some(leader) = counters.first() else {
        return Ok(Vec::new());
    };
    let words = read_words(&leader.kernel, &leader.event, &leader.name)?;
    let g = parse_group(&words, &leader.name)?;
    counters
        .iter()
        .map(|c| {
            g.values
                .iter()
                .find(|(_, id)| *id == c.id)
                .map(|(v, _)| {
                    c.tool_value(Reading {
                        value: *v,
                        time_enabled: g.time_enabled,
                        time_running: g.time_running,
                    })
                })
                .ok_or_else(|| short_read(&c.name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_words_are_checked() {
        assert!(parse_group(&[], "x").is_err());
        assert!(parse_group(&[2, 10, 10, 5, 1], "x").is_err());
        let g = parse_group(&[2, 10, 5, 7, 1, 8, 2], "x").unwrap();
        assert_eq!(g.values, vec![(7, 1), (8, 2)]);
        assert_eq!((g.time_enabled, g.time_running), (10, 5));
        assert!(parse_group(&[u64::MAX, 0, 0], "x").is_err());
    }

    #[test]
    fn scaling_and_status() {
        let r = Reading {
            value: 10,
            time_enabled: 100,
            time_running: 100,
        };
        assert_eq!(r.status(), CountStatus::Counted);
        let m = Reading {
            value: 10,
            time_enabled: 100,
            time_running: 25,
        };
        assert_eq!(m.scaled(), Some(40));
        assert_eq!(m.status(), CountStatus::Multiplexed { running_pct: 25.0 });
        let n = Reading {
            value: 0,
            time_enabled: 100,
            time_running: 0,
        };
        assert_eq!(n.scaled(), None);
        assert_eq!(n.status(), CountStatus::NotCounted);
        let big = Reading {
            value: u64::MAX,
            time_enabled: u64::MAX,
            time_running: 1,
        };
        assert_eq!(big.scaled(), Some(u64::MAX));
    }

    #[test]
    fn bad_targets_are_refused() {
        assert!(matches!(
            resolve(Target::Task(0), None, "e"),
            Err(Error::NoSuchProcess { pid: 0, .. })
        ));
        assert!(matches!(
            resolve(Target::Cpu(u32::MAX), None, "e"),
            Err(Error::NoSuchCpu {
                cpu: 4_294_967_295,
                ..
            })
        ));
        assert!(matches!(
            resolve(Target::Cpu(1), Some(2), "e"),
            Err(Error::Invalid { .. })
        ));
        assert_eq!(
            resolve(Target::CallingThread, None, "e").unwrap(),
            (0, -1, TargetKind::CallingThread)
        );
    }
}
