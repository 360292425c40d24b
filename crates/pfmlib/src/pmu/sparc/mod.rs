//! The SPARC family, as libpfm4 drives it (`pfmlib_sparc.c`,
//! `pfmlib_sparc_perf_event.c`; 4.13 and upstream alike): UltraSPARC I/II,
//! III, IIIi, III+, IV+ and Niagara I/II.
//!
//! - two codes per event: the event's select value with the unit-mask bits
//!   (`1 << ubit` each, Niagara II only) in bits 24-31 (libpfm4's
//!   `pfm_sparc_reg_t` as its x86-hosted build lays the bit fields out),
//!   then the counters it can be selected on (`ctrl`: bit 0 PIC0/S0, bit 1
//!   PIC1/S1);
//! - every event takes the modifiers `k`, `u`, `h`, which program nothing:
//!   the raw encoding has no privilege-level bits, and the fully-qualified
//!   string is the event name and its unit masks only (no default unit
//!   mask, none required, any combination);
//! - perf_events: `PERF_TYPE_RAW`, `config` = first code << 16 | second
//!   code; the modifiers give way to perf's `u`, `k`, `h`; no `precise`,
//!   no hardware sampling;
//! - detection from `/proc/cpuinfo`'s `pmu` line (see `host::sparc`), on a
//!   SPARC host only.

pub(crate) use pfmlib_defs::sparc as defs;

use super::common::{offer_without, Engine};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::{Arch, Host};
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::Os;
use crate::tables::{EventDesc, PmuDesc};
use defs::{CPUINFO_PMUS, EVENT_EXT, PMU_EXT};
use pfmlib_defs::{ext, FamilyDefs};

/// Extra event word: the counters the event can be selected on.
const EXT_CTRL: usize = ext(EVENT_EXT, "ctrl");
/// Extra PMU word: its `/proc/cpuinfo` name.
const EXT_CPUINFO_PMU: usize = ext(PMU_EXT, "cpuinfo_pmu");

/// Where the unit-mask bits go in the first code.
const UMASK_SHIFT: u32 = 24;
/// Where the first code goes in perf_events' `config`.
const PERF_CODE_SHIFT: u32 = 16;

/// The modifiers, all of them (every event has them).
const ALL_MODS: u32 = (1 << defs::MODIFIERS.len()) - 1;
/// perf_events attributes libpfm4 removes for this family.
const NO_PERF: u32 = 1 << pa::PRECISE | 1 << pa::HW_SMPL;

/// The engine.
pub(crate) struct Sparc;

impl Engine for Sparc {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// On a SPARC host whose `/proc/cpuinfo` names the PMU's processor.
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        let name = CPUINFO_PMUS.get(pmu.ext(EXT_CPUINFO_PMU) as usize);
        host.arch == Arch::Sparc && name.is_some() && host.sparc_pmu.as_deref() == name.copied()
    }

    /// libpfm4's attribute info leaves every modifier's index 0: `k`, `u`
    /// and `h` are one attribute to its duplicate check (`k:u` is `k`,
    /// `k:u=0` an attribute set twice).
    fn modifiers_one_attr(&self) -> bool {
        true
    }

    /// The modifiers under `PFM_OS_NONE`; with perf_events the generic
    /// attributes instead, less `precise` and `hw_smpl`.
    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        offer_without(os, ev.modmsk(), ALL_MODS, NO_PERF)
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        Ok(encode(d).to_vec())
    }

    fn encode_perf(&self, _ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let codes = encode(d);
        attr.type_ = PERF_TYPE_RAW;
        attr.config = codes[0] << PERF_CODE_SHIFT | codes[1];
        Ok(codes.to_vec())
    }
}

/// The two codes, and the fully-qualified string (name and unit masks).
fn encode(d: &mut Desc) -> [u64; 2] {
    d.write_fstr_umasks();
    let mut umask = 0u64;
    for i in d.umask_attrs() {
        umask |= d.umask(i).code();
    }
    // libpfm4 starts from the 32-bit register and ORs the 8-bit field.
    let reg = (d.event.code() & u64::from(u32::MAX)) | (umask & 0xff) << UMASK_SHIFT;
    [reg & u64::from(u32::MAX), u64::from(d.event.ext(EXT_CTRL))]
}
