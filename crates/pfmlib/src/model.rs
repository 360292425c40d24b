//! The public event model: PMU, event and attribute information, OS layers
//! and privilege levels (libpfm4's `pfm_*_info_t` and friends, as Rust types).

use std::fmt;

/// CPU vendor, as reported by CPUID leaf 0 (x86) or by the implementer
/// code of the Main ID Register (Arm, `CPU implementer` in `/proc/cpuinfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[non_exhaustive]
pub enum Vendor {
    /// GenuineIntel.
    Intel,
    /// AuthenticAMD.
    Amd,
    /// Arm Ltd. (implementer 0x41): Cortex and Neoverse cores.
    Arm,
    /// Broadcom (implementer 0x42).
    Broadcom,
    /// Cavium, now Marvell (implementer 0x43).
    Cavium,
    /// Fujitsu (implementer 0x46).
    Fujitsu,
    /// HiSilicon (implementer 0x48).
    HiSilicon,
    /// Applied Micro (implementer 0x50).
    AppliedMicro,
    /// Qualcomm (implementer 0x51).
    Qualcomm,
    /// NVIDIA (implementer 0x4e): Olympus cores.
    Nvidia,
    /// Ampere Computing (implementer 0xc0): AmpereOne cores.
    Ampere,
    /// IBM: POWER and PowerPC processors (detected by their processor
    /// version, the model).
    Ibm,
    /// Anything else.
    Other,
}

/// The Arm implementer codes pfmlib knows, with their vendors.
const ARM_IMPLEMENTERS: [(u32, Vendor); 9] = [
    (0x41, Vendor::Arm),
    (0x42, Vendor::Broadcom),
    (0x43, Vendor::Cavium),
    (0x46, Vendor::Fujitsu),
    (0x48, Vendor::HiSilicon),
    (0x4e, Vendor::Nvidia),
    (0x50, Vendor::AppliedMicro),
    (0x51, Vendor::Qualcomm),
    (0xc0, Vendor::Ampere),
];

impl Vendor {
    /// The vendor of an Arm implementer code (`Other` for codes pfmlib does
    /// not name).
    pub fn from_arm_implementer(code: u32) -> Vendor {
        ARM_IMPLEMENTERS
            .iter()
            .find(|(c, _)| *c == code)
            .map_or(Vendor::Other, |&(_, v)| v)
    }

    /// The Arm implementer code of this vendor, if it designs Arm cores.
    pub fn arm_implementer(self) -> Option<u32> {
        ARM_IMPLEMENTERS
            .iter()
            .find(|(_, v)| *v == self)
            .map(|&(c, _)| c)
    }
}

/// Type of a PMU (libpfm4's `pfm_pmu_type_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum PmuKind {
    /// A processor core PMU.
    Core,
    /// A socket-level (uncore) PMU.
    Uncore,
    /// A PMU provided by the operating system (perf_events generic events).
    OsGeneric,
    /// A PMU whose type libpfm4 leaves unset (`PFM_PMU_TYPE_UNKNOWN`: the
    /// IBM Power Torrent hub chip, the PowerPC 970).
    Unknown,
}

impl PmuKind {
    /// libpfm4's numeric value.
    pub fn code(self) -> u32 {
        match self {
            PmuKind::Core => 1,
            PmuKind::Uncore => 2,
            PmuKind::OsGeneric => 3,
            PmuKind::Unknown => 0,
        }
    }
}

/// The OS layer an encoding is made for (libpfm4's `pfm_os_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Os {
    /// Raw PMU register values only (`PFM_OS_NONE`).
    None,
    /// Linux perf_events, PMU-related attributes only (`PFM_OS_PERF_EVENT`).
    PerfEvent,
    /// Linux perf_events with software attributes too: period, frequency,
    /// precise, exclusive, pinned, cpu (`PFM_OS_PERF_EVENT_EXT`).
    PerfEventExt,
}

impl Os {
    /// libpfm4's numeric value (`PFM_OS_NONE` 0, `PFM_OS_PERF_EVENT` 1,
    /// `PFM_OS_PERF_EVENT_EXT` 2).
    pub fn code(self) -> u32 {
        match self {
            Os::None => 0,
            Os::PerfEvent => 1,
            Os::PerfEventExt => 2,
        }
    }
}

/// Privilege-level mask (libpfm4's `PFM_PLM*` bits).
///
/// ```
/// use pfmlib::Plm;
/// let plm = Plm::PLM0 | Plm::PLM3;
/// assert_eq!(plm.bits(), 0x9);
/// assert!(plm.contains(Plm::PLM3));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Plm(u32);

impl Plm {
    /// Kernel level (ring 0).
    pub const PLM0: Plm = Plm(0x01);
    /// Privilege level 1.
    pub const PLM1: Plm = Plm(0x02);
    /// Privilege level 2.
    pub const PLM2: Plm = Plm(0x04);
    /// User level (ring 3; on x86 also levels 1 and 2).
    pub const PLM3: Plm = Plm(0x08);
    /// Hypervisor.
    pub const PLMH: Plm = Plm(0x10);
    /// Every level.
    pub const ALL: Plm = Plm(0x1f);
    /// The default of libpfm4's tools: kernel and user.
    pub const DEFAULT: Plm = Plm(0x09);

    /// Builds a mask from raw bits; `None` if a bit outside [`Plm::ALL`] is set.
    pub fn from_bits(bits: u32) -> Option<Plm> {
        (bits & !Plm::ALL.0 == 0).then_some(Plm(bits))
    }

    /// The raw bits.
    pub fn bits(self) -> u32 {
        self.0
    }

    /// True when every level of `other` is in `self`.
    pub fn contains(self, other: Plm) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Plm {
    type Output = Plm;
    fn bitor(self, rhs: Plm) -> Plm {
        Plm(self.0 | rhs.0)
    }
}

impl fmt::Debug for Plm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Plm({:#x})", self.0)
    }
}

/// What kind of attribute (libpfm4's `pfm_attr_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum AttrType {
    /// A unit mask.
    Umask,
    /// A boolean modifier (`:u`, `:u=1`, `:u=0`).
    ModBool,
    /// An integer modifier (`:c=2`).
    ModInteger,
    /// A raw unit mask given in hex (`:0x12`).
    RawUmask,
}

impl AttrType {
    /// libpfm4's numeric value.
    pub fn code(self) -> u32 {
        match self {
            AttrType::Umask => 1,
            AttrType::ModBool => 2,
            AttrType::ModInteger => 3,
            AttrType::RawUmask => 4,
        }
    }
}

/// Who implements an attribute (libpfm4's `pfm_attr_ctrl_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum AttrCtrl {
    /// The PMU hardware.
    Pmu,
    /// The perf_events kernel interface.
    PerfEvent,
}

impl AttrCtrl {
    /// libpfm4's numeric value.
    pub fn code(self) -> u32 {
        match self {
            AttrCtrl::Pmu => 1,
            AttrCtrl::PerfEvent => 2,
        }
    }
}

/// Whether an event counts speculative occurrences (libpfm4's `PFM_EVENT_INFO_SPEC_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Speculation {
    /// The tables do not say.
    NotAvailable,
    /// Counts on both correct and wrong paths.
    Speculative,
    /// Counts on the correct path only.
    NonSpeculative,
}

impl Speculation {
    /// libpfm4's numeric value.
    pub fn code(self) -> u32 {
        match self {
            Speculation::NotAvailable => 0,
            Speculation::Speculative => 1,
            Speculation::NonSpeculative => 2,
        }
    }
}

/// Information about one PMU (libpfm4's `pfm_pmu_info_t`).
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct PmuInfo {
    /// Short name, the `name::` prefix of event strings.
    pub name: &'static str,
    /// Description.
    pub desc: &'static str,
    /// libpfm4's PMU id (`pfm_pmu_t`).
    pub id: u32,
    /// Core, uncore, OS generic or unknown.
    pub kind: PmuKind,
    /// Number of generic counters.
    pub num_cntrs: u32,
    /// Number of fixed counters.
    pub num_fixed_cntrs: u32,
    /// Most 64-bit codes one event needs.
    pub max_encoding: u32,
    /// Detected on this host.
    pub is_present: bool,
    /// Number of events.
    pub nevents: usize,
    /// Privilege levels the hardware can filter.
    pub supported_plm: Plm,
}

/// The kernel's perf_events PMU a pfmlib PMU encodes its events for on
/// the library's host (see [`crate::Pmu::kernel_pmu`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct KernelPmu {
    /// Its name under `/sys/bus/event_source/devices` (`cpu_core`).
    pub name: &'static str,
    /// The number its `type` file holds: `perf_event_attr.type`.
    pub type_: i32,
    /// The CPUs it counts on, from its `cpus` file (hybrid core PMUs have
    /// one); `None` without the file or when it is not a CPU list.
    pub cpus: Option<Vec<u32>>,
}

/// Information about one event (libpfm4's `pfm_event_info_t`).
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct EventInfo {
    /// Event name.
    pub name: &'static str,
    /// Description.
    pub desc: &'static str,
    /// For an alias, the event string it stands for.
    pub equiv: Option<&'static str>,
    /// Raw event code (event select, without unit masks or modifiers).
    pub code: u64,
    /// PMU name.
    pub pmu: &'static str,
    /// Opaque event identifier, libpfm4-compatible (`pmu id << 21 | index`).
    pub idx: u32,
    /// Number of attributes (unit masks and modifiers) for the OS layer asked.
    pub nattrs: usize,
    /// Supports precise sampling (on Intel: PEBS); with unit masks, at least one does.
    pub is_precise: bool,
    /// Speculation information.
    pub speculation: Speculation,
    /// Can be recorded by a hardware sampling buffer.
    pub support_hw_smpl: bool,
}

/// Information about one attribute of an event (libpfm4's `pfm_event_attr_info_t`).
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct AttrInfo {
    /// Attribute name.
    pub name: &'static str,
    /// Description.
    pub desc: &'static str,
    /// For an alias, the attribute string it stands for.
    pub equiv: Option<&'static str>,
    /// Attribute code: unit-mask bits, or the modifier's index.
    pub code: u64,
    /// Unit mask or modifier.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub attr_type: AttrType,
    /// Implemented by the PMU or by perf_events.
    pub ctrl: AttrCtrl,
    /// Position among the event's attributes for this OS layer.
    pub idx: usize,
    /// Default unit mask of its group.
    pub is_dfl: bool,
    /// Supports precise sampling.
    pub is_precise: bool,
    /// Speculation information.
    pub speculation: Speculation,
    /// Can be recorded by a hardware sampling buffer.
    pub support_hw_smpl: bool,
    /// A unit mask that takes no modifier: given, the fully-qualified
    /// string lists none and perf_events attributes other than `pinned`
    /// may not be set (libpfm4 upstream's `support_no_mods`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_false"))]
    pub support_no_mods: bool,
}

#[cfg(feature = "serde")]
fn is_false(b: &bool) -> bool {
    !*b
}
