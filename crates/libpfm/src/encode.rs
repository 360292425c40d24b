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

/// Longest fully-qualified string libpfm4 builds after the `pmu::` prefix
/// (its 256-byte buffer, NUL included): every piece appended past it is cut.
const FSTR_BODY_MAX: usize = 255;

/// libpfm4 writes the perf_events part of the fully-qualified string from
/// the structure it returns, so a value the caller had set beforehand (a
/// sampling period, `precise_ip`, `exclusive`) shows in it; pfmlib's
/// string shows its own values. When they differ, the perf_events
/// settings at the end of the string are written again from the merged
/// structure, and the whole cut at libpfm4's length.
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
    let ours = Shown::of(&p);
    let merged = Shown {
        period: attr.sample_period(),
        precise: attr.precise_ip(),
        excl: attr.exclusive(),
        ..ours
    };
    if let Some(f) = rewrite_perf_settings(&enc.fstr, &names, &ours, &merged) {
        enc.fstr = f;
    }
}

/// The values a fully-qualified string shows for the perf_events
/// attributes.
#[derive(Debug, Clone, Copy)]
struct Shown {
    levels: [bool; 5],
    period: u64,
    precise: u64,
    excl: bool,
}

impl Shown {
    /// What pfmlib's own encoding shows.
    fn of(p: &pfmlib::PerfAttr) -> Shown {
        Shown {
            levels: [
                !p.exclude_user,
                !p.exclude_kernel,
                !p.exclude_hv,
                !p.exclude_guest,
                !p.exclude_host,
            ],
            period: p.sample_period,
            precise: u64::from(p.precise_ip),
            excl: p.exclusive,
        }
    }

    /// The value attribute `name` shows (`None`: not shown).
    fn value(&self, name: &str) -> Option<String> {
        let flag = |b: bool| Some(u8::from(b).to_string());
        match name {
            "u" => flag(self.levels[0]),
            "k" => flag(self.levels[1]),
            "h" => flag(self.levels[2]),
            "mg" => flag(self.levels[3]),
            "mh" => flag(self.levels[4]),
            "period" | "freq" => (self.period != 0).then(|| self.period.to_string()),
            "precise" | "hw_smpl" => Some(self.precise.to_string()),
            "excl" => flag(self.excl),
            _ => None,
        }
    }

    /// The `:name=value` settings of `names` (the event's perf_events
    /// attributes, in order) as a string shows them.
    fn tail(&self, names: &[&str]) -> String {
        let mut t = String::new();
        for name in names {
            if let Some(v) = self.value(name) {
                t.push(':');
                t.push_str(name);
                t.push('=');
                t.push_str(&v);
            }
        }
        t
    }
}

/// `fstr` (pfmlib's, showing `ours` and cut at libpfm4's length) with its
/// perf_events settings shown from `merged`, cut again as libpfm4 cuts
/// it; `None` if the string does not end as expected.
fn rewrite_perf_settings(
    fstr: &str,
    names: &[&str],
    ours: &Shown,
    merged: &Shown,
) -> Option<String> {
    let body_at = fstr.find("::").map_or(0, |i| i + 2);
    let body = &fstr[body_at..];
    let tail = ours.tail(names);
    // The settings begin where the rest of the string is (the start of)
    // pfmlib's own tail: all of it, unless the string was cut.
    let cut = body.len() >= FSTR_BODY_MAX;
    let head_len = (0..=body.len())
        .filter(|&i| body.is_char_boundary(i))
        .find(|&i| {
            let rest = &body[i..];
            rest.starts_with(':') && tail.starts_with(rest) && (cut || rest == tail)
        })?;
    let mut out = String::with_capacity(fstr.len() + 32);
    out.push_str(&fstr[..body_at + head_len]);
    out.push_str(&merged.tail(names));
    let mut end = (body_at + FSTR_BODY_MAX).min(out.len());
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
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
        let ours = Shown {
            levels: [true, true, false, false, true],
            period: 0,
            precise: 0,
            excl: false,
        };
        let merged = Shown {
            period: 1000,
            precise: 2,
            excl: true,
            ..ours
        };
        assert_eq!(
            rewrite_perf_settings(fstr, &names, &ours, &merged).unwrap(),
            "nhm::X:k=1:u=1:e=0:i=0:c=0:t=0:u=1:k=1:h=0:period=1000:freq=1000:precise=2:excl=1:mg=0:mh=1:hw_smpl=2"
        );
        assert_eq!(
            rewrite_perf_settings("nhm::X:k=1", &names, &ours, &merged),
            None
        );
    }

    #[test]
    fn merged_values_are_cut_at_libpfm4s_length() {
        let names = ["u", "k", "period", "freq", "excl", "mg", "mh"];
        let ours = Shown {
            levels: [true, true, false, false, true],
            period: 0,
            precise: 0,
            excl: false,
        };
        let merged = Shown {
            period: u64::from(u32::MAX),
            ..ours
        };
        let head = format!("X{}", ":A".repeat(110)); // 221 bytes
                                                     // Not cut by pfmlib, cut once the period shows.
        let fstr = format!("p::{head}:u=1:k=1:excl=0:mg=0:mh=1");
        let want = format!("p::{head}:u=1:k=1:period=4294967295:freq=4294967295:excl=0:mg=0:mh=1");
        let got = rewrite_perf_settings(&fstr, &names, &ours, &merged).unwrap();
        assert_eq!(got, want[..3 + FSTR_BODY_MAX]);
        // Already cut by pfmlib: the head is found before the cut tail.
        let long_head = format!("X{}", ":A".repeat(120)); // 241 bytes
        let full = format!("{long_head}:u=1:k=1:excl=0:mg=0:mh=1");
        let fstr = format!("p::{}", &full[..FSTR_BODY_MAX]);
        let want = format!("p::{long_head}:u=1:k=1:period=4294967295");
        let got = rewrite_perf_settings(&fstr, &names, &ours, &merged).unwrap();
        assert_eq!(got, want[..3 + FSTR_BODY_MAX]);
    }
}
