//! The whole counting path on the running kernel: open, read, enable /
//! disable / reset, groups, inheritance, other tasks and CPUs, error causes,
//! rdpmc. Software events always; hardware events where the kernel exposes a
//! PMU (skipped with the reason printed otherwise).

use pfmlib_perf::{
    explain_open_error, hardware_pmu, wait_child, CountStatus, Counter, CounterSet, Environment,
    Error, Group, OpenContext, Options, ReadPath, Reading, Scope, Target, TargetKind,
};
use std::process::Command;

/// Options every test uses: fall back to user level where paranoid asks.
fn opts() -> Options {
    Options::default().user_only_fallback(true)
}

/// Returns false (and says why) when this process cannot count at all.
fn can_count() -> bool {
    match Counter::open("task-clock", Target::CallingThread, &opts()) {
        Ok(_) => true,
        Err(e) => {
            eprintln!("SKIPPED: perf_event_open is not usable here: {e}");
            false
        }
    }
}

/// Touches `pages` fresh pages (in a new allocation larger than glibc's
/// largest mmap threshold, so they are never recycled); returns something
/// that depends on them.
fn touch_pages(pages: usize) -> u64 {
    let len = (pages * 4096).max(48 << 20);
    let mut v = vec![0u8; len];
    for i in (0..pages * 4096).step_by(4096) {
        v[i] = (i / 4096) as u8 | 1;
    }
    std::hint::black_box(&v)[..pages * 4096]
        .iter()
        .step_by(4096)
        .map(|&b| u64::from(b))
        .sum()
}

/// The fewest page faults `touch_pages(pages)` can cause: one per page, or
/// one per 2 MiB where transparent huge pages are always on.
fn min_faults(pages: usize) -> u64 {
    let thp =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if thp.contains("[always]") {
        1
    } else {
        (pages as u64) * 9 / 10
    }
}

fn spin_ms(ms: u64) -> u64 {
    let end = std::time::Instant::now() + std::time::Duration::from_millis(ms);
    let mut x = 1u64;
    while std::time::Instant::now() < end {
        for k in 0..1000 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(k));
        }
    }
    x
}

#[test]
fn software_events_count() {
    if !can_count() {
        return;
    }
    let pf = Counter::open("page-faults", Target::CallingThread, &opts()).unwrap();
    let clock = Counter::open("perf::task-clock", Target::CallingThread, &opts()).unwrap();
    pf.enable().unwrap();
    clock.enable().unwrap();
    touch_pages(512);
    // Spin until 5 ms of this thread's CPU time went by (wall time is not
    // CPU time on a busy machine), giving up after 30 s.
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while clock.read().unwrap().value < 5_000_000 && std::time::Instant::now() < give_up {
        spin_ms(1);
    }
    pf.disable().unwrap();
    clock.disable().unwrap();
    let r = pf.read().unwrap();
    assert!(
        r.value >= min_faults(512),
        "page faults for 512 fresh pages: {r:?}"
    );
    assert_eq!(r.status(), CountStatus::Counted);
    assert_eq!(r.scaled(), Some(r.value));
    let c = clock.read().unwrap();
    assert!(
        c.value >= 4_000_000,
        "task-clock after 5 ms of spinning: {c:?}"
    );
    assert!(c.time_enabled > 0 && c.time_running == c.time_enabled);
}

#[test]
fn enable_disable_reset() {
    if !can_count() {
        return;
    }
    let c = Counter::open("page-faults", Target::CallingThread, &opts()).unwrap();
    // Opened disabled: nothing counts, and it reads as "not counted", not zero.
    touch_pages(64);
    let r = c.read().unwrap();
    assert_eq!(r.value, 0);
    assert_eq!(r.status(), CountStatus::NotCounted);
    assert_eq!(r.scaled(), None);

    c.enable().unwrap();
    touch_pages(64);
    c.disable().unwrap();
    let a = c.read().unwrap().value;
    assert!(a >= min_faults(64), "{a}");
    touch_pages(64);
    assert_eq!(
        c.read().unwrap().value,
        a,
        "a disabled counter keeps its count"
    );

    c.reset().unwrap();
    assert_eq!(c.read().unwrap().value, 0);
    c.enable().unwrap();
    touch_pages(32);
    c.disable().unwrap();
    let b = c.read().unwrap().value;
    assert!(
        b >= min_faults(32) && b < a.max(2),
        "after reset: {b} (before: {a})"
    );
}

#[test]
fn group_reads_together() {
    if !can_count() {
        return;
    }
    let g = Group::open(
        &["task-clock", "page-faults", "context-switches"],
        Target::CallingThread,
        &opts(),
    )
    .unwrap();
    assert_eq!(g.counters().len(), 3);
    assert_eq!(g.leader().name(), "task-clock");
    g.enable().unwrap();
    touch_pages(128);
    std::thread::sleep(std::time::Duration::from_millis(2));
    g.disable().unwrap();
    let r = g.read().unwrap();
    assert_eq!(r.len(), 3);
    assert!(r[0].value > 0 && r[1].value >= min_faults(128), "{r:?}");
    assert!(r[2].value >= 1, "sleeping switches context: {r:?}");
    // One read: one pair of times for the whole group.
    assert!(r
        .iter()
        .all(|x| x.time_enabled == r[0].time_enabled && x.time_running == r[0].time_running));
    // Members read alone agree with the group read.
    assert_eq!(g.counters()[1].read().unwrap().value, r[1].value);

    g.reset().unwrap();
    let z = g.read().unwrap();
    assert!(z.iter().all(|x| x.value == 0), "{z:?}");
}

#[test]
fn inherit_counts_children_from_exec() {
    if !can_count() {
        return;
    }
    let o = opts().inherit(true).enable_on_exec(true);
    let one = Counter::open("page-faults", Target::CallingThread, &o).unwrap();
    // Nothing counts before the exec.
    touch_pages(64);
    assert_eq!(one.read().unwrap().value, 0);
    let st = Command::new("sh").args(["-c", "true"]).status().unwrap();
    assert!(st.success());
    let a = one.read().unwrap();
    drop(one);
    assert!(a.value > 10 && a.time_running > 0, "{a:?}");

    // The same with two grandchildren counts more.
    let three = Counter::open("page-faults", Target::CallingThread, &o).unwrap();
    let st = Command::new("sh")
        .args(["-c", "ls / >/dev/null; ls / >/dev/null"])
        .status()
        .unwrap();
    assert!(st.success());
    let b = three.read().unwrap();
    assert!(
        b.value > a.value + 40,
        "children counted: {} vs {}",
        b.value,
        a.value
    );

    // Without inheritance the child is not counted at all.
    let none = Counter::open(
        "page-faults",
        Target::CallingThread,
        &opts().enable_on_exec(true),
    )
    .unwrap();
    assert!(Command::new("true").status().unwrap().success());
    let n = none.read().unwrap();
    assert_eq!(n.value, 0);
    assert_eq!(n.status(), CountStatus::NotCounted);
}

#[test]
fn group_with_inherit() {
    if !can_count() {
        return;
    }
    let g = Group::open(
        &["task-clock", "page-faults"],
        Target::CallingThread,
        &opts().inherit(true).enable_on_exec(true),
    )
    .unwrap();
    assert!(Command::new("ls")
        .arg("/")
        .output()
        .unwrap()
        .status
        .success());
    let r = g.read().unwrap();
    assert!(r[0].value > 0 && r[1].value > 10, "{r:?}");
}

#[test]
fn another_task_and_missing_ones() {
    if !can_count() {
        return;
    }
    let mut child = Command::new("sh")
        .args(["-c", "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done"])
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    match Counter::open("task-clock", Target::Task(pid), &opts().enabled(true)) {
        Ok(c) => {
            assert_eq!(c.target(), Target::Task(pid));
            // Never rdpmc for another task.
            assert_eq!(c.read_value().unwrap().1, ReadPath::Syscall);
            assert!(!c.rdpmc_allowed());
            child.wait().unwrap();
            // The count stays readable after the task exits.
            let _ = c.read().unwrap();
        }
        Err(e) => {
            child.wait().unwrap();
            eprintln!("SKIPPED counting another task: {e}");
        }
    }
    // A reaped child's pid no longer exists (barring reuse within the test).
    match Counter::open("task-clock", Target::Task(pid), &opts()) {
        Err(Error::NoSuchProcess { pid: p, .. }) => assert_eq!(p, pid),
        other => eprintln!("pid {pid} reused already? {other:?}"),
    }
    assert!(matches!(
        Counter::open("task-clock", Target::Task(-5), &opts()),
        Err(Error::NoSuchProcess { .. })
    ));
}

#[test]
fn cpu_wide_counting() {
    if !can_count() {
        return;
    }
    match Counter::open("cpu-clock", Target::Cpu(0), &opts().enabled(true)) {
        Ok(c) => {
            std::thread::sleep(std::time::Duration::from_millis(10));
            let r = c.read().unwrap();
            assert!(r.value >= 5_000_000, "cpu-clock of CPU 0 over 10 ms: {r:?}");
            assert_eq!(c.read_value().unwrap().1, ReadPath::Syscall);
        }
        Err(e @ Error::Paranoid { .. }) => eprintln!("SKIPPED CPU-wide counting: {e}"),
        Err(e) => panic!("{e}"),
    }
    let e = Counter::open("cpu-clock", Target::Cpu(100_000), &opts()).unwrap_err();
    assert!(matches!(e, Error::NoSuchCpu { cpu: 100_000, .. }), "{e}");
}

#[test]
fn hardware_events_here() {
    if !can_count() {
        return;
    }
    let events = [
        "cycles",
        "instructions",
        "L1-dcache-loads",
        "perf::branches:u",
    ];
    if !hardware_pmu() {
        eprintln!("SKIPPED hardware counting: the kernel exposes no hardware PMU; checking they are refused as not supported");
        for ev in events {
            let e = Counter::open(ev, Target::CallingThread, &opts()).unwrap_err();
            assert!(matches!(e, Error::NoHardwarePmu { .. }), "{ev}: {e}");
            assert!(e.is_not_supported());
            assert!(e.to_string().contains("no hardware PMU"), "{e}");
        }
        // An event of a PMU this host does not have is refused before the
        // kernel is asked: its raw code would count another event here.
        let e = Counter::open(
            "amd64_fam17h_zen1::RETIRED_INSTRUCTIONS",
            Target::CallingThread,
            &opts(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::PmuNotPresent { .. }), "{e}");
        assert!(e.to_string().contains("amd64_fam17h_zen1"), "{e}");
        return;
    }
    let c = Counter::open("instructions:u", Target::CallingThread, &opts()).unwrap();
    c.enable().unwrap();
    spin_ms(5);
    c.disable().unwrap();
    let r = c.read().unwrap();
    assert!(r.scaled().unwrap_or(0) > 100_000, "{r:?}");
}

#[test]
fn rdpmc_agrees_with_read() {
    if !can_count() {
        return;
    }
    // Software events have a user page but no rdpmc: the fast path falls back.
    let sw = Counter::open("page-faults", Target::CallingThread, &opts()).unwrap();
    sw.enable().unwrap();
    touch_pages(16);
    sw.disable().unwrap();
    let (v, path) = sw.read_value().unwrap();
    assert_eq!(path, ReadPath::Syscall);
    assert_eq!(v, sw.read().unwrap().value);

    if !hardware_pmu() {
        eprintln!("SKIPPED rdpmc: the kernel exposes no hardware PMU");
        return;
    }
    let c = Counter::open(
        "instructions:u",
        Target::CallingThread,
        &opts().enabled(true),
    )
    .unwrap();
    if !c.rdpmc_allowed() {
        eprintln!("SKIPPED rdpmc: the kernel does not allow it (cap_user_rdpmc = 0; see /sys/bus/event_source/devices/cpu/rdpmc)");
        return;
    }
    spin_ms(2);
    let mut fast = 0;
    for _ in 0..100 {
        let a = c.read().unwrap().value;
        let (b, path) = c.read_value().unwrap();
        let d = c.read().unwrap().value;
        if path == ReadPath::Rdpmc {
            fast += 1;
        }
        assert!(a <= b && b <= d, "read {a} <= rdpmc {b} <= read {d}");
    }
    assert!(fast > 0, "rdpmc never used");
    // Stopped: both paths give exactly the same number.
    c.disable().unwrap();
    assert_eq!(c.read_value().unwrap().0, c.read().unwrap().value);
    // From another thread the fast path is never taken.
    let path = std::thread::scope(|s| s.spawn(|| c.read_value().unwrap().1).join().unwrap());
    assert_eq!(path, ReadPath::Syscall);
}

#[test]
fn unschedulable_group_is_reported() {
    if !can_count() {
        return;
    }
    if !hardware_pmu() {
        eprintln!("SKIPPED unschedulable group: the kernel exposes no hardware PMU");
        return;
    }
    let many: Vec<String> = (0..40)
        .map(|i| format!("perf::cycles:u:period={}", 1000 + i))
        .collect();
    let many: Vec<&str> = std::iter::once("instructions:u")
        .chain(many.iter().map(String::as_str))
        .collect();
    match Group::open(&many, Target::CallingThread, &opts()) {
        Err(e @ Error::GroupUnschedulable { .. }) => assert!(e.is_not_supported()),
        Err(e) => panic!("unexpected error: {e}"),
        Ok(g) => {
            // Some PMUs accept the group at open; then it must read as not counted.
            g.enable().unwrap();
            spin_ms(2);
            g.disable().unwrap();
            let r = g.read().unwrap();
            assert!(
                r.iter().all(|x| x.status() == CountStatus::NotCounted),
                "{r:?}"
            );
        }
    }
}

#[test]
fn counter_set_over_a_workload_and_cpus() {
    if !can_count() {
        return;
    }
    let lib = pfmlib::Library::global();
    let groups = vec![
        vec!["task-clock".to_string(), "page-faults".to_string()],
        vec!["cycles".to_string()],
        vec!["context-switches".to_string()],
    ];
    let set = CounterSet::open(lib, &groups, &Scope::Workload, &opts());
    assert_eq!(set.names().len(), 4);
    assert!(set.error(0).is_none() && set.error(1).is_none() && set.error(3).is_none());
    if !hardware_pmu() {
        assert!(set.error(2).is_some_and(Error::is_not_supported));
    }
    #[allow(clippy::zombie_processes)] // reaped by wait_child (wait4)
    let child = Command::new("sh").args(["-c", "exit 7"]).spawn().unwrap();
    let exit = wait_child(child.id(), None).unwrap();
    assert_eq!(exit.status.code(), Some(7));
    let r = set.read().unwrap();
    let pf = r[1].unwrap();
    assert!(pf.value > 10 && r[0].unwrap().value > 0, "{r:?}");
    if !hardware_pmu() {
        assert!(r[2].is_none());
    }

    let cpus = Scope::Cpus(vec![0]);
    let set = CounterSet::open(lib, &[vec!["cpu-clock".into()]], &cpus, &opts());
    match set.error(0) {
        Some(e) => eprintln!("SKIPPED CPU scope: {e}"),
        None => {
            set.enable().unwrap();
            std::thread::sleep(std::time::Duration::from_millis(5));
            set.disable().unwrap();
            assert!(set.read().unwrap()[0].is_some_and(|r| r.value > 1_000_000));
        }
    }
}

#[test]
fn unknown_events_are_encoding_errors() {
    let e = Counter::open("no-such-event", Target::CallingThread, &opts()).unwrap_err();
    assert!(matches!(e, Error::Encode(_)), "{e}");
    assert!(!e.is_not_supported());
    assert!(Group::open(&[], Target::CallingThread, &opts()).is_err());
}

fn env(paranoid: i32, privileged: bool, seccomp: bool, pmu: bool) -> Environment {
    Environment {
        paranoid: Some(paranoid),
        privileged,
        seccomp_filter: seccomp,
        hardware_pmu: pmu,
    }
}

fn ctx(type_: u32, exclude_kernel: bool, target: TargetKind) -> OpenContext<'static> {
    OpenContext {
        event: "ev",
        type_,
        exclude_kernel,
        exclude_user: false,
        target,
        in_group: false,
        foreign_task: false,
    }
}

#[test]
fn a_task_of_another_user_is_foreign() {
    let host = pfmlib::Library::global().host();
    assert!(!pfmlib_perf::task_is_foreign(
        host,
        std::process::id() as i32
    ));
    // PID 1 belongs to root: foreign unless we run as root.
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    assert_eq!(pfmlib_perf::task_is_foreign(host, 1), !root);
    assert!(!pfmlib_perf::task_is_foreign(host, i32::MAX));
}

#[test]
fn open_errors_name_their_cause() {
    let me = TargetKind::CallingThread;
    // A VM: hardware, cache and raw events are not supported; software ones fail otherwise.
    for t in [0, 3, 4] {
        let e = explain_open_error(
            libc::ENOENT,
            &ctx(t, false, me),
            &env(2, true, false, false),
        );
        assert!(matches!(e, Error::NoHardwarePmu { .. }), "type {t}: {e}");
    }
    let e = explain_open_error(
        libc::ENOENT,
        &ctx(1, false, me),
        &env(2, true, false, false),
    );
    assert!(matches!(e, Error::NotSupported { .. }), "{e}");
    let e = explain_open_error(
        libc::EOPNOTSUPP,
        &ctx(0, false, me),
        &env(2, true, false, true),
    );
    assert!(matches!(e, Error::NotSupported { .. }) && e.is_not_supported());

    // perf_event_paranoid: each level and what it forbids.
    let e = explain_open_error(libc::EACCES, &ctx(1, true, me), &env(3, false, false, true));
    assert!(matches!(e, Error::Paranoid { level: 3, .. }));
    assert!(
        e.to_string().contains("CAP_PERFMON") && e.to_string().contains("= 3"),
        "{e}"
    );
    // Level 3 without Debian's patch is level 2: an event counting the
    // kernel is refused for that, and the advice is user level, as at 2.
    let e = explain_open_error(
        libc::EACCES,
        &ctx(0, false, me),
        &env(3, false, false, true),
    );
    assert!(matches!(e, Error::Paranoid { level: 3, .. }));
    assert!(e.to_string().contains(":u"), "{e}");
    // Another user's process: ptrace is the obstacle, not the level.
    let mut foreign = ctx(0, false, TargetKind::Task(1));
    foreign.foreign_task = true;
    let e = explain_open_error(libc::EACCES, &foreign, &env(2, false, false, true));
    assert!(matches!(e, Error::PermissionDenied { .. }), "{e}");
    assert!(
        e.to_string().contains("another user") && !e.to_string().contains(":u"),
        "{e}"
    );
    let e = explain_open_error(
        libc::EACCES,
        &ctx(0, false, me),
        &env(2, false, false, true),
    );
    assert!(matches!(e, Error::Paranoid { level: 2, .. }));
    assert!(e.to_string().contains(":u"), "{e}");
    let e = explain_open_error(
        libc::EACCES,
        &ctx(1, true, TargetKind::Cpu(0)),
        &env(1, false, false, true),
    );
    assert!(matches!(e, Error::Paranoid { level: 1, .. }));
    assert!(e.to_string().contains("<= 0"), "{e}");
    // Allowed by paranoid: another user's process.
    let e = explain_open_error(
        libc::EACCES,
        &ctx(1, true, TargetKind::Task(1)),
        &env(2, false, false, true),
    );
    assert!(
        matches!(e, Error::PermissionDenied { .. }) && e.to_string().contains("ptrace"),
        "{e}"
    );
    // Privileged and still refused: seccomp (a container) or a security module.
    let e = explain_open_error(libc::EPERM, &ctx(1, false, me), &env(2, true, true, true));
    assert!(
        matches!(e, Error::Seccomp { .. }) && e.to_string().contains("seccomp"),
        "{e}"
    );
    let e = explain_open_error(libc::ENOSYS, &ctx(1, false, me), &env(2, true, true, true));
    assert!(matches!(e, Error::Seccomp { .. }));
    let e = explain_open_error(libc::EPERM, &ctx(1, false, me), &env(-1, true, false, true));
    assert!(
        matches!(e, Error::PermissionDenied { .. }) && e.to_string().contains("EPERM"),
        "{e}"
    );
    let e = explain_open_error(libc::ENOSYS, &ctx(1, false, me), &env(2, true, false, true));
    assert!(matches!(e, Error::Unsupported(_)));

    // The rest.
    let e = explain_open_error(
        libc::ESRCH,
        &ctx(1, false, TargetKind::Task(42)),
        &env(2, true, false, true),
    );
    assert!(matches!(e, Error::NoSuchProcess { pid: 42, .. }));
    let e = explain_open_error(
        libc::ENODEV,
        &ctx(1, false, TargetKind::Cpu(9)),
        &env(2, true, false, true),
    );
    assert!(matches!(e, Error::NoSuchCpu { cpu: 9, .. }));
    let e = explain_open_error(libc::EMFILE, &ctx(1, false, me), &env(2, true, false, true));
    assert!(matches!(e, Error::TooManyFiles { .. }) && e.to_string().contains("ulimit"));
    let e = explain_open_error(libc::EBUSY, &ctx(0, false, me), &env(2, true, false, true));
    assert!(matches!(e, Error::Busy { .. }));
    let e = explain_open_error(libc::EINVAL, &ctx(1, false, me), &env(2, true, false, true));
    assert!(matches!(e, Error::Invalid { .. }) && e.is_not_supported());
    let e = explain_open_error(libc::EFAULT, &ctx(1, false, me), &env(2, true, false, true));
    assert!(matches!(e, Error::Os { .. }));
}

#[test]
fn reading_aggregates() {
    let mut a = Reading::new(5, 10, 5);
    a.accumulate(&Reading::new(5, 10, 5));
    assert_eq!(a.scaled(), Some(20));
    assert!(matches!(a.status(), CountStatus::Multiplexed { running_pct } if running_pct == 50.0));
}

#[test]
fn environment_is_read() {
    let e = Environment::detect();
    eprintln!("environment: {e:?}");
    assert_eq!(e.hardware_pmu, hardware_pmu());
}
