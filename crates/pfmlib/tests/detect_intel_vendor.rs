//! Detection of pfmlib's own Intel core PMUs (beyond libpfm4, from Intel's
//! event lists: `srf`, `grr`, `cwf`, `adln_grt`, `glp`, `ehl`) and of Jasper Lake as `tmt` (pfmlib's
//! own addition to libpfm4's tmt models), the way every `intel_x86` core
//! PMU is detected (vendor GenuineIntel, family, model with the extended
//! model folded in; the stepping is not looked at): synthetic hosts for
//! every model and stepping, neighbours that must not match, hosts decoded
//! from CPUID leaves, and the unprefixed lookup finding the active PMU.

mod common;

use pfmlib::host::CpuIdResult;
use pfmlib::{Host, Library, Os, Plm, Vendor};

/// The PMUs of this test and the family-6 models each is detected on.
const PMUS: &[(&str, &[u32])] = &[
    ("srf", &[0xaf]),
    ("grr", &[0xb6]),
    ("cwf", &[0xdd]),
    ("adln_grt", &[0xbe]),
    ("glp", &[0x7a]),
    ("tmt", &[0x86, 0x96, 0x9c]),
    ("ehl", &[0x96, 0x9c]),
];

use common::stepping_host as host;

/// The PMUs of [`PMUS`] present on `h`.
fn present(h: Host) -> Vec<&'static str> {
    common::present_on(h, PMUS.iter().map(|p| p.0))
}

#[test]
fn every_model_and_stepping_and_nothing_else() {
    for model in 0..=255 {
        let want: Vec<&str> = PMUS
            .iter()
            .filter(|p| p.1.contains(&model))
            .map(|p| p.0)
            .collect();
        for stepping in [0, 1, 5, 15] {
            let got = present(host(Vendor::Intel, 6, model, stepping));
            assert_eq!(got, want, "family 6 model {model:#x} stepping {stepping}");
        }
        for h in [
            host(Vendor::Intel, 15, model, 0),
            host(Vendor::Intel, 19, model, 0),
            host(Vendor::Amd, 6, model, 0),
            host(Vendor::Other, 6, model, 0),
        ] {
            assert!(
                present(h).is_empty(),
                "model {model:#x}: wrong vendor or family"
            );
        }
    }
}

/// On each host the PMU is the core PMU: unprefixed names reach it, and
/// `INST_RETIRED:ANY` is programmed as perf programs it (0xc0).
#[test]
fn unprefixed_events_reach_the_active_pmu() {
    for &(name, models) in &PMUS[..4] {
        let lib = Library::with_host(Host::synthetic(Vendor::Intel, 6, models[0]));
        let enc = lib
            .encode("INST_RETIRED:ANY", Plm::DEFAULT, Os::None)
            .expect("encodes");
        assert_eq!(enc.pmu, name);
        assert_eq!(enc.codes, [0x5300c0]);
        let enc = lib
            .encode(
                "OCR1:DEMAND_DATA_RD_ANY_RESPONSE",
                Plm::DEFAULT,
                Os::PerfEvent,
            )
            .expect("offcore");
        let p = enc.perf.expect("perf");
        assert_eq!((p.config, p.config1), (0x2b7, 0x10001), "{name}");
    }
}

/// A CPU that answers CPUID leaf 0 with "GenuineIntel" and leaf 1 with `eax1`.
fn intel_cpu(eax1: u32) -> impl Fn(u32, u32) -> CpuIdResult + Clone {
    move |leaf, _| {
        let r = |eax, ebx, ecx, edx| CpuIdResult { eax, ebx, ecx, edx };
        match leaf {
            0 => r(0x23, 0x756e_6547, 0x6c65_746e, 0x4965_6e69),
            1 => r(eax1, 0, 0, 0),
            _ => r(0, 0, 0, 0),
        }
    }
}

#[test]
fn cpuid_leaves() {
    for (eax1, want) in [
        (0x000a_06f3, &["srf"][..]), // Sierra Forest, model 0xaf (ext 0xa, base 0xf)
        (0x000b_0660, &["grr"]),     // Grand Ridge, model 0xb6
        (0x000d_06d1, &["cwf"]),     // Clearwater Forest, model 0xdd
        (0x000b_06e0, &["adln_grt"]), // Alder Lake-N, model 0xbe
        (0x0007_06a1, &["glp"]),     // Gemini Lake, model 0x7a
        (0x0009_06c0, &["tmt", "ehl"]), // Jasper Lake, model 0x9c
        (0x0009_0661, &["tmt", "ehl"]), // Elkhart Lake, model 0x96
    ] {
        let h = Host::from_cpuid(intel_cpu(eax1), None);
        assert_eq!(present(h), want, "CPUID.1:EAX {eax1:#x}");
    }
    // Base models alone (no extended model) match none of them.
    for eax1 in [
        0x0000_06f3,
        0x0000_0660,
        0x0000_06d1,
        0x0000_06e0,
        0x0000_06a1,
        0x0000_06c0,
        0x0000_0661,
    ] {
        assert!(present(Host::from_cpuid(intel_cpu(eax1), None)).is_empty());
    }
}

/// The ids of pfmlib's own PMUs: above upstream's PFM_PMU_MAX (700), in
/// the Intel block (701-749), stable.
#[test]
fn ids_beyond_libpfm4() {
    let lib = Library::global();
    for (name, id) in [
        ("srf", 701),
        ("grr", 702),
        ("cwf", 703),
        ("adln_grt", 704),
        ("glp", 705),
        ("ehl", 717),
    ] {
        let p = lib.pmu(name).expect("known");
        assert_eq!(p.info().id, id, "{name}");
    }
}

/// Goldmont Plus' offcore matrix: a request (group 0) and a response
/// (group 1, ANY_RESPONSE by default) make the response-register value.
#[test]
fn goldmont_plus_offcore_matrix() {
    let lib = Library::with_host(Host::synthetic(Vendor::Intel, 6, 0x7a));
    let perf = |s: &str| {
        let e = lib.encode(s, Plm::DEFAULT, Os::PerfEvent).expect(s);
        e.perf.map(|p| (p.config, p.config1))
    };
    assert_eq!(
        perf("OFFCORE_RESPONSE_0:DEMAND_DATA_RD"),
        Some((0x1b7, 0x10001))
    );
    assert_eq!(
        perf("OFFCORE_RESPONSE_1:DEMAND_RFO:L2_MISS_ANY"),
        Some((0x2b7, 0x3600000002))
    );
    assert_eq!(
        perf("OFFCORE_RESPONSE_0:DEMAND_DATA_RD:DEMAND_RFO:L2_HIT"),
        Some((0x1b7, 0x40003))
    );
}

/// Elkhart Lake (0x96) and Jasper Lake (0x9c) have both Tremont tables:
/// libpfm4's `tmt`, first for names without a prefix, and `ehl`, Intel's
/// whole list (its OUTSTANDING offcore values set bit 63, on OCR0 only).
#[test]
fn tremont_has_tmt_and_ehl() {
    for model in [0x96, 0x9c] {
        let lib = Library::with_host(Host::synthetic(Vendor::Intel, 6, model));
        for name in ["tmt", "ehl"] {
            assert!(
                lib.pmu(name).is_some_and(|p| p.info().is_present),
                "{name} on model {model:#x}"
            );
        }
        let perf = |s: &str| {
            let e = lib.encode(s, Plm::DEFAULT, Os::PerfEvent).expect(s);
            (e.pmu, e.perf.map(|p| (p.config, p.config1)))
        };
        // An event both have is tmt's; one only Intel's list has, ehl's.
        assert_eq!(perf("BR_INST_RETIRED:ALL_BRANCHES").0, "tmt");
        assert_eq!(perf("INST_RETIRED:ANY").0, "ehl");
        assert_eq!(
            perf("ehl::OCR0:ALL_CODE_RD_OUTSTANDING"),
            ("ehl", Some((0x1b7, 0x8000_0000_0000_0044)))
        );
        assert_eq!(
            perf("ehl::OCR1:DEMAND_RFO_L3_MISS"),
            ("ehl", Some((0x2b7, 0x21_8400_0002)))
        );
        assert!(lib
            .encode("ehl::OCR1:ALL_CODE_RD_OUTSTANDING", Plm::DEFAULT, Os::None)
            .is_err());
    }
}

/// As libpfm4's build (the C library), `ehl` is a second table of the
/// cores `tmt` covers: active only when forced or where `tmt` is disabled,
/// so that callers taking the one core PMU (PAPI) keep libpfm4's.
#[test]
fn ehl_is_a_second_table_in_libpfm4s_build() {
    use pfmlib::Options;
    let present = |o: Options, n: &str| {
        Library::new(host(Vendor::Intel, 6, 0x96, 0), o)
            .pmu(n)
            .is_some_and(|p| p.info().is_present)
    };
    let build = || Options::new().host_build_only(true);
    assert!(present(build(), "tmt") && !present(build(), "ehl"));
    assert!(present(build().force_pmu("ehl"), "ehl"));
    assert!(present(build().disable_pmus("tmt"), "ehl"));
    // pfmlib's own API has both.
    assert!(present(Options::new(), "tmt") && present(Options::new(), "ehl"));
}
