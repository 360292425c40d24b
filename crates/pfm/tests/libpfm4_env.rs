//! pfm honours libpfm4's environment variables as libpfm4's own tools do:
//! `LIBPFM_FORCE_PMU=nhm pfm check INST_RETIRED:ANY_P` encodes as libpfm4's
//! `check_events` does with the same variable (the installed libpfm4, in
//! this process, is the reference), and prints check_events' lines.

use serde_json::Value;
use std::process::{Command, Output};

fn pfm(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pfm"));
    for k in [
        "LIBPFM_FORCE_PMU",
        "LIBPFM_DISABLED_PMUS",
        "LIBPFM_ENCODE_INACTIVE",
        "LIBPFM_VERBOSE",
        "LIBPFM_DEBUG",
        "LIBPFM_DEBUG_STDOUT",
    ] {
        c.env_remove(k);
    }
    c.args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run pfm")
}

#[test]
fn forced_pmu_encodes_as_libpfm4s_check_events() {
    let strings = [
        "INST_RETIRED:ANY_P",
        "UNHALTED_CORE_CYCLES",
        "ARITH:MUL:c=2:i",
        "inst_retired:any_p:u",
        "MEM_LOAD_RETIRED:L3_MISS",
    ];
    let force = [("LIBPFM_FORCE_PMU", "nhm")];
    // What check_events prints for the first one with libpfm4 4.13.
    let o = pfm(&["check", strings[0]], &force);
    assert!(o.status.success(), "{o:?}");
    let text = String::from_utf8_lossy(&o.stdout);
    for line in [
        "Requested Event: INST_RETIRED:ANY_P",
        "Actual    Event: nhm::INST_RETIRED:ANY_P:k=1:u=1:e=0:i=0:c=0:t=0",
        "PMU            : Intel Nehalem",
        "IDX            : 31457314",
        "Codes          : 0x5300c0",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "{line:?} missing in\n{text}"
        );
    }
    // libpfm4 itself, forced the same way (this test binary is its own process).
    std::env::set_var("LIBPFM_FORCE_PMU", "nhm");
    let oracle = match pfm_oracle::Libpfm4::load() {
        Ok(l) => l,
        Err(e) => {
            assert!(
                std::env::var("PFMLIB_REQUIRE_LIBPFM4").is_err(),
                "libpfm4 required: {e}"
            );
            eprintln!("SKIPPED (comparison with libpfm4): {e}");
            return;
        }
    };
    let mut args = vec!["check", "--json"];
    args.extend(strings);
    let o = pfm(&args, &force);
    let out = String::from_utf8_lossy(&o.stdout);
    for (s, line) in strings.iter().zip(out.lines()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let want = oracle.encode_raw(s, 0x9).expect("libpfm4 encodes it");
        assert_eq!(v["fstr"], want.fstr.as_str(), "{s}");
        assert_eq!(v["idx"], want.idx, "{s}");
        let codes: Vec<String> = want.codes.iter().map(|c| format!("{c:#x}")).collect();
        assert_eq!(v["codes"], serde_json::json!(codes), "{s}");
        assert_eq!(v["pmu"], "nhm", "{s}");
    }
}

#[test]
fn other_variables() {
    // A disabled PMU is not there; the others are.
    let o = pfm(
        &["check", "nhm::INST_RETIRED:ANY_P"],
        &[("LIBPFM_DISABLED_PMUS", "nhm,wsm")],
    );
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let o = pfm(
        &["check", "nhm_ex::INST_RETIRED:ANY_P"],
        &[("LIBPFM_DISABLED_PMUS", "nhm,wsm")],
    );
    assert_eq!(o.status.code(), Some(1), "nhm_ex contains nhm: {o:?}");
    let o = pfm(
        &["check", "perf::cycles"],
        &[("LIBPFM_DISABLED_PMUS", "nhm,wsm")],
    );
    assert!(o.status.success(), "{o:?}");
    // Verbose and debug diagnostics, on standard error or standard output.
    let env = [
        ("LIBPFM_FORCE_PMU", "nhm"),
        ("LIBPFM_VERBOSE", "1"),
        ("LIBPFM_DEBUG", "1"),
    ];
    let o = pfm(&["check", "INST_RETIRED:ANY_P"], &env);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("forced PMU: nhm (Intel Nehalem)"), "{err}");
    assert!(
        err.contains("pfmlib: ") && err.contains(" active: nhm"),
        "{err}"
    );
    let mut env = env.to_vec();
    env.push(("LIBPFM_DEBUG_STDOUT", "1"));
    let o = pfm(&["check", "INST_RETIRED:ANY_P"], &env);
    assert!(o.stderr.is_empty(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("forced PMU: nhm"));
    let o = pfm(
        &["check", "INST_RETIRED:ANY_P"],
        &[("LIBPFM_FORCE_PMU", "nhm")],
    );
    assert!(o.stderr.is_empty(), "quiet without the variables: {o:?}");
}
