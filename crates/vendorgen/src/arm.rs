//! Arm: the per-core PMU event data Arm publishes (`cortex-*.json`,
//! `neoverse-*.json`, ARM-software/data's format, with `cpus.json` and the
//! architected events of `common_armv8.json` / `common_armv9.json`), and the
//! Linux perf tool's JSON of AmpereOne and AmpereOne X (`ArchStdEvent`
//! references resolved through Arm's common lists, implementation-defined
//! events with their `EventCode`), written as `engine = "arm"` data files.
//!
//! libpfm4's conventions, as its newest Arm tables (Cortex-X4, Neoverse V3,
//! made from the same data) have them: one event per named event of the
//! file, the vendor's name and code, `modifiers = ["k", "u", "hv"]`, in the
//! file's order; `CHAIN` (0x1e: it links an odd counter to the even one
//! below, not a count of its own) is left out. Events the file leaves without a
//! code cannot be programmed and are left out; events it leaves without a name
//! (Cortex-A34 and A35 implementation-defined events) take the Linux perf
//! tool's names for the same events of Cortex-A53 ([`UNNAMED`]).
//! Descriptions: kept from the file already there by name; else pfmlib's
//! own description of the same event (same name and code) in a table of
//! [`POOL`] or another of [`CORES`]; else `TODO`.

use crate::data;
use anyhow::{bail, Context};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `pfm-vendorgen arm`.
#[derive(clap::Args)]
pub struct Args {
    /// The vendor lists' folder (holding `arm/` and `ampere/`).
    #[arg(long, default_value = "../shared/oracle/vendor")]
    vendor: PathBuf,
    /// pfmlib's data folder.
    #[arg(long, default_value = "crates/pfmlib/data")]
    data: PathBuf,
    /// Only this PMU (its pfmlib name).
    #[arg(long)]
    only: Option<String>,
    /// Write nothing; tell what would change.
    #[arg(long)]
    check: bool,
}

/// Where a core's events come from.
#[derive(Clone, Copy)]
pub enum Source {
    /// Arm's JSON files under `arm/`: the first gives the events, the others
    /// (other parts the same PMU detects) must have the same.
    Arm(&'static [&'static str]),
    /// A perf-tool folder under `ampere/`.
    Perf(&'static str),
}

/// One PMU the generator writes.
pub struct Core {
    /// pfmlib's (libpfm4-style) PMU name.
    pub pmu: &'static str,
    /// The data file, under the data folder.
    pub file: &'static str,
    /// The product name.
    pub title: &'static str,
    /// The architecture, for the file's header.
    pub arch_name: &'static str,
    /// `cpu_vendor`.
    pub vendor: &'static str,
    /// `cpu_models`: the MIDR part numbers.
    pub parts: &'static [u32],
    /// `arch`: `Some("arm64")` for cores without AArch32 at EL1 (no 32-bit
    /// kernel runs on them), `None` (any Arm host) otherwise.
    pub arch: Option<&'static str>,
    /// The vendor file(s).
    pub source: Source,
}

const fn arm(
    pmu: &'static str,
    file: &'static str,
    title: &'static str,
    arch_name: &'static str,
    parts: &'static [u32],
    arch: Option<&'static str>,
    files: &'static [&'static str],
) -> Core {
    Core {
        pmu,
        file,
        title,
        arch_name,
        vendor: "arm",
        parts,
        arch,
        source: Source::Arm(files),
    }
}

const A64: Option<&str> = Some("arm64");

/// Every PMU this format writes, in pfmlib's id order (750 on).
pub const CORES: &[Core] = &[
    arm(
        "arm_ac78",
        "arm_cortex_a78.toml",
        "Cortex-A78 and A78C",
        "Armv8.2-A",
        &[0xd41, 0xd4b],
        A64,
        &["cortex-a78.json", "cortex-a78c.json"],
    ),
    arm(
        "arm_x1",
        "arm_cortex_x1.toml",
        "Cortex-X1",
        "Armv8.2-A",
        &[0xd44],
        A64,
        &["cortex-x1.json"],
    ),
    arm(
        "arm_x1c",
        "arm_cortex_x1c.toml",
        "Cortex-X1C",
        "Armv8.2-A",
        &[0xd4c],
        A64,
        &["cortex-x1c.json"],
    ),
    arm(
        "arm_ac710",
        "arm_cortex_a710.toml",
        "Cortex-A710",
        "Armv9.0-A",
        &[0xd47],
        A64,
        &["cortex-a710.json"],
    ),
    arm(
        "arm_x2",
        "arm_cortex_x2.toml",
        "Cortex-X2",
        "Armv9.0-A",
        &[0xd48],
        A64,
        &["cortex-x2.json"],
    ),
    arm(
        "arm_ac715",
        "arm_cortex_a715.toml",
        "Cortex-A715",
        "Armv9.0-A",
        &[0xd4d],
        A64,
        &["cortex-a715.json"],
    ),
    arm(
        "arm_x3",
        "arm_cortex_x3.toml",
        "Cortex-X3",
        "Armv9.0-A",
        &[0xd4e],
        A64,
        &["cortex-x3.json"],
    ),
    arm(
        "arm_ac720",
        "arm_cortex_a720.toml",
        "Cortex-A720",
        "Armv9.2-A",
        &[0xd81],
        A64,
        &["cortex-a720.json"],
    ),
    arm(
        "arm_ac510",
        "arm_cortex_a510.toml",
        "Cortex-A510",
        "Armv9.0-A",
        &[0xd46],
        A64,
        &["cortex-a510.json"],
    ),
    arm(
        "arm_ac520",
        "arm_cortex_a520.toml",
        "Cortex-A520",
        "Armv9.2-A",
        &[0xd80],
        A64,
        &["cortex-a520.json"],
    ),
    arm(
        "arm_ac725",
        "arm_cortex_a725.toml",
        "Cortex-A725",
        "Armv9.2-A",
        &[0xd87],
        A64,
        &["cortex-a725.compact.json"],
    ),
    arm(
        "arm_x925",
        "arm_cortex_x925.toml",
        "Cortex-X925",
        "Armv9.2-A",
        &[0xd85],
        A64,
        &["cortex-x925.compact.json"],
    ),
    arm(
        "arm_ac77",
        "arm_cortex_a77.toml",
        "Cortex-A77",
        "Armv8.2-A",
        &[0xd0d],
        A64,
        &["cortex-a77.json"],
    ),
    arm(
        "arm_ac75",
        "arm_cortex_a75.toml",
        "Cortex-A75",
        "Armv8.2-A",
        &[0xd0a],
        A64,
        &["cortex-a75.json"],
    ),
    arm(
        "arm_ac73",
        "arm_cortex_a73.toml",
        "Cortex-A73",
        "Armv8.0-A",
        &[0xd09],
        None,
        &["cortex-a73.json"],
    ),
    arm(
        "arm_ac35",
        "arm_cortex_a35.toml",
        "Cortex-A35",
        "Armv8.0-A",
        &[0xd04],
        None,
        &["cortex-a35.json"],
    ),
    arm(
        "arm_ac34",
        "arm_cortex_a34.toml",
        "Cortex-A34",
        "Armv8.0-A",
        &[0xd02],
        A64,
        &["cortex-a34.json"],
    ),
    arm(
        "arm_ac65",
        "arm_cortex_a65.toml",
        "Cortex-A65 and A65AE",
        "Armv8.2-A",
        &[0xd06, 0xd43],
        A64,
        &["cortex-a65.json", "cortex-a65ae.json"],
    ),
    arm(
        "arm_e1",
        "arm_neoverse_e1.toml",
        "Neoverse E1",
        "Armv8.2-A",
        &[0xd4a],
        A64,
        &["neoverse-e1.json"],
    ),
    Core {
        pmu: "arm_ampereone",
        file: "arm_ampereone.toml",
        title: "AmpereOne",
        arch_name: "Armv8.6-A",
        vendor: "ampere",
        parts: &[0xac3],
        arch: A64,
        source: Source::Perf("ampereone"),
    },
    Core {
        pmu: "arm_ampereonex",
        file: "arm_ampereonex.toml",
        title: "AmpereOne X",
        arch_name: "Armv8.7-A",
        vendor: "ampere",
        parts: &[0xac4],
        arch: A64,
        source: Source::Perf("ampereonex"),
    },
];

/// Names for the events Arm's Cortex-A34/A35 files leave unnamed: the
/// Linux perf tool's names for the same codes of Cortex-A53 (its
/// implementation-defined events, which these cores share).
pub const UNNAMED: &[(u32, &str)] = &[
    (0xc0, "EXT_MEM_REQ"),
    (0xc1, "EXT_MEM_REQ_NC"),
    (0xc2, "PREFETCH_LINEFILL"),
    (0xc3, "PREFETCH_LINEFILL_DROP"),
    (0xc4, "READ_ALLOC_ENTER"),
    (0xc5, "READ_ALLOC"),
    (0xc6, "PRE_DECODE_ERR"),
    (0xc7, "STALL_SB_FULL"),
    (0xc8, "EXT_SNOOP"),
    (0xc9, "BR_COND"),
    (0xca, "BR_INDIRECT_MISPRED"),
    (0xcb, "BR_INDIRECT_MISPRED_ADDR"),
    (0xcc, "BR_COND_MISPRED"),
    (0xd0, "L1I_CACHE_ERR"),
    (0xd1, "L1D_CACHE_ERR"),
    (0xd2, "TLB_ERR"),
    (0xe0, "OTHER_IQ_DEP_STALL"),
    (0xe1, "IC_DEP_STALL"),
    (0xe2, "IUTLB_DEP_STALL"),
    (0xe3, "DECODE_DEP_STALL"),
    (0xe4, "OTHER_INTERLOCK_STALL"),
    (0xe5, "AGU_DEP_STALL"),
    (0xe6, "SIMD_DEP_STALL"),
    (0xe7, "LD_DEP_STALL"),
    (0xe8, "ST_DEP_STALL"),
];

/// Events of Arm's files left out of every table, with why.
pub const LEFT_OUT: &[(&str, &str)] = &[(
    "CHAIN",
    "links an odd counter to the even one below it (a 64-bit count in two counters), not an event of its own; libpfm4's Arm tables made from this data leave it out",
)];

/// One event of an Arm JSON file.
#[derive(Deserialize)]
struct ArmEvent {
    name: Option<String>,
    code: Option<u32>,
}

/// An Arm JSON file (events only).
#[derive(Deserialize)]
struct ArmFile {
    events: Vec<ArmEvent>,
}

/// One event of a perf-tool JSON file.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PerfEvent {
    arch_std_event: Option<String>,
    event_name: Option<String>,
    event_code: Option<String>,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    serde_json::from_str(&text).with_context(|| path.display().to_string())
}

/// The events of one Arm JSON file: (name, code), in the file's order.
pub fn arm_events(path: &Path) -> anyhow::Result<Vec<(String, u32)>> {
    let f: ArmFile = read_json(path)?;
    let unnamed: BTreeMap<u32, &str> = UNNAMED.iter().copied().collect();
    let mut out = Vec::new();
    for e in f.events {
        let Some(code) = e.code else { continue };
        let name = match e.name {
            Some(n) => n,
            None => match unnamed.get(&code) {
                Some(n) => n.to_string(),
                None => bail!("{}: event 0x{code:x} has no name", path.display()),
            },
        };
        if LEFT_OUT.iter().any(|(n, _)| *n == name) {
            continue;
        }
        out.push((name, code));
    }
    Ok(out)
}

/// The architected events of Arm's common lists, by name.
pub fn common_events(arm_dir: &Path) -> anyhow::Result<BTreeMap<String, u32>> {
    let mut out = BTreeMap::new();
    for f in ["common_armv8.json", "common_armv9.json"] {
        for (n, c) in arm_events(&arm_dir.join(f))? {
            if let Some(old) = out.insert(n.clone(), c) {
                if old != c {
                    bail!("{n}: 0x{old:x} in one common list, 0x{c:x} in another");
                }
            }
        }
    }
    Ok(out)
}

/// The events of a perf-tool folder: (name, code), by code.
pub fn perf_events(
    dir: &Path,
    common: &BTreeMap<String, u32>,
) -> anyhow::Result<Vec<(String, u32)>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| dir.display().to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for f in files {
        for e in read_json::<Vec<PerfEvent>>(&f)? {
            let (name, code) = match (e.arch_std_event, e.event_name, e.event_code) {
                (Some(n), _, _) => {
                    let c = *common
                        .get(&n)
                        .with_context(|| format!("{}: {n} is in no common list", f.display()))?;
                    (n, c)
                }
                (None, Some(n), Some(c)) => {
                    let c = u32::from_str_radix(
                        c.trim_start_matches("0x").trim_start_matches("0X"),
                        16,
                    )
                    .with_context(|| format!("{}: {n}: code {c}", f.display()))?;
                    (n, c)
                }
                _ => bail!(
                    "{}: an event with neither ArchStdEvent nor EventName and EventCode",
                    f.display()
                ),
            };
            if !seen.insert(name.clone()) {
                bail!("{}: {name} twice", f.display());
            }
            out.push((name, code));
        }
    }
    out.sort_by_key(|&(_, c)| c);
    Ok(out)
}

/// A core's events from the vendor folder.
pub fn core_events(vendor: &Path, core: &Core) -> anyhow::Result<Vec<(String, u32)>> {
    match core.source {
        Source::Arm(files) => {
            let first = arm_events(&vendor.join("arm").join(files[0]))?;
            for f in &files[1..] {
                if arm_events(&vendor.join("arm").join(f))? != first {
                    bail!("{f}: other events than {}", files[0]);
                }
            }
            Ok(first)
        }
        Source::Perf(dir) => {
            let common = common_events(&vendor.join("arm"))?;
            perf_events(&vendor.join("ampere").join(dir), &common)
        }
    }
}

/// The tables whose descriptions a new table may reuse, most trusted
/// first: libpfm4's Armv8/v9 Cortex and Neoverse cores (generic wording of
/// the architected events), then this generator's own tables. Tables of
/// other implementers (A64FX, Kunpeng, ThunderX2, ...) and the Armv7 cores
/// are left out: their wording is about their own core.
const POOL: &[&str] = &[
    "arm_cortex_x4.toml",
    "arm_neoverse_v3.toml",
    "arm_neoverse_n3.toml",
    "arm_neoverse_v2.toml",
    "arm_neoverse_n2.toml",
    "arm_neoverse_v1.toml",
    "arm_neoverse_n1.toml",
    "arm_cortex_a76.toml",
    "arm_cortex_a55.toml",
    "arm_cortex_a57.toml",
    "arm_cortex_a53.toml",
];

/// pfmlib's own descriptions of the events of the [`POOL`] tables and of
/// the other [`CORES`] tables, by name and code (the first table wins).
fn pool(data_dir: &Path, except: &str) -> anyhow::Result<BTreeMap<(String, u32), String>> {
    let files = POOL.iter().copied().chain(CORES.iter().map(|c| c.file));
    let mut out = BTreeMap::new();
    for f in files.filter(|f| *f != except) {
        let Ok(text) = std::fs::read_to_string(data_dir.join(f)) else {
            continue;
        };
        let doc: toml::Value = toml::from_str(&text)?;
        for ev in doc
            .get("event")
            .and_then(|e| e.as_array())
            .into_iter()
            .flatten()
        {
            let (Some(n), Some(c), Some(d)) = (
                ev.get("name").and_then(|v| v.as_str()),
                ev.get("code").and_then(|v| v.as_integer()),
                ev.get("desc").and_then(|v| v.as_str()),
            ) else {
                continue;
            };
            if d != data::TODO {
                out.entry((n.to_string(), c as u32))
                    .or_insert_with(|| d.to_string());
            }
        }
    }
    Ok(out)
}

/// The data file of `core` with `events`, descriptions from `own` (the file
/// already there) or `pool`.
pub fn render(
    core: &Core,
    events: &[(String, u32)],
    own: &BTreeMap<String, String>,
    pool: &BTreeMap<(String, u32), String>,
) -> String {
    let sources = match core.source {
        Source::Arm(files) => format!("Arm's PMU event data ({}, Apache-2.0)", files.join(", ")),
        Source::Perf(dir) => format!("the Linux perf tool's event list (ampere/{dir}; architected events by Arm's common lists)"),
    };
    let mut s = format!(
        "# {vendor} {title} ({arch}): pfmlib's own table, beyond libpfm4.\n\
         # Facts (names, codes) from {sources}, written by `pfm-vendorgen arm`;\n\
         # descriptions are our own. Schema: SCHEMA.md.\n\n",
        vendor = if core.vendor == "arm" {
            "Arm"
        } else {
            "Ampere"
        },
        title = core.title,
        arch = core.arch_name,
    );
    s += "[[pmu]]\n";
    s += &format!("name = {}\n", data::quoted(core.pmu));
    let owner = if core.vendor == "arm" { "Arm " } else { "" };
    s += &format!(
        "desc = {}\n",
        data::quoted(&format!("{owner}{} core PMU", core.title))
    );
    s += "engine = \"arm\"\nkind = \"core\"\nnum_cntrs = 6\nsupported_plm = [0, 3, \"h\"]\n";
    s += &format!("cpu_vendor = {}\n", data::quoted(core.vendor));
    let parts: Vec<String> = core.parts.iter().map(|p| format!("0x{p:03x}")).collect();
    s += &format!("cpu_models = [{}]\n", parts.join(", "));
    if let Some(a) = core.arch {
        s += &format!("arch = {}\n", data::quoted(a));
    }
    for (name, code) in events {
        let desc = own
            .get(name)
            .or_else(|| pool.get(&(name.clone(), *code)))
            .map_or(data::TODO, |d| d.as_str());
        s += &format!(
            "\n[[event]]\nname = {}\ndesc = {}\ncode = 0x{code:x}\nmodifiers = [\"k\", \"u\", \"hv\"]\n",
            data::quoted(name),
            data::quoted(desc)
        );
    }
    s
}

/// Writes (or checks) every core's data file; with `--check`, an error
/// when one would change.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut changed = 0;
    for core in CORES {
        if args.only.as_deref().is_some_and(|o| o != core.pmu) {
            continue;
        }
        let events = core_events(&args.vendor, core)?;
        let path = args.data.join(core.file);
        let own = data::descriptions(&path)?;
        let pool = pool(&args.data, core.file)?;
        let text = render(core, &events, &own, &pool);
        if data::write_or_check(&path, &text, args.check)? {
            changed += 1;
        }
    }
    if args.check && changed > 0 {
        bail!("{changed} file(s) would change");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_names_unique() {
        let names: BTreeSet<_> = CORES.iter().map(|c| c.pmu).collect();
        let files: BTreeSet<_> = CORES.iter().map(|c| c.file).collect();
        assert_eq!(names.len(), CORES.len());
        assert_eq!(files.len(), CORES.len());
    }

    #[test]
    fn render_is_stable() {
        let core = &CORES[0];
        let events = vec![("SW_INCR".to_string(), 0), ("CPU_CYCLES".to_string(), 0x11)];
        let pool = BTreeMap::from([(
            ("CPU_CYCLES".to_string(), 0x11),
            "Core clock cycles, at the core's own frequency.".to_string(),
        )]);
        let first = render(core, &events, &BTreeMap::new(), &pool);
        assert!(first.contains("desc = \"TODO\""));
        // Re-reading the written file's descriptions gives the same text.
        let dir = std::env::temp_dir().join(format!("pfm-vendorgen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.toml");
        std::fs::write(&path, &first).unwrap();
        let own = data::descriptions(&path).unwrap();
        assert_eq!(render(core, &events, &own, &BTreeMap::new()), first);
        assert!(!data::write_or_check(&path, &first, true).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The committed data files are what the generator writes from the
    /// vendor lists (when the shared oracle folder is found above the
    /// repository; `PFMLIB_REQUIRE_ORACLE` makes it required).
    #[test]
    fn committed_files_are_reproduced() {
        let Some(vendor) = data::vendor_dir("arm") else {
            return;
        };
        let data_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../pfmlib/data");
        for core in CORES {
            let events = core_events(&vendor, core).unwrap();
            let path = data_dir.join(core.file);
            let own = data::descriptions(&path).unwrap();
            let pool = pool(&data_dir, core.file).unwrap();
            let text = render(core, &events, &own, &pool);
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                text,
                "{}",
                core.file
            );
            assert!(!text.contains("desc = \"TODO\""), "{}", core.file);
        }
    }
}
