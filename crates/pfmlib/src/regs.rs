//! Typed register layouts: one place that knows where each field lives.
//!
//! ```
//! let mut r = pfmlib::regs::PerfEvtSel::default();
//! r.set_event_select(0xc0);
//! r.set_usr(1);
//! assert_eq!(r.0, 0x100c0);
//! ```

/// Declares a register type over a `u64` with named bit fields.
///
/// Each field gets a getter `name()` and a setter `set_name(v)`; values wider
/// than the field are truncated to it, as the hardware would.
macro_rules! register {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fmeta:meta])* $field:ident / $setter:ident : $lo:literal ..= $hi:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
        $vis struct $name(pub u64);

        impl $name {
            $(
                $(#[$fmeta])*
                #[inline]
                pub fn $field(&self) -> u64 {
                    const WIDTH: u32 = $hi - $lo + 1;
                    (self.0 >> $lo) & (u64::MAX >> (64 - WIDTH))
                }

                #[doc = concat!("Sets the `", stringify!($field), "` field (bits ", stringify!($lo), "..=", stringify!($hi), ").")]
                #[inline]
                pub fn $setter(&mut self, v: u64) {
                    const WIDTH: u32 = $hi - $lo + 1;
                    let mask = (u64::MAX >> (64 - WIDTH)) << $lo;
                    self.0 = (self.0 & !mask) | ((v << $lo) & mask);
                }
            )*
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let mut s = f.debug_struct(stringify!($name));
                s.field("raw", &format_args!("{:#x}", self.0));
                $( s.field(stringify!($field), &self.$field()); )*
                s.finish()
            }
        }
    };
}

#[allow(unused_imports)]
pub(crate) use register;

register! {
    /// Intel `IA32_PERFEVTSELx` (and the AMD `PERF_CTL` low half): one generic counter's control.
    pub struct PerfEvtSel {
        /// Event select.
        event_select / set_event_select: 0 ..= 7,
        /// Unit mask.
        unit_mask / set_unit_mask: 8 ..= 15,
        /// Count at privilege levels 1-3 (USR).
        usr / set_usr: 16 ..= 16,
        /// Count at privilege level 0 (OS).
        os / set_os: 17 ..= 17,
        /// Edge detect (E).
        edge / set_edge: 18 ..= 18,
        /// Pin control (PC).
        pc / set_pc: 19 ..= 19,
        /// APIC interrupt on overflow (INT).
        int / set_int: 20 ..= 20,
        /// Count events of both hardware threads of the core (AnyThread, v3+).
        any_thread / set_any_thread: 21 ..= 21,
        /// Counter enable (EN).
        en / set_en: 22 ..= 22,
        /// Invert the counter-mask comparison (INV).
        inv / set_inv: 23 ..= 23,
        /// Counter mask (CMASK): threshold on events per cycle.
        cmask / set_cmask: 24 ..= 31,
        /// Count only inside a transactional region (IN_TX).
        intx / set_intx: 32 ..= 32,
        /// Exclude aborted transactional regions (IN_TXCP).
        intxcp / set_intxcp: 33 ..= 33,
    }
}

register! {
    /// `IA32_FIXED_CTR_CTRL`: four control bits per fixed counter.
    pub struct FixedCtrCtrl {
        /// Fixed counter 0: count at ring 0.
        os0 / set_os0: 0 ..= 0,
        /// Fixed counter 0: count at rings 1-3.
        usr0 / set_usr0: 1 ..= 1,
        /// Fixed counter 0: any thread.
        any0 / set_any0: 2 ..= 2,
        /// Fixed counter 0: interrupt on overflow.
        pmi0 / set_pmi0: 3 ..= 3,
    }
}

register! {
    /// `MSR_LBR_SELECT`: each set bit drops a kind of branch from the LBR.
    pub struct LbrSelect {
        /// Drop branches ending at ring 0.
        cpl_eq_0 / set_cpl_eq_0: 0 ..= 0,
        /// Drop branches ending at rings 1-3.
        cpl_neq_0 / set_cpl_neq_0: 1 ..= 1,
        /// Drop conditional branches.
        jcc / set_jcc: 2 ..= 2,
        /// Drop near relative calls.
        near_rel_call / set_near_rel_call: 3 ..= 3,
        /// Drop near indirect calls.
        near_ind_call / set_near_ind_call: 4 ..= 4,
        /// Drop near returns.
        near_ret / set_near_ret: 5 ..= 5,
        /// Drop near indirect jumps.
        near_ind_jmp / set_near_ind_jmp: 6 ..= 6,
        /// Drop near relative jumps.
        near_rel_jmp / set_near_rel_jmp: 7 ..= 7,
        /// Drop far branches.
        far_branch / set_far_branch: 8 ..= 8,
    }
}

register! {
    /// `MSR_UNCORE_PERFEVTSELx`: one uncore generic counter's control.
    pub struct UncPerfEvtSel {
        /// Event select.
        event_select / set_event_select: 0 ..= 7,
        /// Unit mask.
        unit_mask / set_unit_mask: 8 ..= 15,
        /// Reset the queue occupancy counter.
        occ_rst / set_occ_rst: 17 ..= 17,
        /// Edge detect.
        edge / set_edge: 18 ..= 18,
        /// Interrupt on overflow.
        pmi / set_pmi: 20 ..= 20,
        /// Enable.
        en / set_en: 22 ..= 22,
        /// Invert.
        inv / set_inv: 23 ..= 23,
        /// Counter mask.
        cmask / set_cmask: 24 ..= 31,
    }
}

register! {
    /// AMD `PERF_CTLx` (family 10h and later): one core counter's control.
    pub struct AmdPerfCtl {
        /// Event select, bits 7:0.
        event_lo / set_event_lo: 0 ..= 7,
        /// Unit mask.
        unit_mask / set_unit_mask: 8 ..= 15,
        /// Count at user level.
        usr / set_usr: 16 ..= 16,
        /// Count at kernel level.
        os / set_os: 17 ..= 17,
        /// Edge detect.
        edge / set_edge: 18 ..= 18,
        /// Interrupt on overflow.
        int / set_int: 20 ..= 20,
        /// Enable.
        en / set_en: 22 ..= 22,
        /// Invert the counter-mask comparison.
        inv / set_inv: 23 ..= 23,
        /// Counter mask.
        cmask / set_cmask: 24 ..= 31,
        /// Event select, bits 11:8.
        event_hi / set_event_hi: 32 ..= 35,
        /// Count only while a guest runs.
        guest_only / set_guest_only: 40 ..= 40,
        /// Count only while the host runs.
        host_only / set_host_only: 41 ..= 41,
    }
}

register! {
    /// Itanium / Itanium 2 generic counting monitor `PMC4`-`PMC7`.
    pub struct Ia64Pmc {
        /// Privilege-level mask (bit n = level n).
        plm / set_plm: 0 ..= 3,
        /// External visibility (EV).
        ev / set_ev: 4 ..= 4,
        /// Overflow interrupt (OI).
        oi / set_oi: 5 ..= 5,
        /// Privileged monitor: system-wide (PM).
        pm / set_pm: 6 ..= 6,
        /// Event select (ES; 7 bits used on Itanium, 8 on Itanium 2).
        es / set_es: 8 ..= 15,
        /// Unit mask.
        umask / set_umask: 16 ..= 19,
        /// Threshold: count only cycles with more than this many occurrences.
        thres / set_thres: 20 ..= 22,
        /// Instruction-set mask (Itanium: 0 both, 1 IA-32 only, 2 IA-64 only).
        ism / set_ism: 24 ..= 25,
    }
}

register! {
    /// Montecito generic counting monitor `PMC4`-`PMC15`.
    pub struct MontPmc {
        /// Privilege-level mask (bit n = level n).
        plm / set_plm: 0 ..= 3,
        /// External visibility (EV).
        ev / set_ev: 4 ..= 4,
        /// Overflow interrupt (OI).
        oi / set_oi: 5 ..= 5,
        /// Privileged monitor: system-wide (PM).
        pm / set_pm: 6 ..= 6,
        /// Event select (ES).
        es / set_es: 8 ..= 15,
        /// Unit mask.
        umask / set_umask: 16 ..= 19,
        /// Threshold: count only cycles with more than this many occurrences.
        thres / set_thres: 20 ..= 22,
        /// Instruction-set mask field; libpfm-3 always programs 2 here.
        ism / set_ism: 24 ..= 25,
        /// Count for both hardware threads (`.all`).
        all / set_all: 26 ..= 26,
        /// MESI qualifier: Invalid, Shared, Exclusive, Modified (bits 27-30).
        mesi / set_mesi: 27 ..= 30,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfevtsel_fields_sit_where_the_sdm_says() {
        type Setter = fn(&mut PerfEvtSel, u64);
        let cases: [(Setter, u64); 13] = [
            (PerfEvtSel::set_event_select, 0xff),
            (PerfEvtSel::set_unit_mask, 0xff << 8),
            (PerfEvtSel::set_usr, 1 << 16),
            (PerfEvtSel::set_os, 1 << 17),
            (PerfEvtSel::set_edge, 1 << 18),
            (PerfEvtSel::set_pc, 1 << 19),
            (PerfEvtSel::set_int, 1 << 20),
            (PerfEvtSel::set_any_thread, 1 << 21),
            (PerfEvtSel::set_en, 1 << 22),
            (PerfEvtSel::set_inv, 1 << 23),
            (PerfEvtSel::set_cmask, 0xff << 24),
            (PerfEvtSel::set_intx, 1 << 32),
            (PerfEvtSel::set_intxcp, 1 << 33),
        ];
        for (set, bits) in cases {
            let mut r = PerfEvtSel::default();
            set(&mut r, u64::MAX);
            assert_eq!(r.0, bits);
        }
        let r = PerfEvtSel(0x5300c0);
        assert_eq!(
            (r.event_select(), r.usr(), r.os(), r.en(), r.int()),
            (0xc0, 1, 1, 1, 1)
        );
    }
}
