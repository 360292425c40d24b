//! Uncore PMUs with several instances (`uncore_imc_0..3`, `uncore_cha_0..1`
//! of the recorded `uncore_host` tree, a Skylake server whose boxes have
//! `cpumask` 0,4): an instance-less name means every instance, each counted
//! system-wide on its `cpumask` CPUs, merged under the one name or one per
//! box (`expand_uncore`, perf's `--no-merge`); on the simulated kernel.

use pfmlib::{Host, Library, Plm, Vendor};
use pfmlib_perf::perf_syntax::{expand_uncore, resolve_one, uncore};
use pfmlib_perf::sim::{SimConfig, SimKernel};
use pfmlib_perf::{CounterSet, Options, Scope};
use std::path::{Path, PathBuf};

const MS: u64 = 1_000_000;
/// 64 bytes per CAS, in MiB: the alias's `.scale`.
const MIB: f64 = 64.0 / 1_048_576.0;

/// The tree's files on its CPU (x86 hosts take the CPU from CPUID, so
/// `Host::from_root` would make pfmlib's Skylake uncore PMUs absent here).
fn host_lib() -> Library {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/trees/uncore_host");
    let host = tree_files(&root, "")
        .into_iter()
        .fold(Host::synthetic(Vendor::Intel, 6, 85), |h, (path, text)| {
            h.with_file(&path, &text)
        });
    Library::with_host(host)
}

fn tree_files(dir: &Path, at: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = format!("{at}/{}", e.file_name().to_string_lossy());
        if e.path().is_dir() {
            out.extend(tree_files(&e.path(), &name));
        } else {
            out.push((name, std::fs::read_to_string(e.path()).unwrap()));
        }
    }
    out
}

/// The simulated machine of the tree: 8 CPUs, its uncore types.
fn machine() -> SimKernel {
    SimKernel::new(
        SimConfig::default()
            .cpus(8)
            .uncore_types(vec![22, 23, 24, 25, 30, 31]),
    )
}

fn groups(names: &[&str]) -> Vec<Vec<String>> {
    names.iter().map(|n| vec![n.to_string()]).collect()
}

#[test]
fn instance_less_names_expand_to_every_box() {
    let lib = host_lib();
    let imc = |i: u32| format!("uncore_imc_{i}/cas_count_read/");
    let parts = uncore::parts(&lib, "uncore_imc/cas_count_read/").unwrap();
    let want: Vec<String> = (0..4).map(imc).collect();
    assert_eq!(
        parts.iter().map(|p| p.event.clone()).collect::<Vec<_>>(),
        want
    );
    assert!(parts.iter().all(|p| p.cpus == Some(vec![0, 4])));
    // `uncore_imc_free_running_0` is another PMU, not an instance.
    assert_eq!(
        uncore::instances(lib.host(), "uncore_imc"),
        (0..4)
            .map(|i| format!("uncore_imc_{i}"))
            .collect::<Vec<_>>()
    );
    // One box named: that box, still system-wide on its cpumask.
    let one = uncore::parts(&lib, "uncore_imc_2/clockticks/").unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].cpus, Some(vec![0, 4]));
    // Terms and modifiers go to each box.
    let cha = uncore::parts(&lib, "uncore_cha/event=0x0/").unwrap();
    assert_eq!(cha[1].event, "uncore_cha_1/event=0x0/");
    // Core events are no uncore events.
    assert_eq!(uncore::parts(&lib, "msr/tsc/"), None);
    assert_eq!(uncore::parts(&lib, "cycles"), None);
    // --no-merge: one event per box, in the same group.
    let g = vec![vec![
        "task-clock".into(),
        "uncore_imc/cas_count_read/".into(),
    ]];
    let mut want_g = vec!["task-clock".to_string()];
    want_g.extend(want);
    assert_eq!(expand_uncore(&lib, &g), vec![want_g]);
}

#[test]
fn a_merged_name_resolves_as_its_first_box_with_scale_and_unit() {
    let lib = host_lib();
    let e = resolve_one(&lib, "uncore_imc/cas_count_read/", Plm::DEFAULT).unwrap();
    assert_eq!(e.name, "uncore_imc/cas_count_read/");
    assert_eq!((e.attr.type_, e.attr.config), (22, 0x304));
    assert_eq!((e.scale, e.unit.as_deref()), (Some(MIB), Some("MiB")));
    // No such PMU, no such instances: the error names the PMUs.
    let err = resolve_one(&lib, "uncore_nope/event=1/", Plm::DEFAULT).unwrap_err();
    assert!(err.to_string().contains("uncore_imc_0"), "{err}");
}

#[test]
fn pfmlib_uncore_names_without_a_number_cover_every_present_box() {
    let lib = host_lib();
    let parts = uncore::parts(&lib, "skx_unc_imc::UNC_M_CAS_COUNT:RD").unwrap();
    let names: Vec<&str> = parts.iter().map(|p| p.event.as_str()).collect();
    assert_eq!(
        names,
        [
            "skx_unc_imc0::UNC_M_CAS_COUNT:RD",
            "skx_unc_imc1::UNC_M_CAS_COUNT:RD",
            "skx_unc_imc2::UNC_M_CAS_COUNT:RD",
            "skx_unc_imc3::UNC_M_CAS_COUNT:RD",
        ]
    );
    assert!(parts.iter().all(|p| p.cpus == Some(vec![0, 4])));
    let types: Vec<u32> = names
        .iter()
        .map(|n| resolve_one(&lib, n, Plm::DEFAULT).unwrap().attr.type_)
        .collect();
    assert_eq!(types, [22, 23, 24, 25]);
    let e = resolve_one(&lib, "skx_unc_imc::UNC_M_CAS_COUNT:RD", Plm::DEFAULT).unwrap();
    assert_eq!(e.attr.type_, 22);
}

/// Each box counts system-wide on CPUs 0 and 4 (the simulated box `k`
/// counts `k + 1` per 100 ns on each): merged, the sum of the four; one
/// per box with `--no-merge`; a command's scope or `-C 1` changes nothing.
#[test]
fn merged_counts_are_the_sum_of_the_boxes() {
    let lib = host_lib();
    let per_box = |k: u64| 2 * (k + 1) * MS / 100;
    let total: u64 = (0..4).map(per_box).sum();
    for scope in [
        Scope::Workload,
        Scope::Cpus(vec![1]),
        Scope::Cpus((0..8).collect()),
    ] {
        let sim = machine();
        let g = groups(&[
            "uncore_imc/cas_count_read/",
            "skx_unc_imc::UNC_M_CAS_COUNT:RD",
        ]);
        let set = CounterSet::open_on(&sim, &lib, &g, &scope, &Options::default());
        assert!(set.error(0).is_none(), "{:?}", set.error(0));
        assert!(set.error(1).is_none(), "{:?}", set.error(1));
        // 4 boxes x 2 CPUs, for each of the two events.
        assert_eq!(sim.open_events(), 16, "{scope:?}");
        set.enable().unwrap();
        sim.run(MS);
        set.disable().unwrap();
        let r = set.read().unwrap();
        assert_eq!(r[0].as_ref().unwrap().value, total, "{scope:?}");
        assert_eq!(r[1].as_ref().unwrap().value, total, "{scope:?}");
    }
    // --no-merge: each box on its own line.
    let sim = machine();
    let g = expand_uncore(&lib, &groups(&["uncore_imc/cas_count_read/"]));
    let set = CounterSet::open_on(&sim, &lib, &g, &Scope::Workload, &Options::default());
    assert_eq!(set.names().len(), 4);
    set.enable().unwrap();
    sim.run(MS);
    let r = set.read().unwrap();
    let got: Vec<u64> = r.iter().map(|r| r.as_ref().unwrap().value).collect();
    assert_eq!(got, (0..4).map(per_box).collect::<Vec<_>>());
}

/// Per CPU, an uncore count goes to the line of its cpumask CPU.
#[test]
fn per_cpu_readings_land_on_the_cpumask_cpus() {
    let lib = host_lib();
    let sim = machine();
    let scope = Scope::Cpus((0..8).collect());
    let g = groups(&["uncore_cha/event=0x0/", "task-clock"]);
    let set = CounterSet::open_on(&sim, &lib, &g, &scope, &Options::default());
    set.enable().unwrap();
    sim.run(MS);
    let units = set.read_units().unwrap();
    let cha: Vec<u64> = units
        .iter()
        .map(|u| u[0].as_ref().map_or(0, |r| r.value))
        .collect();
    // uncore_cha_0 and _1 are boxes 4 and 5 of the simulated machine.
    let both = (5 + 6) * MS / 100;
    assert_eq!(cha, [both, 0, 0, 0, both, 0, 0, 0]);
    assert!(units.iter().all(|u| u[1].is_some()));
}

/// A `{...}` group of uncore events on the same boxes becomes one group per
/// box and CPU, as perf regroups it; a group that mixes in a core event
/// keeps the core event's group and opens the uncore parts on their own.
#[test]
fn groups_of_uncore_events_are_opened_per_box() {
    let lib = host_lib();
    let total: u64 = (0..4).map(|k| 2 * (k + 1) * MS / 100).sum();
    let sim = machine();
    let g = vec![vec![
        "uncore_imc/cas_count_read/".to_string(),
        "uncore_imc/clockticks/".to_string(),
    ]];
    let set = CounterSet::open_on(&sim, &lib, &g, &Scope::Workload, &Options::default());
    assert!(set.error(0).is_none() && set.error(1).is_none());
    assert_eq!(sim.open_events(), 16);
    set.enable().unwrap();
    sim.run(MS);
    let r = set.read().unwrap();
    assert_eq!(r[0].as_ref().unwrap().value, total);
    assert_eq!(r[1].as_ref().unwrap().value, total);

    // Boxes that differ (imc and cha): each part alone, still counted.
    let sim = machine();
    let g = vec![vec![
        "task-clock".to_string(),
        "uncore_imc/cas_count_read/".to_string(),
        "uncore_cha/event=0x0/".to_string(),
    ]];
    let scope = Scope::Cpus(vec![0, 1]);
    let set = CounterSet::open_on(&sim, &lib, &g, &scope, &Options::default());
    assert!((0..3).all(|i| set.error(i).is_none()));
    // task-clock on 2 CPUs, 4 imc and 2 cha boxes on CPUs 0 and 4.
    assert_eq!(sim.open_events(), 2 + 8 + 4);
    set.enable().unwrap();
    sim.run(MS);
    let r = set.read().unwrap();
    assert_eq!(r[0].as_ref().unwrap().value, 2 * MS);
    assert_eq!(r[1].as_ref().unwrap().value, total);
    assert_eq!(r[2].as_ref().unwrap().value, 2 * (5 + 6) * MS / 100);
}

/// `--no-merge` of a group on the same boxes: one group per box, as perf
/// regroups it; a group mixing other events keeps them together.
#[test]
fn no_merge_groups_per_box() {
    let lib = host_lib();
    let g = vec![vec![
        "uncore_imc/cas_count_read/".to_string(),
        "uncore_imc/clockticks/".to_string(),
    ]];
    let boxes = expand_uncore(&lib, &g);
    assert_eq!(boxes.len(), 4);
    assert_eq!(
        boxes[1],
        ["uncore_imc_1/cas_count_read/", "uncore_imc_1/clockticks/"]
    );
    let sim = machine();
    let set = CounterSet::open_on(&sim, &lib, &boxes, &Scope::Workload, &Options::default());
    assert_eq!(set.names().len(), 8);
    assert!((0..8).all(|i| set.error(i).is_none()));
    set.enable().unwrap();
    sim.run(MS);
    let r = set.read().unwrap();
    assert_eq!(r[2].as_ref().unwrap().value, 2 * 2 * MS / 100);
    assert_eq!(r[3].as_ref().unwrap().value, 2 * 2 * MS / 100);
    let mixed = vec![vec![
        "task-clock".to_string(),
        "uncore_cha/event=0x0/".to_string(),
    ]];
    assert_eq!(
        expand_uncore(&lib, &mixed),
        vec![vec![
            "task-clock".to_string(),
            "uncore_cha_0/event=0x0/".into(),
            "uncore_cha_1/event=0x0/".into()
        ]]
    );
}
