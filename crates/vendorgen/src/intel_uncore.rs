//! Intel's perfmon uncore JSON (`<cpu>_uncore.json` and
//! `<cpu>_uncore_experimental.json`: `{"Header", "Events": [...]}`) to one
//! `intel_snbep_unc` data file per unit (`intel_<prefix>_unc_<box>.toml`,
//! PMU `<prefix>_unc_<box>`), in libpfm4's conventions:
//!
//! - `EVENT.UMASK` is event `EVENT` with unit mask `UMASK` (further dots
//!   become `_`); unit masks are whole values (`ncombo` where the event has
//!   several), the only one or one named `ALL`/`ANY` the default.
//! - An event without a unit mask whose `UMask` (or extension) is not 0
//!   hard-wires it in its code (`code` above bit 7); one that also has
//!   dotted unit masks must equal its default unit mask (it is then that
//!   event given alone).
//! - Where the fields go is the kernel's `format/` files of the unit's
//!   perf_events PMU (`arch/x86/events/intel/uncore_snbep.c`, the Granite
//!   Rapids generation that Sierra Forest shares): `umask` is
//!   `config:8-15,32-55` (`config:8-15,32-63` on the CHA), so `UMaskExt`
//!   goes to config bit 32 on, bit 24 on of the unit-mask code; the IIO's
//!   `umask` is `config:8-15`, its `ch_mask` `config:36-47` (`PortMask`,
//!   bit 28 of the code) and `fc_mask` `config:48-50` (`FCMask`, bit 40).
//!   The IIO's `UMaskExt` repeats those two (PortMask << 4 | FCMask << 16)
//!   and is not used.
//! - `Counter` gives `cntmsk`; every event takes `e`, `i`, `t` (edge bit
//!   18, invert bit 23, threshold bits 24-31: the kernel's `edge`, `inv`,
//!   `thresh8`).
//! - Events and unit masks of the experimental list carry an
//!   `# experimental` comment.

use crate::data;
use crate::intel::{num, Descs};
use anyhow::{bail, Context};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Options of the `intel-uncore` format.
#[derive(clap::Args)]
pub struct Args {
    /// Intel perfmon uncore lists (`.../SRF/sierraforest_uncore.json`).
    #[arg(long, required = true)]
    json: Vec<PathBuf>,
    /// Their experimental companions (`..._uncore_experimental.json`).
    #[arg(long)]
    experimental: Vec<PathBuf>,
    /// Folder the data files are written to (`crates/pfmlib/data`).
    #[arg(long)]
    out_dir: PathBuf,
    /// PMU name prefix (`srf`: PMUs `srf_unc_<box>`).
    #[arg(long)]
    prefix: String,
    /// The CPU, for descriptions (`Sierra Forest`).
    #[arg(long)]
    cpu: String,
    /// CPU family.
    #[arg(long, default_value_t = 6)]
    family: u32,
    /// CPU models, comma-separated (`0xaf`).
    #[arg(long)]
    models: String,
    /// Further data files whose descriptions are reused by name where the
    /// output file has none (pfmlib's own words for the same event).
    #[arg(long)]
    desc_from: Vec<PathBuf>,
    /// Write nothing; print what would change.
    #[arg(long)]
    check: bool,
}

/// The units Intel's lists name: the vendor's `Unit`, our box name (the
/// PMU's suffix), the kernel's box name (`uncore_<box>_<n>`), what it is.
pub const UNITS: &[(&str, &str, &str, &str)] = &[
    ("CHA", "cha", "cha", "caching and home agents (CHA)"),
    ("CHACMS", "chacms", "chacms", "mesh stops of the CHAs (CMS)"),
    ("IIO", "iio", "iio", "I/O stacks (IIO)"),
    ("IMC", "imc", "imc", "memory controller channels"),
    ("B2CMI", "b2cmi", "b2cmi", "mesh-to-memory bridges (B2CMI)"),
    ("UPI LL", "upi", "upi", "UPI link layers"),
    (
        "IRP",
        "irp",
        "irp",
        "I/O ring ports of the IIO stacks (IRP)",
    ),
    ("PCU", "pcu", "pcu", "power control unit (PCU)"),
    (
        "CXLCM",
        "cxlcm",
        "cxlcm",
        "CXL cache and memory protocol blocks",
    ),
    ("CXLDP", "cxldp", "cxldp", "CXL data path blocks"),
    ("B2HOT", "b2hot", "b2hot", "mesh-to-hot-plug bridge (B2HOT)"),
    ("B2UPI", "b2upi", "b2upi", "mesh-to-UPI bridges (B2UPI)"),
    ("B2CXL", "b2cxl", "b2cxl", "mesh-to-CXL bridges (B2CXL)"),
    (
        "UBOX",
        "ubox",
        "ubox",
        "system configuration controller (U-Box)",
    ),
    ("MDF", "mdf", "mdf_sbo", "mesh die fabric bridges (MDF)"),
];

/// One vendor event, the fields we use.
#[derive(Debug, Clone)]
pub struct Vendor {
    pub unit: String,
    pub name: String,
    pub code: u64,
    pub umask: u64,
    pub umask_ext: u64,
    pub port_mask: u64,
    pub fc_mask: u64,
    pub counters: u64,
    pub experimental: bool,
}

impl Vendor {
    /// The unit-mask code: what goes to config from bit 8 on.
    pub fn umask_code(&self) -> u64 {
        if self.unit == "IIO" {
            self.umask | self.port_mask << 28 | self.fc_mask << 40
        } else {
            self.umask | self.umask_ext << 24
        }
    }

    /// The config the vendor's fields give.
    pub fn config(&self) -> u64 {
        self.code | self.umask_code() << 8
    }
}

/// Reads a vendor file's events (`experimental`: the experimental list).
pub fn read_vendor(text: &str, experimental: bool) -> anyhow::Result<Vec<Vendor>> {
    let doc: serde_json::Value = serde_json::from_str(text)?;
    let events = doc["Events"].as_array().context("no Events array")?;
    events
        .iter()
        .map(|e| {
            let s = |k: &str| e.get(k).and_then(|v| v.as_str()).unwrap_or("0");
            let name = s("EventName").to_string();
            let f = || -> anyhow::Result<Vendor> {
                Ok(Vendor {
                    unit: s("Unit").to_string(),
                    code: num(s("EventCode"))?,
                    umask: num(s("UMask"))?,
                    umask_ext: num(s("UMaskExt"))?,
                    port_mask: num(s("PortMask"))?,
                    fc_mask: num(s("FCMask"))?,
                    counters: s("Counter")
                        .split(',')
                        .try_fold(0, |m, c| num(c).map(|c| m | 1 << c))?,
                    experimental,
                    name: name.clone(),
                })
            };
            f().with_context(|| format!("event {name}"))
        })
        .collect()
}

/// One unit mask of ours.
#[derive(Debug)]
struct Um {
    name: String,
    code: u64,
    experimental: bool,
}

/// One event of ours.
#[derive(Debug, Default)]
struct Ev {
    name: String,
    code: u64,
    cntmsk: u64,
    umasks: Vec<Um>,
    /// The event given alone in the list: its config, and whether it is
    /// experimental.
    bare: Option<(u64, bool)>,
}

/// Our events of one unit.
fn build(vendor: &[&Vendor]) -> anyhow::Result<Vec<Ev>> {
    let mut evs: BTreeMap<String, Ev> = BTreeMap::new();
    for v in vendor {
        let (en, un) = match v.name.split_once('.') {
            Some((e, u)) => (e, Some(u.replace('.', "_"))),
            None => (v.name.as_str(), None),
        };
        let ev = evs.entry(en.to_string()).or_insert_with(|| Ev {
            name: en.to_string(),
            code: v.code,
            ..Default::default()
        });
        if ev.code != v.code {
            bail!("{}: event code {:#x}, not {:#x}", v.name, v.code, ev.code);
        }
        ev.cntmsk |= v.counters;
        match un {
            Some(name) => {
                if ev.umasks.iter().any(|u| u.name == name) {
                    bail!("{}: unit mask twice", v.name);
                }
                ev.umasks.push(Um {
                    name,
                    code: v.umask_code(),
                    experimental: v.experimental,
                });
            }
            None if ev.bare.is_some() => bail!("{}: twice", v.name),
            None => ev.bare = Some((v.config(), v.experimental)),
        }
    }
    let mut out: Vec<Ev> = evs.into_values().collect();
    for ev in &mut out {
        ev.umasks.sort_by(|a, b| a.name.cmp(&b.name));
        let Some((config, _)) = ev.bare else { continue };
        if ev.umasks.is_empty() {
            ev.code = config;
            continue;
        }
        let dfl = default_umask(ev).map(|i| ev.code | ev.umasks[i].code << 8);
        if dfl != Some(config) {
            bail!("{}: given alone, it is not its default unit mask", ev.name);
        }
    }
    Ok(out)
}

/// The default unit mask: the only one, or one named ALL or ANY.
fn default_umask(ev: &Ev) -> Option<usize> {
    if ev.umasks.len() == 1 {
        return Some(0);
    }
    ["ALL", "ANY"]
        .iter()
        .find_map(|n| ev.umasks.iter().position(|u| u.name == *n))
}

fn hex(v: u64) -> String {
    format!("{v:#x}")
}

fn write_event(out: &mut String, ev: &Ev, descs: &Descs) {
    if ev.bare.is_some_and(|b| b.1) && ev.umasks.iter().all(|u| u.experimental) {
        out.push_str("\n# experimental");
    }
    let _ = write!(
        out,
        "\n[[event]]\nname = {}\ndesc = {}\ncode = {}\ncntmsk = {}\nmods = [\"e\", \"i\", \"t8\"]\n",
        data::quoted(&ev.name),
        data::quoted(&descs.get(&ev.name)),
        hex(ev.code),
        hex(ev.cntmsk),
    );
    let dfl = default_umask(ev);
    for (i, u) in ev.umasks.iter().enumerate() {
        let mut flags = vec![];
        if Some(i) == dfl {
            flags.push("\"dfl\"");
        }
        if ev.umasks.len() > 1 {
            flags.push("\"ncombo\"");
        }
        if u.experimental {
            out.push_str("\n  # experimental");
        }
        let key = format!("{}:{}", ev.name, u.name);
        out.push_str(&data::umask_head(&u.name, &descs.get(&key), &hex(u.code)));
        if !flags.is_empty() {
            let _ = writeln!(out, "  flags = [{}]", flags.join(", "));
        }
    }
}

/// Where the unit's fields go, for the file's header.
fn layout(unit: &str) -> &'static str {
    match unit {
        "IIO" => "# config = EventCode | UMask << 8 | PortMask << 36 | FCMask << 48 (the\n# kernel's umask config:8-15, ch_mask config:36-47, fc_mask config:48-50):\n# a unit mask's `code` is UMask | PortMask << 28 | FCMask << 40. The\n# list's UMaskExt repeats PortMask << 4 | FCMask << 16 and is not used.\n",
        "CHA" => "# config = EventCode | UMask << 8 | UMaskExt << 32 (the kernel's umask\n# config:8-15,32-63): a unit mask's `code` is UMask | UMaskExt << 24.\n",
        "UBOX" | "B2HOT" | "MDF" | "CHACMS" => "# config = EventCode | UMask << 8 (the kernel's generic umask\n# config:8-15; UMaskExt is 0 on this unit).\n",
        _ => "# config = EventCode | UMask << 8 | UMaskExt << 32 (the kernel's umask\n# config:8-15,32-55): a unit mask's `code` is UMask | UMaskExt << 24.\n",
    }
}

/// The comment block before `[[pmu]]` of the existing file, or a new one.
fn header(old: &str, a: &Args, unit: &str, what: &str, files: &str) -> String {
    let kept: Vec<&str> = old.lines().take_while(|l| l.starts_with('#')).collect();
    if !kept.is_empty() {
        return kept.join("\n") + "\n";
    }
    let (_, bx, _, _) = UNITS
        .iter()
        .find(|u| u.0 == unit)
        .copied()
        .unwrap_or_default();
    format!(
        "# {} uncore: {what}\n# (PMU {}_unc_{bx}; family {}, models {}).\n#\n# Generated by `pfm-vendorgen intel-uncore` from Intel's perfmon lists\n# {files}\n# (facts only: names, codes, fields of unit `{unit}`); descriptions are\n# our own. Events and unit masks of the experimental list are marked\n# `# experimental`.\n#\n{}#\n# Keys and rules of engine `intel_snbep_unc`: SCHEMA.md, \"Additions:\n# Intel server uncore\"; the conventions: vendorgen/src/intel_uncore.rs.\n",
        a.cpu,
        a.prefix,
        a.family,
        a.models,
        layout(unit)
    )
}

/// The data file of one unit.
fn render_unit(
    a: &Args,
    unit: (&str, &str, &str, &str),
    vendor: &[&Vendor],
    old: &str,
    descs: &Descs,
) -> anyhow::Result<String> {
    let (vunit, bx, kbox, what) = unit;
    let evs = build(vendor)?;
    let models: Vec<String> = a
        .models
        .split(',')
        .map(num)
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .map(|m| m.to_string())
        .collect();
    let cntrs = evs
        .iter()
        .map(|e| 64 - e.cntmsk.leading_zeros())
        .max()
        .unwrap_or(0);
    let names: Vec<String> = a
        .json
        .iter()
        .chain(&a.experimental)
        .filter_map(|p| p.file_name().map(|f| f.to_string_lossy().to_string()))
        .collect();
    let mut out = header(old, a, vunit, what, &names.join(",\n# "));
    let _ = write!(
        out,
        "\n[[pmu]]\nname = \"{p}_unc_{bx}\"\ndesc = {}\nengine = \"intel_snbep_unc\"\nkind = \"uncore\"\nnum_cntrs = {cntrs}\nnum_fixed_cntrs = 0\nmax_encoding = 2\nsupported_plm = []\nflags = [\"raw_umask\", \"sysfs\"]\ncpu_vendor = \"intel\"\ncpu_family = {}\ncpu_models = [{}]\nperf_name = \"uncore_{kbox}_0,uncore_{kbox}\"\n",
        data::quoted(&format!("{} uncore {what}", a.cpu)),
        a.family,
        models.join(", "),
        p = a.prefix,
    );
    for ev in &evs {
        write_event(&mut out, ev, descs);
    }
    Ok(out)
}

/// Every unit's file name and text.
pub fn render(
    a: &Args,
    vendor: &[Vendor],
    descs: impl Fn(&std::path::Path) -> anyhow::Result<Descs>,
) -> anyhow::Result<Vec<(PathBuf, String)>> {
    if let Some(v) = vendor.iter().find(|v| !UNITS.iter().any(|u| u.0 == v.unit)) {
        bail!("{}: unit {:?} unknown (add it to UNITS)", v.name, v.unit);
    }
    let mut out = vec![];
    for &unit in UNITS {
        let evs: Vec<&Vendor> = vendor.iter().filter(|v| v.unit == unit.0).collect();
        if evs.is_empty() {
            continue;
        }
        let path = a
            .out_dir
            .join(format!("intel_{}_unc_{}.toml", a.prefix, unit.1));
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let text = render_unit(a, unit, &evs, &old, &descs(&path)?)?;
        out.push((path, text));
    }
    Ok(out)
}

/// Every event of the lists.
fn read_all(a: &Args) -> anyhow::Result<Vec<Vendor>> {
    let mut vendor = vec![];
    for (p, exp) in a
        .json
        .iter()
        .map(|p| (p, false))
        .chain(a.experimental.iter().map(|p| (p, true)))
    {
        let text = std::fs::read_to_string(p).with_context(|| p.display().to_string())?;
        vendor.extend(read_vendor(&text, exp)?);
    }
    Ok(vendor)
}

/// Runs the format.
pub fn run(a: Args) -> anyhow::Result<()> {
    let vendor = read_all(&a)?;
    let descs = |path: &std::path::Path| -> anyhow::Result<Descs> {
        let mut maps = vec![data::descriptions(path)?];
        for f in &a.desc_from {
            maps.push(data::descriptions(f)?);
        }
        Ok(Descs(maps))
    };
    let mut changed = false;
    for (path, text) in render(&a, &vendor, descs)? {
        changed |= data::write_or_check(&path, &text, a.check)?;
    }
    if a.check && changed {
        bail!("the data files differ from what the lists give");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed uncore tables and how they were generated: prefix,
    /// CPU, models, lists, experimental lists (under `intel/`).
    const TABLES: &[(&str, &str, &str, &str, &str)] = &[(
        "srf",
        "Sierra Forest",
        "0xaf",
        "SRF/sierraforest_uncore.json",
        "SRF/sierraforest_uncore_experimental.json",
    )];

    /// The generator reproduces every committed uncore table from the
    /// vendor lists (descriptions kept from the tables themselves).
    #[test]
    fn committed_tables_reproduce() {
        let Some(dir) = crate::data::vendor_dir("intel").map(|d| d.join("intel")) else {
            return;
        };
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../pfmlib/data");
        for &(prefix, cpu, models, json, exp) in TABLES {
            let a = Args {
                json: vec![dir.join(json)],
                experimental: vec![dir.join(exp)],
                out_dir: data.clone(),
                prefix: prefix.into(),
                cpu: cpu.into(),
                family: 6,
                models: models.into(),
                desc_from: vec![],
                check: true,
            };
            let vendor = read_all(&a).unwrap();
            let files = render(&a, &vendor, |p| Ok(Descs(vec![data::descriptions(p)?]))).unwrap();
            assert_eq!(files.len(), UNITS.len(), "{prefix}: a file per unit");
            for (path, text) in files {
                let old = std::fs::read_to_string(&path).unwrap_or_default();
                assert!(
                    old == text,
                    "{prefix}: the generator would change {}",
                    path.display()
                );
            }
        }
    }

    const JSON: &str = r#"{"Header": {}, "Events": [
      {"Unit": "CHA", "EventCode": "0x35", "UMask": "0x01", "UMaskExt": "0x00C001FF", "PortMask": "0x000", "FCMask": "0x00", "EventName": "UNC_CHA_TOR_INSERTS.IA_MISS", "Counter": "0,1,2,3"},
      {"Unit": "CHA", "EventCode": "0x35", "UMask": "0x01", "UMaskExt": "0x00C00001", "PortMask": "0x000", "FCMask": "0x00", "EventName": "UNC_CHA_TOR_INSERTS.IA_HIT", "Counter": "0,1,2,3"},
      {"Unit": "IIO", "EventCode": "0x83", "UMask": "0x04", "UMaskExt": "0x00070010", "PortMask": "0x001", "FCMask": "0x07", "EventName": "UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0", "Counter": "0,1"},
      {"Unit": "IMC", "EventCode": "0x01", "UMask": "0x01", "UMaskExt": "0x00000000", "PortMask": "0x00", "FCMask": "0x00", "EventName": "UNC_M_CLOCKTICKS", "Counter": "0,1,2,3"},
      {"Unit": "B2CMI", "EventCode": "0x1A", "UMask": "0x01", "UMaskExt": "0x00000000", "PortMask": "0x00", "FCMask": "0x00", "EventName": "UNC_B2CMI_X.EGRESS", "Counter": "0,1,2,3"},
      {"Unit": "B2CMI", "EventCode": "0x1A", "UMask": "0x01", "UMaskExt": "0x00000000", "PortMask": "0x00", "FCMask": "0x00", "EventName": "UNC_B2CMI_X", "Counter": "0,1,2,3"}
    ]}"#;

    fn args() -> Args {
        Args {
            json: vec!["x/t_uncore.json".into()],
            experimental: vec![],
            out_dir: "/nonexistent".into(),
            prefix: "t".into(),
            cpu: "Test".into(),
            family: 6,
            models: "0xaf".into(),
            desc_from: vec![],
            check: true,
        }
    }

    fn files(json: &str) -> anyhow::Result<BTreeMap<String, String>> {
        let v = read_vendor(json, false)?;
        let out = render(&args(), &v, |_| Ok(Descs(vec![])))?;
        Ok(out
            .into_iter()
            .map(|(p, t)| (p.file_name().unwrap().to_string_lossy().to_string(), t))
            .collect())
    }

    #[test]
    fn conventions() {
        let f = files(JSON).unwrap();
        let names: Vec<&str> = f.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "intel_t_unc_b2cmi.toml",
                "intel_t_unc_cha.toml",
                "intel_t_unc_iio.toml",
                "intel_t_unc_imc.toml"
            ]
        );
        let cha = &f["intel_t_unc_cha.toml"];
        assert!(
            cha.contains("code = 0xc001ff000001\n"),
            "UMaskExt at bit 24"
        );
        assert!(cha.contains("perf_name = \"uncore_cha_0,uncore_cha\"\n"));
        assert!(cha.contains("flags = [\"ncombo\"]\n"));
        let iio = &f["intel_t_unc_iio.toml"];
        assert!(iio.contains("name = \"MEM_READ_PART0\""));
        assert!(iio.contains("code = 0x70010000004\n"), "ch_mask, fc_mask");
        assert!(iio.contains("cntmsk = 0x3\n"));
        let imc = &f["intel_t_unc_imc.toml"];
        assert!(imc.contains("code = 0x101\n"), "hard-wired unit mask");
        let b2cmi = &f["intel_t_unc_b2cmi.toml"];
        assert!(b2cmi.contains("flags = [\"dfl\"]\n"));
        assert!(b2cmi.contains("desc = \"TODO\""));
        // Alone, an event must be its default unit mask.
        let bad = JSON.replacen(r#""UMask": "0x01", "UMaskExt": "0x00000000", "PortMask": "0x00", "FCMask": "0x00", "EventName": "UNC_B2CMI_X","#, r#""UMask": "0x02", "UMaskExt": "0x00000000", "PortMask": "0x00", "FCMask": "0x00", "EventName": "UNC_B2CMI_X","#, 1);
        assert!(files(&bad).is_err());
        assert!(files(&JSON.replace("\"IMC\"", "\"NEW\"")).is_err());
    }
}
