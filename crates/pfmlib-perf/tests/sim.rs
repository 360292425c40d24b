//! The counting paths that need a PMU, on the simulated kernel (runs
//! everywhere, deterministic): hardware events, rdpmc through the user page,
//! multiplexing, groups read at once, unschedulable groups, other tasks,
//! CPU-wide counting and the errors the kernel answers with. Each mirrors a
//! test of `counting.rs` that is skipped on a machine without a PMU.

use pfmlib::Library;
use pfmlib_perf::sim::{SimConfig, SimKernel};
use pfmlib_perf::{
    CountStatus, Counter, CounterSet, Error, Group, Options, ReadPath, Scope, Target,
};

const MS: u64 = 1_000_000;

fn lib() -> &'static Library {
    Library::global()
}

fn opts() -> Options {
    Options::default().user_only_fallback(true)
}

fn open(
    sim: &SimKernel,
    event: &str,
    target: Target,
    o: &Options,
) -> Result<Counter<SimKernel>, Error> {
    Counter::open_on(sim, lib(), event, target, o)
}

#[test]
fn hardware_events_count_exactly() {
    let sim = SimKernel::default();
    let events = [
        ("cycles", 3 * MS),
        ("instructions", 2 * MS),
        ("L1-dcache-loads", MS / 4),
        ("perf::branches:u", MS / 10),
    ];
    let counters: Vec<_> = events
        .iter()
        .map(|(ev, _)| open(&sim, ev, Target::CallingThread, &opts().enabled(true)).unwrap())
        .collect();
    sim.run(MS);
    for ((ev, want), c) in events.iter().zip(&counters) {
        let r = c.read().unwrap();
        assert_eq!(r.value, *want, "{ev}: {r:?}");
        assert_eq!((r.time_enabled, r.time_running), (MS, MS), "{ev}");
        assert_eq!(r.status(), CountStatus::Counted);
    }
    // Disabled: the count stays; reset: zero.
    counters[0].disable().unwrap();
    sim.run(MS);
    assert_eq!(counters[0].read().unwrap().value, 3 * MS);
    counters[0].reset().unwrap();
    assert_eq!(counters[0].read().unwrap().value, 0);
    assert_eq!(sim.open_events(), 4);
    drop(counters);
    assert_eq!(sim.open_events(), 0, "dropping a counter closes its event");
}

#[test]
fn no_pmu_refuses_hardware_events_as_not_supported() {
    let sim = SimKernel::new(SimConfig::default().hardware_pmu(false));
    for ev in [
        "cycles",
        "instructions",
        "L1-dcache-loads",
        "perf::branches:u",
    ] {
        let e = open(&sim, ev, Target::CallingThread, &opts()).unwrap_err();
        assert!(matches!(e, Error::NoHardwarePmu { .. }), "{ev}: {e}");
        assert!(e.is_not_supported());
    }
    // Software events still count.
    let c = open(
        &sim,
        "task-clock",
        Target::CallingThread,
        &opts().enabled(true),
    )
    .unwrap();
    sim.run(MS);
    assert_eq!(c.read().unwrap().value, MS);
}

#[test]
fn rdpmc_agrees_with_read() {
    let sim = SimKernel::default();
    let c = open(
        &sim,
        "instructions:u",
        Target::CallingThread,
        &opts().enabled(true),
    )
    .unwrap();
    assert!(c.rdpmc_allowed());
    for _ in 0..5 {
        sim.run(MS);
        let (v, path) = c.read_value().unwrap();
        assert_eq!(path, ReadPath::Rdpmc);
        assert_eq!(v, c.read().unwrap().value);
    }
    assert_eq!(c.read_value().unwrap().0, 10 * MS);
    // The kernel reprograms the counter in the middle of a read: the
    // seqlock reader notices and reads again.
    let before = sim.rdpmc_calls();
    sim.interfere_with_next_rdpmc();
    assert_eq!(c.read_value().unwrap(), (10 * MS, ReadPath::Rdpmc));
    assert_eq!(sim.rdpmc_calls() - before, 2, "one retry");
    // Reset moves the offset, not the counter.
    c.reset().unwrap();
    sim.run(MS);
    assert_eq!(c.read_value().unwrap(), (2 * MS, ReadPath::Rdpmc));
    // Stopped: off the counter, read(2) gives the same number.
    c.disable().unwrap();
    assert_eq!(c.read_value().unwrap(), (2 * MS, ReadPath::Syscall));
    c.enable().unwrap();
    // From another thread the fast path is never taken.
    let path = std::thread::scope(|s| s.spawn(|| c.read_value().unwrap().1).join().unwrap());
    assert_eq!(path, ReadPath::Syscall);
    // Software events have a user page but no rdpmc.
    let sw = open(
        &sim,
        "page-faults",
        Target::CallingThread,
        &opts().enabled(true),
    )
    .unwrap();
    sim.run(MS);
    assert!(!sw.rdpmc_allowed());
    assert_eq!(sw.read_value().unwrap(), (1000, ReadPath::Syscall));
}

#[test]
fn rdpmc_sign_extends_every_width() {
    for width in [32, 40, 48, 64] {
        let sim = SimKernel::new(SimConfig::default().pmc_width(width));
        let c = open(&sim, "cycles", Target::CallingThread, &opts().enabled(true)).unwrap();
        sim.run(MS);
        assert_eq!(
            c.read_value().unwrap(),
            (3 * MS, ReadPath::Rdpmc),
            "width {width}"
        );
    }
}

#[test]
fn without_cap_user_rdpmc_reads_fall_back() {
    let sim = SimKernel::new(SimConfig::default().rdpmc(false));
    let c = open(&sim, "cycles", Target::CallingThread, &opts().enabled(true)).unwrap();
    sim.run(MS);
    assert!(!c.rdpmc_allowed());
    assert_eq!(c.read_value().unwrap(), (3 * MS, ReadPath::Syscall));
    assert_eq!(sim.rdpmc_calls(), 0);
    // Without the user page at all, too.
    let sim = SimKernel::default();
    let c = open(
        &sim,
        "cycles",
        Target::CallingThread,
        &opts().enabled(true).user_page(false),
    )
    .unwrap();
    sim.run(MS);
    assert_eq!(c.read_value().unwrap(), (3 * MS, ReadPath::Syscall));
}

#[test]
fn multiplexed_groups_are_scaled() {
    // Two groups of three hardware events on four counters take turns.
    let sim = SimKernel::default();
    let evs = ["cycles", "instructions", "branches"];
    let a = Group::open_on(&sim, lib(), &evs, Target::CallingThread, &opts()).unwrap();
    let b = Group::open_on(&sim, lib(), &evs, Target::CallingThread, &opts()).unwrap();
    a.enable().unwrap();
    b.enable().unwrap();
    // While `a` is on the counters, `b` is not: rdpmc falls back to read(2).
    assert_eq!(b.leader().read_value().unwrap().1, ReadPath::Syscall);
    for _ in 0..4 {
        sim.run(MS);
    }
    for g in [&a, &b] {
        let r = g.read().unwrap();
        assert_eq!(r[0].value, 2 * 3 * MS, "{r:?}");
        assert_eq!((r[0].time_enabled, r[0].time_running), (4 * MS, 2 * MS));
        assert_eq!(r[0].scaled(), Some(4 * 3 * MS));
        assert_eq!(r[1].scaled(), Some(4 * 2 * MS));
        assert_eq!(
            r[0].status(),
            CountStatus::Multiplexed { running_pct: 50.0 }
        );
    }
}

#[test]
fn a_group_that_never_ran_is_not_counted() {
    let sim = SimKernel::default();
    let evs = ["cycles", "instructions", "branches", "cache-misses"];
    let a = Group::open_on(&sim, lib(), &evs, Target::CallingThread, &opts()).unwrap();
    let b = Group::open_on(&sim, lib(), &evs, Target::CallingThread, &opts()).unwrap();
    a.enable().unwrap();
    b.enable().unwrap();
    sim.run(MS);
    assert_eq!(a.read().unwrap()[0].scaled(), Some(3 * MS));
    let r = b.read().unwrap();
    assert!(r.iter().all(|x| x.scaled().is_none()), "{r:?}");
    assert!(r.iter().all(|x| x.status() == CountStatus::NotCounted));
    assert_eq!(r[0].time_enabled, MS);
}

#[test]
fn group_reads_together() {
    let sim = SimKernel::default();
    let g = Group::open_on(
        &sim,
        lib(),
        &["task-clock", "cycles", "page-faults"],
        Target::CallingThread,
        &opts(),
    )
    .unwrap();
    assert_eq!(g.leader().name(), "task-clock");
    g.enable().unwrap();
    sim.run(2 * MS);
    g.disable().unwrap();
    let r = g.read().unwrap();
    let values: Vec<u64> = r.iter().map(|x| x.value).collect();
    assert_eq!(values, [2 * MS, 6 * MS, 2000]);
    assert!(r
        .iter()
        .all(|x| x.time_enabled == 2 * MS && x.time_running == 2 * MS));
    assert_eq!(g.counters()[1].read().unwrap().value, 6 * MS);
    g.reset().unwrap();
    assert!(g.read().unwrap().iter().all(|x| x.value == 0));
}

#[test]
fn large_groups_are_read_whole() {
    // More members than the first read buffer holds: read(2) answers
    // ENOSPC and the buffer grows.
    let sim = SimKernel::new(SimConfig::default().counters(64));
    let evs: Vec<String> = (0..40)
        .map(|i| format!("perf::cycles:u:period={}", 1000 + i))
        .collect();
    let evs: Vec<&str> = evs.iter().map(String::as_str).collect();
    let g = Group::open_on(&sim, lib(), &evs, Target::CallingThread, &opts()).unwrap();
    g.enable().unwrap();
    sim.run(MS);
    let r = g.read().unwrap();
    assert_eq!(r.len(), 40);
    assert!(r.iter().all(|x| x.value == 3 * MS), "{r:?}");
}

#[test]
fn unschedulable_group_is_reported() {
    let many: Vec<String> = (0..6)
        .map(|i| format!("perf::cycles:u:period={}", 1000 + i))
        .collect();
    let many: Vec<&str> = std::iter::once("instructions:u")
        .chain(many.iter().map(String::as_str))
        .collect();
    let sim = SimKernel::default();
    match Group::open_on(&sim, lib(), &many, Target::CallingThread, &opts()) {
        Err(e @ Error::GroupUnschedulable { .. }) => {
            assert!(e.is_not_supported());
            assert!(e.to_string().contains(&many.join(",")), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(sim.open_events(), 0, "nothing left open");
    // A PMU that accepts the group at open never schedules it.
    let sim = SimKernel::new(SimConfig::default().validate_groups(false));
    let g = Group::open_on(&sim, lib(), &many, Target::CallingThread, &opts()).unwrap();
    g.enable().unwrap();
    sim.run(MS);
    g.disable().unwrap();
    let r = g.read().unwrap();
    assert!(
        r.iter().all(|x| x.status() == CountStatus::NotCounted),
        "{r:?}"
    );
}

#[test]
fn another_task_and_missing_ones() {
    let sim = SimKernel::default();
    let pid = sim.spawn_task();
    let c = open(&sim, "cycles", Target::Task(pid), &opts().enabled(true)).unwrap();
    assert_eq!(c.target(), Target::Task(pid));
    sim.run(MS);
    // Never rdpmc for another task.
    assert!(!c.rdpmc_allowed());
    assert_eq!(c.read_value().unwrap(), (3 * MS, ReadPath::Syscall));
    sim.exit_task(pid);
    sim.run(MS);
    // The count stays readable after the task exits.
    assert_eq!(c.read().unwrap().value, 3 * MS);
    match open(&sim, "cycles", Target::Task(pid), &opts()) {
        Err(Error::NoSuchProcess { pid: p, .. }) => assert_eq!(p, pid),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        open(&sim, "cycles", Target::Task(-5), &opts()),
        Err(Error::NoSuchProcess { .. })
    ));
}

#[test]
fn cpu_wide_counting() {
    let sim = SimKernel::default();
    let c = open(&sim, "cpu-clock", Target::Cpu(0), &opts().enabled(true)).unwrap();
    sim.run(10 * MS);
    assert_eq!(c.read().unwrap().value, 10 * MS);
    assert_eq!(c.read_value().unwrap().1, ReadPath::Syscall);
    let e = open(&sim, "cpu-clock", Target::Cpu(100_000), &opts()).unwrap_err();
    assert!(matches!(e, Error::NoSuchCpu { cpu: 100_000, .. }), "{e}");
    let e = open(&sim, "cycles", Target::Cpu(4), &opts()).unwrap_err();
    assert!(matches!(e, Error::NoSuchCpu { cpu: 4, .. }), "{e}");

    // A counter set over CPUs sums them; per unit, one reading each.
    let set = CounterSet::open_on(
        &sim,
        lib(),
        &[vec!["cycles".into()]],
        &Scope::Cpus(vec![0, 1]),
        &opts(),
    );
    assert!(set.error(0).is_none());
    set.enable().unwrap();
    sim.run(MS);
    set.disable().unwrap();
    assert_eq!(set.read().unwrap()[0].map(|r| r.value), Some(2 * 3 * MS));
    let units = set.read_units().unwrap();
    assert_eq!(units.len(), 2);
    assert!(units.iter().all(|u| u[0].map(|r| r.value) == Some(3 * MS)));

    // Not allowed by the paranoid level.
    let sim = SimKernel::new(SimConfig::default().paranoid(1).privileged(false));
    let e = open(&sim, "cpu-clock", Target::Cpu(0), &opts()).unwrap_err();
    assert!(matches!(e, Error::Paranoid { level: 1, .. }), "{e}");
}

#[test]
fn counter_set_over_a_workload() {
    let sim = SimKernel::default();
    let groups = vec![
        vec!["task-clock".to_string(), "page-faults".to_string()],
        vec!["cycles".to_string()],
        vec!["context-switches".to_string()],
    ];
    let set = CounterSet::open_on(&sim, lib(), &groups, &Scope::Workload, &opts());
    assert!((0..4).all(|i| set.error(i).is_none()));
    set.enable().unwrap();
    // Nothing counts before the command's exec.
    sim.run(MS);
    assert!(set
        .read()
        .unwrap()
        .iter()
        .all(|r| r.is_some_and(|r| r.value == 0)));
    sim.exec();
    sim.run(MS);
    let r: Vec<u64> = set
        .read()
        .unwrap()
        .iter()
        .map(|r| r.map_or(0, |r| r.value))
        .collect();
    assert_eq!(r, [MS, 1000, 3 * MS, 10]);
}

/// A thread or CPU refused for want of descriptors fails the whole event,
/// even where the others opened (their sum would be too small); any other
/// refusal there (a thread that ended) leaves the event to the others.
#[test]
fn out_of_descriptors_on_one_unit_fails_the_event() {
    let sim = SimKernel::default();
    let g = [vec!["cpu-clock".to_string()]];
    let scope = Scope::Cpus(vec![0, 1]);
    sim.refuse_next_open(libc::EMFILE);
    let set = CounterSet::open_on(&sim, lib(), &g, &scope, &opts());
    let e = set.error(0).map(|e| format!("{e:?}"));
    assert!(
        e.as_deref().is_some_and(|e| e.starts_with("TooManyFiles")),
        "{e:?}"
    );
    sim.refuse_next_open(libc::EBUSY);
    let set = CounterSet::open_on(&sim, lib(), &g, &scope, &opts());
    assert!(set.error(0).is_none());
    assert!(set.read_units().unwrap()[1][0].is_some());
}

#[test]
fn kernel_errors_are_explained() {
    let sim = SimKernel::default();
    let cases = [
        (libc::EBUSY, "Busy"),
        (libc::ENOSPC, "Busy"),
        (libc::EOPNOTSUPP, "NotSupported"),
        (libc::EMFILE, "TooManyFiles"),
        (libc::ENOENT, "NotSupported"),
    ];
    for (errno, want) in cases {
        sim.refuse_next_open(errno);
        let e = open(&sim, "cycles", Target::CallingThread, &opts()).unwrap_err();
        let got = format!("{e:?}");
        assert!(got.starts_with(want), "errno {errno}: {got}");
    }
    // EACCES: kernel-level counting refused by the paranoid level...
    let strict = SimConfig::default().paranoid(2).privileged(false);
    let sim = SimKernel::new(strict.clone());
    let e = open(&sim, "cycles", Target::CallingThread, &Options::default()).unwrap_err();
    assert!(matches!(e, Error::Paranoid { level: 2, .. }), "{e}");
    assert!(e.to_string().contains(":u"), "{e}");
    // ... which the user-level fallback gets around.
    let c = open(&sim, "cycles", Target::CallingThread, &opts()).unwrap();
    assert!(c.user_only() && c.attr().exclude_kernel);
    // A kernel-level-only event is never retried at user level (it would
    // count nothing and show a made-up 0): refused, with advice that fits.
    let e = open(&sim, "page-faults:k", Target::CallingThread, &opts()).unwrap_err();
    assert!(matches!(e, Error::Paranoid { level: 2, .. }), "{e}");
    assert!(e.to_string().contains("kernel level only"), "{e}");
    assert!(!e.to_string().contains(":u"), "{e}");
    let e = open(&sim, "cycles:k", Target::CallingThread, &opts()).unwrap_err();
    assert!(matches!(e, Error::Paranoid { level: 2, .. }), "{e}");
    let sim = SimKernel::new(strict.paranoid(3));
    let e = open(&sim, "cycles:u", Target::CallingThread, &opts()).unwrap_err();
    assert!(matches!(e, Error::Paranoid { level: 3, .. }), "{e}");
    // The set keeps the error per event and counts the others.
    let set = CounterSet::open_on(
        &sim,
        lib(),
        &[vec!["cycles".into()]],
        &Scope::Workload,
        &opts(),
    );
    assert!(matches!(set.error(0), Some(Error::Paranoid { .. })));
    assert!(!set.any_open());
}

#[test]
fn precise_and_sample_read_follow_the_kernel() {
    // `:P` asks for the highest precise_ip the PMU takes.
    let sim = SimKernel::new(SimConfig::default().max_precise(2));
    let c = open(&sim, "cycles:P", Target::CallingThread, &opts()).unwrap();
    assert_eq!(c.attr().precise_ip, 2);
    assert!(open(&sim, "cycles:ppp", Target::CallingThread, &opts()).is_err());
    // `:S` with inheritance: refused by kernels before 6.12, counted without it.
    let c = open(
        &sim,
        "cycles:S",
        Target::CallingThread,
        &opts().inherit(true).enabled(true),
    )
    .unwrap();
    sim.run(MS);
    assert_eq!(c.read().unwrap().value, 3 * MS);
}

/// An energy counter of the kernel's `power` PMU (recorded `scaled_host`
/// tree) counts ticks; its alias's scale turns them into Joules.
#[test]
fn energy_ticks_scale_to_joules() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/trees/scaled_host");
    let lib = Library::with_host(pfmlib::Host::from_root(pfmlib::Arch::X86, root));
    let ev = pfmlib_perf::perf_syntax::resolve_one(&lib, "power/energy-pkg/", pfmlib::Plm::DEFAULT)
        .unwrap();
    let sim = SimKernel::default();
    let c = Counter::open_on(
        &sim,
        &lib,
        "power/energy-pkg/",
        Target::CallingThread,
        &opts().enabled(true),
    )
    .unwrap();
    // The simulated machine counts 1 per µs for a PMU it does not model.
    sim.run(4_294_967_296_000);
    let r = c.read().unwrap();
    assert_eq!(r.value, 4_294_967_296);
    assert_eq!(r.value as f64 * ev.scale.unwrap(), 1.0);
    assert_eq!(ev.unit.as_deref(), Some("Joules"));
}

/// perf's weak group (`{...}:W`): a group the PMU refuses (5 hardware
/// events, 4 counters) is split and its events counted one by one (they
/// take turns); without `W` the event that does not fit is unschedulable.
#[test]
fn weak_groups_are_split_when_they_cannot_be_opened() {
    let list = "{cycles,instructions,branches,branch-misses,cache-misses}";
    let scope = Scope::Cpus(vec![0, 1]);
    for weak in [true, false] {
        let spec = if weak {
            format!("{list}:W")
        } else {
            list.to_string()
        };
        let groups = pfmlib_perf::perf_syntax::parse_event_list(&spec).unwrap();
        assert_eq!(groups[0][0], if weak { "cycles:W" } else { "cycles" });
        let sim = SimKernel::default();
        let set = CounterSet::open_on(&sim, lib(), &groups, &scope, &opts());
        if !weak {
            assert!(matches!(
                set.error(4),
                Some(Error::GroupUnschedulable { .. })
            ));
            assert!((0..4).all(|i| set.error(i).is_none()));
            continue;
        }
        assert!(
            (0..5).all(|i| set.error(i).is_none()),
            "split: every event opens"
        );
        // Five single events on each CPU, none left over from the group.
        assert_eq!(sim.open_events(), 10);
        set.enable().unwrap();
        for _ in 0..5 {
            sim.run(MS);
        }
        set.disable().unwrap();
        let r = set.read().unwrap();
        for (i, x) in r.iter().enumerate() {
            let x = x.unwrap_or_else(|| panic!("event {i} not read"));
            assert!(
                matches!(x.status(), CountStatus::Multiplexed { .. }),
                "event {i}, taking turns: {x:?}"
            );
        }
        // Scaled to the whole time: cycles 3 per ns on two CPUs.
        assert_eq!(r[0].unwrap().scaled(), Some(2 * 5 * 3 * MS));
    }
}
