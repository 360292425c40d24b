//! Detection of the Skylake, Ice Lake, Sapphire Rapids, Emerald Rapids,
//! Granite Rapids and hybrid Alder Lake / Raptor Lake (both core PMUs) core
//! PMUs, as libpfm4 detects them (4.13; emr, gnr and adl as upstream does)
//! (`pfm_intel_x86_model_detect`, and the stepping
//! test that tells Skylake X from Cascade Lake X): synthetic hosts for every
//! model of every PMU, neighbours that must not match, and recorded CPUID
//! leaves decoded the way libpfm4 decodes them (extended model folded in).

mod common;

use pfmlib::host::CpuIdResult;
use pfmlib::{Host, Library, Vendor};

/// The PMUs of this test and the (model, steppings) libpfm4 detects each on.
const PMUS: &[(&str, &[u32], std::ops::RangeInclusive<u32>)] = &[
    ("skl", &[78, 94, 142, 158, 165, 166], 0..=15),
    ("skx", &[85], 0..=4),
    ("clx", &[85], 5..=15),
    ("icl", &[108, 125, 126, 157, 140, 141, 167], 0..=15),
    ("icx", &[106], 0..=15),
    ("spr", &[143], 0..=15),
    ("emr", &[207], 0..=15),
    ("gnr", &[173, 174], 0..=15),
    // Hybrid Alder Lake / Raptor Lake (libpfm4 upstream): both core PMUs on
    // every model.
    ("adl_glc", &[0x97, 0x9a, 0xb7, 0xba, 0xbf], 0..=15),
    ("adl_grt", &[0x97, 0x9a, 0xb7, 0xba, 0xbf], 0..=15),
];

use common::stepping_host as host;

/// The PMUs of [`PMUS`] present on `h`.
fn present(h: Host) -> Vec<&'static str> {
    common::present_on(h, PMUS.iter().map(|p| p.0))
}

#[test]
fn every_model_and_stepping() {
    for &(name, models, ref steppings) in PMUS {
        for &model in models {
            for stepping in 0..16 {
                let got = present(host(Vendor::Intel, 6, model, stepping));
                let want: Vec<&str> = PMUS
                    .iter()
                    .filter(|p| p.1.contains(&model) && p.2.contains(&stepping))
                    .map(|p| p.0)
                    .collect();
                assert_eq!(got, want, "family 6 model {model} stepping {stepping}");
                if steppings.contains(&stepping) {
                    assert!(
                        got.contains(&name),
                        "{name}: model {model} stepping {stepping}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_active_core_pmu_answers_unprefixed_events() {
    for (model, stepping, pmu) in [
        (94, 3, "skl"),
        (85, 4, "skx"),
        (85, 7, "clx"),
        (106, 6, "icx"),
        (143, 8, "spr"),
        (207, 2, "emr"),
        (173, 1, "gnr"),
        (174, 1, "gnr"),
        // Hybrid: the P-core PMU comes first in libpfm4's lookup order.
        (0x97, 2, "adl_glc"),
        (0xb7, 1, "adl_glc"),
    ] {
        let lib = Library::with_host(host(Vendor::Intel, 6, model, stepping));
        let ev = lib.find_event("INST_RETIRED").expect("found");
        assert_eq!(ev.pmu().name(), pmu, "model {model} stepping {stepping}");
    }
}

#[test]
fn neighbours_do_not_match() {
    let all_models: Vec<u32> = PMUS.iter().flat_map(|p| p.1.iter().copied()).collect();
    for model in (0..=255).filter(|m| !all_models.contains(m)) {
        assert!(
            present(host(Vendor::Intel, 6, model, 0)).is_empty(),
            "model {model}"
        );
    }
    for &(name, models, _) in PMUS {
        for &model in models {
            // Right model, wrong family or vendor.
            for h in [
                host(Vendor::Intel, 15, model, 5),
                host(Vendor::Intel, 5, model, 5),
                host(Vendor::Amd, 6, model, 5),
                host(Vendor::Other, 6, model, 5),
            ] {
                assert!(present(h).is_empty(), "{name} model {model}");
            }
        }
    }
}

/// A CPU that answers CPUID leaf 0 with "GenuineIntel" and leaf 1 with `eax1`.
fn intel_cpu(eax1: u32) -> impl Fn(u32, u32) -> CpuIdResult + Clone {
    move |leaf, _| {
        let r = |eax, ebx, ecx, edx| CpuIdResult { eax, ebx, ecx, edx };
        match leaf {
            0 => r(0x1b, 0x756e_6547, 0x6c65_746e, 0x4965_6e69),
            1 => r(eax1, 0, 0, 0),
            _ => r(0, 0, 0, 0),
        }
    }
}

#[test]
fn recorded_cpuid_leaves() {
    for (eax1, want) in [
        (0x0005_06e3, "skl"), // Skylake desktop, model 0x5e
        (0x0008_06ea, "skl"), // Kaby Lake mobile, model 0x8e
        (0x000a_0655, "skl"), // Comet Lake, model 0xa5
        (0x0005_0654, "skx"), // Skylake-SP, model 0x55 stepping 4
        (0x0005_0657, "clx"), // Cascade Lake, stepping 7
        (0x0005_065b, "clx"), // Cooper Lake, stepping 11
        (0x0007_06e5, "icl"), // Ice Lake client, model 0x7e
        (0x0008_06c1, "icl"), // Tiger Lake, model 0x8c
        (0x000a_0671, "icl"), // Rocket Lake, model 0xa7
        (0x0006_06a6, "icx"), // Ice Lake-SP, model 0x6a
        (0x0008_06f8, "spr"), // Sapphire Rapids, model 0x8f
        (0x000c_06f2, "emr"), // Emerald Rapids, model 0xcf
        (0x000a_06d1, "gnr"), // Granite Rapids X, model 0xad
        (0x000a_06e1, "gnr"), // Granite Rapids D, model 0xae
    ] {
        let h = Host::from_cpuid(intel_cpu(eax1), None);
        assert_eq!(present(h), [want], "CPUID.1:EAX {eax1:#x}");
    }
    for eax1 in [
        0x0009_0672, // Alder Lake S, model 0x97
        0x0009_06a3, // Alder Lake P, model 0x9a
        0x000b_0671, // Raptor Lake S, model 0xb7
        0x000b_06a2, // Raptor Lake P, model 0xba
        0x000b_06f2, // Raptor Lake S refresh, model 0xbf
    ] {
        let h = Host::from_cpuid(intel_cpu(eax1), None);
        assert_eq!(
            present(h),
            ["adl_glc", "adl_grt"],
            "hybrid CPUID.1:EAX {eax1:#x}"
        );
    }
    // Family 15 with extended family: never one of these.
    let h = Host::from_cpuid(intel_cpu(0x0010_0f55), None);
    assert!(present(h).is_empty());
}
