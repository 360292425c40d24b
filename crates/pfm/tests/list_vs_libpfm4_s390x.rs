//! `pfm --host-root DIR list --all --json` against libpfm4's s390x builds
//! (4.13: `PFMLIB_LIBPFM4_S390X`; upstream: `PFMLIB_LIBPFM4_HEAD_S390X`) on
//! recorded IBM Z hosts of our own making: every PMU of the build must be
//! listed under the same name and id, with libpfm4's event count, both as
//! `nevents` and as the length of its `events` array. libpfm4 reads the
//! host's files from `/proc` and `/sys`, so it runs in a child process in a
//! private user and mount namespace (`unshare -rm`) where the tree's `proc`
//! and kernel PMUs are bind-mounted there; pfm reads the same tree with
//! `--host-root`. Without an oracle the test prints SKIPPED (a failure
//! under `PFMLIB_REQUIRE_ARM_ORACLES`); without namespaces it compares the
//! off-machine answer only (`cpum_cf` with no events).

mod common;

use common::{pfm, stderr, stdout, write_tree};
use pfm_oracle::Libpfm4;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// In a child process: the build to load.
const CHILD: &str = "PFMLIB_S390X_LIST_CHILD";
/// Prefix of the child's report lines.
const MARK: &str = "@@";
/// The variable that makes a missing oracle a failure.
const REQUIRE: &str = "PFMLIB_REQUIRE_ARM_ORACLES";

/// Not a test: the child process of the others (a no-op otherwise).
#[test]
fn oracle_child() {
    let Some(which) = std::env::var_os(CHILD) else {
        return;
    };
    let o = Libpfm4::load_from(Path::new(&which)).expect("the oracle loads");
    let mut out = String::from("\n");
    for p in o.pmus() {
        out += &format!("{MARK}\t{}\t{}\t{}\n", p.name, p.id, p.nevents);
    }
    print!("{out}");
}

/// PMU name → (id, events).
type Pmus = BTreeMap<String, (i64, i64)>;

/// The PMUs the build at `so` lists, in a child (in the namespace of the
/// tree `dir` when given); `None` when the namespace cannot be made.
fn oracle_pmus(so: &str, dir: Option<&Path>) -> Option<Pmus> {
    let exe = std::env::current_exe().expect("the test binary");
    const MOUNT: &str = "mount --bind \"$0\" /proc && mount --bind \"$1\" /sys/bus/event_source/devices && shift && exec \"$@\"";
    let mut cmd = match dir {
        Some(d) => {
            let mut c = Command::new("unshare");
            c.args(["-rm", "sh", "-c", MOUNT])
                .arg(d.join("proc"))
                .arg(d.join("sys/bus/event_source/devices"))
                .arg(exe);
            c
        }
        None => Command::new(exe),
    };
    cmd.args(["oracle_child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, so)
        .env_remove("LIBPFM_FORCE_PMU")
        .env_remove("LIBPFM_DISABLED_PMUS");
    let out = cmd.output().ok()?;
    if !out.status.success() {
        return None;
    }
    let mut pmus = Pmus::new();
    for line in String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix(MARK))
    {
        let f: Vec<&str> = line.trim_start_matches('\t').split('\t').collect();
        let num = |i: usize| f[i].parse::<i64>().expect("a number");
        pmus.insert(f[0].to_string(), (num(1), num(2)));
    }
    (!pmus.is_empty()).then_some(pmus)
}

/// `pfm [--host-root DIR --host-arch s390x] list --all --json`: PMU → (id,
/// nevents, events listed).
fn pfm_list(dir: Option<&Path>) -> BTreeMap<String, (i64, i64, i64)> {
    let root = dir.map(|d| d.to_string_lossy().into_owned());
    let mut args = Vec::new();
    if let Some(r) = &root {
        args.extend(["--host-root", r.as_str(), "--host-arch", "s390x"]);
    }
    args.extend(["list", "--all", "--json"]);
    let o = pfm(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    doc["pmus"]
        .as_array()
        .expect("pmus")
        .iter()
        .map(|p| {
            let listed = p["events"].as_array().map_or(0, Vec::len) as i64;
            (
                p["name"].as_str().expect("name").to_string(),
                (
                    p["id"].as_i64().unwrap(),
                    p["nevents"].as_i64().unwrap(),
                    listed,
                ),
            )
        })
        .collect()
}

/// A recorded IBM Z: machine `ty`, counter facility `version`.
fn ibm_z(ty: &str, version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    let dev = "sys/bus/event_source/devices";
    write_tree(
        dir.path(),
        &[
            (
                "proc/cpuinfo",
                "vendor_id       : IBM/S390\n# processors    : 2\n",
            ),
            (
                "proc/sysinfo",
                &format!("Manufacturer:         IBM\nType:                 {ty}\n"),
            ),
            (
                "proc/service_levels",
                &format!("CPU-MF: Counter facility: version={version} authorization=002f\n"),
            ),
            ("proc/sys/kernel/perf_event_paranoid", "2\n"),
            (&format!("{dev}/cpum_cf/type"), "10\n"),
            (&format!("{dev}/cpum_cf/perf_event_mux_interval_ms"), "4\n"),
            (&format!("{dev}/cpum_sf/type"), "11\n"),
            (&format!("{dev}/cpum_sf/perf_event_mux_interval_ms"), "4\n"),
        ],
    );
    dir
}

fn compare(label: &str, theirs: &Pmus, ours: &BTreeMap<String, (i64, i64, i64)>) {
    let mut d = Vec::new();
    for (name, &(id, n)) in theirs {
        match ours.get(name) {
            Some(&o) if o == (id, n, n) => {}
            o => d.push(format!("{name}: libpfm4 ({id}, {n}) pfm {o:?}")),
        }
    }
    let events: i64 = theirs.values().map(|t| t.1).sum();
    eprintln!("{label}: {} PMUs, {events} events compared", theirs.len());
    assert!(d.is_empty(), "{label}:\n{}", d.join("\n"));
}

/// Each build on a z15, a z16 and (upstream) a z17, and off an s390x host.
fn check(var: &str, machines: &[(&str, &str, i64)]) {
    let Some(so) = std::env::var_os(var).filter(|v| !v.is_empty()) else {
        assert!(
            std::env::var_os(REQUIRE).is_none(),
            "{REQUIRE} is set but {var} is not"
        );
        eprintln!("SKIPPED: {var} is not set (libpfm4 built for s390x)");
        return;
    };
    let so = so.to_string_lossy().into_owned();
    let off = oracle_pmus(&so, None).expect("the oracle lists its PMUs");
    compare(&format!("{var} off s390x"), &off, &pfm_list(None));
    for &(ty, version, cf) in machines {
        let dir = ibm_z(ty, version);
        let Some(theirs) = oracle_pmus(&so, Some(dir.path())) else {
            assert!(
                std::env::var_os(REQUIRE).is_none(),
                "{REQUIRE} is set but no namespace here"
            );
            eprintln!("SKIPPED: no bind mount over /proc in a user and mount namespace here");
            return;
        };
        assert_eq!(theirs.get("cpum_cf").map(|t| t.1), Some(cf), "{ty}");
        compare(
            &format!("{var} type {ty} {version}"),
            &theirs,
            &pfm_list(Some(dir.path())),
        );
    }
}

#[test]
fn pfm_list_matches_libpfm4_s390x() {
    check(
        "PFMLIB_LIBPFM4_S390X",
        &[("8561", "3.6", 85), ("3931", "3.8", 98)],
    );
}

#[test]
fn pfm_list_matches_libpfm4_head_s390x() {
    check(
        "PFMLIB_LIBPFM4_HEAD_S390X",
        &[
            ("8561", "3.6", 85),
            ("3931", "3.8", 98),
            ("9175", "3.8", 105),
        ],
    );
}
