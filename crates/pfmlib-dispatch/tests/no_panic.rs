//! Property test: IA-64 dispatch never panics, whatever the ranges,
//! thresholds and features (moved here from pfmlib's `no_panic` tests).

use pfmlib::Library;
use proptest::prelude::*;

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
        let req: pfmlib_dispatch::Request =
            serde_json::from_str(&ia64_request(pmu, ev, all, thres, flags, data)).expect("valid JSON");
        let _ = pfmlib_dispatch::dispatch(Library::global(), &req);
    }
}
