//! `pfm dispatch`: assign counters and compute every register for a set of events.

use pfmlib::Library;
use pfmlib_dispatch::{dispatch, Dispatch, Request};
use serde_json::{json, Value};
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 dispatched; 1 refused (a libpfm-3 error, named); 2 the request cannot be read or is not one \
(with --json a failure is printed as {\"ok\":false,\"error\":{\"kind\":...,\"message\":...}})."
)]
pub struct Args {
    /// Request file (JSON, see docs/dispatch.md); `-` or nothing reads standard input.
    file: Option<String>,
    /// JSON output instead of text; failures too, as `{"ok":false,"error":{...}}`.
    #[arg(long)]
    json: bool,
    /// Request format: `native` (one request, docs/dispatch.md's schema) or
    /// `libpfm3` (IA-64 only: one libpfm-3 style request per line, one
    /// result per line).
    #[arg(long, value_enum, default_value = "native")]
    format: Format,
}

/// Request formats.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// The project's request/response schema.
    Native,
    /// libpfm-3's input/output structures, one JSON object per line.
    Libpfm3,
}

/// Exit status of a request that cannot be read or parsed.
const EXIT_USAGE: u8 = 2;
/// Exit status of a request that dispatch refuses.
const EXIT_REFUSED: u8 = 1;

/// `--format libpfm3`: every line a request (or a reference vector with an
/// `input` member); every result a line. Exit status 1 when one failed; a
/// line that is not a request stops with status 2.
fn run_libpfm3(lib: &Library, text: &str, json: bool) -> anyhow::Result<ExitCode> {
    use pfmlib_dispatch::libpfm3;
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let input = crate::json_strict::parse(line)
            .map_err(|e| anyhow::anyhow!("line {}: invalid JSON: {e}", n + 1))
            .and_then(|v| {
                let v = v.get("input").cloned().unwrap_or(v);
                named_only(&v, "request", &LIBPFM3_ARRAY_KEYS).map_err(|e| {
                    anyhow::anyhow!("line {}: invalid libpfm-3 request: {e}", n + 1)
                })?;
                serde_json::from_value::<libpfm3::Input>(v)
                    .map_err(|e| anyhow::anyhow!("line {}: invalid libpfm-3 request: {e}", n + 1))
            });
        let input = match input {
            Ok(i) => i,
            Err(e) if json => return usage_json(&mut out, &e),
            Err(e) => return Err(e),
        };
        let res = libpfm3::run(lib, &input);
        failed |= res.ret != 0;
        writeln!(out, "{}", serde_json::to_string(&res)?)?;
    }
    Ok(if failed {
        ExitCode::from(EXIT_REFUSED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Prints an unreadable or malformed request as the shared JSON failure.
fn usage_json(out: &mut impl Write, e: &anyhow::Error) -> anyhow::Result<ExitCode> {
    let v = crate::input::error_json("usage", &format!("{e:#}"));
    writeln!(out, "{v}")?;
    Ok(ExitCode::from(EXIT_USAGE))
}

/// The keys whose values are arrays in a native request; any other array
/// stands for an object written positionally.
const ARRAY_KEYS: [&str; 5] = ["events", "flags", "unavail_pmcs", "filter", "ranges"];
/// The same for a libpfm-3 style request.
const LIBPFM3_ARRAY_KEYS: [&str; 5] =
    ["events", "unavail_pmcs", "unit_masks", "ranges", "counters"];

/// Parses a request in the documented format: objects with named fields
/// only, each named once. serde would also take an object written as the
/// array of its field values, and the last of a repeated key; both are
/// refused.
fn parse_request(text: &str) -> anyhow::Result<Request> {
    let v: Value = crate::json_strict::parse(text)
        .map_err(|e| anyhow::anyhow!("invalid dispatch request: {e}"))?;
    named_only(&v, "request", &ARRAY_KEYS)
        .map_err(|e| anyhow::anyhow!("invalid dispatch request: {e}"))?;
    serde_json::from_value(v).map_err(|e| anyhow::anyhow!("invalid dispatch request: {e}"))
}

/// Refuses an array where the schema has an object: `v` itself, a member
/// not named in `array_keys`, an element of a list (no list of either
/// format holds lists).
fn named_only(v: &Value, path: &str, array_keys: &[&str]) -> Result<(), String> {
    let positional = |path: &str| {
        format!("{path} is an array where the format takes an object with named fields or one value (positional arrays are not part of it)")
    };
    match v {
        Value::Array(_) => Err(positional(path)),
        Value::Object(m) => m.iter().try_for_each(|(k, v)| {
            let path = format!("{path}.{k}");
            match v {
                Value::Array(items) if array_keys.contains(&k.as_str()) => {
                    items.iter().enumerate().try_for_each(|(i, item)| {
                        named_only(item, &format!("{path}[{i}]"), array_keys)
                    })
                }
                _ => named_only(v, &path, array_keys),
            }
        }),
        _ => Ok(()),
    }
}

/// A successful dispatch in JSON: `"ok": true` and the result's members.
#[derive(serde::Serialize)]
struct Success<'a> {
    ok: bool,
    #[serde(flatten)]
    res: &'a Dispatch,
}

pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let text = crate::input::read_request(a.file.as_deref().map(std::path::Path::new));
    let text = match text {
        Ok(t) => t,
        Err(e) if a.json => return usage_json(&mut out, &e),
        Err(e) => return Err(e),
    };
    if a.format == Format::Libpfm3 {
        drop(out);
        return run_libpfm3(lib, &text, a.json);
    }
    let req = match parse_request(&text) {
        Ok(r) => r,
        Err(e) if a.json => return usage_json(&mut out, &e),
        Err(e) => return Err(e),
    };
    match dispatch(lib, &req) {
        Ok(res) => {
            if a.json {
                let ok = Success {
                    ok: true,
                    res: &res,
                };
                writeln!(out, "{}", serde_json::to_string(&ok)?)?;
            } else {
                write_text(&mut out, &res)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            if a.json {
                let error = json!({"kind": "dispatch", "code": e.code(), "name": e.kind().name(), "message": e.to_string()});
                writeln!(out, "{}", json!({"ok": false, "error": error}))?;
            } else {
                warn!(
                    "pfm: dispatch failed: {e} ({}, {})",
                    e.kind().name(),
                    e.code()
                );
            }
            Ok(ExitCode::from(EXIT_REFUSED))
        }
    }
}

/// The assignments and registers of a dispatch, for people.
fn write_text(out: &mut impl Write, res: &Dispatch) -> std::io::Result<()> {
    for asg in &res.assignments {
        writeln!(
            out,
            "{:<16} {}  ({})",
            asg.counter.name, asg.fstr, asg.event
        )?;
    }
    writeln!(out, "registers to program:")?;
    for r in &res.pmcs {
        writeln!(
            out,
            "  {:<22} {:#06x} = {:#x}",
            r.reg.name, r.reg.addr, r.value
        )?;
    }
    writeln!(out, "registers to read:")?;
    for r in &res.pmds {
        writeln!(out, "  {:<22} {:#06x}", r.name, r.addr)?;
    }
    for (what, rr) in [("code", &res.irange), ("data", &res.drange)] {
        let Some(rr) = rr else { continue };
        if rr.rr_br.is_empty() {
            continue;
        }
        writeln!(out, "{what} range debug registers:")?;
        for b in &rr.rr_br {
            writeln!(out, "  {:<22} = {:#x}", b.reg.name, b.value)?;
        }
        for (i, inf) in rr.rr_infos.iter().enumerate() {
            if inf.soff != 0 || inf.eoff != 0 {
                writeln!(
                    out,
                    "  range {i}: covers {:#x} bytes before and {:#x} after the range",
                    inf.soff, inf.eoff
                )?;
            }
        }
    }
    if res.irange_is_fine == Some(true) {
        writeln!(out, "code ranges in fine mode")?;
    }
    Ok(())
}
