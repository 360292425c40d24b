//! Build script: compiles the declarative PMU tables in `data/*.toml` into
//! static Rust tables (`$OUT_DIR/tables.rs`). See `data/SCHEMA.md`.
//!
//! Each PMU gets its own, already filtered, event list: an event or unit mask
//! restricted with `pmus = [...]` only appears in the lists of those PMUs.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

include!("src/name_hash.rs");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    pmu: Vec<Pmu>,
    #[serde(default)]
    event: Vec<Event>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Pmu {
    name: String,
    desc: String,
    id: u32,
    engine: String,
    kind: String,
    num_cntrs: u32,
    #[serde(default)]
    num_fixed_cntrs: u32,
    #[serde(default = "one")]
    max_encoding: u32,
    #[serde(default = "default_plm")]
    supported_plm: Vec<toml::Value>,
    #[serde(default)]
    flags: Vec<String>,
    cpu_vendor: Option<String>,
    cpu_family: Option<u32>,
    #[serde(default)]
    cpu_models: Vec<u32>,
    /// Width in bits of a raw unit mask given to an offcore event.
    offcore_raw_bits: Option<u32>,
    /// perf_events PMU name (`/sys/bus/event_source/devices/<name>/type`).
    perf_name: Option<String>,
    /// Free-form notes for table maintainers; ignored by the generator.
    #[serde(default)]
    notes: Option<toml::Value>,
}

fn one() -> u32 {
    1
}

fn default_plm() -> Vec<toml::Value> {
    vec![toml::Value::Integer(0), toml::Value::Integer(3)]
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Event {
    name: String,
    desc: String,
    code: u64,
    #[serde(default)]
    cntmsk: u64,
    #[serde(default)]
    modifiers: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
    equiv: Option<String>,
    #[serde(default)]
    pmus: Vec<String>,
    perf_type: Option<String>,
    cpuid_bit: Option<u32>,
    #[serde(default)]
    umask: Vec<Umask>,
    /// `ia64`: most occurrences per cycle.
    maxincr: Option<u32>,
    /// `ia64`: unit mask hard-wired into the PMC.
    pmc_umask: Option<u32>,
    /// `ia64`: qualifiers honoured (`opcm iarr darr all`).
    #[serde(default)]
    qual: Vec<String>,
    /// `ia64`: Event Address Register kind.
    ear: Option<String>,
    /// `ia64`: cache group (`l1d`, `l2d`).
    group: Option<String>,
    /// `ia64`: set within the cache group.
    set: Option<u32>,
    /// `ia64` (Montecito): event type.
    #[serde(rename = "type")]
    ty: Option<String>,
    #[serde(flatten)]
    extra: BTreeMap<String, toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Umask {
    name: String,
    desc: String,
    code: u64,
    #[serde(default)]
    grp: u32,
    #[serde(default)]
    flags: Vec<String>,
    #[serde(default)]
    fixed: BTreeMap<String, u64>,
    equiv: Option<String>,
    #[serde(default)]
    pmus: Vec<String>,
}

/// Hardware modifiers of each engine, in attribute-index order.
fn engine_mods(engine: &str) -> &'static [&'static str] {
    match engine {
        "intel_x86" => &[
            "k", "u", "e", "i", "c", "t", "ldlat", "intx", "intxcp", "fe_thres",
        ],
        "amd64" => &["k", "u", "e", "i", "c", "h", "g"],
        "intel_nhm_unc" => &["e", "i", "c", "o"],
        "ia64" => &["k", "u", "thres"],
        _ => &[],
    }
}

/// PERFEVTSEL bit position (relative to bit 8, i.e. within an attribute code)
/// and width of modifiers a unit mask can hard-wire.
fn x86_fixed_field(name: &str) -> Option<(u32, u32, u32)> {
    // (modifier index, shift relative to bit 8, width)
    match name {
        "u" => Some((1, 8, 1)),
        "k" => Some((0, 9, 1)),
        "e" => Some((2, 10, 1)),
        "t" => Some((5, 13, 1)),
        "i" => Some((3, 15, 1)),
        "c" => Some((4, 16, 8)),
        "intx" => Some((7, 24, 1)),
        "intxcp" => Some((8, 25, 1)),
        _ => None,
    }
}

fn flag_bit(engine: &str, what: &str, flag: &str) -> Result<u32, String> {
    let table: &[&str] = match (engine, what) {
        ("intel_x86" | "intel_nhm_unc", "pmu") => {
            &["raw_umask", "ecmask", "spec", "extpebs", "arch"]
        }
        ("intel_x86" | "intel_nhm_unc", "event") => {
            &["pebs", "grp_excl", "offcore", "spec", "deprecated"]
        }
        ("amd64", "pmu") => &["raw_umask", "perf_no_h"],
        ("amd64", "event") => &["ibsfetch", "ibsop"],
        ("amd64", "umask") => &["dfl", "ncombo", "omit"],
        ("intel_x86" | "intel_nhm_unc", "umask") => &[
            "dfl",
            "pebs",
            "ncombo",
            "excl_grp_gt",
            "grp_dfl_none",
            "ldlat",
            "grp_req",
            "excl_grp_but_0",
            "code_override",
        ],
        ("ia64", "event") => &["btb", "etb"],
        ("perf", "pmu") => &["raw_umask"],
        ("perf", "event") => &["precise"],
        ("perf", "umask") => &["dfl"],
        _ => &[],
    };
    table
        .iter()
        .position(|f| *f == flag)
        .map(|p| 1u32 << p)
        .ok_or_else(|| format!("unknown {what} flag `{flag}` for engine {engine}"))
}

fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

fn opt_str(s: &Option<String>) -> String {
    match s {
        Some(s) => format!("Some({s:?})"),
        None => "None".into(),
    }
}

fn engine_variant(e: &str) -> Result<&'static str, String> {
    Ok(match e {
        "intel_x86" => "Engine::IntelX86",
        "perf" => "Engine::Perf",
        "amd64" => "Engine::Amd64",
        "intel_nhm_unc" => "Engine::IntelNhmUnc",
        "ia64" => "Engine::Ia64",
        other => return Err(format!("unknown engine {other}")),
    })
}

fn kind_variant(k: &str) -> Result<&'static str, String> {
    Ok(match k {
        "core" => "PmuKind::Core",
        "uncore" => "PmuKind::Uncore",
        "os_generic" => "PmuKind::OsGeneric",
        other => return Err(format!("unknown pmu kind {other}")),
    })
}

fn perf_type(t: &Option<String>) -> Result<u32, String> {
    Ok(match t.as_deref() {
        None => 0,
        Some("hardware") => 0,
        Some("software") => 1,
        Some("tracepoint") => 2,
        Some("hw_cache") => 3,
        Some("raw") => 4,
        Some(o) => return Err(format!("unknown perf_type {o}")),
    })
}

fn plm_mask(v: &[toml::Value]) -> Result<u32, String> {
    let mut m = 0;
    for x in v {
        m |= match x {
            toml::Value::Integer(0) => 0x1,
            toml::Value::Integer(1) => 0x2,
            toml::Value::Integer(2) => 0x4,
            toml::Value::Integer(3) => 0x8,
            toml::Value::String(s) if s == "h" => 0x10,
            other => return Err(format!("bad supported_plm entry {other}")),
        };
    }
    Ok(m)
}

/// The `ia64` keys of an event as a `Some(&Ia64Desc { .. })` expression, or
/// `None` for other engines (which may not use them).
fn ia64_desc(engine: &str, ev: &Event) -> Result<String, String> {
    let used = ev.maxincr.is_some()
        || ev.pmc_umask.is_some()
        || !ev.qual.is_empty()
        || ev.ear.is_some()
        || ev.group.is_some()
        || ev.set.is_some()
        || ev.ty.is_some();
    if engine != "ia64" {
        if used {
            return Err(format!("event {}: ia64 keys on a {engine} table", ev.name));
        }
        return Ok("None".into());
    }
    let maxincr = ev
        .maxincr
        .ok_or_else(|| format!("event {}: ia64 events need maxincr", ev.name))?;
    if !(1..=8).contains(&maxincr) {
        return Err(format!("event {}: maxincr {maxincr} out of range", ev.name));
    }
    let mut qual = 0u32;
    for q in &ev.qual {
        qual |= match q.as_str() {
            "opcm" => 1,
            "iarr" => 2,
            "darr" => 4,
            "all" => 8,
            o => return Err(format!("event {}: unknown qualifier {o}", ev.name)),
        };
    }
    let ear = match ev.ear.as_deref() {
        None => "Ia64Ear::None",
        Some("dear_cache") => "Ia64Ear::DearCache",
        Some("dear_tlb") => "Ia64Ear::DearTlb",
        Some("dear_alat") => "Ia64Ear::DearAlat",
        Some("iear_cache") => "Ia64Ear::IearCache",
        Some("iear_tlb") => "Ia64Ear::IearTlb",
        Some(o) => return Err(format!("event {}: unknown ear kind {o}", ev.name)),
    };
    let group = match ev.group.as_deref() {
        None => "Ia64Group::None",
        Some("l1d") => "Ia64Group::L1d",
        Some("l2d") => "Ia64Group::L2d",
        Some(o) => return Err(format!("event {}: unknown cache group {o}", ev.name)),
    };
    let ty = match ev.ty.as_deref() {
        None => "None",
        Some("active") => "Some(Ia64EventType::Active)",
        Some("floating") => "Some(Ia64EventType::Floating)",
        Some("causal") => "Some(Ia64EventType::Causal)",
        Some("self_floating") => "Some(Ia64EventType::SelfFloating)",
        Some(o) => return Err(format!("event {}: unknown event type {o}", ev.name)),
    };
    let set = match ev.set {
        Some(s) if s > 15 => return Err(format!("event {}: set {s} out of range", ev.name)),
        Some(s) => format!("Some({s})"),
        None => "None".into(),
    };
    Ok(format!(
        "Some(&Ia64Desc {{ maxincr: {maxincr}, umask: {:#x}, qual: {qual:#x}, ear: {ear}, group: {group}, set: {set}, ty: {ty} }})",
        ev.pmc_umask.unwrap_or(0)
    ))
}

fn generate(dir: &Path, out: &mut String) -> Result<(), String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();

    let mut pmu_statics = Vec::new();
    let mut seen_names = BTreeMap::new();
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let file: File = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("table")
            .to_uppercase();
        for pmu in &file.pmu {
            let _ = &pmu.notes;
            if seen_names.insert(pmu.name.clone(), ()).is_some() {
                return Err(format!("duplicate pmu name {}", pmu.name));
            }
            let engine = pmu.engine.as_str();
            let pid = format!("{}_{}", stem, pmu.name.to_uppercase());
            let mut ev_items = String::new();
            let mut name_index: Vec<(String, usize)> = Vec::new();
            let mut idx = 0usize;
            for ev in &file.event {
                if !ev.pmus.is_empty() && !ev.pmus.contains(&pmu.name) {
                    continue;
                }
                if let Some(k) = ev.extra.keys().next() {
                    return Err(format!("event {}: unknown key {k}", ev.name));
                }
                let mut eflags = 0;
                for f in &ev.flags {
                    eflags |= flag_bit(engine, "event", f)?;
                }
                let mut modmsk = 0u32;
                for m in &ev.modifiers {
                    let pos = engine_mods(engine)
                        .iter()
                        .position(|x| x == m)
                        .ok_or_else(|| format!("event {}: unknown modifier {m}", ev.name))?;
                    modmsk |= 1 << pos;
                }
                let mut um_items = String::new();
                let mut ngrp = 0u32;
                for um in &ev.umask {
                    if !um.pmus.is_empty() && !um.pmus.contains(&pmu.name) {
                        continue;
                    }
                    let mut uflags = 0;
                    for f in &um.flags {
                        uflags |= flag_bit(engine, "umask", f)?;
                    }
                    let mut value = um.code;
                    let mut modhw = 0u32;
                    for (k, v) in &um.fixed {
                        let (bit, shift, width) = x86_fixed_field(k).ok_or_else(|| {
                            format!("{}:{}: cannot fix modifier {k}", ev.name, um.name)
                        })?;
                        if *v >= (1u64 << width) {
                            return Err(format!("{}:{}: {k}={v} too wide", ev.name, um.name));
                        }
                        value |= v << shift;
                        modhw |= 1 << bit;
                    }
                    ngrp = ngrp.max(um.grp + 1);
                    writeln!(
                        um_items,
                        "UmaskDesc {{ name: {}, desc: {}, code: {:#x}, grp: {}, flags: {:#x}, modhw: {:#x}, equiv: {} }},",
                        rust_str(&um.name),
                        rust_str(&um.desc),
                        value,
                        um.grp,
                        uflags,
                        modhw,
                        opt_str(&um.equiv)
                    )
                    .ok();
                }
                let ia64 = ia64_desc(engine, ev)?;
                if engine == "ia64" {
                    modmsk = 0b111;
                }
                write!(
                    ev_items,
                    "EventDesc {{ name: {}, desc: {}, code: {:#x}, cntmsk: {:#x}, modmsk: {:#x}, flags: {:#x}, equiv: {}, perf_type: {}, cpuid_bit: {}, ngrp: {}, ia64: {}, umasks: &[\n{}] }},\n",
                    rust_str(&ev.name),
                    rust_str(&ev.desc),
                    ev.code,
                    ev.cntmsk,
                    modmsk,
                    eflags,
                    opt_str(&ev.equiv),
                    perf_type(&ev.perf_type)?,
                    ev.cpuid_bit.map(|b| b as i32).unwrap_or(-1),
                    ngrp,
                    ia64,
                    um_items
                )
                .ok();
                name_index.push((ev.name.to_ascii_uppercase(), idx));
                idx += 1;
            }
            // Hashed name index (open addressing, linear probing, at most half
            // full): slot = 1 + event index, 0 = empty. Keep the first event of
            // a name, as a linear scan would.
            name_index.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
            name_index.dedup_by(|a, b| a.0 == b.0);
            let slots = (2 * name_index.len()).max(2).next_power_of_two();
            let mut index = vec![0u16; slots];
            let mut by_event = name_index.clone();
            by_event.sort_by_key(|e| e.1);
            for (n, i) in &by_event {
                let slot = u16::try_from(i + 1)
                    .map_err(|_| format!("PMU {}: too many events for the name index", pmu.name))?;
                let mut h = name_hash(n.as_bytes()) as usize & (slots - 1);
                while index[h] != 0 {
                    h = (h + 1) & (slots - 1);
                }
                index[h] = slot;
            }
            let mut names = String::new();
            for v in &index {
                write!(names, "{v},").ok();
            }
            let mut pflags = 0;
            for f in &pmu.flags {
                pflags |= flag_bit(engine, "pmu", f)?;
            }
            let cpu = match (&pmu.cpu_vendor, pmu.cpu_family) {
                (Some(v), Some(f)) => format!(
                    "Some(CpuMatch {{ vendor: {}, family: {}, models: &{:?} }})",
                    match v.as_str() {
                        "intel" => "Vendor::Intel",
                        "amd" => "Vendor::Amd",
                        o => return Err(format!("unknown vendor {o}")),
                    },
                    f,
                    pmu.cpu_models
                ),
                _ => "None".into(),
            };
            write!(
                out,
                "static {pid}_EVENTS: &[EventDesc] = &[\n{ev_items}];\n\
                 static {pid}_INDEX: &[u16] = &[{names}];\n\
                 pub(crate) static {pid}: PmuDesc = PmuDesc {{ name: {}, desc: {}, id: {}, engine: {}, kind: {}, num_cntrs: {}, num_fixed_cntrs: {}, max_encoding: {}, supported_plm: {:#x}, flags: {:#x}, cpu: {}, offcore_raw_bits: {}, perf_name: {}, events: {pid}_EVENTS, index: {pid}_INDEX }};\n",
                rust_str(&pmu.name),
                rust_str(&pmu.desc),
                pmu.id,
                engine_variant(engine)?,
                kind_variant(&pmu.kind)?,
                pmu.num_cntrs,
                pmu.num_fixed_cntrs,
                pmu.max_encoding,
                plm_mask(&pmu.supported_plm)?,
                pflags,
                cpu,
                pmu.offcore_raw_bits.unwrap_or(38),
                opt_str(&pmu.perf_name),
            )
            .ok();
            pmu_statics.push((pmu.id, pid));
        }
    }
    pmu_statics.sort();
    out.push_str("/// Every PMU table, by libpfm4 PMU id order.\npub(crate) static ALL_PMUS: &[&PmuDesc] = &[");
    for (_, p) in &pmu_statics {
        write!(out, "&{p},").ok();
    }
    out.push_str("];\n");
    Ok(())
}

fn main() {
    let dir = Path::new("data");
    println!("cargo:rerun-if-changed=data");
    let mut out = String::new();
    if let Err(e) = generate(dir, &mut out) {
        panic!("PMU table error: {e}");
    }
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR set by cargo")).join("tables.rs");
    std::fs::write(dest, out).expect("write generated tables");
}
