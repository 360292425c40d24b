//! The Arm family, as libpfm4 4.13 drives it (`pfmlib_arm.c`,
//! `pfmlib_arm_perf_event.c`, `pfmlib_tx2_unc_perf_event.c`,
//! `pfmlib_kunpeng_unc_perf_event.c`):
//!
//! - core PMUs: the event number in the event type register
//!   (`PMEVTYPER<n>_EL0`), with its privilege-level filter bits (exclude
//!   EL0 bit 31, exclude EL1 bit 30, exclude EL2 bit 27) from `k`, `u`,
//!   `hv` or the default levels; perf_events gets the event number without
//!   the filter bits (the kernel sets them from `exclude_*`) and
//!   `PERF_TYPE_RAW`, or, for a PMU with `perf_name` (libpfm4 upstream, for
//!   big.LITTLE systems), the type of the first kernel PMU of that
//!   comma-separated list the kernel publishes (none: not supported);
//! - uncore PMUs (ThunderX2, Kunpeng): the event code alone, for the
//!   kernel PMU named by `perf_name`, whose type is read from sysfs;
//! - detection from `/proc/cpuinfo`'s implementer and part (see
//!   `host::ArmCpuId`), on the architectures whose libpfm4 build has the PMU.

pub(crate) use pfmlib_defs::arm as defs;

use super::common::{offer_of, Engine};
use crate::ctx::Ctx;
use crate::desc::{AttrRef, Desc, Offer};
use crate::error::Result;
use crate::host::{Arch, ArmCpuId, Host};
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::{Os, Plm, PmuKind};
use crate::tables::{EventDesc, PmuDesc};
use defs::{MODIFIERS, PMU_EXT};
use pfmlib_defs::{ext, modifier, FamilyDefs};

mod id {
    use super::{modifier, MODIFIERS};
    pub const K: u64 = modifier(MODIFIERS, "k");
    pub const U: u64 = modifier(MODIFIERS, "u");
    pub const HV: u64 = modifier(MODIFIERS, "hv");
}

/// The privilege-level modifiers (libpfm4's `ARM_ATTR_PLM_ALL`): an event
/// with any of them filters by level (`arm_has_plm`).
const PLM_MODS: u32 = 1 << id::K | 1 << id::U | 1 << id::HV;

/// Extension words of the PMU keys.
const EXT_ARCH: usize = ext(PMU_EXT, "arch");
const EXT_PART_SHIFT: usize = ext(PMU_EXT, "part_shift");
const EXT_ALT_IMPLEMENTER: usize = ext(PMU_EXT, "alt_implementer");
const EXT_ALT_PART: usize = ext(PMU_EXT, "alt_part");

crate::regs::register! {
    /// An Arm PMU event type register (`PMEVTYPER<n>_EL0`, libpfm4's
    /// `pfm_arm_reg_t`, 32 bits).
    struct EvType {
        /// Do not count at EL2 (hypervisor).
        excl_hyp / set_excl_hyp: 27 ..= 27,
        /// Do not count at EL1 (kernel).
        excl_pl1 / set_excl_pl1: 30 ..= 30,
        /// Do not count at EL0 (user).
        excl_usr / set_excl_usr: 31 ..= 31,
    }
}

/// The engine.
pub(crate) struct Arm;

impl Engine for Arm {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// On an Arm host of an architecture whose libpfm4 build has the PMU,
    /// when the implementer and part match (libpfm4's `pfm_arm_detect_*`).
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        let Some(cpu) = host.arm else {
            return false;
        };
        let arch_ok = match pmu.ext(EXT_ARCH) {
            0 => matches!(host.arch, Arch::Arm | Arch::Aarch64),
            1 => host.arch == Arch::Arm,
            _ => host.arch == Arch::Aarch64,
        };
        arch_ok && (main_identity(pmu, cpu) || alternate_identity(pmu, cpu))
    }

    /// With perf_events the privilege levels are the OS layer's (`u k h`),
    /// and there is no precise or hardware sampling.
    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, ev: EventDesc, os: Os) -> Offer {
        let drop = if ev.modmsk() & PLM_MODS != 0 {
            PLM_MODS
        } else {
            0
        };
        offer_of(os, ev.modmsk(), drop, |a| {
            a != pa::PRECISE && a != pa::HW_SMPL
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        Ok(vec![encode(d)])
    }

    /// Core PMUs: a raw event without the filter bits; uncore PMUs: the
    /// event code for the kernel PMU `perf_name`.
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let code = encode(d);
        if d.pmu.kind() == PmuKind::Uncore {
            attr.type_ = super::kernel_type::perf_type(
                ctx,
                d.pmu.perf_name().unwrap_or_default(),
                "its events",
            )?;
            attr.config = code;
        } else {
            let mut reg = EvType(code);
            reg.set_excl_pl1(0);
            reg.set_excl_usr(0);
            reg.set_excl_hyp(0);
            attr.type_ = core_perf_type(ctx, d)?;
            attr.config = reg.0;
        }
        Ok(vec![code])
    }
}

/// `perf_event_attr.type` of a core PMU's events, as libpfm4 upstream's
/// `pfm_arm_get_perf_encoding` finds it (for hybrid big.LITTLE systems):
/// without `perf_name`, `PERF_TYPE_RAW`; otherwise the type of the first
/// kernel PMU of its comma-separated list that the kernel publishes with a
/// type number (a negative one as it is), and none: not supported here.
fn core_perf_type(ctx: &Ctx, d: &Desc) -> Result<u32> {
    let Some(names) = d.pmu.perf_name() else {
        return Ok(PERF_TYPE_RAW);
    };
    match super::kernel_type::find_kernel_pmu(&ctx.host, names) {
        Some((_, t)) => Ok(t as u32),
        None => Err(crate::error::Error::new(
            crate::error::ErrorKind::NotSupported,
            format!(
                "the kernel publishes none of the perf_events PMUs {names} ({}): {} cannot be encoded for perf_events here",
                crate::host::EVENT_SOURCES,
                d.pmu.name()
            ),
        )),
    }
}

/// The PMU's implementer (`cpu_vendor`) and one of its parts (`cpu_models`,
/// after `part_shift`).
fn main_identity(pmu: PmuDesc, cpu: ArmCpuId) -> bool {
    let implementer = pmu.vendor().and_then(|v| v.arm_implementer());
    let part = cpu.part >> pmu.ext(EXT_PART_SHIFT).min(31);
    implementer.is_some_and(|i| i64::from(i) == i64::from(cpu.implementer))
        && part >= 0
        && pmu.matches_model(part as u32, 0)
}

/// The PMU's second identity (`alt_implementer`, `alt_part`), if any.
fn alternate_identity(pmu: PmuDesc, cpu: ArmCpuId) -> bool {
    let (imp, part) = (pmu.ext(EXT_ALT_IMPLEMENTER), pmu.ext(EXT_ALT_PART));
    imp != 0 && i64::from(imp - 1) == i64::from(cpu.implementer) && {
        let shifted = cpu.part >> pmu.ext(EXT_PART_SHIFT).min(31);
        part != 0 && i64::from(part - 1) == i64::from(shifted)
    }
}

/// The raw code and the fully-qualified string: for a core PMU the event
/// type register with the levels asked for (or the default ones) when the
/// event filters by level, then `:k= :u= :hv=` for the modifiers offered;
/// for an uncore PMU the event code and name alone.
fn encode(d: &mut Desc) -> u64 {
    let code = d.event.code();
    d.write_fstr_umasks();
    if d.pmu.kind() == PmuKind::Uncore {
        return code;
    }
    let mut reg = EvType(code & u64::from(u32::MAX));
    if d.event.modmsk() & PLM_MODS != 0 {
        let plm = levels_asked(d).unwrap_or(d.dfl_plm);
        reg.set_excl_pl1(u64::from(!plm.contains(Plm::PLM0)));
        reg.set_excl_usr(u64::from(!plm.contains(Plm::PLM3)));
        reg.set_excl_hyp(u64::from(!plm.contains(Plm::PLMH)));
    }
    let shown = reg;
    d.write_fstr_mods(MODIFIERS, |m| match m {
        id::K => Some(1 - shown.excl_pl1()),
        id::U => Some(1 - shown.excl_usr()),
        id::HV => Some(1 - shown.excl_hyp()),
        _ => None,
    });
    reg.0
}

/// The levels `k`, `u`, `hv` ask for, if any of them is given (whatever
/// its value).
fn levels_asked(d: &Desc) -> Option<Plm> {
    let mut plm = Plm::default();
    let mut given = false;
    for a in &d.attrs {
        let AttrRef::Mod(m) = a.what else { continue };
        let level = match u64::from(m) {
            id::K => Plm::PLM0,
            id::U => Plm::PLM3,
            id::HV => Plm::PLMH,
            _ => continue,
        };
        given = true;
        if a.ival != 0 {
            plm = plm | level;
        }
    }
    given.then_some(plm)
}
