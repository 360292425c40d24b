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

/// The kernel PMU a table's `perf_name` designates on this host, and the
/// number its `type` file holds: `perf_name` may be a comma-separated list
/// (libpfm4's `pfm_perf_find_pmu_type`), the first name the kernel publishes
/// ([`published_type`]) wins; `None` when none is published.
pub(crate) fn find_kernel_pmu<'n>(host: &Host, perf_name: &'n str) -> Option<(&'n str, i32)> {
    perf_name
        .split(',')
        .map(str::trim)
        .find_map(|n| published_type(host, n).map(|t| (n, t)))
}

/// The type of kernel PMU `n` if libpfm4 upstream counts it as published:
/// a directory of `/sys/bus/event_source/devices` holding a
/// `perf_event_mux_interval_ms` file and a `type` with a number, on a kernel
/// with perf_events.
fn published_type(host: &Host, n: &str) -> Option<i32> {
    if !host.perf_events || n.is_empty() || n.starts_with('.') {
        return None;
    }
    let mux = format!("{EVENT_SOURCES}/{n}/perf_event_mux_interval_ms");
    if !host.file_exists(&mux) {
        return None;
    }
    kernel_pmu_type(host, n)
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

/// libpfm4's `pfm_perf_find_pmu_type` (upstream, for the core PMUs of
/// hybrid machines): a PMU without `perf_name` counts through
/// `PERF_TYPE_RAW` (the core the event is opened on); otherwise `perf_name`
/// is a comma-separated list of kernel PMU names, and the first one the
/// kernel publishes gives the type. libpfm4 looks only at the PMUs of its
/// sysfs cache: directories of `/sys/bus/event_source/devices` holding a
/// `perf_event_mux_interval_ms` file and a `type` with a number, on a kernel
/// with perf_events. None of the names there: not supported.
pub(crate) fn find_pmu_type(host: &Host, perf_name: Option<&str>, whose: &str) -> Result<u32> {
    let Some(list) = perf_name else {
        return Ok(crate::kernel::PERF_TYPE_RAW);
    };
    list.split(',')
        .find_map(|n| published_type(host, n))
        .map(|t| t as u32)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::NotSupported,
                format!("the kernel publishes none of the perf_events PMUs {list:?} under {EVENT_SOURCES}: {whose} cannot be encoded for perf_events here"),
            )
        })
}

/// `perf_event_attr.type` for kernel PMU `name` as libpfm4 upstream's
/// `pfm_perf_find_pmu_type` finds it (its uncore encoders since 4.13): in
/// the list it makes at start-up of the kernel's perf_events PMUs, the
/// directories under `/sys/bus/event_source/devices` with a
/// `perf_event_mux_interval_ms` file and a `type` number, made only when
/// the kernel has perf_events. A PMU not in that list is "not found"
/// (4.13: "not supported"); the number read is the type, negative or not.
pub(crate) fn listed_perf_type(ctx: &Ctx, name: &str, whose: &str) -> Result<u32> {
    published_type(&ctx.host, name).map(|t| t as u32).ok_or_else(|| {
        Error::new(
            ErrorKind::NotFound,
            format!("the kernel lists no perf_events PMU {name:?} ({EVENT_SOURCES}/{name} with a type and perf_event_mux_interval_ms): {whose} cannot be encoded for perf_events here"),
        )
    })
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

    #[test]
    fn the_first_published_name_of_a_list_wins() {
        let d = "/sys/bus/event_source/devices";
        let h = Host::synthetic(crate::Vendor::Intel, 6, 0x97)
            .with_file(&format!("{d}/cpu_atom/type"), "10\n")
            .with_file(&format!("{d}/cpu_atom/perf_event_mux_interval_ms"), "4\n")
            .with_file(&format!("{d}/cpu/type"), "4\n")
            .with_file(&format!("{d}/cpu/perf_event_mux_interval_ms"), "4\n")
            // Without its multiplexing file a PMU is not published (upstream).
            .with_file(&format!("{d}/cpu_core/type"), "8\n");
        assert_eq!(
            find_kernel_pmu(&h, "cpu_core,cpu_atom"),
            Some(("cpu_atom", 10))
        );
        assert_eq!(find_kernel_pmu(&h, "cpu_atom,cpu"), Some(("cpu_atom", 10)));
        assert_eq!(find_kernel_pmu(&h, "cpu,cpu_atom"), Some(("cpu", 4)));
        assert_eq!(find_kernel_pmu(&h, "cpu_core"), None);
        assert_eq!(find_kernel_pmu(&h, ""), None);
    }

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

    /// A host with perf_events and these kernel PMUs: (name, type, with a
    /// multiplexing-interval file).
    fn host_with(pmus: &[(&str, &str, bool)]) -> Host {
        let mut h = Host::none();
        h.perf_events = true;
        for (n, ty, mux) in pmus {
            h = h.with_file(&format!("{EVENT_SOURCES}/{n}/type"), ty);
            if *mux {
                let f = format!("{EVENT_SOURCES}/{n}/perf_event_mux_interval_ms");
                h = h.with_file(&f, "4\n");
            }
        }
        h
    }

    /// Upstream's `pfm_perf_find_pmu_type`: RAW without a name, the first
    /// published name of the list, not supported when none is published.
    #[test]
    fn find_pmu_type_is_upstreams() {
        let list = Some("armv8_cortex_a57,armv8_pmuv3_0,armv8_pmuv3");
        let ty = |h: &Host| find_pmu_type(h, list, "x").map_err(|e| e.kind());
        let raw = find_pmu_type(&host_with(&[]), None, "x").ok();
        assert_eq!(raw, Some(crate::kernel::PERF_TYPE_RAW));
        assert_eq!(ty(&host_with(&[])), Err(ErrorKind::NotSupported));
        let both = [
            ("armv8_cortex_a57", "9\n", true),
            ("armv8_pmuv3_0", "10\n", true),
        ];
        assert_eq!(ty(&host_with(&both)), Ok(9));
        // Without its multiplexing file libpfm4 does not know the first one.
        let first_bare = [
            ("armv8_cortex_a57", "9\n", false),
            ("armv8_pmuv3_0", " 10", true),
        ];
        assert_eq!(ty(&host_with(&first_bare)), Ok(10));
        let junk = [
            ("armv8_cortex_a57", "junk\n", true),
            ("armv8_pmuv3", "11\n", true),
        ];
        assert_eq!(ty(&host_with(&junk)), Ok(11));
        let mut no_perf = host_with(&both);
        no_perf.perf_events = false;
        assert_eq!(ty(&no_perf), Err(ErrorKind::NotSupported));
    }
}
