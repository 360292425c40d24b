//! Aggregation of per-thread and per-CPU readings into the lines perf
//! prints: one for everything, or one per CPU (`-A`), core (`--per-core`),
//! socket (`--per-socket`) or thread (`--per-thread`), each with the
//! prefix perf gives it (`CPU3`, `S0-D0-C1  2`, `S0  4`, `sleep-8939`).

use super::args::Args;
use pfmlib::Library;
use pfmlib_perf::{Reading, Target};

/// How readings are grouped into lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggr {
    /// Everything summed (perf's default).
    Global,
    /// One line per CPU (`-A`).
    Cpu,
    /// One line per core (`--per-core`).
    Core,
    /// One line per socket (`--per-socket`).
    Socket,
    /// One line per thread (`--per-thread`).
    Thread,
}

impl Aggr {
    /// The aggregation the options ask for.
    pub fn of(a: &Args) -> Aggr {
        if a.no_aggr {
            Aggr::Cpu
        } else if a.per_core {
            Aggr::Core
        } else if a.per_socket {
            Aggr::Socket
        } else if a.per_thread {
            Aggr::Thread
        } else {
            Aggr::Global
        }
    }
}

/// The prefix of one aggregated line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// `CPU3`, `S0-D0-C1`, `S0`, `comm-tid`.
    pub name: String,
    /// The JSON key of the name: `cpu`, `core`, `socket` or `thread`.
    pub key: &'static str,
    /// For cores and sockets: how many CPUs were summed.
    pub nr: Option<usize>,
    /// The bare value for JSON (`3` for `CPU3`).
    pub json: String,
}

impl Label {
    /// The prefix of a text line: perf's widths, then a space.
    pub fn text(&self) -> String {
        match (self.key, self.nr) {
            ("cpu", _) => format!("CPU{:<7} ", self.json),
            ("thread", _) => match self.name.rsplit_once('-') {
                Some((comm, tid)) => format!("{comm:>16}-{tid:<8} "),
                None => format!("{:>25} ", self.name),
            },
            ("core", Some(nr)) => match self.name.rsplit_once("-C") {
                Some((sd, c)) => format!("{sd}-C{c:<8} {nr:>4} "),
                None => format!("{} {nr:>4} ", self.name),
            },
            (_, Some(nr)) => match self.name.strip_prefix('S') {
                Some(s) => format!("S{s:<5} {nr:>4} "),
                None => format!("{} {nr:>4} ", self.name),
            },
            _ => format!("{} ", self.name),
        }
    }

    /// The leading fields of a CSV line, each followed by `sep`.
    pub fn csv(&self, sep: &str) -> String {
        match self.nr {
            Some(nr) => format!("{}{sep}{nr}{sep}", self.name),
            None => format!("{}{sep}", self.name),
        }
    }
}

/// One line's worth of units (threads or CPUs of the scope, by index).
#[derive(Debug, Clone)]
pub struct Bucket {
    /// Its prefix; `None` for the one line of [`Aggr::Global`].
    pub label: Option<Label>,
    /// Indices into the scope's units.
    pub units: Vec<usize>,
}

/// The lines `aggr` makes of `units` (in the order perf prints them).
pub fn buckets(lib: &Library, aggr: Aggr, units: &[Target]) -> Vec<Bucket> {
    if aggr == Aggr::Global {
        return vec![Bucket {
            label: None,
            units: (0..units.len()).collect(),
        }];
    }
    let mut out: Vec<(Vec<u32>, Bucket)> = Vec::new();
    for (i, u) in units.iter().enumerate() {
        let (sort, label) = label_of(lib, aggr, *u);
        match out
            .iter_mut()
            .find(|(_, b)| b.label.as_ref() == Some(&label))
        {
            Some((_, b)) => b.units.push(i),
            None => out.push((
                sort,
                Bucket {
                    label: Some(label),
                    units: vec![i],
                },
            )),
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    let mut v: Vec<Bucket> = out.into_iter().map(|(_, b)| b).collect();
    for b in &mut v {
        if let Some(l) = &mut b.label {
            if matches!(aggr, Aggr::Core | Aggr::Socket) {
                l.nr = Some(b.units.len());
            }
        }
    }
    v
}

/// A unit's label and sort key.
fn label_of(lib: &Library, aggr: Aggr, unit: Target) -> (Vec<u32>, Label) {
    let label = |name: String, key, json: String| Label {
        name,
        key,
        nr: None,
        json,
    };
    match (aggr, unit) {
        (Aggr::Thread, Target::Task(tid)) => {
            let comm = thread_comm(tid);
            let l = label(format!("{comm}-{tid}"), "thread", format!("{comm}-{tid}"));
            (vec![tid.max(0) as u32], l)
        }
        (_, Target::Cpu(cpu) | Target::Cgroup { cpu, .. }) => {
            let t = Topology::of(lib, cpu);
            match aggr {
                Aggr::Core => {
                    let name = format!("S{}-D{}-C{}", t.socket, t.die, t.core);
                    (
                        vec![t.socket, t.die, t.core],
                        label(name.clone(), "core", name),
                    )
                }
                Aggr::Socket => {
                    let name = format!("S{}", t.socket);
                    (vec![t.socket], label(name.clone(), "socket", name))
                }
                _ => (
                    vec![cpu],
                    label(format!("CPU{cpu}"), "cpu", cpu.to_string()),
                ),
            }
        }
        (_, other) => {
            let name = format!("{other:?}");
            (vec![u32::MAX], label(name.clone(), "unit", name))
        }
    }
}

/// Where a CPU sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Topology {
    /// `physical_package_id`.
    pub socket: u32,
    /// `die_id` (0 where sysfs has none).
    pub die: u32,
    /// `core_id`.
    pub core: u32,
}

impl Topology {
    /// CPU `cpu`'s place from sysfs (`topology/`), zeros where it says nothing.
    pub fn of(lib: &Library, cpu: u32) -> Topology {
        let read = |f: &str| {
            lib.host()
                .read_file(&format!("/sys/devices/system/cpu/cpu{cpu}/topology/{f}"))
                .and_then(|s| s.trim().parse::<i64>().ok())
                .map_or(0, |v| u32::try_from(v).unwrap_or(0))
        };
        Topology {
            socket: read("physical_package_id"),
            die: read("die_id"),
            core: read("core_id"),
        }
    }
}

/// A thread's command name (`/proc/<tid>/comm`), `?` when it is gone.
fn thread_comm(tid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{tid}/comm"))
        .map(|s| s.trim_end().to_string())
        .unwrap_or_else(|_| "?".into())
}

/// `readings[unit][event]` summed over the units of `b`, per event.
pub fn sum(b: &Bucket, readings: &[Vec<Option<Reading>>], events: usize) -> Vec<Option<Reading>> {
    let mut out: Vec<Option<Reading>> = vec![None; events];
    for unit in b.units.iter().filter_map(|&u| readings.get(u)) {
        for (o, r) in out.iter_mut().zip(unit) {
            if let Some(r) = r {
                o.get_or_insert_with(Reading::default).accumulate(r);
            }
        }
    }
    out
}

/// `now - before`, event by event (interval counts); times too.
pub fn delta(
    now: &[Vec<Option<Reading>>],
    before: &[Vec<Option<Reading>>],
) -> Vec<Vec<Option<Reading>>> {
    now.iter()
        .enumerate()
        .map(|(u, unit)| {
            unit.iter()
                .enumerate()
                .map(|(e, r)| {
                    let r = (*r)?;
                    let b = before
                        .get(u)
                        .and_then(|x| x.get(e))
                        .copied()
                        .flatten()
                        .unwrap_or_default();
                    Some(Reading::new(
                        r.value.saturating_sub(b.value),
                        r.time_enabled.saturating_sub(b.time_enabled),
                        r.time_running.saturating_sub(b.time_running),
                    ))
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(name: &str, key: &'static str, nr: Option<usize>, json: &str) -> Label {
        Label {
            name: name.into(),
            key,
            nr,
            json: json.into(),
        }
    }

    #[test]
    fn prefixes_as_perf_prints_them() {
        assert_eq!(l("CPU0", "cpu", None, "0").text(), "CPU0       ");
        assert_eq!(
            l("S0-D0-C0", "core", Some(1), "S0-D0-C0").text(),
            "S0-D0-C0           1 "
        );
        assert_eq!(l("S0", "socket", Some(2), "S0").text(), "S0        2 ");
        assert_eq!(
            l("sleep-8939", "thread", None, "sleep-8939").text(),
            "           sleep-8939     "
        );
        assert_eq!(l("S0", "socket", Some(2), "S0").csv(","), "S0,2,");
        assert_eq!(l("CPU1", "cpu", None, "1").csv(";"), "CPU1;");
    }

    #[test]
    fn cpus_group_by_core_and_socket() {
        let lib = Library::global();
        let units = [Target::Cpu(0), Target::Cpu(1)];
        let all = buckets(lib, Aggr::Global, &units);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].units, vec![0, 1]);
        let cpus = buckets(lib, Aggr::Cpu, &units);
        assert_eq!(cpus.len(), 2);
        let sockets = buckets(lib, Aggr::Socket, &units);
        let n: usize = sockets.iter().map(|b| b.units.len()).sum();
        assert_eq!(n, 2);
        assert!(sockets
            .iter()
            .all(|b| b.label.as_ref().and_then(|l| l.nr) == Some(b.units.len())));
    }

    #[test]
    fn sums_and_deltas() {
        let r = |v, e, x| Some(Reading::new(v, e, x));
        let now = vec![vec![r(10, 100, 100), None], vec![r(5, 50, 25), r(1, 1, 1)]];
        let before = vec![vec![r(4, 40, 40), None], vec![None, None]];
        let d = delta(&now, &before);
        assert_eq!(d[0][0], r(6, 60, 60));
        assert_eq!(d[1][0], r(5, 50, 25));
        let b = Bucket {
            label: None,
            units: vec![0, 1],
        };
        let s = sum(&b, &d, 2);
        assert_eq!(s[0], r(11, 110, 85));
        assert_eq!(s[1], r(1, 1, 1));
    }
}
