//! The RISC-V format: the Linux perf tool's event lists of RISC-V cores
//! (`tools/perf/pmu-events/arch/riscv/`: one folder per core, JSON files of
//! `EventName`/`EventCode` records or `ArchStdEvent` references into
//! `riscv-generic.json` and `riscv-sbi-firmware.json`, and `mapfile.csv`,
//! which maps `mvendorid-marchid-mimpid` patterns to folders).
//!
//! Writes one data file per core folder (`riscv_<vendor>_<core>.toml`, one
//! PMU each: the three SiFive Bullet revisions have different event lists,
//! so they are three PMUs) and `riscv_sbi.toml`, the SBI firmware events
//! as a PMU of their own: every folder references the same firmware events
//! of the shared file, which the SBI implementation counts whatever the
//! core. A core's `ArchStdEvent` reference to a firmware event is checked
//! to exist there and goes to that PMU; one to another shared event is the
//! core's own event. The detection keys of each core PMU are its mapfile
//! row as numbers (`pfmlib_defs::riscv::PMU_EXT`).

use crate::data::{descriptions, quoted, write_or_check, TODO};
use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `pfm-vendorgen riscv`: the RISC-V cores of perf's event lists.
#[derive(clap::Args)]
pub struct Args {
    /// The perf tool's RISC-V folder (mapfile.csv, riscv-*.json, one folder
    /// per core).
    #[arg(long, default_value = "../shared/oracle/vendor/riscv")]
    pub vendor: PathBuf,
    /// pfmlib's data folder.
    #[arg(long, default_value = "crates/pfmlib/data")]
    pub data: PathBuf,
    /// Write nothing; tell what would change (exit status 1 if anything).
    #[arg(long)]
    pub check: bool,
}

/// A core folder of perf's list and the PMU it becomes.
struct Core {
    /// Folder, as `mapfile.csv` names it.
    folder: &'static str,
    /// PMU name (and data file `<name>.toml`).
    name: &'static str,
    /// PMU description.
    desc: &'static str,
}

/// The cores, in the order of their ids in `data/libpfm4_pmus.toml`.
const CORES: &[Core] = &[
    Core {
        folder: "sifive/bullet",
        name: "riscv_sifive_u74",
        desc: "SiFive U74 (Bullet microarchitecture, marchid 0x8000000000000007)",
    },
    Core {
        folder: "sifive/bullet-07",
        name: "riscv_sifive_u74_r07",
        desc: "SiFive Bullet cores of implementation 0x7/0x8/0xa/0xc (U74 successors)",
    },
    Core {
        folder: "sifive/bullet-0d",
        name: "riscv_sifive_u74_r0d",
        desc: "SiFive Bullet cores of implementation 0xd (U74 successors)",
    },
    Core {
        folder: "sifive/p550",
        name: "riscv_sifive_p550",
        desc: "SiFive Performance P550",
    },
    Core {
        folder: "sifive/p650",
        name: "riscv_sifive_p650",
        desc: "SiFive Performance P650/P670",
    },
    Core {
        folder: "thead/c900-legacy",
        name: "riscv_thead_c900",
        desc: "T-Head C9xx (C906, C910, C920; legacy zero marchid/mimpid)",
    },
    Core {
        folder: "andes/ax45",
        name: "riscv_andes_ax45",
        desc: "Andes AX45",
    },
    Core {
        folder: "starfive/dubhe-80",
        name: "riscv_starfive_dubhe80",
        desc: "StarFive Dubhe-80",
    },
];

/// The firmware PMU's name (and data file).
const SBI: &str = "riscv_sbi";

/// Programmable counters a RISC-V hart may have (`mhpmcounter3` to 31):
/// the kernel learns how many a core implements from SBI at run time.
const HPM_COUNTERS: u32 = 29;
/// OpenSBI's firmware counters (`SBI_PMU_FW_CTR_MAX`).
const FW_COUNTERS: u32 = 16;

/// A record of perf's JSON.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Record {
    event_name: Option<String>,
    event_code: Option<String>,
    config_code: Option<String>,
    arch_std_event: Option<String>,
}

/// An event as we write it.
#[derive(Clone)]
struct Ev {
    name: String,
    code: u64,
}

/// The shared events: name to (code, firmware?).
type Shared = BTreeMap<String, (u64, bool)>;

/// Runs the format.
pub fn run(args: &Args) -> Result<()> {
    let rows = mapfile(&args.vendor.join("mapfile.csv"))?;
    let (shared, sbi) = shared_events(&args.vendor)?;
    let mut changed = false;
    for core in CORES {
        let row = rows
            .iter()
            .find(|r| r.1 == core.folder)
            .ok_or_else(|| anyhow!("mapfile.csv has no row for {}", core.folder))?;
        let events = core_events(&args.vendor.join(core.folder), &shared)?;
        let path = args.data.join(format!("{}.toml", core.name));
        let text = core_file(core, &row.0, &events, &descriptions(&path)?);
        changed |= write_or_check(&path, &text, args.check)?;
    }
    if let Some(r) = rows.iter().find(|r| !CORES.iter().any(|c| c.folder == r.1)) {
        println!("mapfile.csv: {} is new (add it to CORES)", r.1);
        changed = true;
    }
    let path = args.data.join(format!("{SBI}.toml"));
    let text = sbi_file(&sbi, &descriptions(&path)?);
    changed |= write_or_check(&path, &text, args.check)?;
    if args.check && changed {
        bail!("the data files differ from the vendor lists");
    }
    Ok(())
}

/// `mapfile.csv`'s core rows: (detection keys, folder).
fn mapfile(path: &Path) -> Result<Vec<(Keys, String)>> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    let mut rows = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split(',').collect();
        let [id, _version, folder, kind] = cols[..] else {
            bail!("mapfile.csv: bad row {line}");
        };
        if kind != "core" {
            continue;
        }
        let keys = Keys::parse(id).with_context(|| format!("mapfile.csv: {id}"))?;
        rows.push((keys, folder.to_string()));
    }
    Ok(rows)
}

/// The detection keys of one mapfile row (`pfmlib_defs::riscv::PMU_EXT`).
#[derive(Debug, PartialEq, Default)]
pub struct Keys {
    mvendorid: u64,
    marchid: u64,
    /// Nibble position and allowed digits of `marchid`'s one class.
    marchid_class: Option<(u32, u16)>,
    /// Allowed leading digits of `mimpid` (two digits at least).
    mimpid_lead: Option<u16>,
    /// `mimpid` exactly.
    mimpid_exact: Option<u64>,
}

impl Keys {
    /// `0xV-0xA-0xI`, each a perf regular expression of the forms the
    /// mapfile uses: hexadecimal digits, with one bracket class in `marchid`;
    /// `[[:xdigit:]]+` (anything), a class or one digit then
    /// `[[:xdigit:]]+`, or digits, in `mimpid`.
    pub fn parse(id: &str) -> Result<Keys> {
        let parts: Vec<&str> = id.split("-0x").collect();
        let [v, a, i] = parts[..] else {
            bail!("expected three 0x parts");
        };
        let v = v
            .strip_prefix("0x")
            .ok_or_else(|| anyhow!("vendor: no 0x"))?;
        let mut k = Keys {
            mvendorid: u64::from_str_radix(v, 16)?,
            ..Keys::default()
        };
        (k.marchid, k.marchid_class) = digits_with_class(a)?;
        const ANY: &str = "[[:xdigit:]]+";
        if i == ANY {
        } else if let Some(class) = i.strip_suffix(ANY) {
            // A class or one digit.
            let class = match class.strip_prefix('[') {
                Some(c) => c.strip_suffix(']'),
                None => (class.chars().count() == 1).then_some(class),
            };
            let class = class.ok_or_else(|| anyhow!("mimpid: unsupported {i}"))?;
            k.mimpid_lead = Some(class_mask(class)?);
        } else {
            k.mimpid_exact = Some(u64::from_str_radix(i, 16)?);
        }
        Ok(k)
    }

    /// The TOML lines of the keys.
    fn toml(&self) -> String {
        let mut s = format!(
            "mvendorid = {:#x}\nmarchid_hi = {:#x}\nmarchid_lo = {:#x}\n",
            self.mvendorid,
            self.marchid >> 32,
            self.marchid & 0xffff_ffff
        );
        if let Some((n, d)) = self.marchid_class {
            let _ = write!(s, "marchid_nibble = {n}\nmarchid_digits = {d:#06x}\n");
        }
        if let Some(l) = self.mimpid_lead {
            let _ = writeln!(s, "mimpid_lead = {l:#06x}");
        }
        if let Some(x) = self.mimpid_exact {
            let _ = writeln!(s, "mimpid_exact = {x:#x}");
        }
        s
    }
}

/// Hexadecimal digits with at most one bracket class: the value (the class
/// digit 0) and the class's nibble position and digit mask.
fn digits_with_class(p: &str) -> Result<(u64, Option<(u32, u16)>)> {
    let mut value: u64 = 0;
    let mut class: Option<u16> = None;
    let mut class_at = 0usize;
    let mut n = 0usize;
    let mut rest = p;
    while let Some(c) = rest.chars().next() {
        value = value
            .checked_mul(16)
            .ok_or_else(|| anyhow!("{p}: too long"))?;
        if c == '[' {
            let end = rest.find(']').ok_or_else(|| anyhow!("{p}: open class"))?;
            if class.is_some() {
                bail!("{p}: two classes");
            }
            class = Some(class_mask(&rest[1..end])?);
            class_at = n;
            rest = &rest[end + 1..];
        } else {
            value |= u64::from(c.to_digit(16).ok_or_else(|| anyhow!("{p}: {c}"))?);
            rest = &rest[1..];
        }
        n += 1;
    }
    Ok((value, class.map(|m| ((n - 1 - class_at) as u32, m))))
}

/// A bracket class of hexadecimal digits (`1-9a-e`, `78ac`) as a mask.
fn class_mask(class: &str) -> Result<u16> {
    let cs: Vec<char> = class.chars().collect();
    let mut mask = 0u16;
    let mut i = 0;
    let digit = |c: char| c.to_digit(16).ok_or_else(|| anyhow!("class {class}: {c}"));
    while i < cs.len() {
        let lo = digit(cs[i])?;
        let hi = if cs.get(i + 1) == Some(&'-') {
            i += 2;
            digit(
                *cs.get(i)
                    .ok_or_else(|| anyhow!("class {class}: open range"))?,
            )?
        } else {
            lo
        };
        for d in lo..=hi {
            mask |= 1 << d;
        }
        i += 1;
    }
    Ok(mask)
}

/// A `0x` hexadecimal field.
fn hex(s: &str) -> Result<u64> {
    let h = s.strip_prefix("0x").ok_or_else(|| anyhow!("{s}: no 0x"))?;
    Ok(u64::from_str_radix(h, 16)?)
}

/// The records of a JSON file.
fn records(path: &Path) -> Result<Vec<Record>> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    serde_json::from_str(&text).with_context(|| path.display().to_string())
}

/// The shared events (`riscv-generic.json`, `riscv-sbi-firmware.json`),
/// and the firmware ones in their file's order (codes without bit 63).
fn shared_events(dir: &Path) -> Result<(Shared, Vec<Ev>)> {
    let mut shared = Shared::new();
    let mut sbi = Vec::new();
    for file in ["riscv-generic.json", "riscv-sbi-firmware.json"] {
        for r in records(&dir.join(file))? {
            let name = r
                .event_name
                .ok_or_else(|| anyhow!("{file}: no EventName"))?;
            let (code, fw) = match (&r.event_code, &r.config_code) {
                (Some(c), None) => (hex(c)?, false),
                (None, Some(c)) if hex(c)? >> 63 == 1 => (hex(c)? & !(1 << 63), true),
                _ => bail!("{file}: {name}: neither EventCode nor a firmware ConfigCode"),
            };
            if fw {
                sbi.push(Ev {
                    name: name.clone(),
                    code,
                });
            }
            shared.insert(name, (code, fw));
        }
    }
    Ok((shared, sbi))
}

/// A core folder's own events: its files in name order, each in its
/// order; firmware references checked and left to the firmware PMU.
fn core_events(dir: &Path, shared: &Shared) -> Result<Vec<Ev>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| dir.display().to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out: Vec<Ev> = Vec::new();
    let mut seen = BTreeSet::new();
    for f in &files {
        for r in records(f)? {
            let ev = match (r.arch_std_event, r.event_name, r.event_code) {
                (Some(std), _, _) => match shared.get(&std) {
                    Some(&(_, true)) => continue,
                    Some(&(code, false)) => Ev { name: std, code },
                    None => bail!("{}: unknown ArchStdEvent {std}", f.display()),
                },
                (None, Some(name), Some(code)) => Ev {
                    name,
                    code: hex(&code)?,
                },
                _ => bail!("{}: a record without a name or code", f.display()),
            };
            if !seen.insert(ev.name.clone()) {
                bail!("{}: {} twice", dir.display(), ev.name);
            }
            out.push(ev);
        }
    }
    Ok(out)
}

/// The events of a data file, descriptions kept by name.
fn events_toml(events: &[Ev], descs: &BTreeMap<String, String>) -> String {
    let mut s = String::new();
    for e in events {
        let desc = descs.get(&e.name).map_or(TODO, String::as_str);
        let _ = write!(
            s,
            "\n[[event]]\nname = {}\ndesc = {}\ncode = {:#x}\n",
            quoted(&e.name),
            quoted(desc),
            e.code
        );
    }
    s
}

/// A core's data file.
fn core_file(core: &Core, keys: &Keys, events: &[Ev], descs: &BTreeMap<String, String>) -> String {
    format!(
        "# {desc}.\n\
         # Core PMU, counted through the kernel's RISC-V `cpu` PMU (PERF_TYPE_RAW,\n\
         # config = the code). pfmlib's own (beyond libpfm4).\n\
         # Facts (names, codes, order) from the Linux perf tool's event list\n\
         # (tools/perf/pmu-events/arch/riscv/{folder}); detection keys from its\n\
         # mapfile.csv row. Written by `pfm-vendorgen riscv`; descriptions are\n\
         # our own. Schema: SCHEMA.md.\n\
         \n[[pmu]]\nname = {name}\ndesc = {qdesc}\nengine = \"riscv\"\nkind = \"core\"\n\
         num_cntrs = {HPM_COUNTERS}\nnum_fixed_cntrs = 2\nsupported_plm = [0, 3]\n{keys}{events}",
        desc = core.desc,
        folder = core.folder,
        name = quoted(core.name),
        qdesc = quoted(core.desc),
        keys = keys.toml(),
        events = events_toml(events, descs),
    )
}

/// The firmware PMU's data file.
fn sbi_file(events: &[Ev], descs: &BTreeMap<String, String>) -> String {
    format!(
        "# RISC-V SBI firmware events: traps and SBI calls the machine-mode\n\
         # firmware (OpenSBI) counts for the kernel, on any core, through the\n\
         # kernel's `cpu` PMU (PERF_TYPE_RAW, config = 1<<63 | the code).\n\
         # pfmlib's own (beyond libpfm4). Facts (names, ids, order) from the\n\
         # Linux perf tool's riscv-sbi-firmware.json. Written by\n\
         # `pfm-vendorgen riscv`; descriptions are our own. Schema: SCHEMA.md.\n\
         \n[[pmu]]\nname = \"{SBI}\"\ndesc = \"RISC-V SBI firmware events\"\nengine = \"riscv\"\n\
         kind = \"core\"\nnum_cntrs = {FW_COUNTERS}\nsupported_plm = [0, 3]\nflags = [\"firmware\"]\n{}",
        events_toml(events, descs)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapfile_patterns() {
        let k = Keys::parse("0x489-0x8000000000000[1-9a-e]07-0x[78ac][[:xdigit:]]+").unwrap();
        assert_eq!(k.mvendorid, 0x489);
        assert_eq!(k.marchid, 0x8000_0000_0000_0007);
        assert_eq!(k.marchid_class, Some((2, 0x7ffe)));
        assert_eq!(k.mimpid_lead, Some(1 << 7 | 1 << 8 | 1 << 0xa | 1 << 0xc));
        let k = Keys::parse("0x489-0x8000000000000[1-9a-e]07-0xd[[:xdigit:]]+").unwrap();
        assert_eq!(k.mimpid_lead, Some(1 << 0xd));
        let k = Keys::parse("0x5b7-0x0-0x0").unwrap();
        assert_eq!((k.marchid, k.mimpid_exact), (0, Some(0)));
        let k = Keys::parse("0x67e-0x80000000db0000[89]0-0x[[:xdigit:]]+").unwrap();
        assert_eq!(k.marchid, 0x8000_0000_db00_0000);
        assert_eq!(k.marchid_class, Some((1, 0x300)));
        assert_eq!((k.mimpid_lead, k.mimpid_exact), (None, None));
        assert!(Keys::parse("0x1-0x[1-2][3-4]-0x0").is_err());
        assert!(Keys::parse("0x1-0x2").is_err());
    }

    /// The committed data files are what the generator writes, and a second
    /// run changes nothing.
    #[test]
    fn reproduces_the_committed_files() {
        let Some(vendor) = crate::data::vendor_dir("riscv").map(|d| d.join("riscv")) else {
            return;
        };
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../pfmlib/data");
        let check = Args {
            vendor: vendor.clone(),
            data: data.clone(),
            check: true,
        };
        run(&check).unwrap();
        let tmp = std::env::temp_dir().join(format!("vendorgen-riscv-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let write = Args {
            vendor,
            data: tmp.clone(),
            check: false,
        };
        run(&write).unwrap();
        let again = Args {
            check: true,
            ..write
        };
        run(&again).unwrap();
        let text = std::fs::read_to_string(tmp.join("riscv_sbi.toml")).unwrap();
        assert!(text.contains("desc = \"TODO\""));
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
