//! `pfm check`: encode events (libpfm4's check_events).

use crate::OsArg;
use pfmlib::{Library, Os, Plm};
use serde_json::{json, Value};
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Event strings, `[pmu::]EVENT[:UMASK...][:mod=val...]`.
    #[arg(required = true)]
    events: Vec<String>,
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

pub fn error_json(event: &str, e: &pfmlib::Error) -> Value {
    json!({
        "event": event,
        "ok": false,
        "error": {"code": e.code(), "name": e.kind().name(), "message": e.to_string()},
    })
}

pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let os: Os = a.os.into();
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    for (n, ev) in a.events.iter().enumerate() {
        match lib.encode(ev, a.plm, os) {
            Ok(enc) => {
                if a.json {
                    let mut v = json!({
                        "event": ev,
                        "ok": true,
                        "pmu": enc.pmu,
                        "fstr": enc.fstr,
                        "idx": enc.idx,
                        "codes": enc.codes.iter().map(|c| format!("{c:#x}")).collect::<Vec<_>>(),
                    });
                    if let Some(p) = enc.perf {
                        v["perf"] = json!({
                            "type": p.type_,
                            "config": format!("{:#x}", p.config),
                            "config1": format!("{:#x}", p.config1),
                            "config2": format!("{:#x}", p.config2),
                            "exclude_user": p.exclude_user,
                            "exclude_kernel": p.exclude_kernel,
                            "exclude_hv": p.exclude_hv,
                            "exclude_host": p.exclude_host,
                            "exclude_guest": p.exclude_guest,
                            "precise_ip": p.precise_ip,
                            "sample_period": p.sample_period,
                            "freq": p.freq,
                            "pinned": p.pinned,
                            "exclusive": p.exclusive,
                        });
                        if let Some(cpu) = enc.cpu {
                            v["perf"]["cpu"] = cpu.into();
                        }
                    }
                    writeln!(out, "{v}")?;
                } else {
                    if n > 0 {
                        writeln!(out)?;
                    }
                    let pmu = lib.pmu(enc.pmu).map(|p| p.info().desc).unwrap_or("");
                    writeln!(out, "Requested Event: {ev}")?;
                    writeln!(out, "Actual    Event: {}", enc.fstr)?;
                    writeln!(out, "PMU            : {pmu}")?;
                    writeln!(out, "IDX            : {}", enc.idx)?;
                    if os == Os::None {
                        writeln!(
                            out,
                            "Codes          : {}",
                            enc.codes
                                .iter()
                                .map(|c| format!("{c:#x}"))
                                .collect::<Vec<_>>()
                                .join(" ")
                        )?;
                        for (i, c) in enc.codes.iter().enumerate() {
                            writeln!(out, "Codes[{i}]       : {c:#018x}")?;
                        }
                    }
                    if let Some(p) = enc.perf {
                        writeln!(out, "perf type      : {}", p.type_)?;
                        writeln!(out, "perf config    : {:#x}", p.config)?;
                        if p.config1 != 0 || p.config2 != 0 {
                            writeln!(out, "perf config1/2 : {:#x} {:#x}", p.config1, p.config2)?;
                        }
                        writeln!(
                            out,
                            "perf exclude   : user={} kernel={} hv={} host={} guest={}",
                            p.exclude_user as u8,
                            p.exclude_kernel as u8,
                            p.exclude_hv as u8,
                            p.exclude_host as u8,
                            p.exclude_guest as u8
                        )?;
                        writeln!(
                            out,
                            "perf sampling  : {}={} precise_ip={} pinned={} exclusive={}",
                            if p.freq { "freq" } else { "period" },
                            p.sample_period,
                            p.precise_ip,
                            p.pinned as u8,
                            p.exclusive as u8
                        )?;
                        if let Some(cpu) = enc.cpu {
                            writeln!(out, "perf cpu       : {cpu}")?;
                        }
                    }
                }
            }
            Err(e) => {
                failed = true;
                if a.json {
                    writeln!(out, "{}", error_json(ev, &e))?;
                } else {
                    out.flush()?;
                    eprintln!(
                        "pfm: cannot encode {ev:?}: {e} ({}, {})",
                        e.kind().name(),
                        e.code()
                    );
                }
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
