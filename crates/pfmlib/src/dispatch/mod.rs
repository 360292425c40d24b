//! Model-specific dispatch (libpfm-3's `pfm_dispatch_events`): given several
//! events and model-specific parameters, assign counters and compute every
//! register value to program.
//!
//! The request and result types are serde types: `pfm dispatch` reads and
//! prints them as JSON, and they are the library API.
//!
//! ```
//! use pfmlib::dispatch::{dispatch, Request};
//! let req: Request = serde_json::from_str(r#"{
//!     "pmu": "nhm",
//!     "events": [{"event": "INSTRUCTION_RETIRED"}, {"event": "ARITH:MUL", "cnt_mask": 2}]
//! }"#).unwrap();
//! let res = dispatch(pfmlib::Library::global(), &req).unwrap();
//! assert_eq!(res.assignments[0].counter.name, "FIXED_CTR0");
//! assert_eq!(res.assignments[1].counter.name, "PMC0");
//! ```

mod nhm;

use crate::registry::Library;
use serde::{Deserialize, Serialize};

/// libpfm-3's error kinds, with its numeric codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum DispatchErrorKind {
    /// `PFMLIB_ERR_NOTSUPP` (-1): not supported.
    NotSupported,
    /// `PFMLIB_ERR_INVAL` (-2): invalid parameter.
    Invalid,
    /// `PFMLIB_ERR_NOTFOUND` (-4): event not found.
    NotFound,
    /// `PFMLIB_ERR_NOASSIGN` (-5): the events cannot all be placed on counters.
    NoAssign,
    /// `PFMLIB_ERR_FEATCOMB` (-9): invalid combination of features.
    FeatureCombination,
    /// `PFMLIB_ERR_EVTSET` (-10): incompatible event sets.
    EventSet,
    /// `PFMLIB_ERR_EVTINCOMP` (-11): incompatible event and feature.
    EventIncompatible,
    /// `PFMLIB_ERR_TOOMANY` (-12): too many events or parameters.
    TooMany,
    /// `PFMLIB_ERR_IRRTOOBIG` (-13): code range too big.
    IrrTooBig,
    /// `PFMLIB_ERR_IRREMPTY` (-14): empty code range.
    IrrEmpty,
    /// `PFMLIB_ERR_IRRINVAL` (-15): invalid code range.
    IrrInvalid,
    /// `PFMLIB_ERR_IRRTOOMANY` (-16): too many code ranges.
    IrrTooMany,
    /// `PFMLIB_ERR_DRRINVAL` (-17): invalid data range.
    DrrInvalid,
    /// `PFMLIB_ERR_DRRTOOMANY` (-18): too many data ranges.
    DrrTooMany,
    /// `PFMLIB_ERR_IRRALIGN` (-20): code range not bundle-aligned.
    IrrAlign,
    /// `PFMLIB_ERR_IRRFLAGS` (-21): code ranges with different flags.
    IrrFlags,
    /// `PFMLIB_ERR_UMASK` (-22): invalid or missing unit mask.
    Umask,
}

impl DispatchErrorKind {
    /// libpfm-3's numeric code.
    pub fn code(self) -> i32 {
        use DispatchErrorKind::*;
        match self {
            NotSupported => -1,
            Invalid => -2,
            NotFound => -4,
            NoAssign => -5,
            FeatureCombination => -9,
            EventSet => -10,
            EventIncompatible => -11,
            TooMany => -12,
            IrrTooBig => -13,
            IrrEmpty => -14,
            IrrInvalid => -15,
            IrrTooMany => -16,
            DrrInvalid => -17,
            DrrTooMany => -18,
            IrrAlign => -20,
            IrrFlags => -21,
            Umask => -22,
        }
    }

    /// libpfm-3's symbolic name.
    pub fn name(self) -> &'static str {
        use DispatchErrorKind::*;
        match self {
            NotSupported => "PFMLIB_ERR_NOTSUPP",
            Invalid => "PFMLIB_ERR_INVAL",
            NotFound => "PFMLIB_ERR_NOTFOUND",
            NoAssign => "PFMLIB_ERR_NOASSIGN",
            FeatureCombination => "PFMLIB_ERR_FEATCOMB",
            EventSet => "PFMLIB_ERR_EVTSET",
            EventIncompatible => "PFMLIB_ERR_EVTINCOMP",
            TooMany => "PFMLIB_ERR_TOOMANY",
            IrrTooBig => "PFMLIB_ERR_IRRTOOBIG",
            IrrEmpty => "PFMLIB_ERR_IRREMPTY",
            IrrInvalid => "PFMLIB_ERR_IRRINVAL",
            IrrTooMany => "PFMLIB_ERR_IRRTOOMANY",
            DrrInvalid => "PFMLIB_ERR_DRRINVAL",
            DrrTooMany => "PFMLIB_ERR_DRRTOOMANY",
            IrrAlign => "PFMLIB_ERR_IRRALIGN",
            IrrFlags => "PFMLIB_ERR_IRRFLAGS",
            Umask => "PFMLIB_ERR_UMASK",
        }
    }
}

/// A dispatch error: a libpfm-3 kind and a message naming the cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DispatchError {
    kind: DispatchErrorKind,
    message: String,
}

impl DispatchError {
    /// A new error.
    pub fn new(kind: DispatchErrorKind, message: impl Into<String>) -> DispatchError {
        DispatchError {
            kind,
            message: message.into(),
        }
    }
    /// The libpfm-3 kind.
    pub fn kind(&self) -> DispatchErrorKind {
        self.kind
    }
    /// libpfm-3's numeric code.
    pub fn code(&self) -> i32 {
        self.kind.code()
    }
}

/// Privilege levels as letters: `u` (user, PLM3), `k` (kernel, PLM0), `1`, `2`
/// (levels 1 and 2), `h` (hypervisor); e.g. `"uk"`.
pub type PlmSpec = String;

/// A dispatch request (the project's JSON format).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The PMU model (`nhm`, `nhm_ex`, ...); unprefixed event names belong to it.
    pub pmu: String,
    /// Default privilege levels of events that give none (default `"uk"`).
    #[serde(default)]
    pub dfl_plm: Option<PlmSpec>,
    /// The events, in order.
    pub events: Vec<EventRequest>,
    /// Intel Nehalem/Westmere parameters: PEBS and LBR.
    #[serde(default)]
    pub nhm: Option<NhmParams>,
}

/// One event of a request, with its per-counter settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventRequest {
    /// Event string, `[pmu::]EVENT[:UMASK...]`; the uncore PMU needs its prefix.
    pub event: String,
    /// Privilege levels (default: the request's `dfl_plm`).
    #[serde(default)]
    pub plm: Option<PlmSpec>,
    /// Counter mask (threshold): count cycles with at least this many occurrences.
    #[serde(default)]
    pub cnt_mask: u32,
    /// Per-event flags: `inv`, `edge`, `anythr` (core only), `occ_rst` (uncore only).
    #[serde(default)]
    pub flags: Vec<EventFlag>,
}

/// Per-event flags of the Nehalem seed document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventFlag {
    /// `PFMLIB_NHM_SEL_INV`: invert the counter-mask comparison.
    Inv,
    /// `PFMLIB_NHM_SEL_EDGE`: edge detection.
    Edge,
    /// `PFMLIB_NHM_SEL_ANYTHR`: count both hardware threads (core PMU only).
    Anythr,
    /// `PFMLIB_NHM_SEL_OCC_RST`: reset the queue occupancy counter (uncore only).
    OccRst,
}

/// Nehalem model-specific parameters.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NhmParams {
    /// Precise event-based sampling.
    #[serde(default)]
    pub pebs: Option<PebsParams>,
    /// Last branch record.
    #[serde(default)]
    pub lbr: Option<LbrParams>,
}

/// PEBS parameters.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PebsParams {
    /// Enable PEBS.
    #[serde(default)]
    pub used: bool,
    /// Load-latency threshold in core cycles (> 3); 0: no load-latency filtering.
    #[serde(default)]
    pub ld_lat_thres: u32,
}

/// LBR parameters.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LbrParams {
    /// Enable the LBR.
    #[serde(default)]
    pub used: bool,
    /// Privilege levels to capture (`u`, `k` or `uk`); empty: the request's default.
    #[serde(default)]
    pub plm: Option<PlmSpec>,
    /// Branch kinds NOT to capture.
    #[serde(default)]
    pub filter: Vec<LbrFilter>,
}

/// LBR filters: each drops one kind of branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LbrFilter {
    /// Conditional branches (`PFMLIB_NHM_LBR_JCC`).
    Jcc,
    /// Near relative calls.
    NearRelCall,
    /// Near indirect calls.
    NearIndCall,
    /// Near returns.
    NearRet,
    /// Near indirect jumps.
    NearIndJmp,
    /// Near relative jumps.
    NearRelJmp,
    /// Far branches.
    FarBranch,
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
    /// Fully-qualified event string.
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
}

fn hex<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:#x}"))
}

/// Parses privilege-level letters into a PLM bit mask.
pub(crate) fn parse_plm(s: &str) -> Result<u32, DispatchError> {
    let mut m = 0;
    for c in s.chars() {
        m |= match c {
            'k' | '0' => 0x1,
            '1' => 0x2,
            '2' => 0x4,
            'u' | '3' => 0x8,
            'h' => 0x10,
            other => {
                return Err(DispatchError::new(
                    DispatchErrorKind::Invalid,
                    format!("unknown privilege level {other:?} in {s:?}: use u, k, 1, 2, h"),
                ))
            }
        };
    }
    Ok(m)
}

/// Dispatches a request: assigns counters and computes the registers.
pub fn dispatch(lib: &Library, req: &Request) -> Result<Dispatch, DispatchError> {
    let pmu = lib.pmu(&req.pmu).ok_or_else(|| {
        DispatchError::new(
            DispatchErrorKind::NotFound,
            format!("unknown PMU {:?}", req.pmu),
        )
    })?;
    match pmu.name() {
        "nhm" | "nhm_ex" | "wsm" | "wsm_dp" => nhm::dispatch(lib, pmu, req),
        other => Err(DispatchError::new(
            DispatchErrorKind::NotSupported,
            format!("dispatch is not implemented for PMU {other}"),
        )),
    }
}
