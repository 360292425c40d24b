//! Property tests: no input string panics the parser or the encoders.

use pfmlib::{Library, Os, Plm};
use proptest::prelude::*;

fn all_layers(s: &str) {
    for os in [Os::None, Os::PerfEvent, Os::PerfEventExt] {
        let _ = Library::global().encode(s, Plm::DEFAULT, os);
        let _ = Library::global().encode(s, Plm::ALL, os);
    }
    let _ = Library::global().find_event(s);
}

/// Pieces that reach deep into the parser: PMU names, events, unit masks,
/// modifiers, separators and odd values.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("nhm::".to_string()),
        Just("nhm_ex::".to_string()),
        Just("perf::".to_string()),
        Just("ix86arch::".to_string()),
        Just("ARITH".to_string()),
        Just("OFFCORE_RESPONSE_0".to_string()),
        Just("MEM_INST_RETIRED".to_string()),
        Just("PERF_COUNT_HW_CACHE_L1D".to_string()),
        Just("cycles".to_string()),
        Just("L1-DCACHE-LOADS".to_string()),
        Just(":".to_string()),
        Just(".".to_string()),
        Just("::".to_string()),
        Just("=".to_string()),
        Just("DIV".to_string()),
        Just("MUL".to_string()),
        Just("ANY_REQUEST".to_string()),
        Just("LATENCY_ABOVE_THRESHOLD".to_string()),
        Just("READ".to_string()),
        Just("MISS".to_string()),
        "(u|k|h|e|i|c|t|ldlat|period|freq|precise|excl|mg|mh|cpu|pinned|hw_smpl)(=(-?[0-9]{0,25}|0x[0-9a-fA-F]{0,18}|[ytnf]))?",
        "0[xX][0-9a-fA-F]{0,20}",
        "[A-Za-z_0-9:.=,-]{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(s in "\\PC{0,80}") {
        all_layers(&s);
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..64)) {
        all_layers(&String::from_utf8_lossy(&b));
    }

    #[test]
    fn structured_strings_never_panic(parts in proptest::collection::vec(token(), 1..12)) {
        all_layers(&parts.concat());
    }
}

/// IA-64 dispatch with arbitrary ranges, thresholds and features: an answer
/// (result or typed error), never a panic.
fn ia64_request(
    pmu: usize,
    ev: usize,
    ranges: Vec<(u64, u64)>,
    thres: u32,
    flags: u32,
    data: bool,
) -> String {
    let pmus = ["itanium", "itanium2", "montecito"];
    let events = [
        "IA64_INST_RETIRED",
        "CPU_CYCLES",
        "L1I_PREFETCHES",
        "L1I_FILLS",
        "DATA_EAR_TLB_ALL",
        "BRANCH_EVENT",
        "L2D_REFERENCES_ALL",
    ];
    let r: Vec<String> = ranges
        .iter()
        .map(|(s, e)| format!(r#"{{"start": "{s:#x}", "end": "{e:#x}"}}"#))
        .collect();
    let rr = format!(
        r#"{{"inv": {}, "no_fine_mode": {}, "demand_fetch": {}, "prefetch_match": {}, "ranges": [{}]}}"#,
        flags & 1 != 0,
        flags & 2 != 0,
        flags & 4 != 0,
        flags & 8 != 0,
        r.join(",")
    );
    format!(
        r#"{{"pmu": "{}", "events": [{{"event": "{}", "thres": {thres}, "flags": ["no_qualcheck"]}}], "ia64": {{"{}": {rr}, "dear": {{"mode": "tlb"}}}}}}"#,
        pmus[pmu % 3],
        events[ev % events.len()],
        if data { "drange" } else { "irange" }
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn ia64_dispatch_never_panics(
        pmu in 0usize..3,
        ev in 0usize..7,
        ranges in proptest::collection::vec((any::<u64>(), any::<u64>()), 0..6),
        small in proptest::collection::vec((0u64..0x10000, 1u64..0x10000), 0..3),
        thres in 0u32..10,
        flags in 0u32..16,
        data in any::<bool>(),
    ) {
        let mut all = ranges;
        all.extend(small.iter().map(|&(s, l)| (0x4000_0000_0000_0000 + (s << 4), 0x4000_0000_0000_0000 + (s << 4) + (l << 4))));
        let req: pfmlib::dispatch::Request =
            serde_json::from_str(&ia64_request(pmu, ev, all, thres, flags, data)).expect("valid JSON");
        let _ = pfmlib::dispatch::dispatch(Library::global(), &req);
    }
}
