//! perf's event syntax, resolved against recorded sysfs/tracefs trees of our
//! own making (`tests/trees/`), and counted on the running host where the
//! kernel allows it.

use pfmlib::{Arch, Host, Library, Plm};
use pfmlib_perf::perf_syntax::{
    expand_groups, parse_event_list, resolve, resolve_one, PerfEvent, Syntax, SyntaxError,
};
use pfmlib_perf::{Counter, Error, Options, Target};
use std::path::PathBuf;

fn tree(name: &str) -> Library {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/trees")
        .join(name);
    Library::with_host(Host::from_root(Arch::X86, root))
}

fn one(lib: &Library, ev: &str) -> PerfEvent {
    match resolve_one(lib, ev, Plm::DEFAULT) {
        Ok(e) => e,
        Err(e) => panic!("{ev}: {e}"),
    }
}

fn syntax_error(lib: &Library, ev: &str) -> SyntaxError {
    match resolve(lib, ev, Plm::DEFAULT) {
        Err(Error::Syntax { error, event }) => {
            assert_eq!(event, ev);
            error
        }
        other => panic!("{ev}: expected a syntax error, got {other:?}"),
    }
}

#[test]
fn tracepoints_from_tracefs() {
    let lib = tree("tracefs_host");
    let e = one(&lib, "sched:sched_switch");
    assert_eq!(
        (e.syntax, e.attr.type_, e.attr.config),
        (Syntax::Tracepoint, 2, 316)
    );
    assert!(!e.attr.exclude_user && !e.attr.exclude_kernel);
    let e = one(&lib, "syscalls:sys_enter_openat:k");
    assert_eq!(e.attr.config, 640);
    assert!(e.attr.exclude_user && !e.attr.exclude_kernel);
    assert_eq!(e.name, "syscalls:sys_enter_openat:k");
    // Under debugfs when tracefs has no events of its own.
    let d = tree("debugfs_host");
    assert_eq!(one(&d, "sched:sched_switch").attr.config, 77);
}

#[test]
fn tracepoint_globs_expand_in_order() {
    let lib = tree("tracefs_host");
    let v = resolve(&lib, "syscalls:sys_enter_get*", Plm::DEFAULT).unwrap();
    let names: Vec<&str> = v.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["syscalls:sys_enter_getpid", "syscalls:sys_enter_getppid"]
    );
    let v = resolve(&lib, "sched:sched_wak*:u", Plm::DEFAULT).unwrap();
    assert_eq!(v.len(), 2);
    assert!(v
        .iter()
        .all(|e| e.attr.exclude_kernel && e.name.ends_with(":u")));
    let all = resolve(&lib, "s*:*", Plm::DEFAULT).unwrap();
    assert_eq!(all.len(), 7);
    let groups = vec![
        vec!["task-clock".to_string()],
        vec!["syscalls:sys_*_getpid".to_string(), "page-faults".into()],
    ];
    assert_eq!(
        expand_groups(lib.host(), &groups).unwrap(),
        vec![
            vec!["task-clock".to_string()],
            vec![
                "syscalls:sys_enter_getpid".to_string(),
                "syscalls:sys_exit_getpid".into(),
                "page-faults".into()
            ]
        ]
    );
    // One counter for a glob of several: refused, with the count.
    assert!(matches!(
        resolve_one(&lib, "syscalls:sys_enter_get*", Plm::DEFAULT),
        Err(Error::Syntax {
            error: SyntaxError::Ambiguous { count: 2 },
            ..
        })
    ));
}

#[test]
fn tracepoint_errors() {
    let lib = tree("tracefs_host");
    assert!(matches!(
        syntax_error(&lib, "sched:no_such_event"),
        SyntaxError::UnknownTracepoint { .. }
    ));
    assert!(matches!(
        syntax_error(&lib, "sched:nothing*"),
        SyntaxError::UnknownTracepoint { .. }
    ));
    assert!(matches!(
        syntax_error(&lib, "sched:sched_switch:q"),
        SyntaxError::BadModifier { .. }
    ));
    match syntax_error(&lib, "broken:bad") {
        SyntaxError::BadFile { path, .. } => assert!(path.ends_with("broken/bad/id")),
        e => panic!("{e:?}"),
    }
    let none = Library::with_host(Host::none());
    assert!(matches!(
        syntax_error(&none, "sched:*"),
        SyntaxError::NoTracefs
    ));
    // tracefs there but not listable (not root): said, with pfmlib's error too.
    let locked = Library::with_host(Host::none().with_file("/sys/kernel/tracing/README", "x"));
    assert!(matches!(
        syntax_error(&locked, "sched:*"),
        SyntaxError::TracefsUnreadable { pfmlib: None, .. }
    ));
    match syntax_error(&locked, "sched:sched_switch") {
        e @ SyntaxError::TracefsUnreadable {
            pfmlib: Some(_), ..
        } => {
            assert!(e.to_string().contains("/sys/kernel/tracing"), "{e}")
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(one(&locked, "alignment-faults:u").syntax, Syntax::Generic);
    // Without tracefs a non-glob `a:b` is pfmlib's to read (and its error).
    assert!(matches!(
        resolve(&none, "sched:sched_switch", Plm::DEFAULT),
        Err(Error::Encode(_))
    ));
}

#[test]
fn sysfs_pmu_terms_and_aliases() {
    let lib = tree("tracefs_host");
    let e = one(&lib, "msr/tsc/");
    assert_eq!(
        (e.syntax, e.attr.type_, e.attr.config),
        (Syntax::SysfsPmu, 9, 0)
    );
    assert_eq!(one(&lib, "msr/aperf/").attr.config, 1);
    assert_eq!(one(&lib, "msr/MPERF/").attr.config, 2);
    let e = one(&lib, "cpu/event=0x3c,umask=0x1,edge,cmask=2/");
    assert_eq!(e.attr.type_, 4);
    assert_eq!(e.attr.config, 0x3c | 0x1 << 8 | 1 << 18 | 2 << 24);
    // An alias, a term of config1, and a later term overriding the alias's.
    let e = one(&lib, "cpu/mem-loads,ldlat=30/");
    assert_eq!((e.attr.config, e.attr.config1), (0xcd | 0x1 << 8, 30));
    let e = one(&lib, "cpu/mem-loads/");
    assert_eq!(e.attr.config1, 3);
    // A value split over two bit ranges.
    assert_eq!(
        one(&lib, "cpu/wide_event=0x5ab/").attr.config,
        0xab | 0x5 << 32
    );
    // Direct config fields, period, name.
    let e = one(
        &lib,
        "cpu/config=0x1234,config1=7,config2=9,period=1000,name=mine/",
    );
    assert_eq!(
        (
            e.attr.config,
            e.attr.config1,
            e.attr.config2,
            e.attr.sample_period
        ),
        (0x1234, 7, 9, 1000)
    );
    // `?` parameters given by the user.
    assert_eq!(
        one(&lib, "cpu/needs-umask,umask=0x4/").attr.config,
        0xc0 | 0x4 << 8
    );
    // Scale and unit from the alias's side files.
    let e = one(&lib, "power/energy-pkg/");
    assert_eq!((e.attr.type_, e.attr.config), (15, 2));
    assert_eq!(e.unit.as_deref(), Some("Joules"));
    assert!((e.scale.unwrap() - 2.3283064365386963e-10).abs() < 1e-20);
}

#[test]
fn sysfs_pmu_modifiers() {
    let lib = tree("tracefs_host");
    for ev in ["cpu/cpu-cycles/u", "cpu/cpu-cycles/:u"] {
        let e = one(&lib, ev);
        assert!(e.attr.exclude_kernel && !e.attr.exclude_user, "{ev}");
        assert_eq!(e.attr.config, 0x3c);
    }
    let e = one(&lib, "cpu/event=0x3c/ppp");
    assert_eq!(e.attr.precise_ip, 3);
}

#[test]
fn sysfs_pmu_errors() {
    let lib = tree("tracefs_host");
    match syntax_error(&lib, "nope/event=1/") {
        SyntaxError::UnknownPmu { pmu, present } => {
            assert_eq!(pmu, "nope");
            assert!(present.contains("msr") && present.contains("cpu"));
        }
        e => panic!("{e:?}"),
    }
    match syntax_error(&lib, "msr/smi/") {
        SyntaxError::UnknownAlias { alias, known, .. } => {
            assert_eq!(alias, "smi");
            assert_eq!(known, "aperf, mperf, tsc");
        }
        e => panic!("{e:?}"),
    }
    match syntax_error(&lib, "cpu/event=1,bogus=2/") {
        SyntaxError::UnknownTerm { term, known, .. } => {
            assert_eq!(term, "bogus");
            assert!(known.contains("umask") && known.contains("config1"));
        }
        e => panic!("{e:?}"),
    }
    assert!(matches!(
        syntax_error(&lib, "cpu/event=0x100/"),
        SyntaxError::ValueTooWide {
            bits: 8,
            value: 0x100,
            ..
        }
    ));
    assert!(matches!(
        syntax_error(&lib, "cpu/event=zz/"),
        SyntaxError::BadValue { .. }
    ));
    match syntax_error(&lib, "cpu/needs-umask/") {
        SyntaxError::MissingParam { alias, param, .. } => {
            assert_eq!((alias.as_str(), param.as_str()), ("needs-umask", "umask"));
        }
        e => panic!("{e:?}"),
    }
    match syntax_error(&lib, "broken/event=1/") {
        SyntaxError::BadFile { path, .. } => assert!(path.ends_with("broken/format/event")),
        e => panic!("{e:?}"),
    }
    for bad in ["msr/tsc", "msr//", "/tsc/"] {
        assert!(
            matches!(syntax_error(&lib, bad), SyntaxError::BadSyntax { .. }),
            "{bad}"
        );
    }
    assert!(matches!(
        syntax_error(&lib, "msr/tsc/x"),
        SyntaxError::BadModifier { .. }
    ));
    assert!(matches!(
        syntax_error(&lib, "msr/tsc/pppp"),
        SyntaxError::TooPrecise { .. }
    ));
}

#[test]
fn raw_generic_and_modifiers() {
    let lib = tree("tracefs_host");
    for (ev, type_, config) in [
        ("alignment-faults", 1, 7),
        ("emulation-faults", 1, 8),
        ("dummy", 1, 9),
        ("bpf-output", 1, 10),
        ("cgroup-switches", 1, 11),
        ("r1a8:u", 4, 0x1a8),
        ("page-faults:ppp", 1, 2),
    ] {
        let e = one(&lib, ev);
        assert_eq!((e.attr.type_, e.attr.config), (type_, config), "{ev}");
    }
    let d = one(&lib, "duration_time");
    assert!(d.tool.is_some() && d.attr.config == 9);
    let p = one(&lib, "task-clock:P");
    assert!(p.precise_max && p.attr.precise_ip == 0);
    assert!(one(&lib, "page-faults:S").sample_read);
    assert!(one(&lib, "page-faults:D").attr.pinned);
    let gh = one(&lib, "page-faults:H");
    assert!(gh.attr.exclude_guest && !gh.attr.exclude_host);
    let u = one(&lib, "emulation-faults:u");
    assert!(u.attr.exclude_kernel && u.attr.exclude_hv && !u.attr.exclude_user);
    // pfmlib's syntax first: its own modifiers, its names.
    let c = one(&lib, "cycles:u");
    assert_eq!(
        (c.syntax, c.attr.type_, c.attr.config),
        (Syntax::Pfmlib, 0, 0)
    );
    assert!(c.attr.exclude_kernel);
    let pp = one(&lib, "cycles:pp");
    assert_eq!((pp.attr.type_, pp.attr.precise_ip), (0, 2));
    // An unknown name keeps pfmlib's error.
    assert!(matches!(
        resolve(&lib, "no-such-event:u", Plm::DEFAULT),
        Err(Error::Encode(_))
    ));
}

#[test]
fn precedence() {
    let lib = tree("tracefs_host");
    // `msr` is both a tracefs subsystem and a PMU: the slash decides.
    assert_eq!(one(&lib, "msr:read_msr").syntax, Syntax::Tracepoint);
    assert_eq!(one(&lib, "msr/tsc/").syntax, Syntax::SysfsPmu);
    // `::` is always pfmlib's.
    assert_eq!(one(&lib, "perf::cycles").syntax, Syntax::Pfmlib);
    // A tracefs subsystem without that event: an unknown tracepoint
    // (pfmlib could not read it either).
    assert!(matches!(
        syntax_error(&lib, "power:u"),
        SyntaxError::UnknownTracepoint { .. }
    ));
}

#[test]
fn event_lists_keep_pmu_terms_together() {
    assert_eq!(
        parse_event_list("cpu/event=0x3c,umask=1/u,{msr/tsc/,sched:sched_switch},r1a8").unwrap(),
        vec![
            vec!["cpu/event=0x3c,umask=1/u".to_string()],
            vec!["msr/tsc/".into(), "sched:sched_switch".into()],
            vec!["r1a8".into()],
        ]
    );
    assert_eq!(
        parse_event_list("{sched:sched_switch,page-faults:k,msr/tsc/,msr/tsc/:k}:uS, dummy")
            .unwrap(),
        vec![
            vec![
                "sched:sched_switch:uS".to_string(),
                "page-faults:kuS".into(),
                "msr/tsc/uS".into(),
                "msr/tsc/:kuS".into()
            ],
            vec!["dummy".into()],
        ]
    );
    for bad in [
        "a,,b",
        "{a,b",
        "{a,b}x",
        "{a,}",
        "a}",
        "cpu/event=1",
        "",
        "a,",
        "{a}:q",
        "{a}:u x",
    ] {
        assert!(parse_event_list(bad).is_err(), "{bad}");
    }
}

/// Opens `ev` on this thread, or says why it cannot here.
fn open_here(ev: &str) -> Option<Counter> {
    match Counter::open(ev, Target::CallingThread, &Options::default()) {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("skipping {ev}: {e}");
            None
        }
    }
}

#[test]
fn counting_tracepoints_and_generics_here() {
    let tp = pfmlib_perf::perf_syntax::tracepoint::events_dir(Library::global().host());
    if tp.is_some() {
        if let Some(c) = open_here("syscalls:sys_enter_getppid") {
            c.enable().unwrap();
            for _ in 0..1000 {
                // SAFETY-free: libc's getppid has no preconditions.
                std::hint::black_box(std::os::unix::process::parent_id());
            }
            c.disable().unwrap();
            let v = c.read().unwrap().value;
            assert!((1000..1100).contains(&v), "getppid counted {v}");
        }
    }
    for ev in [
        "alignment-faults",
        "emulation-faults:u",
        "dummy",
        "page-faults:S",
        "task-clock:D",
    ] {
        if let Some(c) = open_here(ev) {
            c.enable().unwrap();
            c.disable().unwrap();
            assert!(c.read().is_ok(), "{ev}");
        }
    }
    // `D` on a member: the kernel pins groups through their leader only.
    match pfmlib_perf::Group::open(
        &["task-clock:D", "page-faults:D"],
        Target::CallingThread,
        &Options::default(),
    ) {
        Ok(g) => {
            assert!(g.leader().attr().pinned && !g.counters()[1].attr().pinned);
        }
        Err(e) => eprintln!("skipping the pinned group: {e}"),
    }
    if let Some(c) = open_here("duration_time") {
        c.enable().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        c.disable().unwrap();
        let r = c.read().unwrap();
        assert!(r.value >= 5_000_000 && r.scaled() == Some(r.value), "{r:?}");
    }
}

#[test]
fn odd_strings_never_panic() {
    let lib = tree("tracefs_host");
    let long = "x".repeat(10_000);
    let stars = "*".repeat(500);
    let odd = [
        "",
        "/",
        "//",
        "///",
        "a/b/c/d/",
        ":",
        "::",
        "a:",
        ":b",
        "[",
        "*:*:*",
        "r",
        "r-1",
        "cpu/event=/",
        "cpu/=1/",
        "cpu/event=0x/",
        "cpu/event=1,/",
        "cpu/,/",
        "msr/tsc/::",
        "é:ü",
        "sched:[",
        "sched:[!",
        "sched:[z-a]",
        "cpu/event=18446744073709551616/",
        "cpu/wide_event=0xfff/",
        "cpu/ldlat=65536/",
        "msr/tsc/pppp",
        "page-faults:",
        "{a}",
        "sched:sched_switch:",
        "sched:sched_switch::u",
        long.as_str(),
        stars.as_str(),
    ];
    for s in odd {
        let _ = resolve(&lib, s, Plm::DEFAULT);
        let _ = parse_event_list(s);
        let _ = expand_groups(lib.host(), &[vec![s.to_string()]]);
    }
    let glob = format!("sched:{stars}x");
    assert!(resolve(&lib, &glob, Plm::DEFAULT).is_err());
}

#[test]
fn scaled_aliases_of_power_and_uncore_pmus() {
    let lib = tree("scaled_host");
    let tick = 1.0 / 4_294_967_296.0;
    for (ev, config, scale, unit) in [
        ("power/energy-cores/", 1, tick, "Joules"),
        ("power/energy-pkg/", 2, tick, "Joules"),
        ("power/energy-ram/", 3, 1.0 / 65_536.0, "Joules"),
        ("power/energy-psys/", 5, tick, "Joules"),
        (
            "uncore_imc_0/cas_count_read/",
            0x304,
            64.0 / 1_048_576.0,
            "MiB",
        ),
    ] {
        let e = one(&lib, ev);
        assert_eq!(
            (e.attr.config, e.scale, e.unit.as_deref()),
            (config, Some(scale), Some(unit)),
            "{ev}"
        );
    }
    // No side files: no scale, no unit.
    for ev in [
        "msr/tsc/",
        "uncore_imc_0/clockticks/",
        "uncore_imc_0/event=0x4,umask=0x3/",
    ] {
        let e = one(&lib, ev);
        assert_eq!((e.scale, e.unit), (None, None), "{ev}");
    }
}

#[test]
fn pfmlib_rapl_events_count_in_joules() {
    let ev = "/sys/bus/event_source/devices/power";
    let host = Host::synthetic(pfmlib::Vendor::Intel, 6, 85)
        .with_file("/sys/devices/power/type", "21\n")
        .with_file(&format!("{ev}/type"), "21\n")
        .with_file(&format!("{ev}/events/energy-ram"), "event=0x03\n")
        .with_file(
            &format!("{ev}/events/energy-ram.scale"),
            "1.52587890625e-05\n",
        );
    let lib = Library::with_host(host);
    let pkg = one(&lib, "rapl::RAPL_ENERGY_PKG");
    assert_eq!((pkg.attr.type_, pkg.attr.config), (21, 2));
    assert_eq!(
        (pkg.scale, pkg.unit.as_deref()),
        (Some(1.0 / 4_294_967_296.0), Some("Joules"))
    );
    let ram = one(&lib, "rapl::RAPL_ENERGY_DRAM");
    assert_eq!(ram.scale, Some(1.0 / 65_536.0));
    assert_eq!(one(&lib, "perf::cycles").unit, None);
}
