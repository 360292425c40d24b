//! `-x SEP`: perf's CSV, one line per event: value, unit, event,
//! [variance,] runtime, percent running, metric value, metric unit.

use super::CountRecord;
use std::io::{self, Write};

/// One event's line; `runs` above 1 adds the relative standard deviation.
pub fn line(o: &mut dyn Write, rec: &CountRecord, runs: u32, sep: &str) -> io::Result<()> {
    let mut f: Vec<String> = vec![rec.value_text(), rec.unit.into(), rec.event.into()];
    if runs > 1 {
        f.push(format!("{:.2}%", rec.stddev_pct));
    }
    f.push(match rec.runtime {
        super::Number::Int(v) => v.to_string(),
        super::Number::Real(v) => format!("{v:.0}"),
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
    writeln!(o, "{}", f.join(sep))
}
