//! Aggregation of per-thread and per-CPU readings into the lines perf
//! prints: one for everything, or one per CPU (`-A`), core (`--per-core`),
//! die (`--per-die`), socket (`--per-socket`), NUMA node (`--per-node`) or
//! thread (`--per-thread`), each with the prefix perf gives it (`CPU3`,
//! `S0-D0-C1  2`, `S0-D1  8`, `S0  4`, `N1  8`, `sleep-8939`). Where a CPU
//! sits is read from sysfs through the library's [`Host`], so a recorded
//! tree stands in for the machine in tests.

use super::args::Args;
use super::scope::parse_cpu_list;
use pfmlib::Host;
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
    /// One line per die (`--per-die`).
    Die,
    /// One line per socket (`--per-socket`).
    Socket,
    /// One line per NUMA node (`--per-node`).
    Node,
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
        } else if a.per_die {
            Aggr::Die
        } else if a.per_socket {
            Aggr::Socket
        } else if a.per_node {
            Aggr::Node
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
    /// `CPU3`, `S0-D0-C1`, `S0-D0`, `S0`, `N0`, `comm-tid`.
    pub name: String,
    /// The JSON key of the name: `cpu`, `core`, `die`, `socket`, `node`
    /// or `thread`.
    pub key: &'static str,
    /// For cores, dies, sockets and nodes: how many CPUs were summed.
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
            // perf 6's widths: `S0-D0` in 12 columns, `N0` in 6.
            ("die", Some(nr)) => format!("{:<12} {nr:>4} ", self.name),
            ("node", Some(nr)) => format!("{:<6} {nr:>4} ", self.name),
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
pub fn buckets(host: &Host, aggr: Aggr, units: &[Target]) -> Vec<Bucket> {
    if aggr == Aggr::Global {
        return vec![Bucket {
            label: None,
            units: (0..units.len()).collect(),
        }];
    }
    let nodes = match aggr {
        Aggr::Node => Nodes::of(host),
        _ => Nodes::default(),
    };
    let mut out: Vec<(Vec<u32>, Bucket)> = Vec::new();
    // Each line's place in `out`, by prefix (every thread of a system: thousands).
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, u) in units.iter().enumerate() {
        let (mut sort, label) = label_of(host, &nodes, aggr, *u);
        if aggr == Aggr::Thread {
            // perf prints threads in the order it found them (its thread map).
            sort = vec![i as u32];
        }
        match at.get(&label.name) {
            Some(&k) => out[k].1.units.push(i),
            None => {
                at.insert(label.name.clone(), out.len());
                out.push((
                    sort,
                    Bucket {
                        label: Some(label),
                        units: vec![i],
                    },
                ));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    let mut v: Vec<Bucket> = out.into_iter().map(|(_, b)| b).collect();
    for b in &mut v {
        if let Some(l) = &mut b.label {
            if matches!(aggr, Aggr::Core | Aggr::Die | Aggr::Socket | Aggr::Node) {
                l.nr = Some(b.units.len());
            }
        }
    }
    v
}

/// A unit's label and sort key.
fn label_of(host: &Host, nodes: &Nodes, aggr: Aggr, unit: Target) -> (Vec<u32>, Label) {
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
            (Vec::new(), l)
        }
        (_, Target::Cpu(cpu) | Target::Cgroup { cpu, .. }) => {
            let t = Topology::of(host, cpu);
            match aggr {
                Aggr::Core => {
                    let name = format!("S{}-D{}-C{}", t.socket, t.die, t.core);
                    (
                        vec![t.socket, t.die, t.core],
                        label(name.clone(), "core", name),
                    )
                }
                Aggr::Die => {
                    let name = format!("S{}-D{}", t.socket, t.die);
                    (vec![t.socket, t.die], label(name.clone(), "die", name))
                }
                Aggr::Socket => {
                    let name = format!("S{}", t.socket);
                    (vec![t.socket], label(name.clone(), "socket", name))
                }
                Aggr::Node => {
                    let node = nodes.of_cpu(cpu);
                    let name = format!("N{node}");
                    (vec![node], label(name.clone(), "node", name))
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
    pub fn of(host: &Host, cpu: u32) -> Topology {
        let read = |f: &str| {
            host.read_file(&format!("/sys/devices/system/cpu/cpu{cpu}/topology/{f}"))
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

/// Where the NUMA nodes are: `/sys/devices/system/node/node<N>/cpulist`.
#[derive(Debug, Clone, Default)]
pub struct Nodes {
    /// Each node's number and CPUs, by node.
    cpus: Vec<(u32, Vec<u32>)>,
}

/// Where the kernel lists the NUMA nodes.
const NODE_DIR: &str = "/sys/devices/system/node";

impl Nodes {
    /// The host's nodes (none where sysfs lists none).
    pub fn of(host: &Host) -> Nodes {
        let cpus = host
            .list_dir(NODE_DIR)
            .iter()
            .filter_map(|d| {
                let n: u32 = d.strip_prefix("node")?.parse().ok()?;
                let list = host.read_file(&format!("{NODE_DIR}/{d}/cpulist"))?;
                // A node without CPUs (memory only) has an empty list.
                Some((n, parse_cpu_list(list.trim()).unwrap_or_default()))
            })
            .collect();
        Nodes { cpus }
    }

    /// The node of CPU `cpu`: 0 where no node lists it (a kernel without
    /// NUMA has no `node` directory: everything is one node).
    pub fn of_cpu(&self, cpu: u32) -> u32 {
        self.cpus
            .iter()
            .find(|(_, c)| c.binary_search(&cpu).is_ok())
            .map_or(0, |(n, _)| *n)
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
        assert_eq!(
            l("S0-D1", "die", Some(8), "S0-D1").text(),
            "S0-D1           8 "
        );
        assert_eq!(l("N1", "node", Some(8), "N1").text(), "N1        8 ");
        assert_eq!(l("N1", "node", Some(8), "N1").csv(";"), "N1;8;");
        assert_eq!(l("S0", "socket", Some(2), "S0").csv(","), "S0,2,");
        assert_eq!(l("CPU1", "cpu", None, "1").csv(";"), "CPU1;");
    }

    #[test]
    fn cpus_group_by_core_and_socket() {
        let lib = pfmlib::Library::global().host();
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

    /// The recorded two-socket, two-die, four-node machine of
    /// `pfmlib-perf/tests/trees/numa_host` (see its README).
    fn numa_host() -> Host {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../pfmlib-perf/tests/trees/numa_host");
        Host::from_root(pfmlib::Arch::Other, root)
    }

    /// `(prefix, CPUs)` of each line, in order.
    fn lines(host: &Host, aggr: Aggr, units: &[Target]) -> Vec<(String, Vec<u32>)> {
        buckets(host, aggr, units)
            .into_iter()
            .map(|b| {
                let l = b.label.unwrap();
                assert_eq!(l.nr, Some(b.units.len()), "{l:?}");
                let cpus = b.units.iter().map(|&u| u as u32).collect();
                (l.text(), cpus)
            })
            .collect()
    }

    #[test]
    fn dies_and_nodes_of_a_recorded_machine() {
        let host = numa_host();
        let units: Vec<Target> = (0..16).map(Target::Cpu).collect();
        let dies = lines(&host, Aggr::Die, &units);
        let want = [
            ("S0-D0           4 ", vec![0, 1, 8, 9]),
            ("S0-D1           4 ", vec![2, 3, 10, 11]),
            ("S1-D0           4 ", vec![4, 5, 12, 13]),
            ("S1-D1           4 ", vec![6, 7, 14, 15]),
        ];
        let want: Vec<(String, Vec<u32>)> =
            want.into_iter().map(|(p, c)| (p.to_string(), c)).collect();
        assert_eq!(dies, want);
        // One node per die, listed by `cpulist` (`0-1,8-9`).
        let nodes = lines(&host, Aggr::Node, &units);
        let names: Vec<&str> = nodes.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            names,
            [
                "N0        4 ",
                "N1        4 ",
                "N2        4 ",
                "N3        4 "
            ]
        );
        assert_eq!(nodes.iter().map(|(_, c)| c.clone()).collect::<Vec<_>>(), {
            dies.iter().map(|(_, c)| c.clone()).collect::<Vec<_>>()
        });
        let sockets = lines(&host, Aggr::Socket, &units);
        assert_eq!(sockets.len(), 2);
        assert_eq!(sockets[1].0, "S1        8 ");
        let cores = lines(&host, Aggr::Core, &units);
        assert_eq!(cores.len(), 8);
        assert_eq!(cores[5], ("S1-D0-C1           2 ".to_string(), vec![5, 13]));
        // -C 3,12: only the lines of those CPUs, in perf's order.
        let some = lines(&host, Aggr::Node, &[Target::Cpu(12), Target::Cpu(3)]);
        let names: Vec<&str> = some.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["N1        1 ", "N2        1 "]);
        let l = buckets(&host, Aggr::Die, &units)[3].label.clone().unwrap();
        assert_eq!(
            (l.key, l.json.as_str(), l.csv(",")),
            ("die", "S1-D1", "S1-D1,4,".into())
        );
    }

    /// Counts of the simulated kernel (cycles: 3 per ns on every CPU) on
    /// the 16 CPUs of the recorded machine, summed per core, die, socket
    /// and node: what a one-node VM cannot show.
    #[test]
    fn simulated_counts_per_die_and_node() {
        use pfmlib_perf::sim::{SimConfig, SimKernel};
        use pfmlib_perf::{CounterSet, Options, Scope};
        // The simulated PMU's counters serve the whole machine: one per CPU.
        let sim = SimKernel::new(SimConfig::default().cpus(16).counters(16));
        let scope = Scope::Cpus((0..16).collect());
        let groups = [vec!["cycles".to_string()]];
        let lib = pfmlib::Library::global();
        let set = CounterSet::open_on(&sim, lib, &groups, &scope, &Options::default());
        assert!(set.error(0).is_none(), "{:?}", set.error(0));
        set.enable().unwrap();
        sim.run(1_000);
        set.disable().unwrap();
        let per_unit = set.read_units().unwrap();
        let host = numa_host();
        for (aggr, lines, cpus) in [
            (Aggr::Core, 8, 2),
            (Aggr::Die, 4, 4),
            (Aggr::Socket, 2, 8),
            (Aggr::Node, 4, 4),
        ] {
            let b = buckets(&host, aggr, &scope.units());
            assert_eq!(b.len(), lines, "{aggr:?}");
            for b in &b {
                let r = sum(b, &per_unit, 1)[0].unwrap();
                assert_eq!(r.value, 3_000 * cpus, "{aggr:?} {:?}", b.label);
                assert_eq!(r.time_enabled, 1_000 * cpus);
            }
        }
    }

    #[test]
    fn a_machine_without_nodes_is_node_zero() {
        let host = Host::none();
        assert_eq!(Nodes::of(&host).of_cpu(7), 0);
        let b = buckets(&host, Aggr::Node, &[Target::Cpu(0), Target::Cpu(7)]);
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].label.as_ref().map(|l| l.name.as_str()), Some("N0"));
        let host = Host::none()
            .with_file("/sys/devices/system/node/node0/cpulist", "0-3\n")
            .with_file("/sys/devices/system/node/node1/cpulist", "\n")
            .with_file("/sys/devices/system/node/node2/cpulist", "4-7\n");
        let nodes = Nodes::of(&host);
        assert_eq!(
            (nodes.of_cpu(3), nodes.of_cpu(4), nodes.of_cpu(9)),
            (0, 2, 0)
        );
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
