//! The IBM Power Torrent hub chip (Power 775 / PERCS), as libpfm4 drives it
//! (`pfmlib_torrent.c`, `pfmlib_powerpc_perf_event.c`; the same in 4.13 and
//! upstream):
//!
//! - one code, the table's: bits 24-31 say "Torrent", 20-23 which of its
//!   PMUs (PowerBus links, MCD, utilisation monitor, MMU, CAU), 16-19 the
//!   unit, 8-15 a virtual counter, 0-7 the multiplexer setting;
//! - the events' modifiers (`type` on the MCD events, `sel` with `lo_cmp` or
//!   `hi_cmp` on four utilisation events) are never offered: libpfm4 gives
//!   the PMU no attribute count, so an event lists no attribute of its own
//!   and a string naming one is refused;
//! - its encoder nevertheless runs over every attribute of the string, and
//!   under perf_events those are perf's: the n-th attribute of the event's
//!   list (perf's `u k h ...` as offered) is taken as the n-th modifier of
//!   the event's mask. On an MCD event the first (`u`) sets `type` (bits
//!   32-33) and any later one is refused; on a utilisation event the first
//!   two set `sel` (bits 32-33) and the compare field (bits 34-38), the
//!   others are ignored; on every other event any attribute is refused.
//!   Reproduced as is: it is what libpfm4 answers;
//! - perf_events: `PERF_TYPE_RAW`, `config` the code; no precise or hardware
//!   sampling; the PMU filters no privilege level, so nothing is excluded;
//! - the fully-qualified string is the PMU's name and nothing else
//!   (`power_torrent::`), the perf attributes after it;
//! - present when `/proc/device-tree` holds an `hfi-iohub@...` entry, on a
//!   PowerPC host (only libpfm4's powerpc build has the PMU).

pub(crate) use pfmlib_defs::power_torrent as defs;

use super::common::{offer_of, Engine};
use crate::ctx::Ctx;
use crate::desc::{Attr, AttrRef, Desc, Offer};
use crate::error::{Error, ErrorKind, Result};
use crate::host::{Arch, Host};
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::Os;
use crate::tables::{EventDesc, PmuDesc};
use defs::MODIFIERS;
use pfmlib_defs::{modifier, FamilyDefs};

mod id {
    use super::{modifier, MODIFIERS};
    pub const TYPE: u32 = modifier(MODIFIERS, "type") as u32;
    pub const SEL: u32 = modifier(MODIFIERS, "sel") as u32;
    pub const LO_CMP: u32 = modifier(MODIFIERS, "lo_cmp") as u32;
    pub const HI_CMP: u32 = modifier(MODIFIERS, "hi_cmp") as u32;
}

/// The bits of a code that name the Torrent PMU of an event (libpfm4's
/// `TORRENT_SPACE | TORRENT_PMU_MASK`).
const PART_MASK: u64 = 0x0ff0_0000;
/// The PowerBus memory-coherence directories (`TORRENT_PBUS_MCD`).
const PBUS_MCD: u64 = 0x0120_0000;
/// The PowerBus utilisation monitor (`TORRENT_PBUS_UTIL`).
const PBUS_UTIL: u64 = 0x0130_0000;

/// Where `type` goes (`TORRENT_ATTR_MCD_TYPE_SHIFT`).
const TYPE_SHIFT: u32 = 32;
/// Where `sel` goes (`TORRENT_ATTR_UTIL_SEL_SHIFT`).
const SEL_SHIFT: u32 = 32;
/// Where `lo_cmp` and `hi_cmp` go, both (`TORRENT_ATTR_UTIL_CMP_SHIFT`).
const CMP_SHIFT: u32 = 34;

/// The device-tree directory whose entries libpfm4 reads.
const DEVICE_TREE: &str = "/proc/device-tree";
/// The entry of a Torrent chip's I/O hub.
const IOHUB: &str = "hfi-iohub@";

/// The engine.
pub(crate) struct Torrent;

impl Engine for Torrent {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// On a PowerPC host whose device tree has a Torrent I/O hub
    /// (libpfm4's `pfm_torrent_detect`).
    fn detect(&self, _pmu: PmuDesc, host: &Host) -> bool {
        host.arch == Arch::PowerPc
            && host
                .list_dir(DEVICE_TREE)
                .iter()
                .any(|n| n.starts_with(IOHUB))
    }

    /// No attribute of the event's own; perf's, less precise and hardware
    /// sampling (`pfm_gen_powerpc_perf_validate_pattrs`).
    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, _ev: EventDesc, os: Os) -> Offer {
        offer_of(os, 0, 0, |a| a != pa::PRECISE && a != pa::HW_SMPL)
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        Ok(vec![encode(d)?])
    }

    fn encode_perf(&self, _ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let code = encode(d)?;
        attr.type_ = PERF_TYPE_RAW;
        attr.config = code;
        Ok(vec![code])
    }
}

/// The code, with what the string's attributes put in it
/// (`pfm_torrent_get_encoding`); the fully-qualified string left empty.
fn encode(d: &mut Desc) -> Result<u64> {
    d.fstr.clear();
    let mut code = d.event.code();
    let part = code & PART_MASK;
    for a in &d.attrs {
        let m = modifier_of(d, a);
        match (part, m) {
            (PBUS_MCD, Some(id::TYPE)) => code |= value(d, a, 3, "type")? << TYPE_SHIFT,
            (PBUS_UTIL, Some(id::SEL)) => code |= value(d, a, 3, "sel")? << SEL_SHIFT,
            (PBUS_UTIL, Some(id::LO_CMP)) => code |= value(d, a, 31, "lo_cmp")? << CMP_SHIFT,
            (PBUS_UTIL, Some(id::HI_CMP)) => code |= value(d, a, 31, "hi_cmp")? << CMP_SHIFT,
            (PBUS_UTIL, _) => {}
            _ => {
                return Err(Error::new(
                    ErrorKind::Attr,
                    format!(
                        "{}: takes no attribute here (libpfm4's Torrent encoder reads the string's attributes as the event's modifiers)",
                        d.event_name()
                    ),
                ))
            }
        }
    }
    Ok(code)
}

/// The modifier libpfm4 takes attribute `a` for: the one of the event's mask
/// at the attribute's position in the event's attribute list
/// (`pfm_torrent_attr2mod`), none past the mask's last.
fn modifier_of(d: &Desc, a: &Attr) -> Option<u32> {
    let pos = match a.what {
        // The list holds perf's attributes only, in id order.
        AttrRef::Perf(id) => (d.offer.perf & ((1u32 << (id & 31)) - 1)).count_ones(),
        _ => return None,
    };
    let mut mask = d.event.modmsk();
    for _ in 0..pos {
        mask &= mask.wrapping_sub(1);
    }
    (mask != 0).then(|| mask.trailing_zeros())
}

/// The attribute's value if it is at most `max`.
fn value(d: &Desc, a: &Attr, max: u64, name: &str) -> Result<u64> {
    if a.ival <= max {
        return Ok(a.ival);
    }
    Err(Error::new(
        ErrorKind::AttrValue,
        format!(
            "{}: {name} {} is out of range [0-{max}]",
            d.event_name(),
            a.ival
        ),
    ))
}
