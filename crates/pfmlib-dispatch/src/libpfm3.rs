//! The libpfm-3 compatibility format of IA-64 dispatch, for people porting
//! libpfm-3 code (IA-64 PMUs only: others are refused with
//! `PFMLIB_ERR_NOTSUPP`, as their registers are not numbered in one space):
//! requests mirror `pfmlib_input_param_t` plus the model's input parameters
//! (numeric privilege masks and flags, `used` switches, unit masks by
//! index), results mirror `pfmlib_output_param_t` plus the model's output
//! parameters (`pmcs`, `pmds`, `irange`, `drange`, `irange_is_fine`).
//!
//! ```
//! use pfmlib_dispatch::libpfm3::{run, Input};
//! let input: Input = serde_json::from_str(
//!     r#"{"pmu": "itanium", "events": ["CPU_CYCLES"], "dfl_plm": 8}"#).unwrap();
//! let out = run(pfmlib::Library::global(), &input);
//! assert_eq!(out.ret, 0);
//! assert_eq!(out.pmcs.unwrap()[0].reg_value, "0x1228");
//! ```

use crate::error::{DispatchError, DispatchErrorKind as K};
use crate::request::{
    AddrRange, BtbParams, EarModeParam, EarParams, EventFlag, EventRequest, Ia64Params,
    IpearParams, Ism, Num, Opcm, RangeParams, Request,
};
use crate::response::{Dispatch, RangeResult};
use crate::select::dispatch;
use pfmlib::model_specific::{dispatcher, Dispatcher};
use pfmlib::{AttrType, Library, Os, Pmu};
use serde::{Deserialize, Serialize};

/// One request (the `input` object of the reference vectors).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Input {
    /// PMU name.
    pub pmu: String,
    /// Events: a name (`"NAME"` or `"NAME:MASK..."`) or an object.
    pub events: Vec<InputEvent>,
    /// Default privilege-level mask (PLM0=1, PLM1=2, PLM2=4, PLM3=8; 0 is invalid).
    #[serde(default)]
    pub dfl_plm: u32,
    /// Generic flags: 1 = system-wide.
    #[serde(default)]
    pub flags: u32,
    /// PMC numbers that may not be used.
    #[serde(default)]
    pub unavail_pmcs: Vec<u32>,
    /// Model-specific parameters; present (even `{}`) means used.
    #[serde(default, rename = "mod")]
    pub model: Option<ModInput>,
    /// `"force"`: the PMU was forced, not detected (Itanium 2: no fine-mode
    /// erratum workaround).
    #[serde(default)]
    pub detect: Option<String>,
}

/// One event of a request.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum InputEvent {
    /// `"NAME"` or `"NAME:MASK:MASK"`.
    Name(String),
    /// The `pfmlib_event_t` fields.
    Full {
        /// Event name.
        name: String,
        /// Privilege-level mask (0: the default).
        #[serde(default)]
        plm: u32,
        /// Event flags (unused on IA-64).
        #[serde(default)]
        flags: u32,
        /// Unit masks, by index.
        #[serde(default)]
        unit_masks: Vec<u32>,
    },
}

/// Per-counter settings (`pfp_*_counters[i]`, applying to `events[i]`).
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct CounterInput {
    /// Threshold.
    #[serde(default)]
    pub thres: u32,
    /// Itanium instruction set: 0 both, 1 IA-32, 2 IA-64.
    #[serde(default)]
    pub ism: u32,
    /// 1 = NO_QUALCHECK; Montecito 2 = all threads.
    #[serde(default)]
    pub flags: u32,
}

/// Raw opcode matcher (Itanium / Itanium 2 PMC8, PMC9).
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct PmcInput {
    /// 0 disables it when present.
    #[serde(default)]
    pub used: Option<u32>,
    /// Value.
    #[serde(default)]
    pub pmc_val: Num,
}

/// Montecito opcode matcher.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct OpcmInput {
    /// 0 disables it when present.
    #[serde(default)]
    pub used: Option<u32>,
    /// M slot.
    #[serde(default)]
    pub m: u32,
    /// I slot.
    #[serde(default)]
    pub i: u32,
    /// F slot.
    #[serde(default)]
    pub f: u32,
    /// B slot.
    #[serde(default)]
    pub b: u32,
    /// Opcode.
    #[serde(default, rename = "match")]
    pub match_: Num,
    /// Mask.
    #[serde(default)]
    pub mask: Num,
}

/// EAR parameters.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct EarInput {
    /// 0 disables it when present.
    #[serde(default)]
    pub used: Option<u32>,
    /// 0 cache, 1 TLB, 2 ALAT.
    #[serde(default)]
    pub mode: u32,
    /// Privilege-level mask (0: the default).
    #[serde(default)]
    pub plm: u32,
    /// Unit mask.
    #[serde(default)]
    pub umask: Num,
    /// Itanium instruction set.
    #[serde(default)]
    pub ism: u32,
}

/// BTB / ETB parameters.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct BtbInput {
    /// 0 disables it when present.
    #[serde(default)]
    pub used: Option<u32>,
    /// Itanium `tar`.
    #[serde(default)]
    pub tar: u32,
    /// Itanium `tac`.
    #[serde(default)]
    pub tac: u32,
    /// Itanium `bac`.
    #[serde(default)]
    pub bac: u32,
    /// Taken mask.
    #[serde(default)]
    pub tm: u32,
    /// Target prediction mask.
    #[serde(default)]
    pub ptm: u32,
    /// Path prediction mask.
    #[serde(default)]
    pub ppm: u32,
    /// Branch type.
    #[serde(default)]
    pub brt: u32,
    /// Data selector.
    #[serde(default)]
    pub ds: u32,
    /// Privilege-level mask (0: the default).
    #[serde(default)]
    pub plm: u32,
}

/// IP-EAR parameters.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct IpearInput {
    /// 0 disables it when present.
    #[serde(default)]
    pub used: Option<u32>,
    /// Privilege-level mask (0: the default).
    #[serde(default)]
    pub plm: u32,
    /// Freeze delay.
    #[serde(default)]
    pub delay: u32,
}

/// One range.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct RangeInput {
    /// Start.
    #[serde(default)]
    pub start: Num,
    /// End.
    #[serde(default)]
    pub end: Num,
    /// Privilege-level mask (0: the default).
    #[serde(default)]
    pub plm: u32,
}

/// Range restriction parameters.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RrInput {
    /// 0 disables it when present.
    #[serde(default)]
    pub used: Option<u32>,
    /// 1 inverse, 2 no fine mode, Montecito 4 demand fetch, 8 prefetch match.
    #[serde(default)]
    pub flags: u32,
    /// Ranges (at most 4; a zero range ends the list).
    #[serde(default)]
    pub ranges: Vec<RangeInput>,
}

/// Model-specific input.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ModInput {
    /// Per-counter settings.
    #[serde(default)]
    pub counters: Vec<CounterInput>,
    /// Itanium / Itanium 2 PMC8.
    #[serde(default)]
    pub pmc8: Option<PmcInput>,
    /// Itanium / Itanium 2 PMC9.
    #[serde(default)]
    pub pmc9: Option<PmcInput>,
    /// Montecito PMC32/33.
    #[serde(default)]
    pub opcm1: Option<OpcmInput>,
    /// Montecito PMC34/35.
    #[serde(default)]
    pub opcm2: Option<OpcmInput>,
    /// I-EAR.
    #[serde(default)]
    pub iear: Option<EarInput>,
    /// D-EAR.
    #[serde(default)]
    pub dear: Option<EarInput>,
    /// Itanium / Itanium 2 BTB.
    #[serde(default)]
    pub btb: Option<BtbInput>,
    /// Montecito ETB.
    #[serde(default)]
    pub etb: Option<BtbInput>,
    /// Montecito IP-EAR.
    #[serde(default)]
    pub ipear: Option<IpearInput>,
    /// Code ranges.
    #[serde(default)]
    pub irange: Option<RrInput>,
    /// Data ranges.
    #[serde(default)]
    pub drange: Option<RrInput>,
}

/// A register number and value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegOut {
    /// Register number.
    pub reg_num: u32,
    /// Value, hex.
    pub reg_value: String,
}

/// A data register to read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PmdOut {
    /// Register number.
    pub reg_num: u32,
}

/// Start/end offsets of one range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RrInfoOut {
    /// Start offset, hex.
    pub soff: String,
    /// End offset, hex.
    pub eoff: String,
}

/// Range restriction output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RrOut {
    /// Debug registers used.
    pub rr_nbr_used: u32,
    /// Debug registers and values.
    pub rr_br: Vec<RegOut>,
    /// Four offset pairs.
    pub rr_infos: Vec<RrInfoOut>,
}

/// One result line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Output {
    /// PMU name.
    pub pmu: String,
    /// Always `dispatch`.
    pub stage: &'static str,
    /// 0 or a libpfm-3 error code.
    pub ret: i32,
    /// Why it failed, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// PMCs to program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pmcs: Option<Vec<RegOut>>,
    /// PMDs to read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pmds: Option<Vec<PmdOut>>,
    /// Code ranges (with model parameters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub irange: Option<RrOut>,
    /// Data ranges (with model parameters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drange: Option<RrOut>,
    /// 1 when code ranges use fine mode (Itanium 2, Montecito, with model parameters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub irange_is_fine: Option<u8>,
}

fn plm_letters(plm: u32) -> Option<String> {
    if plm == 0 {
        return None;
    }
    let mut s = String::new();
    for (bit, c) in [(1, 'k'), (2, '1'), (4, '2'), (8, 'u')] {
        if plm & bit != 0 {
            s.push(c);
        }
    }
    if plm & 0x10 != 0 {
        s.push('h');
    }
    Some(s)
}

fn used(u: Option<u32>) -> bool {
    u != Some(0)
}

fn ism(v: u32) -> Result<Option<Ism>, DispatchError> {
    match v {
        0 => Ok(None),
        1 => Ok(Some(Ism::Ia32)),
        2 => Ok(Some(Ism::Ia64)),
        o => Err(DispatchError::new(
            K::Invalid,
            format!("ism={o} is invalid: 0 both, 1 IA-32, 2 IA-64"),
        )),
    }
}

fn ear(e: &EarInput) -> Result<EarParams, DispatchError> {
    let mode = match e.mode {
        0 => EarModeParam::Cache,
        1 => EarModeParam::Tlb,
        2 => EarModeParam::Alat,
        o => {
            return Err(DispatchError::new(
                K::Invalid,
                format!("EAR mode {o} is invalid: 0 cache, 1 TLB, 2 ALAT"),
            ))
        }
    };
    Ok(EarParams {
        mode: Some(mode),
        plm: plm_letters(e.plm),
        umask: e.umask,
        ism: ism(e.ism)?,
    })
}

fn btb(b: &BtbInput) -> BtbParams {
    BtbParams {
        tar: b.tar != 0,
        tac: b.tac != 0,
        bac: b.bac != 0,
        tm: (b.tm & 0xff) as u8,
        ptm: (b.ptm & 0xff) as u8,
        ppm: (b.ppm & 0xff) as u8,
        brt: (b.brt & 0xff) as u8,
        ds: b.ds != 0,
        plm: plm_letters(b.plm),
    }
}

fn ranges(r: &RrInput) -> RangeParams {
    RangeParams {
        inv: r.flags & 1 != 0,
        no_fine_mode: r.flags & 2 != 0,
        demand_fetch: r.flags & 4 != 0,
        prefetch_match: r.flags & 8 != 0,
        ranges: r
            .ranges
            .iter()
            .map(|x| AddrRange {
                start: x.start,
                end: x.end,
                plm: plm_letters(x.plm),
            })
            .collect(),
    }
}

/// Converts a libpfm-3 style request into the project's [`Request`].
pub fn to_request(lib: &Library, input: &Input) -> Result<Request, DispatchError> {
    if input.dfl_plm == 0 {
        return Err(DispatchError::new(
            K::Invalid,
            "dfl_plm is 0: give a privilege-level mask (PLM0=1, PLM1=2, PLM2=4, PLM3=8)",
        ));
    }
    let pmu = lib
        .pmu(&input.pmu)
        .ok_or_else(|| DispatchError::new(K::NotFound, format!("unknown PMU {:?}", input.pmu)))?;
    if !matches!(dispatcher(pmu), Some(Dispatcher::Ia64(_))) {
        return Err(DispatchError::new(
            K::NotSupported,
            format!(
                "the libpfm3 format serves the IA-64 PMUs (itanium, itanium2, montecito), whose register numbers are unambiguous; use the native format for {}",
                pmu.name()
            ),
        ));
    }
    let counters = input
        .model
        .as_ref()
        .map(|m| m.counters.as_slice())
        .unwrap_or_default();
    let events = input
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| event_request(pmu, e, counters.get(i).copied().unwrap_or_default()))
        .collect::<Result<Vec<_>, _>>()?;
    let ia64 = input
        .model
        .as_ref()
        .map(|m| ia64_params(m, input.detect.as_deref() == Some("force")))
        .transpose()?;
    Ok(Request {
        pmu: input.pmu.clone(),
        dfl_plm: plm_letters(input.dfl_plm),
        events,
        system_wide: input.flags & 1 != 0,
        unavail_pmcs: input.unavail_pmcs.clone(),
        nhm: None,
        ia64,
    })
}

/// One event with its per-counter settings.
fn event_request(
    pmu: Pmu<'_>,
    e: &InputEvent,
    c: CounterInput,
) -> Result<EventRequest, DispatchError> {
    let (event, plm) = match e {
        InputEvent::Name(n) => (n.clone(), None),
        InputEvent::Full {
            name,
            plm,
            unit_masks,
            ..
        } => (event_string(pmu, name, unit_masks)?, plm_letters(*plm)),
    };
    let mut flags = Vec::new();
    if c.flags & 1 != 0 {
        flags.push(EventFlag::NoQualcheck);
    }
    if c.flags & 2 != 0 {
        flags.push(EventFlag::AllThreads);
    }
    Ok(EventRequest {
        event,
        plm,
        flags,
        thres: c.thres,
        ism: ism(c.ism)?,
        ..EventRequest::default()
    })
}

/// `NAME:MASK...`: the unit masks given by index.
fn event_string(pmu: Pmu<'_>, name: &str, unit_masks: &[u32]) -> Result<String, DispatchError> {
    let mut s = name.to_string();
    if unit_masks.is_empty() {
        return Ok(s);
    }
    let ev = pmu.event(name).ok_or_else(|| {
        DispatchError::new(
            K::NotFound,
            format!("no event {name} on PMU {}", pmu.name()),
        )
    })?;
    let masks: Vec<_> = ev
        .attrs(Os::None)
        .into_iter()
        .filter(|a| a.attr_type == AttrType::Umask)
        .collect();
    for &u in unit_masks {
        let a = masks.get(u as usize).ok_or_else(|| {
            DispatchError::new(K::Umask, format!("{name} has no unit mask number {u}"))
        })?;
        s.push(':');
        s.push_str(a.name);
    }
    Ok(s)
}

/// The model-specific parameters; a sub-object is used unless `"used": 0`.
fn ia64_params(m: &ModInput, forced: bool) -> Result<Ia64Params, DispatchError> {
    Ok(Ia64Params {
        pmc8: m.pmc8.filter(|p| used(p.used)).map(|p| p.pmc_val),
        pmc9: m.pmc9.filter(|p| used(p.used)).map(|p| p.pmc_val),
        opcm1: m.opcm1.filter(|o| used(o.used)).map(opcm),
        opcm2: m.opcm2.filter(|o| used(o.used)).map(opcm),
        iear: m
            .iear
            .filter(|e| used(e.used))
            .map(|e| ear(&e))
            .transpose()?,
        dear: m
            .dear
            .filter(|e| used(e.used))
            .map(|e| ear(&e))
            .transpose()?,
        btb: m.btb.filter(|b| used(b.used)).map(|b| btb(&b)),
        etb: m.etb.filter(|b| used(b.used)).map(|b| btb(&b)),
        ipear: m.ipear.filter(|p| used(p.used)).map(|p| IpearParams {
            plm: plm_letters(p.plm),
            delay: p.delay,
        }),
        irange: m.irange.as_ref().filter(|r| used(r.used)).map(ranges),
        drange: m.drange.as_ref().filter(|r| used(r.used)).map(ranges),
        no_fine_mode_erratum: forced,
    })
}

fn opcm(o: OpcmInput) -> Opcm {
    Opcm {
        m: o.m != 0,
        i: o.i != 0,
        f: o.f != 0,
        b: o.b != 0,
        match_: o.match_,
        mask: o.mask,
    }
}

fn hex(v: u64) -> String {
    format!("{v:#x}")
}

fn rr_out(r: &RangeResult) -> RrOut {
    RrOut {
        rr_nbr_used: r.rr_nbr_used,
        rr_br: r
            .rr_br
            .iter()
            .map(|b| RegOut {
                reg_num: b.reg.index,
                reg_value: hex(b.value),
            })
            .collect(),
        rr_infos: r
            .rr_infos
            .iter()
            .map(|i| RrInfoOut {
                soff: hex(i.soff),
                eoff: hex(i.eoff),
            })
            .collect(),
    }
}

/// The libpfm-3 style result of a dispatch.
pub fn to_output(pmu: &str, res: &Result<Dispatch, DispatchError>) -> Output {
    match res {
        Ok(d) => Output {
            pmu: pmu.to_string(),
            stage: "dispatch",
            ret: 0,
            error: None,
            pmcs: Some(
                d.pmcs
                    .iter()
                    .map(|r| RegOut {
                        reg_num: r.reg.index,
                        reg_value: hex(r.value),
                    })
                    .collect(),
            ),
            pmds: Some(d.pmds.iter().map(|r| PmdOut { reg_num: r.index }).collect()),
            irange: d.irange.as_ref().map(rr_out),
            drange: d.drange.as_ref().map(rr_out),
            irange_is_fine: d.irange_is_fine.map(u8::from),
        },
        Err(e) => Output {
            pmu: pmu.to_string(),
            stage: "dispatch",
            ret: e.code(),
            error: Some(e.to_string()),
            pmcs: None,
            pmds: None,
            irange: None,
            drange: None,
            irange_is_fine: None,
        },
    }
}

/// Runs one libpfm-3 style request.
pub fn run(lib: &Library, input: &Input) -> Output {
    let res = to_request(lib, input).and_then(|req| dispatch(lib, &req));
    to_output(&input.pmu, &res)
}
