//! Detection of the older Intel core PMUs (core, atom, slm, glm, tmt, knc,
//! knl, knm) as libpfm4 4.13 does it (`pfm_intel_x86_model_detect`): the
//! vendor is GenuineIntel, the family (extended family folded in when the
//! base family is 0xf) equals the PMU's, and the model (extended model
//! folded in when the family is 6 or more) is in the PMU's list; the
//! stepping is never looked at. Checked with synthetic hosts, with hosts
//! decoded from made-up CPUID leaves, and on the running machine against the
//! installed libpfm4 where it can be loaded.

use pfm_oracle::Libpfm4;
use pfmlib::host::CpuIdResult;
use pfmlib::{Host, Library, Vendor};

/// libpfm4 4.13's family and model lists (pfmlib_intel_{core,atom,slm,glm,
/// tmt,knc,knl}.c), and tmt's Jasper Lake (0x9c), pfmlib's own addition
/// (`OWN_MODELS` of the libpfm4 comparison).
const PMUS: &[(&str, u32, &[u32])] = &[
    ("core", 6, &[15, 23, 29]),
    ("atom", 6, &[28, 38, 39, 53, 54]),
    ("slm", 6, &[55, 77, 76]),
    ("glm", 6, &[92, 95]),
    ("tmt", 6, &[0x86, 0x96, 0x9c]),
    ("knc", 11, &[1]),
    ("knl", 6, &[87]),
    ("knm", 6, &[133]),
];

fn present(lib: &Library, name: &str) -> bool {
    lib.pmu(name)
        .unwrap_or_else(|| panic!("{name} is a known PMU"))
        .info()
        .is_present
}

/// Which of our PMUs a host shows.
fn ours_present(host: Host) -> Vec<&'static str> {
    let lib = Library::with_host(host);
    PMUS.iter()
        .map(|&(name, _, _)| name)
        .filter(|name| present(&lib, name))
        .collect()
}

fn claimed(family: u32, model: u32) -> Option<&'static str> {
    PMUS.iter()
        .find(|(_, f, models)| *f == family && models.contains(&model))
        .map(|(name, _, _)| *name)
}

#[test]
fn every_listed_model_detects_its_pmu_alone() {
    for &(name, family, models) in PMUS {
        for &model in models {
            let got = ours_present(Host::synthetic(Vendor::Intel, family, model));
            assert_eq!(got, vec![name], "family {family} model {model:#x}");
        }
    }
}

#[test]
fn stepping_is_ignored() {
    for &(name, family, models) in PMUS {
        for &model in models {
            for stepping in 0..16 {
                let mut h = Host::synthetic(Vendor::Intel, family, model);
                h.stepping = stepping;
                assert_eq!(ours_present(h), vec![name], "{name} stepping {stepping}");
            }
        }
    }
}

#[test]
fn other_models_families_and_vendors_detect_nothing() {
    // Every model of families 6 and 11 that no list names.
    for family in [6, 11] {
        for model in 0..256 {
            let got = ours_present(Host::synthetic(Vendor::Intel, family, model));
            let want: Vec<&str> = claimed(family, model).into_iter().collect();
            assert_eq!(got, want, "family {family} model {model:#x}");
        }
    }
    for &(name, family, models) in PMUS {
        for &model in models {
            // Same model, another family (Netburst 15, Itanium-era 7, the
            // other family of the list).
            for other in [5, 7, 15, 16, if family == 6 { 11 } else { 6 }] {
                let got = ours_present(Host::synthetic(Vendor::Intel, other, model));
                let want: Vec<&str> = claimed(other, model).into_iter().collect();
                assert_eq!(got, want, "{name}: family {other} model {model:#x}");
            }
            // Same identity on another vendor.
            for vendor in [Vendor::Amd, Vendor::Other] {
                let got = ours_present(Host::synthetic(vendor, family, model));
                assert!(
                    got.is_empty(),
                    "{name}: {vendor:?} family {family} model {model:#x}"
                );
            }
        }
    }
}

/// CPUID leaf 1 EAX for a family, model and stepping, with the extended
/// fields as the SDM lays them out.
fn leaf1_eax(family: u32, model: u32, stepping: u32) -> u32 {
    let (base_family, ext_family) = if family >= 0xf {
        (0xf, family - 0xf)
    } else {
        (family, 0)
    };
    let (base_model, ext_model) = (model & 0xf, model >> 4);
    ext_family << 20 | ext_model << 16 | base_family << 8 | base_model << 4 | stepping
}

fn cpuid_host(vendor: [u32; 3], eax1: u32) -> Host {
    let r = |eax, ebx, ecx, edx| CpuIdResult { eax, ebx, ecx, edx };
    let cpuid = move |leaf: u32, _sub: u32| match leaf {
        0 => r(0xb, vendor[0], vendor[2], vendor[1]),
        1 => r(eax1, 0, 0, 0),
        _ => r(0, 0, 0, 0),
    };
    Host::from_cpuid(cpuid, None)
}

/// "GenuineIntel" and "AuthenticAMD" as EBX, EDX, ECX.
const GENUINE_INTEL: [u32; 3] = [0x756e_6547, 0x4965_6e69, 0x6c65_746e];
const AUTHENTIC_AMD: [u32; 3] = [0x6874_7541, 0x6974_6e65, 0x444d_4163];

#[test]
fn cpuid_decoding_reaches_the_same_pmus() {
    for &(name, family, models) in PMUS {
        for &model in models {
            let eax = leaf1_eax(family, model, 3);
            let h = cpuid_host(GENUINE_INTEL, eax);
            assert_eq!((h.family, h.model), (family, model), "{eax:#x}");
            assert_eq!(ours_present(h), vec![name], "CPUID.1:EAX {eax:#x}");
            assert!(
                ours_present(cpuid_host(AUTHENTIC_AMD, eax)).is_empty(),
                "AMD CPUID.1:EAX {eax:#x}"
            );
        }
    }
    // Extended model bits belong to the model from family 6 on: Tremont's
    // 0x96 is base model 6 with extended model 9, Knights Mill's 133 (0x85)
    // base 5 with extended 8; without them the base models alone (6, 5)
    // match nothing here.
    assert_eq!(
        ours_present(cpuid_host(GENUINE_INTEL, 0x0009_0661)),
        vec!["tmt"]
    );
    assert_eq!(
        ours_present(cpuid_host(GENUINE_INTEL, 0x0008_0651)),
        vec!["knm"]
    );
    assert!(ours_present(cpuid_host(GENUINE_INTEL, 0x0000_0661)).is_empty());
    // Knights Corner: family 11 (0xb), below 0xf, so no extended family.
    assert_eq!(
        ours_present(cpuid_host(GENUINE_INTEL, 0x0000_0b10)),
        vec!["knc"]
    );
}

#[test]
fn running_machine_agrees_with_libpfm4() {
    let o = match Libpfm4::load() {
        Ok(o) => o,
        Err(e) => {
            if std::env::var_os("PFMLIB_REQUIRE_LIBPFM4").is_some() {
                panic!("libpfm4 required but not loadable: {e}");
            }
            eprintln!("SKIPPED: libpfm4 not available ({e})");
            return;
        }
    };
    let lib = Library::with_host(Host::detect());
    for &(name, _, _) in PMUS {
        let theirs = o.pmu_by_name(name).expect("libpfm4 knows the PMU");
        assert_eq!(
            present(&lib, name),
            theirs.is_present,
            "{name} on this machine"
        );
    }
}
