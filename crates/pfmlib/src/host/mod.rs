//! Host facts: which CPU this is (CPUID) and what the kernel publishes
//! (perf_events PMUs and their types, the paranoid level). Every fact
//! pfmlib uses about the machine comes through [`Host`], read once, from
//! sources tests can replace: any [`CpuIdReader`] (a recorded dump) and a
//! root directory or in-memory files for `/sys` and `/proc`.

mod arch;
mod cpu;
mod cpuinfo;
mod facts;
mod mips;
mod power;
mod riscv;
mod s390x;
mod sparc;

pub use arch::Arch;
pub use cpu::{ArchPerfmon, HybridCore};
pub use cpuinfo::ArmCpuId;
pub use raw_cpuid::{CpuIdReader, CpuIdResult};
pub use riscv::RiscvIds;
pub use s390x::S390xFacts;
pub(crate) use s390x::{only_blanks as s390x_only_blanks, scan_u32 as s390x_scan_u32};

use crate::model::Vendor;
use facts::Facts;
use std::path::PathBuf;
use std::sync::Arc;

/// Directory of the kernel's perf_events PMUs.
pub(crate) const EVENT_SOURCES: &str = "/sys/bus/event_source/devices";
/// Where Arm CPUs are identified (as libpfm4 does).
const CPUINFO: &str = "/proc/cpuinfo";

/// libpfm4 upstream's variable naming the file read instead of
/// `/proc/cpuinfo` for the Arm CPU's identity.
pub const PROC_CPUINFO_VAR: &str = "LIBPFM_PROC_CPUINFO";

/// What pfmlib knows about the machine it answers for.
///
/// Build one by hand to ask what pfmlib would do on another machine:
///
/// ```
/// use pfmlib::{Host, Vendor};
/// let nehalem = Host::synthetic(Vendor::Intel, 6, 26);
/// let lib = pfmlib::Library::with_host(nehalem);
/// assert!(lib.pmu("nhm").unwrap().info().is_present);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Host {
    /// Processor architecture.
    pub arch: Arch,
    /// CPU vendor.
    pub vendor: Vendor,
    /// CPU family (with the extended family folded in).
    pub family: u32,
    /// CPU model (with the extended model folded in).
    pub model: u32,
    /// CPU stepping.
    pub stepping: u32,
    /// CPU brand string, when known: from a recorded CPUID dump or a
    /// recorded cpuinfo's `model name`. The running machine's is read on
    /// demand ([`Host::brand_string`]): each CPUID is a VM exit in a
    /// virtual machine, and detection needs none of it.
    pub brand: Option<String>,
    /// CPUID leaf 0xA, on Intel CPUs that have it.
    pub arch_perfmon: Option<ArchPerfmon>,
    /// On Arm hosts: implementer, part and architecture from
    /// `/proc/cpuinfo`, read as libpfm4 reads them: the first kind of core
    /// (`None`: not an Arm host, or libpfm4 would record none).
    pub arm: Option<ArmCpuId>,
    /// On Arm hosts: every kind of core libpfm4 records (big.LITTLE
    /// machines have two or more); each one's PMU is detected.
    pub arm_cpus: Vec<ArmCpuId>,
    /// On POWER hosts: the Processor Version Register (version in the high
    /// 16 bits, as [`Host::model`] also holds it, revision in the low 16),
    /// from `/proc/cpuinfo`'s `revision` line.
    pub pvr: Option<u32>,
    /// On SPARC hosts: the `pmu` value of `/proc/cpuinfo` (`niagara2`,
    /// `ultra3`, ...) as libpfm4 reads it, quirks included (`None`: not a
    /// SPARC host, or libpfm4 would find none).
    pub sparc_pmu: Option<String>,
    /// On s390x hosts: the machine type and the counter facility's
    /// versions, from `/proc/sysinfo` and `/proc/service_levels` (`None`
    /// on other architectures).
    pub s390x: Option<S390xFacts>,
    /// The kernel exposes a hardware CPU PMU: `cpu` (or the hybrid `cpu_core`,
    /// `cpu_atom`) under `/sys/bus/event_source/devices` on x86, an `armv*`
    /// PMU on Arm (`armv8_pmuv3_0`, `armv8_cortex_a53`, `armv7_cortex_a15`),
    /// the counter facility `cpum_cf` on IBM Z.
    pub kernel_cpu_pmu: bool,
    /// The kernel has perf_events (`/proc/sys/kernel/perf_event_paranoid`).
    pub perf_events: bool,
    /// `/proc/sys/kernel/perf_event_paranoid`, when readable.
    pub perf_event_paranoid: Option<i32>,
    /// On MIPS hosts: the `cpu model` of `/proc/cpuinfo` as libpfm4 reads
    /// it (`None`: not a MIPS host, or libpfm4 would find none).
    pub mips_cpu_model: Option<String>,
    /// On hybrid Intel hosts: the kinds of core present (CPUID leaf 0x1A of
    /// every CPU, from `/dev/cpu/<n>/cpuid` or given), sorted, each once.
    /// Empty when unknown: the hybrid PMUs are then chosen by the kernel's
    /// hybrid PMUs (`cpu_core`, `cpu_atom`, `cpu_lowpower`), or all of the
    /// model's are active.
    pub hybrid_cores: Vec<HybridCore>,
    /// On RISC-V hosts: the first hart's `mvendorid`, `marchid` and
    /// `mimpid` from `/proc/cpuinfo` (`None`: not a RISC-V host, or the
    /// kernel does not tell them).
    pub riscv: Option<RiscvIds>,
    /// The CPU is the running machine's (its brand string is read when
    /// asked).
    #[cfg_attr(feature = "serde", serde(skip))]
    running_cpu: bool,
    #[cfg_attr(feature = "serde", serde(skip))]
    facts: Facts,
}

impl Host {
    /// Detects the running machine (CPUID on x86, `/sys` and `/proc`). On
    /// Arm the CPU is read from `/proc/cpuinfo`, or from the file named by
    /// `LIBPFM_PROC_CPUINFO` when it is set (libpfm4 upstream's variable).
    pub fn detect() -> Host {
        Host::detect_as(Arch::native())
    }

    /// [`Host::detect`] as if this machine were of architecture `arch`:
    /// its `/proc` and `/sys` files are read as such a host's (on an x86
    /// machine, a POWER host whose processor version is unknown, say), and
    /// CPUID is asked only when `arch` is x86. What a library built for
    /// another architecture would see here (the C library's
    /// `PFMLIB_HOST_ARCH`).
    pub fn detect_as(arch: Arch) -> Host {
        let mut h = Host::from_facts(arch, Facts::system());
        if let Some(path) = std::env::var_os(PROC_CPUINFO_VAR) {
            // Relative to the working directory, as libpfm4's fopen.
            if let Ok(abs) = std::path::absolute(&path) {
                h.read_arm_cpu_from(&abs.to_string_lossy());
            }
        }
        if arch == Arch::X86 {
            if let Some(c) = cpu::native() {
                h.set_cpu(c);
                h.running_cpu = true;
            }
        }
        h
    }

    /// A host whose CPU answers CPUID through `reader` (a recorded dump, say)
    /// and whose `/sys` and `/proc` are the directories under `root`
    /// (`None`: no kernel files at all).
    ///
    /// ```
    /// use pfmlib::host::CpuIdResult;
    /// let r = |eax, ebx, ecx, edx| CpuIdResult { eax, ebx, ecx, edx };
    /// let cpuid = move |leaf: u32, _sub: u32| match leaf {
    ///     0 => r(0xb, 0x756e_6547, 0x6c65_746e, 0x4965_6e69), // GenuineIntel
    ///     1 => r(0x106a5, 0, 0, 0),                            // 6/26/5
    ///     _ => r(0, 0, 0, 0),
    /// };
    /// let h = pfmlib::Host::from_cpuid(cpuid, None);
    /// assert_eq!((h.family, h.model, h.stepping), (6, 26, 5));
    /// ```
    pub fn from_cpuid<R: CpuIdReader>(reader: R, root: Option<PathBuf>) -> Host {
        let facts = root.map_or_else(Facts::none, Facts::under);
        let mut h = Host::from_facts(Arch::X86, facts);
        h.set_cpu(cpu::decode(reader, true));
        h
    }

    /// A host whose CPUs answer CPUID through `readers`, one per CPU (a
    /// recorded hybrid machine, say): the first gives the identity, and
    /// leaf 0x1A of each the kinds of core ([`Host::hybrid_cores`]).
    /// `/sys` and `/proc` as [`Host::from_cpuid`].
    pub fn from_cpuids<R: CpuIdReader>(readers: Vec<R>, root: Option<PathBuf>) -> Host {
        let facts = root.map_or_else(Facts::none, Facts::under);
        let mut h = Host::from_facts(Arch::X86, facts);
        let mut cores = Vec::with_capacity(readers.len());
        for (i, r) in readers.into_iter().enumerate() {
            let c = cpu::decode(r, i == 0);
            cores.extend(c.core);
            if i == 0 {
                h.set_cpu(c);
            }
        }
        h.set_hybrid_cores(cores);
        h
    }

    /// The CPU's brand string: [`Host::brand`], or for the running
    /// machine's CPU, read now (four CPUID leaves).
    ///
    /// ```
    /// let h = pfmlib::Host::synthetic(pfmlib::Vendor::Intel, 6, 26);
    /// assert_eq!(h.brand_string(), None);
    /// ```
    pub fn brand_string(&self) -> Option<String> {
        match &self.brand {
            Some(b) => Some(b.clone()),
            None if self.running_cpu => cpu::native_brand(),
            None => None,
        }
    }

    /// The same host with these kinds of hybrid core (tests, or a caller
    /// that read leaf 0x1A on each CPU itself).
    pub fn with_hybrid_cores(mut self, cores: Vec<HybridCore>) -> Host {
        self.set_hybrid_cores(cores);
        self
    }

    fn set_hybrid_cores(&mut self, mut cores: Vec<HybridCore>) {
        cores.sort();
        cores.dedup();
        self.hybrid_cores = cores;
    }

    /// A host of architecture `arch` whose `/sys` and `/proc` are the
    /// directories under `root` (a recorded tree); on Arm its CPU is read
    /// from `root/proc/cpuinfo` as libpfm4 reads it.
    ///
    /// ```
    /// use pfmlib::{Arch, Host, Vendor};
    /// let dir = std::env::temp_dir().join(format!("pfmlib-doc-n1-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("proc")).unwrap();
    /// std::fs::write(
    ///     dir.join("proc/cpuinfo"),
    ///     "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\n\n",
    /// )
    /// .unwrap();
    /// let h = Host::from_root(Arch::Aarch64, dir.clone());
    /// assert_eq!((h.vendor, h.model), (Vendor::Arm, 0xd0c));
    /// # std::fs::remove_dir_all(dir).unwrap();
    /// ```
    pub fn from_root(arch: Arch, root: PathBuf) -> Host {
        Host::from_facts(arch, Facts::under(root))
    }

    /// This machine's CPU with the kernel files of a recorded tree: a host
    /// of architecture `arch` whose `/sys` and `/proc` are under `root`. On
    /// Arm the CPU is read from `root/proc/cpuinfo` (as [`Host::from_root`]).
    /// On x86 it is the recorded one when `root/proc/cpuinfo` names it
    /// (`vendor_id`, `cpu family` and `model` of its first processor, and
    /// `stepping`; CPUID leaf 0xA is then unknown, so `ix86arch` is not
    /// present), otherwise the running machine's (the CPUID instruction),
    /// or unknown where this program does not run on x86.
    ///
    /// ```
    /// use pfmlib::{Arch, Host, Vendor};
    /// let dir = std::env::temp_dir().join(format!("pfmlib-doc-adl-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("proc")).unwrap();
    /// std::fs::write(
    ///     dir.join("proc/cpuinfo"),
    ///     "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 151\nstepping\t: 2\n\n",
    /// )
    /// .unwrap();
    /// let h = Host::detect_with_root(Arch::X86, dir.clone());
    /// assert_eq!((h.vendor, h.family, h.model, h.stepping), (Vendor::Intel, 6, 0x97, 2));
    /// # std::fs::remove_dir_all(dir).unwrap();
    /// ```
    pub fn detect_with_root(arch: Arch, root: PathBuf) -> Host {
        let mut h = Host::from_root(arch, root);
        if arch == Arch::X86 {
            if let Some(c) = h.facts.read(CPUINFO).and_then(|t| x86_cpuinfo(&t)) {
                h.set_cpu(c);
            } else if let Some(c) = cpu::native() {
                h.set_cpu(c);
                h.running_cpu = true;
            }
        }
        h
    }

    /// A host of architecture `arch` whose only kernel file is
    /// `/proc/cpuinfo` with `text` (a recorded one, say): on Arm the CPU is
    /// read from it as libpfm4 reads it. perf_events is absent (see
    /// [`Host::from_root`] for a whole recorded tree).
    ///
    /// ```
    /// use pfmlib::{Arch, Host, Library};
    /// let v1 = "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd40\n\n";
    /// let lib = Library::with_host(Host::from_cpuinfo(Arch::Aarch64, v1));
    /// assert!(lib.pmu("arm_v1").unwrap().info().is_present);
    /// ```
    pub fn from_cpuinfo(arch: Arch, text: &str) -> Host {
        Host::from_facts(arch, Facts::none().with_file(CPUINFO, text))
    }

    /// A made-up host with the given CPU, perf_events present and no leaf
    /// 0xA; it has no kernel files (see [`Host::with_file`]).
    pub fn synthetic(vendor: Vendor, family: u32, model: u32) -> Host {
        Host {
            arch: Arch::X86,
            vendor,
            family,
            model,
            stepping: 0,
            brand: None,
            arch_perfmon: None,
            arm: None,
            arm_cpus: Vec::new(),
            pvr: None,
            sparc_pmu: None,
            s390x: None,
            kernel_cpu_pmu: false,
            perf_events: true,
            perf_event_paranoid: None,
            mips_cpu_model: None,
            riscv: None,
            hybrid_cores: Vec::new(),
            running_cpu: false,
            facts: Facts::none(),
        }
    }

    /// A host that matches no CPU PMU: only OS-provided PMUs are active.
    pub fn none() -> Host {
        Host::synthetic(Vendor::Other, 0, 0)
    }

    /// The same host with one more kernel file, given by absolute path
    /// (`/sys/bus/event_source/devices/uncore/type`, say). It is seen
    /// instead of any file of that name under the root. The host's flags
    /// (`perf_events`, `kernel_cpu_pmu`, ...) stay as they are; on an Arm
    /// or MIPS host a new `/proc/cpuinfo` is read again for the CPU's
    /// identity.
    ///
    /// ```
    /// use pfmlib::{Host, Library, Os, Plm, Vendor};
    /// // A kernel PMU counts as published with its type and its
    /// // multiplexing interval (as libpfm4 upstream looks for it).
    /// let h = Host::synthetic(Vendor::Intel, 6, 26)
    ///     .with_file("/sys/bus/event_source/devices/uncore/type", "12\n")
    ///     .with_file("/sys/bus/event_source/devices/uncore/perf_event_mux_interval_ms", "4\n");
    /// let enc = Library::with_host(h)
    ///     .encode("nhm_unc::UNC_CLK_UNHALTED", Plm::DEFAULT, Os::PerfEvent)
    ///     .unwrap();
    /// assert_eq!(enc.perf.unwrap().type_, 12);
    /// ```
    pub fn with_file(mut self, path: &str, contents: &str) -> Host {
        self.facts = self.facts.with_file(path, contents);
        if path == CPUINFO {
            self.read_arm_cpu();
            self.read_power_cpu();
            self.read_mips_cpu();
            self.read_riscv_cpu();
        }
        if path == s390x::SYSINFO || path == s390x::SERVICE_LEVELS {
            self.read_s390x();
        }
        self
    }

    /// The root directory kernel files are read under, if any.
    pub fn root(&self) -> Option<&std::path::Path> {
        self.facts.root()
    }

    /// A kernel file (absolute path), read once and remembered.
    pub fn read_file(&self, path: &str) -> Option<Arc<str>> {
        self.facts.read(path)
    }

    /// A kernel file read now, for facts that change (`/proc/self/status`).
    pub fn read_file_now(&self, path: &str) -> Option<String> {
        self.facts.read_fresh(path)
    }

    /// Does this kernel file or directory exist?
    pub fn file_exists(&self, path: &str) -> bool {
        self.facts.exists(path)
    }

    /// The names in a kernel directory (absolute path), sorted; empty when
    /// it is absent or unreadable.
    pub fn list_dir(&self, path: &str) -> Vec<String> {
        self.facts.list_dir(path)
    }

    /// The `type` file of the kernel's perf_events PMU `name`, if present.
    pub fn perf_pmu_type(&self, name: &str) -> Option<Arc<str>> {
        self.facts.read(&format!("{EVENT_SOURCES}/{name}/type"))
    }

    /// The `cpus` file of the kernel's perf_events PMU `name` (the CPUs a
    /// hybrid core PMU such as `cpu_core` or `cpu_atom` counts on), if
    /// present.
    pub fn perf_pmu_cpus(&self, name: &str) -> Option<Arc<str>> {
        self.facts.read(&format!("{EVENT_SOURCES}/{name}/cpus"))
    }

    fn from_facts(arch: Arch, facts: Facts) -> Host {
        let mut h = Host::synthetic(Vendor::Other, 0, 0);
        h.arch = arch;
        h.perf_events = false;
        h.facts = facts;
        h.read_kernel_facts();
        h.read_arm_cpu();
        h.read_power_cpu();
        h.read_mips_cpu();
        h.read_riscv_cpu();
        h.sparc_pmu = sparc::read(arch, &h.facts);
        h.read_s390x();
        h
    }

    /// On a POWER host, the processor version from `/proc/cpuinfo`: vendor
    /// IBM, model the version (`PVR >> 16`), stepping the revision.
    fn read_power_cpu(&mut self) {
        if self.arch != Arch::PowerPc {
            return;
        }
        self.pvr = self
            .facts
            .read(CPUINFO)
            .and_then(|t| power::pvr_from_cpuinfo(&t));
        if let Some(pvr) = self.pvr {
            (self.vendor, self.family, self.model, self.stepping) =
                (Vendor::Ibm, 0, pvr >> 16, pvr & 0xffff);
        }
    }

    /// On a MIPS host, the `cpu model` of `/proc/cpuinfo` (`host/mips.rs`).
    fn read_mips_cpu(&mut self) {
        self.mips_cpu_model = (self.arch == Arch::Mips)
            .then(|| self.facts.read(CPUINFO))
            .flatten()
            .and_then(|t| mips::cpu_model(t.as_bytes()));
    }

    /// On a RISC-V host, the first hart's identity registers
    /// (`host/riscv.rs`).
    fn read_riscv_cpu(&mut self) {
        self.riscv = (self.arch == Arch::RiscV64)
            .then(|| self.facts.read(CPUINFO))
            .flatten()
            .and_then(|t| riscv::ids_from_cpuinfo(&t));
    }

    /// On an s390x host, the facts that choose `cpum_cf`'s counter sets.
    fn read_s390x(&mut self) {
        self.s390x = (self.arch == Arch::S390x).then(|| {
            S390xFacts::from_files(
                self.facts.read(s390x::SYSINFO).as_deref(),
                self.facts.read(s390x::SERVICE_LEVELS).as_deref(),
            )
        });
    }

    /// On an Arm host, the CPU's identity from `/proc/cpuinfo` (vendor from
    /// the implementer, family from the architecture, model from the part).
    fn read_arm_cpu(&mut self) {
        self.read_arm_cpu_from(CPUINFO);
    }

    /// [`Host::read_arm_cpu`] from the file at `path` (absolute, or under
    /// the host's root).
    fn read_arm_cpu_from(&mut self, path: &str) {
        if !matches!(self.arch, Arch::Arm | Arch::Aarch64) {
            return;
        }
        let text = self.facts.read(path);
        self.arm_cpus = text
            .map(|t| ArmCpuId::all_from_cpuinfo(t.as_bytes(), self.arch))
            .unwrap_or_default();
        self.arm = self.arm_cpus.first().copied();
        let (vendor, family, model) = match self.arm {
            Some(a) => (
                Vendor::from_arm_implementer(a.implementer as u32),
                a.architecture.max(0) as u32,
                a.part.max(0) as u32,
            ),
            None => (Vendor::Other, 0, 0),
        };
        (self.vendor, self.family, self.model) = (vendor, family, model);
    }

    fn set_cpu(&mut self, c: cpu::CpuFacts) {
        self.vendor = c.vendor;
        self.family = c.family;
        self.model = c.model;
        self.stepping = c.stepping;
        self.brand = c.brand;
        self.arch_perfmon = c.arch_perfmon;
        if c.hybrid {
            let cores = self.read_hybrid_cores();
            self.set_hybrid_cores(cores);
        }
    }

    /// Leaf 0x1A of every CPU from the kernel's CPUID device,
    /// `/dev/cpu/<n>/cpuid` (16 bytes, EAX first, at offset 0x1a; root
    /// only, with the `cpuid` module), live or in a recorded tree; empty
    /// when none can be read.
    fn read_hybrid_cores(&self) -> Vec<HybridCore> {
        self.facts
            .list_dir("/dev/cpu")
            .iter()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            .filter_map(|n| self.facts.read_at(&format!("/dev/cpu/{n}/cpuid"), 0x1a, 4))
            .filter_map(|b| {
                let eax = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                HybridCore::from_eax(eax)
            })
            .collect()
    }

    /// The kernel facts that are plain flags, from the files.
    fn read_kernel_facts(&mut self) {
        self.kernel_cpu_pmu = self
            .facts
            .list_dir(EVENT_SOURCES)
            .iter()
            .any(|d| is_cpu_pmu_name(d));
        let paranoid = self.facts.read("/proc/sys/kernel/perf_event_paranoid");
        self.perf_events = paranoid.is_some();
        self.perf_event_paranoid = paranoid.and_then(|s| s.trim().parse().ok());
    }
}

/// An x86 CPU's identity from the first processor of a recorded
/// `/proc/cpuinfo` (`vendor_id`, `cpu family`, `model` in decimal, and
/// `stepping`, 0 when absent); `None` unless the first three are there.
fn x86_cpuinfo(text: &str) -> Option<cpu::CpuFacts> {
    let block = text.split("\n\n").next().unwrap_or_default();
    let field = |key: &str| {
        block.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim())
        })
    };
    let vendor = match field("vendor_id")? {
        "GenuineIntel" => Vendor::Intel,
        "AuthenticAMD" => Vendor::Amd,
        _ => Vendor::Other,
    };
    Some(cpu::CpuFacts {
        vendor,
        family: field("cpu family")?.parse().ok()?,
        model: field("model")?.parse().ok()?,
        stepping: field("stepping").and_then(|s| s.parse().ok()).unwrap_or(0),
        brand: field("model name").map(str::to_string),
        arch_perfmon: None,
        hybrid: field("flags").is_some_and(|f| f.split_whitespace().any(|w| w == "hybrid_cpu")),
        core: None,
    })
}

/// Is `name`, an entry of `/sys/bus/event_source/devices`, the kernel's
/// hardware CPU PMU? x86: `cpu`, or `cpu_core`/`cpu_atom`/`cpu_lowpower` on
/// hybrid parts.
/// Arm: the names of perf's Arm PMU drivers, `armv<N>_...` (`armv8_pmuv3_0`
/// from ACPI, `armv8_cortex_a53` or `armv8_neoverse_n1` from the device
/// tree, `armv7_cortex_a15` on 32-bit kernels), one per kind of core.
/// IBM Z: the counter facility, `cpum_cf`.
fn is_cpu_pmu_name(name: &str) -> bool {
    // `cpu` on x86, POWER, SPARC and MIPS; `cpum_cf`, the counter facility,
    // on IBM Z.
    matches!(
        name,
        "cpu" | "cpu_core" | "cpu_atom" | "cpu_lowpower" | "cpum_cf"
    ) || name
        .strip_prefix("armv")
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()) && r.contains('_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `LIBPFM_PROC_CPUINFO`'s file stands for `/proc/cpuinfo` on Arm only.
    #[test]
    fn arm_cpu_from_another_file() {
        let n1 = "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\n\n";
        let mut h = Host::none().with_file("/tmp/recorded-cpuinfo", n1);
        h.arch = Arch::Aarch64;
        h.read_arm_cpu_from("/tmp/recorded-cpuinfo");
        assert_eq!((h.vendor, h.model), (Vendor::Arm, 0xd0c));
        let mut x = Host::none().with_file("/tmp/recorded-cpuinfo", n1);
        x.arch = Arch::X86;
        x.read_arm_cpu_from("/tmp/recorded-cpuinfo");
        assert_eq!(x.vendor, Vendor::Other);
    }

    #[test]
    fn cpu_pmu_names() {
        for yes in [
            "cpu",
            "cpu_core",
            "cpu_atom",
            "armv8_pmuv3_0",
            "armv8_pmuv3",
            "armv8_cortex_a53",
            "armv8_neoverse_n1",
            "armv7_cortex_a15",
            "cpum_cf",
        ] {
            assert!(is_cpu_pmu_name(yes), "{yes}");
        }
        for no in [
            "software",
            "tracepoint",
            "msr",
            "uncore_imc_0",
            "armv",
            "armv8",
            "arm_spe_0",
            "power",
        ] {
            assert!(!is_cpu_pmu_name(no), "{no}");
        }
    }

    #[test]
    fn cpu_pmu_from_a_device_tree_name() {
        let h = Host::from_cpuinfo(Arch::Aarch64, "")
            .with_file("/sys/bus/event_source/devices/armv8_cortex_a53/type", "8\n");
        // with_file keeps the flags as they are; a tree read afresh sees it.
        assert!(!h.kernel_cpu_pmu);
        let f =
            Facts::none().with_file("/sys/bus/event_source/devices/armv8_cortex_a53/type", "8\n");
        assert_eq!(f.list_dir(EVENT_SOURCES), ["armv8_cortex_a53"]);
        let h = Host::from_facts(Arch::Aarch64, f);
        assert!(h.kernel_cpu_pmu);
    }
}
