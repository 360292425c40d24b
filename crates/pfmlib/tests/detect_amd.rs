//! AMD64 detection as libpfm4 4.13's `pfm_amd64_detect` does it: every
//! family, model and stepping class its revision rules tell apart, on
//! synthetic hosts; event strings without a `pmu::` prefix resolve to the
//! PMU libpfm4 would choose there; the northbridge and L3 PMUs take their
//! perf_events type from the kernel's `type` file. On this machine the
//! presence of every AMD PMU and the unprefixed lookups are also compared
//! with the installed libpfm4.

use pfm_oracle::Libpfm4;
use pfmlib::{ErrorKind, Host, Library, Os, Plm, Vendor};

/// The AMD PMUs of this family (RAPL, detected by other rules, is left out).
fn amd_pmus(lib: &Library) -> Vec<&'static str> {
    lib.pmus()
        .map(|p| p.name())
        .filter(|n| n.starts_with("amd64_") && *n != "amd64_rapl")
        .collect()
}

/// The AMD PMUs present on a host.
fn present(family: u32, model: u32, stepping: u32) -> Vec<&'static str> {
    let mut h = Host::synthetic(Vendor::Amd, family, model);
    h.stepping = stepping;
    let lib = Library::with_host(h);
    let mut v: Vec<&'static str> = amd_pmus(&lib)
        .into_iter()
        .filter(|n| lib.pmu(n).is_some_and(|p| p.info().is_present))
        .collect();
    v.sort_unstable();
    v
}

/// libpfm4's revision rules (`amd64_get_revision`, upstream's), written out as the
/// model and stepping ranges they cover: the core PMU detected.
fn expected_core(family: u32, model: u32, stepping: u32) -> Option<&'static str> {
    Some(match family {
        6 => "amd64_k7",
        15 => match model {
            5 if stepping < 2 => "amd64_k8_revb",
            4 if stepping == 0 => "amd64_k8_revb",
            0x00..=0x0f => "amd64_k8_revc",
            0x10..=0x1f => "amd64_k8_revd",
            0x20..=0x3f => "amd64_k8_reve",
            0x40..=0x5f | 0xc0..=0xcf => "amd64_k8_revf",
            0x60..=0x8f => "amd64_k8_revg",
            _ => "amd64_k8_revb",
        },
        16 => match model {
            4..=6 => "amd64_fam10h_shanghai",
            8 | 9 => "amd64_fam10h_istanbul",
            _ => "amd64_fam10h_barcelona",
        },
        17 => "amd64_fam11h_turion",
        18 => "amd64_fam12h_llano",
        20 => "amd64_fam14h_bobcat",
        21 => "amd64_fam15h_interlagos",
        22 => "amd64_fam16h",
        23 if model < 0x30 => "amd64_fam17h_zen1",
        23 => "amd64_fam17h_zen2",
        // Upstream's rule (4.13: Zen 3 at 0-0Fh and 20h-5Fh, Zen 4 at 11h only).
        25 if (0x10..=0x1f).contains(&model) || model >= 0x60 => "amd64_fam19h_zen4",
        25 => "amd64_fam19h_zen3",
        _ => return None,
    })
}

/// Every AMD PMU libpfm4 makes present with that core PMU: the northbridge
/// beside Interlagos, the deprecated `amd64_fam17h` beside Zen 1, the L3
/// beside Zen 3.
fn expected(family: u32, model: u32, stepping: u32) -> Vec<&'static str> {
    let Some(core) = expected_core(family, model, stepping) else {
        return Vec::new();
    };
    let mut v = vec![core];
    match core {
        "amd64_fam15h_interlagos" => v.push("amd64_fam15h_nb"),
        "amd64_fam17h_zen1" => v.push("amd64_fam17h"),
        "amd64_fam19h_zen3" => v.push("amd64_fam19h_zen3_l3"),
        _ => {}
    }
    v.sort_unstable();
    v
}

/// Families 0-31, every model 0-255 (stepping 0), and every stepping of the
/// K8 models whose revision depends on it.
#[test]
fn every_family_model_and_stepping() {
    let mut checked = 0;
    for family in 0..32 {
        for model in 0..256 {
            let steppings: &[u32] = if family == 15 && model < 0x10 {
                &[0, 1, 2, 3, 7, 15]
            } else {
                &[0]
            };
            for &s in steppings {
                assert_eq!(
                    present(family, model, s),
                    expected(family, model, s),
                    "family {family} model {model:#x} stepping {s}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 8000);
}

/// The K8 revision boundaries, one by one.
#[test]
fn k8_revisions() {
    let cases = [
        (0x04, 0, "amd64_k8_revb"),
        (0x04, 1, "amd64_k8_revc"),
        (0x05, 0, "amd64_k8_revb"),
        (0x05, 1, "amd64_k8_revb"),
        (0x05, 2, "amd64_k8_revc"),
        (0x0f, 0, "amd64_k8_revc"),
        (0x10, 0, "amd64_k8_revd"),
        (0x1f, 9, "amd64_k8_revd"),
        (0x20, 0, "amd64_k8_reve"),
        (0x3f, 0, "amd64_k8_reve"),
        (0x40, 0, "amd64_k8_revf"),
        (0x5f, 0, "amd64_k8_revf"),
        (0x60, 0, "amd64_k8_revg"),
        (0x8f, 0, "amd64_k8_revg"),
        (0x90, 0, "amd64_k8_revb"),
        (0xbf, 0, "amd64_k8_revb"),
        (0xc0, 0, "amd64_k8_revf"),
        (0xcf, 0, "amd64_k8_revf"),
        (0xd0, 0, "amd64_k8_revb"),
        (0xff, 0, "amd64_k8_revb"),
    ];
    for (model, stepping, pmu) in cases {
        assert_eq!(present(15, model, stepping), vec![pmu], "model {model:#x}");
    }
}

/// Intel and other vendors with AMD's family numbers detect nothing here.
#[test]
fn other_vendors_detect_nothing() {
    for v in [Vendor::Intel, Vendor::Other] {
        for (f, m) in [(6, 1), (15, 0x41), (16, 2), (21, 1), (23, 1), (25, 1)] {
            let lib = Library::with_host(Host::synthetic(v, f, m));
            for n in amd_pmus(&lib) {
                assert!(
                    !lib.pmu(n).is_some_and(|p| p.info().is_present),
                    "{n} on {v:?} {f}/{m}"
                );
            }
        }
    }
}

/// An event name without a prefix goes to the first active PMU, in libpfm4's
/// order, that has it, passing over the deprecated `amd64_fam17h`.
#[test]
fn unprefixed_lookups() {
    let cases = [
        (6, 0, 0, "CPU_CLK_UNHALTED", "amd64_k7"),
        (15, 5, 0, "CPU_CLK_UNHALTED", "amd64_k8_revb"),
        (15, 0x41, 2, "RETIRED_INSTRUCTIONS", "amd64_k8_revf"),
        (16, 2, 0, "CPU_CLK_UNHALTED", "amd64_fam10h_barcelona"),
        (16, 4, 0, "CPU_CLK_UNHALTED", "amd64_fam10h_shanghai"),
        (16, 8, 0, "CPU_CLK_UNHALTED", "amd64_fam10h_istanbul"),
        (17, 3, 0, "CPU_CLK_UNHALTED", "amd64_fam11h_turion"),
        (18, 1, 0, "CPU_CLK_UNHALTED", "amd64_fam12h_llano"),
        (20, 2, 0, "CPU_CLK_UNHALTED", "amd64_fam14h_bobcat"),
        (21, 1, 0, "CPU_CLK_UNHALTED", "amd64_fam15h_interlagos"),
        (21, 2, 0, "DRAM_ACCESSES", "amd64_fam15h_nb"),
        (22, 0, 0, "CPU_CLK_UNHALTED", "amd64_fam16h"),
        (23, 1, 0, "RETIRED_INSTRUCTIONS", "amd64_fam17h_zen1"),
        (23, 0x31, 0, "RETIRED_INSTRUCTIONS", "amd64_fam17h_zen2"),
        (25, 1, 0, "RETIRED_INSTRUCTIONS", "amd64_fam19h_zen3"),
        (25, 0x21, 0, "UNC_L3_REQUESTS", "amd64_fam19h_zen3_l3"),
        (25, 0x11, 0, "RETIRED_INSTRUCTIONS", "amd64_fam19h_zen4"),
    ];
    for (f, m, s, ev, pmu) in cases {
        let mut h = Host::synthetic(Vendor::Amd, f, m);
        h.stepping = s;
        let enc = Library::with_host(h)
            .encode(ev, Plm::DEFAULT, Os::None)
            .unwrap_or_else(|e| panic!("{ev} on {f}/{m}: {e}"));
        assert_eq!(enc.pmu, pmu, "{ev} on {f}/{m}/{s}");
        assert!(enc.fstr.starts_with(&format!("{pmu}::")), "{}", enc.fstr);
    }
    // The deprecated name is still there with its prefix.
    let lib = Library::with_host(Host::synthetic(Vendor::Amd, 23, 1));
    let enc = lib
        .encode("amd64_fam17h::RETIRED_INSTRUCTIONS", Plm::DEFAULT, Os::None)
        .expect("prefixed deprecated PMU");
    assert_eq!(enc.pmu, "amd64_fam17h");
}

/// The northbridge's and the L3's perf_events type is the number in the
/// kernel's `type` file, read like `fscanf("%d")`; no file or no number is
/// PFM_ERR_NOTSUPP, a negative number is returned as the error.
#[test]
fn uncore_perf_types_come_from_sysfs() {
    let cases = [
        (
            21,
            1,
            "amd_nb",
            "amd64_fam15h_nb::DRAM_ACCESSES:DCT0_PAGE_HIT",
        ),
        (25, 1, "amd_l3", "amd64_fam19h_zen3_l3::UNC_L3_REQUESTS"),
    ];
    for (f, m, perf_name, ev) in cases {
        let file = format!("/sys/bus/event_source/devices/{perf_name}/type");
        let encode = |contents: Option<&str>, os| {
            let mut h = Host::synthetic(Vendor::Amd, f, m);
            if let Some(c) = contents {
                h = h.with_file(&file, c);
            }
            Library::with_host(h).encode(ev, Plm::DEFAULT, os)
        };
        for (contents, want) in [
            ("11\n", 11),
            ("  +12", 12),
            ("\t7abc", 7),
            ("4294967309", 13),
        ] {
            for os in [Os::PerfEvent, Os::PerfEventExt] {
                let enc = encode(Some(contents), os).expect("encodes");
                let perf = enc.perf.expect("perf fields");
                assert_eq!(perf.type_, want, "{ev} {contents:?}");
                assert_eq!(enc.codes.len(), 1);
                // The kernel owns EN, INT, USR, OS, host and guest.
                assert_eq!(perf.config, enc.codes[0] & !0x0300_0053_0000);
            }
        }
        for (contents, kind) in [
            (None, ErrorKind::NotSupported),
            (Some(""), ErrorKind::NotSupported),
            (Some("abc"), ErrorKind::NotSupported),
            (Some("-"), ErrorKind::NotSupported),
            (Some("-5"), ErrorKind::FeatureCombination),
        ] {
            let err = encode(contents, Os::PerfEvent).expect_err("no type");
            assert_eq!(err.kind(), kind, "{ev} {contents:?}");
        }
        // The raw encoding does not need the file.
        assert!(encode(None, Os::None).is_ok());
        // Errors of the raw encoding come first.
        let err = Library::with_host(Host::synthetic(Vendor::Amd, f, m))
            .encode(&format!("{ev}:0x1ff"), Plm::DEFAULT, Os::PerfEvent)
            .expect_err("bad raw unit mask");
        assert_eq!(err.kind(), ErrorKind::Attr);
    }
}

fn oracle() -> Option<Libpfm4> {
    match Libpfm4::load() {
        Ok(o) => Some(o),
        Err(e) => {
            if std::env::var_os("PFMLIB_REQUIRE_LIBPFM4").is_some() {
                panic!("libpfm4 required but not loadable: {e}");
            }
            eprintln!("SKIPPED: libpfm4 not available ({e})");
            None
        }
    }
}

/// On this machine: the same AMD PMUs are present as libpfm4 says, and every
/// event name of every present AMD PMU, without a prefix, resolves to the
/// same event of the same PMU.
#[test]
fn this_host_agrees_with_libpfm4() {
    let Some(o) = oracle() else { return };
    let lib = Library::global();
    for name in amd_pmus(lib) {
        let theirs = o.pmu_by_name(name).expect("libpfm4 knows the PMU");
        let ours = lib.pmu(name).expect("pmu").info();
        assert_eq!(ours.is_present, theirs.is_present, "{name}");
        if !ours.is_present {
            continue;
        }
        let events: Vec<&str> = lib
            .pmu(name)
            .expect("pmu")
            .events()
            .map(|e| e.name())
            .collect();
        for ev in events {
            let a = lib.encode(ev, Plm::DEFAULT, Os::None);
            let b = o.encode_raw(ev, Plm::DEFAULT.bits());
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    assert_eq!((a.fstr, a.idx as i32), (b.fstr, b.idx), "{ev}")
                }
                (Err(a), Err(b)) => assert_eq!(a.code(), b, "{ev}"),
                (a, b) => panic!("{ev}: pfmlib {a:?} / libpfm4 {:?}", b.map(|e| e.fstr)),
            }
        }
    }
}
