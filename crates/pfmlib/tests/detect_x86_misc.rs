//! Detection and kernel-dependent encodings of the Netburst, perf_raw, RAPL
//! and Sandy/Ivy Bridge C-box PMUs, over synthetic hosts. Expectations are
//! written from libpfm4 4.13's code (pfmlib_intel_netburst.c,
//! pfmlib_perf_event_raw.c, pfmlib_intel_rapl.c, pfmlib_amd64_rapl.c,
//! pfmlib_intel_snb_unc.c, pfmlib_intel_ivb_unc.c and the perf_events
//! encoders they use): libpfm4 reads CPUID and sysfs itself, so it cannot
//! be pointed at these hosts.

use pfmlib::{ErrorKind, Host, Library, Os, Plm, Vendor};

const POWER_TYPE: &str = "/sys/bus/event_source/devices/power/type";

/// The PMUs of this file active on `host`, by name.
fn active(host: Host) -> Vec<&'static str> {
    const MINE: [&str; 13] = [
        "netburst",
        "netburst_p",
        "perf_raw",
        "rapl",
        "amd64_rapl",
        "snb_unc_cbo0",
        "snb_unc_cbo1",
        "snb_unc_cbo2",
        "snb_unc_cbo3",
        "ivb_unc_cbo0",
        "ivb_unc_cbo1",
        "ivb_unc_cbo2",
        "ivb_unc_cbo3",
    ];
    let lib = Library::with_host(host);
    MINE.into_iter()
        .filter(|n| lib.pmu(n).is_some_and(|p| p.info().is_present))
        .collect()
}

/// A host without perf_events (no paranoid file): libpfm4 then skips the
/// kernel checks of its perf_events layer.
fn without_perf(mut h: Host) -> Host {
    h.perf_events = false;
    h
}

fn intel(model: u32) -> Host {
    Host::synthetic(Vendor::Intel, 6, model)
}

#[test]
fn netburst_models() {
    for model in [0, 1, 2, 5, 7, 0xf, 0x13] {
        let h = without_perf(Host::synthetic(Vendor::Intel, 15, model));
        assert_eq!(active(h), ["netburst"], "model {model}");
    }
    for model in [3, 4, 6] {
        let h = without_perf(Host::synthetic(Vendor::Intel, 15, model));
        assert_eq!(active(h), ["netburst_p"], "model {model}");
    }
    for h in [
        Host::synthetic(Vendor::Amd, 15, 1),
        Host::synthetic(Vendor::Intel, 6, 3),
        Host::synthetic(Vendor::Intel, 16, 3),
    ] {
        assert!(active(without_perf(h)).is_empty());
    }
}

#[test]
fn perf_raw_needs_perf_events() {
    assert_eq!(active(Host::none()), ["perf_raw"]);
    assert!(active(without_perf(Host::none())).is_empty());
    let old = without_perf(Host::none()).with_file("/proc/sys/kernel/perf_counter_paranoid", "1");
    assert_eq!(active(old), ["perf_raw"]);
}

/// Every model libpfm4's RAPL detection lists, with the event list it picks.
const RAPL_MODELS: [(&[u32], &[&str]); 4] = [
    (
        &[42, 58, 60, 69, 70, 61, 71, 92, 95, 102, 122],
        &["RAPL_ENERGY_CORES", "RAPL_ENERGY_PKG", "RAPL_ENERGY_GPU"],
    ),
    (
        &[45, 62],
        &["RAPL_ENERGY_CORES", "RAPL_ENERGY_PKG", "RAPL_ENERGY_DRAM"],
    ),
    (
        &[78, 94, 142, 158, 165, 166, 125, 126, 157],
        &[
            "RAPL_ENERGY_CORES",
            "RAPL_ENERGY_PKG",
            "RAPL_ENERGY_GPU",
            "RAPL_ENERGY_PSYS",
        ],
    ),
    (
        &[63, 79, 86, 85, 106, 108, 143],
        &["RAPL_ENERGY_PKG", "RAPL_ENERGY_DRAM"],
    ),
];

fn rapl_events(host: Host) -> Vec<&'static str> {
    let lib = Library::with_host(host);
    let p = lib.pmu("rapl").expect("rapl");
    p.events().map(|e| e.name()).collect()
}

#[test]
fn intel_rapl_models_and_event_lists() {
    let with_power = |m| intel(m).with_file("/sys/bus/event_source/devices/power/type", "17");
    for (models, events) in RAPL_MODELS {
        for &m in models {
            let present: Vec<_> = active(with_power(m))
                .into_iter()
                .filter(|n| n.contains("rapl"))
                .collect();
            assert_eq!(present, ["rapl"], "model {m}");
            assert_eq!(rapl_events(intel(m)), events, "model {m}");
            // Not exposed by the kernel: not active, the list is the model's.
            assert!(!active(intel(m)).contains(&"rapl"), "model {m}");
            // No perf_events at all: libpfm4 does not ask the kernel.
            assert!(
                active(without_perf(intel(m))).contains(&"rapl"),
                "model {m}"
            );
        }
    }
    let client = ["RAPL_ENERGY_CORES", "RAPL_ENERGY_PKG", "RAPL_ENERGY_GPU"];
    for h in [
        intel(26),
        Host::synthetic(Vendor::Intel, 15, 45),
        Host::synthetic(Vendor::Amd, 0x19, 1),
        Host::none(),
    ] {
        assert!(!active(h.clone()).contains(&"rapl"));
        assert_eq!(rapl_events(h), client);
    }
    // A forced PMU skips detection: the default (client) list; it is
    // active only where the kernel publishes it.
    for (h, active) in [(intel(63), false), (with_power(63), true)] {
        let forced = Library::new(h, pfmlib::Options::new().force_pmu("rapl"));
        let rapl = forced.pmu("rapl").expect("rapl");
        assert_eq!(rapl.info().is_present, active);
        let names: Vec<_> = rapl.events().map(|e| e.name()).collect();
        assert_eq!(names, client);
    }
}

#[test]
fn amd_rapl_on_zen2_to_zen4_only() {
    let amd = |f, m| Host::synthetic(Vendor::Amd, f, m);
    // Zen 4 (family 19h models 10h-1Fh, 60h and up) since upstream; 4.13
    // left it out.
    for (f, m) in [
        (0x17, 0x30),
        (0x17, 0x31),
        (0x17, 0x71),
        (0x19, 0),
        (0x19, 0x01),
        (0x19, 0x21),
        (0x19, 0x50),
        (0x19, 0x10),
        (0x19, 0x11),
        (0x19, 0x61),
        (0x19, 0xff),
    ] {
        assert_eq!(
            active(without_perf(amd(f, m))),
            ["amd64_rapl"],
            "{f:#x}/{m:#x}"
        );
        // No kernel check: present even without the power PMU.
        assert!(active(amd(f, m)).contains(&"amd64_rapl"), "{f:#x}/{m:#x}");
    }
    for (f, m) in [
        (0x17, 0x01),
        (0x17, 0x2f),
        (0x1a, 0x02),
        (0x1a, 0x50),
        (0x15, 0x30),
    ] {
        assert!(!active(amd(f, m)).contains(&"amd64_rapl"), "{f:#x}/{m:#x}");
    }
    assert!(!active(Host::synthetic(Vendor::Intel, 0x19, 1)).contains(&"amd64_rapl"));
}

#[test]
fn client_uncore_needs_the_kernel_boxes() {
    let boxes = |h: Host, n: u32| {
        (0..n).fold(h, |h, i| {
            h.with_file(
                &format!("/sys/bus/event_source/devices/uncore_cbox_{i}/type"),
                "12",
            )
        })
    };
    assert_eq!(
        active(boxes(intel(42), 4)),
        [
            "perf_raw",
            "snb_unc_cbo0",
            "snb_unc_cbo1",
            "snb_unc_cbo2",
            "snb_unc_cbo3"
        ]
    );
    assert_eq!(
        active(boxes(intel(58), 2)),
        ["perf_raw", "ivb_unc_cbo0", "ivb_unc_cbo1"]
    );
    assert_eq!(active(intel(42)), ["perf_raw"]);
    let no_perf: Vec<_> = active(without_perf(intel(58)));
    assert_eq!(
        no_perf,
        [
            "rapl",
            "ivb_unc_cbo0",
            "ivb_unc_cbo1",
            "ivb_unc_cbo2",
            "ivb_unc_cbo3"
        ]
    );
    for m in [26, 45, 60, 62] {
        assert!(active(boxes(intel(m), 4))
            .iter()
            .all(|n| !n.contains("_unc_cbo")));
    }
}

/// The perf_event_attr type and config of `s` on `host` with the
/// fully-qualified string, or the error kind. PMUs without privilege
/// levels exclude nothing (libpfm4 never excludes a level a PMU cannot
/// filter).
fn perf(host: &Host, s: &str, os: Os) -> Result<(u32, u64, String), ErrorKind> {
    Library::with_host(host.clone())
        .encode(s, Plm::DEFAULT, os)
        .map(|e| {
            let p = e.perf.expect("perf fields");
            if !s.starts_with("netburst") && !s.starts_with("perf_raw") {
                assert!(!(p.exclude_user || p.exclude_kernel || p.exclude_hv), "{s}");
                assert!(!(p.exclude_guest || p.exclude_host), "{s}");
            }
            (p.type_, p.config, e.fstr)
        })
        .map_err(|e| e.kind())
}

#[test]
fn rapl_perf_types_from_sysfs() {
    let h = |t: &str| Host::none().with_file(POWER_TYPE, t);
    let ev = "rapl::RAPL_ENERGY_PKG";
    // pfm_intel_x86_get_perf_encoding: the sysfs type, else PERF_TYPE_RAW;
    // -1 is its "not supported" value, so it also means raw.
    assert_eq!(
        perf(&h("17\n"), ev, Os::PerfEvent),
        Ok((17, 2, "rapl::RAPL_ENERGY_PKG".into()))
    );
    assert_eq!(perf(&Host::none(), ev, Os::PerfEvent).map(|p| p.0), Ok(4));
    assert_eq!(perf(&h("-1"), ev, Os::PerfEvent).map(|p| p.0), Ok(4));
    assert_eq!(perf(&h("junk"), ev, Os::PerfEvent).map(|p| p.0), Ok(4));
    assert_eq!(
        perf(&h("-5"), ev, Os::PerfEvent).map(|p| p.0),
        Ok(-5i32 as u32)
    );
    assert_eq!(
        perf(&h("17"), "rapl::RAPL_ENERGY_GPU:period=5", Os::PerfEventExt),
        Ok((17, 4, "rapl::RAPL_ENERGY_GPU:period=5:freq=5:excl=0".into()))
    );
    // pfm_amd64_get_perf_encoding: the sysfs type is required.
    let amd = "amd64_rapl::RAPL_ENERGY_PKG";
    assert_eq!(
        perf(&h("17"), &format!("{amd}:u=0"), Os::PerfEvent),
        Ok((17, 2, format!("{amd}:u=1:k=1:mg=1:mh=1")))
    );
    assert_eq!(
        perf(&Host::none(), amd, Os::PerfEvent),
        Err(ErrorKind::NotSupported)
    );
    assert_eq!(
        perf(&h("x"), amd, Os::PerfEvent),
        Err(ErrorKind::NotSupported)
    );
    assert_eq!(
        perf(&h("-5"), amd, Os::PerfEventExt),
        Err(ErrorKind::FeatureCombination)
    );
    // Errors of the event string come first.
    assert_eq!(
        perf(&Host::none(), &format!("{amd}:h"), Os::PerfEvent),
        Err(ErrorKind::Attr)
    );
}

#[test]
fn client_uncore_perf_types_from_sysfs() {
    // libpfm4 upstream finds the box among the kernel's perf_events PMUs it
    // lists at start-up: a directory with a type and a multiplexing
    // interval, on a kernel with perf_events.
    let listed = |h: Host, n: u32, ty: &str| {
        let d = format!("/sys/bus/event_source/devices/uncore_cbox_{n}");
        h.with_file(&format!("{d}/type"), ty)
            .with_file(&format!("{d}/perf_event_mux_interval_ms"), "4")
    };
    let h = listed(listed(Host::none(), 1, "11\n"), 0, "-2");
    // pfm_intel_nhm_unc_get_perf_encoding: the box's type, the code less
    // its enable (22) and interrupt (20) bits.
    assert_eq!(
        perf(&h, "ivb_unc_cbo1::UNC_CBO_CACHE_LOOKUP", Os::PerfEvent),
        Ok((
            11,
            0x8f34,
            "ivb_unc_cbo1::UNC_CBO_CACHE_LOOKUP:STATE_MESI:ANY_FILTER:e=0:i=0:c=0".into()
        ))
    );
    assert_eq!(
        perf(
            &h,
            "snb_unc_cbo1::UNC_CBO_XSNP_RESPONSE:HITM:EVICTION_FILTER:c=2:i",
            Os::PerfEventExt
        ),
        Ok((
            11,
            0x0280_8822,
            "snb_unc_cbo1::UNC_CBO_XSNP_RESPONSE:HITM:EVICTION_FILTER:e=0:i=1:c=2:excl=0".into()
        ))
    );
    // Upstream takes a negative type as read (4.13: the error it encodes).
    assert_eq!(
        perf(&h, "snb_unc_cbo0::UNC_CLOCKTICKS", Os::PerfEvent),
        Ok((-2i32 as u32, 0xff, "snb_unc_cbo0::UNC_CLOCKTICKS".into()))
    );
    // A box the kernel does not list: not found (4.13: not supported).
    assert_eq!(
        perf(&h, "snb_unc_cbo2::UNC_CBO_CACHE_LOOKUP", Os::PerfEvent),
        Err(ErrorKind::NotFound)
    );
    let unlisted = Host::none()
        .with_file("/sys/bus/event_source/devices/uncore_cbox_1/type", "11")
        .with_file(
            "/sys/bus/event_source/devices/uncore_cbox_1/perf_event_mux_interval_ms",
            "4",
        );
    assert_eq!(
        perf(
            &without_perf(unlisted.clone()),
            "snb_unc_cbo1::UNC_CBO_XSNP_RESPONSE:HITM",
            Os::PerfEvent
        ),
        Err(ErrorKind::NotFound),
        "no perf_events: no list"
    );
    assert!(perf(
        &unlisted,
        "snb_unc_cbo1::UNC_CBO_XSNP_RESPONSE:HITM",
        Os::PerfEvent
    )
    .is_ok());
    let clock = listed(Host::none(), 0, "15");
    assert_eq!(
        perf(&clock, "snb_unc_cbo0::UNC_CLOCKTICKS", Os::PerfEventExt),
        Ok((15, 0xff, "snb_unc_cbo0::UNC_CLOCKTICKS:excl=0".into()))
    );
    // No sampling on these boxes.
    assert_eq!(
        perf(
            &clock,
            "snb_unc_cbo0::UNC_CLOCKTICKS:period=10",
            Os::PerfEventExt
        ),
        Err(ErrorKind::Attr)
    );
}

/// The raw PERF_TYPE_RAW encodings of Netburst and perf_raw need no file.
#[test]
fn raw_typed_encodings() {
    let h = Host::none();
    assert_eq!(
        perf(&h, "netburst::BPU_fetch_request:thr=3", Os::PerfEvent),
        Ok((
            4,
            0x0200_020f_0037_1000,
            "netburst::BPU_fetch_request:TCMISS:k=1:u=1:e=0:cmpl=0:thr=3:u=1:k=1:mg=0:mh=1".into()
        ))
    );
    assert_eq!(
        perf(&h, "perf_raw::r0000:k=0", Os::PerfEvent).map(|p| (p.0, p.1)),
        Ok((4, 0))
    );
}

/// libpfm4 has every PMU of this file, and pfmlib too (where libpfm4 is
/// installed: the sweep then compares them all).
#[test]
fn shared_with_libpfm4() {
    let Ok(o) = pfm_oracle::Libpfm4::load() else {
        eprintln!("SKIPPED: libpfm4 not available");
        return;
    };
    let theirs: Vec<String> = o.pmus().into_iter().map(|p| p.name).collect();
    let lib = Library::global();
    for n in [
        "netburst",
        "netburst_p",
        "perf_raw",
        "rapl",
        "amd64_rapl",
        "snb_unc_cbo0",
        "snb_unc_cbo1",
        "snb_unc_cbo2",
        "snb_unc_cbo3",
        "ivb_unc_cbo0",
        "ivb_unc_cbo1",
        "ivb_unc_cbo2",
        "ivb_unc_cbo3",
    ] {
        assert!(theirs.iter().any(|t| t == n), "libpfm4 lacks {n}");
        assert!(lib.pmu(n).is_some(), "pfmlib lacks {n}");
    }
}

/// libpfm4 indexes the event list it swapped in: an event's index is its
/// position in the host's list.
#[test]
fn rapl_event_indexes_follow_the_host_list() {
    let id = |i: u32| (110 << 21) | i;
    for (models, events) in RAPL_MODELS {
        let lib = Library::with_host(intel(models[0]));
        for (i, name) in events.iter().enumerate() {
            let s = format!("rapl::{name}");
            let enc = lib.encode(&s, Plm::DEFAULT, Os::None).expect("encodes");
            assert_eq!(enc.idx, id(i as u32), "{s} on model {}", models[0]);
            let info = lib.find_event(&s).expect("event").info(Os::None);
            assert_eq!(info.idx, id(i as u32), "{s} on model {}", models[0]);
        }
    }
}

/// Any `r` and hexadecimal number names perf_raw's event, with that code.
#[test]
fn raw_names_carry_the_code() {
    let lib = Library::with_host(Host::none());
    let enc = lib
        .encode("r0x1a2b", Plm::DEFAULT, Os::None)
        .expect("encodes");
    assert_eq!(
        (enc.fstr.as_str(), enc.codes.as_slice()),
        ("perf_raw::r1a2b", &[0x1a2b][..])
    );
    let p = lib
        .encode("perf_raw::rc0:u", Plm::DEFAULT, Os::PerfEvent)
        .expect("encodes");
    assert_eq!(p.fstr, "perf_raw:::u=1:k=0:h=0:mg=0:mh=1");
    assert_eq!(p.perf.map(|a| (a.type_, a.config)), Some((4, 0xc0)));
    for bad in [
        "perf_raw::R12",
        "perf_raw::r12g",
        "perf_raw::rffffffffffffffff",
    ] {
        assert_eq!(
            lib.encode(bad, Plm::DEFAULT, Os::None)
                .map_err(|e| e.kind())
                .err(),
            Some(ErrorKind::NotFound),
            "{bad}"
        );
    }
}
