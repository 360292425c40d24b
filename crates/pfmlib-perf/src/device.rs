//! A counter device in the spirit of BSD perfmon(4): numbered counters
//! below NPMC, each *set up* with an event select, unit mask, flags and
//! counter mask, then *started*, *stopped*, *reset* and *read*; plus the
//! time-stamp counter (*tstamp*).
//!
//! perfmon(4) programmed the counter registers through `ioctl`s on
//! `/dev/perfmon`; on Linux each counter is a raw perf event whose `config`
//! is the x86 `PERFEVTSEL` layout (event, unit mask << 8, E bit 18, INV bit
//! 23, CMASK bits 24-31; USR bit 16 and OS bit 17 become the perf exclude
//! bits). Counters count the calling thread unless the device is made for
//! another task or a CPU.

use crate::counter::{Counter, Options, Target};
use crate::error::{Error, Result};
use crate::tsc::{tstamp, Tstamp};
use pfmlib::regs::PerfEvtSel;
use pfmlib::{Library, PerfAttr, PmuKind, Vendor};
use std::fmt;
use std::ops::BitOr;

/// `PERF_TYPE_RAW`.
const PERF_TYPE_RAW: u32 = 4;

/// Counter flags (perfmon(4) `pmc_flags`).
///
/// ```
/// use pfmlib_perf::PmcFlags;
/// let f = PmcFlags::USR | PmcFlags::OS;
/// assert_eq!(f.to_string(), "usr,os");
/// assert_eq!("os,usr".parse::<PmcFlags>().unwrap(), f);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct PmcFlags(u8);

impl PmcFlags {
    /// Count events in user mode (`PMCF_USR`).
    pub const USR: PmcFlags = PmcFlags(0x01);
    /// Count events in kernel mode (`PMCF_OS`).
    pub const OS: PmcFlags = PmcFlags(0x02);
    /// Count occurrences rather than duration: edge detect (`PMCF_E`).
    pub const E: PmcFlags = PmcFlags(0x04);
    /// Invert the sense of the counter-mask comparison (`PMCF_INV`).
    pub const INV: PmcFlags = PmcFlags(0x08);

    const NAMES: [(PmcFlags, &'static str); 4] = [
        (PmcFlags::USR, "usr"),
        (PmcFlags::OS, "os"),
        (PmcFlags::E, "e"),
        (PmcFlags::INV, "inv"),
    ];

    /// No flag.
    pub const fn empty() -> PmcFlags {
        PmcFlags(0)
    }

    /// The flag bits (`PMCF_*` values).
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Flags from bits; `None` when an unknown bit is set.
    pub const fn from_bits(bits: u8) -> Option<PmcFlags> {
        if bits & !0x0f != 0 {
            None
        } else {
            Some(PmcFlags(bits))
        }
    }

    /// True when every flag of `other` is set.
    pub const fn contains(self, other: PmcFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for PmcFlags {
    type Output = PmcFlags;
    fn bitor(self, rhs: PmcFlags) -> PmcFlags {
        PmcFlags(self.0 | rhs.0)
    }
}

impl fmt::Display for PmcFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = PmcFlags::NAMES
            .iter()
            .filter(|(fl, _)| self.contains(*fl))
            .map(|(_, n)| *n)
            .collect();
        if names.is_empty() {
            write!(f, "none")
        } else {
            write!(f, "{}", names.join(","))
        }
    }
}

impl std::str::FromStr for PmcFlags {
    type Err = String;
    /// Comma- or `|`-separated names: `usr`, `os`, `e`, `inv` (any case), or `none`.
    fn from_str(s: &str) -> Result<PmcFlags, String> {
        let mut f = PmcFlags::empty();
        for tok in s.split([',', '|']).map(str::trim) {
            if tok.eq_ignore_ascii_case("none") || tok.is_empty() {
                continue;
            }
            match PmcFlags::NAMES
                .iter()
                .find(|(_, n)| n.eq_ignore_ascii_case(tok))
            {
                Some((fl, _)) => f = f | *fl,
                None => return Err(format!("unknown counter flag {tok:?}: use usr, os, e, inv")),
            }
        }
        Ok(f)
    }
}

/// A counter setup (perfmon(4) `struct pmc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Pmc {
    /// Counter number, below NPMC.
    pub num: usize,
    /// Event select.
    pub event: u8,
    /// Unit mask.
    pub unit: u8,
    /// Flags.
    pub flags: PmcFlags,
    /// Counter mask (threshold), 0 for none.
    pub mask: u8,
}

impl Pmc {
    /// The x86 `PERFEVTSEL` value this setup programs (EN and INT left to the kernel).
    ///
    /// ```
    /// use pfmlib_perf::{Pmc, PmcFlags};
    /// let p = Pmc { num: 0, event: 0xc0, unit: 0x01, flags: PmcFlags::USR | PmcFlags::E, mask: 2 };
    /// assert_eq!(p.perfevtsel().0, 0x0205_01c0 | 1 << 16 | 1 << 18);
    /// ```
    pub fn perfevtsel(&self) -> PerfEvtSel {
        let mut r = PerfEvtSel::default();
        r.set_event_select(u64::from(self.event));
        r.set_unit_mask(u64::from(self.unit));
        r.set_usr(u64::from(self.flags.contains(PmcFlags::USR)));
        r.set_os(u64::from(self.flags.contains(PmcFlags::OS)));
        r.set_edge(u64::from(self.flags.contains(PmcFlags::E)));
        r.set_inv(u64::from(self.flags.contains(PmcFlags::INV)));
        r.set_cmask(u64::from(self.mask));
        r
    }

    /// The raw perf event: `config` holds event, unit mask, E, INV and
    /// CMASK; USR and OS become `exclude_user` / `exclude_kernel`.
    pub fn perf_attr(&self) -> PerfAttr {
        let mut sel = self.perfevtsel();
        sel.set_usr(0);
        sel.set_os(0);
        PerfAttr::new(PERF_TYPE_RAW, sel.0)
            .exclude_user(!self.flags.contains(PmcFlags::USR))
            .exclude_kernel(!self.flags.contains(PmcFlags::OS))
            .exclude_hv(true)
    }
}

/// What a counter is set up to count: a raw setup, or (an extension of
/// perfmon(4)) any event string pfmlib encodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Setup {
    /// perfmon(4) raw setup.
    Raw(Pmc),
    /// An event string, for instance `task-clock` or `nhm::ARITH:MUL`.
    Event {
        /// Counter number.
        num: usize,
        /// The event string.
        event: String,
    },
}

impl Setup {
    /// The counter number.
    pub fn num(&self) -> usize {
        match self {
            Setup::Raw(p) => p.num,
            Setup::Event { num, .. } => *num,
        }
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Setup::Raw(p) => write!(
                f,
                "event={:#04x} unit={:#04x} flags={} mask={} (PERFEVTSEL {:#x})",
                p.event,
                p.unit,
                p.flags,
                p.mask,
                p.perfevtsel().0
            ),
            Setup::Event { event, .. } => write!(f, "event {event}"),
        }
    }
}

#[derive(Debug)]
struct Slot {
    setup: Setup,
    counter: Counter,
    running: bool,
}

/// The number of generic counters of the host's CPU (NPMC): the first
/// present core PMU's (pfmlib's host detection), else CPUID leaf 0xA's, else
/// the AMD core counters (6 from family 15h, 4 before), else 0.
pub fn host_npmc(lib: &Library) -> usize {
    if let Some(n) = lib
        .active_pmus()
        .map(|p| p.info())
        .find(|i| i.kind == PmuKind::Core && i.num_cntrs > 0)
        .map(|i| i.num_cntrs)
    {
        return n as usize;
    }
    let h = lib.host();
    if let Some(a) = h.arch_perfmon {
        if a.num_counters() > 0 {
            return a.num_counters() as usize;
        }
    }
    match h.vendor {
        Vendor::Amd if h.family >= 0x15 => 6,
        Vendor::Amd => 4,
        _ => 0,
    }
}

/// Most counters a device may have: each is a perf_events file
/// descriptor, and a process has about a thousand.
pub const MAX_NPMC: usize = 1024;

/// The counter device.
///
/// ```
/// use pfmlib_perf::{CounterDevice, Error};
/// let mut dev = CounterDevice::new();
/// assert!(matches!(dev.read(dev.npmc()), Err(Error::CounterOutOfRange { .. })));
/// if dev.npmc() > 0 {
///     assert!(matches!(dev.read(0), Err(Error::NotConfigured { num: 0 })));
/// }
/// ```
#[derive(Debug)]
pub struct CounterDevice {
    npmc: usize,
    target: Target,
    slots: Vec<Option<Slot>>,
}

impl Default for CounterDevice {
    fn default() -> Self {
        CounterDevice::new()
    }
}

impl CounterDevice {
    /// The device for the calling thread with the host's NPMC counters.
    pub fn new() -> CounterDevice {
        CounterDevice::with(host_npmc(Library::global()), Target::CallingThread)
    }

    /// A device with `npmc` counters (at most [`MAX_NPMC`]) counting `target`.
    pub fn with(npmc: usize, target: Target) -> CounterDevice {
        let npmc = npmc.min(MAX_NPMC);
        CounterDevice {
            npmc,
            target,
            slots: (0..npmc).map(|_| None).collect(),
        }
    }

    /// The number of counters.
    pub fn npmc(&self) -> usize {
        self.npmc
    }

    /// Whom the counters count.
    pub fn target(&self) -> Target {
        self.target
    }

    fn slot(&self, num: usize) -> Result<Option<&Slot>> {
        match self.slots.get(num) {
            Some(s) => Ok(s.as_ref()),
            None => Err(Error::CounterOutOfRange {
                num,
                npmc: self.npmc,
            }),
        }
    }

    fn configured(&self, num: usize) -> Result<&Slot> {
        self.slot(num)?.ok_or(Error::NotConfigured { num })
    }

    fn configured_mut(&mut self, num: usize) -> Result<&mut Slot> {
        let npmc = self.npmc;
        match self.slots.get_mut(num) {
            Some(Some(s)) => Ok(s),
            Some(None) => Err(Error::NotConfigured { num }),
            None => Err(Error::CounterOutOfRange { num, npmc }),
        }
    }

    fn check_settable(&self, num: usize) -> Result<()> {
        if let Some(s) = self.slot(num)? {
            if s.running {
                return Err(Error::Running {
                    num,
                    op: "setting it up again",
                });
            }
        }
        Ok(())
    }

    fn opts() -> Options {
        Options::default().enabled(false).user_page(true)
    }

    /// Sets counter `pmc.num` up (PMIOSETUP): stopped, count zero. A running
    /// counter must be stopped first; on failure the previous setup stays.
    pub fn setup(&mut self, pmc: &Pmc) -> Result<()> {
        let num = pmc.num;
        self.check_settable(num)?;
        if !pmc.flags.contains(PmcFlags::USR) && !pmc.flags.contains(PmcFlags::OS) {
            return Err(Error::InvalidSetup {
                num,
                reason: "neither USR nor OS is set: the counter would never count".into(),
            });
        }
        let name = format!("counter {num} (raw {:#x})", pmc.perf_attr().config);
        let counter =
            Counter::open_perf_attr(&name, &pmc.perf_attr(), None, self.target, &Self::opts())?;
        self.install(num, Setup::Raw(*pmc), counter);
        Ok(())
    }

    /// Sets counter `num` up with any event string pfmlib encodes
    /// (`task-clock`, `perf::cycles:u`, `nhm::ARITH:MUL`...).
    pub fn setup_event(&mut self, num: usize, event: &str) -> Result<()> {
        self.check_settable(num)?;
        let counter = Counter::open(event, self.target, &Self::opts())?;
        self.install(
            num,
            Setup::Event {
                num,
                event: event.to_string(),
            },
            counter,
        );
        Ok(())
    }

    fn install(&mut self, num: usize, setup: Setup, counter: Counter) {
        if let Some(s) = self.slots.get_mut(num) {
            *s = Some(Slot {
                setup,
                counter,
                running: false,
            });
        }
    }

    /// The setup of counter `num` (PMIOGET).
    pub fn get(&self, num: usize) -> Result<Setup> {
        Ok(self.configured(num)?.setup.clone())
    }

    /// True when counter `num` is started.
    pub fn is_running(&self, num: usize) -> Result<bool> {
        Ok(self.configured(num)?.running)
    }

    /// Starts counter `num` (PMIOSTART).
    pub fn start(&mut self, num: usize) -> Result<()> {
        let s = self.configured_mut(num)?;
        if s.running {
            return Err(Error::Running {
                num,
                op: "starting it again",
            });
        }
        s.counter.enable()?;
        s.running = true;
        Ok(())
    }

    /// Stops counter `num` (PMIOSTOP); the count is kept.
    pub fn stop(&mut self, num: usize) -> Result<()> {
        let s = self.configured_mut(num)?;
        if !s.running {
            return Err(Error::NotRunning { num });
        }
        s.counter.disable()?;
        s.running = false;
        Ok(())
    }

    /// Sets counter `num` to zero (PMIORESET); it must be stopped.
    pub fn reset(&mut self, num: usize) -> Result<()> {
        let s = self.configured_mut(num)?;
        if s.running {
            return Err(Error::Running {
                num,
                op: "resetting it",
            });
        }
        s.counter.reset()
    }

    /// The value of counter `num` (PMIOREAD), running or stopped, as a
    /// signed 64-bit number; through `rdpmc` when the kernel allows it for
    /// the calling thread, `read(2)` otherwise.
    pub fn read(&self, num: usize) -> Result<i64> {
        let (v, _) = self.configured(num)?.counter.read_value()?;
        Ok(i64::try_from(v).unwrap_or(i64::MAX))
    }

    /// The counter behind counter number `num`, for finer reads.
    pub fn counter(&self, num: usize) -> Result<&Counter> {
        Ok(&self.configured(num)?.counter)
    }

    /// The time-stamp counter and its approximate rate (PMIOTSTAMP).
    pub fn tstamp(&self) -> Result<Tstamp> {
        tstamp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfevtsel_fields() {
        let p = Pmc {
            num: 1,
            event: 0x3c,
            unit: 0x00,
            flags: PmcFlags::USR | PmcFlags::OS | PmcFlags::E | PmcFlags::INV,
            mask: 0xff,
        };
        let r = p.perfevtsel();
        assert_eq!(
            r.0,
            0xff00_0000 | 1 << 23 | 1 << 18 | 1 << 17 | 1 << 16 | 0x3c
        );
        let a = p.perf_attr();
        assert_eq!(a.type_, 4);
        assert_eq!(a.config, 0xff00_0000 | 1 << 23 | 1 << 18 | 0x3c);
        assert!(!a.exclude_user && !a.exclude_kernel && a.exclude_hv);
        let u = Pmc {
            flags: PmcFlags::USR,
            ..p
        };
        assert!(u.perf_attr().exclude_kernel && !u.perf_attr().exclude_user);
    }

    #[test]
    fn flags_parse_and_print() {
        assert_eq!(
            "USR|os".parse::<PmcFlags>(),
            Ok(PmcFlags::USR | PmcFlags::OS)
        );
        assert_eq!("none".parse::<PmcFlags>(), Ok(PmcFlags::empty()));
        assert!("usr,bogus".parse::<PmcFlags>().is_err());
        assert_eq!((PmcFlags::E | PmcFlags::INV).to_string(), "e,inv");
        assert_eq!(PmcFlags::from_bits(0x10), None);
        assert_eq!(PmcFlags::from_bits(0x0f).map(|f| f.bits()), Some(0x0f));
    }

    #[test]
    fn npmc_from_host() {
        use pfmlib::Host;
        let nhm = Library::with_host(Host::synthetic(Vendor::Intel, 6, 26));
        assert_eq!(host_npmc(&nhm), 4);
        let amd = Library::with_host(Host::synthetic(Vendor::Amd, 0x19, 1));
        assert_eq!(host_npmc(&amd), 6);
        let old_amd = Library::with_host(Host::synthetic(Vendor::Amd, 0x10, 1));
        assert_eq!(host_npmc(&old_amd), 4);
        assert_eq!(host_npmc(&Library::with_host(Host::none())), 0);
    }
}
