//! `pfm check`: encode events (libpfm4's check_events), from the command
//! line and, with `--input`, one per line of a file or standard input.
//!
//! Output goes through one buffer; JSON lines are written directly
//! ([`json`](mod@json)), byte for byte as serde_json would print them.

mod input;
mod json;
mod text;

use crate::cli::{quoted, OsArg};
use anyhow::bail;
use pfmlib::{Library, Os, Plm};
use serde_json::{json, Value};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Bytes of output buffered before a write to standard output.
const OUTPUT_BUFFER: usize = 64 * 1024;

/// The arguments of `pfm check`.
#[derive(clap::Args)]
pub struct Args {
    /// Event strings, `[pmu::]EVENT[:UMASK...][:mod=val...]` (optional with --input).
    events: Vec<String>,
    /// Also read event strings from FILE (`-`: standard input), one per
    /// line, after the ones given as arguments; empty lines are skipped.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// OS layer to encode for.
    #[arg(long, value_enum, default_value = "none")]
    os: OsArg,
    /// Default privilege levels: u (user), k (kernel), h (hypervisor), any combination.
    #[arg(long, default_value = "uk", value_parser = parse_plm)]
    plm: Plm,
    /// One JSON object per event, one per line.
    #[arg(long)]
    json: bool,
}

fn parse_plm(s: &str) -> Result<Plm, String> {
    if s.is_empty() {
        return Err("give at least one of u, k, h".into());
    }
    let mut p = Plm::default();
    for c in s.chars() {
        p = p | match c {
            'u' => Plm::PLM3,
            'k' => Plm::PLM0,
            'h' => Plm::PLMH,
            other => {
                return Err(format!(
                    "unknown privilege level {other:?}: use u, k and/or h"
                ))
            }
        };
    }
    Ok(p)
}

/// The JSON object of an event that did not encode (as `pfm check --json`
/// prints it), as a serde_json value.
pub fn error_json(event: &str, e: &pfmlib::Error) -> Value {
    json!({
        "event": event,
        "ok": false,
        "error": {"code": e.code(), "name": e.kind().name(), "message": e.to_string()},
    })
}

/// Encodes every event given; exit status 1 when one fails.
pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    if a.events.is_empty() && a.input.is_none() {
        bail!("no event to check: give event strings, or --input FILE (`-` for standard input)");
    }
    let mut out = BufWriter::with_capacity(OUTPUT_BUFFER, std::io::stdout().lock());
    let mut checker = Checker::new(lib, &a, &mut out);
    let res = check_all(&mut checker, &a);
    let failed = checker.failed;
    // What was encoded before an error is still printed.
    let flushed = out.flush();
    res?;
    flushed?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The events of the command line, then those of `--input`.
fn check_all(checker: &mut Checker, a: &Args) -> anyhow::Result<()> {
    for ev in &a.events {
        checker.check(ev)?;
    }
    if let Some(path) = &a.input {
        // Each answer is out before the next line may be waited for.
        input::for_each_event(path, |it| match it {
            input::Item::Event(ev) => Ok(checker.check(ev)?),
            input::Item::Idle => Ok(checker.out.flush()?),
        })?;
    }
    Ok(())
}

/// Encodes events one after the other and prints each result.
struct Checker<'a> {
    lib: &'a Library,
    os: Os,
    plm: Plm,
    json: bool,
    out: &'a mut dyn Write,
    /// Events checked so far (text output separates them with a blank line).
    count: usize,
    /// One event failed.
    failed: bool,
    /// The JSON line being built, reused.
    line: Vec<u8>,
}

impl<'a> Checker<'a> {
    fn new(lib: &'a Library, a: &Args, out: &'a mut dyn Write) -> Checker<'a> {
        Checker {
            lib,
            os: a.os.into(),
            plm: a.plm,
            json: a.json,
            out,
            count: 0,
            failed: false,
            line: Vec::with_capacity(512),
        }
    }

    /// Encodes `ev` and prints the encoding or the error.
    fn check(&mut self, ev: &str) -> std::io::Result<()> {
        let n = self.count;
        self.count += 1;
        match self.lib.encode(ev, self.plm, self.os) {
            Ok(enc) if self.json => self.json_line(|line| json::write_encoding(line, ev, &enc)),
            Ok(enc) => text::write_encoding(self.out, self.lib, n, ev, &enc, self.os),
            Err(e) if self.json => {
                self.failed = true;
                self.json_line(|line| json::write_error(line, ev, &e))
            }
            Err(e) => {
                self.failed = true;
                // Standard error is not buffered: what came before goes first.
                self.out.flush()?;
                warn!(
                    "pfm: cannot encode {}: {e} ({}, {})",
                    quoted(ev),
                    e.kind().name(),
                    e.code()
                );
                Ok(())
            }
        }
    }

    /// Builds one JSON line with `write` and prints it.
    fn json_line(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> std::io::Result<()> {
        self.line.clear();
        write(&mut self.line);
        self.line.push(b'\n');
        self.out.write_all(&self.line)
    }
}
