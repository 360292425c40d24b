//! `pfm list --json` written as it goes: one event's value at a time, so
//! the memory used does not grow with the output (the whole document as one
//! value tree took about twelve times the size of its text).
//!
//! The bytes are serde_json's compact rendering of the document
//! `{"host":..,"pmus":[{..PMU..,"events":[..]},..]}`: each object is written
//! key by key in its map's own order (sorted keys, as serde_json's map keeps
//! them), keys and leaf values by serde_json itself, and the one array that
//! would be large (a PMU's events, the PMUs) element by element. The unit
//! tests of `list` compare both renderings for a sample of PMUs.

use serde_json::{Map, Value};
use std::io::{self, Write};

/// The key of the PMU array in the document and of the event array in a PMU.
const PMUS: &str = "pmus";
/// The key of a PMU's events.
const EVENTS: &str = "events";

/// Writes `{"host":HOST,"pmus":[..]}` and a newline: each PMU is its
/// information as an object (whose `events` key, if any, is replaced) and
/// its events' values, written one after the other.
pub fn write_list<W, P, E>(out: &mut W, host: Value, pmus: P) -> io::Result<()>
where
    W: Write,
    P: IntoIterator<Item = (Value, E)>,
    E: IntoIterator<Item = Value>,
{
    let mut doc = Map::new();
    doc.insert("host".into(), host);
    doc.insert(PMUS.into(), Value::Null);
    write_object(out, &doc, PMUS, |out| {
        write_array(out, pmus, |out, (head, events)| {
            write_pmu(out, head, events)
        })
    })?;
    out.write_all(b"\n")
}

/// One PMU: its information with `events` as the stream of event values.
fn write_pmu<W: Write, E: IntoIterator<Item = Value>>(
    out: &mut W,
    head: Value,
    events: E,
) -> io::Result<()> {
    let mut map = match head {
        Value::Object(m) => m,
        Value::Null => Map::new(),
        _ => return Err(io::Error::other("a PMU's information is not an object")),
    };
    // Where `events` goes is where the map puts it: a placeholder inserted
    // as `v["events"] = ..` inserts.
    map.insert(EVENTS.into(), Value::Null);
    write_object(out, &map, EVENTS, |out| {
        write_array(out, events, |out, v| write_value(out, &v))
    })
}

/// `{"k":v,..}` in the map's order, the value of `streamed` written by
/// `write_streamed` instead of the map's.
fn write_object<W: Write>(
    out: &mut W,
    map: &Map<String, Value>,
    streamed: &str,
    write_streamed: impl FnOnce(&mut W) -> io::Result<()>,
) -> io::Result<()> {
    let mut write_streamed = Some(write_streamed);
    out.write_all(b"{")?;
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, k).map_err(io::Error::from)?;
        out.write_all(b":")?;
        match write_streamed.take_if(|_| k == streamed) {
            Some(f) => f(out)?,
            None => write_value(out, v)?,
        }
    }
    out.write_all(b"}")
}

/// `[a,b,..]`, each element written by `write_one`.
fn write_array<W: Write, T>(
    out: &mut W,
    items: impl IntoIterator<Item = T>,
    mut write_one: impl FnMut(&mut W, T) -> io::Result<()>,
) -> io::Result<()> {
    out.write_all(b"[")?;
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write_one(out, item)?;
    }
    out.write_all(b"]")
}

/// One value, compact, as serde_json writes it.
fn write_value<W: Write>(out: &mut W, v: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v).map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The document as one value, rendered by serde_json.
    fn whole(host: &Value, pmus: &[(Value, Vec<Value>)]) -> String {
        let pmus: Vec<Value> = pmus
            .iter()
            .map(|(h, ev)| {
                let mut v = h.clone();
                v["events"] = ev.clone().into();
                v
            })
            .collect();
        format!("{}\n", json!({ "host": host, "pmus": pmus }))
    }

    fn streamed(host: &Value, pmus: &[(Value, Vec<Value>)]) -> String {
        let mut out = Vec::new();
        write_list(&mut out, host.clone(), pmus.iter().cloned()).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn same_bytes_as_the_whole_value() {
        let host = json!({"z": 1, "arch": "x86", "s": "q\"\\\n\u{1}é"});
        let cases = [
            vec![],
            vec![(json!({}), vec![])],
            vec![(json!({"name": "a", "desc": "d", "zz": [1, 2]}), vec![])],
            vec![
                (
                    json!({"name": "a", "events": 7, "e": null, "f": {"x": -1}}),
                    vec![json!({"b": 1, "a": [true, null]}), json!("x\t")],
                ),
                (json!({"a": 0, "ez": 1}), vec![json!(1), json!({})]),
            ],
        ];
        for pmus in &cases {
            assert_eq!(streamed(&host, pmus), whole(&host, pmus));
        }
    }

    #[test]
    fn same_bytes_as_serde_json_for_a_sample_of_pmus() {
        // What `pfm list --json` printed before it streamed: the whole
        // document as one value (`v["events"] = [..]` on each PMU's value).
        use crate::list::{event_json, pmu_json};
        use pfmlib::{Library, Os};
        let lib = Library::global();
        let host = serde_json::to_value(lib.host()).unwrap();
        let sample: Vec<_> = lib
            .pmus()
            .enumerate()
            .filter(|(i, p)| i % 9 == 0 || p.name() == "perf")
            .map(|(_, p)| p)
            .collect();
        assert!(sample.len() > 10, "{}", sample.len());
        for os in [Os::None, Os::PerfEvent, Os::PerfEventExt] {
            let mut old = Vec::new();
            for p in &sample {
                let mut v = pmu_json(p);
                v["events"] = p.events().map(|e| event_json(&e, os)).collect();
                old.push(v);
            }
            let old = format!("{}\n", json!({ "host": host, "pmus": old }));
            let mut new = Vec::new();
            let pmus = sample.iter().map(|p| {
                let events = p.events().map(move |e| event_json(&e, os));
                (pmu_json(p), events)
            });
            write_list(&mut new, host.clone(), pmus).unwrap();
            assert!(old.len() > 100_000, "{}", old.len());
            assert!(new == old.as_bytes(), "{os:?}: the streamed bytes differ");
        }
    }

    #[test]
    fn a_pmu_that_is_not_an_object_is_an_error() {
        let mut out = Vec::new();
        let pmus = vec![(json!([1]), Vec::<Value>::new())];
        assert!(write_list(&mut out, json!(null), pmus).is_err());
    }
}
