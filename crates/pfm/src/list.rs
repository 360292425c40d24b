//! `pfm list`: PMUs, events, unit masks and modifiers.

use crate::OsArg;
use pfmlib::{AttrType, Library, Os, Pmu};
use serde_json::{json, Value};
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Only this PMU (any PMU pfmlib knows, present or not).
    #[arg(long)]
    pmu: Option<String>,
    /// Every PMU pfmlib knows, not only those present on this host.
    #[arg(long, conflicts_with = "pmu")]
    all: bool,
    /// Attributes as offered by this OS layer.
    #[arg(long, value_enum, default_value = "none")]
    os: OsArg,
    /// One JSON document instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let os: Os = a.os.into();
    let pmus: Vec<Pmu> = match &a.pmu {
        Some(name) => match lib.pmu(name) {
            Some(p) => vec![p],
            None => {
                let known: Vec<_> = lib.pmus().map(|p| p.name()).collect();
                anyhow::bail!("unknown PMU {name:?} (known: {})", known.join(", "));
            }
        },
        None if a.all => lib.pmus().collect(),
        None => lib.active_pmus().collect(),
    };
    let mut out = std::io::stdout().lock();
    if a.json {
        let doc = json!({
            "host": lib.host(),
            "pmus": pmus.iter().map(|p| pmu_json(p, os)).collect::<Vec<_>>(),
        });
        writeln!(out, "{doc}")?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{}", crate::host_line(lib))?;
    if pmus.is_empty() {
        writeln!(
            out,
            "No PMU is active on this host; use --all or --pmu NAME to see the others."
        )?;
    }
    for p in &pmus {
        write_pmu(&mut out, p, os)?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn pmu_json(p: &Pmu, os: Os) -> Value {
    let mut v = serde_json::to_value(p.info()).unwrap_or(Value::Null);
    v["events"] = p
        .events()
        .map(|e| event_json(&e, os))
        .collect::<Vec<_>>()
        .into();
    v
}

pub fn event_json(e: &pfmlib::Event, os: Os) -> Value {
    let mut v = serde_json::to_value(e.info(os)).unwrap_or(Value::Null);
    v["counters"] = format!("{:#x}", e.counter_mask()).into();
    v["attrs"] = serde_json::to_value(e.attrs(os)).unwrap_or(Value::Null);
    // IA-64: every per-event query of the libpfm-3 pages, under their names.
    if let (Some(q), Value::Object(obj)) = (e.ia64(), &mut v) {
        if let Ok(Value::Object(extra)) = serde_json::to_value(q.queries()) {
            obj.extend(extra);
        }
    }
    v
}

fn write_pmu(out: &mut impl Write, p: &Pmu, os: Os) -> std::io::Result<()> {
    let i = p.info();
    writeln!(out)?;
    writeln!(
        out,
        "PMU {} — {} [{:?}, {}, {} events, {} generic + {} fixed counters]",
        i.name,
        i.desc,
        i.kind,
        if i.is_present {
            "present"
        } else {
            "not present"
        },
        i.nevents,
        i.num_cntrs,
        i.num_fixed_cntrs
    )?;
    for e in p.events() {
        write_event(out, &e, os)?;
    }
    Ok(())
}

pub fn write_event(out: &mut impl Write, e: &pfmlib::Event, os: Os) -> std::io::Result<()> {
    let i = e.info(os);
    let mut tags = vec![format!("code {:#x}", i.code)];
    if i.is_precise {
        tags.push("precise".into());
    }
    if let Some(eq) = i.equiv {
        tags.push(format!("alias of {eq}"));
    }
    writeln!(out, "\n{}::{}  ({})", i.pmu, i.name, tags.join(", "))?;
    writeln!(out, "    {}", i.desc)?;
    let attrs = e.attrs(os);
    let umasks: Vec<_> = attrs
        .iter()
        .filter(|a| a.attr_type == AttrType::Umask)
        .collect();
    let width = umasks.iter().map(|a| a.name.len()).max().unwrap_or(0);
    for u in &umasks {
        let mut flags = Vec::new();
        if u.is_dfl {
            flags.push("default".to_string());
        }
        if u.is_precise {
            flags.push("precise".to_string());
        }
        if let Some(eq) = u.equiv {
            flags.push(format!("= {eq}"));
        }
        let flags = if flags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", flags.join(", "))
        };
        writeln!(
            out,
            "    :{:<width$}  {:#06x}  {}{}",
            u.name, u.code, u.desc, flags
        )?;
    }
    let mods: Vec<String> = attrs
        .iter()
        .filter(|a| a.attr_type != AttrType::Umask)
        .map(|a| {
            if a.attr_type == AttrType::ModInteger {
                format!("{}=N", a.name)
            } else {
                a.name.to_string()
            }
        })
        .collect();
    if !mods.is_empty() {
        writeln!(out, "    modifiers: {}", mods.join(" "))?;
    }
    Ok(())
}
