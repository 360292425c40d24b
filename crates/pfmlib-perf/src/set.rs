//! A set of events counted together over several threads or CPUs, read as
//! one aggregated reading per event: what `pfm stat` counts with.

use crate::cgroup::Cgroup;
use crate::counter::{group_ioctl, open_leader, read_group, Counter, Options, Reading, Target};
use crate::error::{Error, Result};
use crate::kernel::{Ioctl, Kernel, Real};
use crate::perf_syntax;
use crate::perf_syntax::uncore::{pmu_of, Part};
use pfmlib::{Library, Plm};

/// Where a [`CounterSet`] counts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scope {
    /// A command the caller starts next: the calling thread's counters are
    /// inherited by the processes it creates and start at their `execve`
    /// (the calling thread itself never execs, so only the command counts).
    Workload,
    /// These threads (and, inherited, what they create from now on).
    Tasks(Vec<i32>),
    /// Every task on these CPUs.
    Cpus(Vec<u32>),
    /// These threads, with a choice of inheritance (perf's `-i`) and of
    /// the start: at their next `execve` (a held command, see
    /// [`crate::HeldChild`]) or at [`CounterSet::enable`].
    Threads {
        /// The thread ids.
        tids: Vec<i32>,
        /// Count what they create from now on too.
        inherit: bool,
        /// Start at their `execve` rather than at `enable`.
        start_at_exec: bool,
    },
    /// The tasks of a cgroup while they run on these CPUs (perf's `-G`).
    Cgroup {
        /// The cgroup.
        cgroup: Cgroup,
        /// The CPUs.
        cpus: Vec<u32>,
    },
}

impl Scope {
    /// What each counter is opened on, in order: [`CounterSet::read_units`]
    /// gives one reading per event for each of them.
    pub fn units(&self) -> Vec<Target> {
        match self {
            Scope::Workload => vec![Target::CallingThread],
            Scope::Tasks(t) | Scope::Threads { tids: t, .. } => {
                t.iter().map(|&p| Target::Task(p)).collect()
            }
            Scope::Cpus(c) => c.iter().map(|&c| Target::Cpu(c)).collect(),
            Scope::Cgroup { cgroup, cpus } => cpus
                .iter()
                .map(|&cpu| Target::Cgroup {
                    fd: cgroup.fd(),
                    cpu,
                })
                .collect(),
        }
    }
}

/// For each event, the CPUs it can count on when it belongs to one of the
/// host's hybrid core PMUs (`cpu_core`, `cpu_atom`); `None`: any CPU.
fn event_cpus(lib: &Library, names: &[String]) -> Vec<Option<Vec<u32>>> {
    if perf_syntax::hybrid::core_pmus(lib.host()).is_empty() {
        return vec![None; names.len()];
    }
    names
        .iter()
        .map(|n| {
            let e = perf_syntax::resolve_one(lib, n, Plm::DEFAULT).ok()?;
            perf_syntax::hybrid::event_cpus(lib.host(), &e.attr)
        })
        .collect()
}

/// Whether an event that counts on `cpus` (`None`: any) is opened on
/// `unit`: a thread always, a CPU only if it is one of them.
fn counts_on(cpus: Option<&[u32]>, unit: Target) -> bool {
    match (cpus, unit) {
        (Some(c), Target::Cpu(cpu) | Target::Cgroup { cpu, .. }) => c.contains(&cpu),
        _ => true,
    }
}

/// The number of boxes when every event of `parts` names the same boxes
/// (as many, the same PMU and `cpumask` for each); `None` otherwise.
fn same_boxes<'a>(mut parts: impl Iterator<Item = &'a [Part]>) -> Option<usize> {
    let first = parts.next()?;
    let same = |p: &[Part]| {
        p.len() == first.len()
            && p.iter()
                .zip(first)
                .all(|(a, b)| pmu_of(&a.event) == pmu_of(&b.event) && a.cpus == b.cpus)
    };
    parts.all(same).then_some(first.len())
}

/// One group as opened on one thread or CPU: `(event index, counter)`,
/// the leader first.
#[derive(Debug)]
struct OpenGroup<K: Kernel> {
    counters: Vec<Counter<K>>,
    events: Vec<usize>,
    unit: usize,
    /// An uncore event's counter, opened system-wide on a CPU of its
    /// PMU's `cpumask` whatever the scope: started by
    /// [`CounterSet::enable`] even when the scope starts at exec.
    system_wide: bool,
}

/// Events (in groups) opened on every thread or CPU of a [`Scope`].
///
/// Opening never fails as a whole: each event either opened somewhere or
/// carries the error that explains why not ([`CounterSet::error`]), so a
/// report can print `<not supported>` for it and still count the others.
#[derive(Debug)]
pub struct CounterSet<K: Kernel = Real> {
    names: Vec<String>,
    errors: Vec<Option<Error>>,
    opened: Vec<bool>,
    user_only: Vec<bool>,
    groups: Vec<OpenGroup<K>>,
    workload: bool,
    units: usize,
}

/// A member's open failure that splits a weak group, as perf splits one:
/// the kernel refused the group (`EINVAL`), not the event.
fn splits_weak_group<K: Kernel>(r: &Result<Counter<K>>) -> bool {
    matches!(
        r,
        Err(Error::GroupUnschedulable { .. } | Error::Invalid { .. })
    )
}

impl CounterSet {
    /// Opens `groups` of event strings (a group of one is an ordinary
    /// event) for `scope`. For [`Scope::Workload`] the counters inherit and
    /// start at exec whatever `opts` says; for the other scopes they start
    /// disabled: call [`CounterSet::enable`]. [`Scope::Threads`] follows
    /// its own `inherit` and `start_at_exec`.
    pub fn open(
        lib: &Library,
        groups: &[Vec<String>],
        scope: &Scope,
        opts: &Options,
    ) -> CounterSet {
        CounterSet::open_on(&Real, lib, groups, scope, opts)
    }
}

impl<K: Kernel> CounterSet<K> {
    /// [`CounterSet::open`] on a given kernel (for instance a simulated one).
    pub fn open_on(
        kernel: &K,
        lib: &Library,
        groups: &[Vec<String>],
        scope: &Scope,
        opts: &Options,
    ) -> CounterSet<K> {
        let (workload, opts) = match scope {
            Scope::Workload => (true, opts.inherit(true).enable_on_exec(true)),
            Scope::Tasks(_) => (false, opts.inherit(true).enable_on_exec(false)),
            Scope::Cpus(_) | Scope::Cgroup { .. } => {
                (false, opts.inherit(false).enable_on_exec(false))
            }
            Scope::Threads {
                inherit,
                start_at_exec,
                ..
            } => (
                *start_at_exec,
                opts.inherit(*inherit).enable_on_exec(*start_at_exec),
            ),
        };
        let opts = opts.enabled(false);
        let units = scope.units();
        let names: Vec<String> = groups.iter().flatten().cloned().collect();
        let n = names.len();
        let mut set = CounterSet {
            names,
            errors: (0..n).map(|_| None).collect(),
            opened: vec![false; n],
            user_only: vec![false; n],
            groups: Vec::new(),
            workload,
            units: units.len(),
        };
        let cpus_of = event_cpus(lib, &set.names);
        let parts: Vec<Option<Vec<Part>>> = set
            .names
            .iter()
            .map(|n| perf_syntax::uncore::parts(lib, n))
            .collect();
        for (u, &unit) in units.iter().enumerate() {
            let mut first = 0;
            for g in groups {
                // A tool event (duration_time) is one value, not one per thread or CPU;
                // a hybrid core PMU's event opens only on that PMU's CPUs.
                let idx: Vec<usize> = (first..first + g.len())
                    .filter(|&i| u == 0 || !perf_syntax::is_tool(&set.names[i]))
                    .filter(|&i| counts_on(cpus_of[i].as_deref(), unit))
                    .filter(|&i| parts[i].is_none())
                    .collect();
                first += g.len();
                set.open_group(kernel, lib, &idx, (u, unit), &opts);
            }
        }
        let mut first = 0;
        for g in groups {
            let members: Vec<usize> = (first..first + g.len())
                .filter(|&i| parts[i].is_some())
                .collect();
            first += g.len();
            set.open_uncore(kernel, lib, &members, &parts, &units, &opts);
        }
        for (i, cpus) in cpus_of.iter().enumerate() {
            // Out of descriptors on one thread or CPU is an error even where
            // the others opened: their sum alone would be made-up data.
            let fatal = matches!(set.errors[i], Some(Error::TooManyFiles { .. }));
            if set.opened[i] && !fatal {
                set.errors[i] = None;
            } else if set.errors[i].is_none() {
                let why = match cpus {
                    Some(c) => format!(
                        "its core type counts only on CPUs {}, none of those asked for",
                        pfmlib::cpulist::format(c)
                    ),
                    None => "nothing to count on (no thread or CPU)".to_string(),
                };
                set.errors[i] = Some(Error::Unsupported(format!("{}: {why}", set.names[i])));
            }
        }
        set
    }

    /// Opens the uncore events `members` of one `-e` group
    /// ([`perf_syntax::uncore`]): when there are several and each names the
    /// same boxes, one group per box (as perf regroups them: the kernel
    /// groups events of one PMU only); otherwise each part on its own.
    fn open_uncore(
        &mut self,
        kernel: &K,
        lib: &Library,
        members: &[usize],
        parts: &[Option<Vec<Part>>],
        units: &[Target],
        opts: &Options,
    ) {
        let of = |i: usize| parts[i].as_deref().unwrap_or_default();
        match same_boxes(members.iter().map(|&i| of(i))) {
            Some(boxes) if members.len() > 1 => {
                for k in 0..boxes {
                    let g: Vec<(usize, &Part)> = members.iter().map(|&i| (i, &of(i)[k])).collect();
                    self.open_parts(kernel, lib, &g, units, opts);
                }
            }
            _ => {
                for &i in members {
                    for part in of(i) {
                        self.open_parts(kernel, lib, &[(i, part)], units, opts);
                    }
                }
            }
        }
    }

    /// Opens parts of uncore events (of one box, the first the group's
    /// leader): system-wide on each CPU of the first's `cpumask` (the
    /// reading goes to that CPU's unit when the scope has it, else to the
    /// first unit), or, with no `cpumask`, on each unit of the scope like
    /// any event.
    fn open_parts(
        &mut self,
        kernel: &K,
        lib: &Library,
        members: &[(usize, &Part)],
        units: &[Target],
        opts: &Options,
    ) {
        let Some(&(_, first)) = members.first() else {
            return;
        };
        let on: Vec<(usize, Target, bool)> = match &first.cpus {
            Some(cpus) => cpus
                .iter()
                .map(|&c| {
                    let u = units.iter().position(|t| match *t {
                        Target::Cpu(x) | Target::Cgroup { cpu: x, .. } => x == c,
                        _ => false,
                    });
                    (u.unwrap_or(0), Target::Cpu(c), true)
                })
                .collect(),
            None => units
                .iter()
                .enumerate()
                .map(|(u, &t)| (u, t, false))
                .collect(),
        };
        for (unit, target, system_wide) in on {
            let o = if system_wide {
                opts.inherit(false).enable_on_exec(false)
            } else {
                *opts
            };
            let mut og = OpenGroup {
                counters: Vec::new(),
                events: Vec::new(),
                unit,
                system_wide,
            };
            for &(i, part) in members {
                let r = match og.counters.first() {
                    Some(leader) => Counter::open_member(lib, leader, &part.event, &o),
                    None if members.len() == 1 => {
                        Counter::open_on(kernel, lib, &part.event, target, &o)
                    }
                    None => open_leader(kernel, lib, &part.event, target, &o),
                };
                self.record(i, r, &mut og);
            }
            if !og.counters.is_empty() {
                self.groups.push(og);
            }
        }
    }

    fn open_group(
        &mut self,
        kernel: &K,
        lib: &Library,
        idx: &[usize],
        (unit_no, unit): (usize, Target),
        opts: &Options,
    ) {
        let mut og = OpenGroup {
            counters: Vec::new(),
            events: Vec::new(),
            unit: unit_no,
            system_wide: false,
        };
        let grouped = idx.len() > 1;
        let weak = grouped && idx.first().is_some_and(|&i| self.weak(lib, i));
        let opened_before: Vec<bool> = idx.iter().map(|&i| self.opened[i]).collect();
        for &i in idx {
            let name = self.names[i].clone();
            let r = match (og.counters.first(), grouped) {
                (Some(leader), _) => Counter::open_member(lib, leader, &name, opts),
                (None, false) => Counter::open_on(kernel, lib, &name, unit, opts),
                (None, true) => open_leader(kernel, lib, &name, unit, opts),
            };
            if weak && !og.counters.is_empty() && splits_weak_group(&r) {
                // perf's weak group: closed, and its events opened one by one.
                drop(og);
                for (&j, &was) in idx.iter().zip(&opened_before) {
                    self.opened[j] = was;
                    self.open_group(kernel, lib, &[j], (unit_no, unit), opts);
                }
                return;
            }
            self.record(i, r, &mut og);
        }
        if !og.counters.is_empty() {
            self.groups.push(og);
        }
    }

    /// Notes how event `i`'s open went: its counter joins `og`, or its
    /// first error is kept (running out of descriptors over any other).
    fn record(&mut self, i: usize, r: Result<Counter<K>>, og: &mut OpenGroup<K>) {
        match r {
            Ok(c) => {
                self.opened[i] = true;
                self.user_only[i] |= c.user_only();
                og.counters.push(c);
                og.events.push(i);
            }
            Err(e) => {
                if self.errors[i].is_none() || matches!(e, Error::TooManyFiles { .. }) {
                    self.errors[i] = Some(e);
                }
            }
        }
    }

    /// Event `i` asks for a weak group (`:W`, perf's `{a,b}:W`).
    fn weak(&self, lib: &Library, i: usize) -> bool {
        perf_syntax::resolve_one(lib, &self.names[i], pfmlib::Plm::DEFAULT)
            .is_ok_and(|e| e.weak_group)
    }

    /// The events, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Why event `i` could not be opened anywhere, if so.
    pub fn error(&self, i: usize) -> Option<&Error> {
        self.errors.get(i).and_then(Option::as_ref)
    }

    /// True when event `i` counts user level only because kernel-level
    /// counting was refused ([`Options::user_only_fallback`]).
    pub fn user_only(&self, i: usize) -> bool {
        self.user_only.get(i).copied().unwrap_or(false)
    }

    /// True when at least one event opened.
    pub fn any_open(&self) -> bool {
        !self.groups.is_empty()
    }

    fn each_leader(&self, f: impl Fn(&OpenGroup<K>) -> Result<()>) -> Result<()> {
        self.groups.iter().try_for_each(f)
    }

    /// Starts every counter (not needed for [`Scope::Workload`], which
    /// starts at exec).
    pub fn enable(&self) -> Result<()> {
        if self.workload {
            // The kernel starts the counters at exec; tool clocks start now.
            self.groups
                .iter()
                .flat_map(|g| &g.counters)
                .for_each(Counter::tool_start);
            // Uncore counters are system-wide: no exec starts them.
            return self.each_leader(|g| match g.counters.as_slice() {
                _ if !g.system_wide => Ok(()),
                [one] => one.enable(),
                many => group_ioctl(many, Ioctl::Enable),
            });
        }
        self.each_leader(|g| match g.counters.as_slice() {
            [one] => one.enable(),
            many => group_ioctl(many, Ioctl::Enable),
        })
    }

    /// Stops every counter.
    pub fn disable(&self) -> Result<()> {
        self.each_leader(|g| match g.counters.as_slice() {
            [one] => one.disable(),
            many => group_ioctl(many, Ioctl::Disable),
        })
    }

    /// One aggregated reading per event (summed over threads or CPUs, as
    /// perf does); `None` for events that did not open.
    pub fn read(&self) -> Result<Vec<Option<Reading>>> {
        let mut out: Vec<Option<Reading>> = vec![None; self.names.len()];
        for unit in self.read_units()? {
            for (o, r) in out.iter_mut().zip(unit) {
                if let Some(r) = r {
                    o.get_or_insert_with(Reading::default).accumulate(&r);
                }
            }
        }
        Ok(out)
    }

    /// One reading per event for each unit of the scope ([`Scope::units`]:
    /// each thread or CPU), not aggregated; `None` where the event did not
    /// open on that unit.
    pub fn read_units(&self) -> Result<Vec<Vec<Option<Reading>>>> {
        let mut out: Vec<Vec<Option<Reading>>> = vec![vec![None; self.names.len()]; self.units];
        for g in &self.groups {
            let readings = match g.counters.as_slice() {
                [one] => vec![one.read()?],
                many => read_group(many)?,
            };
            let Some(unit) = out.get_mut(g.unit) else {
                continue;
            };
            for (r, &i) in readings.iter().zip(&g.events) {
                unit[i].get_or_insert_with(Reading::default).accumulate(r);
            }
        }
        Ok(out)
    }
}
