//! The TOML form of the PMU data (`data/SCHEMA.md`).

use serde::Deserialize;
use std::collections::BTreeMap;

/// One data file: the PMUs that share its event list, and the events.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    #[serde(default)]
    pub pmu: Vec<Pmu>,
    #[serde(default)]
    pub event: Vec<Event>,
}

/// `[[pmu]]`: one PMU model, or `instances` identical ones.
#[derive(Deserialize, Clone)]
pub struct Pmu {
    pub name: String,
    pub desc: String,
    pub engine: String,
    pub kind: String,
    pub num_cntrs: u32,
    #[serde(default)]
    pub num_fixed_cntrs: u32,
    #[serde(default = "one")]
    pub max_encoding: u32,
    #[serde(default = "default_plm")]
    pub supported_plm: Vec<toml::Value>,
    #[serde(default)]
    pub flags: Vec<String>,
    pub cpu_vendor: Option<String>,
    pub cpu_family: Option<u32>,
    #[serde(default)]
    pub cpu_models: Vec<u32>,
    /// perf_events PMU name (`/sys/bus/event_source/devices/<name>/type`).
    pub perf_name: Option<String>,
    /// Model-specific dispatcher: `nehalem` or `ia64`.
    pub dispatch: Option<String>,
    /// The uncore PMU the dispatcher programs beside this core PMU.
    pub uncore: Option<String>,
    /// This many identical PMUs (an uncore box per socket unit): `{n}` in
    /// `name`, `desc` and `perf_name` becomes 0, 1, ...
    pub instances: Option<u32>,
    /// Free-form notes for table maintainers; ignored.
    #[serde(default)]
    pub notes: Option<toml::Value>,
    /// Family-defined keys (`FamilyDefs::pmu_ext`).
    #[serde(flatten)]
    pub extra: BTreeMap<String, toml::Value>,
}

fn one() -> u32 {
    1
}

fn default_plm() -> Vec<toml::Value> {
    vec![toml::Value::Integer(0), toml::Value::Integer(3)]
}

/// `[[event]]`.
#[derive(Deserialize)]
pub struct Event {
    pub name: String,
    pub desc: String,
    pub code: u64,
    #[serde(default)]
    pub cntmsk: u64,
    #[serde(default)]
    pub modifiers: Vec<String>,
    #[serde(default)]
    pub flags: Vec<String>,
    pub equiv: Option<String>,
    #[serde(default)]
    pub pmus: Vec<String>,
    #[serde(default)]
    pub umask: Vec<Umask>,
    /// Family-defined keys (`FamilyDefs::event_ext`).
    #[serde(flatten)]
    pub extra: BTreeMap<String, toml::Value>,
}

/// `[[event.umask]]`.
#[derive(Deserialize)]
pub struct Umask {
    pub name: String,
    pub desc: String,
    #[serde(deserialize_with = "wide_code")]
    pub code: u64,
    #[serde(default)]
    pub grp: u32,
    #[serde(default)]
    pub flags: Vec<String>,
    #[serde(default)]
    pub fixed: BTreeMap<String, u64>,
    pub equiv: Option<String>,
    #[serde(default)]
    pub pmus: Vec<String>,
    /// Family-defined keys (`FamilyDefs::umask_ext`).
    #[serde(flatten)]
    pub extra: BTreeMap<String, toml::Value>,
}

/// `data/libpfm4_pmus.toml`: libpfm4's PMU numbers and lookup order.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ids {
    pub event_index_shift: u32,
    pub ids: BTreeMap<String, u32>,
    pub lookup_order: Vec<String>,
    /// The 32-bit Arm build's order (its PMUs only).
    pub lookup_order_arm: Vec<String>,
    /// The arm64 build's order (its PMUs only).
    pub lookup_order_arm64: Vec<String>,
    /// The PMUs of the x86_64 build.
    pub build_x86_64: Vec<String>,
    /// The PMUs of the powerpc build (in the general order).
    pub build_powerpc: Vec<String>,
    /// The PMUs of the s390x build.
    pub build_s390x: Vec<String>,
    /// The PMUs of the sparc build.
    pub build_sparc: Vec<String>,
    /// The PMUs of the mips build.
    pub build_mips: Vec<String>,
    /// The PMUs of pfmlib's riscv64 build (no libpfm4 builds for RISC-V).
    pub build_riscv64: Vec<String>,
}

/// A unit mask's `code`: a TOML integer, or a string `"0x..."` for a value
/// above `i64::MAX`, which a TOML integer cannot hold (Tremont's offcore
/// `OUTSTANDING` response values set bit 63).
fn wide_code<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Code {
        Int(u64),
        Hex(String),
    }
    match Code::deserialize(d)? {
        Code::Int(v) => Ok(v),
        Code::Hex(s) => s
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| serde::de::Error::custom(format!("code {s:?} is no \"0x...\" number"))),
    }
}
