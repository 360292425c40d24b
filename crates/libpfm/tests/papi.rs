//! PAPI, an existing program built against Debian's libpfm4, run unchanged
//! on our `libpfm.so.4`: `papi_native_avail` lists the same native events
//! and unit masks (names; descriptions are our own words) as with libpfm4,
//! and `papi_command_line` adds and counts the same perf events. Skipped
//! where PAPI's tools are not installed (Debian: `papi-tools`).
//!
//! pfmlib's own PMUs (beyond libpfm4, ids from 701) through PAPI: on host
//! trees (`PFMLIB_HOST_ROOT`) where one is the core PMU, the installed PAPI
//! and one built from Debian's source package against our headers
//! (`.ci/papi-source`, named by `PFMLIB_PAPI_BUILD`; required with
//! `PFMLIB_REQUIRE_PAPI=1`) list every event and unit mask of it.

mod common;

use std::process::{Command, Output};

/// Runs PAPI tool `tool` against our library or the installed libpfm4;
/// `None` when the tool is not there.
fn run(tool: &str, args: &[&str], ours: bool) -> Option<Output> {
    let mut cmd = Command::new(tool);
    cmd.args(args);
    for k in [
        "LIBPFM_FORCE_PMU",
        "LIBPFM_DISABLED_PMUS",
        "LIBPFM_ENCODE_INACTIVE",
        "LIBPFM_VERBOSE",
        "LIBPFM_DEBUG",
    ] {
        cmd.env_remove(k);
    }
    if ours {
        // pfmlib's own PMUs (beyond libpfm4) left out: on a machine where
        // one is present, PAPI lists its events on ours only.
        let lib = pfmlib::Library::new(
            pfmlib::Host::detect(),
            pfmlib::Options::new().host_build_only(true),
        );
        let own: Vec<&str> = lib
            .pmus()
            .filter(|p| p.id() > 700)
            .map(|p| p.name())
            .collect();
        cmd.env("LIBPFM_DISABLED_PMUS", own.join(","))
            .env("LD_LIBRARY_PATH", common::our_lib_dir());
        return cmd.output().ok();
    }
    // The reference: upstream's build when named, else the installed one.
    Some(common::run_system(&mut cmd))
}

/// The names papi_native_avail prints: event lines (`| NAME  |`), unit
/// mask lines (`|     :MASK  |`), component headers and the total.
fn names(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            if l.contains("Native Events in Component") || l.starts_with("Total events") {
                return Some(l.trim().to_string());
            }
            let rest = l.strip_prefix('|')?;
            let word = rest.split_whitespace().next()?;
            let is_name = rest.starts_with(' ') && !rest.starts_with("  ") && word != "|";
            let is_mask = word.starts_with(':') && word.len() > 1;
            (is_name || is_mask).then(|| word.to_string())
        })
        .collect()
}

#[test]
fn papi_native_avail_lists_libpfm4s_events() {
    let Some(theirs) = run("papi_native_avail", &[], false) else {
        eprintln!("SKIPPED: papi_native_avail not installed");
        return;
    };
    if common::system_libpfm4().is_none() {
        eprintln!("SKIPPED: no installed libpfm4 to compare with");
        return;
    }
    let ours = run("papi_native_avail", &[], true).expect("papi_native_avail ran once");
    assert!(ours.status.success(), "{ours:?}");
    let (a, b) = (names(&theirs), names(&ours));
    assert!(
        a.iter().any(|l| l.starts_with("Total events")),
        "unexpected papi_native_avail output: {a:?}"
    );
    assert_eq!(a, b, "papi_native_avail: libpfm4's names / ours");
    eprintln!(
        "papi_native_avail: {} names identical ({})",
        a.len(),
        a.iter()
            .find(|l| l.starts_with("Total events"))
            .map_or("", String::as_str)
    );
}

#[test]
fn papi_command_line_adds_the_same_events() {
    let args = [
        "perf::TASK-CLOCK",
        "perf::PAGE-FAULTS",
        "perf::CONTEXT-SWITCHES:u",
        "no_such_event",
    ];
    let Some(theirs) = run("papi_command_line", &args, false) else {
        eprintln!("SKIPPED: papi_command_line not installed");
        return;
    };
    let ours = run("papi_command_line", &args, true).expect("papi_command_line ran once");
    // What was added or refused, not the counts.
    let verdicts = |o: &Output| -> Vec<String> {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .chain(String::from_utf8_lossy(&o.stderr).lines())
            .filter(|l| l.starts_with("Successfully added") || l.starts_with("Failed adding"))
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (verdicts(&theirs), verdicts(&ours));
    assert_eq!(a, b, "papi_command_line: libpfm4 / ours");
    assert!(
        b.iter().filter(|l| l.starts_with("Successfully")).count() >= 3,
        "{b:?}"
    );
}

/// The variable naming the PAPI that `.ci/papi-source` built from Debian's
/// source package against our headers and library (its `src/` folder, with
/// `utils/papi_native_avail`); `PFMLIB_REQUIRE_PAPI=1` (set by `.ci/run`
/// when that build succeeded) makes its absence a failure.
const PAPI_BUILD_VAR: &str = "PFMLIB_PAPI_BUILD";

/// A PAPI to run: its tools' folder (`None`: the installed tools, found
/// in the PATH) and what it is.
struct Papi {
    tools: Option<std::path::PathBuf>,
    lib: Option<std::path::PathBuf>,
    what: &'static str,
}

impl Papi {
    /// Runs tool `tool` of this PAPI on our library, answering for the host
    /// tree `root`; `None` when the tool is not there.
    /// `force`: with `LIBPFM_FORCE_PMU` set to it.
    fn run(
        &self,
        tool: &str,
        args: &[&str],
        root: &std::path::Path,
        force: Option<&str>,
    ) -> Option<Output> {
        let exe = match &self.tools {
            Some(dir) => dir.join(tool),
            None => tool.into(),
        };
        let mut cmd = Command::new(exe);
        cmd.args(args).env("PFMLIB_HOST_ROOT", root);
        for k in [
            "LIBPFM_FORCE_PMU",
            "LIBPFM_DISABLED_PMUS",
            "LIBPFM_ENCODE_INACTIVE",
            "PFMLIB_HOST_ARCH",
            "PFMLIB_ALL_ARCHITECTURES",
        ] {
            cmd.env_remove(k);
        }
        if let Some(f) = force {
            cmd.env("LIBPFM_FORCE_PMU", f);
        }
        let mut path = common::our_lib_dir().into_os_string();
        if let Some(lib) = &self.lib {
            path.push(":");
            path.push(lib);
        }
        cmd.env("LD_LIBRARY_PATH", path).output().ok()
    }
}

/// The PAPIs to run: the one built from source against our headers (when
/// `PFMLIB_PAPI_BUILD` names it) and the installed one (Debian's
/// papi-tools, built against libpfm4 4.13's headers, when installed).
fn papis() -> Vec<Papi> {
    let mut v = Vec::new();
    let required = std::env::var("PFMLIB_REQUIRE_PAPI").is_ok_and(|r| r == "1");
    let built = std::env::var_os(PAPI_BUILD_VAR)
        .map(std::path::PathBuf::from)
        .filter(|d| d.join("utils/papi_native_avail").is_file());
    match built {
        Some(dir) => v.push(Papi {
            tools: Some(dir.join("utils")),
            lib: Some(dir),
            what: "PAPI built from source against our headers",
        }),
        None => {
            let why = format!(
                "no PAPI built from source: set {PAPI_BUILD_VAR} (.ci/papi-source builds it)"
            );
            assert!(!required, "{why} (PFMLIB_REQUIRE_PAPI=1)");
            eprintln!("SKIPPED (source build): {why}");
        }
    }
    if Command::new("papi_native_avail")
        .arg("--help")
        .output()
        .is_ok()
    {
        v.push(Papi {
            tools: None,
            lib: None,
            what: "the installed PAPI (Debian's, built against libpfm4 4.13)",
        });
    } else {
        eprintln!("SKIPPED (installed PAPI): papi_native_avail not installed");
    }
    v
}

/// `/proc/cpuinfo` of an Intel host of family 6, model `model`.
fn intel_cpuinfo(model: u32) -> String {
    intel_cpuinfo_of(6, model)
}

/// [`intel_cpuinfo`] of another family (Nova Lake's 18).
fn intel_cpuinfo_of(family: u32, model: u32) -> String {
    format!("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: {family}\nmodel\t\t: {model}\nmodel name\t: Intel(R) Processor\nstepping\t: 1\n\n")
}

/// pfmlib's own PMUs that share their host with another core PMU: PAPI 7.0
/// disables its perf_event component when libpfm4 gives it two ("too many
/// default PMUs", as on Alder Lake with libpfm4 upstream's `adl_glc` and
/// `adl_grt`), so one is chosen with `LIBPFM_FORCE_PMU`. `ehl` needs it
/// because the C library, as libpfm4, keeps `tmt` the core PMU there.
const FORCED: &[&str] = &[
    "ehl", "mtl_rwc", "mtl_cmt", "arl_lnc", "arl_skt", "arl_cmt", "nvl_arw",
];

/// pfmlib's own PMUs (beyond libpfm4, ids from 701) and a host tree on
/// which each is the core PMU: every Intel one, and one Arm core (the
/// arm64 build answered on this machine; PAPI only lists it).
fn own_hosts() -> Vec<(&'static str, pfmlib::Arch, String)> {
    let x86 = pfmlib::Arch::X86;
    vec![
        ("srf", x86, intel_cpuinfo(0xaf)),
        ("grr", x86, intel_cpuinfo(0xb6)),
        ("cwf", x86, intel_cpuinfo(0xdd)),
        ("adln_grt", x86, intel_cpuinfo(0xbe)),
        ("glp", x86, intel_cpuinfo(0x7a)),
        // Where a host has two core PMUs (libpfm4's tmt and pfmlib's
        // ehl; the kinds of core of a hybrid part), PAPI 7.0 takes one:
        // the one forced (FORCED).
        ("ehl", x86, intel_cpuinfo(0x96)),
        ("mtl_rwc", x86, intel_cpuinfo(0xaa)),
        ("mtl_cmt", x86, intel_cpuinfo(0xaa)),
        ("arl_lnc", x86, intel_cpuinfo(0xc5)),
        ("arl_skt", x86, intel_cpuinfo(0xc5)),
        ("arl_cmt", x86, intel_cpuinfo(0xc5)),
        ("nvl_arw", x86, intel_cpuinfo_of(18, 1)),
        (
            "arm_ac710",
            pfmlib::Arch::Aarch64,
            "processor\t: 0\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x2\nCPU part\t: 0xd47\nCPU revision\t: 0\n\n".into(),
        ),
    ]
}

/// The events papi_native_avail lists in its perf_event component for PMU
/// `pmu`, with their unit masks (`:NAME` lines without `=`): the events
/// of the PMU PAPI takes as the core one carry no prefix, others `pmu::`.
fn listed_events(out: &Output, pmu: &str) -> Vec<(String, Vec<String>)> {
    let text = String::from_utf8_lossy(&out.stdout);
    let mut events: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_perf = false;
    let mut current: Option<usize> = None;
    for l in text.lines() {
        if let Some(c) = l.trim().strip_prefix("Native Events in Component:") {
            in_perf = c.trim() == "perf_event";
            continue;
        }
        let Some(rest) = l.strip_prefix('|').filter(|_| in_perf) else {
            continue;
        };
        let word = rest.split_whitespace().next().unwrap_or_default();
        if rest.starts_with(' ') && !rest.starts_with("  ") && word != "|" {
            let name = word.strip_prefix(&format!("{pmu}::")).unwrap_or(word);
            current = (!name.contains("::")).then(|| {
                events.push((name.to_string(), Vec::new()));
                events.len() - 1
            });
        } else if let (Some(i), Some(m)) = (current, word.strip_prefix(':')) {
            if rest.starts_with("     :") && !m.contains('=') {
                events[i].1.push(m.to_string());
            }
        }
    }
    events
}

/// pfmlib's own PMUs through PAPI: on a host tree where one is the core
/// PMU (`PFMLIB_HOST_ROOT`), `papi_native_avail` lists every event of it
/// with every unit mask, as pfmlib has them, `papi_component_avail` names
/// it among the perf_event component's PMUs, and a `pmu::EVENT` name
/// reaches it. PAPI walks the PMU ids until `pfm_get_pmu_info` answers
/// `PFM_ERR_INVAL`, which ours does from its PFM_PMU_MAX, 1024, on: so the
/// installed PAPI, built against 4.13's headers, sees them as the one
/// built against ours does.
#[test]
fn papi_lists_pfmlibs_own_pmus() {
    let papis = papis();
    if papis.is_empty() {
        return;
    }
    let mut checked = 0;
    for (pmu, arch, cpuinfo) in own_hosts() {
        let root = common::host_tree(&format!("papi-{pmu}"), &cpuinfo);
        let host = pfmlib::Host::detect_with_root(arch, root.clone());
        let force = FORCED.contains(&pmu).then_some(pmu);
        let mut opts = pfmlib::Options::new().host_build_only(true);
        if let Some(f) = force {
            opts = opts.force_pmu(f);
        }
        let lib = pfmlib::Library::new(host, opts);
        let p = lib.pmu(pmu).expect("pfmlib's own PMU");
        assert!(p.id() > 700 && p.info().is_present, "{pmu} on its host");
        let want: Vec<(String, Vec<String>)> = p
            .events()
            .map(|e| {
                let umasks = e
                    .attrs(pfmlib::Os::PerfEventExt)
                    .iter()
                    .filter(|a| a.attr_type == pfmlib::AttrType::Umask)
                    .map(|a| a.name.to_string())
                    .collect();
                (e.name().to_string(), umasks)
            })
            .collect();
        for papi in &papis {
            let what = format!("{} on a {pmu} host", papi.what);
            let out = papi
                .run("papi_native_avail", &[], &root, force)
                .unwrap_or_else(|| panic!("{what}: papi_native_avail did not run"));
            assert!(out.status.success(), "{what}: {out:?}");
            assert_eq!(listed_events(&out, pmu), want, "{what}");
            if let Some(c) = papi.run("papi_component_avail", &[], &root, force) {
                let text = String::from_utf8_lossy(&c.stdout);
                assert!(
                    text.lines().any(|l| l.contains("PMUs supported:")
                        && l.split([':', ',']).any(|w| w.trim() == pmu)),
                    "{what}: papi_component_avail\n{text}"
                );
            }
            let (ev, umasks) = &want[0];
            let name = match umasks.first() {
                Some(u) => format!("{pmu}::{ev}:{u}"),
                None => format!("{pmu}::{ev}"),
            };
            let one = papi
                .run("papi_native_avail", &["-e", &name], &root, force)
                .expect("papi_native_avail ran");
            let text = String::from_utf8_lossy(&one.stdout);
            assert!(
                one.status.success() && text.contains("Event name:"),
                "{what}: papi_native_avail -e {name}\n{text}"
            );
            checked += want.len();
        }
    }
    eprintln!(
        "PAPI: pfmlib's own PMUs listed with all their events and unit masks ({checked} events over {} PAPI builds)",
        papis.len()
    );
}
