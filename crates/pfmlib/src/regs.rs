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
        /// Equal (EQ, architectural perfmon v6): count cycles whose
        /// occurrences equal the counter mask instead of reaching it.
        eq / set_eq: 36 ..= 36,
        /// Second unit mask (UMASK2, the vendor lists' `UMaskExt`).
        umask2 / set_umask2: 40 ..= 47,
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

register! {
    /// Itanium `PMC10` / `PMC11`: instruction / data EAR configuration.
    pub struct ItaEarCfg {
        /// Privilege-level mask.
        plm / set_plm: 0 ..= 3,
        /// Privileged monitor (system-wide).
        pm / set_pm: 6 ..= 6,
        /// Mode: 0 cache, 1 TLB.
        tlb / set_tlb: 7 ..= 7,
        /// Unit mask (latency or TLB filter).
        umask / set_umask: 16 ..= 19,
        /// Instruction-set mask.
        ism / set_ism: 24 ..= 25,
        /// D-EAR only: 1 ignores the data address range (no range restriction).
        pt / set_pt: 28 ..= 28,
    }
}

register! {
    /// Itanium `PMC12`: branch trace buffer configuration.
    pub struct ItaBtbCfg {
        /// Privilege-level mask.
        plm / set_plm: 0 ..= 3,
        /// Privileged monitor (system-wide).
        pm / set_pm: 6 ..= 6,
        /// Capture target-address-register hits.
        tar / set_tar: 7 ..= 7,
        /// Taken mask.
        tm / set_tm: 8 ..= 9,
        /// Predicted-target mask.
        ptm / set_ptm: 10 ..= 11,
        /// Predicted-path mask.
        ppm / set_ppm: 12 ..= 13,
        /// Capture target-address-cache predictions.
        tac / set_tac: 14 ..= 14,
        /// Capture branch-address-calculator predictions.
        bac / set_bac: 15 ..= 15,
    }
}

register! {
    /// Itanium 2 `PMC10` / Montecito `PMC37`: instruction EAR configuration.
    /// Cache mode uses an 8-bit latency unit mask and sets `ct` bit 13; TLB
    /// mode a 7-bit unit mask with bits 12-13 clear.
    pub struct Ita2IearCfg {
        /// Privilege-level mask.
        plm / set_plm: 0 ..= 3,
        /// Privileged monitor (system-wide).
        pm / set_pm: 4 ..= 4,
        /// TLB-mode unit mask.
        tlb_umask / set_tlb_umask: 5 ..= 11,
        /// Cache-mode unit mask (latency).
        cache_umask / set_cache_umask: 5 ..= 12,
        /// Cache/TLB select: 1 cache mode.
        ct / set_ct: 13 ..= 13,
        /// Instruction-set mask (Itanium 2 only).
        ism / set_ism: 14 ..= 15,
    }
}

register! {
    /// Itanium 2 `PMC11` / Montecito `PMC40`: data EAR configuration.
    pub struct Ita2DearCfg {
        /// Privilege-level mask.
        plm / set_plm: 0 ..= 3,
        /// Privileged monitor (system-wide).
        pm / set_pm: 6 ..= 6,
        /// Mode: 0 cache, 1 TLB, 2 ALAT.
        mode / set_mode: 7 ..= 8,
        /// Unit mask (latency or TLB filter).
        umask / set_umask: 16 ..= 19,
        /// Instruction-set mask (Montecito: always 2, IA-64).
        ism / set_ism: 24 ..= 25,
    }
}

register! {
    /// Itanium 2 `PMC12` branch trace buffer / Montecito `PMC39` execution
    /// trace buffer configuration.
    pub struct Ita2BtbCfg {
        /// Privilege-level mask.
        plm / set_plm: 0 ..= 3,
        /// Privileged monitor (system-wide).
        pm / set_pm: 6 ..= 6,
        /// Data selector (Itanium 2; 0 on Montecito).
        ds / set_ds: 7 ..= 7,
        /// Taken mask.
        tm / set_tm: 8 ..= 9,
        /// Predicted-target mask.
        ptm / set_ptm: 10 ..= 11,
        /// Predicted-path mask.
        ppm / set_ppm: 12 ..= 13,
        /// Branch type.
        brt / set_brt: 14 ..= 15,
    }
}

register! {
    /// Itanium 2 `PMC14` / Montecito `PMC38`: code range configuration
    /// (neutral value 0xdb6: every IBR pair ignored).
    pub struct IbrCfg {
        /// Ignore IBR pair 0.
        ig_ibrp0 / set_ig_ibrp0: 1 ..= 1,
        /// Ignore IBR pair 1.
        ig_ibrp1 / set_ig_ibrp1: 4 ..= 4,
        /// Ignore IBR pair 2.
        ig_ibrp2 / set_ig_ibrp2: 7 ..= 7,
        /// Ignore IBR pair 3.
        ig_ibrp3 / set_ig_ibrp3: 10 ..= 10,
        /// Fine mode.
        fine / set_fine: 13 ..= 13,
    }
}

register! {
    /// Itanium 2 `PMC13` / Montecito `PMC41`: data and code range tagging
    /// (neutral value 0x2078fefefefe).
    pub struct DbrCfg {
        /// Tag configuration of pair 0.
        cfg_dtag0 / set_cfg_dtag0: 3 ..= 4,
        /// Tag configuration of pair 1.
        cfg_dtag1 / set_cfg_dtag1: 11 ..= 12,
        /// Tag configuration of pair 2.
        cfg_dtag2 / set_cfg_dtag2: 19 ..= 20,
        /// Tag configuration of pair 3.
        cfg_dtag3 / set_cfg_dtag3: 27 ..= 28,
        /// Enable pair 0.
        ena_dbrp0 / set_ena_dbrp0: 45 ..= 45,
        /// Enable pair 1.
        ena_dbrp1 / set_ena_dbrp1: 46 ..= 46,
        /// Enable pair 2.
        ena_dbrp2 / set_ena_dbrp2: 47 ..= 47,
        /// Enable pair 3.
        ena_dbrp3 / set_ena_dbrp3: 48 ..= 48,
    }
}

register! {
    /// Itanium 2 `PMC8` / `PMC9` opcode matcher control bits (the rest of the
    /// value is the user's raw match/mask).
    pub struct Ita2Opcm {
        /// Ignore the address range (1: no range restriction).
        ig_ad / set_ig_ad: 0 ..= 0,
        /// Invert the range.
        inv / set_inv: 1 ..= 1,
        /// Always 1 when programmed by the library.
        enable / set_enable: 2 ..= 2,
    }
}

register! {
    /// Montecito `PMC32` / `PMC34`: opcode matcher mask and slots.
    pub struct MontOpcmMask {
        /// 41-bit mask (a set bit ignores that opcode bit).
        mask / set_mask: 0 ..= 40,
        /// Match B slots.
        b / set_b: 48 ..= 48,
        /// Match F slots.
        f / set_f: 49 ..= 49,
        /// Match I slots.
        i / set_i: 50 ..= 50,
        /// Match M slots.
        m / set_m: 51 ..= 51,
        /// Invert the code range.
        inv / set_inv: 56 ..= 56,
        /// Ignore the address range.
        ig_ad / set_ig_ad: 57 ..= 57,
    }
}

register! {
    /// Montecito `PMC33` / `PMC35`: opcode to match.
    pub struct MontOpcmMatch {
        /// 41-bit opcode.
        match_ / set_match: 0 ..= 40,
    }
}

register! {
    /// Montecito `PMC42`: IP-EAR configuration (ETB in IP-EAR mode).
    pub struct MontIpearCfg {
        /// Privilege-level mask.
        plm / set_plm: 0 ..= 3,
        /// Privileged monitor (system-wide).
        pm / set_pm: 6 ..= 6,
        /// Mode: 4 = IP-EAR.
        mode / set_mode: 8 ..= 10,
        /// Freeze delay in cycles.
        delay / set_delay: 11 ..= 18,
    }
}

register! {
    /// The mask half of an IA-64 debug-register pair (`IBR`/`DBR` odd
    /// register): address mask bits 0-55, privilege levels 56-59.
    pub struct DbrMask {
        /// Address mask: a set bit must match.
        mask / set_mask: 0 ..= 55,
        /// Privilege-level mask.
        plm / set_plm: 56 ..= 59,
    }
}

impl FixedCtrCtrl {
    /// Moves counter 0's fields (`os0`, `usr0`, `any0`, `pmi0`) to fixed
    /// counter `n`: each counter has four bits, counter `n` at bit `4 * n`.
    pub fn for_counter(self, n: u32) -> FixedCtrCtrl {
        FixedCtrCtrl(self.0 << (4 * n))
    }
}

register! {
    /// `IA32_PERF_GLOBAL_CTRL`: one enable bit per counter.
    pub struct PerfGlobalCtrl {
        /// Generic counter n enabled (bit n).
        pmc_en / set_pmc_en: 0 ..= 3,
        /// Fixed counter n enabled (bit 32 + n).
        fixed_en / set_fixed_en: 32 ..= 34,
    }
}

register! {
    /// `IA32_PEBS_ENABLE` (Nehalem, Westmere).
    pub struct PebsEnable {
        /// PEBS on generic counter n (bit n).
        pebs_en / set_pebs_en: 0 ..= 3,
        /// Load-latency filtering on generic counter n (bit 32 + n).
        ld_lat_en / set_ld_lat_en: 32 ..= 35,
    }
}

register! {
    /// `MSR_PEBS_FRONTEND` (Skylake and later): what the precise front-end
    /// event `FRONTEND_RETIRED` tags.
    pub struct PebsFrontend {
        /// Front-end event: DSB, L1I, L2, ITLB or STLB miss, or the IDQ bubble mode.
        evtsel / set_evtsel: 0 ..= 7,
        /// IDQ bubble mode: the run of bubble cycles that must precede (`fe_thres`).
        idq_bubble_length / set_idq_bubble_length: 8 ..= 19,
        /// IDQ bubble mode: issue slots left empty per cycle (1 to 4).
        idq_bubble_width / set_idq_bubble_width: 20 ..= 22,
    }
}

register! {
    /// `MSR_UNCORE_PERF_GLOBAL_CTRL`: one enable bit per uncore counter.
    pub struct UncPerfGlobalCtrl {
        /// Uncore generic counter n enabled (bit n).
        pmc_en / set_pmc_en: 0 ..= 7,
        /// Uncore fixed counter enabled.
        fixed_en / set_fixed_en: 32 ..= 32,
    }
}

register! {
    /// `MSR_UNCORE_FIXED_CTR_CTRL`.
    pub struct UncFixedCtrCtrl {
        /// Enable.
        en / set_en: 0 ..= 0,
        /// Interrupt on overflow.
        pmi / set_pmi: 2 ..= 2,
    }
}

impl IbrCfg {
    /// The "ignore" bit of IBR pair `k` (0-3).
    pub fn ig_ibrp(&self, k: u32) -> u64 {
        match k {
            0 => self.ig_ibrp0(),
            1 => self.ig_ibrp1(),
            2 => self.ig_ibrp2(),
            _ => self.ig_ibrp3(),
        }
    }

    /// Sets the "ignore" bit of IBR pair `k` (0-3).
    pub fn set_ig_ibrp(&mut self, k: u32, v: u64) {
        match k {
            0 => self.set_ig_ibrp0(v),
            1 => self.set_ig_ibrp1(v),
            2 => self.set_ig_ibrp2(v),
            _ => self.set_ig_ibrp3(v),
        }
    }
}

impl DbrCfg {
    /// Sets pair `k` (0-3): its enable bit and its tag configuration.
    pub fn set_pair(&mut self, k: u32, ena: u64, cfg: u64) {
        match k {
            0 => {
                self.set_ena_dbrp0(ena);
                self.set_cfg_dtag0(cfg);
            }
            1 => {
                self.set_ena_dbrp1(ena);
                self.set_cfg_dtag1(cfg);
            }
            2 => {
                self.set_ena_dbrp2(ena);
                self.set_cfg_dtag2(cfg);
            }
            _ => {
                self.set_ena_dbrp3(ena);
                self.set_cfg_dtag3(cfg);
            }
        }
    }
}

register! {
    /// Itanium 2 `PMC15` / Montecito `PMC36`: per IBR pair, whether the
    /// opcode matcher is ignored (neutral value: all ignored).
    pub struct OpcmChannels {
        /// IBR pair 0 ignores its matcher.
        ig_opcm0 / set_ig_opcm0: 0 ..= 0,
        /// IBR pair 1 ignores its matcher.
        ig_opcm1 / set_ig_opcm1: 1 ..= 1,
        /// IBR pair 2 ignores its matcher.
        ig_opcm2 / set_ig_opcm2: 2 ..= 2,
        /// IBR pair 3 ignores its matcher.
        ig_opcm3 / set_ig_opcm3: 3 ..= 3,
    }
}

impl OpcmChannels {
    /// Sets the "ignore matcher" bit of IBR pair `k` (0-3).
    pub fn set_ig_opcm(&mut self, k: u32, v: u64) {
        match k {
            0 => self.set_ig_opcm0(v),
            1 => self.set_ig_opcm1(v),
            2 => self.set_ig_opcm2(v),
            _ => self.set_ig_opcm3(v),
        }
    }
}

register! {
    /// Netburst (Pentium 4) `ESCR`: the event selection control register
    /// one event is programmed in (SDM vol. 3B, Pentium 4 performance
    /// monitoring).
    pub struct NetburstEscr {
        /// Thread 1: count at privilege levels 1-3.
        t1_usr / set_t1_usr: 0 ..= 0,
        /// Thread 1: count at privilege level 0.
        t1_os / set_t1_os: 1 ..= 1,
        /// Thread 0: count at privilege levels 1-3.
        t0_usr / set_t0_usr: 2 ..= 2,
        /// Thread 0: count at privilege level 0.
        t0_os / set_t0_os: 3 ..= 3,
        /// Tag the micro-ops that match (for the retirement events).
        tag_enable / set_tag_enable: 4 ..= 4,
        /// Tag value, one bit per tag.
        tag_value / set_tag_value: 5 ..= 8,
        /// Event mask: which sub-events are counted.
        event_mask / set_event_mask: 9 ..= 24,
        /// Event select.
        event_select / set_event_select: 25 ..= 30,
    }
}

register! {
    /// Netburst (Pentium 4) `CCCR`: the counter configuration control
    /// register of the counter an ESCR feeds.
    pub struct NetburstCccr {
        /// Counter enable.
        enable / set_enable: 12 ..= 12,
        /// Which of the counter's ESCRs feeds it.
        escr_select / set_escr_select: 13 ..= 15,
        /// Logical-processor activity counted (3: either).
        active_thread / set_active_thread: 16 ..= 17,
        /// Compare the per-cycle count with the threshold.
        compare / set_compare: 18 ..= 18,
        /// Complement: count when at most the threshold (instead of above it).
        complement / set_complement: 19 ..= 19,
        /// Threshold for the comparison.
        threshold / set_threshold: 20 ..= 23,
        /// Count rising edges of the comparison output.
        edge / set_edge: 24 ..= 24,
        /// Interrupt on every increment.
        force_ovf / set_force_ovf: 25 ..= 25,
        /// Interrupt logical processor 0 on overflow.
        ovf_pmi_t0 / set_ovf_pmi_t0: 26 ..= 26,
        /// Interrupt logical processor 1 on overflow.
        ovf_pmi_t1 / set_ovf_pmi_t1: 27 ..= 27,
        /// Cascade from the alternate counter.
        cascade / set_cascade: 30 ..= 30,
        /// The counter overflowed.
        overflow / set_overflow: 31 ..= 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pebs_frontend_fields() {
        // skl FRONTEND_RETIRED:IDQ_4_BUBBLES with fe_thres=16.
        let mut r = PebsFrontend(0x40_0006);
        assert_eq!(
            (r.evtsel(), r.idq_bubble_length(), r.idq_bubble_width()),
            (6, 0, 4)
        );
        r.set_idq_bubble_length(16);
        assert_eq!(r.0, 0x40_1006);
        r.set_idq_bubble_length(0x1fff);
        assert_eq!(r.idq_bubble_length(), 0xfff);
    }

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
