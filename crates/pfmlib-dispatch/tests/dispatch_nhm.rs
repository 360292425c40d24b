//! Nehalem dispatch: counter assignment and exact register values, derived
//! from the Intel SDM layouts and cross-checked against the event encoder.

use pfmlib::{Library, Os, Plm};
use pfmlib_dispatch::{dispatch, Dispatch, DispatchErrorKind as K, Request};

fn run(json: &str) -> Result<Dispatch, pfmlib_dispatch::DispatchError> {
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

/// Every register to program, in order, as (name, address, value).
fn regs(d: &Dispatch) -> Vec<(&str, u64, u64)> {
    d.pmcs
        .iter()
        .map(|r| (r.reg.name.as_str(), r.reg.addr, r.value))
        .collect()
}

#[test]
fn offcore_response_programs_its_msr() {
    let d = run(r#"{"pmu":"nhm","dfl_plm":"u","events":[{"event":"OFFCORE_RESPONSE_0:DMND_DATA_RD:UNCORE_HIT"}]}"#).unwrap();
    assert_eq!(
        regs(&d),
        [
            ("PERFEVTSEL0", 0x186, 0x5101b7),
            ("OFFCORE_RSP_0", 0x1a6, 0x101),
            ("PERF_GLOBAL_CTRL", 0x38f, 0x1),
        ]
    );
    // The value is the encoder's second code.
    let enc = Library::global()
        .encode(
            "nhm::OFFCORE_RESPONSE_0:DMND_DATA_RD:UNCORE_HIT",
            Plm::PLM3,
            Os::None,
        )
        .unwrap();
    assert_eq!(enc.codes, [0x5101b7, 0x101]);
    // Westmere: OFFCORE_RESPONSE_1 has its own register; one mask given
    // twice shares OFFCORE_RSP_0.
    let d = run(r#"{"pmu":"wsm_dp","events":[
        {"event":"OFFCORE_RESPONSE_0:DMND_DATA_RD:UNCORE_HIT"},
        {"event":"OFFCORE_RESPONSE_1:DMND_RFO:UNCORE_HIT"},
        {"event":"OFFCORE_RESPONSE_0:DMND_DATA_RD:UNCORE_HIT","plm":"u"},
        {"event":"INSTRUCTIONS_RETIRED"}]}"#)
    .unwrap();
    assert_eq!(
        regs(&d),
        [
            ("PERFEVTSEL0", 0x186, 0x5301b7),
            ("PERFEVTSEL1", 0x187, 0x5301bb),
            ("PERFEVTSEL2", 0x188, 0x5101b7),
            ("OFFCORE_RSP_0", 0x1a6, 0x101),
            ("OFFCORE_RSP_1", 0x1a7, 0x102),
            ("FIXED_CTR_CTRL", 0x38d, 0xb),
            ("PERF_GLOBAL_CTRL", 0x38f, (1 << 32) | 0x7),
        ]
    );
    // No offcore event: no offcore register.
    let d = run(r#"{"pmu":"wsm","events":[{"event":"ARITH:MUL"}]}"#).unwrap();
    assert!(d.pmcs.iter().all(|r| r.reg.reg != "OFFCORE_RSP"));
}

#[test]
fn offcore_masks_that_need_one_register_twice_are_refused() {
    let e = run(r#"{"pmu":"nhm","events":[
        {"event":"OFFCORE_RESPONSE_0:DMND_DATA_RD:UNCORE_HIT"},
        {"event":"OFFCORE_RESPONSE_0:DMND_RFO:UNCORE_HIT"}]}"#)
    .unwrap_err();
    assert_eq!(e.kind(), K::FeatureCombination);
    let m = e.to_string();
    assert!(
        m.contains("OFFCORE_RSP_0") && m.contains("0x101") && m.contains("0x102"),
        "{m}"
    );
    let e = run(r#"{"pmu":"wsm","events":[
        {"event":"OFFCORE_RESPONSE_0:DMND_DATA_RD:UNCORE_HIT"},
        {"event":"OFFCORE_RESPONSE_0:DMND_DATA_RD:LOCAL_DRAM"}]}"#)
    .unwrap_err();
    assert_eq!(e.kind(), K::FeatureCombination);
    assert!(e.to_string().contains("OFFCORE_RESPONSE_1"), "{e}");
    let e = run(r#"{"pmu":"wsm","events":[
        {"event":"OFFCORE_RESPONSE_1:DMND_DATA_RD:UNCORE_HIT"},
        {"event":"OFFCORE_RESPONSE_1:DMND_DATA_RD:LOCAL_DRAM"}]}"#)
    .unwrap_err();
    assert!(e.to_string().contains("OFFCORE_RSP_1 (0x1a7)"), "{e}");
}

#[test]
fn core_counters_refuse_privilege_levels_1_and_2() {
    for plm in ["1", "2", "u1", "k2", "uk12"] {
        let e = run(&format!(
            r#"{{"pmu":"nhm","events":[{{"event":"ARITH:MUL","plm":"{plm}"}}]}}"#
        ))
        .unwrap_err();
        assert_eq!(e.kind(), K::Invalid, "{plm}");
        assert!(e.to_string().contains("PLM1 and PLM2"), "{e}");
        // Fixed counters likewise.
        let e = run(&format!(
            r#"{{"pmu":"nhm","events":[{{"event":"INSTRUCTION_RETIRED","plm":"{plm}"}}]}}"#
        ))
        .unwrap_err();
        assert_eq!(e.kind(), K::Invalid, "{plm}");
    }
    // Through the default too; an event's own plm overrides it.
    let e = run(r#"{"pmu":"nhm","dfl_plm":"u1","events":[{"event":"ARITH:MUL"}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::Invalid);
    let d =
        run(r#"{"pmu":"nhm","dfl_plm":"u1","events":[{"event":"ARITH:MUL","plm":"u"}]}"#).unwrap();
    assert_eq!(
        regs(&d),
        [
            ("PERFEVTSEL0", 0x186, 0x510214),
            ("PERF_GLOBAL_CTRL", 0x38f, 0x1)
        ]
    );
}

#[test]
fn nehalem_ex_has_no_client_uncore() {
    let e =
        run(r#"{"pmu":"nhm_ex","events":[{"event":"nhm_unc::UNC_LLC_MISS:READ"}]}"#).unwrap_err();
    assert_eq!(e.kind(), K::Invalid);
    assert!(e.to_string().contains("no uncore"), "{e}");
    let e = run(r#"{"pmu":"nhm_ex","events":[{"event":"ARITH:MUL"},{"event":"nhm_unc::UNC_CLK_UNHALTED"}]}"#)
        .unwrap_err();
    assert_eq!(e.kind(), K::Invalid);
    // Its core counters are dispatched as Nehalem's.
    let d = run(r#"{"pmu":"nhm_ex","events":[{"event":"ARITH:MUL"},{"event":"UNHALTED_CORE_CYCLES","plm":"k"}]}"#).unwrap();
    assert_eq!(
        regs(&d),
        [
            ("PERFEVTSEL0", 0x186, 0x530214),
            ("FIXED_CTR_CTRL", 0x38d, 0x90),
            ("PERF_GLOBAL_CTRL", 0x38f, (1 << 33) | 1),
        ]
    );
    // Nehalem keeps its uncore.
    let d = run(r#"{"pmu":"nhm","events":[{"event":"nhm_unc::UNC_LLC_MISS:READ"}]}"#).unwrap();
    assert_eq!(
        regs(&d),
        [
            ("UNC_PERFEVTSEL0", 0x3c0, 0x500109),
            ("UNC_PERF_GLOBAL_CTRL", 0x391, 0x1)
        ]
    );
}

/// The fully-qualified strings show what is programmed: encoding one gives
/// the register value dispatch programs for it.
#[test]
fn fully_qualified_strings_agree_with_the_registers() {
    let d = run(r#"{"pmu":"nhm","events":[
        {"event":"ARITH:MUL","cnt_mask":2,"flags":["inv"]},
        {"event":"BR_INST_EXEC:COND","cnt_mask":1,"flags":["edge","anythr"],"plm":"u"},
        {"event":"nhm_unc::UNC_LLC_MISS:READ","cnt_mask":2,"flags":["occ_rst","edge","inv"]},
        {"event":"UNHALTED_CORE_CYCLES","flags":["anythr"]},
        {"event":"UOPS_DECODED_DEC0","cnt_mask":1}]}"#)
    .unwrap();
    let fstrs: Vec<_> = d.assignments.iter().map(|a| a.fstr.as_str()).collect();
    assert_eq!(
        fstrs,
        [
            "nhm::ARITH:MUL:k=1:u=1:e=0:i=1:c=2:t=0",
            "nhm::BR_INST_EXEC:COND:k=0:u=1:e=1:i=0:c=1:t=1",
            "nhm_unc::UNC_LLC_MISS:READ:e=1:i=1:c=2:o=1",
            "nhm::UNHALTED_CORE_CYCLES:k=1:u=1:e=0:i=0:c=0:t=1",
            // This event takes no modifiers in the tables: the setting is appended.
            "nhm::UOPS_DECODED_DEC0:c=1",
        ]
    );
    assert_eq!(
        regs(&d),
        [
            ("PERFEVTSEL0", 0x186, 0x2d30214),
            ("PERFEVTSEL1", 0x187, 0x1750188),
            ("PERFEVTSEL2", 0x188, 0x153013d),
            ("UNC_PERFEVTSEL0", 0x3c0, 0x2d60109),
            ("FIXED_CTR_CTRL", 0x38d, 0xf0),
            ("PERF_GLOBAL_CTRL", 0x38f, (1 << 33) | 0x7),
            ("UNC_PERF_GLOBAL_CTRL", 0x391, 0x1),
        ]
    );
    for a in &d.assignments[..3] {
        let sel_name = a.counter.name.replace("PMC", "PERFEVTSEL");
        let sel = d.pmcs.iter().find(|r| r.reg.name == sel_name).unwrap();
        let enc = Library::global()
            .encode(&a.fstr, Plm::DEFAULT, Os::None)
            .unwrap();
        assert_eq!(enc.codes[0], sel.value, "{}", a.fstr);
    }
    // Load latency: the threshold programmed, or none when nothing programs it.
    let d = run(r#"{"pmu":"nhm","events":[{"event":"MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD"}],"nhm":{"pebs":{"used":true,"ld_lat_thres":100}}}"#).unwrap();
    assert_eq!(
        d.assignments[0].fstr,
        "nhm::MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:k=1:u=1:e=0:i=0:c=0:t=0:ldlat=100"
    );
    let enc = Library::global()
        .encode(&d.assignments[0].fstr, Plm::DEFAULT, Os::None)
        .unwrap();
    assert_eq!(enc.codes, [0x53100b, 100]);
    assert_eq!(
        regs(&d),
        [
            ("PERFEVTSEL0", 0x186, 0x53100b),
            ("PERF_GLOBAL_CTRL", 0x38f, 0x1),
            ("PEBS_ENABLE", 0x3f1, (1 << 32) | 1),
            ("PEBS_LD_LAT_THRESHOLD", 0x3f6, 100),
        ]
    );
    let d = run(r#"{"pmu":"nhm","events":[{"event":"MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD"}]}"#)
        .unwrap();
    assert!(
        !d.assignments[0].fstr.contains("ldlat"),
        "{}",
        d.assignments[0].fstr
    );
    // A threshold in the string must be the one programmed.
    for json in [
        r#"{"pmu":"nhm","events":[{"event":"MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=50"}],"nhm":{"pebs":{"used":true,"ld_lat_thres":100}}}"#,
        r#"{"pmu":"nhm","events":[{"event":"MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=50"}]}"#,
    ] {
        assert_eq!(
            run(json).unwrap_err().kind(),
            K::FeatureCombination,
            "{json}"
        );
    }
    let d = run(r#"{"pmu":"nhm","events":[{"event":"MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=100"}],"nhm":{"pebs":{"used":true,"ld_lat_thres":100}}}"#).unwrap();
    assert!(d.assignments[0].fstr.ends_with(":ldlat=100"));
}

#[test]
fn empty_requests_are_refused() {
    for pmu in ["nhm", "itanium"] {
        let e = run(&format!(r#"{{"pmu":"{pmu}","events":[]}}"#)).unwrap_err();
        assert_eq!(e.kind(), K::Invalid, "{pmu}");
    }
}

/// Core and uncore counters are placed independently, by matching: an
/// uncore request that cannot be placed fails at once whatever the core
/// events (this request once searched the uncore again for each of 264
/// core placements).
#[test]
fn unplaceable_uncore_events_fail_without_a_search_per_core_placement() {
    let mut events = vec![r#"{"event":"INSTRUCTION_RETIRED"}"#; 3];
    events.extend([r#"{"event":"UNHALTED_CORE_CYCLES"}"#; 2]);
    events.push(r#"{"event":"UNHALTED_REFERENCE_CYCLES"}"#);
    events.extend([r#"{"event":"nhm_unc::UNC_LLC_MISS:READ"}"#; 9]);
    let e = run(&format!(
        r#"{{"pmu":"nhm","events":[{}]}}"#,
        events.join(",")
    ))
    .unwrap_err();
    assert_eq!(e.kind(), K::NoAssign);
    assert!(e.to_string().contains("uncore events"), "{e}");
    // Eight of them fit, beside the six core events.
    events.pop();
    let d = run(&format!(
        r#"{{"pmu":"nhm","events":[{}]}}"#,
        events.join(",")
    ))
    .unwrap();
    let names: Vec<_> = d
        .assignments
        .iter()
        .map(|a| a.counter.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "FIXED_CTR0",
            "PMC0",
            "PMC1",
            "FIXED_CTR1",
            "PMC2",
            "FIXED_CTR2",
            "UNC_PMC0",
            "UNC_PMC1",
            "UNC_PMC2",
            "UNC_PMC3",
            "UNC_PMC4",
            "UNC_PMC5",
            "UNC_PMC6",
            "UNC_PMC7"
        ]
    );
}
