//! The perf_events raw PMU (`perf_raw::`): the perf tool's `rHEX` syntax,
//! one pseudo event whose hexadecimal number goes unchanged into
//! `perf_event_attr.config` with type `PERF_TYPE_RAW`.
//!
//! libpfm4 does not look the event name up in a table: any `r` followed by
//! hexadecimal digits names the table's one event (`r0000`), and the
//! number is the code ([`match_raw_name`]).

pub(crate) use pfmlib_defs::perf_raw as defs;

use super::common::{offer_of, Engine};
use crate::ctx::Ctx;
use crate::desc::{Desc, Offer};
use crate::error::Result;
use crate::host::Host;
use crate::kernel::{PerfAttr, PERF_TYPE_RAW};
use crate::model::Os;
use crate::tables::{EventDesc, PmuDesc};
use pfmlib_defs::FamilyDefs;

/// The raw number of the event being encoded: the one its name carried.
fn raw_code(d: &Desc) -> u64 {
    d.name_value
}

/// The kernel files whose presence means perf_events (libpfm4 accepts the
/// name of the first kernels too).
const PARANOID_FILES: [&str; 2] = [
    "/proc/sys/kernel/perf_event_paranoid",
    "/proc/sys/kernel/perf_counter_paranoid",
];

/// The engine.
pub(crate) struct PerfRaw;

impl Engine for PerfRaw {
    fn defs(&self) -> &'static FamilyDefs {
        &defs::DEFS
    }

    /// Present when the kernel has perf_events.
    fn detect(&self, _pmu: PmuDesc, host: &Host) -> bool {
        host.perf_events || PARANOID_FILES.iter().any(|f| host.file_exists(f))
    }

    /// `rHEX` names the one event, with the number as its value.
    fn match_event(&self, _ctx: &Ctx, pmu: PmuDesc, name: &str) -> Option<(EventDesc, u64)> {
        let v = match_raw_name(name)?;
        (pmu.nevents() > 0).then(|| (pmu.event(0), v))
    }

    /// Nothing of its own; every perf_events attribute under the perf
    /// layers (libpfm4 removes none for this PMU).
    fn offer(&self, _ctx: &Ctx, _pmu: PmuDesc, _ev: EventDesc, os: Os) -> Offer {
        offer_of(os, 0, 0, |_| true)
    }

    /// The number itself; the fully-qualified string is `rHEX`.
    fn encode(&self, _ctx: &Ctx, d: &mut Desc) -> Result<Vec<u64>> {
        let code = raw_code(d);
        d.fstr.clear();
        d.fstr.push(&format!("r{code:x}"));
        Ok(vec![code])
    }

    /// Raw type, the number as `config` (`config1`, `config2` zero). As in
    /// libpfm4, nothing of the event goes into the fully-qualified string:
    /// it holds the perf_events attributes only (`perf_raw:::u=1:...`).
    fn encode_perf(&self, _ctx: &Ctx, d: &mut Desc, attr: &mut PerfAttr) -> Result<Vec<u64>> {
        let code = raw_code(d);
        d.fstr.clear();
        attr.type_ = PERF_TYPE_RAW;
        attr.config = code;
        attr.config1 = 0;
        attr.config2 = 0;
        Ok(vec![code])
    }
}

/// libpfm4's reading of a raw event name: `r`, a hexadecimal digit, and
/// the rest of a C `strtoull(.., 16)` number (a `0x` prefix is allowed)
/// up to the end of the name. All ones and numbers that overflow are
/// refused. The value is the event's code.
pub(crate) fn match_raw_name(name: &str) -> Option<u64> {
    let rest = name.strip_prefix('r')?;
    let first = rest.bytes().next()?;
    if !first.is_ascii_hexdigit() {
        return None;
    }
    let digits = match rest.as_bytes() {
        [b'0', b'x' | b'X', d, ..] if d.is_ascii_hexdigit() => &rest[2..],
        _ => rest,
    };
    let mut v: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(16)?;
        v = v.checked_mul(16)?.checked_add(u64::from(d))?;
    }
    (v != u64::MAX).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::match_raw_name;

    /// The names libpfm4 4.13 accepts and refuses (checked with the
    /// installed library).
    #[test]
    fn raw_names_as_libpfm4_reads_them() {
        let ok = [
            ("r1234", 0x1234),
            ("r0", 0),
            ("r0000", 0),
            ("r0x12", 0x12),
            ("r0X1f", 0x1f),
            ("rABCdef", 0xabcdef),
            ("rfffffffffffffffe", u64::MAX - 1),
        ];
        for (s, v) in ok {
            assert_eq!(match_raw_name(s), Some(v), "{s}");
        }
        let refused = [
            "r",
            "R12",
            "r-1",
            "r+1",
            "r 1",
            "r0x",
            "r12g",
            "rx12",
            "r0x0x1",
            "rffffffffffffffff",
            "r1ffffffffffffffff",
            "12",
            "",
        ];
        for s in refused {
            assert_eq!(match_raw_name(s), None, "{s}");
        }
    }
}
