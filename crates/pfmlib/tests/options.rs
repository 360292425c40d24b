//! Libraries built with options: libpfm4's LIBPFM_FORCE_PMU,
//! LIBPFM_DISABLED_PMUS and LIBPFM_ENCODE_INACTIVE as values, and libraries
//! re-created at will.

use pfmlib::{ErrorKind, Host, Library, Options, Os, Plm, Vendor};

#[test]
fn a_forced_pmu_is_the_only_active_one_whatever_the_host() {
    let lib = Library::new(
        Host::synthetic(Vendor::Amd, 0x19, 1),
        Options::new().force_pmu("nhm"),
    );
    let active: Vec<&str> = lib.active_pmus().map(|p| p.name()).collect();
    assert_eq!(active, ["nhm"]);
    let enc = lib
        .encode("INST_RETIRED:ANY_P", Plm::DEFAULT, Os::None)
        .unwrap();
    assert_eq!((enc.pmu, enc.codes.as_slice()), ("nhm", &[0x5300c0][..]));
    // PMUs after the forced one in libpfm4's order are not set up at all.
    assert!(lib.pmu("perf").is_none());
    assert!(lib.pmu("amd64_fam19h_zen3").is_some());
}

#[test]
fn forcing_matches_a_prefix_ignoring_case_and_stops_at_a_comma() {
    let lib = Library::new(Host::none(), Options::new().force_pmu("NHM_E,whatever"));
    let active: Vec<&str> = lib.active_pmus().map(|p| p.name()).collect();
    assert_eq!(active, ["nhm_ex"]);
}

#[test]
fn a_forced_architectural_pmu_takes_libpfm4s_stand_in_leaf() {
    let lib = Library::new(Host::none(), Options::new().force_pmu("ix86arch"));
    let p = lib.pmu("ix86arch").unwrap().info();
    assert!(p.is_present);
    assert_eq!((p.num_cntrs, p.num_fixed_cntrs, p.nevents), (0, 0, 7));
    // Version 3: the `t` modifier.
    let enc = lib
        .encode("UNHALTED_CORE_CYCLES:t", Plm::DEFAULT, Os::None)
        .unwrap();
    assert_eq!(enc.codes, vec![0x73003c]);
}

#[test]
fn disabled_pmus_disappear() {
    let host = Host::synthetic(Vendor::Intel, 6, 26);
    let lib = Library::new(host, Options::new().disable_pmus("perf,unc"));
    let names: Vec<&str> = lib.pmus().map(|p| p.name()).collect();
    assert!(!names.iter().any(|n| *n == "perf" || n.contains("unc")));
    assert!(names.contains(&"nhm"));
    let e = lib
        .encode("perf::cycles", Plm::DEFAULT, Os::None)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
}

#[test]
fn inactive_pmus_are_encodable_only_when_asked() {
    let strict = Library::new(Host::none(), Options::libpfm4());
    let e = strict
        .encode("nhm::INST_RETIRED:ANY_P", Plm::DEFAULT, Os::None)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.message().contains("not active"), "{e}");
    let open = Library::new(Host::none(), Options::libpfm4().encode_inactive(true));
    assert!(open
        .encode("nhm::INST_RETIRED:ANY_P", Plm::DEFAULT, Os::None)
        .is_ok());
    // pfmlib's default is libpfm4 with LIBPFM_ENCODE_INACTIVE set.
    assert!(Library::with_host(Host::none())
        .encode("nhm::INST_RETIRED:ANY_P", Plm::DEFAULT, Os::None)
        .is_ok());
}

#[test]
fn libraries_are_recreated_at_will() {
    let a = Library::with_host(Host::synthetic(Vendor::Intel, 6, 26));
    let b = Library::with_host(Host::synthetic(Vendor::Intel, 6, 46));
    assert!(a.pmu("nhm").unwrap().info().is_present);
    assert!(!b.pmu("nhm").unwrap().info().is_present);
    assert!(b.pmu("nhm_ex").unwrap().info().is_present);
    let again = Library::with_host(a.host().clone());
    assert!(again.pmu("nhm").unwrap().info().is_present);
}

#[test]
fn events_chain_through_iterators() {
    let lib = Library::with_host(Host::synthetic(Vendor::Intel, 6, 26));
    let n = lib.active_pmus().flat_map(|p| p.events()).count();
    assert!(n > 100);
}

#[test]
fn prefixes_reach_left_out_pmus_when_asked() {
    let enc = |lib: &Library, s: &str| lib.encode(s, Plm::DEFAULT, Os::None);
    let disabled = Options::new().disable_pmus("nhm");
    let lib = Library::new(Host::none(), disabled.clone());
    let e = enc(&lib, "nhm::INST_RETIRED:ANY_P").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    let lib = Library::new(Host::none(), disabled.clone().encode_left_out(true));
    let e = enc(&lib, "nhm::INST_RETIRED:ANY_P").unwrap();
    assert_eq!(e.codes, vec![0x5300c0]);
    assert!(lib.pmu("nhm").is_none() && lib.event_by_idx(e.idx).is_none());
    assert_eq!(lib.event_of(&e).unwrap().name(), "INST_RETIRED");
    assert!(lib.find_event("nhm::INST_RETIRED").is_ok());
    // Only together with encode_inactive.
    let strict = disabled.encode_inactive(false).encode_left_out(true);
    let lib = Library::new(Host::none(), strict);
    assert!(enc(&lib, "nhm::INST_RETIRED:ANY_P").is_err());
    // libpfm4 upstream's environment: LIBPFM_ENCODE_INACTIVE reaches the
    // PMUs set up but not those after a forced one (4.13's did, which
    // encode_left_out keeps as an option).
    let env = |inactive: bool| {
        move |k: &str| match k {
            "LIBPFM_FORCE_PMU" => Some("nhm".to_string()),
            "LIBPFM_ENCODE_INACTIVE" => inactive.then(|| "1".to_string()),
            _ => None,
        }
    };
    let lib = Library::new(Host::none(), Options::libpfm4().with_env(env(false)));
    assert!(enc(&lib, "skx::INST_RETIRED:ANY_P").is_err());
    let lib = Library::new(Host::none(), Options::libpfm4().with_env(env(true)));
    assert!(lib.pmu("skx").is_none());
    let e = enc(&lib, "skx::INST_RETIRED:ANY_P").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    // A PMU set up before the forced one, inactive, is reached.
    assert!(lib.pmu("amd64_fam19h_zen3").is_some());
    assert!(enc(&lib, "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS").is_ok());
    let left_out = Options::libpfm4().with_env(env(true)).encode_left_out(true);
    let lib = Library::new(Host::none(), left_out);
    assert!(enc(&lib, "skx::INST_RETIRED:ANY_P").is_ok());
}

#[test]
fn host_build_only_keeps_the_tables_of_the_hosts_libpfm4_build() {
    use pfmlib::Arch;
    let opts = || {
        Options::new()
            .host_build_only(true)
            .encode_inactive(true)
            .encode_left_out(true)
    };
    // x86: the x86_64 build has nhm and the perf PMUs, not IA-64, Arm or i386.
    let x86 = Library::new(Host::none(), opts());
    for (name, there) in [
        ("nhm", true),
        ("perf", true),
        ("itanium2", false),
        ("arm_n1", false),
        ("p6", false),
    ] {
        assert_eq!(x86.pmu(name).is_some(), there, "x86: {name}");
    }
    assert!(x86.pmus().all(|p| p.name() != "montecito"));
    let err = x86
        .encode("itanium2::CPU_CYCLES", Plm::DEFAULT, Os::None)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    // arm64: its own build's PMUs (A64FX, Neoverse), no 32-bit cores, no x86.
    let arm64 = Library::new(Host::from_cpuinfo(Arch::Aarch64, ""), opts());
    for (name, there) in [
        ("arm_n1", true),
        ("arm_a64fx", true),
        ("perf", true),
        ("arm_ac15", false),
        ("nhm", false),
    ] {
        assert_eq!(arm64.pmu(name).is_some(), there, "arm64: {name}");
    }
    // Without the option every table is there.
    let all = Library::new(Host::none(), Options::new());
    assert!(all.pmu("itanium2").is_some() && all.pmu("arm_ac15").is_some());
}
