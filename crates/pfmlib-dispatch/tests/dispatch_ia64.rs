//! IA-64 dispatch through the library API (the project's request format):
//! one test per feature, with register values derived from the documented
//! layouts. The libpfm-3 reference vectors are checked by the `pfm` crate's
//! `dispatch_ia64` test.

use pfmlib::Library;
use pfmlib_dispatch::{dispatch, Dispatch, DispatchErrorKind, Request};

fn run(json: &str) -> Result<Dispatch, pfmlib_dispatch::DispatchError> {
    let req: Request = serde_json::from_str(json).expect("request parses");
    dispatch(Library::global(), &req)
}

fn pmc(d: &Dispatch, n: u32) -> Option<u64> {
    d.pmcs.iter().find(|r| r.reg.index == n).map(|r| r.value)
}

#[test]
fn itanium_threshold_instruction_set_and_system_wide() {
    let d = run(r#"{"pmu": "itanium", "dfl_plm": "u", "system_wide": true,
        "events": [{"event": "IA64_INST_RETIRED", "thres": 3, "ism": "ia64"}]}"#)
    .expect("dispatches");
    // plm 8 | oi (bit 5) | pm (bit 6) | es 0x08 << 8 | thres 3 << 20 | ism 2 << 24
    assert_eq!(
        pmc(&d, 4),
        Some(0x8 | 0x20 | 0x40 | 0x800 | 0x30_0000 | 0x200_0000)
    );
    assert_eq!(d.assignments[0].counter.name, "PMD4");
    // A threshold must stay below the maximum increment (NOPS_RETIRED: 6).
    let e = run(r#"{"pmu": "itanium", "events": [{"event": "NOPS_RETIRED", "thres": 6}]}"#)
        .expect_err("thres too big");
    assert_eq!(e.kind(), DispatchErrorKind::Invalid);
    assert!(e.to_string().contains("0-5"), "{e}");
}

#[test]
fn counter_constraints_and_unavailable_pmcs() {
    // IA64_INST_RETIRED only counts on PMC4/PMC5; PMC4 unavailable -> PMC5.
    let d = run(r#"{"pmu": "itanium", "dfl_plm": "u", "unavail_pmcs": [4],
        "events": [{"event": "IA64_INST_RETIRED"}, {"event": "CPU_CYCLES"}]}"#)
    .expect("dispatches");
    assert_eq!(pmc(&d, 5), Some(0x828));
    assert_eq!(pmc(&d, 6), Some(0x1228));
    // Three PMC4/PMC5-only events cannot be placed.
    let e = run(
        r#"{"pmu": "itanium", "events": [{"event": "IA64_INST_RETIRED"},
        {"event": "NOPS_RETIRED"}, {"event": "PREDICATE_SQUASHED_RETIRED"}]}"#,
    )
    .expect_err("no room");
    assert_eq!(e.code(), -5);
}

#[test]
fn data_ear_methods() {
    // Method 1: the D-EAR event alone programs PMC11 from the event.
    let d =
        run(r#"{"pmu": "itanium2", "dfl_plm": "u", "events": [{"event": "DATA_EAR_TLB_ALL"}]}"#)
            .expect("dispatches");
    assert_eq!(pmc(&d, 4), Some(0xc828)); // counts DATA_EAR_EVENTS, umask 0
    assert_eq!(pmc(&d, 11), Some(0x8 | 1 << 7 | 0xe << 16)); // plm, TLB mode, umask
                                                             // Method 4: free-running D-EAR from the parameters (Montecito moved it to PMC40).
    let d = run(
        r#"{"pmu": "montecito", "dfl_plm": "u", "events": [{"event": "CPU_OP_CYCLES_ALL"}],
        "ia64": {"dear": {"mode": "cache", "umask": 3, "plm": "ku"}}}"#,
    )
    .expect("dispatches");
    assert_eq!(pmc(&d, 40), Some(0x9 | 3 << 16 | 2 << 24));
    let pmds: Vec<u32> = d.pmds.iter().map(|r| r.index).collect();
    assert_eq!(pmds, vec![4, 32, 33, 36]);
}

#[test]
fn branch_trace_and_ip_ear() {
    // Itanium BTB method 1: capture everything.
    let d = run(r#"{"pmu": "itanium", "dfl_plm": "u", "events": [{"event": "BRANCH_EVENT"}]}"#)
        .expect("dispatches");
    assert_eq!(pmc(&d, 12), Some(0xff88));
    assert_eq!(d.pmds.len(), 1 + 9);
    // Montecito ETB with parameters.
    let d = run(
        r#"{"pmu": "montecito", "dfl_plm": "u", "events": [{"event": "ETB_EVENT"}],
        "ia64": {"etb": {"plm": "k", "tm": 2, "ptm": 1, "ppm": 3, "brt": 2}}}"#,
    )
    .expect("dispatches");
    assert_eq!(
        pmc(&d, 39),
        Some(0x1 | 2 << 8 | 1 << 10 | 3 << 12 | 2 << 14)
    );
    // IP-EAR: mode 4, delay, excludes branch capture.
    let d = run(
        r#"{"pmu": "montecito", "dfl_plm": "u", "events": [{"event": "CPU_OP_CYCLES_ALL"}],
        "ia64": {"ipear": {"plm": "uk", "delay": 5}}}"#,
    )
    .expect("dispatches");
    assert_eq!(pmc(&d, 42), Some(0x9 | 4 << 8 | 5 << 11));
    let e = run(r#"{"pmu": "montecito", "events": [{"event": "ETB_EVENT"}],
        "ia64": {"ipear": {"delay": 5}}}"#)
    .expect_err("IP-EAR and ETB");
    assert_eq!(e.code(), -9);
    // Branch capture and a TLB-mode D-EAR share registers.
    let e = run(r#"{"pmu": "montecito", "events": [{"event": "ETB_EVENT"}, {"event": "DATA_EAR_TLB_ALL"}]}"#)
        .expect_err("incompatible");
    assert_eq!(e.kind(), DispatchErrorKind::EventIncompatible);
}

#[test]
fn code_ranges_normal_single_and_fine() {
    // Itanium: IA64_INST_RETIRED over [0x1010, 0x2230): four pairs, tightest cover.
    let d = run(r#"{"pmu": "itanium", "dfl_plm": "u", "events": [{"event": "IA64_INST_RETIRED"}],
        "ia64": {"irange": {"ranges": [{"start": "0x4000000000001010", "end": "0x4000000000002230"}]}}}"#)
    .expect("dispatches");
    let ir = d.irange.expect("irange");
    assert_eq!(ir.rr_nbr_used, 8);
    assert_eq!(ir.rr_br[0].value, 0x4000_0000_0000_1800);
    assert_eq!(ir.rr_br[1].value, 0x08ff_ffff_ffff_f800); // plm 8, 2 KB block
    assert_eq!((ir.rr_infos[0].soff, ir.rr_infos[0].eoff), (0x10, 0x1d0));
    // Itanium 2, one 4 KB page: fine mode (bits 12-55 of the mask), reported.
    let d = run(r#"{"pmu": "itanium2", "dfl_plm": "u", "events": [{"event": "CPU_CYCLES", "flags": ["no_qualcheck"]}],
        "ia64": {"no_fine_mode_erratum": true,
                 "irange": {"ranges": [{"start": "0x4000000000001010", "end": "0x4000000000001850"}]}}}"#)
    .expect("dispatches");
    assert_eq!(d.irange_is_fine, Some(true));
    let ir = d.irange.expect("irange");
    assert_eq!(ir.rr_br[0].value, 0x4000_0000_0000_1010);
    assert_eq!(ir.rr_br[1].value, 0x08ff_ffff_ffff_f000);
    assert_eq!(ir.rr_br[2].reg.name, "IBR4");
    assert_eq!(ir.rr_br[2].value, 0x4000_0000_0000_1840);
    // `no_fine_mode`: one aligned pair instead (16 KB around [0x1f00, 0x2100)).
    let d = run(r#"{"pmu": "itanium2", "dfl_plm": "u", "events": [{"event": "BE_BR_MISPRED_DETAIL_ANY"}],
        "ia64": {"irange": {"no_fine_mode": true, "ranges": [{"start": "0x4000000000001f00", "end": "0x4000000000002100"}]}}}"#)
    .expect("dispatches");
    assert_eq!(d.irange_is_fine, Some(false));
    let ir = d.irange.expect("irange");
    assert_eq!(ir.rr_br[0].value, 0x4000_0000_0000_0000);
    assert_eq!((ir.rr_infos[0].soff, ir.rr_infos[0].eoff), (0x1f00, 0x1f00));
    // Unaligned code range; event without range support.
    let e = run(r#"{"pmu": "montecito", "events": [{"event": "IA64_INST_RETIRED"}],
        "ia64": {"irange": {"ranges": [{"start": "0x4000000000001008", "end": "0x4000000000001400"}]}}}"#)
    .expect_err("unaligned");
    assert_eq!(e.kind(), DispatchErrorKind::IrrAlign);
    let e = run(r#"{"pmu": "montecito", "events": [{"event": "CPU_OP_CYCLES_ALL"}],
        "ia64": {"irange": {"ranges": [{"start": "0x4000000000001000", "end": "0x4000000000001400"}]}}}"#)
    .expect_err("qualifier");
    assert_eq!(e.kind(), DispatchErrorKind::FeatureCombination);
}

#[test]
fn data_ranges_and_opcode_matchers() {
    // Montecito: opcode matcher 1 with all slots, and a data range.
    let d = run(r#"{"pmu": "montecito", "dfl_plm": "u", "events": [{"event": "DATA_REFERENCES_SET0"}],
        "ia64": {"opcm1": {"m": true, "i": true, "f": true, "b": true, "match": 0, "mask": "0x1ffffffffff"},
                 "drange": {"ranges": [{"start": "0x600000000000a123", "end": "0x600000000000b456"}]}}}"#)
    .expect("dispatches");
    assert_eq!(pmc(&d, 32), Some(0x020f_01ff_ffff_ffff)); // ig_ad set, inv clear: no code range
    assert_eq!(pmc(&d, 33), Some(0));
    let dr = d.drange.expect("drange");
    assert!(dr.rr_nbr_used >= 2);
    // Every range is covered, never less than asked.
    let (s, e) = (0x6000_0000_0000_a123u64, 0x6000_0000_0000_b456u64);
    let blocks: Vec<(u64, u64)> = dr
        .rr_br
        .chunks(2)
        .map(|p| {
            let size = (!(p[1].value & ((1 << 56) - 1))).wrapping_add(1) & ((1 << 56) - 1);
            (p[0].value, p[0].value + size)
        })
        .collect();
    assert!(blocks.iter().map(|b| b.0).min().unwrap_or(u64::MAX) <= s);
    assert!(blocks.iter().map(|b| b.1).max().unwrap_or(0) >= e);
    // Itanium raw PMC8/PMC9 pass through.
    let d = run(r#"{"pmu": "itanium", "dfl_plm": "u", "events": [{"event": "IA64_TAGGED_INST_RETIRED_PMC8"}],
        "ia64": {"pmc8": "0x1c0000000800000f"}}"#)
    .expect("dispatches");
    assert_eq!(pmc(&d, 8), Some(0x1c00_0000_0800_000f));
    let _ = e;
}

#[test]
fn montecito_cache_groups_and_sets() {
    // L2D sets: the first set on PMC4/5/8, the second on PMC6/7/9.
    let d = run(r#"{"pmu": "montecito", "dfl_plm": "u", "events": [
        {"event": "L2D_REFERENCES_ALL"}, {"event": "L2D_BYPASS_L2_DATA1"},
        {"event": "L2D_REFERENCES_READS"}, {"event": "L2D_BYPASS_L2_DATA2"},
        {"event": "CPU_OP_CYCLES_ALL"}]}"#)
    .expect("dispatches");
    let ctr: Vec<&str> = d
        .assignments
        .iter()
        .map(|a| a.counter.name.as_str())
        .collect();
    assert_eq!(ctr, ["PMD4", "PMD6", "PMD5", "PMD7", "PMD8"]);
    // A third L2D set cannot be measured.
    let e = run(
        r#"{"pmu": "montecito", "events": [{"event": "L2D_REFERENCES_ALL"},
        {"event": "L2D_BYPASS_L2_DATA1"}, {"event": "L2D_OZQ_ACQUIRE"}]}"#,
    )
    .expect_err("three sets");
    assert_eq!(e.kind(), DispatchErrorKind::EventSet);
    assert!(e.to_string().contains("two sets"), "{e}");
}

#[test]
fn bad_requests_are_typed_errors() {
    let e = run(r#"{"pmu": "montecito", "events": [{"event": "NO_SUCH_EVENT"}]}"#)
        .expect_err("unknown");
    assert_eq!(e.code(), -4);
    let e = run(r#"{"pmu": "montecito", "events": [{"event": "L3_READS_ALL_ALL"}]}"#)
        .expect_err("MESI");
    assert_eq!(e.code(), -22);
    let e = run(r#"{"pmu": "montecito", "events": [{"event": "CPU_OP_CYCLES_ALL", "flags": ["all_threads"]}]}"#)
        .expect_err(".all");
    assert_eq!(e.code(), -1);
    let e = run(r#"{"pmu": "itanium", "events": [{"event": "CPU_CYCLES", "flags": ["inv"]}]}"#)
        .expect_err("nhm flag");
    assert_eq!(e.code(), -2);
    let e = run(r#"{"pmu": "itanium", "events": [{"event": "CPU_CYCLES"}], "ia64": {"etb": {}}}"#)
        .expect_err("wrong model");
    assert_eq!(e.code(), -2);
}
