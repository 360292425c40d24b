//! The CPU's identity from CPUID, through any [`CpuIdReader`]: the real
//! instruction on x86, or a recorded dump in tests.

use crate::model::Vendor;
use raw_cpuid::{CpuIdReader, CpuIdResult};

/// CPUID leaf 0xA (architectural performance monitoring), raw registers,
/// decoded here once with libpfm4's reading of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ArchPerfmon {
    /// EAX: version (7:0), generic counters (15:8), counter width (23:16), EBX length (31:24).
    pub eax: u32,
    /// EBX: bit n set means architectural event n is NOT available.
    pub ebx: u32,
    /// EDX: fixed counters (4:0), their width (12:5).
    pub edx: u32,
}

impl ArchPerfmon {
    /// Architectural perfmon version.
    pub fn version(&self) -> u32 {
        self.eax & 0xff
    }
    /// Generic counters per logical processor.
    pub fn num_counters(&self) -> u32 {
        (self.eax >> 8) & 0xff
    }
    /// Width of the generic counters in bits.
    pub fn counter_width(&self) -> u32 {
        (self.eax >> 16) & 0xff
    }
    /// Number of valid bits in EBX.
    pub fn ebx_length(&self) -> u32 {
        (self.eax >> 24) & 0xff
    }
    /// Fixed-function counters as libpfm4 reads them: EDX bits 5:0, whatever
    /// the version (the SDM defines bits 4:0 from version 2 on).
    pub fn num_fixed_counters(&self) -> u32 {
        self.edx & 0x3f
    }
    /// Is architectural event `bit` available? libpfm4's reading: EBX bits
    /// 0-6 only, whatever `EAX[31:24]` says; a set bit means "not available".
    pub fn event_available(&self, bit: u32) -> bool {
        bit < 7 && (self.ebx >> bit) & 1 == 0
    }
}

/// One kind of core of a hybrid Intel CPU, as CPUID leaf 0x1A tells it on
/// a core of that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HybridCore {
    /// Core type, EAX bits 31-24: 0x20 Intel Atom, 0x40 Intel Core.
    pub core_type: u8,
    /// Native model id, EAX bits 23-0 (Arrow Lake's Skymont 3, its
    /// low-power Crestmont 2).
    pub native_model: u32,
}

impl HybridCore {
    /// Decodes leaf 0x1A's EAX; `None` when it is 0 (not a hybrid part).
    pub fn from_eax(eax: u32) -> Option<HybridCore> {
        (eax != 0).then_some(HybridCore {
            core_type: (eax >> 24) as u8,
            native_model: eax & 0xff_ffff,
        })
    }
}

include!(concat!(env!("OUT_DIR"), "/hybrid_models.rs"));

/// What CPUID says about the processor.
pub(crate) struct CpuFacts {
    pub vendor: Vendor,
    pub family: u32,
    pub model: u32,
    pub stepping: u32,
    pub brand: Option<String>,
    pub arch_perfmon: Option<ArchPerfmon>,
    /// CPUID.07H:EDX bit 15 (or `hybrid_cpu` in a recorded cpuinfo): a
    /// hybrid part, whose kinds of core leaf 0x1A tells per core.
    pub hybrid: bool,
    /// Leaf 0x1A of the core that answered (hybrid parts only).
    pub core: Option<HybridCore>,
}

/// Decodes vendor, family, model (extended fields folded in as the SDM and
/// AMD's manuals say), stepping, brand (when `with_brand`) and leaf 0xA.
/// Each leaf is asked once: CPUID is a VM exit in a virtual machine, about
/// 6 µs here, so the running machine's brand string (four more leaves) is
/// read only when asked ([`native_brand`]).
pub(crate) fn decode<R: CpuIdReader>(reader: R, with_brand: bool) -> CpuFacts {
    let l0 = reader.cpuid1(0);
    let max_leaf = l0.eax;
    let vendor = match &vendor_string(l0) {
        b"GenuineIntel" => Vendor::Intel,
        b"AuthenticAMD" => Vendor::Amd,
        _ => Vendor::Other,
    };
    let (family, model, stepping) = if max_leaf >= 1 {
        signature(reader.cpuid1(1).eax)
    } else {
        (0, 0, 0)
    };
    let brand = if with_brand { brand(&reader) } else { None };
    let arch_perfmon = (vendor == Vendor::Intel && max_leaf >= 0xa).then(|| {
        let r = reader.cpuid2(0xa, 0);
        ArchPerfmon {
            eax: r.eax,
            ebx: r.ebx,
            edx: r.edx,
        }
    });
    // Leaf 7 only on the models whose PMUs depend on the kind of core.
    let hybrid = vendor == Vendor::Intel
        && HYBRID_MODELS.contains(&(family, model))
        && max_leaf >= 7
        && reader.cpuid2(7, 0).edx >> 15 & 1 == 1;
    let core = (hybrid && max_leaf >= 0x1a)
        .then(|| HybridCore::from_eax(reader.cpuid2(0x1a, 0).eax))
        .flatten();
    CpuFacts {
        vendor,
        family,
        model,
        stepping,
        brand,
        arch_perfmon,
        hybrid,
        core,
    }
}

/// The vendor string of leaf 0 (EBX, EDX, ECX).
fn vendor_string(l0: CpuIdResult) -> [u8; 12] {
    let mut v = [0u8; 12];
    for (i, r) in [l0.ebx, l0.edx, l0.ecx].into_iter().enumerate() {
        v[4 * i..4 * i + 4].copy_from_slice(&r.to_le_bytes());
    }
    v
}

/// Family, model and stepping of leaf 1's EAX: the extended family is
/// added to family 0xf, the extended model prepended from family 6 on.
fn signature(eax: u32) -> (u32, u32, u32) {
    let base_family = (eax >> 8) & 0xf;
    let family = if base_family == 0xf {
        base_family + ((eax >> 20) & 0xff)
    } else {
        base_family
    };
    let base_model = (eax >> 4) & 0xf;
    let model = if base_family >= 0x6 {
        base_model + (((eax >> 16) & 0xf) << 4)
    } else {
        base_model
    };
    (family, model, eax & 0xf)
}

/// The processor brand string (leaves 0x80000002-4), trimmed; `None` when
/// the CPU has none.
fn brand<R: CpuIdReader>(reader: &R) -> Option<String> {
    if reader.cpuid1(0x8000_0000).eax < 0x8000_0004 {
        return None;
    }
    let mut bytes = Vec::with_capacity(48);
    for leaf in 0x8000_0002..=0x8000_0004 {
        let r = reader.cpuid1(leaf);
        for w in [r.eax, r.ebx, r.ecx, r.edx] {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let s = String::from_utf8_lossy(&bytes[..end]).trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// The running processor's CPUID facts (none off x86), its brand string
/// left unread.
pub(crate) fn native() -> Option<CpuFacts> {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        Some(decode(raw_cpuid::CpuIdReaderNative, false))
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        None
    }
}

/// The running processor's brand string (none off x86).
pub(crate) fn native_brand() -> Option<String> {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        brand(&raw_cpuid::CpuIdReaderNative)
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded Nehalem (family 6, model 26, stepping 5) with leaf 0xA.
    fn nehalem(leaf: u32, _sub: u32) -> CpuIdResult {
        let r = |eax, ebx, ecx, edx| CpuIdResult { eax, ebx, ecx, edx };
        match leaf {
            // "GenuineIntel": EBX, EDX, ECX.
            0 => r(0xb, 0x756e_6547, 0x6c65_746e, 0x4965_6e69),
            1 => r(0x0001_06a5, 0, 0, 0),
            0xa => r(0x0730_0403, 0, 0, 0x603),
            _ => r(0, 0, 0, 0),
        }
    }

    #[test]
    fn decodes_a_recorded_cpu() {
        let f = decode(nehalem, true);
        assert_eq!(f.vendor, Vendor::Intel);
        assert_eq!((f.family, f.model, f.stepping), (6, 26, 5));
        let a = f.arch_perfmon.unwrap();
        assert_eq!(
            (a.version(), a.num_counters(), a.num_fixed_counters()),
            (3, 4, 3)
        );
        assert!(a.event_available(6) && !a.event_available(7));
    }

    #[test]
    fn extended_family_and_model() {
        // AMD family 0x19 model 0x01 (Zen 3): base family 0xf + extended 0xa.
        let zen3 = |leaf: u32, _: u32| match leaf {
            0 => CpuIdResult {
                eax: 0x10,
                ebx: 0x6874_7541,
                ecx: 0x444d_4163,
                edx: 0x6974_6e65,
            },
            1 => CpuIdResult {
                eax: 0x00a0_0f11,
                ebx: 0,
                ecx: 0,
                edx: 0,
            },
            _ => CpuIdResult {
                eax: 0,
                ebx: 0,
                ecx: 0,
                edx: 0,
            },
        };
        let f = decode(zen3, true);
        assert_eq!(f.vendor, Vendor::Amd);
        assert_eq!((f.family, f.model, f.stepping), (0x19, 1, 1));
        assert!(f.arch_perfmon.is_none());
    }
}
