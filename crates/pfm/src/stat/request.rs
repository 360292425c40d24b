//! What the arguments ask for, validated: the event groups (with the
//! inputs of `-M`'s metrics), where to count, the format, one line per
//! what, the metrics.

use super::aggr::Aggr;
use super::args::{Args, Format};
use super::metricdefs::{self, MetricDef};
use super::scope;
use anyhow::bail;
use pfmlib_perf::Scope;

/// What the arguments ask for, validated.
pub struct Request {
    /// Event groups, in the order given.
    pub groups: Vec<Vec<String>>,
    /// Where to count.
    pub scope: Scope,
    /// How to print the counts.
    pub format: Format,
    /// One line per what (the whole, each CPU, core, socket or thread).
    pub aggr: Aggr,
    /// The metrics of `-M`, in order.
    pub metrics: Vec<&'static MetricDef>,
}

impl Request {
    /// Checks the arguments, in the order perf reports their errors: event
    /// lists, the repeat count, the scope, then a repeat without a command.
    pub fn of(a: &Args) -> anyhow::Result<Request> {
        let metrics = metricdefs::resolve(&a.metrics)?;
        let mut groups = a.event_groups()?;
        metricdefs::add_inputs(&metrics, &mut groups, a.system_wide());
        if a.separator.as_deref() == Some("") {
            bail!("-x '': give a field separator (fields would run together)");
        }
        a.check_combinations()?;
        let scope = scope::resolve(a)?;
        if a.repeat != 1 && a.command.is_empty() {
            bail!("-r repeats a command: give one after --");
        }
        Ok(Request {
            groups,
            scope,
            format: Format::of(a.json, a.separator.as_deref()),
            aggr: Aggr::of(a),
            metrics,
        })
    }
}
