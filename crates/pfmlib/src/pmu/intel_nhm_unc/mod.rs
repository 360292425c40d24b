//! The Intel Nehalem/Westmere uncore family: socket-level counters that see
//! every privilege level, modifiers `e i c o` (o: occupancy reset), and a
//! perf_events type read from the kernel's PMU list.

pub(crate) use pfmlib_defs::intel_nhm_unc as defs;

use super::common::{offer_of, Engine, EventFlags, UmaskInfo};
use super::intel_x86::{ev_flag, pmu_flag, um_flag};
use super::machinery::{all_groups, perfevtsel, Encoding, ModSpec, ModTable, UmaskRules};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::{ErrorKind, Result};
use crate::kernel::{perf_attr as pa, PerfAttr};
use crate::model::Os;
use crate::regs::UncPerfEvtSel;
use crate::tables::{EventDesc, PmuDesc, UmaskDesc};
use defs::MODIFIERS;
use pfmlib_defs::{modifier, FamilyDefs};

mod id {
    use super::{modifier, MODIFIERS};
    pub const E: u64 = modifier(MODIFIERS, "e");
    pub const I: u64 = modifier(MODIFIERS, "i");
}

/// The engine.
pub(crate) struct NhmUncore;

impl Engine for NhmUncore {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    fn umask_info(&self, _pmu: PmuDesc, _ev: EventDesc, um: UmaskDesc) -> UmaskInfo {
        UmaskInfo {
            code: um.code(),
            is_dfl: um.flags() & um_flag::DFL != 0,
            flags: EventFlags::NONE,
        }
    }

    fn raw_umask(&self, pmu: PmuDesc) -> bool {
        pmu.flags() & pmu_flag::RAW_UMASK != 0
    }

    /// With perf_events, libpfm4 drops the hardware attributes with ids 0
    /// and 1 (meant for the core's `k`/`u`, here `e` and `i`), `h`,
    /// `precise`, `hw_smpl`, and — no privilege filtering — `u`, `k`, `mg`, `mh`.
    fn offer(&self, _ctx: &Ctx, pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        let no_plm = pmu.supported_plm() == 0;
        offer_of(os, ev.modmsk(), (1 << id::E) | (1 << id::I), |a| {
            !(matches!(a, pa::PRECISE | pa::HW_SMPL | pa::H)
                || (no_plm && matches!(a, pa::U | pa::K | pa::MG | pa::MH)))
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        encode(d)
    }

    /// The uncore PMU's dynamic type (as libpfm4 upstream finds it: see
    /// `listed_perf_type`), the code without EN/PMI.
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let codes = encode(d)?;
        attr.type_ = super::kernel_type::listed_perf_type(
            ctx,
            d.pmu.perf_name().unwrap_or("uncore"),
            "uncore events",
        )?;
        let mut reg = UncPerfEvtSel(codes[0]);
        reg.set_en(0);
        reg.set_pmi(0);
        attr.config = reg.0;
        Ok(codes)
    }
}

/// The unit-mask rules: one default per group (only the first group's
/// under `grp_excl`), added only when no unit mask is given.
const UMASK_RULES: UmaskRules = UmaskRules {
    dfl: um_flag::DFL,
    ncombo: um_flag::NCOMBO,
    grp_excl: ev_flag::GRP_EXCL,
    first_default_only: true,
    ..UmaskRules::NONE
};

/// The modifiers: uncore PERFEVTSEL fields.
const MODS: ModTable = ModTable::new(
    MODIFIERS,
    &[
        perfevtsel::E,
        perfevtsel::I,
        perfevtsel::C,
        ModSpec::bit(17), // o: occupancy reset
    ],
    ErrorKind::Invalid,
);

/// Encodes the uncore PERFEVTSEL and builds the fully-qualified string.
fn encode(d: &mut Desc) -> Result<Vec<u64>> {
    let mut e = Encoding::new(d.event.code());
    e.apply_attrs(&UMASK_RULES, &MODS, d, 8, |_, _| Ok(()))?;
    if e.um.count == 0 {
        e.um.add_defaults(&UMASK_RULES, d, all_groups(d.event), |_| {})?;
    }
    let mut reg = UncPerfEvtSel(e.reg | e.um.bits << 8);
    reg.set_pmi(1);
    reg.set_en(1);
    MODS.write_fstr(d, reg.0, |_| None);
    Ok(vec![reg.0])
}
