//! The perfmon(4)-style counter device: its semantics (ranges, states,
//! errors) with software events everywhere, raw PERFEVTSEL setups where the
//! kernel exposes a hardware PMU.

use pfmlib_perf::{hardware_pmu, CounterDevice, Error, Pmc, PmcFlags, Setup, Target};

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

/// A 4-counter device counting this thread; `None` (with the reason) where
/// perf events cannot be opened at all.
fn device() -> Option<CounterDevice> {
    let mut d = CounterDevice::with(4, Target::CallingThread);
    match d.setup_event(3, "task-clock:u") {
        Ok(()) => Some(CounterDevice::with(4, Target::CallingThread)),
        Err(e) => {
            eprintln!("SKIPPED: perf_event_open is not usable here: {e}");
            None
        }
    }
}

fn instructions_retired(num: usize) -> Pmc {
    // Event 0xC0, unit mask 0: instructions retired on Intel and AMD alike.
    Pmc {
        num,
        event: 0xc0,
        unit: 0,
        flags: PmcFlags::USR,
        mask: 0,
    }
}

#[test]
fn out_of_range_counters() {
    let mut d = CounterDevice::with(2, Target::CallingThread);
    assert_eq!(d.npmc(), 2);
    let oor = |e: Error| matches!(e, Error::CounterOutOfRange { num: 2, npmc: 2 });
    assert!(oor(d.setup(&instructions_retired(2)).unwrap_err()));
    assert!(oor(d.setup_event(2, "task-clock").unwrap_err()));
    assert!(oor(d.get(2).unwrap_err()));
    assert!(oor(d.start(2).unwrap_err()));
    assert!(oor(d.stop(2).unwrap_err()));
    assert!(oor(d.reset(2).unwrap_err()));
    assert!(oor(d.read(2).unwrap_err()));
    assert!(matches!(
        d.read(usize::MAX),
        Err(Error::CounterOutOfRange { .. })
    ));
    let msg = d.read(7).unwrap_err().to_string();
    assert_eq!(
        msg,
        "counter 7 is out of range: this host has 2 counters (0-1)"
    );
    let none = CounterDevice::with(0, Target::CallingThread);
    assert!(none
        .read(0)
        .unwrap_err()
        .to_string()
        .contains("no generic counter"));
}

#[test]
fn unconfigured_counters() {
    let mut d = CounterDevice::with(2, Target::CallingThread);
    let nc = |e: Error| matches!(e, Error::NotConfigured { num: 1 });
    assert!(nc(d.read(1).unwrap_err()));
    assert!(nc(d.get(1).unwrap_err()));
    assert!(nc(d.start(1).unwrap_err()));
    assert!(nc(d.stop(1).unwrap_err()));
    assert!(nc(d.reset(1).unwrap_err()));
    assert_eq!(
        d.read(1).unwrap_err().to_string(),
        "counter 1 is not set up: set it up first"
    );
}

#[test]
fn lifecycle_with_a_software_event() {
    let Some(mut d) = device() else { return };
    d.setup_event(0, "task-clock:u").unwrap();
    assert_eq!(
        d.get(0).unwrap(),
        Setup::Event {
            num: 0,
            event: "task-clock:u".into()
        }
    );
    assert!(!d.is_running(0).unwrap());
    // Set up: stopped at zero.
    spin_ms(2);
    assert_eq!(d.read(0).unwrap(), 0);

    d.start(0).unwrap();
    assert!(matches!(d.start(0), Err(Error::Running { num: 0, .. })));
    // Spin until the thread has had 1 ms of CPU (a loaded machine may give
    // it a fraction of the wall time), for at most 10 s.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut running = 0;
    while running <= 1_000_000 && std::time::Instant::now() < deadline {
        spin_ms(5);
        running = d.read(0).unwrap();
    }
    assert!(running > 1_000_000, "read while running: {running}");
    // Resetting or setting up a running counter is refused.
    let e = d.reset(0).unwrap_err();
    assert!(matches!(e, Error::Running { num: 0, .. }));
    assert_eq!(
        e.to_string(),
        "counter 0 is running: stop it before resetting it"
    );
    assert!(matches!(
        d.setup_event(0, "page-faults"),
        Err(Error::Running { .. })
    ));
    assert!(
        d.read(0).unwrap() >= running,
        "still counting after the refused reset"
    );

    d.stop(0).unwrap();
    assert!(matches!(d.stop(0), Err(Error::NotRunning { num: 0 })));
    let v = d.read(0).unwrap();
    spin_ms(2);
    assert_eq!(d.read(0).unwrap(), v, "a stopped counter holds its value");

    d.reset(0).unwrap();
    assert_eq!(d.read(0).unwrap(), 0);

    // Start again, then a new setup (after stopping) starts from zero too.
    d.start(0).unwrap();
    spin_ms(2);
    d.stop(0).unwrap();
    assert!(d.read(0).unwrap() > 0);
    d.setup_event(0, "task-clock:u").unwrap();
    assert_eq!(d.read(0).unwrap(), 0);
}

#[test]
fn counters_are_independent() {
    let Some(mut d) = device() else { return };
    d.setup_event(0, "task-clock:u").unwrap();
    d.setup_event(1, "page-faults:u").unwrap();
    d.start(0).unwrap();
    spin_ms(3);
    assert_eq!(d.read(1).unwrap(), 0, "counter 1 never started");
    d.start(1).unwrap();
    // black_box: an optimised build must still allocate and touch the pages
    // whose faults counter 1 counts.
    let v: Vec<u8> = std::hint::black_box(vec![1; 8 << 20]);
    for page in v.chunks(4096) {
        std::hint::black_box(page[0]);
    }
    d.stop(1).unwrap();
    d.stop(0).unwrap();
    assert!(d.read(0).unwrap() > 0, "task-clock ran for a while");
    assert!(d.read(1).unwrap() > 0 && v[4096] == 1);
}

#[test]
fn failed_setup_keeps_the_previous_one() {
    let Some(mut d) = device() else { return };
    d.setup_event(0, "task-clock:u").unwrap();
    assert!(matches!(
        d.setup_event(0, "no-such-event"),
        Err(Error::Encode(_))
    ));
    assert!(matches!(d.get(0).unwrap(), Setup::Event { .. }));
    let never = Pmc {
        flags: PmcFlags::E,
        ..instructions_retired(0)
    };
    let e = d.setup(&never).unwrap_err();
    assert!(matches!(e, Error::InvalidSetup { num: 0, .. }), "{e}");
    assert!(matches!(d.get(0).unwrap(), Setup::Event { .. }));
}

#[test]
fn raw_setups() {
    let Some(mut d) = device() else { return };
    let pmc = instructions_retired(1);
    if !hardware_pmu() {
        eprintln!("SKIPPED raw counting: the kernel exposes no hardware PMU; checking raw setups are refused as not supported");
        let e = d.setup(&pmc).unwrap_err();
        assert!(matches!(e, Error::NoHardwarePmu { .. }), "{e}");
        assert!(e.is_not_supported());
        assert!(matches!(d.get(1), Err(Error::NotConfigured { num: 1 })));
        return;
    }
    d.setup(&pmc).unwrap();
    assert_eq!(d.get(1).unwrap(), Setup::Raw(pmc));
    assert_eq!(d.counter(1).unwrap().attr().config, 0xc0);
    d.start(1).unwrap();
    spin_ms(5);
    d.stop(1).unwrap();
    assert!(d.read(1).unwrap() > 100_000);
}

#[test]
fn tstamp() {
    let d = CounterDevice::with(1, Target::CallingThread);
    if !cfg!(target_arch = "x86_64") {
        assert!(matches!(d.tstamp(), Err(Error::Unsupported(_))));
        return;
    }
    let a = d.tstamp().unwrap();
    spin_ms(2);
    let b = d.tstamp().unwrap();
    assert!(b.value > a.value);
    assert!((100..=10_000).contains(&a.rate_mhz), "{a:?}");
    assert_eq!(a.rate_mhz, b.rate_mhz, "the rate is computed once");
    // About 2 ms worth of ticks (generous bounds: VMs and schedulers vary).
    let ticks = (b.value - a.value) as f64;
    assert!(
        ticks > a.rate_hz * 0.0015,
        "{ticks} ticks in 2 ms at {} Hz",
        a.rate_hz
    );
    eprintln!("tstamp: {a:?}");
}
