//! The metrics of `-M`: named ratios of two counts (or of a count and the
//! elapsed time), alone or by group, printed on lines of their own after
//! the counts, and only when both inputs were counted.

use super::args::TASK_CLOCK_SYSTEM_WIDE;
use super::kind::Kind;
use super::stats::EventStats;
use anyhow::bail;

/// What a metric is divided by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Denominator {
    /// The mean of the first counted event of this kind (added as this event).
    Event(&'static str, Kind),
    /// The elapsed time in nanoseconds.
    Elapsed,
}

/// One metric of `-M`.
#[derive(Debug, PartialEq)]
pub struct MetricDef {
    /// Its name, as `-M` takes it and the output prints it.
    pub name: &'static str,
    /// The groups it belongs to (`-M Default` takes every metric of Default).
    pub groups: &'static [&'static str],
    /// The numerator: an event, added when missing, and its kind.
    pub numerator: (&'static str, Kind),
    /// The denominator.
    pub denominator: Denominator,
    /// Multiplier of the ratio (100 for percentages).
    pub scale: f64,
    /// Printed as a percentage.
    pub percent: bool,
}

const DEFAULT: &str = "Default";

/// The metrics known to `-M`.
pub const METRICS: [MetricDef; 7] = [
    MetricDef {
        name: "IPC",
        groups: &[DEFAULT, "Pipeline"],
        numerator: ("instructions", Kind::Instructions),
        denominator: Denominator::Event("cycles", Kind::Cycles),
        scale: 1.0,
        percent: false,
    },
    MetricDef {
        name: "CPI",
        groups: &["Pipeline"],
        numerator: ("cycles", Kind::Cycles),
        denominator: Denominator::Event("instructions", Kind::Instructions),
        scale: 1.0,
        percent: false,
    },
    MetricDef {
        name: "branch_miss_rate",
        groups: &[DEFAULT, "Branches"],
        numerator: ("branch-misses", Kind::BranchMisses),
        denominator: Denominator::Event("branches", Kind::Branches),
        scale: 100.0,
        percent: true,
    },
    MetricDef {
        name: "cache_miss_rate",
        groups: &["Cache"],
        numerator: ("cache-misses", Kind::CacheMisses),
        denominator: Denominator::Event("cache-references", Kind::CacheRefs),
        scale: 100.0,
        percent: true,
    },
    MetricDef {
        name: "L1D_miss_rate",
        groups: &["Cache"],
        numerator: ("L1-dcache-load-misses", Kind::L1dLoadMisses),
        denominator: Denominator::Event("L1-dcache-loads", Kind::L1dLoads),
        scale: 100.0,
        percent: true,
    },
    MetricDef {
        name: "CPUs_utilized",
        groups: &[DEFAULT],
        numerator: ("task-clock", Kind::Clock),
        denominator: Denominator::Elapsed,
        scale: 1.0,
        percent: false,
    },
    MetricDef {
        name: "GHz",
        groups: &[DEFAULT],
        numerator: ("cycles", Kind::Cycles),
        denominator: Denominator::Event("task-clock", Kind::Clock),
        scale: 1.0,
        percent: false,
    },
];

/// The metrics of every `-M` list (names or groups, any case), each once.
pub fn resolve(lists: &[String]) -> anyhow::Result<Vec<&'static MetricDef>> {
    let mut out: Vec<&'static MetricDef> = Vec::new();
    for name in lists.iter().flat_map(|l| l.split(',')).map(str::trim) {
        if name.is_empty() {
            bail!("-M: empty metric name");
        }
        let found: Vec<&'static MetricDef> = METRICS
            .iter()
            .filter(|m| {
                m.name.eq_ignore_ascii_case(name)
                    || m.groups.iter().any(|g| g.eq_ignore_ascii_case(name))
            })
            .collect();
        if found.is_empty() {
            bail!("-M: unknown metric or group {name:?} (known: {})", known());
        }
        for m in found {
            if !out.iter().any(|o| std::ptr::eq(*o, m)) {
                out.push(m);
            }
        }
    }
    Ok(out)
}

/// The metric and group names, for messages.
fn known() -> String {
    let mut names: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
    for g in METRICS.iter().flat_map(|m| m.groups.iter()) {
        if !names.contains(g) {
            names.push(g);
        }
    }
    names.join(", ")
}

/// Adds the events the metrics need and `groups` lacks (the CPU clock
/// instead of the task clock system-wide), each as a group of its own.
pub fn add_inputs(metrics: &[&MetricDef], groups: &mut Vec<Vec<String>>, system_wide: bool) {
    for m in metrics {
        let mut needed = vec![m.numerator.0];
        if let Denominator::Event(e, _) = m.denominator {
            needed.push(e);
        }
        for e in needed {
            let e = match TASK_CLOCK_SYSTEM_WIDE {
                (task, cpu) if system_wide && e == task => cpu,
                _ => e,
            };
            if !groups.iter().flatten().any(|g| g == e) {
                groups.push(vec![e.to_string()]);
            }
        }
    }
}

/// The value of `m` over `events` (means) and `elapsed_ns`; `None` unless
/// both inputs were counted and the denominator is positive.
pub fn value(m: &MetricDef, events: &[EventStats], elapsed_ns: f64) -> Option<f64> {
    let mean = |k: Kind| {
        events
            .iter()
            .find(|e| e.kind == k && e.counted())
            .map(|e| e.value.mean)
    };
    let num = mean(m.numerator.1)?;
    let den = match m.denominator {
        Denominator::Event(_, k) => mean(k)?,
        Denominator::Elapsed => elapsed_ns,
    };
    (den > 0.0).then(|| m.scale * num / den)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stat::stats::Stats;

    #[test]
    fn names_and_groups_resolve() {
        let ipc = resolve(&["ipc".into()]).unwrap();
        assert_eq!(ipc.len(), 1);
        assert_eq!(ipc[0].name, "IPC");
        let d = resolve(&["Default,IPC".into()]).unwrap();
        assert!(d.len() >= 3 && d.iter().filter(|m| m.name == "IPC").count() == 1);
        let e = resolve(&["nope".into()]).unwrap_err().to_string();
        assert!(
            e.contains("IPC") && e.contains("CPI") && e.contains("Default"),
            "{e}"
        );
        assert!(resolve(&["IPC,".into()]).is_err());
    }

    #[test]
    fn inputs_are_added_once() {
        let mut g = vec![vec!["cycles".to_string()]];
        add_inputs(&resolve(&["IPC,CPI".into()]).unwrap(), &mut g, false);
        assert_eq!(
            g,
            vec![vec!["cycles".to_string()], vec!["instructions".into()]]
        );
        let mut g = Vec::new();
        add_inputs(&resolve(&["CPUs_utilized".into()]).unwrap(), &mut g, true);
        assert_eq!(g, vec![vec!["cpu-clock".to_string()]]);
    }

    #[test]
    fn values_only_from_counted_inputs() {
        let ev = |name: &str, kind, v: Option<f64>| {
            let mut e = EventStats::new(name.into(), kind);
            match v {
                Some(v) => e.value = Stats::of(v),
                None => e.unsupported = Some("no PMU".into()),
            }
            e
        };
        let ipc = &METRICS[0];
        let evs = [
            ev("cycles", Kind::Cycles, Some(200.0)),
            ev("instructions", Kind::Instructions, Some(300.0)),
        ];
        assert_eq!(value(ipc, &evs, 1.0), Some(1.5));
        let evs = [
            ev("cycles", Kind::Cycles, None),
            ev("instructions", Kind::Instructions, Some(300.0)),
        ];
        assert_eq!(value(ipc, &evs, 1.0), None);
        let cpus = METRICS.iter().find(|m| m.name == "CPUs_utilized").unwrap();
        let evs = [ev("task-clock", Kind::Clock, Some(5e8))];
        assert_eq!(value(cpus, &evs, 1e9), Some(0.5));
        assert_eq!(value(cpus, &evs, 0.0), None);
    }
}
