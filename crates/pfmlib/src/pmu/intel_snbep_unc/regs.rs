//! Register layouts of the server uncore boxes: the counter control of
//! most boxes and of the PCU, and the filter registers whose fields the
//! modifiers set (Sandy Bridge-EP to Skylake-X).
//!
//! The layouts are complete (state and opcode fields included) though the
//! encoder writes only some fields: unit masks set the others as raw bits.
#![allow(dead_code)]

use crate::regs::register;

register! {
    /// Counter control of the C-Box/CHA, HA, IMC, QPI/UPI, R2PCIe, R3QPI,
    /// IRP, S-Box, U-Box, IIO, M2M, M3UPI, EDC and M2PCIe boxes.
    pub struct BoxCtl {
        /// Event select.
        event / set_event: 0 ..= 7,
        /// Unit mask.
        umask / set_umask: 8 ..= 15,
        /// Edge detect.
        edge / set_edge: 18 ..= 18,
        /// Thread/core filter enable (C-Box, CHA).
        tid_en / set_tid_en: 19 ..= 19,
        /// Invert the threshold comparison.
        inv / set_inv: 23 ..= 23,
        /// Threshold (counter mask), 8 bits.
        thres / set_thres: 24 ..= 31,
    }
}

register! {
    /// Counter control of the power control unit (PCU).
    pub struct PcuCtl {
        /// Event select.
        event / set_event: 0 ..= 7,
        /// Occupancy counter select (occupancy events).
        occ_sel / set_occ_sel: 14 ..= 15,
        /// Threshold, 5 bits.
        thres / set_thres: 24 ..= 28,
        /// Invert the occupancy comparison.
        occ_inv / set_occ_inv: 30 ..= 30,
        /// Edge detect on the occupancy count.
        occ_edge / set_occ_edge: 31 ..= 31,
    }
}

register! {
    /// Counter control of the Ice Lake-SP PCU (`t`, `occ_i`, `occ_e`).
    pub struct IcxPcuCtl {
        /// Event select.
        event / set_event: 0 ..= 7,
        /// Unit mask.
        umask / set_umask: 8 ..= 15,
        /// Edge detect.
        edge / set_edge: 18 ..= 18,
        /// Thread filter enable.
        tid_en / set_tid_en: 19 ..= 19,
        /// Invert the threshold comparison.
        inv / set_inv: 23 ..= 23,
        /// Threshold, 6 bits.
        thres / set_thres: 24 ..= 29,
        /// Invert the occupancy comparison.
        occ_inv / set_occ_inv: 30 ..= 30,
        /// Edge detect on the occupancy count.
        occ_edge / set_occ_edge: 31 ..= 31,
    }
}

register! {
    /// Counter control of the Ice Lake-SP CHA: the unit mask goes on
    /// above the threshold (unit-mask codes wider than 8 bits land there).
    pub struct IcxChaCtl {
        /// Event select.
        event / set_event: 0 ..= 7,
        /// Unit mask.
        umask / set_umask: 8 ..= 15,
        /// Edge detect.
        edge / set_edge: 18 ..= 18,
        /// Thread filter enable.
        tid_en / set_tid_en: 19 ..= 19,
        /// Invert the threshold comparison.
        inv / set_inv: 23 ..= 23,
        /// Threshold, 8 bits.
        thres / set_thres: 24 ..= 31,
        /// Extended unit mask, 26 bits.
        umask_ext / set_umask_ext: 32 ..= 57,
    }
}

register! {
    /// Counter control of the Ice Lake-SP M2M: a second unit-mask byte
    /// above the threshold.
    pub struct IcxM2mCtl {
        /// Event select.
        event / set_event: 0 ..= 7,
        /// Unit mask.
        umask / set_umask: 8 ..= 15,
        /// Edge detect.
        edge / set_edge: 18 ..= 18,
        /// Invert the threshold comparison.
        inv / set_inv: 23 ..= 23,
        /// Threshold, 8 bits.
        thres / set_thres: 24 ..= 31,
        /// Second unit-mask byte.
        umask2 / set_umask2: 32 ..= 39,
    }
}

register! {
    /// Sandy Bridge-EP C-Box filter.
    pub struct SnbepCboFilter {
        /// Hardware thread.
        tid / set_tid: 0 ..= 0,
        /// Core id (3 bits).
        cid / set_cid: 1 ..= 3,
        /// Node id mask.
        nid / set_nid: 10 ..= 17,
        /// Cache line state.
        state / set_state: 18 ..= 22,
        /// Opcode.
        opc / set_opc: 23 ..= 31,
    }
}

register! {
    /// Ivy Bridge-EP to Broadwell-X C-Box filter 1.
    pub struct CboFilter1 {
        /// Node id mask.
        nid / set_nid: 0 ..= 15,
        /// Opcode.
        opc / set_opc: 20 ..= 28,
        /// Non-coherent requests.
        nc / set_nc: 30 ..= 30,
        /// Isochronous requests.
        isoc / set_isoc: 31 ..= 31,
    }
}

register! {
    /// Haswell-EP and Broadwell-X C-Box filter 0 (the core id field of
    /// Ivy Bridge-EP is its low part).
    pub struct HswepCboFilter0 {
        /// Hardware thread.
        tid / set_tid: 0 ..= 0,
        /// Core id (5 bits).
        cid / set_cid: 1 ..= 5,
        /// Cache line state.
        state / set_state: 17 ..= 23,
    }
}

register! {
    /// Skylake-X CHA filter 0.
    pub struct SkxChaFilter0 {
        /// Hardware thread.
        tid / set_tid: 0 ..= 2,
        /// Source (core) id.
        sid / set_sid: 3 ..= 8,
        /// Cache line state.
        state / set_state: 17 ..= 26,
    }
}

register! {
    /// Skylake-X CHA filter 1.
    pub struct SkxChaFilter1 {
        /// Remote node target.
        rem / set_rem: 0 ..= 0,
        /// Local node target.
        loc / set_loc: 1 ..= 1,
        /// Match every opcode.
        all_opc / set_all_opc: 3 ..= 3,
        /// Near-memory cacheable.
        nm / set_nm: 4 ..= 4,
        /// Not near-memory cacheable.
        not_nm / set_not_nm: 5 ..= 5,
        /// First opcode.
        opc0 / set_opc0: 9 ..= 18,
        /// Second opcode.
        opc1 / set_opc1: 19 ..= 28,
        /// Non-coherent requests.
        nc / set_nc: 30 ..= 30,
        /// Isochronous requests.
        isoc / set_isoc: 31 ..= 31,
    }
}

register! {
    /// Skylake-X UPI basic header filter (the node id fields).
    pub struct SkxUpiFilter {
        /// Destination node id.
        dnid / set_dnid: 8 ..= 11,
        /// Match the destination node id.
        en_dnid / set_en_dnid: 13 ..= 13,
        /// RCS node id.
        rcsnid / set_rcsnid: 14 ..= 17,
        /// Match the RCS node id.
        en_rcsnid / set_en_rcsnid: 18 ..= 18,
    }
}

register! {
    /// Home agent address match register.
    pub struct HaAddrMatch {
        /// Address bits 6-31 (the low 26 bits of the value given).
        lo / set_lo: 6 ..= 31,
        /// The next 14 bits of the value given.
        hi / set_hi: 32 ..= 45,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_sit_where_libpfm4_puts_them() {
        let mut c = BoxCtl::default();
        c.set_tid_en(1);
        c.set_thres(0xff);
        assert_eq!(c.0, 0xff08_0000);
        let mut p = PcuCtl::default();
        p.set_occ_sel(3);
        p.set_thres(0x1f);
        p.set_occ_edge(1);
        assert_eq!(p.0, 0x9f00_c000);
        let mut f = SkxChaFilter1::default();
        f.set_opc1(0x3ff);
        f.set_isoc(1);
        assert_eq!(f.0, 0x9ff8_0000);
        let mut p = IcxPcuCtl::default();
        p.set_thres(0x3f);
        p.set_occ_inv(1);
        assert_eq!(p.0, 0x7f00_0000);
        // A unit mask wider than 8 bits spills into umask_ext.
        let c = IcxChaCtl(0x0001_ffff_0000_ff00 | 0x35);
        assert_eq!(
            (c.event(), c.umask(), c.umask_ext()),
            (0x35, 0xff, 0x1_ffff)
        );
        let mut m = IcxM2mCtl::default();
        m.set_umask2(0xff);
        assert_eq!(m.0, 0xff_0000_0000);
        let mut a = HaAddrMatch::default();
        a.set_lo(0x3ff_ffff);
        a.set_hi(0x3fff);
        assert_eq!(a.0, 0x3fff_ffff_ffc0);
    }
}
