//! The dispatch result: assignments and the registers to program and read.

use serde::Serialize;

/// How a requested range was programmed: the debug-register pairs and the
/// start/end offsets of what they really cover.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RangeResult {
    /// Debug registers used.
    pub rr_nbr_used: u32,
    /// Debug registers to program (IBRn or DBRn).
    pub rr_br: Vec<RegValue>,
    /// Per requested range: covered start minus asked start (`soff`) and
    /// covered end minus asked end (`eoff`).
    pub rr_infos: Vec<RangeInfo>,
}

/// Offsets of the real cover of one range.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RangeInfo {
    /// Requested start minus covered start.
    #[serde(serialize_with = "hex")]
    pub soff: u64,
    /// Covered end minus requested end.
    #[serde(serialize_with = "hex")]
    pub eoff: u64,
}

/// A register: its name, index within its kind, and address (MSR number on x86).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reg {
    /// Full name, e.g. `PERFEVTSEL2`.
    pub name: String,
    /// Register kind, e.g. `PERFEVTSEL`.
    pub reg: &'static str,
    /// Index within the kind.
    pub index: u32,
    /// Address (MSR number).
    #[serde(serialize_with = "hex")]
    pub addr: u64,
}

/// A register to program, with its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegValue {
    /// The register.
    #[serde(flatten)]
    pub reg: Reg,
    /// Value to write.
    #[serde(serialize_with = "hex")]
    pub value: u64,
}

/// Where one event landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assignment {
    /// The event as requested.
    pub event: String,
    /// Fully-qualified event string, as programmed: its modifiers show the
    /// counter mask and flags the request applies (Nehalem).
    pub fstr: String,
    /// The counter (data register) that counts it.
    pub counter: Reg,
}

/// The result of a dispatch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dispatch {
    /// One entry per requested event, in request order.
    pub assignments: Vec<Assignment>,
    /// Every configuration register to program.
    pub pmcs: Vec<RegValue>,
    /// Every data register to read (counters, LBR).
    pub pmds: Vec<Reg>,
    /// IA-64: code range restriction, when asked with model parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub irange: Option<RangeResult>,
    /// IA-64: data range restriction, when asked with model parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drange: Option<RangeResult>,
    /// Montecito / Itanium 2: code ranges programmed in fine mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub irange_is_fine: Option<bool>,
}

fn hex<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:#x}"))
}
