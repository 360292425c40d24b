//! IA-64 per-event queries: the model-specific functions of libpfm-3's
//! `libpfm_itanium(3)` and `libpfm_montecito(3)` pages (Itanium 2 sits
//! between them), for the `itanium`, `itanium2` and `montecito` PMUs.
//!
//! ```
//! use pfmlib_dispatch::ia64::{EarMode, Ia64Event};
//! let lib = pfmlib::Library::global();
//! let ev = lib.find_event("montecito::DATA_EAR_CACHE_LAT4").unwrap();
//! let q = Ia64Event::new(ev).unwrap();
//! assert!(q.is_ear() && q.is_dear_cache());
//! assert_eq!(q.ear_mode().unwrap(), EarMode::Cache);
//! assert_eq!(q.maxincr(), 1);
//! ```

use pfmlib::model_specific::{ia64_facts, Ia64EventFacts};
pub use pfmlib::model_specific::{Ia64Ear, Ia64EventType, Ia64Group, Ia64Model};
use pfmlib::{AttrType, Error, ErrorKind, Event, Os, Result};
use serde::Serialize;

/// Qualifier bits of [`Ia64Event::qualifiers`].
pub mod qual {
    /// Opcode matching (Itanium PMC8/PMC9, Montecito PMC32-PMC35).
    pub const OPCM: u8 = 1;
    /// Code (instruction address) range restriction.
    pub const IARR: u8 = 2;
    /// Data address range restriction.
    pub const DARR: u8 = 4;
    /// Montecito `.all` (both hardware threads) qualifier.
    pub const ALL: u8 = 8;
}

/// EAR mode (`pfm_*_get_event_ear_mode`), with libpfm-3's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EarMode {
    /// Cache mode (0).
    Cache,
    /// TLB mode (1).
    Tlb,
    /// ALAT mode (2, data EAR only).
    Alat,
}

impl EarMode {
    /// libpfm-3's numeric value.
    pub fn code(self) -> u32 {
        match self {
            EarMode::Cache => 0,
            EarMode::Tlb => 1,
            EarMode::Alat => 2,
        }
    }

    /// The mode of a libpfm-3 number.
    pub fn from_code(c: u64) -> Option<EarMode> {
        match c {
            0 => Some(EarMode::Cache),
            1 => Some(EarMode::Tlb),
            2 => Some(EarMode::Alat),
            _ => None,
        }
    }
}

/// libpfm-3's number of a Montecito event type.
pub fn event_type_code(t: Ia64EventType) -> i32 {
    match t {
        Ia64EventType::Active => 0,
        Ia64EventType::Floating => 1,
        Ia64EventType::Causal => 2,
        Ia64EventType::SelfFloating => 3,
    }
}

/// The IA-64 view of an event: every per-event query of the seed pages.
#[derive(Debug, Clone, Copy)]
pub struct Ia64Event<'a> {
    event: Event<'a>,
    d: Ia64EventFacts,
}

impl<'a> Ia64Event<'a> {
    /// The IA-64 view of an event of the `itanium`, `itanium2` and
    /// `montecito` PMUs (`None` elsewhere).
    pub fn new(event: Event<'a>) -> Option<Ia64Event<'a>> {
        ia64_facts(&event).map(|d| Ia64Event { event, d })
    }

    /// The underlying event.
    pub fn event(&self) -> Event<'a> {
        self.event
    }

    /// The PMU model.
    pub fn model(&self) -> Ia64Model {
        self.d.model
    }

    /// Event select code (the PMC `es` field).
    pub fn code(&self) -> u64 {
        self.event.info(Os::None).code
    }

    /// Bit mask of the PMCs that may count the event (bit n = PMCn).
    pub fn counters(&self) -> u64 {
        self.event.counter_mask()
    }

    /// EAR kind.
    pub fn ear(&self) -> Ia64Ear {
        self.d.ear
    }

    /// Is it an Event Address Register event (data or instruction)?
    pub fn is_ear(&self) -> bool {
        self.d.ear != Ia64Ear::None
    }

    /// Is it a data EAR event (cache, TLB or ALAT)?
    pub fn is_dear(&self) -> bool {
        matches!(
            self.d.ear,
            Ia64Ear::DearCache | Ia64Ear::DearTlb | Ia64Ear::DearAlat
        )
    }

    /// Is it a data EAR event in TLB mode?
    pub fn is_dear_tlb(&self) -> bool {
        self.d.ear == Ia64Ear::DearTlb
    }

    /// Is it a data EAR event in cache mode?
    pub fn is_dear_cache(&self) -> bool {
        self.d.ear == Ia64Ear::DearCache
    }

    /// Is it a data EAR event in ALAT mode (Itanium 2, Montecito)?
    pub fn is_dear_alat(&self) -> bool {
        self.d.ear == Ia64Ear::DearAlat
    }

    /// Is it an instruction EAR event (cache or TLB)?
    pub fn is_iear(&self) -> bool {
        matches!(self.d.ear, Ia64Ear::IearCache | Ia64Ear::IearTlb)
    }

    /// Is it an instruction EAR event in TLB mode?
    pub fn is_iear_tlb(&self) -> bool {
        self.d.ear == Ia64Ear::IearTlb
    }

    /// Is it an instruction EAR event in cache mode?
    pub fn is_iear_cache(&self) -> bool {
        self.d.ear == Ia64Ear::IearCache
    }

    /// Is it the branch trace buffer event (Itanium, Itanium 2)?
    pub fn is_btb(&self) -> bool {
        self.d.btb
    }

    /// Is it the execution trace buffer event (Montecito)?
    pub fn is_etb(&self) -> bool {
        self.d.etb
    }

    /// Qualifier bits, see [`qual`].
    pub fn qualifiers(&self) -> u8 {
        [
            (self.d.supports_opcm, qual::OPCM),
            (self.d.supports_iarr, qual::IARR),
            (self.d.supports_darr, qual::DARR),
            (self.d.supports_all, qual::ALL),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |q, (_, bit)| q | bit)
    }

    /// Is the event counted accurately while opcode matching is active?
    pub fn support_opcm(&self) -> bool {
        self.d.supports_opcm
    }

    /// Is the event counted accurately under code range restriction?
    pub fn support_iarr(&self) -> bool {
        self.d.supports_iarr
    }

    /// Is the event counted accurately under data range restriction?
    pub fn support_darr(&self) -> bool {
        self.d.supports_darr
    }

    /// Does the event take the Montecito `.all` qualifier?
    pub fn support_all(&self) -> bool {
        self.d.supports_all
    }

    /// Most occurrences per cycle: the non-inclusive upper bound of a threshold.
    pub fn maxincr(&self) -> u32 {
        self.d.maxincr
    }

    /// Unit mask the event programs into the PMC `umask` field.
    pub fn umask(&self) -> u32 {
        self.d.umask
    }

    /// Cache group.
    pub fn group(&self) -> Ia64Group {
        self.d.group
    }

    /// Cache group as libpfm-3 numbers it (none is 0 on Itanium 2 and 7 on
    /// Montecito; L1D 1, L2D 2). `None` on Itanium, which has no groups.
    pub fn group_code(&self) -> Option<i32> {
        let none = match self.d.model {
            Ia64Model::Itanium => return None,
            Ia64Model::Itanium2 => 0,
            Ia64Model::Montecito => 7,
        };
        Some(match self.d.group {
            Ia64Group::None => none,
            Ia64Group::L1d => 1,
            Ia64Group::L2d => 2,
        })
    }

    /// Set within the cache group (`None`: no set).
    pub fn set(&self) -> Option<u32> {
        self.d.set.map(u32::from)
    }

    /// Montecito event type (`None` on Itanium and Itanium 2).
    pub fn event_type(&self) -> Option<Ia64EventType> {
        self.d.event_type
    }

    /// EAR mode; an [`ErrorKind::Invalid`] error for a non-EAR event, as the
    /// seed pages specify.
    pub fn ear_mode(&self) -> Result<EarMode> {
        match self.d.ear {
            Ia64Ear::None => Err(Error::new(
                ErrorKind::Invalid,
                format!(
                    "{}::{} is not an EAR event: it has no EAR mode",
                    self.event.pmu().name(),
                    self.event.name()
                ),
            )),
            Ia64Ear::DearCache | Ia64Ear::IearCache => Ok(EarMode::Cache),
            Ia64Ear::DearTlb | Ia64Ear::IearTlb => Ok(EarMode::Tlb),
            Ia64Ear::DearAlat => Ok(EarMode::Alat),
        }
    }

    /// The facts for people, as `(label, value)` lines (what `pfm info`
    /// prints for an IA-64 event): maximum increment, unit mask, EAR, branch
    /// or execution trace buffer, qualifiers, cache group (Itanium 2,
    /// Montecito) and event type (Montecito).
    pub fn lines(&self) -> Vec<(&'static str, String)> {
        let yn = |b: bool| if b { "yes" } else { "no" }.to_string();
        let mut v = vec![
            (
                "MaxIncr",
                format!(
                    "{} (thresholds 0-{})",
                    self.maxincr(),
                    self.maxincr().saturating_sub(1)
                ),
            ),
            ("Umask", format!("{:#x}", self.umask())),
            ("EAR", ear_words(self.ear()).to_string()),
        ];
        if self.d.model == Ia64Model::Montecito {
            v.push(("ETB", yn(self.is_etb())));
        } else {
            v.push(("BTB", yn(self.is_btb())));
        }
        let quals: Vec<&str> = [
            (self.support_opcm(), "opcode matching"),
            (self.support_iarr(), "code range"),
            (self.support_darr(), "data range"),
            (self.support_all(), ".all"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect();
        let quals = if quals.is_empty() {
            "none".to_string()
        } else {
            quals.join(", ")
        };
        v.push(("Quals", quals));
        if self.d.model != Ia64Model::Itanium {
            let g = match self.group() {
                Ia64Group::None => "none",
                Ia64Group::L1d => "L1D",
                Ia64Group::L2d => "L2D",
            };
            let set = self.set().map_or("none".to_string(), |s| s.to_string());
            v.push(("Group", format!("{g}, set {set}")));
        }
        if let Some(t) = self.event_type() {
            v.push(("Type", format!("{t:?}")));
        }
        v
    }

    /// Every query result at once, under libpfm-3's names and numbers (what
    /// `pfm info --json` prints for an IA-64 event).
    pub fn queries(&self) -> Ia64Queries {
        let montecito = self.d.model == Ia64Model::Montecito;
        let itanium = self.d.model == Ia64Model::Itanium;
        let ear_mode = self.ear_mode();
        let mask_names: Vec<MaskName> = self
            .event
            .attrs(Os::None)
            .into_iter()
            .filter(|a| a.attr_type == AttrType::Umask)
            .map(|a| MaskName {
                name: a.name,
                code: a.code,
            })
            .collect();
        Ia64Queries {
            counters: format!("{:#x}", self.counters()),
            maxincr: self.maxincr(),
            umask: self.umask(),
            num_masks: mask_names.len(),
            mask_names,
            is_ear: self.is_ear() as u8,
            is_dear: self.is_dear() as u8,
            is_dear_tlb: self.is_dear_tlb() as u8,
            is_dear_cache: self.is_dear_cache() as u8,
            is_dear_alat: (!itanium).then_some(self.is_dear_alat() as u8),
            is_iear: self.is_iear() as u8,
            is_iear_tlb: self.is_iear_tlb() as u8,
            is_iear_cache: self.is_iear_cache() as u8,
            is_btb: (!montecito).then_some(self.is_btb() as u8),
            is_etb: montecito.then_some(self.is_etb() as u8),
            support_opcm: self.support_opcm() as u8,
            support_iarr: self.support_iarr() as u8,
            support_darr: self.support_darr() as u8,
            support_all: montecito.then_some(self.support_all() as u8),
            group: self.group_code(),
            set: (!itanium).then(|| self.set().map_or(-1, |s| s as i32)),
            r#type: self.event_type().map(event_type_code),
            ear_mode: ear_mode.as_ref().ok().map(|m| m.code()),
            ear_mode_ret: ear_mode.as_ref().err().map_or(0, |e| e.kind().code()),
        }
    }
}

/// An EAR kind in words.
fn ear_words(e: Ia64Ear) -> &'static str {
    match e {
        Ia64Ear::None => "no",
        Ia64Ear::DearCache => "data EAR, cache mode",
        Ia64Ear::DearTlb => "data EAR, TLB mode",
        Ia64Ear::DearAlat => "data EAR, ALAT mode",
        Ia64Ear::IearCache => "instruction EAR, cache mode",
        Ia64Ear::IearTlb => "instruction EAR, TLB mode",
    }
}

/// The answers of every per-event query, under libpfm-3's names (`1`/`0`
/// for yes/no). Fields a model lacks are absent.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Ia64Queries {
    /// PMC mask, hex.
    pub counters: String,
    /// Maximum increment per cycle.
    pub maxincr: u32,
    /// PMC unit mask.
    pub umask: u32,
    /// Number of unit masks (Montecito MESI qualifiers).
    pub num_masks: usize,
    /// The unit masks with their codes.
    pub mask_names: Vec<MaskName>,
    /// EAR event.
    pub is_ear: u8,
    /// Data EAR event.
    pub is_dear: u8,
    /// Data EAR TLB event.
    pub is_dear_tlb: u8,
    /// Data EAR cache event.
    pub is_dear_cache: u8,
    /// Data EAR ALAT event (Itanium 2, Montecito).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_dear_alat: Option<u8>,
    /// Instruction EAR event.
    pub is_iear: u8,
    /// Instruction EAR TLB event.
    pub is_iear_tlb: u8,
    /// Instruction EAR cache event.
    pub is_iear_cache: u8,
    /// Branch trace buffer event (Itanium, Itanium 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_btb: Option<u8>,
    /// Execution trace buffer event (Montecito).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_etb: Option<u8>,
    /// Supports opcode matching.
    pub support_opcm: u8,
    /// Supports code range restriction.
    pub support_iarr: u8,
    /// Supports data range restriction.
    pub support_darr: u8,
    /// Supports the `.all` qualifier (Montecito).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_all: Option<u8>,
    /// Cache group number (Itanium 2, Montecito).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<i32>,
    /// Set number, -1 for none (Itanium 2, Montecito).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set: Option<i32>,
    /// Event type (Montecito).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r#type: Option<i32>,
    /// EAR mode, `null` for a non-EAR event.
    pub ear_mode: Option<u32>,
    /// Return code of the EAR-mode query: 0, or -2 (invalid) for a non-EAR event.
    pub ear_mode_ret: i32,
}

/// A unit mask (Montecito MESI qualifier) and its code.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct MaskName {
    /// Name (`I`, `S`, `E`, `M`).
    pub name: &'static str,
    /// Code: the MESI bit index.
    pub code: u64,
}
