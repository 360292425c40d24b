//! Host detection: which CPU this is (CPUID) and what the kernel exposes.

use crate::tables::Vendor;
use serde::Serialize;
use std::path::Path;

/// CPUID leaf 0xA (architectural performance monitoring), raw registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
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
    /// Fixed-function counters (version 2 and later).
    pub fn num_fixed_counters(&self) -> u32 {
        if self.version() >= 2 {
            self.edx & 0x1f
        } else {
            0
        }
    }
    /// True when architectural event `bit` of CPUID.0AH:EBX is available.
    pub fn event_available(&self, bit: u32) -> bool {
        bit < self.ebx_length() && (self.ebx >> bit) & 1 == 0
    }
}

/// What pfmlib knows about the machine it runs on.
///
/// Build one by hand to ask what pfmlib would do on another machine:
///
/// ```
/// use pfmlib::{Host, Vendor};
/// let nehalem = Host::synthetic(Vendor::Intel, 6, 26);
/// let lib = pfmlib::Library::with_host(nehalem);
/// assert!(lib.pmu("nhm").unwrap().info().is_present);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Host {
    /// CPU vendor.
    pub vendor: Vendor,
    /// CPU family (with the extended family folded in).
    pub family: u32,
    /// CPU model (with the extended model folded in).
    pub model: u32,
    /// CPU stepping.
    pub stepping: u32,
    /// CPU brand string, when known.
    pub brand: Option<String>,
    /// CPUID leaf 0xA, on Intel CPUs that have it.
    pub arch_perfmon: Option<ArchPerfmon>,
    /// The kernel exposes a hardware CPU PMU (`/sys/bus/event_source/devices/cpu`).
    pub kernel_cpu_pmu: bool,
    /// The kernel has perf_events (`/proc/sys/kernel/perf_event_paranoid`).
    pub perf_events: bool,
}

impl Host {
    /// Detects the running machine.
    pub fn detect() -> Host {
        let (vendor, family, model, stepping, brand, arch_perfmon) = detect_cpu();
        Host {
            vendor,
            family,
            model,
            stepping,
            brand,
            arch_perfmon,
            kernel_cpu_pmu: Path::new("/sys/bus/event_source/devices/cpu").exists()
                || Path::new("/sys/bus/event_source/devices/cpu_core").exists(),
            perf_events: Path::new("/proc/sys/kernel/perf_event_paranoid").exists(),
        }
    }

    /// A made-up host with the given CPU, perf_events present and no leaf 0xA.
    pub fn synthetic(vendor: Vendor, family: u32, model: u32) -> Host {
        Host {
            vendor,
            family,
            model,
            stepping: 0,
            brand: None,
            arch_perfmon: None,
            kernel_cpu_pmu: false,
            perf_events: true,
        }
    }

    /// A host that matches no CPU PMU: only OS-provided PMUs are active.
    pub fn none() -> Host {
        Host::synthetic(Vendor::Other, 0, 0)
    }
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn detect_cpu() -> (Vendor, u32, u32, u32, Option<String>, Option<ArchPerfmon>) {
    let cpuid = raw_cpuid::CpuId::new();
    let vendor = match cpuid.get_vendor_info() {
        Some(v) if v.as_str() == "GenuineIntel" => Vendor::Intel,
        Some(v) if v.as_str() == "AuthenticAMD" => Vendor::Amd,
        _ => Vendor::Other,
    };
    let (family, model, stepping) = match cpuid.get_feature_info() {
        Some(f) => {
            let base_family = f.base_family_id() as u32;
            let family = if base_family == 0xf {
                base_family + f.extended_family_id() as u32
            } else {
                base_family
            };
            let model = if base_family >= 0x6 {
                f.base_model_id() as u32 + ((f.extended_model_id() as u32) << 4)
            } else {
                f.base_model_id() as u32
            };
            (family, model, f.stepping_id() as u32)
        }
        None => (0, 0, 0),
    };
    let brand = cpuid
        .get_processor_brand_string()
        .map(|b| b.as_str().trim().to_string());
    let max_leaf = raw_cpuid::native_cpuid::cpuid_count(0, 0).eax;
    let arch_perfmon = if vendor == Vendor::Intel && max_leaf >= 0xa {
        let r = raw_cpuid::native_cpuid::cpuid_count(0xa, 0);
        Some(ArchPerfmon {
            eax: r.eax,
            ebx: r.ebx,
            edx: r.edx,
        })
    } else {
        None
    };
    (vendor, family, model, stepping, brand, arch_perfmon)
}

#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
fn detect_cpu() -> (Vendor, u32, u32, u32, Option<String>, Option<ArchPerfmon>) {
    (Vendor::Other, 0, 0, 0, None, None)
}
