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
