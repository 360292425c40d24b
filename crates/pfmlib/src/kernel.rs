//! The Linux perf_events side of an encoding: the `perf_event_attr` fields
//! pfmlib sets ([`PerfAttr`]) and the perf_events attributes an event string
//! may carry under the perf OS layers (`u k h period freq precise excl mg mh
//! cpu pinned hw_smpl`), by id. A leaf module: engines and the OS layer both
//! use it.

use crate::model::{AttrType, Os};
use perf_event_open_sys::bindings as sys;

/// perf_events attribute ids (their attribute code and bit in an offer mask).
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

/// `perf_event_attr.type` of raw PMU events (`PERF_TYPE_RAW`).
pub(crate) const PERF_TYPE_RAW: u32 = 4;

/// One perf_events attribute.
pub(crate) struct PerfAttrDef {
    pub name: &'static str,
    /// `:name=`, for fully-qualified strings.
    pub setting: &'static str,
    pub desc: &'static str,
    pub ty: AttrType,
    /// Offered by the plain `PerfEvent` layer too, not only `PerfEventExt`.
    pub plain: bool,
    /// The name as a lookup key (`defs::key`).
    pub key: u64,
}

const fn def(
    name: &'static str,
    setting: &'static str,
    desc: &'static str,
    ty: AttrType,
    plain: bool,
) -> PerfAttrDef {
    PerfAttrDef {
        name,
        setting,
        desc,
        ty,
        plain,
        key: pfmlib_defs::key(name.as_bytes()),
    }
}

/// The perf_events attributes, by id.
pub(crate) static PERF_ATTRS: [PerfAttrDef; 12] = [
    def("u", ":u=", "count at user level", AttrType::ModBool, true),
    def("k", ":k=", "count at kernel level", AttrType::ModBool, true),
    def(
        "h",
        ":h=",
        "count at hypervisor level",
        AttrType::ModBool,
        true,
    ),
    def(
        "period",
        ":period=",
        "sampling period (events between samples)",
        AttrType::ModInteger,
        false,
    ),
    def(
        "freq",
        ":freq=",
        "sampling frequency in Hz",
        AttrType::ModInteger,
        false,
    ),
    def(
        "precise",
        ":precise=",
        "precise sampling level, skid constraint [0-3]",
        AttrType::ModInteger,
        false,
    ),
    def(
        "excl",
        ":excl=",
        "exclusive use of the PMU while scheduled",
        AttrType::ModBool,
        false,
    ),
    def(
        "mg",
        ":mg=",
        "count while a guest runs",
        AttrType::ModBool,
        true,
    ),
    def(
        "mh",
        ":mh=",
        "count while the host runs",
        AttrType::ModBool,
        true,
    ),
    def(
        "cpu",
        ":cpu=",
        "CPU to count on",
        AttrType::ModInteger,
        false,
    ),
    def(
        "pinned",
        ":pinned=",
        "keep the event on a counter at all times",
        AttrType::ModBool,
        false,
    ),
    def(
        "hw_smpl",
        ":hw_smpl=",
        "record samples in a hardware buffer",
        AttrType::ModBool,
        false,
    ),
];

/// The perf_events attributes an OS layer offers (bit = id), before an
/// engine removes those its PMU cannot honour.
pub(crate) fn os_attrs(os: Os) -> u32 {
    match os {
        Os::None => 0,
        Os::PerfEvent => PERF_ATTRS
            .iter()
            .enumerate()
            .filter(|(_, a)| a.plain)
            .fold(0, |m, (i, _)| m | 1 << i),
        Os::PerfEventExt => (1 << PERF_ATTRS.len()) - 1,
    }
}

/// The fields of `perf_event_attr` an encoding sets, and the few a program
/// that opens the event adds (`exclude_idle`, `read_format`,
/// `sample_type`, which encodings leave unset).
///
/// [`PerfAttr::to_kernel`] turns it into the kernel structure of
/// `perf-event-open-sys` (re-exported as [`crate::perf_event_attr`]).
/// Outside pfmlib, build one with [`PerfAttr::new`] (or `default()`) and
/// the chainable setters; more fields may come.
///
/// ```
/// let a = pfmlib::PerfAttr::new(4, 0x53003c).exclude_kernel(true).sample_period(1000);
/// let k = a.to_kernel();
/// assert_eq!((k.type_, k.config, k.exclude_kernel()), (4, 0x53003c, 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct PerfAttr {
    /// `type`: PERF_TYPE_HARDWARE (0), SOFTWARE (1), HW_CACHE (3), RAW (4), or a dynamic PMU type.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
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
    /// Do not count while the CPU is idle (perf's `:I`); not set by encodings.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_false"))]
    pub exclude_idle: bool,
    /// `read_format`: what a `read(2)` of the counter returns
    /// (`PERF_FORMAT_*` bits); not set by encodings.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_zero"))]
    pub read_format: u64,
    /// `sample_type`: what each sample records (`PERF_SAMPLE_*` bits); not
    /// set by encodings.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_zero"))]
    pub sample_type: u64,
}

#[cfg(feature = "serde")]
fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(feature = "serde")]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Chainable setters, one per field but `type_` and `config` (given to
/// [`PerfAttr::new`]).
macro_rules! setters {
    ($($field:ident: $ty:ty),* $(,)?) => {$(
        #[doc = concat!("Sets [`PerfAttr::", stringify!($field), "`].")]
        pub fn $field(mut self, value: $ty) -> PerfAttr {
            self.$field = value;
            self
        }
    )*};
}

impl PerfAttr {
    /// An event of `type_` and `config`, every other field zero (counted at
    /// every level, no sampling).
    pub fn new(type_: u32, config: u64) -> PerfAttr {
        PerfAttr {
            type_,
            config,
            ..PerfAttr::default()
        }
    }

    setters! {
        config1: u64,
        config2: u64,
        exclude_user: bool,
        exclude_kernel: bool,
        exclude_hv: bool,
        exclude_host: bool,
        exclude_guest: bool,
        precise_ip: u8,
        sample_period: u64,
        freq: bool,
        pinned: bool,
        exclusive: bool,
        exclude_idle: bool,
        read_format: u64,
        sample_type: u64,
    }

    /// The kernel structure for `perf_event_open(2)`, with `size` set and
    /// every field of this one.
    pub fn to_kernel(&self) -> sys::perf_event_attr {
        let mut a = sys::perf_event_attr {
            type_: self.type_,
            size: std::mem::size_of::<sys::perf_event_attr>() as u32,
            config: self.config,
            read_format: self.read_format,
            sample_type: self.sample_type,
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
        a.set_exclude_idle(self.exclude_idle as u64);
        a.set_precise_ip(self.precise_ip as u64);
        a.set_freq(self.freq as u64);
        a.set_pinned(self.pinned as u64);
        a.set_exclusive(self.exclusive as u64);
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_name_the_attributes() {
        for a in &PERF_ATTRS {
            assert_eq!(a.setting, format!(":{}=", a.name));
        }
        assert_eq!(PERF_ATTRS[perf_attr::K as usize].name, "k");
        assert_eq!(PERF_ATTRS[perf_attr::HW_SMPL as usize].name, "hw_smpl");
        assert_eq!(os_attrs(Os::PerfEvent), 0b1_1000_0111);
    }

    #[test]
    fn every_field_reaches_the_kernel() {
        let a = PerfAttr::new(4, 0x3c)
            .config1(1)
            .config2(2)
            .exclude_user(true)
            .exclude_kernel(true)
            .exclude_hv(true)
            .exclude_host(true)
            .exclude_guest(true)
            .precise_ip(2)
            .sample_period(100)
            .freq(true)
            .pinned(true)
            .exclusive(true)
            .exclude_idle(true)
            .read_format(0xf)
            .sample_type(0x18);
        let k = a.to_kernel();
        assert_eq!(
            (k.type_, k.config, k.read_format, k.sample_type),
            (4, 0x3c, 0xf, 0x18)
        );
        let bits = [
            k.exclude_user(),
            k.exclude_kernel(),
            k.exclude_hv(),
            k.exclude_host(),
            k.exclude_guest(),
            k.exclude_idle(),
            k.freq(),
            k.pinned(),
            k.exclusive(),
        ];
        assert!(bits.iter().all(|&b| b == 1));
        assert_eq!(k.precise_ip(), 2);
    }
}
