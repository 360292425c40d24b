//! Typed register layouts: one place that knows where each field lives.

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
