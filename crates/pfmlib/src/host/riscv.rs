//! The identity of a RISC-V host's first hart, from `/proc/cpuinfo`: the
//! `mvendorid`, `marchid` and `mimpid` lines Linux writes for each hart
//! (`0x%lx`, from the machine-mode CSRs through SBI), as perf reads them to
//! choose its event list (`tools/perf/arch/riscv/util/header.c`).

/// The machine-mode identity registers of one hart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RiscvIds {
    /// `mvendorid`: the JEDEC manufacturer id of the core's provider (bank
    /// number in bits 7 and up, id within the bank below), 0: unknown.
    pub mvendorid: u64,
    /// `marchid`: the base microarchitecture (bit 63 set for commercial
    /// designs), 0: unknown.
    pub marchid: u64,
    /// `mimpid`: the version of the implementation, 0: unknown.
    pub mimpid: u64,
}

/// The three identity lines of the first hart (the first block, up to an
/// empty line) of a `/proc/cpuinfo` text; `None` unless all three are
/// there and read as hexadecimal (`0x...`) or decimal numbers.
pub(crate) fn ids_from_cpuinfo(text: &str) -> Option<RiscvIds> {
    let block = text.split("\n\n").next().unwrap_or_default();
    let field = |key: &str| {
        block.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| number(v.trim())).flatten()
        })
    };
    Some(RiscvIds {
        mvendorid: field("mvendorid")?,
        marchid: field("marchid")?,
        mimpid: field("mimpid")?,
    })
}

/// `0x`-prefixed hexadecimal, else decimal.
fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::{ids_from_cpuinfo, RiscvIds};

    /// A StarFive VisionFive 2 (JH7110, SiFive U74), Linux 6.6.
    const JH7110: &str = "processor\t: 0\nhart\t\t: 1\nisa\t\t: rv64imafdc_zicntr_zicsr_zifencei_zihpm_zba_zbb\n\
        mmu\t\t: sv39\nuarch\t\t: sifive,u74-mc\nmvendorid\t: 0x489\nmarchid\t\t: 0x8000000000000007\n\
        mimpid\t\t: 0x4210427\nhart isa\t: rv64imafdc_zicntr_zicsr_zifencei_zihpm_zba_zbb\n\n\
        processor\t: 1\nhart\t\t: 2\nmvendorid\t: 0x1\nmarchid\t\t: 0x2\nmimpid\t\t: 0x3\n\n";

    #[test]
    fn first_hart() {
        let ids = ids_from_cpuinfo(JH7110);
        assert_eq!(
            ids,
            Some(RiscvIds {
                mvendorid: 0x489,
                marchid: 0x8000_0000_0000_0007,
                mimpid: 0x421_0427
            })
        );
    }

    #[test]
    fn missing_or_bad() {
        assert_eq!(ids_from_cpuinfo(""), None);
        assert_eq!(ids_from_cpuinfo("mvendorid : 0x489\nmarchid : 0x7\n"), None);
        assert_eq!(
            ids_from_cpuinfo("mvendorid : 0x489\nmarchid : zz\nmimpid : 0\n"),
            None
        );
        let t = "mvendorid : 0x5b7\nmarchid : 0x0\nmimpid : 0\n";
        assert_eq!(
            ids_from_cpuinfo(t),
            Some(RiscvIds {
                mvendorid: 0x5b7,
                marchid: 0,
                mimpid: 0
            })
        );
    }
}
