//! The C interface: pfmlib's `libpfm.so.4` (crates/libpfm) against
//! libpfm4's, called by one C program (`c/capi_bench.c`) that is run once
//! per library (a process cannot hold both `libpfm.so.4`s): with
//! `LD_LIBRARY_PATH` pointing at ours, and without, for the installed one.
//! The two processes alternate, `--capi-runs` times each; each prints, per
//! workload, the median time per item over 21 slices and a check value
//! both libraries must agree on (what the calls returned).
//!
//! Workloads: `pfm_initialize`; `pfm_find_event` on every `nhm` event name
//! with and without prefix (nhm forced); `pfm_get_os_event_encoding` on
//! every event × unit mask of `nhm`, for `PFM_OS_NONE` and
//! `PFM_OS_PERF_EVENT_EXT` (codes and strings allocated by the library and
//! freed); a full listing of the PMUs both libraries have through
//! `pfm_get_pmu_info`, `pfm_get_event_next`, `pfm_get_event_info` and
//! `pfm_get_event_attr_info`.

use crate::{encode_umasks, lookup_prefixed, lookup_unprefixed, SharedPmu};
use pfmlib::Library;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The C program.
pub const C_SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/c/capi_bench.c");

/// The program's input: the PMU ids to list, the names to look up, the
/// strings to encode (`lib` answers for a Nehalem host).
pub fn input(lib: &Library, pmus: &[SharedPmu]) -> String {
    let mut s = String::new();
    for p in pmus {
        s.push_str(&format!("pmu {}\n", p.id));
    }
    for i in lookup_prefixed(lib)
        .into_iter()
        .chain(lookup_unprefixed(lib))
    {
        s.push_str(&format!("find {}\n", i.s));
    }
    for i in encode_umasks(lib) {
        s.push_str(&format!("encode {}\n", i.s));
    }
    s
}

/// Compiles [`C_SOURCE`] to `out` with `cc -O2` against the headers in
/// `include` (ours: they declare libpfm4's ABI byte for byte), linked
/// against a `libpfm.so.4` (the installed one where there is one; the
/// library is chosen again when the program runs).
pub fn compile(out: &Path, include: &Path, ours: &Path) -> Result<(), String> {
    let mut cc = Command::new("cc");
    cc.args(["-O2", "-Wall", "-I"])
        .arg(include)
        .arg("-o")
        .arg(out)
        .arg(C_SOURCE);
    if Path::new(crate::bulk::LIBPFM_SO).exists() {
        cc.arg(crate::bulk::LIBPFM_SO);
    } else {
        cc.arg(ours);
    }
    let o = cc
        .output()
        .map_err(|e| format!("cannot run cc (a C compiler is needed): {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "cc failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

/// What one run printed.
#[derive(Debug, Default, Clone)]
pub struct Run {
    /// Workload → (nanoseconds per item, check value).
    pub figures: BTreeMap<String, (f64, u64)>,
    /// Events, attributes and bytes of names and descriptions listed.
    pub listed: Option<(u64, u64, u64)>,
}

/// Parses the program's output (added to `run`).
pub fn parse(out: &str, run: &mut Run) -> Result<(), String> {
    for line in out.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["listed", e, a, b] => {
                let n = |s: &str| s.parse::<u64>().map_err(|e| format!("{line}: {e}"));
                run.listed = Some((n(e)?, n(a)?, n(b)?));
            }
            [name, ns, _items, check] => {
                let ns: f64 = ns.parse().map_err(|e| format!("{line}: {e}"))?;
                let check: u64 = check.parse().map_err(|e| format!("{line}: {e}"))?;
                run.figures.insert(name.to_string(), (ns, check));
            }
            _ => return Err(format!("unexpected line from capi_bench: {line:?}")),
        }
    }
    Ok(())
}

/// The workloads, in the order of the table, with the environment each
/// runs in: listing and initialisation as on this machine, lookups and
/// encodings with nhm forced (so that unprefixed names are nhm's in both).
pub const WORKLOADS: &[(&str, &[(&str, &str)])] = &[
    ("init", &[("LIBPFM_ENCODE_INACTIVE", "1")]),
    (
        "find",
        &[("LIBPFM_FORCE_PMU", "nhm"), ("LIBPFM_ENCODE_INACTIVE", "1")],
    ),
    (
        "none",
        &[("LIBPFM_FORCE_PMU", "nhm"), ("LIBPFM_ENCODE_INACTIVE", "1")],
    ),
    (
        "perf",
        &[("LIBPFM_FORCE_PMU", "nhm"), ("LIBPFM_ENCODE_INACTIVE", "1")],
    ),
    ("listing", &[("LIBPFM_ENCODE_INACTIVE", "1")]),
];

/// The command running workload `w` against our library (`ours`: the
/// folder holding it as `libpfm.so.4`) or the installed one (`None`).
pub fn command(exe: &Path, input: &Path, w: &str, ours: Option<&Path>) -> Command {
    let mut c = Command::new(exe);
    c.arg(input).arg(w);
    for k in [
        "LIBPFM_FORCE_PMU",
        "LIBPFM_DISABLED_PMUS",
        "LIBPFM_ENCODE_INACTIVE",
        "LIBPFM_VERBOSE",
        "LIBPFM_DEBUG",
        "LD_LIBRARY_PATH",
    ] {
        c.env_remove(k);
    }
    if let Some((_, env)) = WORKLOADS.iter().find(|(n, _)| *n == w) {
        c.envs(env.iter().copied());
    }
    if let Some(dir) = ours {
        c.env("LD_LIBRARY_PATH", dir);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_lines() {
        let mut r = Run::default();
        parse("find 287.79 186 5851\nlisted 672 5390 344702\n", &mut r).unwrap();
        assert_eq!(r.figures["find"], (287.79, 5851));
        assert_eq!(r.listed, Some((672, 5390, 344702)));
        assert!(parse("oops", &mut r).is_err());
    }
}
