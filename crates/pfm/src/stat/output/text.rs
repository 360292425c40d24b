//! perf's report for people: a title, one aligned line per event, the
//! elapsed time (with its spread over runs) and the command's CPU times.

use super::{CountRecord, Metric};
use crate::stat::stats::Tally;
use std::io::{self, Write};

/// Nanoseconds in a second.
const NS_PER_SEC: f64 = 1e9;

/// The whole report of `records` (one per event) over `tally`'s runs;
/// `workload`: a command was counted (its user and system times follow).
pub fn report(
    o: &mut dyn Write,
    title: &str,
    records: &[CountRecord],
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
    for rec in records {
        writeln!(o, "{}", line(rec, runs))?;
    }
    writeln!(o)?;
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

/// One event's line, as perf prints it: value, unit, event, `# metric`,
/// then `( +- x% )` over several runs and `(y%)` when multiplexed.
pub fn line(rec: &CountRecord, runs: u32) -> String {
    let mut line = format!(
        "{:>18} {:<4} {:<32} {:<28}",
        rec.value_text(),
        rec.unit,
        rec.event,
        fmt_metric(rec.metric)
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
