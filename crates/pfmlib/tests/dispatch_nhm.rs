//! Nehalem dispatch: counter assignment and exact register values, derived
//! from the Intel SDM layouts and cross-checked against the event encoder.

use pfmlib::dispatch::{dispatch, Dispatch, DispatchErrorKind as K, Request};
use pfmlib::{Library, Os, Plm};

fn run(json: &str) -> Result<Dispatch, pfmlib::dispatch::DispatchError> {
    let req: Request = serde_json::from_str(json).expect("valid request");
    dispatch(Library::global(), &req)
}

fn pmc(d: &Dispatch, name: &str) -> Option<u64> {
    d.pmcs.iter().find(|r| r.reg.name == name).map(|r| r.value)
}

#[test]
fn single_events_match_the_encoder() {
    for (ev, plm, plm_bits) in [
        ("ARITH:MUL", "uk", Plm::DEFAULT),
        ("INST_RETIRED:ANY_P", "u", Plm::PLM3),
        ("MEM_LOAD_RETIRED:L1D_HIT", "k", Plm::PLM0),
        (
            "OFFCORE_RESPONSE_0:DMND_DATA_RD:LOCAL_DRAM",
            "uk",
            Plm::DEFAULT,
        ),
        ("BR_INST_EXEC:COND", "uk", Plm::DEFAULT),
    ] {
        let d = run(&format!(
            r#"{{"pmu":"nhm","events":[{{"event":"{ev}","plm":"{plm}"}}]}}"#
        ))
        .unwrap();
        let enc = Library::global()
            .encode(&format!("nhm::{ev}"), plm_bits, Os::None)
            .unwrap();
        assert_eq!(d.assignments[0].counter.name, "PMC0", "{ev}");
        assert_eq!(pmc(&d, "PERFEVTSEL0"), Some(enc.codes[0]), "{ev}");
        assert_eq!(d.assignments[0].fstr, enc.fstr);
        assert_eq!(pmc(&d, "PERF_GLOBAL_CTRL"), Some(0x1));
    }
}

#[test]
fn fixed_counters_when_allowed() {
    let d = run(r#"{"pmu":"nhm","events":[
        {"event":"INSTRUCTION_RETIRED"},
        {"event":"UNHALTED_CORE_CYCLES","plm":"u","flags":["anythr"]},
        {"event":"UNHALTED_REFERENCE_CYCLES","plm":"k"}]}"#)
    .unwrap();
    let names: Vec<_> = d
        .assignments
        .iter()
        .map(|a| a.counter.name.as_str())
        .collect();
    assert_eq!(names, ["FIXED_CTR0", "FIXED_CTR1", "FIXED_CTR2"]);
    // ctr0: OS|USR|PMI = 0xb; ctr1: USR|ANY|PMI = 0xe; ctr2: OS|PMI = 0x9.
    assert_eq!(pmc(&d, "FIXED_CTR_CTRL"), Some(0x9eb));
    assert_eq!(pmc(&d, "PERF_GLOBAL_CTRL"), Some(0x7 << 32));
    assert_eq!(pmc(&d, "PERFEVTSEL0"), None);
    let pmds: Vec<_> = d.pmds.iter().map(|r| (r.name.as_str(), r.addr)).collect();
    assert_eq!(
        pmds,
        [
            ("FIXED_CTR0", 0x309),
            ("FIXED_CTR1", 0x30a),
            ("FIXED_CTR2", 0x30b)
        ]
    );
}

#[test]
fn counter_mask_and_flags_force_a_generic_counter() {
    let d = run(r#"{"pmu":"nhm","events":[{"event":"INSTRUCTION_RETIRED","cnt_mask":3,"flags":["inv","edge"]}]}"#).unwrap();
    assert_eq!(d.assignments[0].counter.name, "PMC0");
    // event 0xc0, OS|USR|INT|EN, edge bit 18, inv bit 23, cmask 3.
    assert_eq!(pmc(&d, "PERFEVTSEL0"), Some(0x03d700c0));
    // Reference cycles exist only on fixed counter 2, which takes no counter mask.
    let e = run(r#"{"pmu":"nhm","events":[{"event":"UNHALTED_REFERENCE_CYCLES","cnt_mask":1}]}"#)
        .unwrap_err();
    assert_eq!(e.kind(), K::NoAssign);
}

#[test]
fn constrained_events_are_placed_first() {
    // L1D events only run on PMC0/PMC1; ARITH anywhere.
    let d = run(r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL"},{"event":"L1D:REPL"},{"event":"CACHE_LOCK_CYCLES:L1D"}]}"#).unwrap();
    let names: Vec<_> = d
        .assignments
        .iter()
        .map(|a| a.counter.name.as_str())
        .collect();
    assert_eq!(names, ["PMC2", "PMC0", "PMC1"]);
    let e = run(r#"{"pmu":"nhm","events":[{"event":"L1D:REPL"},{"event":"CACHE_LOCK_CYCLES:L1D"},{"event":"L1D:M_EVICT"}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::NoAssign);
    assert!(e.to_string().contains("L1D:M_EVICT"));
    let many: Vec<String> = (0..8)
        .map(|_| r#"{"event":"ARITH:MUL"}"#.to_string())
        .collect();
    let e = run(&format!(r#"{{"pmu":"nhm","events":[{}]}}"#, many.join(","))).unwrap_err();
    assert_eq!(e.kind(), K::TooMany);
}

#[test]
fn flags_are_checked_per_pmu() {
    let e =
        run(r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL","flags":["occ_rst"]}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::Invalid);
    assert!(e.to_string().contains("occ_rst"));
    let e = run(r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL","cnt_mask":256}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::Invalid);
    let e = run(r#"{"pmu":"nhm","events":[{"event":"NOPE"}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::NotFound);
    let e = run(r#"{"pmu":"nhm","events":[{"event":"ARITH"}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::Umask);
    let e = run(r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL:c=2","cnt_mask":3}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::FeatureCombination);
    let e = run(r#"{"pmu":"nhm","events":[{"event":"perf::cycles"}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::Invalid);
    let e = run(r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL","plm":"h"}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::Invalid);
}

#[test]
fn pebs_and_load_latency() {
    let d = run(r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL"},{"event":"MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD"}],
                 "nhm":{"pebs":{"used":true,"ld_lat_thres":100}}}"#)
    .unwrap();
    assert_eq!(d.assignments[1].counter.name, "PMC1");
    // PEBS on PMC1 (bit 1) with load latency (bit 33); ARITH is not precise.
    assert_eq!(pmc(&d, "PEBS_ENABLE"), Some((1 << 33) | (1 << 1)));
    assert_eq!(pmc(&d, "PEBS_LD_LAT_THRESHOLD"), Some(100));
    for (json, kind) in [
        (
            r#"{"pmu":"nhm","events":[{"event":"MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD"}],"nhm":{"pebs":{"used":true,"ld_lat_thres":3}}}"#,
            K::Invalid,
        ),
        (
            r#"{"pmu":"nhm","events":[{"event":"MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD"}],"nhm":{"pebs":{"used":false,"ld_lat_thres":8}}}"#,
            K::Invalid,
        ),
        (
            r#"{"pmu":"nhm","events":[{"event":"MEM_LOAD_RETIRED:L1D_HIT"}],"nhm":{"pebs":{"used":true,"ld_lat_thres":8}}}"#,
            K::Invalid,
        ),
        (
            r#"{"pmu":"nhm","events":[{"event":"MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD"}],"nhm":{"pebs":{"used":true}}}"#,
            K::Invalid,
        ),
        (
            r#"{"pmu":"nhm","events":[{"event":"ARITH:MUL"}],"nhm":{"pebs":{"used":true}}}"#,
            K::Invalid,
        ),
        (
            r#"{"pmu":"nhm","events":[{"event":"MEM_LOAD_RETIRED:L1D_HIT","flags":["inv"]}],"nhm":{"pebs":{"used":true}}}"#,
            K::FeatureCombination,
        ),
    ] {
        assert_eq!(run(json).unwrap_err().kind(), kind, "{json}");
    }
    // A PEBS event does not go to a fixed counter.
    let d = run(
        r#"{"pmu":"nhm","events":[{"event":"INST_RETIRED:ANY_P"}],"nhm":{"pebs":{"used":true}}}"#,
    )
    .unwrap();
    assert_eq!(d.assignments[0].counter.name, "PMC0");
    assert_eq!(pmc(&d, "PEBS_ENABLE"), Some(1));
}

#[test]
fn lbr_select() {
    let lbr = |plm: &str, filter: &str| {
        run(&format!(
            r#"{{"pmu":"nhm","events":[{{"event":"ARITH:MUL"}}],"nhm":{{"lbr":{{"used":true,"plm":"{plm}","filter":[{filter}]}}}}}}"#
        ))
    };
    let d = lbr("uk", "").unwrap();
    assert_eq!(pmc(&d, "LBR_SELECT"), Some(0));
    assert_eq!(
        d.pmds.iter().filter(|r| r.reg.starts_with("LBR_")).count(),
        33
    );
    assert_eq!(pmc(&lbr("k", "").unwrap(), "LBR_SELECT"), Some(0b10));
    assert_eq!(pmc(&lbr("u", "").unwrap(), "LBR_SELECT"), Some(0b01));
    let all = r#""jcc","near_rel_call","near_ind_call","near_ret","near_ind_jmp","near_rel_jmp","far_branch""#;
    assert_eq!(pmc(&lbr("uk", all).unwrap(), "LBR_SELECT"), Some(0x1fc));
    assert_eq!(
        pmc(&lbr("uk", r#""near_ret""#).unwrap(), "LBR_SELECT"),
        Some(1 << 5)
    );
    assert_eq!(lbr("1", "").unwrap_err().kind(), K::Invalid);
    assert_eq!(lbr("u2", "").unwrap_err().kind(), K::Invalid);
    // plm empty: the request's default.
    let d = run(r#"{"pmu":"nhm","dfl_plm":"k","events":[{"event":"ARITH:MUL"}],"nhm":{"lbr":{"used":true}}}"#).unwrap();
    assert_eq!(pmc(&d, "LBR_SELECT"), Some(0b10));
    assert_eq!(pmc(&d, "PERFEVTSEL0"), Some(0x520214));
}

#[test]
fn uncore_counters_and_rules() {
    let d = run(r#"{"pmu":"nhm","events":[
        {"event":"nhm_unc::UNC_CLK_UNHALTED"},
        {"event":"nhm_unc::UNC_LLC_MISS:READ","cnt_mask":2,"flags":["occ_rst","edge"]},
        {"event":"ARITH:MUL"}]}"#)
    .unwrap();
    let names: Vec<_> = d
        .assignments
        .iter()
        .map(|a| a.counter.name.as_str())
        .collect();
    assert_eq!(names, ["UNC_FIXED_CTR", "UNC_PMC0", "PMC0"]);
    // event 0x09, umask 0x01, occ_rst bit 17, edge bit 18, PMI bit 20, EN bit 22, cmask 2.
    assert_eq!(pmc(&d, "UNC_PERFEVTSEL0"), Some(0x0256_0109));
    assert_eq!(pmc(&d, "UNC_FIXED_CTR_CTRL"), Some(0x5));
    assert_eq!(pmc(&d, "UNC_PERF_GLOBAL_CTRL"), Some((1 << 32) | 1));
    assert_eq!(pmc(&d, "PERF_GLOBAL_CTRL"), Some(1));
    // Single uncore event equals the encoder's code.
    let d = run(r#"{"pmu":"nhm","events":[{"event":"nhm_unc::UNC_LLC_HITS:ANY"}]}"#).unwrap();
    let enc = Library::global()
        .encode("nhm_unc::UNC_LLC_HITS:ANY", Plm::DEFAULT, Os::None)
        .unwrap();
    assert_eq!(pmc(&d, "UNC_PERFEVTSEL0"), Some(enc.codes[0]));
    // The uncore counts every level: plm must be exactly u and k.
    for plm in ["u", "k", "ukh"] {
        let e = run(&format!(
            r#"{{"pmu":"nhm","events":[{{"event":"nhm_unc::UNC_LLC_HITS","plm":"{plm}"}}]}}"#
        ))
        .unwrap_err();
        assert_eq!(e.kind(), K::Invalid, "{plm}");
        assert!(e.to_string().contains("uncore"));
    }
    let e = run(r#"{"pmu":"nhm","events":[{"event":"nhm_unc::UNC_LLC_HITS","flags":["anythr"]}]}"#)
        .unwrap_err();
    assert_eq!(e.kind(), K::Invalid);
    // Occupancy reset keeps the fixed counter out.
    let e =
        run(r#"{"pmu":"nhm","events":[{"event":"nhm_unc::UNC_CLK_UNHALTED","flags":["inv"]}]}"#);
    assert!(e.is_ok() || e.unwrap_err().kind() == K::NoAssign);
    // Nine uncore counters at most.
    let many: Vec<String> = (0..10)
        .map(|_| r#"{"event":"nhm_unc::UNC_LLC_HITS:ANY"}"#.to_string())
        .collect();
    let e = run(&format!(r#"{{"pmu":"nhm","events":[{}]}}"#, many.join(","))).unwrap_err();
    assert_eq!(e.kind(), K::TooMany);
}

#[test]
fn westmere_uses_the_same_rules_with_its_uncore() {
    let d = run(r#"{"pmu":"wsm_dp","events":[{"event":"INSTRUCTIONS_RETIRED"},{"event":"wsm_unc::UNC_GC_OCCUPANCY:READ_TRACKER","flags":["occ_rst"]}]}"#).unwrap();
    let names: Vec<_> = d
        .assignments
        .iter()
        .map(|a| a.counter.name.as_str())
        .collect();
    assert_eq!(names, ["FIXED_CTR0", "UNC_PMC0"]);
    let enc = Library::global()
        .encode(
            "wsm_unc::UNC_GC_OCCUPANCY:READ_TRACKER:o",
            Plm::DEFAULT,
            Os::None,
        )
        .unwrap();
    assert_eq!(pmc(&d, "UNC_PERFEVTSEL0"), Some(enc.codes[0]));
    // The Nehalem uncore is not Westmere's.
    let e = run(r#"{"pmu":"wsm","events":[{"event":"nhm_unc::UNC_LLC_HITS"}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::Invalid);
}
