//! s390x detection with hosts of our own making, in memory: the counter
//! facility `cpum_cf` and the sampling facility `cpum_sf` are present on an
//! s390x host whose kernel publishes them, and `cpum_cf`'s events are the
//! sets libpfm4 composes from the counter facility's versions
//! (`/proc/service_levels`) and the machine type (`/proc/sysinfo`): their
//! sizes, order, indexes and perf_events encodings, for every machine type
//! libpfm4 knows. `libpfm4_head_diff_s390x.rs` compares the same
//! compositions with libpfm4 itself.

use pfmlib::{Arch, Host, Library, Options, Os, Plm};

const DEVICES: &str = "/sys/bus/event_source/devices";

/// The first lines of an s390x `/proc/cpuinfo`.
const CPUINFO: &str =
    "vendor_id       : IBM/S390\n# processors    : 4\nbogomips per cpu: 24038.00\n";

/// An s390x host: machine `ty`, counter facility `version` (`"3.6"`, or
/// `None`: no line), and the kernel PMUs named in `published` (type 10, 11).
fn host(ty: &str, version: Option<&str>, published: &[&str]) -> Host {
    let mut h = Host::from_cpuinfo(Arch::S390x, CPUINFO)
        .with_file("/proc/sys/kernel/perf_event_paranoid", "2\n")
        .with_file(
            "/proc/sysinfo",
            &format!("Manufacturer:         IBM\nType:                 {ty}\nModel:                716              T01\n"),
        );
    if let Some(v) = version {
        h = h.with_file(
            "/proc/service_levels",
            &format!("VM: z/VM Version 7 Release 3\nCPU-MF: Counter facility: version={v} authorization=002f\nCPU-MF: Sampling facility: min_rate=18228 max_rate=170650405 cpu_speed=5200\n"),
        );
    }
    for (i, p) in published.iter().enumerate() {
        h = h.with_file(&format!("{DEVICES}/{p}/type"), &format!("{}\n", 10 + i));
    }
    h
}

/// Machine types libpfm4 knows, with the size and the first and last
/// counters of their extended set.
const MACHINES: &[(&str, usize, &str, &str)] = &[
    ("2097", 18, "L1I_L2_SOURCED_WRITES", "L2C_STORES_SENT"),
    ("2098", 18, "L1I_L2_SOURCED_WRITES", "L2C_STORES_SENT"),
    (
        "2817",
        24,
        "L1D_L2_SOURCED_WRITES",
        "L1I_OFFCHIP_L3_SOURCED_WRITES",
    ),
    (
        "2818",
        24,
        "L1D_L2_SOURCED_WRITES",
        "L1I_OFFCHIP_L3_SOURCED_WRITES",
    ),
    ("2827", 35, "DTLB1_MISSES", "TX_C_TABORT_SPECIAL"),
    ("2828", 35, "DTLB1_MISSES", "TX_C_TABORT_SPECIAL"),
    (
        "2964",
        56,
        "L1D_RO_EXCL_WRITES",
        "MT_DIAG_CYCLES_TWO_THR_ACTIVE",
    ),
    (
        "2965",
        56,
        "L1D_RO_EXCL_WRITES",
        "MT_DIAG_CYCLES_TWO_THR_ACTIVE",
    ),
    (
        "3906",
        53,
        "L1D_RO_EXCL_WRITES",
        "MT_DIAG_CYCLES_TWO_THR_ACTIVE",
    ),
    (
        "3907",
        53,
        "L1D_RO_EXCL_WRITES",
        "MT_DIAG_CYCLES_TWO_THR_ACTIVE",
    ),
    (
        "8561",
        57,
        "L1D_RO_EXCL_WRITES",
        "MT_DIAG_CYCLES_TWO_THR_ACTIVE",
    ),
    (
        "8562",
        57,
        "L1D_RO_EXCL_WRITES",
        "MT_DIAG_CYCLES_TWO_THR_ACTIVE",
    ),
    (
        "3931",
        70,
        "L1D_RO_EXCL_WRITES",
        "MT_DIAG_CYCLES_TWO_THR_ACTIVE",
    ),
    (
        "3932",
        70,
        "L1D_RO_EXCL_WRITES",
        "MT_DIAG_CYCLES_TWO_THR_ACTIVE",
    ),
    (
        "9175",
        77,
        "L1D_RO_EXCL_WRITES",
        "MT_DIAG_CYCLES_TWO_THR_ACTIVE",
    ),
    (
        "9176",
        77,
        "L1D_RO_EXCL_WRITES",
        "MT_DIAG_CYCLES_TWO_THR_ACTIVE",
    ),
];

/// Counter-facility versions: the line, and the sizes of the first-version
/// set and of the generic second-version set they give.
const VERSIONS: &[(Option<&str>, usize, usize)] = &[
    (Some("1.2"), 12, 16),
    (Some("3.5"), 8, 16),
    (Some("3.6"), 8, 20),
    (Some("3.8"), 8, 20),
    (Some("1.6"), 12, 20),
    (Some("2.6"), 0, 20),
    (Some("4.4"), 0, 16),
    (Some("3"), 0, 16),
    (None, 0, 16),
];

fn names(lib: &Library, pmu: &str) -> Vec<String> {
    lib.pmu(pmu)
        .unwrap()
        .events()
        .map(|e| e.name().to_string())
        .collect()
}

#[test]
fn every_machine_and_version_composes_libpfm4s_sets() {
    for &(ty, ext, first, last) in MACHINES {
        for &(version, fvn, svn) in VERSIONS {
            let lib = Library::with_host(host(ty, version, &["cpum_cf", "cpum_sf"]));
            let what = format!("type {ty} version {version:?}");
            let cf = lib.pmu("cpum_cf").unwrap();
            let info = cf.info();
            let n = fvn + svn + ext;
            assert!(info.is_present, "{what}");
            assert_eq!(info.nevents, n, "{what}");
            assert_eq!(
                (info.num_cntrs, info.num_fixed_cntrs),
                (0, n as u32),
                "{what}"
            );
            let ev = names(&lib, "cpum_cf");
            assert_eq!(ev[fvn + svn], first, "{what}");
            assert_eq!(ev[n - 1], last, "{what}");
            if fvn > 0 {
                assert_eq!(ev[0], "CPU_CYCLES", "{what}");
            }
            assert_eq!(ev[fvn], "PRNG_FUNCTIONS", "{what}");
            assert_eq!(ev[fvn + svn - 1].starts_with("ECC"), svn == 20, "{what}");
            // Indexes are positions in the composed list; every event
            // encodes, its counter number is the perf_events config.
            for (i, e) in cf.events().enumerate() {
                let s = format!("cpum_cf::{}", e.name());
                let info = e.info(Os::None);
                assert_eq!(info.idx & 0x1f_ffff, i as u32, "{what} {s}");
                let raw = lib.encode(&s, Plm::DEFAULT, Os::None).unwrap();
                assert_eq!((raw.codes.clone(), raw.idx), (vec![info.code], info.idx));
                let perf = lib.encode(&s, Plm::DEFAULT, Os::PerfEvent).unwrap();
                let p = perf.perf.unwrap();
                assert_eq!((p.type_, p.config), (10, info.code), "{what} {s}");
                assert_eq!(lib.find_event(&s).unwrap().info(Os::None).idx, info.idx);
            }
            let sf = lib.pmu("cpum_sf").unwrap().info();
            assert!(sf.is_present && sf.nevents == 2 && sf.num_fixed_cntrs == 2);
        }
    }
}

#[test]
fn unknown_machines_have_the_generic_sets_only() {
    for ty in ["0", "2096", "2099", "9177", "-8561", "z15", ""] {
        let lib = Library::with_host(host(ty, Some("3.6"), &["cpum_cf"]));
        let ev = names(&lib, "cpum_cf");
        assert_eq!(ev.len(), 28, "type {ty:?}");
        assert_eq!(ev.last().unwrap(), "ECC_BLOCKED_CYCLES_COUNT");
    }
    // strtol: leading sign and trailing junk are fine.
    let lib = Library::with_host(host("+8561abc", Some("3.6"), &["cpum_cf"]));
    assert_eq!(names(&lib, "cpum_cf").len(), 85);
}

#[test]
fn not_set_up_without_the_kernel_pmu() {
    // The sysfs directory is what libpfm4 detects; without it the PMU is
    // not set up: no events, CPUMF_COUNTER_MAX fixed counters.
    let lib = Library::with_host(host("8561", Some("3.6"), &["cpum_sf"]));
    let cf = lib.pmu("cpum_cf").unwrap().info();
    assert!(!cf.is_present);
    assert_eq!((cf.nevents, cf.num_fixed_cntrs), (0, 0xffff));
    assert!(lib.pmu("cpum_sf").unwrap().info().is_present);
    let lib = Library::with_host(host("8561", Some("3.6"), &[]));
    assert!(!lib.pmu("cpum_sf").unwrap().info().is_present);
    // Forced, it is set up whatever the kernel publishes.
    let forced = Library::new(
        host("8561", Some("3.6"), &[]),
        Options::new().force_pmu("cpum_cf"),
    );
    let cf = forced.pmu("cpum_cf").unwrap().info();
    assert!(cf.is_present);
    assert_eq!((cf.nevents, cf.num_fixed_cntrs), (85, 85));
    // ... but without a type file it encodes for no OS layer but the raw one.
    let e = forced.encode("CPU_CYCLES", Plm::DEFAULT, Os::PerfEvent);
    assert_eq!(e.map(|_| ()).map_err(|e| e.code()), Err(-4));
    assert!(forced.encode("CPU_CYCLES", Plm::DEFAULT, Os::None).is_ok());
}

#[test]
fn s390x_pmus_are_never_present_elsewhere() {
    let published = Host::none()
        .with_file(&format!("{DEVICES}/cpum_cf/type"), "10\n")
        .with_file(&format!("{DEVICES}/cpum_sf/type"), "11\n");
    let lib = Library::with_host(published);
    for p in ["cpum_cf", "cpum_sf"] {
        assert!(!lib.pmu(p).unwrap().info().is_present, "{p}");
    }
    assert_eq!(lib.pmu("cpum_cf").unwrap().events().count(), 0);
    assert!(Host::none().s390x.is_none());
}

#[test]
fn the_host_reads_the_facilities_facts() {
    let h = host("3931", Some("3.8"), &[]);
    let f = h.s390x.unwrap();
    assert_eq!((f.machine_type, f.cfvn, f.csvn), (3931, 3, 8));
    let f = host("2964", None, &[]).s390x.unwrap();
    assert_eq!((f.machine_type, f.cfvn, f.csvn), (2964, 0, 0));
}

#[test]
fn perf_encodings() {
    let lib = Library::with_host(host("9175", Some("3.8"), &["cpum_cf", "cpum_sf"]));
    let enc = |s: &str, os| lib.encode(s, Plm::DEFAULT, os);
    let e = enc("cpum_cf::CPU_CYCLES", Os::PerfEventExt).unwrap();
    let p = e.perf.unwrap();
    assert_eq!((p.type_, p.config), (10, 0));
    assert_eq!(e.fstr, "cpum_cf::CPU_CYCLES:u=1:k=1:h=1:excl=0:mg=0:mh=1");
    // cpum_cf filters problem state only: the kernel and hypervisor
    // exclusions stay 0.
    assert!(!p.exclude_kernel && !p.exclude_hv);
    let e = enc("cpum_cf::NNPA_RETRY_LOCK_WITH_PLO:u", Os::PerfEvent).unwrap();
    let p = e.perf.unwrap();
    assert_eq!(
        (p.config, p.exclude_user, p.exclude_kernel),
        (279, false, false)
    );
    let e = enc("cpum_sf::SF_CYCLES_BASIC_DIAG", Os::PerfEvent).unwrap();
    let p = e.perf.unwrap();
    assert_eq!((p.type_, p.config), (11, 0xbd000));
    // No precise mode, no hardware sampling.
    for bad in [
        "cpum_cf::CPU_CYCLES:precise=1",
        "cpum_sf::SF_CYCLES_BASIC:hw_smpl",
    ] {
        assert!(enc(bad, Os::PerfEventExt).is_err(), "{bad}");
    }
}
