//! libpfm4's environment variables, read by `pfm_initialize` (again after
//! `pfm_terminate`): `LIBPFM_FORCE_PMU`, `LIBPFM_DISABLED_PMUS` and
//! `LIBPFM_ENCODE_INACTIVE` choose the PMUs exactly as libpfm4 does (the
//! PMU lists and encodings are compared with the installed libpfm4 on the
//! PMUs both have); `LIBPFM_VERBOSE`, `LIBPFM_DEBUG` and
//! `LIBPFM_DEBUG_STDOUT` make the library talk, on standard error or
//! standard output.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

fn programs() -> &'static (PathBuf, Option<PathBuf>) {
    static P: OnceLock<(PathBuf, Option<PathBuf>)> = OnceLock::new();
    P.get_or_init(|| {
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/bad_callers.c");
        let dir = common::work_dir("environment");
        let ours = dir.join("env-pfmlib");
        common::compile_ours(&ours, std::slice::from_ref(&src), &["-pthread"]);
        let system = common::system_libpfm4().map(|lib| {
            let exe = dir.join("env-libpfm4");
            common::compile(&exe, &[src], &common::include_dir(), &lib, &["-pthread"]);
            exe
        });
        (ours, system)
    })
}

fn run(ours: bool, args: &[&str], env: &[(&str, &str)]) -> Output {
    let (o, s) = programs();
    let mut cmd = Command::new(if ours { o } else { s.as_ref().unwrap() });
    for k in [
        "LIBPFM_FORCE_PMU",
        "LIBPFM_DISABLED_PMUS",
        "LIBPFM_ENCODE_INACTIVE",
        "LIBPFM_VERBOSE",
        "LIBPFM_DEBUG",
        "LIBPFM_DEBUG_STDOUT",
    ] {
        cmd.env_remove(k);
    }
    cmd.args(args).envs(env.iter().copied());
    if ours {
        common::run_ours(&mut cmd)
    } else {
        common::run_system(&mut cmd)
    }
}

/// `id → line` of the PMU list, and the encoding lines, of one run.
fn answers(out: &Output) -> (BTreeMap<u32, String>, Vec<String>) {
    let text = String::from_utf8_lossy(&out.stdout);
    let mut pmus = BTreeMap::new();
    let mut encodings = Vec::new();
    for l in text.lines() {
        match l.split(' ').next().and_then(|w| w.parse::<u32>().ok()) {
            Some(id) => {
                pmus.insert(id, l.to_string());
            }
            None => encodings.push(l.to_string()),
        }
    }
    (pmus, encodings)
}

const STRINGS: &[&str] = &[
    "INST_RETIRED:ANY_P",
    "inst_retired:any_p:u",
    "nhm::INST_RETIRED:ANY_P",
    "wsm::UOPS_EXECUTED:PORT0",
    "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS",
    "RETIRED_INSTRUCTIONS",
    "perf::cycles",
    "cycles",
    // PMUs after the usual forced ones in lookup order, core and uncore.
    "skx::INST_RETIRED:ANY_P",
    "spr::INST_RETIRED:ANY_P",
    "skx_unc_imc0::UNC_M_CLOCKTICKS",
    "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS",
    "amd64_rapl::RAPL_ENERGY_PKG",
];

/// PMUs whose tables changed upstream (docs/verification.md lists why):
/// their event counts differ from 4.13's, so a 4.13 comparison leaves
/// their lines out (upstream's compares them).
const UPSTREAM_CHANGED: &[&str] = &["icl", "icx", "spr"];

/// Strings 4.13 encodes, with `LIBPFM_ENCODE_INACTIVE`, through the
/// prefix of a PMU left out (after the forced one, or disabled), where
/// upstream, the reference pfmlib follows, answers `PFM_ERR_NOTFOUND`: its
/// prefixes reach the PMUs set up only. (Forced PMU or disabled list, the
/// strings.)
const LEFT_OUT_BY_4_13: &[(&str, &[&str])] = &[
    (
        "wsm",
        &[
            "perf::cycles",
            "skx::INST_RETIRED:ANY_P",
            "spr::INST_RETIRED:ANY_P",
            "skx_unc_imc0::UNC_M_CLOCKTICKS",
        ],
    ),
    (
        "nhm",
        &[
            "wsm::UOPS_EXECUTED:PORT0",
            "perf::cycles",
            "skx::INST_RETIRED:ANY_P",
            "spr::INST_RETIRED:ANY_P",
            "skx_unc_imc0::UNC_M_CLOCKTICKS",
        ],
    ),
    ("zen3", &["amd64_fam19h_zen3::RETIRED_INSTRUCTIONS"]),
    (
        "nhm,zen3",
        &[
            "nhm::INST_RETIRED:ANY_P",
            "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS",
        ],
    ),
];

/// 4.13's encodings with the differences [`LEFT_OUT_BY_4_13`] names taken
/// as upstream's: where both the setting and the string are listed and
/// pfmlib answers `PFM_ERR_NOTFOUND`, 4.13's line is replaced by ours.
fn as_upstream(env: &[(&str, &str)], ours: &[String], theirs: Vec<String>) -> Vec<String> {
    let inactive = env.iter().any(|(k, _)| *k == "LIBPFM_ENCODE_INACTIVE");
    let setting = env
        .iter()
        .find(|(k, _)| *k == "LIBPFM_FORCE_PMU" || *k == "LIBPFM_DISABLED_PMUS")
        .map(|(_, v)| *v);
    let listed = |line: &str| {
        inactive
            && LEFT_OUT_BY_4_13.iter().any(|(s, strings)| {
                Some(*s) == setting && strings.iter().any(|x| line.starts_with(&format!("{x} ")))
            })
    };
    theirs
        .into_iter()
        .zip(ours)
        .map(|(t, o)| {
            if listed(&t) && o.ends_with(" -4 0") {
                o.clone()
            } else {
                t
            }
        })
        .collect()
}

#[test]
fn pmu_choice_is_libpfm4s() {
    let configs: &[&[(&str, &str)]] = &[
        &[],
        &[("LIBPFM_ENCODE_INACTIVE", "1")],
        &[("LIBPFM_FORCE_PMU", "nhm")],
        &[("LIBPFM_FORCE_PMU", "NHM_EX,whatever")],
        // Any value turned LIBPFM_ENCODE_INACTIVE on in 4.13 (the oracle
        // here); upstream, which pfmlib follows, needs a leading non-zero
        // digit, so only values both read alike are compared.
        &[("LIBPFM_FORCE_PMU", "wsm"), ("LIBPFM_ENCODE_INACTIVE", "2")],
        &[("LIBPFM_FORCE_PMU", "no_such_pmu")],
        &[("LIBPFM_DISABLED_PMUS", "nhm,perf")],
        &[
            ("LIBPFM_DISABLED_PMUS", "zen3"),
            ("LIBPFM_ENCODE_INACTIVE", "1"),
        ],
        &[
            ("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3"),
            ("LIBPFM_DISABLED_PMUS", "wsm"),
        ],
        // A prefix reaches PMUs left out (disabled, or after the forced one)
        // when inactive PMUs may be encoded.
        &[
            ("LIBPFM_DISABLED_PMUS", "nhm,zen3"),
            ("LIBPFM_ENCODE_INACTIVE", "1"),
        ],
        &[("LIBPFM_FORCE_PMU", "nhm"), ("LIBPFM_ENCODE_INACTIVE", "1")],
    ];
    let mut args = vec!["env"];
    args.extend_from_slice(STRINGS);
    let mut compared = 0;
    for env in configs {
        let ours = answers(&run(true, &args, env));
        // Whatever the system, the settings take effect here.
        match env.first() {
            Some(("LIBPFM_FORCE_PMU", "nhm")) => {
                assert!(
                    ours.0[&15].ends_with(" 1"),
                    "nhm forced: {:?}",
                    ours.0.get(&15)
                );
                assert!(
                    !ours.0.contains_key(&52),
                    "PMUs after the forced one are not set up"
                );
                assert!(
                    ours.1
                        .contains(&"INST_RETIRED:ANY_P 0 0x5300c0".to_string()),
                    "{:?}",
                    ours.1
                );
            }
            Some(("LIBPFM_DISABLED_PMUS", "nhm,perf")) => {
                assert!(
                    !ours.0.contains_key(&15)
                        && !ours.0.contains_key(&16)
                        && !ours.0.contains_key(&51)
                );
            }
            _ => {}
        }
        if programs().1.is_none() {
            continue;
        }
        let theirs = answers(&run(false, &args, env));
        // The PMUs both have, as both list them; every encoding.
        let common: Vec<u32> = ours
            .0
            .keys()
            .filter(|k| theirs.0.contains_key(k))
            .copied()
            .collect();
        for id in &common {
            let name = ours.0[id].split(' ').nth(1).unwrap_or("");
            if !common::reference_is_upstream() && UPSTREAM_CHANGED.contains(&name) {
                continue;
            }
            assert_eq!(ours.0[id], theirs.0[id], "{env:?}: PMU {id}");
        }
        let theirs_enc = if common::reference_is_upstream() {
            theirs.1
        } else {
            as_upstream(env, &ours.1, theirs.1)
        };
        assert_eq!(ours.1, theirs_enc, "{env:?}: encodings");
        compared += common.len() + ours.1.len();
    }
    eprintln!(
        "environment: {} configurations, {compared} answers compared with libpfm4",
        configs.len()
    );
}

#[test]
fn verbose_and_debug_output() {
    let args = ["env", "INST_RETIRED:ANY_P", "NO_SUCH_EVENT"];
    let quiet = run(true, &args, &[("LIBPFM_FORCE_PMU", "nhm")]);
    assert!(
        quiet.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
    let out = run(
        true,
        &args,
        &[("LIBPFM_FORCE_PMU", "nhm"), ("LIBPFM_VERBOSE", "1")],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("forced PMU: nhm (Intel Nehalem)"), "{err}");
    assert!(
        err.contains("[0x5300c0] nhm::INST_RETIRED:ANY_P:k=1:u=1:e=0:i=0:c=0:t=0"),
        "{err}"
    );
    assert!(
        !err.contains("pfmlib: "),
        "no debug output without LIBPFM_DEBUG: {err}"
    );
    let out = run(
        true,
        &args,
        &[("LIBPFM_FORCE_PMU", "nhm"), ("LIBPFM_DEBUG", "1")],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pfmlib: ") && err.contains("NO_SUCH_EVENT"),
        "{err}"
    );
    assert!(err.contains("PFM_ERR_NOTFOUND"), "{err}");
    let out = run(
        true,
        &args,
        &[
            ("LIBPFM_FORCE_PMU", "nhm"),
            ("LIBPFM_DEBUG", "1"),
            ("LIBPFM_VERBOSE", "1"),
            ("LIBPFM_DEBUG_STDOUT", "1"),
        ],
    );
    let (so, se) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(se.is_empty(), "{se}");
    assert!(
        so.contains("forced PMU: nhm") && so.contains("pfmlib: "),
        "{so}"
    );
    // A level that is not a digit means nothing, as in libpfm4.
    let out = run(
        true,
        &args,
        &[("LIBPFM_VERBOSE", "yes"), ("LIBPFM_DEBUG", "x")],
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `PFMLIB_HOST_ARCH=riscv64`: pfmlib's own riscv64 build (no libpfm4 has
/// one): the RISC-V PMUs under their ids 800-808, perf's two, nothing else;
/// their events encode (inactive here, on a machine that is no RISC-V one).
#[test]
fn host_arch_riscv64_is_pfmlibs_own_build() {
    let args = [
        "env",
        "riscv_sifive_u74::DCACHE_MISS",
        "riscv_sbi::FW_SET_TIMER",
    ];
    let env = [
        ("PFMLIB_HOST_ARCH", "riscv64"),
        ("LIBPFM_ENCODE_INACTIVE", "1"),
    ];
    let (pmus, enc) = answers(&run(true, &args, &env));
    let name = |l: &String| l.split(' ').nth(1).unwrap_or_default().to_string();
    let riscv: Vec<u32> = pmus
        .iter()
        .filter(|(_, l)| name(l).starts_with("riscv_"))
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(riscv, (800..=808).collect::<Vec<u32>>(), "{pmus:?}");
    let others: Vec<String> = pmus
        .values()
        .map(name)
        .filter(|n| !n.starts_with("riscv_"))
        .collect();
    assert_eq!(others, ["perf", "perf_raw"]);
    assert_eq!(
        enc,
        [
            "riscv_sifive_u74::DCACHE_MISS 0 0x202",
            "riscv_sbi::FW_SET_TIMER 0 0x8000000000000005"
        ]
    );
}

/// A Sierra Forest host (GenuineIntel, family 6, model 175 = 0xaf).
const SRF_CPUINFO: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 175\nmodel name\t: Intel(R) Xeon(R) 6780E\nstepping\t: 3\n\n";

/// The name and presence of each PMU of a `list` run, by id.
fn presence(out: &Output) -> BTreeMap<u32, (String, bool)> {
    answers(out)
        .0
        .into_iter()
        .map(|(id, l)| {
            let w: Vec<&str> = l.split(' ').collect();
            let present = w.last() == Some(&"1");
            (
                id,
                (w.get(1).copied().unwrap_or_default().to_string(), present),
            )
        })
        .collect()
}

/// `PFMLIB_HOST_ROOT=DIR`: the library answers for the host whose `/proc`
/// is under DIR, as `pfm --host-root DIR` (pfmlib's
/// `Host::detect_with_root`): on a Sierra Forest tree pfmlib's own `srf`
/// (id 701, beyond libpfm4's PFM_PMU_MAX) is the one core PMU present, a C
/// program walking the ids below our header's PFM_PMU_MAX sees it and
/// pfmlib's other own x86 PMUs, and unprefixed names are its events,
/// encoded as pfmlib encodes them for that host.
#[test]
fn host_root_answers_for_a_recorded_sierra_forest() {
    let dir = common::host_tree("srf", SRF_CPUINFO);
    let root = dir.to_string_lossy().into_owned();
    let strings = [
        "TOPDOWN_RETIRING",
        "srf::ARITH:FPDIV_ACTIVE",
        "INST_RETIRED:ANY_P",
    ];
    let mut args = vec!["env"];
    args.extend(strings);
    let out = run(true, &args, &[("PFMLIB_HOST_ROOT", &root)]);
    assert!(out.status.success(), "{out:?}");
    let pmus = presence(&out);
    let present: Vec<&str> = pmus
        .values()
        .filter(|(_, p)| *p)
        .map(|(n, _)| n.as_str())
        .collect();
    // Of the core PMUs Sierra Forest's alone (ix86arch needs CPUID leaf
    // 0xA); besides perf's, Sierra Forest's own PMUs only.
    assert!(present.contains(&"srf"), "{pmus:?}");
    assert!(
        present
            .iter()
            .all(|n| n.starts_with("perf") || n.starts_with("srf")),
        "{pmus:?}"
    );
    for (id, name) in [
        (701, "srf"),
        (702, "grr"),
        (703, "cwf"),
        (704, "adln_grt"),
        (705, "glp"),
    ] {
        assert_eq!(pmus.get(&id).map(|p| p.0.as_str()), Some(name), "{pmus:?}");
    }
    // pfmlib's own answers for the same tree.
    let host = pfmlib::Host::detect_with_root(pfmlib::Arch::X86, dir.clone());
    let lib = pfmlib::Library::with_host(host);
    let want: Vec<String> = strings
        .iter()
        .map(|s| {
            let e = lib
                .encode(s, pfmlib::Plm::PLM0 | pfmlib::Plm::PLM3, pfmlib::Os::None)
                .unwrap_or_else(|e| panic!("{s}: {e}"));
            format!("{s} 0 {:#x}", e.codes[0])
        })
        .collect();
    assert_eq!(answers(&out).1, want);
    // Relative to the working directory, as C programs take paths.
    let parent = dir.parent().unwrap();
    let mut cmd = Command::new(&programs().0);
    cmd.current_dir(parent)
        .env("PFMLIB_HOST_ROOT", "srf")
        .args(["env", "TOPDOWN_RETIRING"]);
    for k in [
        "LIBPFM_FORCE_PMU",
        "LIBPFM_DISABLED_PMUS",
        "LIBPFM_ENCODE_INACTIVE",
    ] {
        cmd.env_remove(k);
    }
    let rel = common::run_ours(&mut cmd);
    assert_eq!(answers(&rel).1, want[..1]);
}

/// `PFMLIB_HOST_ROOT` with an Arm tree: the architecture is the one the
/// tree's `/proc/cpuinfo` names (arm64: libpfm4's arm64 build, with
/// pfmlib's own Arm PMUs), the CPU its `CPU part` (Cortex-A710: pfmlib's
/// own `arm_ac710`, id 753); `PFMLIB_HOST_ARCH` names another build.
#[test]
fn host_root_takes_the_trees_architecture() {
    let a710 = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x2\nCPU part\t: 0xd47\nCPU revision\t: 0\n\n";
    let dir = common::host_tree("a710", a710);
    let root = dir.to_string_lossy().into_owned();
    let pmus = presence(&run(true, &["list"], &[("PFMLIB_HOST_ROOT", &root)]));
    let present: Vec<(u32, &str)> = pmus
        .iter()
        .filter(|(_, (_, p))| *p)
        .map(|(id, (n, _))| (*id, n.as_str()))
        .collect();
    assert_eq!(
        present,
        [(51, "perf"), (114, "perf_raw"), (753, "arm_ac710")],
        "{pmus:?}"
    );
    // The arm64 build: no x86 table (nhm, 15), pfmlib's own x86 PMUs neither.
    assert!(
        !pmus.contains_key(&15) && !pmus.contains_key(&701),
        "{pmus:?}"
    );
    let as_arm = presence(&run(
        true,
        &["list"],
        &[("PFMLIB_HOST_ROOT", &root), ("PFMLIB_HOST_ARCH", "arm")],
    ));
    // libpfm4's 32-bit Arm build: another PMU list, and the Armv9 core
    // detected by no table of it.
    let present: Vec<&str> = as_arm
        .values()
        .filter(|(_, p)| *p)
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(present, ["perf", "perf_raw"], "{as_arm:?}");
    assert_ne!(as_arm.len(), pmus.len());
    assert!(!as_arm.contains_key(&15), "{as_arm:?}");
}

/// A `PFMLIB_HOST_ROOT` that is no directory is ignored (this machine is
/// answered for), and `LIBPFM_VERBOSE` says so.
#[test]
fn host_root_not_a_directory_is_ignored() {
    let plain = presence(&run(true, &["list"], &[]));
    let missing = common::work_dir("host-trees").join("no-such-tree");
    let m = missing.to_string_lossy().into_owned();
    let out = run(
        true,
        &["list"],
        &[("PFMLIB_HOST_ROOT", &m), ("LIBPFM_VERBOSE", "1")],
    );
    assert_eq!(presence(&out), plain);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("PFMLIB_HOST_ROOT=") && err.contains("not a directory, ignored"),
        "{err}"
    );
}
