//! Intel's perfmon JSON (`<cpu>_core.json`: `{"Header", "Events": [...]}`)
//! to an `intel_x86` data file, in libpfm4's conventions:
//!
//! - `EVENT.UMASK` is event `EVENT` with unit mask `UMASK` (further dots
//!   become `_`); unit masks are whole values (`ncombo` where the event
//!   has several), `ALL`/`ANY`/`ALL_BRANCHES` the default.
//! - The event code is the most common `EventCode` of its unit masks; a
//!   unit mask with another one is `code_override` with its `event_code`.
//! - `CounterMask`, `Invert`, `EdgeDetect`, `AnyThread` are hard-wired
//!   modifiers (`fixed = { c, i, e, t }`); `UMaskExt` (PERFEVTSEL bits
//!   40-47) goes to bits 32-39 of the unit-mask code and `Equal` (bit 36)
//!   to bit 28, so `code << 8` puts them in place.
//! - Offcore response (`MSRIndex` 0x1a6/0x1a7): one event per `UMask`
//!   value, `OCR0`, `OCR1` (code `UMask << 8 | EventCode`, flag `offcore`),
//!   whose unit masks carry the `MSRValue`.
//! - Load latency (0x3f6): a `ldlat` unit mask with the threshold it
//!   hard-wires (`ldlat = MSRValue`); the event takes the `ldlat` modifier.
//! - Precise front end (0x3f7): the unit mask hard-wires the front-end
//!   register's value (`frontend = MSRValue`, the second code), its own
//!   `UMask` in PERFEVTSEL as any other.
//! - Off-module response (Nova Lake, MSRs 0x3e0-0x3e3, `Offmodule`): as
//!   offcore response, one event per `UMask` value (`MEM_LOAD_L2_MISS_RETIRED0`
//!   .. `3`, flag `offcore`) whose unit masks carry the `MSRValue`.
//! - Fixed-counter pseudo events (`EventCode` 0x00) are written as perf
//!   programs them on a general counter: the code of their `_P` twin
//!   (`INST_RETIRED.ANY` as `ANY_P`, 0xc0); `CPU_CLK_UNHALTED.REF_TSC`,
//!   `TOPDOWN.SLOTS` and `INST_RETIRED.PREC_DIST` (no twin) as the kernel's
//!   pseudo code `UMask << 8` (0x0300, 0x0400, 0x0100), which only their
//!   fixed counter takes (the Linux perf tool's encodings of them).

use crate::data;
use anyhow::{bail, Context};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Options of the `intel` format.
#[derive(clap::Args)]
pub struct Args {
    /// Intel perfmon event list (`.../SRF/sierraforest_core.json`).
    #[arg(long)]
    json: PathBuf,
    /// Data file written (`crates/pfmlib/data/intel_srf.toml`).
    #[arg(long)]
    out: PathBuf,
    /// PMU name (`srf`).
    #[arg(long)]
    name: String,
    /// PMU description.
    #[arg(long)]
    desc: String,
    /// CPU family.
    #[arg(long, default_value_t = 6)]
    family: u32,
    /// CPU models, comma-separated (`0xaf`).
    #[arg(long)]
    models: String,
    /// Generic counters.
    #[arg(long, default_value_t = 8)]
    counters: u32,
    /// The kernel's perf_events PMU.
    #[arg(long, default_value = "cpu")]
    perf_name: String,
    /// Hybrid parts: the core type (CPUID leaf 0x1A, `0x20` Atom, `0x40`
    /// Core) of the cores this PMU counts on (mapfile.csv's "Core Type").
    #[arg(long)]
    core_type: Option<String>,
    /// Hybrid parts: the native model id of those cores (mapfile.csv's
    /// "Native Model ID"), when the model has two kinds of core of one type.
    #[arg(long)]
    native_model: Option<String>,
    /// Further data files whose descriptions are reused by name where the
    /// output file has none (pfmlib's own words for the same event).
    #[arg(long)]
    desc_from: Vec<PathBuf>,
    /// Intel's offcore matrix (`<cpu>_matrix.json`): offcore events become
    /// `OFFCORE_RESPONSE_0`/`_1` with request (group 0) and response
    /// (group 1) unit masks, as libpfm4's glm table has them.
    #[arg(long)]
    matrix: Option<PathBuf>,
    /// Write nothing; print what would change.
    #[arg(long)]
    check: bool,
}

/// One vendor event, the fields we use.
#[derive(Debug, Clone)]
pub struct Vendor {
    pub name: String,
    pub code: u64,
    /// Every `EventCode` (newer offcore events list one per MSR: `0x2A,0x2B`).
    pub codes: Vec<u64>,
    pub umasks: Vec<u64>,
    pub umask_ext: u64,
    pub cmask: u64,
    pub inv: u64,
    pub edge: u64,
    pub any: u64,
    pub equal: u64,
    pub msr_index: String,
    pub msr_value: u64,
    pub counters: u64,
    pub precise: bool,
    pub spec: bool,
    pub deprecated: bool,
}

pub(crate) fn num(s: &str) -> anyhow::Result<u64> {
    let s = s.trim();
    let r = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        s.parse()
    };
    r.with_context(|| format!("bad number {s:?}"))
}

/// The counters field (`"0,1,2"` or `"Fixed counter 1"`) as a cntmsk.
fn counters(s: &str) -> anyhow::Result<u64> {
    if let Some(n) = s.strip_prefix("Fixed counter ") {
        return Ok(1 << (32 + num(n)?));
    }
    s.split(',').try_fold(0, |m, c| Ok(m | 1 << num(c)?))
}

/// Reads the vendor file's events.
pub fn read_vendor(text: &str) -> anyhow::Result<Vec<Vendor>> {
    let doc: serde_json::Value = serde_json::from_str(text)?;
    let events = doc["Events"].as_array().context("no Events array")?;
    events.iter().map(vendor_event).collect()
}

fn vendor_event(e: &serde_json::Value) -> anyhow::Result<Vendor> {
    let s = |k: &str| e.get(k).and_then(|v| v.as_str()).unwrap_or("0").to_string();
    let n = |k: &str| num(&s(k));
    let name = s("EventName");
    let f = || -> anyhow::Result<Vendor> {
        Ok(Vendor {
            code: s("EventCode").split(',').next().map_or(Ok(0), num)?,
            codes: s("EventCode")
                .split(',')
                .map(num)
                .collect::<Result<_, _>>()?,
            umasks: s("UMask").split(',').map(num).collect::<Result<_, _>>()?,
            umask_ext: n("UMaskExt")?,
            cmask: n("CounterMask")?,
            inv: n("Invert")?,
            edge: n("EdgeDetect")?,
            any: n("AnyThread")?,
            equal: n("Equal")?,
            msr_index: s("MSRIndex").to_ascii_lowercase().replace(' ', ""),
            msr_value: n("MSRValue")?,
            counters: counters(&s("Counter"))?,
            precise: s("Precise") == "1" || s("PEBS") != "0",
            spec: s("Speculative") == "1",
            deprecated: s("Deprecated") == "1",
            name: name.clone(),
        })
    };
    f().with_context(|| format!("event {name}"))
}

/// How a vendor event is encoded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Plain,
    Offcore,
    LoadLatency,
    Frontend,
}

impl Vendor {
    /// What its MSR index says.
    pub fn kind(&self) -> anyhow::Result<Kind> {
        Ok(match self.msr_index.as_str() {
            "0x00" | "0" => Kind::Plain,
            "0x1a6,0x1a7" | "0x1a6" | "0x1a7" | "0x3e0,0x3e1,0x3e2,0x3e3" => Kind::Offcore,
            "0x3f6" => Kind::LoadLatency,
            "0x3f7" => Kind::Frontend,
            other => bail!("{}: MSRIndex {other} not supported yet", self.name),
        })
    }

    /// Our event and unit-mask names with the `UMask` value and event code
    /// of each: one per `UMask` value; an offcore event one per response
    /// MSR it names (`MSRIndex` 0x1a6 alone: `OCR0` only, as Tremont's
    /// `OUTSTANDING`), the n-th taking the n-th `UMask` and `EventCode`
    /// where the list gives one per register (`0x2A,0x2B`).
    pub fn names(&self) -> anyhow::Result<Vec<(String, String, u64, u64)>> {
        let (ev, um) = self
            .name
            .split_once('.')
            .with_context(|| format!("{}: no unit mask", self.name))?;
        let um = um.replace('.', "_");
        let first = self.umasks.first().copied().unwrap_or_default();
        if self.kind()? != Kind::Offcore {
            return Ok(vec![(ev.to_string(), um, first, self.code)]);
        }
        let regs: Vec<usize> = match self.msr_index.as_str() {
            "0x1a6" => vec![0],
            "0x1a7" => vec![1],
            _ => (0..self.umasks.len().max(self.codes.len())).collect(),
        };
        regs.into_iter()
            .map(|i| {
                let u =
                    self.umasks.get(i).or(self.umasks.last()).with_context(|| {
                        format!("{}: no unit mask for response MSR {i}", self.name)
                    })?;
                let code = self.codes.get(i).or(self.codes.last()).copied();
                Ok((
                    format!("{ev}{i}"),
                    um.clone(),
                    *u,
                    code.unwrap_or(self.code),
                ))
            })
            .collect()
    }
}

/// One unit mask of ours.
#[derive(Debug, Default)]
struct Um {
    name: String,
    code: u64,
    grp: u64,
    event_code: u64,
    fixed: Vec<(&'static str, u64)>,
    ldlat: u64,
    frontend: Option<u64>,
    cntmsk: u64,
    pebs: bool,
    spec: bool,
    deprecated: bool,
}

/// One event of ours.
#[derive(Debug, Default)]
struct Ev {
    name: String,
    code: u64,
    offcore: bool,
    /// Request and response groups (offcore matrix).
    matrix: bool,
    umasks: Vec<Um>,
}

/// The perf code (event select, unit mask) of a fixed-counter pseudo event.
fn fixed_twin(v: &Vendor, all: &[Vendor]) -> anyhow::Result<(u64, u64)> {
    let twin = format!("{}_P", v.name);
    match (all.iter().find(|t| t.name == twin), v.umasks.as_slice()) {
        (_, [3 | 4]) | (None, [1]) => Ok((0, v.umasks[0])),
        (Some(t), _) => Ok((t.code, t.umasks[0])),
        (None, _) => bail!("{}: fixed-counter event without {twin}", v.name),
    }
}

/// Builds our events from the vendor's.
fn build(vendor: &[Vendor]) -> anyhow::Result<Vec<Ev>> {
    let mut evs: BTreeMap<String, Ev> = BTreeMap::new();
    for v in vendor {
        let kind = v.kind()?;
        for (en, un, umask, evcode) in v.names()? {
            let (mut code, mut ucode) = (evcode, umask);
            if v.code == 0 {
                (code, ucode) = fixed_twin(v, vendor)?;
            }
            let mut um = Um {
                name: un,
                cntmsk: v.counters,
                pebs: v.precise,
                spec: v.spec,
                deprecated: v.deprecated,
                ..Default::default()
            };
            if kind == Kind::Offcore {
                code |= umask << 8;
                um.code = v.msr_value;
            } else {
                um.code = ucode | v.umask_ext << 32 | v.equal << 28;
            }
            if kind == Kind::LoadLatency {
                um.ldlat = v.msr_value;
            }
            if kind == Kind::Frontend {
                um.frontend = Some(v.msr_value);
            }
            for (k, val) in [("c", v.cmask), ("i", v.inv), ("e", v.edge), ("t", v.any)] {
                if val != 0 {
                    um.fixed.push((k, val));
                }
            }
            um.event_code = code;
            let ev = evs.entry(en.clone()).or_insert_with(|| Ev {
                name: en,
                offcore: kind == Kind::Offcore,
                ..Default::default()
            });
            if ev.umasks.iter().any(|u| u.name == um.name) {
                bail!("{}: unit mask {} twice", ev.name, um.name);
            }
            ev.umasks.push(um);
        }
    }
    let mut out: Vec<Ev> = evs.into_values().collect();
    for ev in &mut out {
        ev.umasks.sort_by(|a, b| a.name.cmp(&b.name));
        ev.code = common_code(ev);
    }
    Ok(out)
}

/// One entry of Intel's offcore matrix: request or response, its name,
/// value (response values from bit 16), the MSRs (0: 0x1a6, 1: 0x1a7).
struct MatrixEntry {
    response: bool,
    name: String,
    value: u64,
    regs: Vec<u64>,
}

/// Requests Intel's matrix files as responses (Goldmont Plus: PF_L2_CODE,
/// request bit 6 beside PF_L2_DATA_RD's 4 and PF_L2_RFO's 5).
const MISFILED_REQUESTS: &[&str] = &["PF_L2_CODE"];

fn read_matrix(text: &str) -> anyhow::Result<Vec<MatrixEntry>> {
    let doc: serde_json::Value = serde_json::from_str(text)?;
    let events = doc["Events"].as_array().context("no Events array")?;
    let s = |e: &serde_json::Value, k: &str| {
        e.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .trim()
            .to_string()
    };
    events
        .iter()
        .map(|e| {
            let (req, resp) = (s(e, "MATRIX_REQUEST"), s(e, "MATRIX_RESPONSE"));
            let response = req == "Null" && !MISFILED_REQUESTS.contains(&resp.as_str());
            let value = num(&s(e, "MATRIX_VALUE"))?;
            Ok(MatrixEntry {
                response,
                name: if req == "Null" { resp } else { req }.replace('.', "_"),
                value: if response { value << 16 } else { value },
                regs: s(e, "MATRIX_REGISTER")
                    .split(',')
                    .map(num)
                    .collect::<Result<_, _>>()?,
            })
        })
        .collect()
}

/// `OFFCORE_RESPONSE_0`/`_1` from the matrix; every offcore event of the
/// list must be one request and one response of it.
fn matrix_events(text: &str, vendor: &[Vendor]) -> anyhow::Result<Vec<Ev>> {
    let m = read_matrix(text)?;
    let offcore: Vec<&Vendor> = vendor
        .iter()
        .filter(|v| v.kind().ok() == Some(Kind::Offcore))
        .collect();
    for v in &offcore {
        let rest = v.name.split_once('.').map(|x| x.1).unwrap_or_default();
        let (req, resp) = rest
            .split_once('.')
            .with_context(|| format!("{}: no response", v.name))?;
        let find = |r: bool, n: &str| {
            m.iter()
                .find(|e| e.response == r && e.name == n.replace('.', "_"))
        };
        let (Some(q), Some(r)) = (find(false, req), find(true, resp)) else {
            bail!("{}: request or response not in the matrix", v.name);
        };
        if q.value | r.value != v.msr_value {
            bail!(
                "{}: {:#x} is not the matrix's {:#x}",
                v.name,
                v.msr_value,
                q.value | r.value
            );
        }
    }
    let base = offcore
        .first()
        .context("offcore matrix but no offcore event")?;
    let counters = offcore.iter().fold(0, |c, v| c | v.counters);
    let mut out = vec![];
    for (i, &u) in base.umasks.iter().enumerate() {
        let mut umasks: Vec<Um> = m
            .iter()
            .filter(|e| e.regs.contains(&(i as u64)))
            .map(|e| Um {
                name: e.name.clone(),
                code: e.value,
                grp: u64::from(e.response),
                cntmsk: counters,
                event_code: base.code | u << 8,
                ..Default::default()
            })
            .collect();
        umasks.sort_by(|a, b| (a.grp, &a.name).cmp(&(b.grp, &b.name)));
        out.push(Ev {
            name: format!("{}_{i}", base.name.split('.').next().unwrap_or_default()),
            code: base.code | u << 8,
            offcore: true,
            matrix: true,
            umasks,
        });
    }
    Ok(out)
}

/// The most common event code of an event's unit masks (ties: the lowest).
fn common_code(ev: &Ev) -> u64 {
    let mut n: BTreeMap<u64, usize> = BTreeMap::new();
    for u in &ev.umasks {
        *n.entry(u.event_code).or_default() += 1;
    }
    let best = n.values().copied().max().unwrap_or(0);
    n.into_iter()
        .find(|&(_, c)| c == best)
        .map_or(0, |(k, _)| k)
}

fn hex(v: u64) -> String {
    format!("{v:#x}")
}

/// A unit-mask code: above `i64::MAX` (bit 63, which a TOML integer
/// cannot hold) a string, as SCHEMA.md allows.
fn wide_hex(v: u64) -> String {
    if i64::try_from(v).is_ok() {
        hex(v)
    } else {
        format!("\"{v:#x}\"")
    }
}

fn list(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| data::quoted(s)).collect();
    format!("[{}]", q.join(", "))
}

/// Looks a description up: the output file's, then the other files'.
pub struct Descs(pub(crate) Vec<BTreeMap<String, String>>);

impl Descs {
    pub(crate) fn get(&self, key: &str) -> String {
        self.0
            .iter()
            .find_map(|m| m.get(key).filter(|d| d.as_str() != data::TODO))
            .cloned()
            .unwrap_or_else(|| data::TODO.to_string())
    }
}

/// The unit masks' counters, and the event's: their union.
fn cntmsk(ev: &Ev) -> u64 {
    ev.umasks.iter().fold(0, |m, u| m | u.cntmsk)
}

fn write_event(out: &mut String, ev: &Ev, descs: &Descs) {
    let evmask = cntmsk(ev);
    let ldlat = ev.umasks.iter().any(|u| u.ldlat != 0);
    let mut mods = vec!["k", "u", "e", "i", "c"];
    if ev.umasks.iter().any(|u| u.fixed.iter().any(|f| f.0 == "t")) {
        mods.push("t");
    }
    if ldlat {
        mods.push("ldlat");
    }
    let mut flags = vec![];
    if ev.umasks.iter().any(|u| u.pebs) {
        flags.push("pebs");
    }
    if ev.offcore {
        flags.push("offcore");
    }
    if ev.umasks.iter().all(|u| u.spec) {
        flags.push("spec");
    }
    if ev.umasks.iter().all(|u| u.deprecated) {
        flags.push("deprecated");
    }
    let _ = write!(
        out,
        "\n[[event]]\nname = {}\ndesc = {}\ncode = {}\ncntmsk = {}\nmodifiers = {}\n",
        data::quoted(&ev.name),
        data::quoted(&descs.get(&ev.name)),
        hex(ev.code),
        hex(evmask),
        list(&mods)
    );
    if !flags.is_empty() {
        let _ = writeln!(out, "flags = {}", list(&flags));
    }
    let dfl = default_umasks(ev);
    for (i, u) in ev.umasks.iter().enumerate() {
        write_umask(out, ev, u, dfl.contains(&i), evmask, descs);
    }
}

/// The default unit masks: the only one, or one named ALL, ANY,
/// ALL_BRANCHES; in a matrix one per group, as libpfm4's glm has them: the
/// request ANY_REQUEST and the response ANY_RESPONSE (so that every unit
/// mask encodes alone, as libpfm4's `pfm_pmu_validate` requires).
fn default_umasks(ev: &Ev) -> Vec<usize> {
    if ev.matrix {
        let is_dfl = |u: &Um| {
            (u.grp == 0 && u.name == "ANY_REQUEST") || (u.grp == 1 && u.name == "ANY_RESPONSE")
        };
        return (0..ev.umasks.len())
            .filter(|&i| is_dfl(&ev.umasks[i]))
            .collect();
    }
    default_umask(ev).into_iter().collect()
}

/// The default unit mask outside a matrix.
fn default_umask(ev: &Ev) -> Option<usize> {
    if ev.umasks.len() == 1 {
        return Some(0);
    }
    ["ALL", "ANY", "ALL_BRANCHES"]
        .iter()
        .find_map(|n| ev.umasks.iter().position(|u| u.name == *n))
}

fn write_umask(out: &mut String, ev: &Ev, u: &Um, dfl: bool, evmask: u64, descs: &Descs) {
    let mut flags = vec![];
    if ev.umasks.len() > 1 && !ev.matrix {
        flags.push("ncombo");
    }
    if u.pebs {
        flags.push("pebs");
    }
    if dfl {
        flags.push("dfl");
    }
    if u.ldlat != 0 {
        flags.push("ldlat");
    }
    let overrides = !ev.offcore && u.event_code != ev.code;
    if overrides {
        flags.push("code_override");
    }
    let key = format!("{}:{}", ev.name, u.name);
    out.push_str(&data::umask_head(
        &u.name,
        &descs.get(&key),
        &wide_hex(u.code),
    ));
    if !flags.is_empty() {
        let _ = writeln!(out, "  flags = {}", list(&flags));
    }
    if overrides {
        let _ = writeln!(out, "  event_code = {}", hex(u.event_code & 0xff));
    }
    // A fixed-counter event also runs on the event's general counters
    // (the kernel's pseudo code 0x0300 of REF_TSC only on its own).
    let pseudo = overrides && u.event_code & 0xff == 0;
    let own = if u.cntmsk & 0xffff_ffff == 0 && !pseudo {
        u.cntmsk | (evmask & 0xffff_ffff)
    } else {
        u.cntmsk
    };
    if own != evmask {
        let _ = writeln!(out, "  cntmsk = {}", hex(own));
    }
    if u.ldlat != 0 {
        let _ = writeln!(out, "  ldlat = {}", u.ldlat);
    }
    if let Some(fe) = u.frontend {
        let _ = writeln!(out, "  frontend = {}", hex(fe));
    }
    if u.grp != 0 {
        let _ = writeln!(out, "  grp = {}", u.grp);
    }
    if !u.fixed.is_empty() {
        let f: Vec<String> = u.fixed.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        let _ = writeln!(out, "  fixed = {{ {} }}", f.join(", "));
    }
}

/// The comment block before `[[pmu]]` of the existing file, or a new one.
fn header(old: &str, a: &Args, json: &str) -> String {
    let kept: Vec<&str> = old.lines().take_while(|l| l.starts_with('#')).collect();
    if !kept.is_empty() {
        return kept.join("\n") + "\n";
    }
    format!(
        "# {} ({}: family {}, models {}).\n#\n# Generated by `pfm-vendorgen intel` from Intel's perfmon event list\n# {json} (facts only: names, codes, fields); descriptions are our own.\n# See SCHEMA.md for the format and vendorgen/src/intel.rs for the\n# conventions.\n",
        a.desc, a.name, a.family, a.models
    )
}

/// The whole data file.
pub fn render(a: &Args, vendor: &[Vendor], old: &str, descs: &Descs) -> anyhow::Result<String> {
    let mut evs = match &a.matrix {
        Some(m) => {
            let text = std::fs::read_to_string(m).with_context(|| m.display().to_string())?;
            // The list's bare `OFFCORE_RESPONSE` (no unit mask) is the
            // matrix events themselves.
            let bare: Vec<&str> = vendor
                .iter()
                .filter(|v| v.kind().ok() == Some(Kind::Offcore))
                .filter_map(|v| v.name.split('.').next())
                .collect();
            let rest: Vec<Vendor> = vendor
                .iter()
                .filter(|v| {
                    v.kind().ok() != Some(Kind::Offcore) && !bare.contains(&v.name.as_str())
                })
                .cloned()
                .collect();
            let mut evs = build(&rest)?;
            evs.extend(matrix_events(&text, vendor)?);
            evs
        }
        None => build(vendor)?,
    };
    evs.sort_by(|a, b| a.name.cmp(&b.name));
    let models: Vec<u64> = a.models.split(',').map(num).collect::<Result<_, _>>()?;
    let models: Vec<String> = models.into_iter().map(hex).collect();
    let fixed = vendor
        .iter()
        .filter(|v| v.counters >> 32 != 0)
        .map(|v| 64 - (v.counters >> 32).leading_zeros())
        .max()
        .unwrap_or(0);
    // libpfm4's `ecmask` (edge detect needs a counter mask) unless the
    // list itself has an edge event without one (Tremont's BUS_LOCK).
    let flags = if vendor.iter().any(|v| v.edge != 0 && v.cmask == 0) {
        "[\"raw_umask\"]"
    } else {
        "[\"raw_umask\", \"ecmask\"]"
    };
    let json = a.json.file_name().map(|f| f.to_string_lossy().to_string());
    let mut out = header(old, a, &json.unwrap_or_default());
    let _ = write!(
        out,
        "\n[[pmu]]\nname = {}\ndesc = {}\nengine = \"intel_x86\"\nkind = \"core\"\nnum_cntrs = {}\nnum_fixed_cntrs = {fixed}\nmax_encoding = 2\nsupported_plm = [0, 3]\nflags = {flags}\ncpu_vendor = \"intel\"\ncpu_family = {}\ncpu_models = [{}]\nperf_name = {}\n",
        data::quoted(&a.name),
        data::quoted(&a.desc),
        a.counters,
        a.family,
        models.join(", "),
        data::quoted(&a.perf_name),
    );
    if let Some(ct) = &a.core_type {
        let _ = writeln!(out, "core_type = {}", hex(num(ct)?));
    }
    if let Some(nm) = &a.native_model {
        let _ = writeln!(out, "native_model = {}", hex(num(nm)?));
    }
    for ev in &evs {
        write_event(&mut out, ev, descs);
    }
    Ok(out)
}

/// Runs the format.
pub fn run(a: Args) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&a.json).with_context(|| a.json.display().to_string())?;
    let vendor = read_vendor(&text)?;
    let old = std::fs::read_to_string(&a.out).unwrap_or_default();
    let mut maps = vec![data::descriptions(&a.out)?];
    for f in &a.desc_from {
        maps.push(data::descriptions(f)?);
    }
    let out = render(&a, &vendor, &old, &Descs(maps))?;
    data::write_or_check(&a.out, &out, a.check)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How a committed table was generated: the generator's arguments.
    struct Recipe {
        name: &'static str,
        desc: &'static str,
        family: u32,
        models: &'static str,
        counters: u32,
        json: &'static str,
        matrix: Option<&'static str>,
        perf_name: &'static str,
        core_type: Option<&'static str>,
        native_model: Option<&'static str>,
    }

    /// A non-hybrid family 6 table on the kernel's `cpu` PMU.
    const fn plain(
        name: &'static str,
        desc: &'static str,
        models: &'static str,
        counters: u32,
        json: &'static str,
    ) -> Recipe {
        Recipe {
            name,
            desc,
            family: 6,
            models,
            counters,
            json,
            matrix: None,
            perf_name: "cpu",
            core_type: None,
            native_model: None,
        }
    }

    /// A hybrid part's P-core table (`cpu_core`, core type 0x40).
    const fn big(r: Recipe) -> Recipe {
        Recipe {
            perf_name: "cpu_core",
            core_type: Some("0x40"),
            ..r
        }
    }

    /// A hybrid part's E-core table (`cpu_atom`, core type 0x20).
    const fn small(r: Recipe) -> Recipe {
        Recipe {
            perf_name: "cpu_atom",
            core_type: Some("0x20"),
            ..r
        }
    }

    /// Nova Lake's tables: family 18.
    const fn fam18(r: Recipe) -> Recipe {
        Recipe { family: 18, ..r }
    }

    /// The committed tables and how each was generated: the recipe, checked
    /// by a test.
    const TABLES: &[Recipe] = &[
        plain(
            "srf",
            "Intel Sierra Forest (Crestmont E-core server)",
            "0xaf",
            8,
            "SRF/sierraforest_core.json",
        ),
        plain(
            "grr",
            "Intel Grand Ridge (Crestmont)",
            "0xb6",
            8,
            "GRR/grandridge_core.json",
        ),
        plain(
            "cwf",
            "Intel Clearwater Forest (Darkmont E-core server)",
            "0xdd",
            8,
            "CWF/clearwaterforest_core.json",
        ),
        plain(
            "adln_grt",
            "Intel Alder Lake-N Gracemont (E-cores only)",
            "0xbe",
            6,
            "ADL/alderlake_gracemont_core.json",
        ),
        Recipe {
            matrix: Some("GLP/goldmontplus_matrix.json"),
            ..plain(
                "glp",
                "Intel Goldmont Plus",
                "0x7a",
                4,
                "GLP/goldmontplus_core.json",
            )
        },
        big(plain(
            "mtl_rwc",
            "Intel Meteor Lake Redwood Cove (P-core)",
            "0xaa,0xac,0xb5",
            8,
            "MTL/meteorlake_redwoodcove_core.json",
        )),
        small(plain(
            "mtl_cmt",
            "Intel Meteor Lake Crestmont (E-core)",
            "0xaa,0xac,0xb5",
            8,
            "MTL/meteorlake_crestmont_core.json",
        )),
        big(plain(
            "arl_lnc",
            "Intel Arrow Lake Lion Cove (P-core)",
            "0xc5,0xc6",
            10,
            "ARL/arrowlake_lioncove_core.json",
        )),
        Recipe {
            native_model: Some("0x3"),
            ..small(plain(
                "arl_skt",
                "Intel Arrow Lake Skymont (E-core)",
                "0xc5,0xc6",
                8,
                "ARL/arrowlake_skymont_core.json",
            ))
        },
        Recipe {
            perf_name: "cpu_lowpower",
            native_model: Some("0x2"),
            ..small(plain(
                "arl_cmt",
                "Intel Arrow Lake-H low-power Crestmont (LP E-core)",
                "0xc5",
                8,
                "ARL/arrowlake_crestmont_core.json",
            ))
        },
        big(plain(
            "lnl_lnc",
            "Intel Lunar Lake Lion Cove (P-core)",
            "0xbd",
            10,
            "LNL/lunarlake_lioncove_core.json",
        )),
        small(plain(
            "lnl_skt",
            "Intel Lunar Lake Skymont (E-core)",
            "0xbd",
            8,
            "LNL/lunarlake_skymont_core.json",
        )),
        big(plain(
            "ptl_cgc",
            "Intel Panther Lake Cougar Cove (P-core)",
            "0xcc,0xd5",
            10,
            "PTL/pantherlake_cougarcove_core.json",
        )),
        small(plain(
            "ptl_dkt",
            "Intel Panther Lake Darkmont (E-core)",
            "0xcc,0xd5",
            8,
            "PTL/pantherlake_darkmont_core.json",
        )),
        fam18(big(plain(
            "nvl_cyc",
            "Intel Nova Lake Coyote Cove (P-core)",
            "0x1,0x3",
            8,
            "NVL/novalake_coyotecove_core.json",
        ))),
        fam18(small(plain(
            "nvl_arw",
            "Intel Nova Lake Arctic Wolf (E-core)",
            "0x1,0x3",
            8,
            "NVL/novalake_arcticwolf_core.json",
        ))),
        plain(
            "ehl",
            "Intel Elkhart Lake / Jasper Lake (Tremont), Intel's event list",
            "0x96,0x9c",
            4,
            "EHL/elkhartlake_core.json",
        ),
    ];

    /// The generator's arguments of a recipe (`--check`).
    fn recipe_args(r: &Recipe, dir: &std::path::Path, data: &std::path::Path) -> Args {
        Args {
            json: dir.join(r.json),
            out: data.join(format!("intel_{}.toml", r.name)),
            name: r.name.into(),
            desc: r.desc.into(),
            family: r.family,
            models: r.models.into(),
            counters: r.counters,
            perf_name: r.perf_name.into(),
            core_type: r.core_type.map(Into::into),
            native_model: r.native_model.map(Into::into),
            desc_from: vec![],
            matrix: r.matrix.map(|m| dir.join(m)),
            check: true,
        }
    }

    /// Prints the command that regenerates every committed table (run with
    /// `--ignored --nocapture`): the recipes as a shell script.
    #[test]
    #[ignore]
    fn print_recipes() {
        for r in TABLES {
            let mut cmd = format!(
                "cargo run -p pfm-vendorgen -- intel --json \"$V/{}\" --out crates/pfmlib/data/intel_{}.toml --name {} --desc '{}' --family {} --models {} --counters {} --perf-name {}",
                r.json, r.name, r.name, r.desc, r.family, r.models, r.counters, r.perf_name
            );
            for (k, v) in [
                ("core-type", r.core_type),
                ("native-model", r.native_model),
                ("matrix", r.matrix),
            ] {
                if let Some(v) = v {
                    let v = if k == "matrix" {
                        format!("\"$V/{v}\"")
                    } else {
                        v.to_string()
                    };
                    cmd += &format!(" --{k} {v}");
                }
            }
            println!("{cmd}");
        }
    }

    /// The generator reproduces every committed Intel table from the
    /// vendor lists (descriptions kept from the table itself).
    #[test]
    fn committed_tables_reproduce() {
        let Some(dir) = crate::data::vendor_dir("intel").map(|d| d.join("intel")) else {
            return;
        };
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../pfmlib/data");
        for r in TABLES {
            let (name, a) = (r.name, recipe_args(r, &dir, &data));
            let text = std::fs::read_to_string(&a.json).unwrap();
            let old = std::fs::read_to_string(&a.out).unwrap();
            let descs = Descs(vec![data::descriptions(&a.out).unwrap()]);
            let out = render(&a, &read_vendor(&text).unwrap(), &old, &descs).unwrap();
            assert!(
                out == old,
                "{name}: the generator would change {}",
                a.out.display()
            );
        }
    }

    const JSON: &str = r#"{"Header": {}, "Events": [
      {"EventCode": "0x00", "UMask": "0x01", "EventName": "INST_RETIRED.ANY", "Counter": "Fixed counter 0", "MSRIndex": "0x00", "MSRValue": "0x00", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0", "Precise": "1"},
      {"EventCode": "0xc0", "UMask": "0x00", "EventName": "INST_RETIRED.ANY_P", "Counter": "0,1", "MSRIndex": "0x00", "MSRValue": "0x00", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0"},
      {"EventCode": "0xcd", "UMask": "0x03", "EventName": "ARITH.DIV_ACTIVE", "Counter": "0,1", "MSRIndex": "0x00", "MSRValue": "0x00", "CounterMask": "1", "Invert": "0", "EdgeDetect": "0"},
      {"EventCode": "0x24", "UMask": "0x7f", "UMaskExt": "0x01", "EventName": "L2_REQUEST.MISS", "Counter": "0,1", "MSRIndex": "0x00", "MSRValue": "0x00", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0"},
      {"EventCode": "0xd0", "UMask": "0x05", "EventName": "MEM_UOPS_RETIRED.LOAD_LATENCY_GT_8", "Counter": "0,1", "MSRIndex": "0x3F6", "MSRValue": "0x8", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0"},
      {"EventCode": "0xB7", "UMask": "0x01,0x02", "EventName": "OCR.DEMAND_RFO.L3_HIT.SNOOP_HITM", "Counter": "0,1", "MSRIndex": "0x1a6,0x1a7", "MSRValue": "0x10003C0002", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0"},
      {"EventCode": "0x3c", "UMask": "0x00", "EventName": "CPU_CLK_UNHALTED.EQ_2", "Counter": "0,1", "MSRIndex": "0x00", "MSRValue": "0x00", "CounterMask": "2", "Invert": "0", "EdgeDetect": "0", "Equal": "1"},
      {"EventCode": "0xc6", "UMask": "0x03", "EventName": "FRONTEND_RETIRED.LATENCY_GE_8", "Counter": "0,1", "MSRIndex": "0x3F7", "MSRValue": "0x600806", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0"},
      {"EventCode": "0xD6", "UMask": "0x01,0x02,0x04,0x08", "EventName": "MEM_LOAD_L2_MISS_RETIRED.L3_MISS", "Counter": "0,1", "MSRIndex": "0x3E0,0x3E1,0x3E2,0x3E3", "MSRValue": "0xFF03F000000001", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0", "Offmodule": "1"},
      {"EventCode": "0x2A,0x2B", "UMask": "0x01", "EventName": "OCRX.DEMAND_DATA_RD_L3_MISS", "Counter": "0,1", "MSRIndex": "0x1a6,0x1a7", "MSRValue": "0x3FBFC00001", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0"},
      {"EventCode": "0x00", "UMask": "0x04", "EventName": "TOPDOWN.SLOTS", "Counter": "Fixed counter 3", "MSRIndex": "0x00", "MSRValue": "0x00", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0"},
      {"EventCode": "0xa4", "UMask": "0x01", "EventName": "TOPDOWN.SLOTS_P", "Counter": "0,1", "MSRIndex": "0x00", "MSRValue": "0x00", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0"}
    ]}"#;

    fn args() -> Args {
        Args {
            json: "x/t_core.json".into(),
            out: "/nonexistent/t.toml".into(),
            name: "t".into(),
            desc: "Test".into(),
            family: 6,
            models: "0xaf".into(),
            counters: 2,
            perf_name: "cpu".into(),
            core_type: None,
            native_model: None,
            desc_from: vec![],
            matrix: None,
            check: true,
        }
    }

    #[test]
    fn conventions() {
        let v = read_vendor(JSON).unwrap();
        let out = render(&args(), &v, "", &Descs(vec![])).unwrap();
        let doc: toml::Value = toml::from_str(&out).unwrap();
        let evs = doc["event"].as_array().unwrap();
        let names: Vec<&str> = evs.iter().map(|e| e["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "ARITH",
                "CPU_CLK_UNHALTED",
                "FRONTEND_RETIRED",
                "INST_RETIRED",
                "L2_REQUEST",
                "MEM_LOAD_L2_MISS_RETIRED0",
                "MEM_LOAD_L2_MISS_RETIRED1",
                "MEM_LOAD_L2_MISS_RETIRED2",
                "MEM_LOAD_L2_MISS_RETIRED3",
                "MEM_UOPS_RETIRED",
                "OCR0",
                "OCR1",
                "OCRX0",
                "OCRX1",
                "TOPDOWN"
            ]
        );
        // Equal (PERFEVTSEL bit 36) is bit 28 of the unit-mask code.
        assert!(out.contains("code = 0x10000000\n"), "Equal in bit 28");
        // The front-end register's value is hard-wired by the unit mask.
        assert!(out.contains("frontend = 0x600806\n"));
        // Off-module response: the i-th register's unit mask (0x4 << 8).
        assert!(out.contains("code = 0x4d6\n"));
        // One event code per offcore register (0x2b for the second).
        assert!(out.contains("code = 0x12b\n"));
        // TOPDOWN.SLOTS as the kernel's pseudo code 0x0400.
        assert!(out.contains("code = 0x4\n"));
        assert!(
            out.contains("code = 0x10000007f\n"),
            "UMaskExt in bits 32-39"
        );
        assert!(out.contains("fixed = { c = 1 }"));
        assert!(out.contains("ldlat = 8\n"));
        assert!(out.contains("name = \"DEMAND_RFO_L3_HIT_SNOOP_HITM\""));
        assert!(out.contains("code = 0x2b7\n"));
        assert!(out.contains("num_fixed_cntrs = 4\n"));
        // INST_RETIRED.ANY is written as its general-counter twin.
        let inst = &evs[3];
        assert_eq!(inst["code"].as_integer(), Some(0xc0));
        let um = inst["umask"].as_array().unwrap();
        assert_eq!(um[0]["code"].as_integer(), Some(0));
        assert!(um[0].get("event_code").is_none());
        assert!(out.contains("desc = \"TODO\""));
    }

    /// `ecmask` (edge detect needs a counter mask) unless the list has an
    /// edge event without one, as Tremont's `BUS_LOCK.SELF_LOCKS`.
    #[test]
    fn ecmask_unless_the_list_counts_edges_alone() {
        let with = render(&args(), &read_vendor(JSON).unwrap(), "", &Descs(vec![])).unwrap();
        assert!(with.contains("flags = [\"raw_umask\", \"ecmask\"]\n"));
        let edge = JSON.replace(
            "]}",
            r#", {"EventCode": "0x63", "UMask": "0x00", "EventName": "BUS_LOCK.SELF_LOCKS", "Counter": "0,1", "MSRIndex": "0x00", "EdgeDetect": "1"}]}"#,
        );
        let without = render(&args(), &read_vendor(&edge).unwrap(), "", &Descs(vec![])).unwrap();
        assert!(without.contains("flags = [\"raw_umask\"]\n"));
        assert!(without.contains("fixed = { e = 1 }"));
    }

    /// `MSRIndex` 0x1a6 alone (Tremont's `OCR.*.OUTSTANDING`, unit masks
    /// 0x01,0x02): only the first response register, so `OCR0` alone.
    #[test]
    fn offcore_on_one_register() {
        let one = JSON.replace(
            "]}",
            r#", {"EventCode": "0xB7", "UMask": "0x01,0x02", "EventName": "OCR.DEMAND_RFO.OUTSTANDING", "Counter": "0,1", "MSRIndex": "0x1a6", "MSRValue": "0x8000000000000002"}]}"#,
        );
        let v = read_vendor(&one).unwrap();
        let out = render(&args(), &v, "", &Descs(vec![])).unwrap();
        let doc: toml::Value = toml::from_str(&out).unwrap();
        let umasks = |ev: &str| -> Vec<String> {
            let evs = doc["event"].as_array().unwrap();
            let e = evs.iter().find(|e| e["name"].as_str() == Some(ev)).unwrap();
            e["umask"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u["name"].as_str().unwrap().to_string())
                .collect()
        };
        assert!(umasks("OCR0").contains(&"DEMAND_RFO_OUTSTANDING".to_string()));
        assert!(!umasks("OCR1").contains(&"DEMAND_RFO_OUTSTANDING".to_string()));
        assert!(out.contains("code = \"0x8000000000000002\"\n"));
    }

    /// An offcore matrix: request and response unit masks of
    /// `OFFCORE_RESPONSE_0`/`_1`; the list's combinations must agree.
    #[test]
    fn matrix() {
        const CORE: &str = r#"{"Events": [
          {"EventCode": "0xB7", "UMask": "0x01,0x02", "EventName": "OFFCORE_RESPONSE", "Counter": "0,1", "MSRIndex": "0x00", "MSRValue": "0x00"},
          {"EventCode": "0xB7", "UMask": "0x01,0x02", "EventName": "OFFCORE_RESPONSE.DEMAND_DATA_RD.L2_MISS.ANY", "Counter": "0,1", "MSRIndex": "0x1a6, 0x1a7", "MSRValue": "0x3600000001"}
        ]}"#;
        const MATRIX: &str = r#"{"Events": [
          {"MATRIX_REQUEST": "DEMAND_DATA_RD", "MATRIX_RESPONSE": "Null", "MATRIX_VALUE": "0x0001 ", "MATRIX_REGISTER": "0,1"},
          {"MATRIX_REQUEST": "Null", "MATRIX_RESPONSE": "L2_MISS.ANY", "MATRIX_VALUE": "0x360000", "MATRIX_REGISTER": "0,1"},
          {"MATRIX_REQUEST": "Null", "MATRIX_RESPONSE": "OUTSTANDING", "MATRIX_VALUE": "0x400000", "MATRIX_REGISTER": "0"}
        ]}"#;
        let v = read_vendor(CORE).unwrap();
        let evs = matrix_events(MATRIX, &v).unwrap();
        assert_eq!(evs.len(), 2);
        assert_eq!(
            (evs[0].name.as_str(), evs[0].code),
            ("OFFCORE_RESPONSE_0", 0x1b7)
        );
        assert_eq!(evs[0].umasks.len(), 3);
        assert_eq!(evs[1].umasks.len(), 2, "OUTSTANDING on register 0 only");
        let miss = evs[0]
            .umasks
            .iter()
            .find(|u| u.name == "L2_MISS_ANY")
            .unwrap();
        assert_eq!((miss.code, miss.grp), (0x3600000000, 1));
        let bad = CORE.replace("0x3600000001", "0x3600000002");
        assert!(matrix_events(MATRIX, &read_vendor(&bad).unwrap()).is_err());
    }

    /// Re-running on its own output with the same input changes nothing;
    /// the descriptions written are kept.
    #[test]
    fn idempotent() {
        let v = read_vendor(JSON).unwrap();
        let first = render(&args(), &v, "", &Descs(vec![])).unwrap();
        let edited = first.replacen("desc = \"TODO\"", "desc = \"Ours.\"", 1);
        let dir = std::env::temp_dir().join(format!("vendorgen-intel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.toml");
        std::fs::write(&path, &edited).unwrap();
        let descs = Descs(vec![data::descriptions(&path).unwrap()]);
        let again = render(&args(), &v, &edited, &descs).unwrap();
        assert_eq!(again, edited);
        assert!(!data::write_or_check(&path, &again, true).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
