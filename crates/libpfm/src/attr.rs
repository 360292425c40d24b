//! The caller's `struct perf_event_attr` as bytes, in the kernel's layout
//! (which is ABI: fields never move, new ones are appended and the struct's
//! `size` says how many the caller knows). libpfm4 copies the caller's
//! structure in, sets the fields an encoding decides and copies it back, so
//! the caller's other fields survive; so do we.

use crate::abi::perf_event_attr as at;
pub(crate) use crate::abi::perf_event_attr::KNOWN as ATTR_KNOWN;

/// A `perf_event_attr` being filled.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct AttrBytes(pub [u8; ATTR_KNOWN]);

impl std::fmt::Debug for AttrBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "perf_event_attr {{ type: {}, config: {:#x}, config1: {:#x}, flags: {:#x} }}",
            self.type_(),
            self.config(),
            self.config1(),
            self.u64(at::FLAGS)
        )
    }
}

impl Default for AttrBytes {
    fn default() -> AttrBytes {
        AttrBytes([0; ATTR_KNOWN])
    }
}

impl AttrBytes {
    fn u32(&self, off: usize) -> u32 {
        let mut b = [0; 4];
        b.copy_from_slice(&self.0[off..off + 4]);
        u32::from_le_bytes(b)
    }

    fn set_u32(&mut self, off: usize, v: u32) {
        self.0[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn u64(&self, off: usize) -> u64 {
        let mut b = [0; 8];
        b.copy_from_slice(&self.0[off..off + 8]);
        u64::from_le_bytes(b)
    }

    fn set_u64(&mut self, off: usize, v: u64) {
        self.0[off..off + 8].copy_from_slice(&v.to_le_bytes());
    }

    fn bits(&self, bit: u32, width: u32) -> u64 {
        self.u64(at::FLAGS) >> bit & ((1 << width) - 1)
    }

    fn set_bits(&mut self, bit: u32, width: u32, v: u64) {
        let mask = ((1u64 << width) - 1) << bit;
        let w = self.u64(at::FLAGS) & !mask | (v << bit & mask);
        self.set_u64(at::FLAGS, w);
    }

    fn flag(&self, bit: u32) -> bool {
        self.bits(bit, 1) != 0
    }

    fn set_flag(&mut self, bit: u32, on: bool) {
        self.set_bits(bit, 1, u64::from(on));
    }

    /// `type`.
    pub fn type_(&self) -> u32 {
        self.u32(at::TYPE)
    }

    /// Sets `size`.
    pub fn set_size(&mut self, v: u32) {
        self.set_u32(at::SIZE, v)
    }

    /// `config`.
    pub fn config(&self) -> u64 {
        self.u64(at::CONFIG)
    }

    /// `config1`.
    pub fn config1(&self) -> u64 {
        self.u64(at::CONFIG1)
    }

    /// `config2`.
    pub fn config2(&self) -> u64 {
        self.u64(at::CONFIG2)
    }

    /// `sample_period` (or `sample_freq`).
    pub fn sample_period(&self) -> u64 {
        self.u64(at::SAMPLE_PERIOD)
    }

    /// `freq`.
    pub fn freq(&self) -> bool {
        self.flag(at::FREQ)
    }

    /// `precise_ip`.
    pub fn precise_ip(&self) -> u64 {
        self.bits(at::PRECISE_IP, 2)
    }

    /// `exclusive`.
    pub fn exclusive(&self) -> bool {
        self.flag(at::EXCLUSIVE)
    }

    /// `pinned`.
    pub fn pinned(&self) -> bool {
        self.flag(at::PINNED)
    }

    /// `exclude_user`, `exclude_kernel`, `exclude_hv`, `exclude_host`, `exclude_guest`.
    pub fn excludes(&self) -> [bool; 5] {
        [
            self.flag(at::EXCLUDE_USER),
            self.flag(at::EXCLUDE_KERNEL),
            self.flag(at::EXCLUDE_HV),
            self.flag(at::EXCLUDE_HOST),
            self.flag(at::EXCLUDE_GUEST),
        ]
    }

    /// Sets what an encoding decides, keeping the caller's other fields, as
    /// libpfm4 does: type, config and the exclude and pinned bits always;
    /// `config1`/`config2` when the event uses them; the sampling period or
    /// frequency, `precise_ip` and `exclusive` when the event string set
    /// them. A period given where the caller's structure already asks for
    /// a frequency (or the other way round) is refused, as in libpfm4:
    /// `PFM_ERR_ATTR_VAL`.
    pub fn apply(&mut self, p: &pfmlib::PerfAttr, set: pfmlib::PerfSettings) -> Result<(), i32> {
        if set.period && self.freq() || set.freq && self.sample_period() != 0 {
            return Err(crate::abi::PFM_ERR_ATTR_VAL);
        }
        self.set_u32(at::TYPE, p.type_);
        self.set_u64(at::CONFIG, p.config);
        if p.config1 != 0 {
            self.set_u64(at::CONFIG1, p.config1);
        }
        if p.config2 != 0 {
            self.set_u64(at::CONFIG2, p.config2);
        }
        if set.period || set.freq {
            self.set_u64(at::SAMPLE_PERIOD, p.sample_period);
        }
        if set.freq {
            self.set_flag(at::FREQ, true);
        }
        if set.precise {
            self.set_bits(at::PRECISE_IP, 2, u64::from(p.precise_ip));
        }
        if set.excl && p.exclusive {
            self.set_flag(at::EXCLUSIVE, true);
        }
        self.set_flag(at::EXCLUDE_USER, p.exclude_user);
        self.set_flag(at::EXCLUDE_KERNEL, p.exclude_kernel);
        self.set_flag(at::EXCLUDE_HV, p.exclude_hv);
        self.set_flag(at::EXCLUDE_HOST, p.exclude_host);
        self.set_flag(at::EXCLUDE_GUEST, p.exclude_guest);
        self.set_flag(at::PINNED, p.pinned);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_land_where_the_kernel_has_them() {
        let p = pfmlib::PerfAttr::new(4, 0x1234)
            .config1(7)
            .exclude_user(true)
            .exclude_guest(true)
            .precise_ip(3)
            .sample_period(99)
            .freq(true);
        let mut set = pfmlib::PerfSettings::default();
        set.freq = true;
        set.precise = true;
        let mut a = AttrBytes::default();
        a.apply(&p, set).unwrap();
        assert_eq!(&a.0[0..4], &[4, 0, 0, 0]);
        assert_eq!(a.config(), 0x1234);
        assert_eq!(a.config1(), 7);
        assert_eq!(a.sample_period(), 99);
        // freq (bit 10), precise_ip (bits 15-16), exclude_user (4), exclude_guest (20)
        assert_eq!(a.u64(at::FLAGS), 1 << 10 | 3 << 15 | 1 << 4 | 1 << 20);
        // A frequency where the caller's structure has a period already.
        let mut b = AttrBytes::default();
        b.set_u64(at::SAMPLE_PERIOD, 5);
        assert_eq!(b.apply(&p, set), Err(crate::abi::PFM_ERR_ATTR_VAL));
        // The caller's own fields stay.
        let mut c = AttrBytes::default();
        c.set_u64(24, 0xabc); // sample_type
        c.set_flag(0, true); // disabled
        c.apply(&p, pfmlib::PerfSettings::default()).unwrap();
        assert_eq!(c.u64(24), 0xabc);
        assert!(c.flag(0) && c.sample_period() == 0 && !c.freq());
    }
}
