//! Intel server uncore (engine `intel_snbep_unc`): detection as libpfm4
//! 4.13 (and upstream, for the later generations) does it, and perf_events
//! encodings on made-up hosts whose kernel publishes the uncore PMUs. The
//! expected values are libpfm4's, taken from the installed library run with
//! the same files in a mount namespace (raw codes of the later generations:
//! libpfm4 upstream's build, `LIBPFM_ENCODE_INACTIVE=1`).

use pfmlib::{ErrorKind, Host, Library, Options, Os, Plm, Vendor};

/// The PMU name prefix of each generation, and the CPU models libpfm4
/// detects it on.
const GENERATIONS: &[(&str, &[u32])] = &[
    ("snbep_unc_", &[45]),
    ("ivbep_unc_", &[62]),
    ("hswep_unc_", &[63]),
    ("bdx_unc_", &[79, 86]),
    ("skx_unc_", &[85]),
    ("knl_unc_", &[87]),
    ("knm_unc_", &[133]),
    ("icx_unc_", &[106]),
    ("spr_unc_", &[143, 207]),
    ("gnr_unc_", &[173, 174]),
];

/// The generations of libpfm4 4.13 and how many PMUs they have there.
const LIBPFM4_413: (&[&str], usize) = (
    &[
        "snbep_unc_",
        "ivbep_unc_",
        "hswep_unc_",
        "bdx_unc_",
        "skx_unc_",
        "knl_unc_",
        "knm_unc_",
    ],
    321,
);

/// How many PMUs of a list belong to libpfm4 4.13's generations.
fn count_413<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names
        .filter(|n| LIBPFM4_413.0.iter().any(|g| n.starts_with(g)))
        .count()
}

/// Ivy Bridge-EP and later boxes are active only where the kernel
/// publishes them; Sandy Bridge-EP boxes are not checked.
fn checks_sysfs(prefix: &str) -> bool {
    prefix != "snbep_unc_"
}

/// Every server uncore PMU of a library, with its generation prefix.
fn server_pmus(lib: &Library) -> Vec<(&'static str, &'static str)> {
    lib.pmus()
        .filter_map(|p| {
            let name = p.info().name;
            GENERATIONS
                .iter()
                .find(|(g, _)| name.starts_with(g))
                .map(|(g, _)| (*g, name))
        })
        .collect()
}

/// A host of `model` whose kernel publishes every uncore PMU of the
/// library under `/sys/bus/event_source/devices` (or none).
fn host(vendor: Vendor, family: u32, model: u32, publish: bool) -> Host {
    let mut h = Host::synthetic(vendor, family, model);
    if publish {
        let lib = Library::with_host(Host::none());
        for p in lib.pmus() {
            if let Some(n) = perf_name(p.info().name) {
                h = h.with_file(&format!("/sys/bus/event_source/devices/{n}/type"), "1\n");
            }
        }
    }
    h
}

/// The kernel PMU name of a server uncore PMU (derived the way the tables
/// spell it, checked against libpfm4's for all 321; only used to build
/// host files).
fn perf_name(pmu: &str) -> Option<String> {
    let (_, box_) = pmu.split_once("_unc_")?;
    let stem = box_.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = &box_[stem.len()..];
    let kernel = match stem {
        "cbo" => "cbox",
        "sbo" => "sbox",
        "ubo" | "ubox" => "ubox",
        "imc_uclk" => "mc_uclk",
        other => other,
    };
    Some(if digits.is_empty() {
        format!("uncore_{kernel}")
    } else {
        format!("uncore_{kernel}_{digits}")
    })
}

fn present(lib: &Library, name: &str) -> bool {
    lib.pmu(name).is_some_and(|p| p.info().is_present)
}

#[test]
fn each_generation_is_detected_on_its_models_only() {
    let all = server_pmus(&Library::with_host(Host::none()));
    assert_eq!(
        count_413(all.iter().map(|(_, n)| *n)),
        LIBPFM4_413.1,
        "every libpfm4 4.13 server uncore PMU"
    );
    // Ice Lake-SP: every box of the tables of this generation.
    for n in (0..40).map(|i| format!("icx_unc_cha{i}")).chain(
        (0..6)
            .flat_map(|i| [format!("icx_unc_iio{i}"), format!("icx_unc_irp{i}")])
            .chain((0..4).map(|i| format!("icx_unc_upi{i}")))
            .chain(["icx_unc_pcu".to_string(), "icx_unc_ubox".to_string()])
            .chain((0..12).map(|i| format!("icx_unc_imc{i}")))
            .chain((0..2).map(|i| format!("icx_unc_m2m{i}")))
            .chain((0..4).map(|i| format!("icx_unc_m3upi{i}")))
            .chain((0..3).map(|i| format!("icx_unc_m2pcie{i}"))),
    ) {
        assert!(all.iter().any(|(_, a)| *a == n), "{n}");
    }
    // Sapphire/Emerald Rapids and Granite Rapids: 76 and 12 boxes.
    for n in (0..12)
        .map(|i| format!("spr_unc_imc{i}"))
        .chain((0..4).map(|i| format!("spr_unc_upi{i}")))
        .chain((0..60).map(|i| format!("spr_unc_cha{i}")))
        .chain((0..12).map(|i| format!("gnr_unc_imc{i}")))
    {
        assert!(all.iter().any(|(_, a)| *a == n), "{n}");
    }
    let newer = |g: &str| all.iter().filter(|(p, _)| *p == g).count();
    assert_eq!((newer("spr_unc_"), newer("gnr_unc_")), (76, 12));
    for (gen, models) in GENERATIONS {
        for &model in *models {
            let lib = Library::with_host(host(Vendor::Intel, 6, model, true));
            for (g, name) in &all {
                assert_eq!(present(&lib, name), g == gen, "{name} on model {model}");
            }
        }
    }
}

#[test]
fn libpfm4_ignores_the_family_on_intel_but_not_the_vendor() {
    // libpfm4's family test is only reached when the CPU is not Intel.
    let lib = Library::with_host(host(Vendor::Intel, 15, 45, true));
    assert!(present(&lib, "snbep_unc_cbo0"));
    let lib = Library::with_host(host(Vendor::Amd, 6, 45, true));
    assert!(!present(&lib, "snbep_unc_cbo0"));
    let lib = Library::with_host(host(Vendor::Intel, 6, 44, true));
    assert!(!present(&lib, "snbep_unc_cbo0"));
}

#[test]
fn later_boxes_need_the_kernel_to_publish_them() {
    let bare = Library::with_host(host(Vendor::Intel, 6, 63, false));
    let all = server_pmus(&bare);
    for (g, name) in all.iter().filter(|(g, _)| *g == "hswep_unc_") {
        assert!(checks_sysfs(g));
        assert!(
            !present(&bare, name),
            "{name} without /sys/bus/event_source/devices entry"
        );
    }
    // One box published: only that one is there.
    let h = Host::synthetic(Vendor::Intel, 6, 63)
        .with_file("/sys/bus/event_source/devices/uncore_cbox_3/type", "9");
    let lib = Library::with_host(h);
    assert!(present(&lib, "hswep_unc_cbo3"));
    assert!(!present(&lib, "hswep_unc_cbo2"));
    // 4.13's place (the kernel links both) is looked at too.
    let h = Host::synthetic(Vendor::Intel, 6, 63).with_file("/sys/devices/uncore_cbox_2/type", "9");
    assert!(present(&Library::with_host(h), "hswep_unc_cbo2"));
    // Sandy Bridge-EP boxes do not look.
    let lib = Library::with_host(host(Vendor::Intel, 6, 45, false));
    assert!(present(&lib, "snbep_unc_cbo0") && present(&lib, "snbep_unc_pcu"));
    // Without perf_events the kernel is not asked.
    let mut h = Host::synthetic(Vendor::Intel, 6, 62);
    h.perf_events = false;
    assert!(present(&Library::with_host(h), "ivbep_unc_cbo14"));
}

/// A forced box the kernel does not publish is passed over, and the search
/// goes on to the next PMU whose name starts with the forced one (libpfm4
/// runs its OS detection on a forced PMU too).
#[test]
fn a_forced_box_must_be_published_too() {
    let forced = |h: Host, name: &str| {
        let lib = Library::new(h, Options::new().force_pmu(name));
        lib.pmus()
            .filter(|p| p.info().is_present)
            .map(|p| p.info().name)
            .collect::<Vec<_>>()
    };
    let bare = Host::synthetic(Vendor::Intel, 6, 62);
    assert!(forced(bare.clone(), "ivbep_unc_cbo1").is_empty());
    let h = bare
        .clone()
        .with_file("/sys/bus/event_source/devices/uncore_cbox_10/type", "9");
    assert_eq!(forced(h, "ivbep_unc_cbo1"), ["ivbep_unc_cbo10"]);
    // Sandy Bridge-EP boxes are not checked, forced or not.
    assert_eq!(forced(bare, "snbep_unc_ha"), ["snbep_unc_ha"]);
}

/// A host publishing perf_events PMU `name` with type `ty`.
fn typed(name: &str, ty: &str) -> Library {
    typed_on(85, name, ty)
}

/// The same on a CPU of `model`.
fn typed_on(model: u32, name: &str, ty: &str) -> Library {
    let h = Host::synthetic(Vendor::Intel, 6, model)
        .with_file(&format!("/sys/bus/event_source/devices/{name}/type"), ty);
    Library::with_host(h)
}

/// (event string, kernel PMU, its type, config, config1, config2, raw codes)
type Case = (
    &'static str,
    &'static str,
    u32,
    u64,
    u64,
    u64,
    &'static [u64],
);

/// Encodings libpfm4 4.13 gives with these kernel PMU types.
const CASES: &[Case] = &[
    (
        "hswep_unc_cbo0::UNC_C_TOR_INSERTS:NID_OPCODE:OPC_RFO:nf=3",
        "uncore_cbox_0",
        30,
        0x4135,
        0x1800_0003_0000_0000,
        0,
        &[0x4135, 0x0, 0x1800_0003],
    ),
    (
        "snbep_unc_cbo1::UNC_C_TOR_INSERTS:NID_OPCODE:OPC_RFO:nf=3:tf=1",
        "uncore_cbox_1",
        31,
        0x84135,
        0xc000_0c01,
        0,
        &[0x84135, 0xc000_0c01],
    ),
    (
        "skx_unc_cha0::UNC_C_TOR_INSERTS:IA_MISS:loc:isoc",
        "uncore_cha_0",
        54,
        0x2135,
        0x8000_0002_0000_0000,
        0,
        &[0x2135, 0x0, 0x8000_0002],
    ),
    (
        "skx_unc_cha3::UNC_C_LLC_LOOKUP:DATA_READ",
        "uncore_cha_3",
        77,
        0x334,
        0xfe_0000,
        0,
        &[0x334, 0xfe_0000],
    ),
    (
        "ivbep_unc_pcu::UNC_P_FREQ_BAND2_CYCLES:ff=20",
        "uncore_pcu",
        134,
        0xd,
        0x14_0000,
        0,
        &[0xd, 0x14_0000],
    ),
    (
        "snbep_unc_pcu::UNC_P_POWER_STATE_OCCUPANCY:CORES_C3:e:i:t=5",
        "uncore_pcu",
        134,
        0xc500_8080,
        0,
        0,
        &[0xc500_8080],
    ),
    // Ice Lake-SP (libpfm4 upstream): `t` (6 bits) writes the whole
    // threshold byte, so it clears an `occ_e` given before it; wide unit
    // masks reach above bit 31; no filter words.
    (
        "icx_unc_pcu::UNC_P_POWER_STATE_OCCUPANCY:CORES_C3:occ_e:t=5",
        "uncore_pcu",
        41,
        0x0500_8080,
        0,
        0,
        &[0x0500_8080],
    ),
    (
        "icx_unc_pcu::UNC_P_POWER_STATE_OCCUPANCY:CORES_C3:t=5:occ_e:e",
        "uncore_pcu",
        41,
        0x8500_8080,
        0,
        0,
        &[0x8500_8080],
    ),
    (
        "icx_unc_cha2::UNC_CHA_TOR_INSERTS:IA_MISS_DRD_REMOTE_PMM",
        "uncore_cha_2",
        62,
        0xc8_170a_0000_0135,
        0,
        0,
        &[0xc8_170a_0000_0135],
    ),
    (
        "icx_unc_upi1::UNC_UPI_TxL_BASIC_HDR_MATCH:REQ_OPC:t=2",
        "uncore_upi_1",
        33,
        0x1_0200_0804,
        0,
        0,
        &[0x1_0200_0804],
    ),
    (
        "skx_unc_upi1::UNC_UPI_RXL_BASIC_HDR_MATCH:REQ:dnid=3",
        "uncore_upi_1",
        148,
        0x805,
        0x2300,
        0,
        &[0x805, 0x2300],
    ),
];

#[test]
fn perf_encodings_use_the_kernel_type_and_split_the_filters() {
    for &(s, kernel, ty, config, config1, config2, codes) in CASES {
        let model = if s.starts_with("icx_") { 106 } else { 85 };
        let lib = typed_on(model, kernel, &format!("{ty}\n"));
        let raw = lib.encode(s, Plm::DEFAULT, Os::None).expect(s);
        assert_eq!(raw.codes, codes, "{s}");
        for os in [Os::PerfEvent, Os::PerfEventExt] {
            let e = lib.encode(s, Plm::DEFAULT, os).expect(s);
            let p = e.perf.expect("perf fields");
            assert_eq!(
                (p.type_, p.config, p.config1, p.config2),
                (ty, config, config1, config2),
                "{s} {os:?}"
            );
            assert!(!p.exclude_user && !p.exclude_kernel && !p.exclude_hv, "{s}");
        }
    }
}

#[test]
fn fully_qualified_strings_follow_libpfm4() {
    let lib = typed("uncore_cha_0", "54");
    let s = "skx_unc_cha0::UNC_C_TOR_INSERTS:IA_MISS";
    let raw = lib.encode(s, Plm::DEFAULT, Os::None).expect(s);
    assert_eq!(raw.codes, [0x2135, 0x0, 0x3b], "filter 1 defaults to 0x3b");
    assert_eq!(
        raw.fstr,
        "skx_unc_cha0::UNC_C_TOR_INSERTS:IA_MISS:e=0:i=0:t=0:isoc=0:nc=0:loc=1:rem=1:lmem=1:rmem=1"
    );
    // `nc` shares hw_smpl's index: libpfm4 drops it under perf_events.
    let perf = lib.encode(s, Plm::DEFAULT, Os::PerfEventExt).expect(s);
    assert_eq!(
        perf.fstr,
        "skx_unc_cha0::UNC_C_TOR_INSERTS:IA_MISS:e=0:i=0:t=0:isoc=0:loc=1:rem=1:lmem=1:rmem=1:excl=0"
    );
    let nc = lib.encode(&format!("{s}:nc"), Plm::DEFAULT, Os::PerfEvent);
    assert_eq!(nc.map_err(|e| e.kind()).err(), Some(ErrorKind::Attr));
}

#[test]
fn the_kernel_type_is_read_like_fscanf() {
    let s = "bdx_unc_ha1::UNC_H_REQUESTS:READS";
    // No such PMU in the kernel: not supported, after the raw encoding.
    let lib = Library::with_host(Host::synthetic(Vendor::Intel, 6, 79));
    let e = lib.encode(s, Plm::DEFAULT, Os::PerfEvent).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotSupported);
    let e = lib
        .encode(
            "bdx_unc_ha1::UNC_H_REQUESTS:NOPE",
            Plm::DEFAULT,
            Os::PerfEvent,
        )
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Attr, "raw encoding errors come first");
    // Junk is not supported either; a negative type is returned as the error.
    let e = typed("uncore_ha_1", "x12").encode(s, Plm::DEFAULT, Os::PerfEvent);
    assert_eq!(e.unwrap_err().kind(), ErrorKind::NotSupported);
    let e = typed("uncore_ha_1", "-9").encode(s, Plm::DEFAULT, Os::PerfEvent);
    assert_eq!(e.unwrap_err().kind(), ErrorKind::AttrValue);
    let ok = typed("uncore_ha_1", "  110 trailing").encode(s, Plm::DEFAULT, Os::PerfEvent);
    assert_eq!(ok.expect(s).perf.expect("perf").type_, 110);
}

#[test]
fn sampling_attributes_depend_on_the_box() {
    let lib = typed("uncore_cbox_0", "30");
    // Sandy Bridge-EP boxes do not sample; later ones take a period.
    let snb = lib.encode(
        "snbep_unc_cbo0::UNC_C_CLOCKTICKS:period=100",
        Plm::DEFAULT,
        Os::PerfEventExt,
    );
    assert_eq!(snb.unwrap_err().kind(), ErrorKind::Attr);
    let hsw = lib
        .encode(
            "hswep_unc_cbo0::UNC_C_CLOCKTICKS:period=100",
            Plm::DEFAULT,
            Os::PerfEventExt,
        )
        .expect("period");
    assert_eq!(hsw.perf.expect("perf").sample_period, 100);
    // No privilege levels to filter.
    let u = lib.encode(
        "hswep_unc_cbo0::UNC_C_CLOCKTICKS:u",
        Plm::DEFAULT,
        Os::PerfEvent,
    );
    assert_eq!(u.unwrap_err().kind(), ErrorKind::Attr);
}

#[test]
fn every_libpfm4_server_uncore_pmu_is_here_with_its_id() {
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
    let is_server = |n: &str| GENERATIONS.iter().any(|(g, _)| n.starts_with(g));
    // The generations the oracle has (4.13's, or upstream's as well).
    let oracle_gens: Vec<&str> = GENERATIONS
        .iter()
        .map(|(g, _)| *g)
        .filter(|g| o.pmus().iter().any(|p| p.name.starts_with(g)))
        .collect();
    let in_oracle = |n: &str| oracle_gens.iter().any(|g| n.starts_with(g));
    let theirs: std::collections::BTreeSet<(String, u32)> = o
        .pmus()
        .into_iter()
        .filter(|p| is_server(&p.name))
        .map(|p| (p.name, p.id as u32))
        .collect();
    let lib = Library::with_host(Host::none());
    let ours: std::collections::BTreeSet<(String, u32)> = lib
        .pmus()
        .map(|p| p.info())
        .filter(|i| is_server(i.name) && in_oracle(i.name))
        .map(|i| (i.name.to_string(), i.id))
        .collect();
    assert_eq!(
        count_413(ours.iter().map(|(n, _)| n.as_str())),
        LIBPFM4_413.1
    );
    let only_ours: Vec<_> = ours.difference(&theirs).collect();
    let only_theirs: Vec<_> = theirs.difference(&ours).collect();
    assert!(
        only_ours.is_empty() && only_theirs.is_empty(),
        "only in pfmlib: {only_ours:?}; only in libpfm4: {only_theirs:?}"
    );
}

/// Encodings of libpfm4 upstream (June 2026) for the Sapphire Rapids and
/// Granite Rapids boxes on their own models: the wide unit masks (the CHA's
/// extended unit mask from bit 32, the IMC's read-buffer levels) go to the
/// control word as they are, and perf's `config` is that word.
#[test]
fn newer_generations_encode_wide_unit_masks() {
    const NEWER: &[(&str, u32, &str, u64)] = &[
        (
            "spr_unc_cha0::UNC_CHA_TOR_INSERTS:IA_MISS_DRD",
            143,
            "uncore_cha_0",
            0xc8_17fe_0000_0135,
        ),
        (
            "spr_unc_imc3::UNC_M_RDB_FULL:RDB_24_ELEM:t=2",
            207,
            "uncore_imc_3",
            0x1_0200_0019,
        ),
        (
            "spr_unc_upi1::UNC_UPI_TxL_FLITS:ALL_DATA:e",
            143,
            "uncore_upi_1",
            0x4_0f02,
        ),
        (
            "gnr_unc_imc0::UNC_M_CAS_COUNT_SCH1:RD",
            173,
            "uncore_imc_0",
            0xcf06,
        ),
    ];
    for &(s, model, kernel, code) in NEWER {
        let lib = typed_on(model, kernel, "42\n");
        let raw = lib.encode(s, Plm::DEFAULT, Os::None).expect(s);
        assert_eq!(raw.codes, [code], "{s}");
        let e = lib.encode(s, Plm::DEFAULT, Os::PerfEvent).expect(s);
        let p = e.perf.expect("perf fields");
        assert_eq!((p.type_, p.config, p.config1), (42, code, 0), "{s}");
    }
}
