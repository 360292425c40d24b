//! Helpers every subcommand shares: messages on standard error, quoting of
//! user input in them, the OS-layer option, the host line.

/// Writes a line to standard error; a failed write (closed or full) is
/// ignored, as there is nowhere left to report it (never a panic).
macro_rules! warn {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// User input quoted for a message, cut when huge (pfmlib's own quoting).
pub use pfmlib::quoted;

/// OS layer for encodings and attribute lists.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum OsArg {
    /// Raw PMU register values.
    None,
    /// Linux perf_events (PMU attributes).
    Perf,
    /// Linux perf_events with sampling and scheduling attributes.
    PerfExt,
}

impl From<OsArg> for pfmlib::Os {
    fn from(o: OsArg) -> pfmlib::Os {
        match o {
            OsArg::None => pfmlib::Os::None,
            OsArg::Perf => pfmlib::Os::PerfEvent,
            OsArg::PerfExt => pfmlib::Os::PerfEventExt,
        }
    }
}

/// One line describing the host for people: the CPU as its architecture
/// identifies it (see [`cpu_words`]), where the facts come from when it is a
/// recorded host, and whether the kernel exposes a CPU PMU.
pub fn host_line(lib: &pfmlib::Library) -> String {
    let h = lib.host();
    let mut cpu = cpu_words(h);
    if let Some(root) = h.root().filter(|r| *r != std::path::Path::new("/")) {
        cpu += &format!(", recorded host under {}", root.display());
    }
    let pmu = if h.kernel_cpu_pmu {
        "the kernel exposes a hardware CPU PMU".to_string()
    } else {
        "the kernel exposes no hardware CPU PMU (no cpu, armv* or cpum_cf PMU under /sys/bus/event_source/devices, as in most VMs): hardware events can be encoded but not counted here".to_string()
    };
    format!("Host: {cpu}; {pmu}")
}

/// The CPU in the words of its architecture: Arm by implementer and part in
/// hex, as `/proc/cpuinfo` shows them (every kind of core of a big.LITTLE
/// machine); POWER by processor version and revision; IBM Z by machine type
/// and counter facility version; SPARC by `/proc/cpuinfo`'s `pmu`; MIPS by
/// its `cpu model`; RISC-V by the first hart's `mvendorid`, `marchid` and
/// `mimpid`; others by brand (or vendor), family and model.
fn cpu_words(h: &pfmlib::Host) -> String {
    if let Some(a) = h.arm {
        let mut ids = format!(
            "{:?} (implementer {:#x}, part {:#x}, architecture {}",
            h.vendor, a.implementer, a.part, a.architecture
        );
        // The other kinds of cores of a big.LITTLE machine.
        for o in h.arm_cpus.iter().skip(1) {
            ids += &format!(
                "; also implementer {:#x}, part {:#x}",
                o.implementer, o.part
            );
        }
        return ids + ")";
    }
    if let Some(pvr) = h.pvr {
        return format!(
            "IBM POWER (processor version {:#06x}, revision {:#06x})",
            pvr >> 16,
            pvr & 0xffff
        );
    }
    if let Some(z) = h.s390x {
        return format!(
            "IBM Z (machine type {}, counter facility version {}.{})",
            z.machine_type, z.cfvn, z.csvn
        );
    }
    if let Some(p) = &h.sparc_pmu {
        return format!("SPARC (/proc/cpuinfo pmu {p})");
    }
    if let Some(model) = &h.mips_cpu_model {
        return format!("MIPS (cpu model {model:?})");
    }
    if let Some(ids) = h.riscv {
        return format!(
            "RISC-V (mvendorid {:#x}, marchid {:#x}, mimpid {:#x})",
            ids.mvendorid, ids.marchid, ids.mimpid
        );
    }
    let name = h
        .brand_string()
        .unwrap_or_else(|| format!("{:?}", h.vendor));
    format!("{name} (family {}, model {})", h.family, h.model)
}

/// Up to `most` of `names` close to `wanted` (case aside): those holding it
/// or held by it, then those within two edits of it, nearest first.
pub fn closest<'a>(
    wanted: &str,
    names: impl Iterator<Item = &'a str>,
    most: usize,
) -> Vec<&'a str> {
    let w = wanted.to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = names
        .filter_map(|n| {
            let l = n.to_ascii_lowercase();
            if w.len() >= 3 && (l.contains(&w) || w.contains(&l)) {
                return Some((0, n));
            }
            let d = edit_distance(&w, &l);
            (d <= 2).then_some((d, n))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(most).map(|(_, n)| n).collect()
}

/// Levenshtein distance between two ASCII-lowercased names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<u8> = b.bytes().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod closest_tests {
    use super::closest;

    #[test]
    fn near_names_first() {
        let names = ["power9", "power10", "power8", "nhm", "snb_unc_cbo0"];
        assert_eq!(closest("powr9", names.into_iter(), 3), ["power9", "power8"]);
        assert_eq!(
            closest("POWER", names.into_iter(), 2),
            ["power10", "power8"]
        );
        assert!(closest("nosuch", names.into_iter(), 8).is_empty());
        assert_eq!(closest("unc", names.into_iter(), 8), ["snb_unc_cbo0"]);
    }
}
