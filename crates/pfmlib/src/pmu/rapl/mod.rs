//! The RAPL family: energy-consumption counters (package, cores, DRAM,
//! graphics, platform) read through the kernel's `power` PMU, for Intel
//! (`rapl`) and AMD Zen 2/Zen 3 (`amd64_rapl`). Events take no attribute
//! of their own; the code is the kernel's event number, and the
//! perf_events type is the `power` PMU's, read from sysfs.
//!
//! Intel RAPL's events depend on the CPU model: libpfm4 picks one of four
//! lists at detection ([`event_set`]). Each list keeps the order of the
//! table, so an event's index is its position among the events there.

pub(crate) use pfmlib_defs::rapl as defs;

use super::common::{cpu_matches, offer_of, Engine};
use super::kernel_type::kernel_pmu_type;
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::{Error, ErrorKind, Result};
use crate::host::{Host, EVENT_SOURCES};
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::{Os, Vendor};
use crate::regs::PerfEvtSel;
use crate::tables::{EventDesc, PmuDesc};
use pfmlib_defs::{bit, ext, position, FamilyDefs};

/// PMU flag: active only if the kernel exposes the PMU (with perf_events).
const PMU_OS_DETECT: u32 = bit(defs::PMU_FLAGS, "os_detect");
/// PMU flag: no kernel type, no perf_events encoding.
const PMU_TYPE_REQUIRED: u32 = bit(defs::PMU_FLAGS, "type_required");
/// PMU flag: perf's `u k mg mh` are offered.
const PMU_PLM_ATTRS: u32 = bit(defs::PMU_FLAGS, "plm_attrs");
/// Extra event word: the event lists that have the event (0: all).
const EXT_SETS: usize = ext(defs::EVENT_EXT, "sets");

/// Intel models whose RAPL has the Skylake-era client list.
const SKL_CLIENT_MODELS: &[u32] = &[78, 94, 142, 158, 165, 166, 125, 126, 157];
/// Intel models whose RAPL has the Sandy/Ivy Bridge server list.
const SERVER_MODELS: &[u32] = &[45, 62];
/// Intel models whose RAPL has the Haswell-EP server list (no core energy).
const HSW_SERVER_MODELS: &[u32] = &[63, 79, 86, 85, 106, 108, 143];

/// `perf_event_attr.type` libpfm4 takes for "no such PMU" (`PFM_ERR_NOTSUPP`).
const TYPE_NOT_SUPPORTED: i32 = -1;

/// The engine.
pub(crate) struct Rapl;

/// The event list libpfm4 uses for an Intel RAPL PMU on this host (a
/// position in [`defs::EVENT_SETS`]): chosen by model when it detects an
/// Intel family-6 CPU; the client list otherwise, and when a PMU is forced
/// (detection is then skipped).
pub(crate) fn event_set(ctx: &Ctx) -> u32 {
    let by_name = |n: &str| position(defs::EVENT_SETS, n);
    let h = &ctx.host;
    if ctx.forcing || h.vendor != Vendor::Intel || h.family != 6 {
        return by_name("client");
    }
    if SKL_CLIENT_MODELS.contains(&h.model) {
        by_name("skl_client")
    } else if SERVER_MODELS.contains(&h.model) {
        by_name("server")
    } else if HSW_SERVER_MODELS.contains(&h.model) {
        by_name("hsw_server")
    } else {
        by_name("client")
    }
}

/// Is the CPU an AMD Zen 2 (family 17h, model 30h and up), Zen 3 or Zen 4
/// (every family 19h model), as libpfm4 upstream's amd64 revision tells
/// them? (4.13 left Zen 4 out, and knew Zen 3 only in models 0-0Fh and
/// 20h-5Fh.)
fn amd_zen2_to_zen4(host: &Host) -> bool {
    host.vendor == Vendor::Amd
        && match host.family {
            0x17 => host.model >= 0x30,
            0x19 => true,
            _ => false,
        }
}

impl Engine for Rapl {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// Intel: family 6 and one of the listed models; AMD: Zen 2 to Zen 4.
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        if pmu.vendor() == Some(Vendor::Amd) {
            amd_zen2_to_zen4(host)
        } else {
            cpu_matches(pmu, host)
        }
    }

    /// With `os_detect`, the kernel must also expose the PMU when it has
    /// perf_events.
    fn os_exported(&self, pmu: PmuDesc, host: &Host) -> bool {
        pmu.flags() & PMU_OS_DETECT == 0
            || super::common::perf_exports(host, Some(pmu.perf_name().unwrap_or("power")))
    }

    fn event_available(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> bool {
        let sets = ev.ext(EXT_SETS);
        ev.in_variant(pmu.variant_bit()) && (sets == 0 || sets >> event_set(ctx) & 1 != 0)
    }

    /// The position among the events of the host's list (libpfm4 indexes
    /// the list it swapped in).
    fn event_index(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> usize {
        pmu.events()
            .take_while(|e| e.index() < ev.index())
            .filter(|&e| self.event_available(ctx, pmu, e))
            .count()
    }

    /// No hypervisor level, no precise or hardware sampling; the privilege
    /// attributes only with `plm_attrs` (the PMU filters no level).
    fn offer(&self, _ctx: &Ctx, pmu: PmuDesc, _ev: EventDesc, os: Os) -> Offer {
        let plm_attrs = pmu.flags() & PMU_PLM_ATTRS != 0;
        offer_of(os, 0, 0, |a| match a {
            pa::H | pa::PRECISE | pa::HW_SMPL => false,
            pa::U | pa::K | pa::MG | pa::MH => plm_attrs,
            _ => true,
        })
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        d.write_fstr_umasks();
        Ok(vec![d.event.code()])
    }

    /// The `power` PMU's type; `config` is the code without the control
    /// bits a core PMU's encoder clears (none of them is ever set here).
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let code = d.event.code();
        d.write_fstr_umasks();
        let name = d.pmu.perf_name().unwrap_or("power");
        attr.type_ = if d.pmu.flags() & PMU_TYPE_REQUIRED != 0 {
            required_type(ctx, name)?
        } else {
            match kernel_pmu_type(&ctx.host, name) {
                None | Some(TYPE_NOT_SUPPORTED) => PERF_TYPE_RAW,
                Some(t) => t as u32,
            }
        };
        let mut reg = PerfEvtSel(code);
        reg.set_en(0);
        reg.set_int(0);
        reg.set_os(0);
        reg.set_usr(0);
        attr.config = reg.0 & !AMD_GUEST_HOST;
        Ok(vec![code])
    }
}

/// AMD `PERF_CTL` guest-only and host-only bits (40, 41), cleared by
/// libpfm4's amd64 encoder (never set by a RAPL code).
const AMD_GUEST_HOST: u64 = 3 << 40;

/// The type of the kernel's perf_events PMU `name` where it is required
/// (libpfm4's uncore and AMD encoders): no file or no number is "not
/// supported", a negative number is returned as the error it is.
pub(crate) fn required_type(ctx: &Ctx, name: &str) -> Result<u32> {
    let path = format!("{EVENT_SOURCES}/{name}/type");
    match kernel_pmu_type(&ctx.host, name) {
        Some(t) if t >= 0 => Ok(t as u32),
        Some(t) => Err(Error::new(
            ErrorKind::from_code(t).unwrap_or(ErrorKind::NotSupported),
            format!("{path} holds a negative PMU type {t}"),
        )),
        None => Err(Error::new(
            ErrorKind::NotSupported,
            format!("the kernel exposes no perf_events PMU {name:?} ({path} is absent or holds no number): its events cannot be encoded for perf_events here"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(contents: &str) -> Option<i32> {
        let h = Host::none().with_file(&format!("{EVENT_SOURCES}/power/type"), contents);
        kernel_pmu_type(&h, "power")
    }

    /// `fscanf("%d")` readings of the kind of text a `type` file may hold.
    #[test]
    fn type_files_read_like_fscanf() {
        assert_eq!(typed("23\n"), Some(23));
        assert_eq!(typed("  7x"), Some(7));
        assert_eq!(typed("-5\n"), Some(-5));
        assert_eq!(typed("+9"), Some(9));
        assert_eq!(typed("x1"), None);
        assert_eq!(typed(""), None);
        assert_eq!(typed("-"), None);
        assert_eq!(typed("4294967297"), Some(1));
        assert_eq!(typed("99999999999999999999999"), Some(-1));
        assert_eq!(kernel_pmu_type(&Host::none(), "power"), None);
    }

    #[test]
    fn amd_revisions() {
        let amd = |f, m| Host::synthetic(Vendor::Amd, f, m);
        assert!(amd_zen2_to_zen4(&amd(0x17, 0x31)));
        assert!(amd_zen2_to_zen4(&amd(0x17, 0x30)));
        assert!(!amd_zen2_to_zen4(&amd(0x17, 0x2f)));
        assert!(amd_zen2_to_zen4(&amd(0x19, 0x01)));
        assert!(amd_zen2_to_zen4(&amd(0x19, 0x21)));
        assert!(amd_zen2_to_zen4(&amd(0x19, 0x5f)));
        // Zen 4 (upstream; 4.13 said no).
        assert!(amd_zen2_to_zen4(&amd(0x19, 0x10)));
        assert!(amd_zen2_to_zen4(&amd(0x19, 0x11)));
        assert!(amd_zen2_to_zen4(&amd(0x19, 0x60)));
        assert!(!amd_zen2_to_zen4(&amd(0x1a, 0x01)));
        assert!(!amd_zen2_to_zen4(&Host::synthetic(Vendor::Intel, 0x19, 1)));
    }
}
