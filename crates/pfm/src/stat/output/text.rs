//! perf's report for people: a title, one aligned line per event, the
//! elapsed time (with its spread over runs) and the command's CPU times.

use super::record::{CountRecord, Number};
use crate::stat::metric::Metric;
use crate::stat::metricdefs::MetricDef;
use crate::stat::stats::{Line, Tally};
use std::io::{self, Write};

/// Nanoseconds in a second.
const NS_PER_SEC: f64 = 1e9;

/// The whole report: its event `lines` (already laid out), then the
/// elapsed time of `tally`'s runs; `workload`: a command was counted (its
/// user and system times follow).
pub fn report(
    o: &mut dyn Write,
    title: &str,
    lines: &[String],
    tally: &Tally,
    workload: bool,
) -> io::Result<()> {
    let runs = tally.runs;
    writeln!(o)?;
    if runs > 1 {
        writeln!(o, " Performance counter stats for {title} ({runs} runs):")?;
    } else {
        writeln!(o, " Performance counter stats for {title}:")?;
    }
    writeln!(o)?;
    for l in lines {
        writeln!(o, "{l}")?;
    }
    if !lines.is_empty() {
        writeln!(o)?;
    }
    let elapsed = &tally.elapsed;
    let secs = elapsed.mean / NS_PER_SEC;
    if runs > 1 {
        let sd = elapsed.stddev_of_mean() / NS_PER_SEC;
        writeln!(
            o,
            "{secs:>18.9} +- {sd:.9} seconds time elapsed  ( +- {:>5.2}% )",
            elapsed.rel_stddev_pct()
        )?;
    } else {
        writeln!(o, "{secs:>18.9} seconds time elapsed")?;
    }
    if let (Some(end), true, 1) = (tally.last, workload, runs) {
        writeln!(o)?;
        writeln!(o, "{:>18.9} seconds user", end.user.as_secs_f64())?;
        writeln!(o, "{:>18.9} seconds sys", end.sys.as_secs_f64())?;
    }
    writeln!(o)?;
    writeln!(o)?;
    Ok(())
}

/// How a line looks beyond its record.
#[derive(Debug, Clone, Copy, Default)]
pub struct Look<'a> {
    /// Group digits of counts with this separator.
    pub thousands: Option<&'a str>,
    /// The cgroup, after the event.
    pub cgroup: Option<&'a str>,
    /// The unit column's width: perf widens it from 4 (`msec`) to the
    /// longest unit counted (`Joules`).
    pub unit_width: usize,
}

/// The unit column's least width (`unit`, `msec`).
pub const UNIT_WIDTH: usize = 4;

/// The unit column's width for `units`, as perf sets it: the longest, at
/// least [`UNIT_WIDTH`].
pub fn unit_width<'u>(units: impl IntoIterator<Item = &'u str>) -> usize {
    units.into_iter().map(str::len).fold(UNIT_WIDTH, usize::max)
}

/// One event's line, as perf prints it: value, unit, event, `# metric`,
/// then `( +- x% )` over several runs and `(y%)` when multiplexed; digits
/// grouped and a cgroup column as `look` says.
pub fn line_with(rec: &CountRecord, runs: u32, look: &Look) -> String {
    let value = match (look.thousands, rec.status.placeholder(), rec.value) {
        (Some(sep), None, Number::Int(v)) => group_digits(&v.to_string(), sep),
        (Some(sep), None, Number::Real(_)) => {
            let t = rec.value_text();
            match t.split_once('.') {
                Some((int, frac)) => format!("{}.{frac}", group_digits(int, sep)),
                None => group_digits(&t, sep),
            }
        }
        _ => rec.value_text(),
    };
    let event = match look.cgroup {
        Some(cg) => format!("{:<32} {cg}", rec.event),
        None => rec.event.to_string(),
    };
    let mut line = format!(
        "{:>18} {:<uw$} {:<32} {:<28}",
        value,
        rec.unit,
        event,
        fmt_metric(rec.metric),
        uw = look.unit_width.max(UNIT_WIDTH),
    );
    if rec.counted() {
        if runs > 1 {
            line.push_str(&format!("  ( +- {:>5.2}% )", rec.stddev_pct));
        }
        if rec.pct_running < 100.0 {
            line.push_str(&format!("  ({:.2}%)", rec.pct_running));
        }
    }
    line.truncate(line.trim_end().len());
    line
}

/// `# value unit`, percentages with two decimals, other figures with three.
fn fmt_metric(m: Option<Metric>) -> String {
    match m {
        Some(Metric {
            value,
            unit,
            percent: true,
        }) => format!("# {value:>7.2}% {unit}"),
        Some(Metric { value, unit, .. }) => format!("# {value:>8.3} {unit}"),
        None => String::new(),
    }
}

/// `digits` (an integer, maybe signed) with `sep` between groups of three.
pub fn group_digits(digits: &str, sep: &str) -> String {
    let (sign, d) = match digits.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", digits),
    };
    if sep.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
        return digits.to_string();
    }
    let mut out = String::from(sign);
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i) % 3 == 0 {
            out.push_str(sep);
        }
        out.push(c);
    }
    out
}

/// A `-M` metric's line: no count, no event, `# value name`.
pub fn metric_line(lead: &str, m: &MetricDef, value: f64) -> String {
    let shown = Metric {
        value,
        unit: m.name,
        percent: m.percent,
    };
    let line = format!(
        "{lead}{:>18} {:<4} {:<32} {}",
        "",
        "",
        "",
        fmt_metric(Some(shown))
    );
    line.trim_end().to_string()
}

/// The header perf prints above intervals, by the lines' prefixes.
pub fn interval_header(lines: &[Line]) -> &'static str {
    let label = lines.first().and_then(|l| l.label.as_ref());
    match label.map(|l| l.key) {
        Some("cpu") => "#           time CPU                    counts unit events",
        Some("core") => "#           time core            cpus             counts unit events",
        Some("socket") => "#           time socket cpus             counts unit events",
        Some("die") => "#           time die          cpus             counts unit events",
        Some("node") => "#           time node   cpus             counts unit events",
        Some("thread") => {
            "#           time             comm-pid                  counts unit events"
        }
        _ => "#           time             counts unit events",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_grouped_by_three() {
        assert_eq!(group_digits("1234567", ","), "1,234,567");
        assert_eq!(group_digits("123", ","), "123");
        assert_eq!(group_digits("1000", "."), "1.000");
        assert_eq!(group_digits("-12345", ","), "-12,345");
        assert_eq!(group_digits("12345", ""), "12345");
        assert_eq!(group_digits("<not counted>", ","), "<not counted>");
    }
}
