//! Behaviour of the public API: lookups, encodings, errors, hosts.

use pfmlib::{ArchPerfmon, ErrorKind, Host, Library, Os, Plm, PmuKind, Vendor};

fn lib() -> &'static Library {
    Library::global()
}

#[test]
fn lookup_is_case_insensitive_with_or_without_prefix() {
    let a = lib().find_event("nhm::inst_retired").unwrap();
    let b = lib().find_event("NHM::INST_RETIRED:ANY_P").unwrap();
    assert_eq!(a.info(Os::None).idx, b.info(Os::None).idx);
    // perf events resolve without a prefix on any Linux host.
    assert_eq!(lib().find_event("cycles").unwrap().pmu().name(), "perf");
}

#[test]
fn unprefixed_names_only_search_active_pmus() {
    let none = Library::with_host(Host::none());
    assert_eq!(
        none.find_event("ARITH").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    let nehalem = Library::with_host(Host::synthetic(Vendor::Intel, 6, 26));
    assert_eq!(nehalem.find_event("ARITH").unwrap().pmu().name(), "nhm");
    let ex = Library::with_host(Host::synthetic(Vendor::Intel, 6, 46));
    assert_eq!(ex.find_event("arith").unwrap().pmu().name(), "nhm_ex");
}

#[test]
fn raw_encodings() {
    let enc = |s: &str| lib().encode(s, Plm::DEFAULT, Os::None).unwrap();
    assert_eq!(enc("nhm::ARITH:MUL").codes, vec![0x530214]);
    // DIV is an alias of CYCLES_DIV_BUSY with c=1, i=1, e=1.
    let div = enc("nhm::ARITH:DIV");
    assert_eq!(div.codes, vec![0x1d70114]);
    assert_eq!(
        div.fstr,
        "nhm::ARITH:CYCLES_DIV_BUSY:k=1:u=1:e=1:i=1:c=1:t=0"
    );
    // Offcore response: the unit masks go to the second code.
    let off = enc("nhm::OFFCORE_RESPONSE_0");
    assert_eq!(off.codes, vec![0x5301b7, 0xffff]);
    // Load latency: default threshold 3.
    assert_eq!(
        enc("nhm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD").codes,
        vec![0x53100b, 3]
    );
    assert_eq!(
        enc("nhm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=20").codes,
        vec![0x53100b, 20]
    );
    // '.' separates attributes too; repeated identical settings are fine.
    assert_eq!(enc("nhm::ARITH.mul.c=2.c=2").codes, vec![0x2530214]);
    // Privilege levels.
    assert_eq!(
        lib()
            .encode("nhm::ARITH:MUL", Plm::PLM3, Os::None)
            .unwrap()
            .codes,
        vec![0x510214]
    );
    assert_eq!(enc("nhm::ARITH:MUL:u=0").codes, vec![0x500214]);
}

#[test]
fn perf_encodings() {
    let e = lib()
        .encode("nhm::ARITH:MUL:u", Plm::DEFAULT, Os::PerfEventExt)
        .unwrap();
    let p = e.perf.unwrap();
    assert_eq!((p.type_, p.config), (4, 0x214));
    assert!(p.exclude_kernel && !p.exclude_user && p.exclude_guest && !p.exclude_hv);
    // The perf PMU takes its privilege levels from the host's core PMU
    // (`h` only where that PMU has a hypervisor level, as AMD's): a fixed
    // AMD Zen 3 host keeps this independent of the machine running it.
    let zen3 = Library::with_host(Host::synthetic(Vendor::Amd, 25, 1));
    let e = zen3
        .encode(
            "perf::PERF_COUNT_HW_CACHE_L1D",
            Plm::DEFAULT,
            Os::PerfEventExt,
        )
        .unwrap();
    assert_eq!(
        e.fstr,
        "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS:u=1:k=1:h=0:precise=0:excl=0:mg=0:mh=1"
    );
    assert_eq!(e.perf.unwrap().config, 0x10000);
    let e = lib()
        .encode(
            "perf::cycles:freq=100:cpu=2:pinned",
            Plm::DEFAULT,
            Os::PerfEventExt,
        )
        .unwrap();
    let p = e.perf.unwrap();
    assert!(p.freq && p.pinned && p.sample_period == 100);
    assert_eq!(e.cpu, Some(2));
    let k = p.to_kernel();
    assert_eq!(k.config, 0);
    assert_eq!(k.freq(), 1);
}

#[test]
fn errors_are_typed_and_name_the_cause() {
    let err = |s: &str, os: Os| lib().encode(s, Plm::DEFAULT, os).unwrap_err();
    let cases: &[(&str, Os, ErrorKind, &str)] = &[
        ("nhm::NO_SUCH", Os::None, ErrorKind::NotFound, "NO_SUCH"),
        ("nope::ARITH", Os::None, ErrorKind::NotFound, "nope"),
        ("nhm::ARITH", Os::None, ErrorKind::Umask, "CYCLES_DIV_BUSY"),
        ("nhm::ARITH:FOO", Os::None, ErrorKind::Attr, "FOO"),
        (
            "nhm::ARITH:MUL:c=256",
            Os::None,
            ErrorKind::AttrValue,
            "c=256",
        ),
        ("nhm::ARITH:MUL:c=1:c=2", Os::None, ErrorKind::AttrSet, "c"),
        (
            "nhm::ARITH:MUL:CYCLES_DIV_BUSY",
            Os::None,
            ErrorKind::FeatureCombination,
            "MUL",
        ),
        (
            "nhm::ARITH:MUL:e",
            Os::None,
            ErrorKind::Attr,
            "counter mask",
        ),
        (
            "nhm::ARITH:MUL,nhm::ARITH",
            Os::None,
            ErrorKind::Invalid,
            "one event",
        ),
        (
            "perf::cycles:precise=4",
            Os::PerfEventExt,
            ErrorKind::AttrValue,
            "precise",
        ),
        (
            "perf::cycles:u=2",
            Os::PerfEventExt,
            ErrorKind::AttrValue,
            "u",
        ),
        (
            "perf::cycles:period",
            Os::PerfEventExt,
            ErrorKind::AttrValue,
            "period",
        ),
        ("", Os::None, ErrorKind::NotFound, "not found"),
    ];
    for (s, os, kind, needle) in cases {
        let e = err(s, *os);
        assert_eq!(e.kind(), *kind, "{s}: {e}");
        assert!(
            e.to_string().contains(needle),
            "{s}: message {e:?} should mention {needle}"
        );
        assert_eq!(ErrorKind::from_code(e.code()), Some(*kind));
    }
    let long = ":u".repeat(65);
    assert_eq!(
        err(&format!("perf::cycles{long}"), Os::PerfEventExt).kind(),
        ErrorKind::TooMany
    );
}

#[test]
fn error_kinds_carry_libpfm4_codes_and_names() {
    assert_eq!(ErrorKind::AttrSet.code(), -10);
    assert_eq!(ErrorKind::AttrSet.name(), "PFM_ERR_ATTR_SET");
    assert_eq!(ErrorKind::FeatureCombination.code(), -5);
    assert_eq!(ErrorKind::TooMany.code(), -11);
    assert_eq!(ErrorKind::from_code(-99), None);
}

#[test]
fn architectural_pmu_follows_cpuid_leaf_0xa() {
    // Version 3, 4 generic counters of 48 bits, 3 fixed counters; EBX bit 2
    // (unhalted reference cycles) and bit 6 (mispredicted branches) unavailable.
    let mut h = Host::synthetic(Vendor::Intel, 6, 60);
    h.arch_perfmon = Some(ArchPerfmon {
        eax: 0x0730_0403,
        ebx: 0b100_0100,
        edx: 0x603,
    });
    let lib = Library::with_host(h);
    let arch = lib.pmu("ix86arch").unwrap();
    let info = arch.info();
    assert!(info.is_present);
    assert_eq!(
        (info.num_cntrs, info.num_fixed_cntrs, info.kind),
        (4, 3, PmuKind::Core)
    );
    let names: Vec<_> = arch.events().map(|e| e.name()).collect();
    assert_eq!(
        names,
        [
            "UNHALTED_CORE_CYCLES",
            "INSTRUCTION_RETIRED",
            "LLC_REFERENCES",
            "LLC_MISSES",
            "BRANCH_INSTRUCTIONS_RETIRED"
        ]
    );
    // Unprefixed names fall back to the architectural PMU on an unknown Intel model.
    let enc = lib
        .encode("LLC_MISSES:t:u:c=1:i", Plm::DEFAULT, Os::None)
        .unwrap();
    assert_eq!(enc.codes, vec![0x1f1412e]);
    assert_eq!(enc.fstr, "ix86arch::LLC_MISSES:k=0:u=1:e=0:i=1:c=1:t=1");
    assert_eq!(
        lib.encode(
            "ix86arch::UNHALTED_REFERENCE_CYCLES",
            Plm::DEFAULT,
            Os::None
        )
        .unwrap_err()
        .kind(),
        ErrorKind::NotFound
    );

    // Version 2 has no any-thread modifier; version 4 adds the TSX ones.
    let mut h2 = Host::synthetic(Vendor::Intel, 6, 60);
    h2.arch_perfmon = Some(ArchPerfmon {
        eax: 0x0730_0202,
        ebx: 0,
        edx: 0x603,
    });
    let v2 = Library::with_host(h2);
    assert_eq!(
        v2.encode("ix86arch::LLC_MISSES:t", Plm::DEFAULT, Os::None)
            .unwrap_err()
            .kind(),
        ErrorKind::Attr
    );
    let mut h4 = Host::synthetic(Vendor::Intel, 6, 60);
    h4.arch_perfmon = Some(ArchPerfmon {
        eax: 0x0730_0404,
        ebx: 0,
        edx: 0x603,
    });
    let v4 = Library::with_host(h4);
    let e = v4
        .encode(
            "ix86arch::BRANCH_INSTRUCTIONS_RETIRED:intx",
            Plm::DEFAULT,
            Os::None,
        )
        .unwrap();
    assert_eq!(e.codes, vec![0x1005300c4]);

    // Version 5 (libpfm4 upstream): the TSX modifiers, no any-thread.
    let mut h5 = Host::synthetic(Vendor::Intel, 6, 60);
    h5.arch_perfmon = Some(ArchPerfmon {
        eax: 0x0830_0805,
        ebx: 0,
        edx: 0x8604,
    });
    let v5 = Library::with_host(h5);
    let e = v5
        .encode(
            "ix86arch::BRANCH_INSTRUCTIONS_RETIRED:intxcp",
            Plm::DEFAULT,
            Os::None,
        )
        .unwrap();
    assert_eq!(e.codes, vec![0x2005300c4]);
    assert_eq!(
        v5.encode("ix86arch::LLC_MISSES:t", Plm::DEFAULT, Os::None)
            .unwrap_err()
            .kind(),
        ErrorKind::Attr
    );

    // AMD, or Intel without leaf 0xA: no architectural PMU.
    let amd = Library::with_host(Host::synthetic(Vendor::Amd, 23, 1));
    assert!(!amd.pmu("ix86arch").unwrap().info().is_present);
    assert_eq!(amd.pmu("ix86arch").unwrap().events().count(), 0);
}

#[test]
fn perf_pmu_takes_privilege_levels_of_the_core_pmu() {
    // On an Intel core PMU host there is no hypervisor level: `h` disappears.
    let nehalem = Library::with_host(Host::synthetic(Vendor::Intel, 6, 26));
    let e = nehalem
        .encode("perf::cycles", Plm::DEFAULT, Os::PerfEventExt)
        .unwrap();
    assert_eq!(
        e.fstr,
        "perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=1:precise=0:excl=0:mg=0:mh=1"
    );
    assert!(!e.perf.unwrap().exclude_hv);
    assert_eq!(
        nehalem
            .encode("perf::cycles:h", Plm::DEFAULT, Os::PerfEventExt)
            .unwrap_err()
            .kind(),
        ErrorKind::Attr
    );
}

#[test]
fn event_and_attribute_information() {
    let ev = lib().find_event("nhm::MEM_LOAD_RETIRED").unwrap();
    let info = ev.info(Os::None);
    assert!(info.is_precise);
    assert_eq!(info.code, 0xcb);
    let ext = ev.attrs(Os::PerfEventExt);
    assert!(ext.iter().any(|a| a.name == "precise"));
    assert!(!ext.iter().any(|a| a.name == "h"));
    let arith = lib().find_event("nhm::ARITH").unwrap();
    assert!(!arith
        .attrs(Os::PerfEventExt)
        .iter()
        .any(|a| a.name == "precise"));
    let div = arith
        .attrs(Os::None)
        .into_iter()
        .find(|a| a.name == "DIV")
        .unwrap();
    assert_eq!(div.equiv, Some("CYCLES_DIV_BUSY:c=1:i=1:e=1"));
    assert_eq!(div.code, 0x18401);
    assert_eq!(lib().pmu("nhm").unwrap().info().num_fixed_cntrs, 3);
}
