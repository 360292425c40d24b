//! OS encodings: raw PMU codes (`Os::None`) and Linux `perf_event_attr`
//! (`Os::PerfEvent`, `Os::PerfEventExt`), with the perf_events attributes
//! (`u k h period freq precise excl mg mh cpu pinned hw_smpl`).

use crate::error::{Error, ErrorKind, Result};
use crate::event::{parse_event, Desc, PAttr};
use crate::model::{AttrCtrl, AttrType, Os, Plm, Speculation};
use crate::pmu;
use crate::registry::Library;
use perf_event_open_sys::bindings as sys;
use serde::Serialize;

/// perf_events attribute ids (their attribute code).
pub(crate) mod perf_attr {
    pub const U: u64 = 0;
    pub const K: u64 = 1;
    pub const H: u64 = 2;
    pub const PERIOD: u64 = 3;
    pub const FREQ: u64 = 4;
    pub const PRECISE: u64 = 5;
    pub const EXCL: u64 = 6;
    pub const MG: u64 = 7;
    pub const MH: u64 = 8;
    pub const CPU: u64 = 9;
    pub const PINNED: u64 = 10;
    pub const HW_SMPL: u64 = 11;
}

/// The perf_events attributes: name, description, type, and whether the
/// plain `PerfEvent` layer (not only `PerfEventExt`) offers it.
const PERF_ATTRS: [(&str, &str, AttrType, bool); 12] = [
    ("u", "count at user level", AttrType::ModBool, true),
    ("k", "count at kernel level", AttrType::ModBool, true),
    ("h", "count at hypervisor level", AttrType::ModBool, true),
    (
        "period",
        "sampling period (events between samples)",
        AttrType::ModInteger,
        false,
    ),
    (
        "freq",
        "sampling frequency in Hz",
        AttrType::ModInteger,
        false,
    ),
    (
        "precise",
        "precise sampling level, skid constraint [0-3]",
        AttrType::ModInteger,
        false,
    ),
    (
        "excl",
        "exclusive use of the PMU while scheduled",
        AttrType::ModBool,
        false,
    ),
    ("mg", "count while a guest runs", AttrType::ModBool, true),
    ("mh", "count while the host runs", AttrType::ModBool, true),
    ("cpu", "CPU to count on", AttrType::ModInteger, false),
    (
        "pinned",
        "keep the event on a counter at all times",
        AttrType::ModBool,
        false,
    ),
    (
        "hw_smpl",
        "record samples in a hardware buffer",
        AttrType::ModBool,
        false,
    ),
];

/// `:name=` of each perf_events attribute, by id, for fully-qualified strings.
const PERF_SETTING: [&str; 12] = [
    ":u=",
    ":k=",
    ":h=",
    ":period=",
    ":freq=",
    ":precise=",
    ":excl=",
    ":mg=",
    ":mh=",
    ":cpu=",
    ":pinned=",
    ":hw_smpl=",
];

/// Appends the OS layer's attributes to an event's attribute list.
pub(crate) fn append_os_attrs(os: Os, v: &mut Vec<PAttr>) {
    append_os_attrs_where(os, v, |_| true);
}

/// [`append_os_attrs`], only the attributes whose id `keep` accepts.
pub(crate) fn append_os_attrs_where(os: Os, v: &mut Vec<PAttr>, keep: impl Fn(u64) -> bool) {
    if os == Os::None {
        return;
    }
    for (id, (name, desc, ty, plain)) in PERF_ATTRS.iter().enumerate() {
        if (os == Os::PerfEvent && !plain) || !keep(id as u64) {
            continue;
        }
        v.push(PAttr {
            name,
            desc,
            equiv: None,
            code: id as u64,
            ty: *ty,
            ctrl: AttrCtrl::PerfEvent,
            idx: id as u64,
            is_dfl: false,
            is_precise: false,
            spec: Speculation::NotAvailable,
            hw_smpl: false,
        });
    }
}

/// The fields of `perf_event_attr` an encoding sets.
///
/// [`PerfAttr::to_kernel`] turns it into the kernel structure of
/// `perf-event-open-sys`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PerfAttr {
    /// `type`: PERF_TYPE_HARDWARE (0), SOFTWARE (1), HW_CACHE (3), RAW (4), or a dynamic PMU type.
    #[serde(rename = "type")]
    pub type_: u32,
    /// `config`: the event.
    pub config: u64,
    /// `config1`: extra register (offcore response, load latency).
    pub config1: u64,
    /// `config2`.
    pub config2: u64,
    /// Do not count at user level.
    pub exclude_user: bool,
    /// Do not count at kernel level.
    pub exclude_kernel: bool,
    /// Do not count in the hypervisor.
    pub exclude_hv: bool,
    /// Do not count while the host runs.
    pub exclude_host: bool,
    /// Do not count while a guest runs.
    pub exclude_guest: bool,
    /// Skid constraint for sampling (0-3).
    pub precise_ip: u8,
    /// Sampling period, or frequency when `freq` is set (one field in the kernel ABI).
    pub sample_period: u64,
    /// `sample_period` is a frequency in Hz.
    pub freq: bool,
    /// Always on a counter.
    pub pinned: bool,
    /// Alone on the PMU when scheduled.
    pub exclusive: bool,
}

impl PerfAttr {
    /// The kernel structure for `perf_event_open(2)`, with `size` set.
    pub fn to_kernel(&self) -> sys::perf_event_attr {
        let mut a = sys::perf_event_attr {
            type_: self.type_,
            size: std::mem::size_of::<sys::perf_event_attr>() as u32,
            config: self.config,
            ..Default::default()
        };
        a.__bindgen_anon_1.sample_period = self.sample_period;
        a.__bindgen_anon_3.config1 = self.config1;
        a.__bindgen_anon_4.config2 = self.config2;
        a.set_exclude_user(self.exclude_user as u64);
        a.set_exclude_kernel(self.exclude_kernel as u64);
        a.set_exclude_hv(self.exclude_hv as u64);
        a.set_exclude_host(self.exclude_host as u64);
        a.set_exclude_guest(self.exclude_guest as u64);
        a.set_precise_ip(self.precise_ip as u64);
        a.set_freq(self.freq as u64);
        a.set_pinned(self.pinned as u64);
        a.set_exclusive(self.exclusive as u64);
        a
    }
}

/// The result of encoding one event string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Encoding {
    /// PMU name.
    pub pmu: &'static str,
    /// Event name (the real event when an alias was given).
    pub event: &'static str,
    /// Opaque event identifier, libpfm4-compatible.
    pub idx: u32,
    /// Fully-qualified event string, `pmu::EVENT:UMASK...:mod=val...`.
    pub fstr: String,
    /// Raw register values (`Os::None`; the PMU-level codes otherwise).
    pub codes: Vec<u64>,
    /// perf_event_attr fields (`Os::PerfEvent` and `Os::PerfEventExt`).
    pub perf: Option<PerfAttr>,
    /// CPU requested with `cpu=` (`Os::PerfEventExt`).
    pub cpu: Option<i32>,
}

pub(crate) fn encode(lib: &Library, s: &str, plm: Plm, os: Os) -> Result<Encoding> {
    let mut d = parse_event(lib, s, os, plm)?;
    match os {
        Os::None => {
            let codes = pmu::encode_raw(lib, &mut d)?;
            Ok(finish(&mut d, codes, None, None))
        }
        Os::PerfEvent | Os::PerfEventExt => encode_perf(lib, &mut d),
    }
}

fn finish(d: &mut Desc, codes: Vec<u64>, perf: Option<PerfAttr>, cpu: Option<i32>) -> Encoding {
    Encoding {
        pmu: d.pmu.name,
        event: d.pmu.events[d.event].name,
        idx: (d.pmu.id << 21) | d.event as u32,
        fstr: {
            // The engine's string, prefixed in place (it has room to spare).
            let mut s = std::mem::take(&mut d.fstr);
            s.insert_str(0, "::");
            s.insert_str(0, d.pmu.name);
            s
        },
        codes,
        perf,
        cpu,
    }
}

fn attr_val(d: &Desc, msg: String) -> Error {
    Error::new(ErrorKind::AttrValue, format!("{}: {msg}", d.event_name()))
}

fn encode_perf(lib: &Library, d: &mut Desc) -> Result<Encoding> {
    let mut attr = PerfAttr::default();
    let codes = pmu::encode_perf(lib, d, &mut attr)?;

    let mut plm = 0u32;
    let mut has_plm = false;
    let mut vmx = 0u32;
    let mut has_vmx = false;
    let mut cpu: Option<i32> = None;
    let mut pinned = false;
    use perf_attr as pa;
    for k in 0..d.attrs.len() {
        let p = *d.pattr(k);
        if p.ctrl != AttrCtrl::PerfEvent {
            continue;
        }
        let ival = d.attrs[k].ival;
        match p.idx {
            pa::U => {
                if ival != 0 {
                    plm |= Plm::PLM3.bits();
                }
                has_plm = true;
            }
            pa::K => {
                if ival != 0 {
                    plm |= Plm::PLM0.bits();
                }
                has_plm = true;
            }
            pa::H => {
                if ival != 0 {
                    plm |= Plm::PLMH.bits();
                }
                has_plm = true;
            }
            pa::PERIOD => {
                if ival == 0 || attr.freq {
                    return Err(attr_val(d, format!("period={ival} is invalid (must be non-zero, and not combined with freq)")));
                }
                attr.sample_period = ival;
            }
            pa::FREQ => {
                if ival == 0 || attr.sample_period != 0 {
                    return Err(attr_val(d, format!("freq={ival} is invalid (must be non-zero, and not combined with period)")));
                }
                attr.sample_period = ival;
                attr.freq = true;
            }
            pa::PRECISE => {
                if ival > 3 {
                    return Err(attr_val(d, format!("precise={ival} is out of range [0-3]")));
                }
                attr.precise_ip = ival as u8;
            }
            pa::EXCL => attr.exclusive |= ival != 0,
            // libpfm4 counts the presence of mg/mh, whatever the value.
            pa::MG => {
                vmx |= Plm::PLM3.bits();
                has_vmx = true;
            }
            pa::MH => {
                vmx |= Plm::PLM0.bits();
                has_vmx = true;
            }
            pa::CPU => {
                if ival >= i32::MAX as u64 {
                    return Err(attr_val(d, format!("cpu={ival} is out of range")));
                }
                cpu = Some(ival as i32);
            }
            pa::PINNED => pinned = ival != 0,
            pa::HW_SMPL => attr.precise_ip = (ival != 0) as u8,
            _ => {}
        }
    }
    if !has_plm {
        plm = d.dfl_plm.bits();
    }
    if !has_vmx {
        vmx = Plm::PLM0.bits();
    }
    // perf works by exclusion: levels the PMU cannot filter are never excluded.
    let unsupported = !pmu::supported_plm(lib, d.pmu) & Plm::ALL.bits();
    plm |= unsupported;
    vmx |= unsupported;
    attr.exclude_user = plm & Plm::PLM3.bits() == 0;
    attr.exclude_kernel = plm & Plm::PLM0.bits() == 0;
    attr.exclude_hv = plm & Plm::PLMH.bits() == 0;
    attr.exclude_guest = vmx & Plm::PLM3.bits() == 0;
    attr.exclude_host = vmx & Plm::PLM0.bits() == 0;
    attr.pinned = pinned;

    // The value each perf_events attribute shows in the fully-qualified
    // string, by id (`None`: not shown); a table rather than a match.
    let sp = attr.sample_period;
    let shown: [Option<u64>; PERF_ATTRS.len()] = [
        Some((plm & Plm::PLM3.bits() != 0) as u64),
        Some((plm & Plm::PLM0.bits() != 0) as u64),
        Some((plm & Plm::PLMH.bits() != 0) as u64),
        (sp != 0).then_some(sp),
        (sp != 0).then_some(sp),
        Some(attr.precise_ip as u64),
        Some(attr.exclusive as u64),
        Some(!attr.exclude_guest as u64),
        Some(!attr.exclude_host as u64),
        None,
        None,
        Some(attr.precise_ip as u64),
    ];
    for i in 0..d.pattrs.len() {
        let p = &d.pattrs[i];
        if p.ctrl != AttrCtrl::PerfEvent {
            continue;
        }
        let id = p.idx as usize;
        if let (Some(Some(v)), Some(setting)) = (shown.get(id), PERF_SETTING.get(id)) {
            d.push_fstr_setting(setting, *v);
        }
    }
    Ok(finish(d, codes, Some(attr), cpu))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_name_the_attributes() {
        for (id, (name, ..)) in PERF_ATTRS.iter().enumerate() {
            assert_eq!(PERF_SETTING[id], format!(":{name}="));
        }
        assert_eq!(PERF_ATTRS[perf_attr::K as usize].0, "k");
        assert_eq!(PERF_ATTRS[perf_attr::HW_SMPL as usize].0, "hw_smpl");
    }
}
