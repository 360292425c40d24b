//! `-j`: one JSON object per event per run, and one summary object per
//! event after several runs (keys in serde_json's order).

use super::record::{CountRecord, Number, Status};
use crate::stat::metricdefs::MetricDef;
use serde_json::{json, Value};
use std::io::{self, Write};

fn number(n: Number) -> Value {
    match n {
        Number::Int(v) => json!(v),
        Number::Real(v) => json!(v),
    }
}

/// The value, or `null` when there is none (`status` says why): a number
/// or null, never a string, so programs can read the field as a number.
fn counter_value(rec: &CountRecord) -> Value {
    match rec.status.placeholder() {
        Some(_) => Value::Null,
        None => number(rec.value),
    }
}

/// A scaled event's count before its scale, beside `counter-value` (in
/// the unit, as perf's JSON gives it): `raw-counter-value`.
fn raw_count(v: &mut Value, rec: &CountRecord) {
    if let (Some(raw), true) = (rec.raw, rec.counted()) {
        v["raw-counter-value"] = number(raw);
    }
}

/// `v` and a newline in one write.
fn write_line(o: &mut dyn Write, v: &Value) -> io::Result<()> {
    let mut line = v.to_string();
    line.push('\n');
    o.write_all(line.as_bytes())
}

/// One event's record, with `extra` fields first (a line's prefix, the
/// run and its time, or the interval).
pub fn record(o: &mut dyn Write, rec: &CountRecord, extra: &[(&str, Value)]) -> io::Result<()> {
    let mut v = json!({
        "event": rec.event,
        "unit": rec.unit,
        "counter-value": counter_value(rec),
        "status": rec.status.name(),
        "event-runtime": number(rec.runtime),
        "pcnt-running": rec.pct_running,
    });
    for (k, x) in extra {
        v[*k] = x.clone();
    }
    if let Status::NotSupported(reason) = rec.status {
        v["error"] = reason.into();
    }
    raw_count(&mut v, rec);
    if let Some(r) = rec.reading {
        v["raw-value"] = r.value.into();
        v["time-enabled"] = r.time_enabled.into();
        v["time-running"] = r.time_running.into();
    }
    if let Some(m) = rec.metric {
        v["metric-value"] = json!(m.value);
        v["metric-unit"] = m.unit.into();
    }
    write_line(o, &v)
}

/// One event over several runs (`extra`: `summary`, `runs`, a prefix):
/// the mean and its spread when counted.
pub fn summary(o: &mut dyn Write, rec: &CountRecord, extra: &[(&str, Value)]) -> io::Result<()> {
    let mut v = json!({
        "event": rec.event,
        "unit": rec.unit,
        "counter-value": counter_value(rec),
        "status": rec.status.name(),
    });
    for (k, x) in extra {
        v[*k] = x.clone();
    }
    raw_count(&mut v, rec);
    if rec.counted() {
        v["variance"] = json!(rec.variance);
        v["stddev-pct"] = json!(rec.stddev_pct);
        v["pcnt-running"] = json!(rec.pct_running);
    }
    write_line(o, &v)
}

/// A `-M` metric: its value, or `null` with `status` "not counted" when
/// an input was not counted.
pub fn metric(
    o: &mut dyn Write,
    m: &MetricDef,
    value: Option<f64>,
    extra: &[(&str, Value)],
) -> io::Result<()> {
    let mut v = json!({
        "metric": m.name,
        "metric-value": value,
        "metric-unit": if m.percent { "%" } else { "" },
        "status": if value.is_some() { "counted" } else { "not counted" },
    });
    for (k, x) in extra {
        v[*k] = x.clone();
    }
    write_line(o, &v)
}
