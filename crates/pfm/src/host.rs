//! The global options `--host-root` and `--host-arch`: the library to
//! answer with (this machine's, or a recorded host's), and libpfm4's
//! diagnostics about the PMUs it chose.

use clap::ValueEnum;

/// Where the host facts come from (global options).
#[derive(clap::Args)]
pub struct HostArgs {
    /// Answer for a recorded host: read `/proc` and `/sys` facts under DIR
    /// (DIR/proc/cpuinfo, DIR/sys/bus/event_source/devices/...) instead of
    /// this machine's. On Arm the CPU is identified from DIR/proc/cpuinfo; on
    /// x86 from DIR/proc/cpuinfo when it names one (vendor_id, cpu family,
    /// model: leaf 0xA then unknown), otherwise it is this machine's (CPUID).
    /// Not for stat or counters, which count on this machine.
    #[arg(long, global = true, value_name = "DIR")]
    host_root: Option<std::path::PathBuf>,
    /// Answer as libpfm4's build for this architecture does: only that
    /// build's PMUs (with --host-root, the recorded host read as such a
    /// host's; without, this machine's files, so on an x86 machine
    /// `--host-arch powerpc` lists the POWER tables with none detected, as
    /// libpfm4's powerpc build would here). Without it, every table is
    /// listed and a recorded host's architecture is the one DIR/proc/cpuinfo
    /// names (`vendor_id : IBM/S390` s390x, `cpu model : MIPS` mips, a
    /// `(pvr ...)` revision powerpc, a `pmu` line sparc, `CPU implementer`
    /// aarch64; otherwise x86). Not for stat or counters.
    #[arg(long, global = true, value_enum)]
    host_arch: Option<HostArch>,
}

/// Architecture of a recorded host.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum HostArch {
    /// x86 (CPU from the tree's cpuinfo, or this machine's CPUID).
    X86,
    /// 64-bit Arm (libpfm4's arm64 build).
    #[value(alias = "arm64")]
    Aarch64,
    /// 32-bit Arm (libpfm4's arm build).
    Arm,
    /// IBM POWER and PowerPC (libpfm4's powerpc build).
    #[value(alias = "ppc64", alias = "ppc64le", alias = "power")]
    Powerpc,
    /// IBM Z (libpfm4's s390x build).
    #[value(alias = "s390")]
    S390x,
    /// SPARC (libpfm4's sparc build).
    #[value(alias = "sparc64")]
    Sparc,
    /// MIPS (libpfm4's mips build).
    #[value(alias = "mips64")]
    Mips,
    /// 64-bit RISC-V (pfmlib's own riscv64 build: no libpfm4 has one).
    #[value(alias = "riscv")]
    Riscv64,
}

impl HostArgs {
    /// The library to answer with: the running machine's (`None`), or one
    /// for the recorded host or the architecture asked for, with libpfm4's
    /// environment options either way.
    pub fn library(&self) -> anyhow::Result<Option<pfmlib::Library>> {
        let asked = self.host_arch.map(HostArch::arch);
        let options = pfmlib::Options::from_env().host_build_only(asked.is_some());
        let Some(root) = &self.host_root else {
            return Ok(asked.map(|a| pfmlib::Library::new(pfmlib::Host::detect_as(a), options)));
        };
        if !root.is_dir() {
            anyhow::bail!(
                "--host-root {}: not a directory",
                crate::cli::quoted(&root.to_string_lossy())
            );
        }
        // Read as pfmlib reads the tree's facts: a regular file, bounded,
        // never waiting on a FIFO.
        let named = || {
            pfmlib::Host::from_root(pfmlib::Arch::Other, root.clone())
                .read_file_now("/proc/cpuinfo")
                .and_then(|c| pfmlib::Arch::from_cpuinfo(&c))
                .unwrap_or(pfmlib::Arch::X86)
        };
        let arch = asked.unwrap_or_else(named);
        let host = pfmlib::Host::detect_with_root(arch, root.clone());
        Ok(Some(pfmlib::Library::new(host, options)))
    }

    /// Does the library answer for another host than this machine as it
    /// is (a recorded one, or another architecture)?
    pub fn elsewhere(&self) -> bool {
        self.host_root.is_some() || self.host_arch.is_some()
    }
}

impl HostArch {
    /// pfmlib's name of the architecture.
    fn arch(self) -> pfmlib::Arch {
        match self {
            HostArch::X86 => pfmlib::Arch::X86,
            HostArch::Aarch64 => pfmlib::Arch::Aarch64,
            HostArch::Arm => pfmlib::Arch::Arm,
            HostArch::Powerpc => pfmlib::Arch::PowerPc,
            HostArch::S390x => pfmlib::Arch::S390x,
            HostArch::Sparc => pfmlib::Arch::Sparc,
            HostArch::Mips => pfmlib::Arch::Mips,
            HostArch::Riscv64 => pfmlib::Arch::RiscV64,
        }
    }
}

/// libpfm4's diagnostics, which pfm honours as libpfm4's tools do:
/// `LIBPFM_VERBOSE` (a digit) names a forced PMU, `LIBPFM_DEBUG` (a digit)
/// the PMUs chosen; on standard error, or standard output with
/// `LIBPFM_DEBUG_STDOUT`. (`LIBPFM_FORCE_PMU`, `LIBPFM_DISABLED_PMUS` and
/// `LIBPFM_ENCODE_INACTIVE` are read by the library itself.)
pub fn announce(lib: &pfmlib::Library) {
    let level = |k: &str| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.bytes().next())
            .filter(u8::is_ascii_digit)
            .map_or(0, |c| c - b'0')
    };
    let (verbose, debug) = (level("LIBPFM_VERBOSE"), level("LIBPFM_DEBUG"));
    // Diagnostics only: a failure to write them is not worth failing for.
    let say = |line: String| {
        use std::io::Write as _;
        let _ = if std::env::var_os("LIBPFM_DEBUG_STDOUT").is_some() {
            writeln!(std::io::stdout(), "{line}")
        } else {
            writeln!(std::io::stderr(), "{line}")
        };
    };
    if verbose > 0 && lib.options().force_pmu.is_some() {
        match lib.active_pmus().next() {
            Some(p) => say(format!(
                "forced PMU: {} ({}), the only one active",
                p.name(),
                p.info().desc
            )),
            None => say("LIBPFM_FORCE_PMU names no PMU: none is active".to_string()),
        }
    }
    if debug > 0 {
        let active: Vec<&str> = lib.active_pmus().map(|p| p.name()).collect();
        say(format!(
            "pfmlib: {} PMUs known, {} active: {}",
            lib.pmus().count(),
            active.len(),
            active.join(" ")
        ));
    }
}
