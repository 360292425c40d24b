//! The kernel's type number of a perf_events PMU, read from
//! `/sys/bus/event_source/devices/<name>/type` (through the host's facts)
//! the way libpfm4 reads it, with `fscanf(f, "%d")`: every family that
//! encodes for a kernel PMU other than the CPU's asks here.

use crate::ctx::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::host::{Host, EVENT_SOURCES};

/// C's `scanf("%d")` as glibc does it: white space skipped, an optional
/// sign, decimal digits (at least one), the value converted as a `long`
/// (saturating) and then truncated to an `int`.
pub(crate) fn scan_int(text: &str) -> Option<i32> {
    let t = text.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n = digits.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    let mut v: i64 = 0;
    for b in digits[..n].bytes() {
        let dg = i64::from(b - b'0');
        v = if neg {
            v.saturating_mul(10).saturating_sub(dg)
        } else {
            v.saturating_mul(10).saturating_add(dg)
        };
    }
    Some(v as i32)
}

/// The number in kernel PMU `name`'s `type` file; `None` without the file
/// or a number.
pub(crate) fn kernel_pmu_type(host: &Host, name: &str) -> Option<i32> {
    host.perf_pmu_type(name).and_then(|t| scan_int(&t))
}

/// `perf_event_attr.type` for kernel PMU `name`: no file or no number is
/// "not supported here" (`whose` names the events that cannot be encoded,
/// for the message); a negative number is returned as the error it encodes.
pub(crate) fn perf_type(ctx: &Ctx, name: &str, whose: &str) -> Result<u32> {
    let path = format!("{EVENT_SOURCES}/{name}/type");
    let text = ctx.host.perf_pmu_type(name).ok_or_else(|| {
        Error::new(
            ErrorKind::NotSupported,
            format!("the kernel exposes no perf_events PMU {name:?} ({path} is absent): {whose} cannot be encoded for perf_events here"),
        )
    })?;
    let v = scan_int(&text).ok_or_else(|| {
        Error::new(
            ErrorKind::NotSupported,
            format!("{path} does not hold a PMU type number"),
        )
    })?;
    if v < 0 {
        let kind = ErrorKind::from_code(v).unwrap_or(ErrorKind::NotSupported);
        return Err(Error::new(
            kind,
            format!("{path} holds a negative PMU type {v}"),
        ));
    }
    Ok(v as u32)
}

/// `perf_event_attr.type` for kernel PMU `name` as libpfm4 upstream's
/// `pfm_perf_find_pmu_type` finds it (its uncore encoders since 4.13): in
/// the list it makes at start-up of the kernel's perf_events PMUs, the
/// directories under `/sys/bus/event_source/devices` with a
/// `perf_event_mux_interval_ms` file and a `type` number, made only when
/// the kernel has perf_events. A PMU not in that list is "not found"
/// (4.13: "not supported"); the number read is the type, negative or not.
pub(crate) fn listed_perf_type(ctx: &Ctx, name: &str, whose: &str) -> Result<u32> {
    let dir = format!("{EVENT_SOURCES}/{name}");
    let listed = ctx.host.perf_events
        && ctx
            .host
            .file_exists(&format!("{dir}/perf_event_mux_interval_ms"));
    match kernel_pmu_type(&ctx.host, name) {
        Some(t) if listed => Ok(t as u32),
        _ => Err(Error::new(
            ErrorKind::NotFound,
            format!("the kernel lists no perf_events PMU {name:?} ({dir} with a type and perf_event_mux_interval_ms): {whose} cannot be encoded for perf_events here"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PMU is found only where the kernel has perf_events and lists it
    /// with its multiplexing interval; its type is taken as read.
    #[test]
    fn listed_perf_type_is_upstreams() {
        let dir = format!("{EVENT_SOURCES}/uncore");
        let ctx = |files: &[(&str, &str)], perf: bool| {
            let mut h = Host::none();
            for (f, c) in files {
                h = h.with_file(&format!("{dir}/{f}"), c);
            }
            h.perf_events = perf;
            crate::Library::with_host(h)
        };
        let found =
            |l: &crate::Library| listed_perf_type(l.ctx(), "uncore", "x").map_err(|e| e.kind());
        let both = [("type", "12\n"), ("perf_event_mux_interval_ms", "4\n")];
        assert_eq!(found(&ctx(&both, true)), Ok(12));
        assert_eq!(found(&ctx(&both, false)), Err(ErrorKind::NotFound));
        assert_eq!(found(&ctx(&both[..1], true)), Err(ErrorKind::NotFound));
        assert_eq!(found(&ctx(&both[1..], true)), Err(ErrorKind::NotFound));
        let negative = [("type", "-3"), ("perf_event_mux_interval_ms", "4")];
        assert_eq!(found(&ctx(&negative, true)), Ok(-3i32 as u32));
    }

    /// What glibc's `scanf("%d")` reads.
    #[test]
    fn scan_int_is_scanf_d() {
        let cases: [(&str, Option<i32>); 15] = [
            ("12\n", Some(12)),
            ("\n\t 7", Some(7)),
            (" 17\n", Some(17)),
            ("+3", Some(3)),
            ("+9x", Some(9)),
            ("-5", Some(-5)),
            ("42abc", Some(42)),
            ("4294967297", Some(1)),
            ("99999999999999999999", Some(-1)),
            ("-99999999999999999999", Some(0)),
            ("", None),
            ("-", None),
            ("x1", None),
            ("x9", None),
            ("+ 1", None),
        ];
        for (text, want) in cases {
            assert_eq!(scan_int(text), want, "{text:?}");
        }
    }
}
