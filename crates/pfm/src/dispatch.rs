//! `pfm dispatch`: assign counters and compute every register for a set of events.

use pfmlib::dispatch::{dispatch, Dispatch, Request};
use pfmlib::Library;
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Request file (JSON, see the README); `-` or nothing reads standard input.
    file: Option<String>,
    /// JSON output instead of text.
    #[arg(long)]
    json: bool,
    /// Request format: `native` (one request, the README's schema) or
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

/// `--format libpfm3`: every line a request (or a reference vector with an
/// `input` member); every result a line. Exit status 1 when one failed.
fn run_libpfm3(lib: &Library, text: &str) -> anyhow::Result<ExitCode> {
    use pfmlib::dispatch::libpfm3;
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("line {}: invalid JSON: {e}", n + 1))?;
        let v = match v.get("input") {
            Some(i) => i.clone(),
            None => v,
        };
        let input: libpfm3::Input = serde_json::from_value(v)
            .map_err(|e| anyhow::anyhow!("line {}: invalid libpfm-3 request: {e}", n + 1))?;
        let res = libpfm3::run(lib, &input);
        failed |= res.ret != 0;
        writeln!(out, "{}", serde_json::to_string(&res)?)?;
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let text = crate::input::read_request(a.file.as_deref().map(std::path::Path::new))?;
    if a.format == Format::Libpfm3 {
        return run_libpfm3(lib, &text);
    }
    let req: Request = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("invalid dispatch request: {e}"))?;
    let mut out = std::io::stdout().lock();
    match dispatch(lib, &req) {
        Ok(res) => {
            if a.json {
                writeln!(out, "{}", serde_json::to_string(&res)?)?;
            } else {
                write_text(&mut out, &res)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            if a.json {
                writeln!(
                    out,
                    "{}",
                    json!({"ok": false, "error": {"code": e.code(), "name": e.kind().name(), "message": e.to_string()}})
                )?;
            } else {
                warn!(
                    "pfm: dispatch failed: {e} ({}, {})",
                    e.kind().name(),
                    e.code()
                );
            }
            Ok(ExitCode::from(1))
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
