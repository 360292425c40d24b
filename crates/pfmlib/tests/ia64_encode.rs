//! The IA-64 raw encoding: the counting monitor of one event (moved here
//! from the IA-64 query tests, which live with libpfm-3 compatibility in
//! `pfmlib-dispatch`).

use pfmlib::{Library, Os};

#[test]
fn raw_encoding_is_the_counting_monitor() {
    let lib = Library::global();
    let plm3 = pfmlib::Plm::PLM3;
    // Itanium: plm, oi, es, thres (cf. libpfm-3 dispatch of one event).
    let e = lib
        .encode("itanium::IA64_INST_RETIRED:thres=3", plm3, Os::None)
        .expect("encodes");
    assert_eq!(e.codes, vec![0x300828]);
    assert_eq!(e.fstr, "itanium::IA64_INST_RETIRED:k=0:u=1:thres=3");
    let e = lib
        .encode("itanium::CPU_CYCLES", plm3, Os::None)
        .expect("encodes");
    assert_eq!(e.codes, vec![0x1228]);
    // Threshold at or above the maximum increment is refused.
    let err = lib
        .encode("itanium::NOPS_RETIRED:thres=6", plm3, Os::None)
        .expect_err("thres too big");
    assert_eq!(err.kind().code(), -9);
    // No perf_events encoding for IA-64.
    let err = lib
        .encode("itanium::CPU_CYCLES", plm3, Os::PerfEvent)
        .expect_err("no perf");
    assert_eq!(err.kind().code(), -1);
}
