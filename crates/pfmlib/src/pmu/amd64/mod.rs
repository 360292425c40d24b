//! The AMD64 family (`PERF_CTL` layout): unit-mask groups and defaults,
//! modifiers `k u e i c h g`, 12-bit event selects; the core PMUs from K7 to
//! Zen 4, the family 15h northbridge and the Zen 3 L3 PMU (the same encoder,
//! a perf_events type read from the kernel).
//!
//! Detection follows libpfm4's `pfm_amd64_detect`: the host's family, model
//! and stepping give one processor revision ([`revision`]), and a PMU is
//! present when its `revision` key names it. Events and unit masks that only
//! some revisions of a table have (K8 revisions B to G, family 10h B to D)
//! carry `pmus = [...]` in the data.

pub(crate) use pfmlib_defs::amd64 as defs;

use super::common::{offer_of, Engine, EventFlags, UmaskInfo};
use super::machinery::{all_groups, perfevtsel, Encoding, ModSpec, ModTable, UmaskRules};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::{ErrorKind, Result};
use crate::host::Host;
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::{Os, Plm, Vendor};
use crate::regs::AmdPerfCtl;
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use defs::{EVENT_FLAGS as EF, MODIFIERS, PMU_FLAGS as PF, UMASK_FLAGS as UF};
use pfmlib_defs::{bit, ext, modifier, FamilyDefs};

const RAW_UMASK: u32 = bit(PF, "raw_umask");
const PERF_NO_H: u32 = bit(PF, "perf_no_h");
const NORTHBRIDGE: u32 = bit(PF, "northbridge");
const DEPRECATED: u32 = bit(PF, "deprecated");
const IBSFETCH: u32 = bit(EF, "ibsfetch");
const IBSOP: u32 = bit(EF, "ibsop");
const DFL: u32 = bit(UF, "dfl");
const NCOMBO: u32 = bit(UF, "ncombo");
const OMIT: u32 = bit(UF, "omit");
const REVISION: usize = ext(defs::PMU_EXT, "revision");

/// Enable bit of IBS fetch control (`IbsFetchCtl[48]`).
const IBS_FETCH_EN: u64 = 1 << 48;
/// Enable bit of IBS op control (`IbsOpCtl[17]`).
const IBS_OP_EN: u64 = 1 << 17;

mod id {
    use super::{modifier, MODIFIERS};
    pub const K: u64 = modifier(MODIFIERS, "k");
    pub const U: u64 = modifier(MODIFIERS, "u");
    pub const H: u64 = modifier(MODIFIERS, "h");
}

/// The processor revision libpfm4 assigns to an AMD family, model and
/// stepping (`amd64_get_revision`), as the name of the core PMU it detects
/// there; `"none"` where no PMU is detected. Family 19h is upstream's rule
/// (Zen 4: models 10h-1Fh and from 60h on; Zen 3 the others), not 4.13's
/// (Zen 3: 0-0Fh and 20h-5Fh, Zen 4: 11h only, none elsewhere).
pub(crate) fn revision(family: u32, model: u32, stepping: u32) -> &'static str {
    match family {
        6 => "amd64_k7",
        15 => k8_revision(model, stepping),
        16 => match model {
            4..=6 => "amd64_fam10h_shanghai",
            8 | 9 => "amd64_fam10h_istanbul",
            _ => "amd64_fam10h_barcelona",
        },
        17 => "amd64_fam11h_turion",
        18 => "amd64_fam12h_llano",
        20 => "amd64_fam14h_bobcat",
        21 => "amd64_fam15h_interlagos",
        22 => "amd64_fam16h",
        23 if model >= 48 => "amd64_fam17h_zen2",
        23 => "amd64_fam17h_zen1",
        25 if model >= 0x60 || (0x10..=0x1f).contains(&model) => "amd64_fam19h_zen4",
        25 => "amd64_fam19h_zen3",
        _ => "none",
    }
}

/// K8 (family 0Fh) revisions by model and stepping; unknown models count as
/// revision B, as in libpfm4.
fn k8_revision(model: u32, stepping: u32) -> &'static str {
    match model >> 4 {
        0 if (model == 5 && stepping < 2) || (model == 4 && stepping == 0) => "amd64_k8_revb",
        0 => "amd64_k8_revc",
        1 => "amd64_k8_revd",
        2 | 3 => "amd64_k8_reve",
        4 | 5 | 0xc => "amd64_k8_revf",
        6..=8 => "amd64_k8_revg",
        _ => "amd64_k8_revb",
    }
}

/// The engine.
pub(crate) struct Amd64;

impl Engine for Amd64 {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// An AMD CPU whose revision is the PMU's.
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        let want = pmu.ext(REVISION) as usize;
        host.vendor == Vendor::Amd
            && want != 0
            && defs::REVISIONS.get(want).copied()
                == Some(revision(host.family, host.model, host.stepping))
    }

    /// The deprecated `amd64_fam17h` (an old name of `amd64_fam17h_zen1`).
    fn deprecated(&self, pmu: PmuDesc) -> bool {
        pmu.flags() & DEPRECATED != 0
    }

    fn umask_info(&self, _pmu: PmuDesc, _ev: EventDesc, um: UmaskDesc) -> UmaskInfo {
        UmaskInfo {
            code: um.code(),
            is_dfl: um.flags() & DFL != 0,
            flags: EventFlags::NONE,
        }
    }

    fn raw_umask(&self, pmu: PmuDesc) -> bool {
        pmu.flags() & RAW_UMASK != 0
    }

    /// With perf_events: `k u h` are the OS layer's, there is no precise or
    /// hardware sampling, and some revisions have no perf `h`; the
    /// northbridge takes no perf_events attribute at all.
    fn offer(&self, _ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        if pmu.flags() & NORTHBRIDGE != 0 {
            return offer_of(os, ev.modmsk(), 0, |_| false);
        }
        let no_h = pmu.flags() & PERF_NO_H != 0;
        let drop = (1 << id::K) | (1 << id::U) | (1 << id::H);
        offer_of(os, ev.modmsk(), drop, |a| {
            !(a == pa::PRECISE || a == pa::HW_SMPL || (no_h && a == pa::H))
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        encode(d)
    }

    /// Raw type (or the kernel's type of the PMU's `perf_name`), PERF_CTL
    /// without what the kernel controls.
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let codes = encode(d)?;
        attr.type_ = match d.pmu.perf_name() {
            Some(name) => super::kernel_type::perf_type(ctx, name, "its events")?,
            None => PERF_TYPE_RAW,
        };
        let mut reg = AmdPerfCtl(codes[0]);
        reg.set_en(0);
        reg.set_int(0);
        reg.set_os(0);
        reg.set_usr(0);
        reg.set_guest_only(0);
        reg.set_host_only(0);
        attr.config = reg.0;
        Ok(codes)
    }
}

/// The unit-mask rules of the family.
const UMASK_RULES: UmaskRules = UmaskRules {
    dfl: DFL,
    ncombo: NCOMBO,
    omit: OMIT,
    ..UmaskRules::NONE
};

/// The modifiers: PERF_CTL fields.
const MODS: ModTable = ModTable::new(
    MODIFIERS,
    &[
        perfevtsel::K,
        perfevtsel::U,
        perfevtsel::E,
        perfevtsel::I,
        perfevtsel::C,
        ModSpec::plm(41, Plm::PLMH), // h: host only
        ModSpec::bit(40),            // g: guest only
    ],
    ErrorKind::AttrValue,
);

/// The register before any attribute: the IBS control enable bit for the
/// IBS pseudo-events, else the event select with EN and INT.
fn base_register(ev: EventDesc) -> AmdPerfCtl {
    if ev.flags() & IBSFETCH != 0 {
        return AmdPerfCtl(IBS_FETCH_EN);
    }
    if ev.flags() & IBSOP != 0 {
        return AmdPerfCtl(IBS_OP_EN);
    }
    let mut reg = AmdPerfCtl::default();
    reg.set_event_lo(ev.code() & 0xff);
    reg.set_event_hi((ev.code() >> 8) & 0xf);
    reg.set_en(1);
    reg.set_int(1);
    reg
}

/// Encodes PERF_CTL and builds the fully-qualified string: the unit masks
/// and modifiers given, the default privilege levels (set, never cleared),
/// every default unit mask of the groups left empty.
fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let mut e = Encoding::new(base_register(d.event).0);
    e.apply_attrs(&UMASK_RULES, &MODS, d, 8, |_, _| Ok(()))?;
    MODS.default_plm(d, &mut e.reg, e.given, u32::MAX);
    let missing = all_groups(d.event) & !e.um.groups;
    e.um.add_defaults(&UMASK_RULES, d, missing, |_| {})?;
    let mut reg = AmdPerfCtl(e.reg);
    reg.set_unit_mask(e.um.bits);
    MODS.write_fstr(d, reg.0, |_| None);
    Ok(vec![reg.0])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The revision rules at their boundaries.
    #[test]
    fn revisions() {
        assert_eq!(revision(6, 8, 1), "amd64_k7");
        assert_eq!(revision(15, 4, 0), "amd64_k8_revb");
        assert_eq!(revision(15, 4, 1), "amd64_k8_revc");
        assert_eq!(revision(15, 0xc1, 0), "amd64_k8_revf");
        assert_eq!(revision(15, 0x91, 0), "amd64_k8_revb");
        assert_eq!(revision(16, 7, 0), "amd64_fam10h_barcelona");
        assert_eq!(revision(23, 47, 0), "amd64_fam17h_zen1");
        assert_eq!(revision(23, 48, 0), "amd64_fam17h_zen2");
        assert_eq!(revision(25, 0x0f, 0), "amd64_fam19h_zen3");
        assert_eq!(revision(25, 0x10, 0), "amd64_fam19h_zen4");
        assert_eq!(revision(25, 0x11, 0), "amd64_fam19h_zen4");
        assert_eq!(revision(25, 0x1f, 0), "amd64_fam19h_zen4");
        assert_eq!(revision(25, 0x20, 0), "amd64_fam19h_zen3");
        assert_eq!(revision(25, 0x5f, 0), "amd64_fam19h_zen3");
        assert_eq!(revision(25, 0x60, 0), "amd64_fam19h_zen4");
        assert_eq!(revision(25, 0xff, 0), "amd64_fam19h_zen4");
        assert_eq!(revision(19, 0, 0), "none");
        for r in defs::REVISIONS {
            assert!(*r == "none" || crate::tables::PmuDesc::by_name(r).is_some());
        }
    }
}
