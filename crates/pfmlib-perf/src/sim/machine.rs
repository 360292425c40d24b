//! The simulated machine's state: its configuration, the open events, the
//! PMU's counters and how events are put on them.

use crate::kernel::{Ioctl, KernelAttr, CAP_USER_RDPMC, CAP_USER_TIME};
use perf_event_open_sys::bindings as pb;
use std::collections::VecDeque;

/// What the simulated machine looks like.
///
/// ```
/// let cfg = pfmlib_perf::sim::SimConfig::default().counters(2).paranoid(2).privileged(false);
/// assert_eq!((cfg.counters, cfg.paranoid, cfg.privileged), (2, 2, false));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SimConfig {
    /// The kernel exposes a hardware PMU (otherwise hardware, cache and raw
    /// events fail with `ENOENT`, as in most virtual machines).
    pub hardware_pmu: bool,
    /// General-purpose hardware counters.
    pub counters: usize,
    /// Width of the hardware counters in bits.
    pub pmc_width: u16,
    /// The user page advertises `cap_user_rdpmc` for hardware events.
    pub rdpmc: bool,
    /// Online CPUs (0 to `cpus - 1`).
    pub cpus: u32,
    /// `kernel.perf_event_paranoid`.
    pub paranoid: i32,
    /// The process has `CAP_PERFMON` (the paranoid level does not apply).
    pub privileged: bool,
    /// The highest `precise_ip` the PMU takes.
    pub max_precise: u8,
    /// Refuse at open a group that can never fit the counters (`EINVAL`,
    /// as x86 does); otherwise accept it and never schedule it.
    pub validate_groups: bool,
    /// Accept `PERF_SAMPLE_READ` with inheritance (Linux 6.12+).
    pub sample_read_inherit: bool,
    /// A hybrid machine: two core PMUs (`None`: one CPU PMU).
    pub hybrid: Option<SimHybrid>,
    /// The `perf_event_attr.type` of each uncore PMU instance, in order
    /// (`uncore_imc_0`, `uncore_imc_1`...): as the kernel's uncore drivers,
    /// an event of one opens only system-wide (pid -1) on a CPU and with
    /// no level excluded (otherwise `EINVAL`), and counts whatever runs;
    /// the instance at position `k` counts `k + 1` per 100 ns.
    pub uncore_types: Vec<u32>,
}

/// The two core PMUs of a hybrid machine (Intel's `cpu_core` and
/// `cpu_atom`): CPUs `0..core_cpus` are performance cores, the others
/// efficiency cores. An event belongs to the performance-core PMU when its
/// type is `core_type`, or it is a generic hardware or cache event with
/// `core_type` in `config` bits 32-63 (or none: the legacy form), or a raw
/// one; to the efficiency-core PMU likewise with `atom_type`. Opened on a
/// CPU of the other kind it fails with `ENOENT`; opened on a task, it counts
/// only while the task runs on its kind of core: `core_percent` of the time
/// on performance cores, the rest on efficiency cores.
///
/// ```
/// use pfmlib_perf::sim::{SimConfig, SimHybrid};
/// let cfg = SimConfig::default().cpus(6).hybrid(SimHybrid::new(8, 10, 4, 75));
/// assert_eq!(cfg.hybrid.unwrap().atom_type, 10);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SimHybrid {
    /// `perf_event_attr.type` of the performance-core PMU.
    pub core_type: u32,
    /// `perf_event_attr.type` of the efficiency-core PMU.
    pub atom_type: u32,
    /// How many CPUs, from 0, are performance cores.
    pub core_cpus: u32,
    /// Share of a task's time on performance cores, in percent (0-100).
    pub core_percent: u64,
}

impl SimHybrid {
    /// Two core PMUs of types `core_type` and `atom_type`, the first
    /// `core_cpus` CPUs performance cores, tasks on them `core_percent`% of
    /// the time.
    pub fn new(core_type: u32, atom_type: u32, core_cpus: u32, core_percent: u64) -> SimHybrid {
        SimHybrid {
            core_type,
            atom_type,
            core_cpus,
            core_percent: core_percent.min(100),
        }
    }

    /// Which core PMU an event of `type_`/`config` belongs to, if any
    /// (`Err`: a generic event naming a PMU that is neither).
    fn pmu_of(&self, type_: u32, config: u64) -> Result<Option<CoreKind>, i32> {
        let by_type = |t: u32| match t {
            t if t == self.core_type => Some(CoreKind::Performance),
            t if t == self.atom_type => Some(CoreKind::Efficiency),
            _ => None,
        };
        match type_ {
            pb::PERF_TYPE_HARDWARE | pb::PERF_TYPE_HW_CACHE => match (config >> 32) as u32 {
                0 => Ok(Some(CoreKind::Performance)),
                t => by_type(t).map(Some).ok_or(libc::ENOENT),
            },
            pb::PERF_TYPE_RAW => Ok(by_type(type_).or(Some(CoreKind::Performance))),
            t => Ok(by_type(t)),
        }
    }

    /// Does `cpu` belong to `kind`?
    fn has_cpu(&self, kind: CoreKind, cpu: u32) -> bool {
        (cpu < self.core_cpus) == (kind == CoreKind::Performance)
    }

    /// Percent of a task's time on `kind`.
    fn percent(&self, kind: CoreKind) -> u64 {
        match kind {
            CoreKind::Performance => self.core_percent,
            CoreKind::Efficiency => 100 - self.core_percent,
        }
    }
}

/// A kind of core of a hybrid machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CoreKind {
    Performance,
    Efficiency,
}

impl Default for SimConfig {
    /// A machine with a PMU of 4 counters 48 bits wide, `rdpmc` allowed,
    /// 4 CPUs, a privileged process.
    fn default() -> SimConfig {
        SimConfig {
            hardware_pmu: true,
            counters: 4,
            pmc_width: 48,
            rdpmc: true,
            cpus: 4,
            paranoid: 2,
            privileged: true,
            max_precise: 3,
            validate_groups: true,
            sample_read_inherit: false,
            hybrid: None,
            uncore_types: Vec::new(),
        }
    }
}

impl SimConfig {
    /// Makes the machine hybrid (see [`SimHybrid`]).
    pub fn hybrid(mut self, h: SimHybrid) -> SimConfig {
        self.hybrid = Some(h);
        self
    }
}

macro_rules! setters {
    ($($field:ident: $t:ty),* $(,)?) => {
        impl SimConfig {
            $(
                #[doc = concat!("Sets [`SimConfig::", stringify!($field), "`].")]
                pub fn $field(mut self, v: $t) -> SimConfig {
                    self.$field = v;
                    self
                }
            )*
        }
    };
}

setters!(
    hardware_pmu: bool,
    counters: usize,
    pmc_width: u16,
    rdpmc: bool,
    cpus: u32,
    paranoid: i32,
    privileged: bool,
    max_precise: u8,
    validate_groups: bool,
    sample_read_inherit: bool,
    uncore_types: Vec<u32>,
);

/// The first pid [`Machine::spawn_task`] gives.
const FIRST_PID: i32 = 1000;
/// The first event id.
const FIRST_ID: u64 = 0x100;
/// How far below the top of the counter range a counter starts (its raw
/// value has the top bit set, so reading it needs the sign extension).
const START_BELOW_TOP: u64 = 1 << 24;

/// One open (or closed) event.
#[derive(Debug, Clone, Default)]
pub(crate) struct Event {
    type_: u32,
    config: u64,
    exclude_user: bool,
    exclude_kernel: bool,
    read_format: u64,
    /// Index of the group leader (itself for a leader).
    leader: usize,
    pid: i32,
    enabled: bool,
    enable_on_exec: bool,
    closed: bool,
    count: u64,
    time_enabled: u64,
    time_running: u64,
    /// The hardware counter it is on, if any.
    slot: Option<u32>,
    /// The hardware counter's raw value (`pmc_width` bits).
    hw: u64,
    /// The user page's fields.
    lock: u32,
    offset: i64,
    /// The CPU it was opened on (-1: any).
    cpu: i32,
    /// On a hybrid machine, the core PMU it belongs to.
    core: Option<CoreKind>,
    /// The position of its uncore PMU in [`SimConfig::uncore_types`].
    uncore: Option<usize>,
}

impl Event {
    fn hardware(&self) -> bool {
        self.core.is_some()
            || matches!(
                self.type_,
                pb::PERF_TYPE_HARDWARE | pb::PERF_TYPE_HW_CACHE | pb::PERF_TYPE_RAW
            )
    }

    /// Counts per nanosecond on the PMU, as a fraction: fixed per event so
    /// every count is known in advance.
    fn rate(&self) -> (u64, u64) {
        if self.exclude_user && self.exclude_kernel {
            return (0, 1);
        }
        if let Some(k) = self.uncore {
            return (k as u64 + 1, 100);
        }
        let generic = matches!(self.type_, pb::PERF_TYPE_HARDWARE | pb::PERF_TYPE_HW_CACHE);
        // A hybrid PMU's native events count as raw ones; generic ones lose
        // the PMU type in their upper config bits.
        let (type_, config) = match self.core {
            Some(_) if generic => (self.type_, self.config & 0xffff_ffff),
            Some(_) => (pb::PERF_TYPE_RAW, self.config),
            None => (self.type_, self.config),
        };
        match (type_, config) {
            (pb::PERF_TYPE_HARDWARE, 0) => (3, 1),       // cycles
            (pb::PERF_TYPE_HARDWARE, 1) => (2, 1),       // instructions
            (pb::PERF_TYPE_HARDWARE, _) => (1, 10),      // other hardware events
            (pb::PERF_TYPE_SOFTWARE, 0 | 1) => (1, 1),   // cpu-clock, task-clock
            (pb::PERF_TYPE_SOFTWARE, 2) => (1, 1000),    // page-faults
            (pb::PERF_TYPE_SOFTWARE, 3) => (1, 100_000), // context-switches
            (pb::PERF_TYPE_HW_CACHE, _) => (1, 4),
            (pb::PERF_TYPE_RAW, _) => (1, 2),
            _ => (1, 1000),
        }
    }
}

/// The simulated kernel's state.
#[derive(Debug)]
pub(crate) struct Machine {
    pub cfg: SimConfig,
    events: Vec<Event>,
    tasks: Vec<i32>,
    next_pid: i32,
    refusals: VecDeque<i32>,
    rotation: usize,
    epoch: u64,
    interfere: bool,
    pub rdpmc_calls: u64,
}

impl Machine {
    pub fn new(cfg: SimConfig) -> Machine {
        Machine {
            cfg,
            events: Vec::new(),
            tasks: Vec::new(),
            next_pid: FIRST_PID,
            refusals: VecDeque::new(),
            rotation: 0,
            epoch: 0,
            interfere: false,
            rdpmc_calls: 0,
        }
    }

    fn mask(&self) -> u64 {
        match self.cfg.pmc_width {
            w @ 1..=63 => (1u64 << w) - 1,
            _ => u64::MAX,
        }
    }

    pub fn spawn_task(&mut self) -> i32 {
        let pid = self.next_pid;
        self.next_pid += 1;
        self.tasks.push(pid);
        pid
    }

    pub fn exit_task(&mut self, pid: i32) {
        self.tasks.retain(|&t| t != pid);
        for e in self.events.iter_mut().filter(|e| e.pid == pid) {
            e.enabled = false;
        }
        self.schedule();
    }

    pub fn refuse_next_open(&mut self, errno: i32) {
        self.refusals.push_back(errno);
    }

    pub fn interfere_with_next_rdpmc(&mut self) {
        self.interfere = true;
    }

    pub fn open_events(&self) -> usize {
        self.events.iter().filter(|e| !e.closed).count()
    }

    /// The errno `perf_event_open` fails with, if it does.
    fn refusal(&mut self, a: &KernelAttr, pid: i32, cpu: i32, group: Option<usize>) -> Option<i32> {
        if let Some(errno) = self.refusals.pop_front() {
            return Some(errno);
        }
        let cfg = &self.cfg;
        let core = match cfg.hybrid.map(|h| h.pmu_of(a.type_, a.config)) {
            Some(Err(errno)) => return Some(errno),
            Some(Ok(k)) => k,
            None => None,
        };
        let hardware = core.is_some()
            || matches!(
                a.type_,
                pb::PERF_TYPE_HARDWARE | pb::PERF_TYPE_HW_CACHE | pb::PERF_TYPE_RAW
            );
        if pid > 0 && !self.tasks.contains(&pid) {
            return Some(libc::ESRCH);
        }
        let uncore = cfg.uncore_types.contains(&a.type_);
        if uncore && (pid != -1 || cpu < 0 || a.exclude_user() != 0 || a.exclude_kernel() != 0) {
            return Some(libc::EINVAL);
        }
        if (pid == -1 && cpu < 0) || (cpu >= 0 && cpu as u32 >= cfg.cpus) {
            return Some(libc::EINVAL);
        }
        if hardware && !cfg.hardware_pmu {
            return Some(libc::ENOENT);
        }
        if let (Some(h), Some(k)) = (cfg.hybrid, core) {
            if cpu >= 0 && !h.has_cpu(k, cpu as u32) {
                return Some(libc::ENOENT);
            }
        }
        if hardware && a.precise_ip() > u64::from(cfg.max_precise) {
            return Some(libc::EOPNOTSUPP);
        }
        if !cfg.privileged
            && (cfg.paranoid > 2
                || (pid == -1 && cfg.paranoid > 0)
                || (a.exclude_kernel() == 0 && cfg.paranoid > 1))
        {
            return Some(libc::EACCES);
        }
        if a.sample_type & pb::PERF_SAMPLE_READ != 0 && a.inherit() != 0 && !cfg.sample_read_inherit
        {
            return Some(libc::EINVAL);
        }
        if let Some(l) = group {
            if self.events.get(l).is_none_or(|e| e.closed) {
                return Some(libc::EBADF);
            }
            let in_group = self
                .members(l)
                .filter(|&i| self.events[i].hardware())
                .count();
            if cfg.validate_groups && hardware && in_group + 1 > cfg.counters {
                return Some(libc::EINVAL);
            }
        }
        None
    }

    /// Opens an event: its index, or the errno.
    pub fn open(
        &mut self,
        a: &KernelAttr,
        pid: i32,
        cpu: i32,
        group: Option<usize>,
    ) -> Result<usize, i32> {
        if let Some(errno) = self.refusal(a, pid, cpu, group) {
            return Err(errno);
        }
        let idx = self.events.len();
        let core = self
            .cfg
            .hybrid
            .and_then(|h| h.pmu_of(a.type_, a.config).ok().flatten());
        let uncore = self.cfg.uncore_types.iter().position(|&t| t == a.type_);
        self.events.push(Event {
            cpu,
            core,
            uncore,
            type_: a.type_,
            config: a.config,
            exclude_user: a.exclude_user() != 0,
            exclude_kernel: a.exclude_kernel() != 0,
            read_format: a.read_format,
            leader: group.unwrap_or(idx),
            pid,
            enabled: a.disabled() == 0,
            enable_on_exec: a.enable_on_exec() != 0,
            ..Event::default()
        });
        self.schedule();
        Ok(idx)
    }

    pub fn close(&mut self, idx: usize) {
        if let Some(e) = self.events.get_mut(idx) {
            e.closed = true;
            e.enabled = false;
        }
        self.schedule();
    }

    pub fn id(idx: usize) -> u64 {
        FIRST_ID + idx as u64
    }

    /// The open events of the group led by `leader`, leader first.
    fn members(&self, leader: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.events.len()).filter(move |&i| {
            let e = &self.events[i];
            e.leader == leader && !e.closed
        })
    }

    /// Enabled, and its leader too.
    fn active(&self, i: usize) -> bool {
        let e = &self.events[i];
        e.enabled && !e.closed && self.events[e.leader].enabled
    }

    pub fn ioctl(&mut self, idx: usize, op: Ioctl, group: bool) {
        let targets: Vec<usize> = match self.events.get(idx) {
            Some(e) if group => self.members(e.leader).collect(),
            Some(_) => vec![idx],
            None => return,
        };
        for i in targets {
            let e = &mut self.events[i];
            match op {
                Ioctl::Enable => e.enabled = true,
                Ioctl::Disable => e.enabled = false,
                Ioctl::Reset => {
                    e.count = 0;
                    e.offset = -sign_extend(e.hw, self.cfg.pmc_width);
                    e.lock = e.lock.wrapping_add(2);
                }
            }
        }
        self.schedule();
    }

    /// Every task's `execve`: events waiting for it start.
    pub fn exec(&mut self) {
        for e in self
            .events
            .iter_mut()
            .filter(|e| e.enable_on_exec && !e.closed)
        {
            e.enabled = true;
            e.enable_on_exec = false;
        }
        self.schedule();
    }

    /// Puts groups on the counters: software-only groups always run;
    /// groups with hardware events go on in turn from the rotation point
    /// while they fit. An event put on a (new) counter is reprogrammed: a
    /// new raw start value, the offset that keeps its count, a new lock.
    fn schedule(&mut self) {
        let leaders: Vec<usize> = (0..self.events.len())
            .filter(|&i| self.events[i].leader == i && self.active(i))
            .filter(|&i| self.members(i).any(|m| self.events[m].hardware()))
            .collect();
        let mut slots: Vec<Option<u32>> = vec![None; self.events.len()];
        let mut free = 0..u32::try_from(self.cfg.counters).unwrap_or(u32::MAX);
        let n = leaders.len().max(1);
        for k in 0..leaders.len() {
            let l = leaders[(self.rotation + k) % n];
            let hw: Vec<usize> = self
                .members(l)
                .filter(|&m| self.events[m].hardware() && self.active(m))
                .collect();
            if hw.len() <= free.len() {
                for m in hw {
                    slots[m] = free.next();
                }
            }
        }
        let (mask, width) = (self.mask(), self.cfg.pmc_width);
        for (e, slot) in self.events.iter_mut().zip(slots) {
            if e.slot != slot {
                e.slot = slot;
                e.lock = e.lock.wrapping_add(2);
                if slot.is_some() {
                    self.epoch += 1;
                    e.hw = mask.wrapping_sub(START_BELOW_TOP + self.epoch * 4099) & mask;
                    e.offset = (e.count as i64).wrapping_sub(sign_extend(e.hw, width));
                }
            }
        }
    }

    /// On the PMU now (or needs no counter).
    fn running(&self, i: usize) -> bool {
        let e = &self.events[i];
        if !self.active(i) {
            return false;
        }
        if e.hardware() {
            return e.slot.is_some();
        }
        // A software event runs with its group (when that has hardware events).
        let l = e.leader;
        self.members(l)
            .filter(|&m| self.events[m].hardware() && self.active(m))
            .all(|m| self.events[m].slot.is_some())
    }

    /// `ns` nanoseconds go by, then the scheduler rotates the groups.
    pub fn run(&mut self, ns: u64) {
        let mask = self.mask();
        for i in 0..self.events.len() {
            if !self.active(i) {
                continue;
            }
            let running = self.running(i);
            let hybrid = self.cfg.hybrid;
            let e = &mut self.events[i];
            e.time_enabled += ns;
            if running {
                // A task's hybrid event runs while the task is on its kind of core.
                let on = match (hybrid, e.core) {
                    (Some(h), Some(k)) if e.cpu < 0 => ns * h.percent(k) / 100,
                    _ => ns,
                };
                let (num, den) = e.rate();
                let d = on * num / den;
                e.time_running += on;
                e.count += d;
                e.hw = e.hw.wrapping_add(d) & mask;
            }
        }
        self.rotation += 1;
        self.schedule();
    }

    /// What `read(2)` gives for event `idx`, as 64-bit words.
    pub fn read_words(&self, idx: usize) -> Vec<u64> {
        let e = &self.events[idx];
        let f = e.read_format;
        let flag = |b: u32| f & u64::from(b) != 0;
        let mut w = Vec::new();
        if flag(pb::PERF_FORMAT_GROUP) {
            let l = &self.events[e.leader];
            let members: Vec<usize> = self.members(e.leader).collect();
            w.push(members.len() as u64);
            if flag(pb::PERF_FORMAT_TOTAL_TIME_ENABLED) {
                w.push(l.time_enabled);
            }
            if flag(pb::PERF_FORMAT_TOTAL_TIME_RUNNING) {
                w.push(l.time_running);
            }
            for m in members {
                w.push(self.events[m].count);
                if flag(pb::PERF_FORMAT_ID) {
                    w.push(Machine::id(m));
                }
            }
        } else {
            w.push(e.count);
            if flag(pb::PERF_FORMAT_TOTAL_TIME_ENABLED) {
                w.push(e.time_enabled);
            }
            if flag(pb::PERF_FORMAT_TOTAL_TIME_RUNNING) {
                w.push(e.time_running);
            }
            if flag(pb::PERF_FORMAT_ID) {
                w.push(Machine::id(idx));
            }
        }
        w
    }

    /// The user page of event `idx`.
    pub fn page(&self, idx: usize) -> PageFields {
        let e = &self.events[idx];
        let rdpmc = self.cfg.rdpmc && e.hardware();
        PageFields {
            lock: e.lock,
            capabilities: CAP_USER_TIME | if rdpmc { CAP_USER_RDPMC } else { 0 },
            index: match e.slot {
                Some(s) if self.active(idx) => s + 1,
                _ => 0,
            },
            offset: e.offset,
            pmc_width: self.cfg.pmc_width,
        }
    }

    /// `rdpmc` of hardware counter `counter`; when asked to interfere, the
    /// kernel reprograms the counter while the instruction runs.
    pub fn rdpmc(&mut self, counter: u32) -> u64 {
        self.rdpmc_calls += 1;
        let Some(i) = self.events.iter().position(|e| e.slot == Some(counter)) else {
            return 0;
        };
        if std::mem::take(&mut self.interfere) {
            let (mask, width) = (self.mask(), self.cfg.pmc_width);
            self.epoch += 1;
            let e = &mut self.events[i];
            e.hw = mask.wrapping_sub(START_BELOW_TOP + self.epoch * 4099) & mask;
            e.offset = (e.count as i64).wrapping_sub(sign_extend(e.hw, width));
            e.lock = e.lock.wrapping_add(2);
        }
        self.events[i].hw
    }
}

/// The user page fields of one event at one moment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageFields {
    pub lock: u32,
    pub capabilities: u64,
    pub index: u32,
    pub offset: i64,
    pub pmc_width: u16,
}

/// `raw` as a signed `width`-bit number.
fn sign_extend(raw: u64, width: u16) -> i64 {
    let shift = 64 - u32::from(width).clamp(1, 64);
    ((raw << shift) as i64) >> shift
}
