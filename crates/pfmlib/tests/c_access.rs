//! The library API the C interface (crates/libpfm) is built on: PMUs by
//! libpfm4 id, events by opaque index and in `pfm_get_event_next` order,
//! one attribute at a time, C strings of the tables, and the settings an
//! encoding took from its string. Each is checked against the API it
//! shortcuts, for every event of every PMU.

use pfmlib::{AttrInfo, Host, Library, Options, Os, Plm, Vendor};

fn same(a: &AttrInfo, b: &AttrInfo) -> bool {
    (
        a.name,
        a.desc,
        a.equiv,
        a.code,
        a.attr_type,
        a.ctrl,
        a.idx,
        a.is_dfl,
    ) == (
        b.name,
        b.desc,
        b.equiv,
        b.code,
        b.attr_type,
        b.ctrl,
        b.idx,
        b.is_dfl,
    ) && (a.is_precise, a.speculation, a.support_hw_smpl)
        == (b.is_precise, b.speculation, b.support_hw_smpl)
}

#[test]
fn one_attribute_equals_the_list() {
    for host in [Host::synthetic(Vendor::Intel, 6, 26), Host::none()] {
        let lib = Library::with_host(host);
        for pmu in lib.pmus() {
            for ev in pmu.events() {
                for os in [Os::None, Os::PerfEvent, Os::PerfEventExt] {
                    let all = ev.attrs(os);
                    for (i, a) in all.iter().enumerate() {
                        let one = ev.attr(os, i).unwrap();
                        assert!(same(&one, a), "{}::{} {os:?} {i}", pmu.name(), ev.name());
                    }
                    assert!(ev.attr(os, all.len()).is_none());
                    assert!(ev.attr(os, usize::MAX).is_none());
                    assert_eq!(ev.info(os).nattrs, all.len());
                }
            }
        }
    }
}

#[test]
fn ids_indexes_and_the_walk() {
    let lib = Library::with_host(Host::synthetic(Vendor::Intel, 6, 26));
    for pmu in lib.pmus() {
        let id = pmu.id();
        assert_eq!(id, pmu.info().id);
        assert_eq!(lib.pmu_by_id(id).unwrap().name(), pmu.name());
        assert_eq!(pmu.name_cstr().to_str().unwrap(), pmu.name());
        assert_eq!(pmu.desc_cstr().to_str().unwrap(), pmu.desc());
        assert_eq!(pmu.is_active(), pmu.info().is_present);
        // libpfm4's architecture-default PMUs: x86's and IBM Z's.
        let arch_default = ["ix86arch", "cpum_cf", "cpum_sf"].contains(&pmu.name());
        assert_eq!(pmu.is_arch_default(), arch_default, "{}", pmu.name());
        // first_event / next walk the events in table order.
        let listed: Vec<u32> = pmu.events().map(|e| e.idx()).collect();
        let mut walked = Vec::new();
        let mut cur = pmu.first_event();
        while let Some(e) = cur {
            walked.push(e.idx());
            cur = e.next();
        }
        assert_eq!(walked, listed, "{}", pmu.name());
        for ev in pmu.events() {
            let idx = ev.idx();
            assert_eq!(idx, ev.info(Os::None).idx);
            let back = lib.event_by_idx(idx).unwrap();
            assert_eq!((back.name(), back.pmu().name()), (ev.name(), pmu.name()));
            assert_eq!(ev.desc(), ev.info(Os::None).desc);
            assert_eq!(ev.equiv(), ev.info(Os::None).equiv);
            assert_eq!(ev.code(), ev.info(Os::None).code);
            assert_eq!(
                pfmlib::c_support::table_cstr(ev.name()).unwrap().to_str(),
                Ok(ev.name())
            );
            assert_eq!(
                pfmlib::c_support::table_cstr(ev.desc()).unwrap().to_str(),
                Ok(ev.desc())
            );
            for a in ev.attrs(Os::PerfEventExt) {
                // Unit masks come from the tables, modifiers from Rust constants.
                let c = pfmlib::c_support::table_cstr(a.name);
                assert_eq!(
                    c.is_some(),
                    a.attr_type == pfmlib::AttrType::Umask,
                    "{}",
                    a.name
                );
            }
        }
        // Positions past the table, or holding no event of this PMU.
        assert!(lib.event_by_idx((id << 21) | 0x1f_ffff).is_none());
        assert!(pmu.event_at(usize::MAX).is_none());
    }
    assert!(lib.pmu_by_id(0).is_none());
    assert!(lib.pmu_by_id(1 << 20).is_none());
    assert!(lib.event_by_idx(0).is_none());
    // nhm and nhm_ex share a table: an event nhm lacks is not at its index.
    let nhm = lib.pmu("nhm").unwrap();
    let ex = lib.pmu("nhm_ex").unwrap();
    let missing: Vec<_> = ex
        .events()
        .filter(|e| nhm.event(e.name()).is_none())
        .collect();
    for e in missing {
        let local = e.idx() & 0x1f_ffff;
        assert!(
            lib.event_by_idx((nhm.id() << 21) | local).is_none(),
            "{}",
            e.name()
        );
    }
}

#[test]
fn disabled_pmus_have_no_id() {
    let lib = Library::new(Host::none(), Options::new().disable_pmus("nhm"));
    assert!(lib.pmu_by_id(15).is_none() && lib.pmu_by_id(16).is_none());
    assert!(lib.event_by_idx(15 << 21).is_none());
    assert!(lib.pmu_by_id(52).is_some());
}

#[test]
fn settings_of_an_encoding() {
    let lib = Library::with_host(Host::none());
    let plm = Plm::DEFAULT;
    for (s, period, freq, precise, excl) in [
        ("perf::cycles", false, false, false, false),
        ("perf::cycles:period=10", true, false, false, false),
        ("perf::cycles:freq=10:precise=2", false, true, true, false),
        (
            "nhm::INST_RETIRED:ANY_P:excl:precise=1",
            false,
            false,
            true,
            true,
        ),
        (
            "nhm::INST_RETIRED:ANY_P:u:k:mg:cpu=1:pinned",
            false,
            false,
            false,
            false,
        ),
    ] {
        let (enc, set) = lib.encode_with_settings(s, plm, Os::PerfEventExt).unwrap();
        assert_eq!(enc, lib.encode(s, plm, Os::PerfEventExt).unwrap(), "{s}");
        assert_eq!(
            (set.period, set.freq, set.precise, set.excl),
            (period, freq, precise, excl),
            "{s}"
        );
    }
    let e = lib.encode_with_settings("perf::cycles:period=0", plm, Os::PerfEventExt);
    assert_eq!(
        e.unwrap_err().kind(),
        lib.encode("perf::cycles:period=0", plm, Os::PerfEventExt)
            .unwrap_err()
            .kind()
    );
}

#[test]
fn auto_encoding_rule() {
    let lib = Library::with_host(Host::none());
    let ev = lib.find_event("nhm::ARITH").unwrap();
    let n = ev
        .attrs(Os::None)
        .iter()
        .filter(|a| a.attr_type == pfmlib::AttrType::Umask)
        .count();
    // The Intel family marks events that need more than one unit mask.
    assert_eq!(ev.can_auto_encode(0), Some(true));
    assert_eq!(ev.can_auto_encode(n), Some(false));
    // AMD's has no such mark.
    let ev = lib
        .find_event("amd64_fam19h_zen3::RETIRED_INSTRUCTIONS")
        .unwrap();
    assert_eq!(ev.can_auto_encode(0), None);
}
