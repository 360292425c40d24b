//! `pfm info`: events in full, one after the other.

use crate::cli::OsArg;
use pfmlib::{AttrType, Event, Library, Os};
use std::io::Write;
use std::process::ExitCode;

/// `pfm info`'s arguments.
#[derive(clap::Args)]
#[command(after_long_help = "\
Several events are shown one after the other, separated by a blank line; with
--json, one JSON object a line (JSON Lines, as `pfm check --json`): the
event's object, or for an event that cannot be found an object with `ok:
false` and the error. One event gives exactly the single object of earlier
versions. Exit status: 0 when every event was found, 1 when one was not (the
others are still shown; the missing ones are reported on standard error in
text mode).")]
pub struct Args {
    /// Events, as `[pmu::]EVENT` (attributes after the name are ignored).
    #[arg(required = true, value_name = "EVENT")]
    events: Vec<String>,
    /// Attributes as offered by this OS layer.
    #[arg(long, value_enum, default_value = "none")]
    os: OsArg,
    /// JSON instead of text: one object a line, one line per event.
    #[arg(long)]
    json: bool,
}

/// Shows each event; status 1 when one of them cannot be found.
pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let os: Os = a.os.into();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut failed = false;
    let mut first = true;
    for name in &a.events {
        let ev = match lib.find_event(name) {
            Ok(e) => e,
            Err(e) => {
                failed = true;
                if a.json {
                    writeln!(out, "{}", crate::check::error_json(name, &e))?;
                } else {
                    out.flush()?;
                    warn!("pfm: {}: {e}", crate::cli::quoted(name));
                }
                continue;
            }
        };
        if a.json {
            let mut v = crate::list::event_json(&ev, os);
            v["pmu_desc"] = ev.pmu().info().desc.into();
            writeln!(out, "{v}")?;
            continue;
        }
        if !first {
            writeln!(out)?;
        }
        first = false;
        write_event(&mut out, &ev, os)?;
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One event for people: name, PMU, index, codes, description, attributes.
fn write_event(out: &mut impl Write, ev: &Event, os: Os) -> std::io::Result<()> {
    let info = ev.info(os);
    let pmu = ev.pmu().info();
    writeln!(out, "Name     : {}::{}", pmu.name, info.name)?;
    writeln!(
        out,
        "PMU      : {} ({})",
        pmu.desc,
        if pmu.is_present {
            "present"
        } else {
            "not present on this host"
        }
    )?;
    writeln!(out, "IDX      : {}", info.idx)?;
    writeln!(out, "Code     : {:#x}", info.code)?;
    writeln!(out, "Counters : {:#x}", ev.counter_mask())?;
    writeln!(out, "Desc     : {}", info.desc)?;
    if let Some(facts) = pfmlib_dispatch::model_facts(*ev) {
        for (label, value) in facts.lines() {
            writeln!(out, "{label:<9}: {value}")?;
        }
    }
    if let Some(eq) = info.equiv {
        writeln!(out, "Equiv    : {eq}")?;
    }
    writeln!(
        out,
        "Precise  : {}",
        if info.is_precise { "yes" } else { "no" }
    )?;
    writeln!(out, "Attrs    : {}", info.nattrs)?;
    write_attrs(out, ev, os)
}

/// One line per attribute the OS layer offers: index, type, who controls
/// it, name, code, description and flags.
fn write_attrs(out: &mut impl Write, ev: &Event, os: Os) -> std::io::Result<()> {
    for a in ev.attrs(os) {
        let kind = match a.attr_type {
            AttrType::Umask => "umask",
            AttrType::ModBool => "bool",
            AttrType::ModInteger => "int",
            AttrType::RawUmask => "raw",
            _ => "other",
        };
        let ctrl = match a.ctrl {
            pfmlib::AttrCtrl::Pmu => "PMU",
            pfmlib::AttrCtrl::PerfEvent => "perf_event",
        };
        let mut extra = Vec::new();
        if a.is_dfl {
            extra.push("default".to_string());
        }
        if a.is_precise {
            extra.push("precise".to_string());
        }
        if let Some(eq) = a.equiv {
            extra.push(format!("= {eq}"));
        }
        writeln!(
            out,
            "  {:>2} {:<5} {:<10} {:<24} {:#08x}  {}{}",
            a.idx,
            kind,
            ctrl,
            a.name,
            a.code,
            a.desc,
            if extra.is_empty() {
                String::new()
            } else {
                format!(" [{}]", extra.join(", "))
            }
        )?;
    }
    Ok(())
}
