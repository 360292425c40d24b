//! `pfm check` for people: one block per event, as libpfm4's check_events
//! prints it.

use pfmlib::{Encoding, Library, Os};
use std::io::{self, Write};

/// Event number `n` (0 for the first: blocks after it start with a blank
/// line), given as `ev`, encoded as `enc` for `os`.
pub fn write_encoding(
    out: &mut dyn Write,
    lib: &Library,
    n: usize,
    ev: &str,
    enc: &Encoding,
    os: Os,
) -> io::Result<()> {
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
    write_perf(out, enc)
}

/// The perf_event_attr fields, when the OS layer has them.
fn write_perf(out: &mut dyn Write, enc: &Encoding) -> io::Result<()> {
    let Some(p) = &enc.perf else {
        return Ok(());
    };
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
    Ok(())
}
