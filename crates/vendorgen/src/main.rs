//! `pfm-vendorgen`: writes pfmlib's data files (`crates/pfmlib/data/*.toml`)
//! from the event lists vendors publish (`../shared/oracle/vendor/`: Intel's
//! perfmon JSON, Arm's per-core JSON, the Linux perf tool's JSON of
//! AmpereOne and RISC-V cores). Run by a developer, never by the build:
//!
//! ```text
//! cargo run -p pfm-vendorgen -- <format> [options]      # write the files
//! cargo run -p pfm-vendorgen -- <format> [options] --check
//! ```
//!
//! Facts only: names, codes and fields come from the vendor's file, in
//! pfmlib's conventions (libpfm4's names: Intel `EVENT.UMASK` becomes
//! `EVENT:UMASK`, unit masks grouped per event code); descriptions never.
//! A description is kept from the data file already there (by event, or
//! event and unit mask, name); a new event gets `desc = "TODO"`, which
//! `tests/tables.rs` refuses, until someone writes one in our own words.
//! Re-running on the same input changes nothing; `--check` writes nothing
//! and lists what a newer vendor file would change (events added, removed
//! or with other codes).

mod arm;
mod data;
mod intel;
mod intel_uncore;
mod riscv;

use clap::Parser;

/// The vendors' formats.
#[derive(clap::Subcommand)]
enum Format {
    /// The Linux perf tool's RISC-V event lists (mapfile.csv, one folder per core).
    Riscv(riscv::Args),
    /// Arm's per-core JSON and the perf tool's AmpereOne lists.
    Arm(arm::Args),
    /// Intel perfmon JSON (`<cpu>_core.json`) to an `intel_x86` data file.
    Intel(intel::Args),
    /// Intel perfmon uncore JSON (`<cpu>_uncore*.json`) to one
    /// `intel_snbep_unc` data file per unit.
    IntelUncore(intel_uncore::Args),
}

/// Command line.
#[derive(Parser)]
#[command(
    name = "pfm-vendorgen",
    about = "pfmlib's data files from vendors' event lists"
)]
struct Cli {
    #[command(subcommand)]
    format: Format,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.format {
        Format::Riscv(args) => riscv::run(&args),
        Format::Arm(a) => arm::run(a),
        Format::Intel(a) => intel::run(a),
        Format::IntelUncore(a) => intel_uncore::run(a),
    }
}
