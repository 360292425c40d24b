//! The s390x CPU-measurement facilities of IBM Z (libpfm4's
//! `pfmlib_s390x_cpumf.c` and `pfmlib_s390x_perf_event.c`): the counter
//! facility `cpum_cf` and the sampling facility `cpum_sf`. Events take no
//! attribute; the code is the counter number, which is also the perf_events
//! `config`, and the type is read from the kernel PMU's `type` file.
//!
//! `cpum_cf`'s events are composed when libpfm4 sets the PMU up (detected,
//! or forced): the first-version set (`cfvn` 1 or 3, none otherwise), the
//! generic second-version set (its last four crypto counters only from
//! `csvn` 6 on), then the extended set of the machine type. The table holds
//! every set in that order, each event tagged with its `set`; an event's
//! libpfm4 index is its position among the events there. Not set up, the
//! PMU has no events (and libpfm4's 65,535 fixed counters).

pub(crate) use pfmlib_defs::s390x_cpumf as defs;

use super::common::{offer_of, Engine};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::{Error, ErrorKind, Result};
use crate::host::{Arch, Host, EVENT_SOURCES};
use crate::kernel::{perf_attr as pa, PerfAttr, PERF_TYPE_RAW};
use crate::model::Os;
use crate::tables::{EventDesc, PmuDesc};
use pfmlib_defs::{bit, ext, position, FamilyDefs};

/// PMU flag: the events are composed from the host's facts.
const PMU_COMPOSED: u32 = bit(defs::PMU_FLAGS, "composed");
/// Extra event word: the counter set the event comes from.
const EXT_SET: usize = ext(defs::EVENT_EXT, "set");

/// libpfm4's `CPUMF_COUNTER_MAX`: the fixed counters `cpum_cf` reports
/// before it is set up.
const COUNTER_MAX: u32 = 0xffff;

/// The machine types libpfm4 knows, with the set of their extended
/// counters (`pfm_cpumcf_init`).
const MACHINES: &[(i64, &str)] = &[
    (2097, "z10"), // z10 EC
    (2098, "z10"), // z10 BC
    (2817, "z196"),
    (2818, "z196"), // z114
    (2827, "zec12"),
    (2828, "zec12"), // zBC12
    (2964, "z13"),
    (2965, "z13"), // z13s
    (3906, "z14"),
    (3907, "z14"), // z14 ZR1
    (8561, "z15"),
    (8562, "z15"),
    (3931, "z16"),
    (3932, "z16"),
    (9175, "z17"),
    (9176, "z17"),
];

/// The engine.
pub(crate) struct S390xCpumf;

/// The position in [`defs::SETS`] of the extended set of `machine_type`,
/// if libpfm4 knows it.
pub(crate) fn machine_set(machine_type: i64) -> Option<u32> {
    MACHINES
        .iter()
        .find(|(t, _)| *t == machine_type)
        .map(|(_, s)| position(defs::SETS, s))
}

/// Is an event of set `set` (a position in [`defs::SETS`]) in the list
/// libpfm4 composes on `host`?
fn composed_has(host: &Host, set: u32) -> bool {
    let f = host.s390x.unwrap_or_default();
    let is = |name: &str| set == position(defs::SETS, name);
    if is("any") || is("svn") {
        true
    } else if is("fvn1") {
        f.cfvn == 1
    } else if is("fvn3") {
        f.cfvn == 3
    } else if is("svn6") {
        f.csvn >= 6
    } else {
        machine_set(f.machine_type) == Some(set)
    }
}

/// The kernel's type for `pmu` as libpfm4 reads it (`fopen`, its
/// `pfmlib_getl`, `sscanf("%u")` into an int): no file is
/// `PFM_ERR_NOTFOUND`; a first line of blanks is `PERF_TYPE_RAW`; a line
/// without a number (or a file without a whole line), where libpfm4 leaves
/// the type undefined, is `PFM_ERR_NOTFOUND` too.
fn kernel_type(host: &Host, name: &str) -> Result<i32> {
    let path = format!("{EVENT_SOURCES}/{name}/type");
    let none = || {
        Error::new(
            ErrorKind::NotFound,
            format!("no perf_events type for {name}: {path} is absent or holds no number"),
        )
    };
    let text = host.read_file(&path).ok_or_else(none)?;
    let line = text.split_once('\n').ok_or_else(none)?.0;
    let line = line.split('\0').next().unwrap_or_default();
    if crate::host::s390x_only_blanks(line) {
        return Ok(PERF_TYPE_RAW as i32);
    }
    let (v, _) = crate::host::s390x_scan_u32(line).ok_or_else(none)?;
    Ok(v as i32)
}

impl Engine for S390xCpumf {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// On an s390x host whose kernel publishes the facility (libpfm4:
    /// `access("/sys/bus/event_source/devices/cpum_cf", R_OK)`).
    fn detect(&self, pmu: PmuDesc, host: &Host) -> bool {
        host.arch == Arch::S390x
            && pmu
                .perf_name()
                .is_some_and(|n| host.file_exists(&format!("{EVENT_SOURCES}/{n}")))
    }

    fn event_available(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> bool {
        if pmu.flags() & PMU_COMPOSED == 0 {
            return ev.in_variant(pmu.variant_bit());
        }
        ctx.is_active(pmu) && composed_has(&ctx.host, ev.ext(EXT_SET))
    }

    /// The position among the events composed on this host.
    fn event_index(&self, ctx: &Ctx, pmu: PmuDesc, ev: EventDesc) -> usize {
        if pmu.flags() & PMU_COMPOSED == 0 {
            return ev.index();
        }
        pmu.events()
            .take_while(|e| e.index() < ev.index())
            .filter(|&e| self.event_available(ctx, pmu, e))
            .count()
    }

    /// Fixed counters only: as many as events once composed.
    fn counters(&self, ctx: &Ctx, pmu: PmuDesc) -> (u32, u32) {
        if pmu.flags() & PMU_COMPOSED == 0 {
            return (pmu.num_cntrs(), pmu.num_fixed());
        }
        if !ctx.is_active(pmu) {
            return (0, COUNTER_MAX);
        }
        let n = pmu
            .events()
            .filter(|&e| self.event_available(ctx, pmu, e))
            .count();
        (0, n as u32)
    }

    /// No precise mode, no hardware sampling; every other perf_events
    /// attribute.
    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, _ev: EventDesc, os: Os) -> Offer {
        offer_of(os, 0, 0, |a| !matches!(a, pa::PRECISE | pa::HW_SMPL))
    }

    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        d.write_fstr_umasks();
        Ok(vec![d.event.code()])
    }

    /// The kernel PMU's type and the counter number; a type of 0 leaves
    /// both at 0 (libpfm4 takes only a positive type), a negative one is
    /// returned as the error it is.
    fn encode_perf(&self, ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let code = d.event.code();
        d.write_fstr_umasks();
        let name = d.pmu.perf_name().unwrap_or_default();
        let t = kernel_type(&ctx.host, name)?;
        if t > 0 {
            attr.type_ = t as u32;
            attr.config = code;
        } else if t < 0 {
            return Err(Error::new(
                ErrorKind::from_code(t).unwrap_or(ErrorKind::NotSupported),
                format!("{EVENT_SOURCES}/{name}/type holds {}", t as u32),
            ));
        }
        Ok(vec![code])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(contents: &str) -> Result<i32> {
        let h = Host::none().with_file(&format!("{EVENT_SOURCES}/cpum_cf/type"), contents);
        kernel_type(&h, "cpum_cf")
    }

    /// The readings of libpfm4's `pfm_s390_get_perf_attr_type`.
    #[test]
    fn type_files() {
        assert_eq!(typed("10\n").ok(), Some(10));
        assert_eq!(typed(" 7x\n").ok(), Some(7));
        assert_eq!(typed("\n").ok(), Some(PERF_TYPE_RAW as i32));
        assert_eq!(typed("  \n9\n").ok(), Some(PERF_TYPE_RAW as i32));
        assert_eq!(typed("4294967295\n").ok(), Some(-1));
        assert_eq!(typed("-5\n").ok(), Some(-5));
        for bad in ["x\n", "10", ""] {
            assert_eq!(typed(bad).map_err(|e| e.kind()), Err(ErrorKind::NotFound));
        }
        let none = kernel_type(&Host::none(), "cpum_cf");
        assert_eq!(none.map_err(|e| e.kind()), Err(ErrorKind::NotFound));
    }

    #[test]
    fn machine_types() {
        assert_eq!(machine_set(8561), Some(position(defs::SETS, "z15")));
        assert_eq!(machine_set(9176), Some(position(defs::SETS, "z17")));
        assert_eq!(machine_set(2099), None);
        assert_eq!(machine_set(0), None);
    }
}
