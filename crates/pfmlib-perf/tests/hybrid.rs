//! Hybrid hosts as perf and libpfm4 upstream treat them, on the recorded
//! tree `tests/trees/adl_host` (an Alder Lake of our own making: CPUs 0-15
//! are performance-core threads on `cpu_core`, type 8; CPUs 16-19
//! efficiency cores on `cpu_atom`, type 10) and on the simulated kernel
//! with two core PMUs of the same types.

use pfmlib::{Arch, Host, Library, Os, Plm};
use pfmlib_perf::perf_syntax::{self, expand_hybrid, hybrid};
use pfmlib_perf::sim::{SimConfig, SimHybrid, SimKernel};
use pfmlib_perf::{CounterSet, Options, Scope};
use std::path::PathBuf;

const MS: u64 = 1_000_000;
const CORE_TYPE: u32 = 8;
const ATOM_TYPE: u32 = 10;

fn adl_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/trees/adl_host")
}

/// The library for the recorded hybrid host (its CPU from the tree's
/// `/proc/cpuinfo`: family 6, model 0x97).
fn adl() -> Library {
    Library::with_host(Host::detect_with_root(Arch::X86, adl_root()))
}

/// A simulated machine like the tree: 16 performance-core CPUs, 4
/// efficiency cores, a task on performance cores 75% of the time.
fn sim() -> SimKernel {
    SimKernel::new(
        SimConfig::default()
            .cpus(20)
            .counters(8)
            .hybrid(SimHybrid::new(CORE_TYPE, ATOM_TYPE, 16, 75)),
    )
}

fn groups(names: &[&str]) -> Vec<Vec<String>> {
    names.iter().map(|n| vec![n.to_string()]).collect()
}

#[test]
fn both_core_pmus_are_present_with_their_kernel_pmus() {
    let lib = adl();
    let host = lib.host();
    assert_eq!((host.family, host.model), (6, 0x97));
    let core = lib.pmu("adl_glc").expect("adl_glc");
    let atom = lib.pmu("adl_grt").expect("adl_grt");
    assert!(core.is_present() && atom.is_present());
    let k = core.kernel_pmu().expect("cpu_core");
    assert_eq!((k.name, k.type_), ("cpu_core", CORE_TYPE as i32));
    assert_eq!(k.cpus, Some((0..16).collect()));
    let k = atom.kernel_pmu().expect("cpu_atom");
    assert_eq!((k.name, k.type_), ("cpu_atom", ATOM_TYPE as i32));
    assert_eq!(k.cpus, Some((16..20).collect()));
    assert!(hybrid::is_hybrid(host));
}

#[test]
fn native_events_encode_for_their_own_kernel_pmu() {
    let lib = adl();
    for (ev, type_) in [
        ("adl_glc::INST_RETIRED:ANY_P", CORE_TYPE),
        ("adl_grt::UOPS_RETIRED:ALL", ATOM_TYPE),
        ("adl_grt::OCR0:DEMAND_DATA_RD_ANY_RESPONSE", ATOM_TYPE),
        // Unprefixed: the first PMU of libpfm4's order, the P-core one.
        ("INST_RETIRED:ANY_P", CORE_TYPE),
    ] {
        let enc = lib.encode(ev, Plm::DEFAULT, Os::PerfEvent).expect(ev);
        assert_eq!(enc.perf.expect("attr").type_, type_, "{ev}");
    }
    // Without the kernel's hybrid PMUs: the raw type, as libpfm4 does.
    let bare = Library::with_host(Host::synthetic(pfmlib::Vendor::Intel, 6, 0x97));
    let enc = bare
        .encode("adl_grt::UOPS_RETIRED:ALL", Plm::DEFAULT, Os::PerfEvent)
        .expect("encoded");
    assert_eq!(enc.perf.expect("attr").type_, 4);
}

#[test]
fn generic_events_expand_to_both_core_types() {
    let lib = adl();
    let defaults = groups(&[
        "task-clock",
        "context-switches",
        "cycles",
        "instructions:u",
        "branch-misses",
        "adl_grt::UOPS_RETIRED:ALL",
        "cpu_atom/cycles/",
    ]);
    let got: Vec<String> = expand_hybrid(&lib, &defaults)
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(
        got,
        [
            "task-clock",
            "context-switches",
            "cpu_core/cycles/",
            "cpu_atom/cycles/",
            "cpu_core/instructions/u",
            "cpu_atom/instructions/u",
            "cpu_core/branch-misses/",
            "cpu_atom/branch-misses/",
            "adl_grt::UOPS_RETIRED:ALL",
            "cpu_atom/cycles/",
        ]
    );
    // A group becomes one group per core PMU.
    let g = vec![vec!["cycles".to_string(), "instructions".to_string()]];
    assert_eq!(
        expand_hybrid(&lib, &g),
        [
            vec!["cpu_core/cycles/", "cpu_core/instructions/"],
            vec!["cpu_atom/cycles/", "cpu_atom/instructions/"],
        ]
    );
    // Elsewhere nothing changes.
    assert_eq!(expand_hybrid(Library::global(), &defaults), defaults);
}

#[test]
fn a_generic_event_on_one_core_pmu_carries_its_type() {
    let lib = adl();
    let e = perf_syntax::resolve_one(&lib, "cpu_atom/cycles/", Plm::DEFAULT).expect("resolved");
    assert_eq!(
        (e.attr.type_, e.attr.config),
        (0, u64::from(ATOM_TYPE) << 32)
    );
    let e =
        perf_syntax::resolve_one(&lib, "cpu_core/instructions/u", Plm::DEFAULT).expect("resolved");
    assert_eq!(
        (e.attr.type_, e.attr.config),
        (0, u64::from(CORE_TYPE) << 32 | 1)
    );
    assert!(e.attr.exclude_kernel && !e.attr.exclude_user);
    let e = perf_syntax::resolve_one(&lib, "cpu_core/L1-dcache-load-misses/", Plm::DEFAULT)
        .expect("resolved");
    assert_eq!(
        (e.attr.type_, e.attr.config >> 32),
        (3, u64::from(CORE_TYPE))
    );
    // Terms and aliases are still the sysfs PMU's.
    let e = perf_syntax::resolve_one(&lib, "cpu_atom/event=0xc2,umask=0x0/", Plm::DEFAULT)
        .expect("resolved");
    assert_eq!((e.attr.type_, e.attr.config), (ATOM_TYPE, 0xc2));
    assert_eq!(
        hybrid::event_cpus(lib.host(), &e.attr),
        Some((16..20).collect())
    );
}

#[test]
fn a_command_counts_on_both_core_types_in_turn() {
    let (sim, lib) = (sim(), adl());
    let g = expand_hybrid(&lib, &groups(&["task-clock", "cycles", "instructions"]));
    let set = CounterSet::open_on(&sim, &lib, &g, &Scope::Workload, &Options::default());
    assert!((0..5).all(|i| set.error(i).is_none()), "{:?}", set.error(1));
    sim.exec();
    sim.run(MS);
    let r = set.read().expect("read");
    let r: Vec<_> = r.into_iter().map(|r| r.expect("counted")).collect();
    // cpu_core/cycles/: 3 per ns, 75% of the time; cpu_atom/cycles/ 25%.
    assert_eq!(
        (r[1].value, r[1].time_running, r[1].time_enabled),
        (3 * MS * 3 / 4, MS * 3 / 4, MS)
    );
    assert_eq!((r[2].value, r[2].time_running), (3 * MS / 4, MS / 4));
    assert_eq!((r[3].value, r[4].value), (2 * MS * 3 / 4, 2 * MS / 4));
}

#[test]
fn a_native_event_counts_only_on_its_core_types_cpus() {
    let (sim, lib) = (sim(), adl());
    let g = groups(&[
        "adl_grt::UOPS_RETIRED:ALL",
        "adl_glc::INST_RETIRED:ANY_P",
        "cpu_core/cycles/",
    ]);
    let set = CounterSet::open_on(
        &sim,
        &lib,
        &g,
        &Scope::Cpus(vec![3, 17]),
        &Options::default(),
    );
    assert!((0..3).all(|i| set.error(i).is_none()));
    set.enable().expect("enabled");
    sim.run(MS);
    let units = set.read_units().expect("read");
    // CPU 3 is a performance core, CPU 17 an efficiency core.
    assert!(units[0][0].is_none() && units[1][0].is_some());
    assert!(units[0][1].is_some() && units[1][1].is_none());
    assert_eq!(units[0][2].map(|r| r.value), Some(3 * MS));
    assert!(units[1][2].is_none());
    // Only efficiency cores asked for: the P-core events cannot count.
    let set = CounterSet::open_on(&sim, &lib, &g, &Scope::Cpus(vec![16]), &Options::default());
    assert!(set.error(0).is_none());
    let e = set.error(2).expect("not on CPU 16").to_string();
    assert!(e.contains("only on CPUs 0-15"), "{e}");
}

#[test]
fn the_simulated_kernel_refuses_a_core_pmu_on_the_other_kind_of_cpu() {
    let (sim, lib) = (sim(), adl());
    let o = Options::default();
    let e = pfmlib_perf::Counter::open_on(
        &sim,
        &lib,
        "cpu_atom/cycles/",
        pfmlib_perf::Target::Cpu(0),
        &o,
    );
    assert!(e.is_err());
    let c = pfmlib_perf::Counter::open_on(
        &sim,
        &lib,
        "cpu_atom/cycles/",
        pfmlib_perf::Target::Cpu(19),
        &o,
    )
    .expect("opened");
    c.enable().expect("enabled");
    sim.run(MS);
    assert_eq!(c.read().expect("read").value, 3 * MS);
}
