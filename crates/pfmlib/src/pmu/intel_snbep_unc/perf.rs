//! The perf_events layer of the server uncore: the PMU's dynamic type from
//! the kernel's PMU list, the control register as `config`, the filter
//! words in `config1` (both halves of it for C-Box/CHA filter events) and
//! `config2`, and the perf_events attributes an uncore event can take.

use super::vocab::{is_cbo_filter_event, is_cha_filter_event, pmu_flag};
use crate::ctx::Ctx;
use crate::desc::Offer;
use crate::error::{Error, ErrorKind, Result};
use crate::host::Host;
use crate::kernel::{perf_attr as pa, PerfAttr};
use crate::model::Os;
use crate::tables::PmuDesc;

/// What `perf_event_attr` gets from the raw codes (control, then the
/// filter and address words in the order the encoder emits them).
pub(super) fn fill(pmu: PmuDesc, codes: &[u64], attr: &mut PerfAttr) {
    let reg = codes.first().copied().unwrap_or(0);
    attr.config = reg;
    let filter_event = is_cbo_filter_event(pmu, reg)
        || is_cha_filter_event(pmu, reg, 0)
        || is_cha_filter_event(pmu, reg, 1);
    let c1 = codes.get(1).copied();
    let c2 = codes.get(2).copied();
    if filter_event && codes.len() > 1 {
        attr.config1 = c1.unwrap_or(0) | c2.map_or(0, |w| w << 32);
    } else {
        attr.config1 = c1.unwrap_or(0);
        attr.config2 = c2.unwrap_or(0);
    }
}

/// The perf_events attributes offered: no precise sampling, no hypervisor
/// level, no hardware buffer; no sampling at all on a `no_smpl` PMU; no
/// privilege levels (and so no guest/host split) on a PMU that filters none.
///
/// libpfm4 drops the hardware-buffer attribute by its index whatever its
/// kind, so the modifier with that index, `nc`, goes too.
pub(super) fn offer(pmu: PmuDesc, mods: u32, os: Os) -> Offer {
    let no_smpl = pmu.flags() & pmu_flag::NO_SMPL != 0;
    let no_plm = pmu.supported_plm() == 0;
    let same_index_as_hw_smpl = 1u32 << pa::HW_SMPL;
    crate::pmu::common::offer_of(os, mods, same_index_as_hw_smpl, |id| {
        !(matches!(id, pa::PRECISE | pa::H | pa::HW_SMPL)
            || (no_smpl && matches!(id, pa::FREQ | pa::PERIOD))
            || (no_plm && matches!(id, pa::U | pa::K | pa::MG | pa::MH)))
    })
}

/// The kernel PMU a table's `perf_name` designates: the name itself, or,
/// for a comma-separated list (pfmlib's own tables, whose kernel PMU is
/// `uncore_<box>_0` or, with a single box, `uncore_<box>`), the first name
/// the kernel publishes (the first of the list when none is).
pub(super) fn kernel_name<'n>(host: &Host, perf_name: Option<&'n str>) -> Option<&'n str> {
    let list = perf_name?;
    if !list.contains(',') {
        return Some(list);
    }
    let mut names = list.split(',').map(str::trim);
    let first = names.clone().next();
    names
        .find(|n| crate::pmu::common::perf_exports(host, Some(n)))
        .or(first)
}

/// The kernel's type number of perf_events PMU `name`, read as C's
/// `fscanf("%d")` would: absent or unreadable is "not supported here", a
/// negative number is returned as the error it is.
pub(super) fn perf_type(ctx: &Ctx, name: Option<&str>) -> Result<u32> {
    let Some(name) = name else {
        return Err(Error::new(
            ErrorKind::NotSupported,
            "this uncore PMU has no perf_events name",
        ));
    };
    crate::pmu::kernel_type::perf_type(ctx, name, "its events")
}
