//! Encodings for the C interface: pfmlib encodes, this module adds what
//! libpfm4's C entry points do around it: the privilege-level and OS-layer
//! checks, the merge into the caller's `perf_event_attr`, the
//! fully-qualified string that shows the merged values, and the verbose
//! and debug messages.

use crate::abi::{PFM_ERR_INVAL, PFM_ERR_NOTSUPP, PFM_OS_MAX, PFM_PLM_ALL};
use crate::attr::AttrBytes;
use crate::state::State;
use pfmlib::{AttrCtrl, Encoding, Error, Os, Plm};
use std::borrow::Cow;
use std::ffi::{c_int, c_uint};

/// The OS layer `os` names; `None` past `PFM_OS_MAX` (an enum in C, so
/// unsigned: a negative value is past it too).
pub(crate) fn os_of(os: c_uint) -> Option<Os> {
    match os {
        0 => Some(Os::None),
        1 => Some(Os::PerfEvent),
        2 => Some(Os::PerfEventExt),
        _ => None,
    }
}

/// `os` if below `PFM_OS_MAX` (`PFM_ERR_INVAL` otherwise), as the info calls check it.
pub(crate) fn os_arg(os: c_uint) -> Result<Os, c_int> {
    debug_assert_eq!(PFM_OS_MAX, 3);
    os_of(os).ok_or(PFM_ERR_INVAL)
}

/// The default privilege levels of an encoding call: `PFM_ERR_INVAL` for a
/// bit outside `PFM_PLM_ALL`.
pub(crate) fn plm_arg(dfl_plm: c_int) -> Result<Plm, c_int> {
    if dfl_plm & !PFM_PLM_ALL != 0 {
        return Err(PFM_ERR_INVAL);
    }
    Plm::from_bits(dfl_plm as u32).ok_or(PFM_ERR_INVAL)
}

/// The OS layer of an encoding call: `PFM_ERR_NOTSUPP` when it is not
/// there (libpfm4 looks for an activated OS layer of that number).
pub(crate) fn encode_os(st: &State, os: c_uint) -> Result<Os, c_int> {
    os_of(os)
        .filter(|&o| st.os_active(o))
        .ok_or(PFM_ERR_NOTSUPP)
}

/// A caller's event string as text. libpfm4 works on bytes; pfmlib on
/// UTF-8: bytes that are not UTF-8 become U+FFFD, which no PMU, event or
/// attribute is named with, so such a string fails as it does in libpfm4
/// (`PFM_ERR_NOTFOUND` for the name, `PFM_ERR_ATTR` for an attribute).
pub(crate) fn text(bytes: &[u8]) -> Cow<'_, str> {
    // The validation of `from_utf8` reads a word at a time; the lossy
    // conversion's goes byte by byte, so it is kept for strings that need it.
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The error code of a pfmlib error, which the debug output explains.
pub(crate) fn fail(st: &State, call: &str, s: &str, e: Error) -> c_int {
    st.log
        .debug(format_args!("{call}({s:?}): {} ({})", e, e.kind().name()));
    e.code()
}

/// Encodes `s` for `PFM_OS_NONE`.
pub(crate) fn raw(st: &State, s: &str, plm: Plm) -> Result<Encoding, c_int> {
    let enc = st
        .lib
        .encode(s, plm, Os::None)
        .map_err(|e| fail(st, "pfm_get_os_event_encoding", s, e))?;
    if st.log.verbose_on() {
        let codes: Vec<String> = enc.codes.iter().map(|c| format!("{c:#x}")).collect();
        st.log
            .verbose(format_args!("[{}] {}", codes.join(" "), enc.fstr));
    }
    Ok(enc)
}

/// Encodes `s` for a perf_events layer into the caller's attribute
/// structure `attr` (its known bytes, copied in): the encoding (with the
/// fully-qualified string showing the merged values) and the CPU asked
/// for (`-1`: none).
pub(crate) fn perf(
    st: &State,
    s: &str,
    plm: Plm,
    os: Os,
    attr: &mut AttrBytes,
) -> Result<(Encoding, c_int), c_int> {
    let call = "pfm_get_os_event_encoding";
    let (mut enc, set) = st
        .lib
        .encode_with_settings(s, plm, os)
        .map_err(|e| fail(st, call, s, e))?;
    let Some(p) = enc.perf else {
        return Err(PFM_ERR_NOTSUPP);
    };
    attr.apply(&p, set).inspect_err(|_| {
        st.log.debug(format_args!(
            "{call}({s:?}): period or freq conflicts with the caller's perf_event_attr (freq {}, sample_period {})",
            attr.freq(),
            attr.sample_period()
        ))
    })?;
    show_merged_values(st, &mut enc, os, attr);
    if st.log.verbose_on() {
        let [eu, ek, eh, ehost, eguest] = attr.excludes();
        st.log.verbose(format_args!(
            "perf_event_attr type={} config={:#x} config1={:#x} config2={:#x} exclude_user={} exclude_kernel={} exclude_hv={} exclude_host={} exclude_guest={} sample_period={} freq={} precise_ip={} exclusive={} pinned={}: {}",
            attr.type_(), attr.config(), attr.config1(), attr.config2(),
            u8::from(eu), u8::from(ek), u8::from(eh), u8::from(ehost), u8::from(eguest),
            attr.sample_period(), u8::from(attr.freq()), attr.precise_ip(),
            u8::from(attr.exclusive()), u8::from(attr.pinned()), s
        ));
    }
    let cpu = enc.cpu.unwrap_or(-1);
    Ok((enc, cpu))
}

/// libpfm4 writes the perf_events part of the fully-qualified string from
/// the structure it returns, so a value the caller had set beforehand (a
/// sampling period, `precise_ip`, `exclusive`) shows in it; pfmlib's
/// string shows its own values. When they differ, the perf_events
/// settings at the end of the string are written again from the merged
/// structure.
fn show_merged_values(st: &State, enc: &mut Encoding, os: Os, attr: &AttrBytes) {
    let Some(p) = enc.perf else { return };
    let same = attr.precise_ip() == u64::from(p.precise_ip)
        && attr.exclusive() == p.exclusive
        && attr.sample_period() == p.sample_period;
    if same {
        return;
    }
    let Some(ev) = st.lib.event_of(enc) else {
        return;
    };
    let names: Vec<&str> = ev
        .attrs(os)
        .iter()
        .filter(|a| a.ctrl == AttrCtrl::PerfEvent)
        .map(|a| a.name)
        .collect();
    if let Some(f) = rewrite_perf_settings(&enc.fstr, &names, p.sample_period, attr) {
        enc.fstr = f;
    }
}

/// Is perf_events attribute `name` shown in a fully-qualified string,
/// given the sampling period?
fn shown(name: &str, period: u64) -> bool {
    match name {
        "period" | "freq" => period != 0,
        "cpu" | "pinned" => false,
        _ => true,
    }
}

/// `fstr` with its trailing perf_events settings (`names`, the event's
/// perf_events attributes in order, as shown for sampling period `period`)
/// written from `attr`; `None` if the string does not end as expected.
fn rewrite_perf_settings(
    fstr: &str,
    names: &[&str],
    period: u64,
    attr: &AttrBytes,
) -> Option<String> {
    let n = names.iter().filter(|n| shown(n, period)).count();
    let mut parts: Vec<&str> = fstr.rsplitn(n + 1, ':').collect();
    if parts.len() != n + 1 {
        return None;
    }
    let head = parts.pop()?;
    parts.reverse();
    let mut old = parts.iter();
    let mut out = String::from(head);
    for name in names {
        let prev = if shown(name, period) {
            let tok = old.next()?;
            let (k, v) = tok.split_once('=')?;
            if k != *name {
                return None;
            }
            Some(v)
        } else {
            None
        };
        let value = match *name {
            "period" | "freq" => {
                (attr.sample_period() != 0).then(|| attr.sample_period().to_string())
            }
            "precise" | "hw_smpl" => Some(attr.precise_ip().to_string()),
            "excl" => Some(u8::from(attr.exclusive()).to_string()),
            "cpu" | "pinned" => None,
            _ => prev.map(str::to_string),
        };
        if let Some(v) = value {
            out.push(':');
            out.push_str(name);
            out.push('=');
            out.push_str(&v);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        assert_eq!(os_of(0), Some(Os::None));
        assert_eq!(os_of(3), None);
        assert_eq!(os_of(-1i32 as u32), None);
        assert_eq!(plm_arg(0x9).map(|p| p.bits()), Ok(0x9));
        assert_eq!(plm_arg(0x20), Err(PFM_ERR_INVAL));
        assert_eq!(plm_arg(-1), Err(PFM_ERR_INVAL));
        assert_eq!(text(b"a\xffb"), "a\u{fffd}b");
    }

    #[test]
    fn preset_values_show_in_the_string() {
        let names = [
            "u", "k", "h", "period", "freq", "precise", "excl", "mg", "mh", "cpu", "pinned",
            "hw_smpl",
        ];
        let fstr =
            "nhm::X:k=1:u=1:e=0:i=0:c=0:t=0:u=1:k=1:h=0:precise=0:excl=0:mg=0:mh=1:hw_smpl=0";
        let mut a = AttrBytes::default();
        let p = pfmlib::PerfAttr::default()
            .precise_ip(2)
            .sample_period(1000)
            .exclusive(true);
        let mut set = pfmlib::PerfSettings::default();
        set.period = true;
        set.precise = true;
        set.excl = true;
        a.apply(&p, set).unwrap();
        assert_eq!(
            rewrite_perf_settings(fstr, &names, 0, &a).unwrap(),
            "nhm::X:k=1:u=1:e=0:i=0:c=0:t=0:u=1:k=1:h=0:period=1000:freq=1000:precise=2:excl=1:mg=0:mh=1:hw_smpl=2"
        );
        assert_eq!(rewrite_perf_settings("nhm::X:k=1", &names, 0, &a), None);
    }
}
