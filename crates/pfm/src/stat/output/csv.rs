//! `-x SEP`: perf's CSV, one line per event: value, unit, event,
//! [variance,] runtime, percent running, metric value, metric unit.

use super::record::{CountRecord, Number};
use crate::stat::metricdefs::MetricDef;
use std::io::{self, Write};

/// One event's line after `lead` (an interval's time, a line's prefix,
/// each with its separator); `runs` above 1 adds the relative standard
/// deviation; a cgroup follows the event.
pub fn line(
    o: &mut dyn Write,
    lead: &str,
    rec: &CountRecord,
    runs: u32,
    sep: &str,
    cgroup: Option<&str>,
) -> io::Result<()> {
    let mut f: Vec<String> = vec![rec.value_text(), rec.unit.into(), rec.event.into()];
    if let Some(cg) = cgroup {
        f.push(cg.into());
    }
    if runs > 1 {
        f.push(format!("{:.2}%", rec.stddev_pct));
    }
    f.push(match rec.runtime {
        Number::Int(v) => v.to_string(),
        Number::Real(v) => format!("{v:.0}"),
    });
    f.push(format!("{:.2}", rec.pct_running));
    match rec.metric {
        Some(m) => {
            f.push(format!("{:.3}", m.value));
            f.push(m.unit.into());
        }
        None => {
            f.push(String::new());
            f.push(String::new());
        }
    }
    writeln!(o, "{lead}{}", f.join(sep))
}

/// A `-M` metric's line: empty count fields, then its value and name
/// (nothing when it could not be computed).
pub fn metric(
    o: &mut dyn Write,
    lead: &str,
    m: &MetricDef,
    value: Option<f64>,
    sep: &str,
) -> io::Result<()> {
    let Some(v) = value else {
        return Ok(());
    };
    let empty = sep.repeat(5);
    writeln!(o, "{lead}{empty}{v:.3}{sep}{}", m.name)
}
