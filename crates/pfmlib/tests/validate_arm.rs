//! libpfm4's own Arm test vectors through pfmlib: the event tables of
//! `tests/validate_arm64.c` and `tests/validate_arm.c` (libpfm4 4.13's
//! source, found through `PFMLIB_LIBPFM4_SRC`), parsed at test time and
//! encoded as libpfm4's `validate` does (`pfm_get_event_encoding` with
//! `PFM_PLM0 | PFM_PLM3`): the return code, the number of codes, each code
//! and the fully-qualified string must be the ones the file expects. Error
//! names are read from the same tree's `include/perfmon/pfmlib.h`.
//!
//! Without the source the test prints `SKIPPED` and passes, unless
//! `PFMLIB_REQUIRE_ARM_ORACLES` is set.

mod common;

use common::arm::path_from_env;
use common::validate::{check, error_codes, vectors};
use pfmlib::{Host, Library};

#[test]
fn libpfm4_arm_validate_vectors() {
    let Some(src) = path_from_env("PFMLIB_LIBPFM4_SRC", "libpfm4 4.13 source tree") else {
        return;
    };
    let mut bad = Vec::new();
    for (file, array, at_least) in [
        ("validate_arm64.c", "arm64_test_events", 51),
        ("validate_arm.c", "arm_test_events", 32),
    ] {
        let (b, n) = check(&Library::with_host(Host::none()), &src, file, array);
        assert!(n >= at_least, "{file}: only {n} vectors parsed");
        eprintln!("{file}: {n} vectors, {} failed", b.len());
        bad.extend(b);
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_parser() {
    let text = r#"static const test_event_t t_test_events[]={
        { SRC_LINE,
          .name = "a::B:c",
          .ret  = PFM_SUCCESS,
          .count = 1,
          .codes[0] = 0x8000011,
          .fstr = "a::B.c=1",
        },
        { .name = "x::Y", .ret = PFM_ERR_ATTR, },
    };
    static int f(void) { return 0; }"#;
    let v = vectors(text, "t_test_events");
    assert_eq!(v.len(), 2);
    assert_eq!((v[0].name.as_str(), v[0].count), ("a::B:c", 1));
    assert_eq!(v[0].codes.get(&0), Some(&0x8000011));
    assert_eq!(v[0].fstr.as_deref(), Some("a::B.c=1"));
    assert_eq!(
        (v[1].name.as_str(), v[1].ret.as_str()),
        ("x::Y", "PFM_ERR_ATTR")
    );
    let h = "#define PFM_SUCCESS\t\t0\t/* ok */\n#define PFM_ERR_ATTR\t\t-8\n";
    assert_eq!(error_codes(h).get("PFM_ERR_ATTR"), Some(&-8));
}
