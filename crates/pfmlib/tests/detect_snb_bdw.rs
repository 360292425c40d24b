//! Detection of the Sandy Bridge to Broadwell core PMUs, as libpfm4 4.13
//! does it (`pfm_intel_x86_model_detect`): a GenuineIntel CPU of family 6
//! whose model (extended model included) is in the PMU's list, nothing else
//! (no stepping, no CPUID leaf 0xA). Checked on synthetic hosts.

use pfmlib::{Host, Library, Vendor};

/// Every PMU of these tables with the models libpfm4 4.13 detects it on.
const MODELS: &[(&str, &[u32])] = &[
    ("snb", &[42]),
    ("snb_ep", &[45]),
    ("ivb", &[58]),
    ("ivb_ep", &[62]),
    ("hsw", &[60, 69, 70]),
    ("hsw_ep", &[63]),
    ("bdw", &[61, 71]),
    ("bdw_ep", &[79, 86]),
];

fn present(lib: &Library, pmu: &str) -> bool {
    lib.pmu(pmu)
        .expect("pfmlib knows the PMU")
        .info()
        .is_present
}

fn active(lib: &Library) -> Vec<String> {
    lib.active_pmus()
        .map(|p| p.name().to_string())
        .filter(|n| MODELS.iter().any(|(m, _)| m == n))
        .collect()
}

#[test]
fn each_model_selects_exactly_its_pmu() {
    for &(pmu, models) in MODELS {
        for &model in models {
            let lib = Library::with_host(Host::synthetic(Vendor::Intel, 6, model));
            assert!(present(&lib, pmu), "{pmu} not detected on 6/{model}");
            assert_eq!(active(&lib), [pmu], "family 6 model {model}");
        }
    }
}

#[test]
fn other_models_families_and_vendors_select_none() {
    let listed: Vec<u32> = MODELS.iter().flat_map(|(_, m)| m.iter().copied()).collect();
    for model in 0..=255 {
        if listed.contains(&model) {
            continue;
        }
        let lib = Library::with_host(Host::synthetic(Vendor::Intel, 6, model));
        assert!(active(&lib).is_empty(), "family 6 model {model}");
    }
    for &(pmu, models) in MODELS {
        for &model in models {
            for family in [5, 7, 15, 16] {
                let lib = Library::with_host(Host::synthetic(Vendor::Intel, family, model));
                assert!(!present(&lib, pmu), "{pmu} on family {family}");
            }
            for vendor in [Vendor::Amd, Vendor::Other] {
                let lib = Library::with_host(Host::synthetic(vendor, 6, model));
                assert!(!present(&lib, pmu), "{pmu} on {vendor:?} 6/{model}");
            }
        }
    }
}

#[test]
fn unprefixed_events_resolve_to_the_detected_pmu() {
    for &(pmu, models) in MODELS {
        let lib = Library::with_host(Host::synthetic(Vendor::Intel, 6, models[0]));
        let ev = lib.find_event("BR_INST_RETIRED").expect("event found");
        assert_eq!(ev.pmu().name(), pmu);
    }
}

#[test]
fn stepping_is_not_looked_at() {
    for &(pmu, models) in MODELS {
        for stepping in [0, 1, 7, 15] {
            let mut h = Host::synthetic(Vendor::Intel, 6, models[0]);
            h.stepping = stepping;
            assert!(
                present(&Library::with_host(h), pmu),
                "{pmu} stepping {stepping}"
            );
        }
    }
}

#[test]
fn running_host_agrees_with_libpfm4() {
    // libpfm4 cannot be given a made-up CPU; on the running machine both
    // libraries must agree on which of these PMUs are present.
    let o = match pfm_oracle::Libpfm4::load() {
        Ok(o) => o,
        Err(e) => {
            if std::env::var_os("PFMLIB_REQUIRE_LIBPFM4").is_some() {
                panic!("libpfm4 required but not loadable: {e}");
            }
            eprintln!("SKIPPED: libpfm4 not available ({e})");
            return;
        }
    };
    let lib = Library::global();
    for &(pmu, _) in MODELS {
        let theirs = o.pmu_by_name(pmu).expect("libpfm4 knows the PMU");
        assert_eq!(present(lib, pmu), theirs.is_present, "{pmu}");
    }
}
