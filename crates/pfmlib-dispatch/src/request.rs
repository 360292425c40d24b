//! The dispatch request (the project's JSON format): events, their
//! per-counter settings and the model-specific parameters.

use crate::error::{DispatchError, DispatchErrorKind};
use serde::{Deserialize, Serialize};

/// Privilege levels as letters: `u` (user, PLM3), `k` (kernel, PLM0), `1`, `2`
/// (levels 1 and 2), `h` (hypervisor); e.g. `"uk"`. Nehalem core counters
/// and the LBR take `u` and `k` only.
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
    /// The events, in order (at least one).
    pub events: Vec<EventRequest>,
    /// Monitor system-wide (IA-64: sets the PMC `pm` bit).
    #[serde(default)]
    pub system_wide: bool,
    /// Configuration registers that may not be used (IA-64: PMC numbers).
    #[serde(default)]
    pub unavail_pmcs: Vec<u32>,
    /// Intel Nehalem/Westmere parameters: PEBS and LBR.
    #[serde(default)]
    pub nhm: Option<NhmParams>,
    /// IA-64 (Itanium, Itanium 2, Montecito) parameters. When present, even
    /// empty, the model-specific output (ranges) is produced too.
    #[serde(default)]
    pub ia64: Option<Ia64Params>,
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
    /// Per-event flags: `inv`, `edge`, `anythr` (core only), `occ_rst`
    /// (uncore only); IA-64: `no_qualcheck`, `all_threads` (Montecito).
    #[serde(default)]
    pub flags: Vec<EventFlag>,
    /// IA-64 threshold: count only cycles with more than this many
    /// occurrences; must stay below the event's maximum increment.
    #[serde(default)]
    pub thres: u32,
    /// IA-64 (Itanium, Itanium 2) instruction set to count.
    #[serde(default)]
    pub ism: Option<Ism>,
}

/// Instruction-set selection of an Itanium counter (`ism`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ism {
    /// IA-32 and IA-64 instructions (0).
    Both,
    /// IA-32 instructions only (1).
    Ia32,
    /// IA-64 instructions only (2).
    Ia64,
}

impl Ism {
    /// The register value.
    pub fn code(self) -> u64 {
        match self {
            Ism::Both => 0,
            Ism::Ia32 => 1,
            Ism::Ia64 => 2,
        }
    }
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
    /// IA-64 `PFMLIB_*_FL_EVT_NO_QUALCHECK`: program the event even when it
    /// ignores an active qualifier (opcode matching, code or data range).
    NoQualcheck,
    /// Montecito `PFMLIB_MONT_FL_EVT_ALL_THRD`: count both threads (not
    /// supported, as in libpfm-3).
    AllThreads,
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

/// A number given as JSON number or as a string (`"0x1c0000000800000f"`, decimal too).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Num(pub u64);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) => Ok(Num(n)),
            Raw::S(s) => {
                let t = s.trim();
                let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(h) => u64::from_str_radix(h, 16),
                    None => t.parse(),
                };
                r.map(Num)
                    .map_err(|_| serde::de::Error::custom(format!("{s:?} is not a 64-bit number")))
            }
        }
    }
}

/// IA-64 model-specific parameters (libpfm-3's `pfmlib_ita_input_param_t`,
/// `pfmlib_ita2_input_param_t`, `pfmlib_mont_input_param_t`). A feature is
/// used when its object is present.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ia64Params {
    /// Itanium / Itanium 2 opcode matcher PMC8, raw value.
    #[serde(default)]
    pub pmc8: Option<Num>,
    /// Itanium / Itanium 2 opcode matcher PMC9, raw value.
    #[serde(default)]
    pub pmc9: Option<Num>,
    /// Montecito first opcode matcher (PMC32/PMC33).
    #[serde(default)]
    pub opcm1: Option<Opcm>,
    /// Montecito second opcode matcher (PMC34/PMC35).
    #[serde(default)]
    pub opcm2: Option<Opcm>,
    /// Instruction Event Address Register.
    #[serde(default)]
    pub iear: Option<EarParams>,
    /// Data Event Address Register.
    #[serde(default)]
    pub dear: Option<EarParams>,
    /// Itanium / Itanium 2 branch trace buffer.
    #[serde(default)]
    pub btb: Option<BtbParams>,
    /// Montecito execution trace buffer.
    #[serde(default)]
    pub etb: Option<BtbParams>,
    /// Montecito IP-EAR: consecutive retired IPs in the ETB.
    #[serde(default)]
    pub ipear: Option<IpearParams>,
    /// Code range restriction (instruction debug registers).
    #[serde(default)]
    pub irange: Option<RangeParams>,
    /// Data range restriction (data debug registers).
    #[serde(default)]
    pub drange: Option<RangeParams>,
    /// Itanium 2: do not apply the fine-mode erratum workaround (libpfm-3
    /// applies it, aligning fine-mode code ranges to 32 bytes, on the
    /// Itanium 2 processors it detects; its forced mode skips it).
    #[serde(default)]
    pub no_fine_mode_erratum: bool,
}

/// A Montecito opcode matcher: slot types and a 41-bit opcode match/mask.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Opcm {
    /// Match instructions in M slots.
    #[serde(default)]
    pub m: bool,
    /// Match instructions in I slots.
    #[serde(default)]
    pub i: bool,
    /// Match instructions in F slots.
    #[serde(default)]
    pub f: bool,
    /// Match instructions in B slots.
    #[serde(default)]
    pub b: bool,
    /// 41-bit opcode to match.
    #[serde(default, rename = "match")]
    pub match_: Num,
    /// 41-bit mask: a set bit ignores that opcode bit.
    #[serde(default)]
    pub mask: Num,
}

/// EAR mode of an EAR configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EarModeParam {
    /// Cache misses (0).
    Cache,
    /// TLB misses (1).
    Tlb,
    /// ALAT (2; data EAR, Itanium 2 and Montecito).
    Alat,
}

/// Event Address Register configuration.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EarParams {
    /// Mode (default: cache).
    #[serde(default)]
    pub mode: Option<EarModeParam>,
    /// Privilege levels (default: the request's `dfl_plm`).
    #[serde(default)]
    pub plm: Option<PlmSpec>,
    /// Unit mask (latency or TLB filter).
    #[serde(default)]
    pub umask: Num,
    /// Instruction set (Itanium).
    #[serde(default)]
    pub ism: Option<Ism>,
}

/// Branch (BTB) or execution (ETB) trace buffer configuration. Each 2-bit
/// selector: 0 nothing, 1 the "mispredicted/not taken" kind, 2 the other, 3 all.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BtbParams {
    /// Itanium: capture target-address registers (`tar`).
    #[serde(default)]
    pub tar: bool,
    /// Itanium: capture target-address cache predictions (`tac`).
    #[serde(default)]
    pub tac: bool,
    /// Itanium: capture branch-address calculator predictions (`bac`).
    #[serde(default)]
    pub bac: bool,
    /// Taken mask: 1 not taken, 2 taken, 3 all.
    #[serde(default)]
    pub tm: u8,
    /// Predicted target mask: 1 mispredicted target, 2 correct target, 3 all.
    #[serde(default)]
    pub ptm: u8,
    /// Predicted path mask: 1 mispredicted path, 2 correct path, 3 all.
    #[serde(default)]
    pub ppm: u8,
    /// Branch type filter (Itanium 2, Montecito).
    #[serde(default)]
    pub brt: u8,
    /// Data selector (Itanium 2 / Montecito `ds`).
    #[serde(default)]
    pub ds: bool,
    /// Privilege levels (default: the request's `dfl_plm`).
    #[serde(default)]
    pub plm: Option<PlmSpec>,
}

/// Montecito IP-EAR configuration.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IpearParams {
    /// Privilege levels (default: the request's `dfl_plm`).
    #[serde(default)]
    pub plm: Option<PlmSpec>,
    /// Freeze delay, in cycles, after the freezing event.
    #[serde(default)]
    pub delay: u32,
}

/// Range restriction: up to four ranges and the flags.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RangeParams {
    /// Count outside the ranges instead of inside (code ranges).
    #[serde(default)]
    pub inv: bool,
    /// Never use fine mode for code ranges (Itanium 2, Montecito).
    #[serde(default)]
    pub no_fine_mode: bool,
    /// Montecito: tag demand fetches (dual prefetch events).
    #[serde(default)]
    pub demand_fetch: bool,
    /// Montecito: tag prefetch matches (dual prefetch events).
    #[serde(default)]
    pub prefetch_match: bool,
    /// The ranges, `[start, end)`.
    pub ranges: Vec<AddrRange>,
}

/// One address range.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddrRange {
    /// First address.
    pub start: Num,
    /// First address after the range.
    pub end: Num,
    /// Privilege levels (default: the request's `dfl_plm`).
    #[serde(default)]
    pub plm: Option<PlmSpec>,
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
