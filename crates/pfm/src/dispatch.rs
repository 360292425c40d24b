//! `pfm dispatch`: assign counters and compute every register for a set of events.

use pfmlib::dispatch::{dispatch, Request};
use pfmlib::Library;
use serde_json::json;
use std::io::{Read, Write};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Request file (JSON, see the README); `-` or nothing reads standard input.
    file: Option<String>,
    /// JSON output instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let mut text = String::new();
    match a.file.as_deref() {
        None | Some("-") => {
            std::io::stdin().read_to_string(&mut text)?;
        }
        Some(path) => {
            text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("cannot read {path}: {e}"))?;
        }
    }
    let req: Request = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("invalid dispatch request: {e}"))?;
    let mut out = std::io::stdout().lock();
    match dispatch(lib, &req) {
        Ok(res) => {
            if a.json {
                writeln!(out, "{}", serde_json::to_string(&res)?)?;
            } else {
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
                        "  {:<22} msr {:#06x} = {:#x}",
                        r.reg.name, r.reg.addr, r.value
                    )?;
                }
                writeln!(out, "registers to read:")?;
                for r in &res.pmds {
                    writeln!(out, "  {:<22} msr {:#06x}", r.name, r.addr)?;
                }
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
                eprintln!(
                    "pfm: dispatch failed: {e} ({}, {})",
                    e.kind().name(),
                    e.code()
                );
            }
            Ok(ExitCode::from(1))
        }
    }
}
