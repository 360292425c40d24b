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
/// with a readable type wins; `None` when none is published.
pub(crate) fn find_kernel_pmu<'n>(host: &Host, perf_name: &'n str) -> Option<(&'n str, i32)> {
    perf_name
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .find_map(|n| kernel_pmu_type(host, n).map(|t| (n, t)))
}

/// The CPUs of a kernel CPU list (`0-15,20,22-23`, as sysfs `cpus` files
/// write them); `None` when the text is not such a list.
pub fn parse_cpu_list(text: &str) -> Option<Vec<u32>> {
    let text = text.trim();
    let mut cpus = Vec::new();
    if text.is_empty() {
        return Some(cpus);
    }
    for part in text.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        if b < a || b - a > 1 << 16 {
            return None;
        }
        cpus.extend(a..=b);
    }
    Some(cpus)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What glibc's `scanf("%d")` reads.
    #[test]
    fn cpu_lists() {
        assert_eq!(
            parse_cpu_list("0-3,8,10-11\n"),
            Some(vec![0, 1, 2, 3, 8, 10, 11])
        );
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        for bad in ["x", "3-1", "1,,2", "-1", "0-99999999"] {
            assert_eq!(parse_cpu_list(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_first_published_name_of_a_list_wins() {
        let h = Host::synthetic(crate::Vendor::Intel, 6, 0x97)
            .with_file("/sys/bus/event_source/devices/cpu_atom/type", "10\n")
            .with_file("/sys/bus/event_source/devices/cpu/type", "4\n");
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
}
