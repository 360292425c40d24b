//! `pfm info`: one event in full.

use crate::OsArg;
use pfmlib::{AttrType, Library, Os};
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Event, as `[pmu::]EVENT` (attributes after the name are ignored).
    event: String,
    /// Attributes as offered by this OS layer.
    #[arg(long, value_enum, default_value = "none")]
    os: OsArg,
    /// JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let os: Os = a.os.into();
    let ev = match lib.find_event(&a.event) {
        Ok(e) => e,
        Err(e) => {
            if a.json {
                println!("{}", crate::check::error_json(&a.event, &e));
            } else {
                eprintln!("pfm: {e}");
            }
            return Ok(ExitCode::from(1));
        }
    };
    let mut out = std::io::stdout().lock();
    if a.json {
        let mut v = crate::list::event_json(&ev, os);
        v["pmu_desc"] = ev.pmu().info().desc.into();
        writeln!(out, "{v}")?;
        return Ok(ExitCode::SUCCESS);
    }
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
    if let Some(eq) = info.equiv {
        writeln!(out, "Equiv    : {eq}")?;
    }
    writeln!(
        out,
        "Precise  : {}",
        if info.is_precise { "yes" } else { "no" }
    )?;
    writeln!(out, "Attrs    : {}", info.nattrs)?;
    for a in ev.attrs(os) {
        let kind = match a.attr_type {
            AttrType::Umask => "umask",
            AttrType::ModBool => "bool",
            AttrType::ModInteger => "int",
            AttrType::RawUmask => "raw",
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
    Ok(ExitCode::SUCCESS)
}
