//! PCP, the fleet path: `pmcd` with its perfevent PMDA (`pmdaperfevent`,
//! built against Debian's libpfm4) run unchanged on our `libpfm.so.4`.
//!
//! The test starts a private `pmcd` by hand (Debian's `pcp` post-install
//! step needs systemd): its own `pcp.conf`, `pmcd.conf`, namespace, PMDA
//! folder with a `perfevent.conf` of software events, logs and sockets,
//! all under `target/`, on a port of its own, listening on 127.0.0.1
//! only; nothing system-wide is written. It runs first on libpfm4 (the
//! installed one, or upstream's build named by `PFMLIB_LIBPFM4_HEAD`),
//! then on ours (`LD_LIBRARY_PATH` set for the PMDA process alone), and
//! reads `perfevent.*` with `pminfo -f` and `pmval -s N`: the same metric
//! names, the same instances (one per online CPU), plausible counts and
//! rates, `cpu-clock` rates within noise of each other, and the same PMUs,
//! events and unit masks in the PMDA's log (every PMU against upstream's
//! build; against 4.13, whose tables are older, the perf_events ones).
//! Where PCP is not installed or `pmcd` cannot count, it prints
//! `SKIPPED: <reason>` and passes, unless `PFMLIB_REQUIRE_PCP=1`.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The software events the private `perfevent.conf` configures: present on
/// every Linux, with or without a hardware PMU.
const EVENTS: [&str; 4] = [
    "PERF_COUNT_SW_CPU_CLOCK",
    "PERF_COUNT_SW_TASK_CLOCK",
    "PERF_COUNT_SW_PAGE_FAULTS",
    "PERF_COUNT_SW_CONTEXT_SWITCHES",
];

/// A hardware event, configured too: counted where the machine has a PMU
/// the kernel drives, left out (the PMDA logs `perf_event_open failed`)
/// on a VM without one; either way alike with both libraries.
const HARDWARE: &str = "PERF_COUNT_HW_CPU_CYCLES";

/// perfevent's domain number (its `domain.h`).
const DOMAIN: u32 = 127;

/// How long `pmcd` and the PMDA may take to answer (a debug build of our
/// library initialises in well under a second; the machine may be busy).
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Where PCP's programs are, from `pcp.conf`.
struct Pcp {
    /// `/etc/pcp.conf` (or `$PCP_CONF`): the text the private one starts from.
    conf: String,
    /// `$PCP_BINADM_DIR/pmcd`.
    pmcd: PathBuf,
    /// `$PCP_PMDAS_DIR/perfevent/pmdaperfevent`, links resolved.
    pmda: PathBuf,
}

/// `PFMLIB_REQUIRE_PCP=1` makes a skip a failure.
fn skip(why: &str) {
    let required = std::env::var("PFMLIB_REQUIRE_PCP").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "PCP check required (PFMLIB_REQUIRE_PCP=1): {why}"
    );
    eprintln!("SKIPPED: {why}");
}

/// A variable of a `pcp.conf` text.
fn conf_var(conf: &str, name: &str) -> Option<String> {
    conf.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
        .map(|v| v.trim().trim_matches('"').to_string())
}

/// PCP's installation, or why it is not usable.
fn find_pcp() -> Result<Pcp, String> {
    let path = std::env::var_os("PCP_CONF").map_or_else(|| "/etc/pcp.conf".into(), PathBuf::from);
    let conf = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "PCP not installed ({}: {e}; Debian: apt-get install pcp)",
            path.display()
        )
    })?;
    let var = |n: &str| conf_var(&conf, n).ok_or_else(|| format!("{} lacks {n}", path.display()));
    let pmcd = Path::new(&var("PCP_BINADM_DIR")?).join("pmcd");
    let pmda = Path::new(&var("PCP_PMDAS_DIR")?).join("perfevent/pmdaperfevent");
    let pmda = std::fs::canonicalize(&pmda)
        .map_err(|e| format!("perfevent PMDA not installed ({}: {e})", pmda.display()))?;
    if !pmcd.is_file() {
        return Err(format!("{} not installed", pmcd.display()));
    }
    for tool in ["pminfo", "pmval"] {
        let found = Command::new(tool).arg("--version").output().is_ok();
        if !found {
            return Err(format!("{tool} not installed"));
        }
    }
    Ok(Pcp { conf, pmcd, pmda })
}

/// Runs `cmd` under coreutils' `timeout` (`secs`, then SIGKILL 2 s later).
fn bounded(secs: u32, program: &str) -> Command {
    let mut cmd = Command::new("timeout");
    cmd.args(["-k", "2", &secs.to_string(), program]);
    cmd
}

/// The user `pmcd` runs as, or why the test cannot count system-wide.
fn pmcd_user() -> Result<String, String> {
    let out = |args: &[&str]| {
        Command::new("id")
            .args(args)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let uid = out(&["-u"]).ok_or("`id` not found")?;
    let name = out(&["-un"]).ok_or("`id` not found")?;
    if uid == "0" {
        return Ok(name);
    }
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
        .unwrap_or(2);
    if paranoid > 0 {
        return Err(format!(
            "the perfevent PMDA counts per CPU, system-wide: it needs root or \
             kernel.perf_event_paranoid <= 0 (it is {paranoid}, uid {uid})"
        ));
    }
    Ok(name)
}

/// A free TCP port on 127.0.0.1 (the kernel's choice; released for pmcd).
fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// A private pmcd with the perfevent PMDA, stopped when dropped.
struct Fixture {
    dir: PathBuf,
    port: u16,
    pmcd: Child,
}

impl Fixture {
    /// Writes the private configuration under `dir` (emptied first) and
    /// starts pmcd; the PMDA finds libpfm.so.4 in `lib_dir` (else the
    /// loader's default).
    fn start(pcp: &Pcp, dir: &Path, lib_dir: Option<&Path>, user: &str) -> Result<Fixture, String> {
        let _ = std::fs::remove_dir_all(dir);
        for d in ["pmdas/perfevent", "run", "log", "tmp"] {
            std::fs::create_dir_all(dir.join(d)).map_err(|e| e.to_string())?;
        }
        write_config(pcp, dir, lib_dir)
            .map_err(|e| format!("writing the private configuration: {e}"))?;
        let port = free_port()?;
        let log = dir.join("log/pmcd.log");
        // Under `timeout` too: gone within 5 minutes even if this test is
        // killed before its Drop runs (SIGTERM is passed on to pmcd).
        let mut cmd = bounded(300, &pcp.pmcd.to_string_lossy());
        cmd.current_dir(dir)
            .env("PCP_CONF", dir.join("pcp.conf"))
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("PMCD_PORT")
            .args([
                "-f",
                "-A",
                "-q",
                "30",
                "-t",
                "30",
                "-U",
                user,
                "-i",
                "127.0.0.1",
            ])
            .arg("-p")
            .arg(port.to_string())
            .arg("-c")
            .arg(dir.join("pmcd.conf"))
            .arg("-n")
            .arg(dir.join("root"))
            .arg("-l")
            .arg(&log)
            .arg("-s")
            .arg(dir.join("run/pmcd.socket"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("LIBPFM_") {
                cmd.env_remove(k);
            }
        }
        let pmcd = cmd.spawn().map_err(|e| format!("starting pmcd: {e}"))?;
        let mut fx = Fixture {
            dir: dir.to_path_buf(),
            port,
            pmcd,
        };
        fx.wait_ready()?;
        Ok(fx)
    }

    /// A PCP client (`pminfo`, `pmval`) talking to this pmcd, bounded.
    fn client(&self, tool: &str, secs: u32) -> Command {
        let mut cmd = bounded(secs, tool);
        cmd.env("PMCD_PORT", self.port.to_string())
            .env_remove("PCP_CONF")
            .args(["-h", "127.0.0.1"]);
        cmd
    }

    /// Polls `perfevent.active` until the PMDA counts (bounded).
    fn wait_ready(&mut self) -> Result<(), String> {
        let start = Instant::now();
        let mut last = String::new();
        while start.elapsed() < START_TIMEOUT {
            if let Ok(Some(st)) = self.pmcd.try_wait() {
                return Err(format!("pmcd exited ({st}): {}", self.logs()));
            }
            let pmda_gone = self
                .pmda_pid()
                .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
            if pmda_gone {
                return Err(format!("the perfevent PMDA exited: {}", self.logs()));
            }
            if let Ok(o) = self
                .client("pminfo", 10)
                .args(["-f", "perfevent.active"])
                .output()
            {
                last = format!("{}{}", text(&o.stdout), text(&o.stderr));
                let active = last.lines().find_map(|l| l.trim().strip_prefix("value "));
                // 0 until the PMDA has opened its counters.
                if active
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .is_some_and(|n| n > 0)
                {
                    return Ok(());
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(format!(
            "pmcd did not answer within {START_TIMEOUT:?} (last: {last}): {}",
            self.logs()
        ))
    }

    /// pmcd's and the PMDA's logs (for failure messages), without the
    /// PMDA's list of every event.
    fn logs(&self) -> String {
        ["pmcd.log", "perfevent.log"]
            .iter()
            .map(|f| std::fs::read_to_string(self.dir.join("log").join(f)).unwrap_or_default())
            .flat_map(|log| log.lines().map(str::to_string).collect::<Vec<_>>())
            .filter(|l| {
                !l.split_whitespace()
                    .next()
                    .is_some_and(|w| w.contains("::"))
            })
            .filter(|l| !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The PMDA's process id, from pmcd's agent table.
    fn pmda_pid(&self) -> Option<u32> {
        let log = std::fs::read_to_string(self.dir.join("log/pmcd.log")).ok()?;
        log.lines().find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.first() == Some(&"perfevent") && w.get(1) == Some(&"127"))
                .then(|| w.get(2)?.parse().ok())
                .flatten()
        })
    }
}

impl Drop for Fixture {
    /// SIGTERM to pmcd (it stops its agents), SIGKILL after 5 s; the PMDA
    /// is killed too if it outlived pmcd.
    fn drop(&mut self) {
        let pmda = self.pmda_pid();
        let _ = Command::new("kill")
            .arg(self.pmcd.id().to_string())
            .status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if !matches!(self.pmcd.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.pmcd.kill();
        let _ = self.pmcd.wait();
        if let Some(pid) = pmda {
            let start = Instant::now();
            while Path::new(&format!("/proc/{pid}")).exists() {
                if start.elapsed() > Duration::from_secs(5) {
                    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// The private `pcp.conf`, `pmcd.conf`, namespace and PMDA folder.
fn write_config(pcp: &Pcp, dir: &Path, lib_dir: Option<&Path>) -> std::io::Result<()> {
    let d = dir.display();
    let private = [
        ("PCP_PMDAS_DIR", format!("{d}/pmdas")),
        ("PCP_RUN_DIR", format!("{d}/run")),
        ("PCP_LOG_DIR", format!("{d}/log")),
        ("PCP_TMP_DIR", format!("{d}/tmp")),
        ("PCP_PMCDCONF_PATH", format!("{d}/pmcd.conf")),
        ("PCP_PMCDOPTIONS_PATH", format!("{d}/pmcd.options")),
        ("PCP_PMCDRCLOCAL_PATH", format!("{d}/rc.local")),
    ];
    let mut conf = String::new();
    for line in pcp.conf.lines() {
        let mine = private
            .iter()
            .find(|(k, _)| line.starts_with(&format!("{k}=")));
        match mine {
            Some((k, v)) => writeln!(conf, "{k}={v}"),
            None => writeln!(conf, "{line}"),
        }
        .expect("write to a String");
    }
    std::fs::write(dir.join("pcp.conf"), conf)?;
    let pmda_dir = dir.join("pmdas/perfevent");
    std::os::unix::fs::symlink(&pcp.pmda, pmda_dir.join("pmdaperfevent"))?;
    let events: String = EVENTS
        .iter()
        .chain([&HARDWARE])
        .map(|e| format!("{e}\n"))
        .collect();
    std::fs::write(pmda_dir.join("perfevent.conf"), format!("[perf]\n{events}"))?;
    let ld = lib_dir.map_or_else(
        || "-u LD_LIBRARY_PATH".to_string(),
        |l| format!("LD_LIBRARY_PATH={}", l.display()),
    );
    std::fs::write(
        dir.join("pmcd.conf"),
        format!(
            "perfevent\t{DOMAIN}\tpipe\tbinary\t/usr/bin/env {ld} {d}/pmdas/perfevent/pmdaperfevent -d {DOMAIN} -l {d}/log/perfevent.log\n"
        ),
    )?;
    std::fs::write(
        dir.join("root"),
        format!(
            "root {{\n    perfevent\n}}\nperfevent {{\n    version\t{DOMAIN}:0:0\n    active\t{DOMAIN}:0:1\n    hwcounters\t{DOMAIN}:*:*\n    derived\t{DOMAIN}:*:*\n}}\n"
        ),
    )
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// What one run read.
#[derive(Debug)]
struct Reading {
    /// `pminfo -f perfevent`: metric → instance (`-` for none) → value.
    metrics: BTreeMap<String, BTreeMap<String, String>>,
    /// `pmval -s N` rates: event → instance → mean rate per second.
    rates: BTreeMap<String, BTreeMap<String, f64>>,
    /// The PMDA log's `Found PMU:` lines: name, id, event count.
    pmus: Vec<(String, String, String)>,
    /// The events the PMDA listed for each PMU (`pmu::EVENT (UMASK,...)`
    /// lines of its log, from libpfm's enumeration).
    events: BTreeMap<String, Vec<String>>,
    /// The libpfm.so.4 the PMDA process has mapped.
    library: String,
}

/// `pminfo -f` output: `metric` lines, then `value V` or
/// `inst [N or "NAME"] value V` lines.
fn parse_pminfo(out: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut m: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current = None;
    for line in out.lines() {
        if !line.starts_with(' ') && !line.trim().is_empty() {
            current = Some(line.trim().to_string());
            m.entry(line.trim().to_string()).or_default();
            continue;
        }
        let (Some(metric), l) = (&current, line.trim()) else {
            continue;
        };
        let (inst, value) = if let Some(rest) = l.strip_prefix("inst [") {
            let name = rest.split('"').nth(1).unwrap_or("?").to_string();
            (name, rest.rsplit_once("value ").map_or("", |(_, v)| v))
        } else if let Some(v) = l.strip_prefix("value ") {
            ("-".to_string(), v)
        } else {
            continue;
        };
        m.entry(metric.clone())
            .or_default()
            .insert(inst, value.trim().to_string());
    }
    m
}

/// `pmval` output: a header row of instance names, then one row of rates
/// per sample; the mean per instance.
fn parse_pmval(out: &str, cpus: &[String]) -> BTreeMap<String, f64> {
    let rows: Vec<Vec<f64>> = out
        .lines()
        .map(|l| {
            l.split_whitespace()
                .map(str::parse::<f64>)
                .collect::<Result<Vec<_>, _>>()
        })
        .filter_map(Result::ok)
        .filter(|r| r.len() == cpus.len() && !r.is_empty())
        .collect();
    let header = out
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .find(|w| !w.is_empty() && w.iter().all(|x| cpus.contains(x)));
    let (Some(header), false) = (header, rows.is_empty()) else {
        return BTreeMap::new();
    };
    header
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            (
                name,
                rows.iter().map(|r| r[i]).sum::<f64>() / rows.len() as f64,
            )
        })
        .collect()
}

/// The `Found PMU: NAME (DESC) identification ID (N events ...)` lines.
fn found_pmus(log: &str) -> Vec<(String, String, String)> {
    log.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("Found PMU: ")?;
            let name = rest.split_whitespace().next()?.to_string();
            let (_, after) = rest.rsplit_once("identification ")?;
            let mut w = after.split_whitespace();
            let id = w.next()?.to_string();
            let events = w.next()?.trim_start_matches('(').to_string();
            Some((name, id, events))
        })
        .collect()
}

/// The PMDA log's event lines (`pmu::EVENT (UMASK,...)`), by PMU.
fn listed_events(log: &str) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in log.lines() {
        if let Some((pmu, _)) = l.split_once("::").filter(|(p, _)| !p.contains(' ')) {
            m.entry(pmu.to_string())
                .or_default()
                .push(l.trim_end().to_string());
        }
    }
    m
}

/// Reads every perfevent metric and `pmval` rates from a started fixture.
fn read(fx: &Fixture) -> Reading {
    let o = fx
        .client("pminfo", 30)
        .args(["-f", "perfevent"])
        .output()
        .expect("run pminfo");
    assert!(
        o.status.success(),
        "pminfo -f perfevent: {o:?}\n{}",
        fx.logs()
    );
    let metrics = parse_pminfo(&text(&o.stdout));
    let cpus: Vec<String> = metrics
        .get(&format!("perfevent.hwcounters.{}.value", EVENTS[0]))
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let mut rates = BTreeMap::new();
    for event in [EVENTS[0], EVENTS[3]] {
        let metric = format!("perfevent.hwcounters.{event}.value");
        let o: Output = fx
            .client("pmval", 30)
            .args(["-s", "3", "-t", "0.5", "-f", "1", &metric])
            .output()
            .expect("run pmval");
        assert!(o.status.success(), "pmval {metric}: {o:?}");
        rates.insert(event.to_string(), parse_pmval(&text(&o.stdout), &cpus));
    }
    let library = fx
        .pmda_pid()
        .and_then(|pid| std::fs::read_to_string(format!("/proc/{pid}/maps")).ok())
        .and_then(|maps| {
            maps.lines()
                .find(|l| l.contains("libpfm.so"))
                .and_then(|l| l.split_whitespace().last())
                .map(str::to_string)
        })
        .unwrap_or_default();
    let log = std::fs::read_to_string(fx.dir.join("log/perfevent.log")).unwrap_or_default();
    Reading {
        metrics,
        rates,
        pmus: found_pmus(&log),
        events: listed_events(&log),
        library,
    }
}

/// The online CPUs' instance names (`cpu0`...), from sysfs.
fn online_cpus() -> Vec<String> {
    let s = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap_or_default();
    let mut cpus = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
            cpus.extend((a..=b).map(|c| format!("cpu{c}")));
        }
    }
    cpus.sort();
    cpus
}

fn value_metric(event: &str) -> String {
    format!("perfevent.hwcounters.{event}.value")
}

/// Counts present and plausible: one instance per online CPU for every
/// counter, duty cycles in (0, 1], clocks counting on every CPU at about
/// 10^9 ns per second, page faults and context switches somewhere.
fn check_plausible(r: &Reading, who: &str) {
    let cpus = online_cpus();
    for event in EVENTS {
        for suffix in ["value", "dutycycle"] {
            let m = format!("perfevent.hwcounters.{event}.{suffix}");
            let inst = r
                .metrics
                .get(&m)
                .unwrap_or_else(|| panic!("{who}: no {m}: {:?}", r.metrics));
            let names: Vec<&String> = inst.keys().collect();
            assert_eq!(
                names,
                cpus.iter().collect::<Vec<_>>(),
                "{who}: {m} instances"
            );
            for (cpu, v) in inst {
                let x: f64 = v.parse().unwrap_or(-1.0);
                let ok = if suffix == "dutycycle" {
                    x > 0.0 && x <= 1.0
                } else {
                    x >= 0.0
                };
                assert!(ok, "{who}: {m} [{cpu}] = {v}");
            }
        }
        let values = &r.metrics[&value_metric(event)];
        let sum: f64 = values.values().filter_map(|v| v.parse::<f64>().ok()).sum();
        assert!(sum > 0.0, "{who}: {event} counts nothing: {values:?}");
        if event.ends_with("CLOCK") {
            assert!(
                values
                    .values()
                    .all(|v| v.parse::<f64>().is_ok_and(|x| x > 0.0)),
                "{who}: {event} not counting on every CPU: {values:?}"
            );
        }
    }
    let clock = &r.rates[EVENTS[0]];
    assert_eq!(
        clock.keys().collect::<Vec<_>>(),
        cpus.iter().collect::<Vec<_>>(),
        "{who}: pmval instances"
    );
    for (cpu, rate) in clock {
        assert!(
            (5e8..1.5e9).contains(rate),
            "{who}: cpu-clock on {cpu} at {rate} ns/s"
        );
    }
}

/// Our run against libpfm4's: the same metric names, instances, active
/// counters and PMUs found; cpu-clock rates within 25 % of each other.
fn compare(theirs: &Reading, ours: &Reading) {
    let names = |r: &Reading| r.metrics.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(theirs), names(ours), "metric names: libpfm4 / ours");
    for (m, inst) in &theirs.metrics {
        let (a, b) = (
            inst.keys().collect::<Vec<_>>(),
            ours.metrics[m].keys().collect::<Vec<_>>(),
        );
        assert_eq!(a, b, "{m}: instances, libpfm4 / ours");
    }
    for m in [
        "perfevent.version",
        "perfevent.active",
        "perfevent.derived.active",
    ] {
        assert_eq!(
            theirs.metrics.get(m),
            ours.metrics.get(m),
            "{m}: libpfm4 / ours"
        );
    }
    for (cpu, a) in &theirs.rates[EVENTS[0]] {
        let b = ours.rates[EVENTS[0]].get(cpu).copied().unwrap_or(0.0);
        assert!(
            (0.8..1.25).contains(&(b / a)),
            "cpu-clock rate on {cpu}: libpfm4 {a}, ours {b}"
        );
    }
    let ids = |r: &Reading| {
        r.pmus
            .iter()
            .map(|p| (p.0.clone(), p.1.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(theirs),
        ids(ours),
        "PMUs the PMDA found: libpfm4 / ours"
    );
    for (a, b) in theirs.pmus.iter().zip(&ours.pmus) {
        // 4.13's tables are older than ours (upstream's): only the
        // perf_events PMUs must match it event for event.
        let must = common::reference_is_upstream() || a.0.starts_with("perf");
        let (ea, eb) = (theirs.events.get(&a.0), ours.events.get(&b.0));
        if a.2 == b.2 && ea == eb {
            let n = ea.map_or(0, Vec::len);
            eprintln!("PMU {}: the same {n} events and unit masks listed", a.0);
        } else {
            assert!(
                !must,
                "PMU {}: libpfm4 listed {} events {ea:?}, ours {} {eb:?}",
                a.0, a.2, b.2
            );
            eprintln!(
                "PMU {}: {} events with libpfm4 4.13, {} with ours (upstream's table)",
                a.0, a.2, b.2
            );
        }
    }
}

/// One line per counter: per-CPU values, pmval rates.
fn report(who: &str, r: &Reading) {
    eprintln!("{who}: PMDA mapped {}; PMUs {:?}", r.library, r.pmus);
    let hw = r.metrics.get(&value_metric(HARDWARE));
    eprintln!(
        "{who}:   {HARDWARE}.value {}",
        hw.map_or(
            "absent (the kernel refused it: no hardware PMU)".to_string(),
            |v| format!("{v:?}")
        )
    );
    for event in EVENTS {
        eprintln!(
            "{who}:   {event}.value {:?}",
            r.metrics[&value_metric(event)]
        );
    }
    for (event, rates) in &r.rates {
        eprintln!("{who}:   pmval -s 3 -t 0.5 {event}: {rates:?} per second");
    }
}

#[test]
fn perfevent_pmda_reads_the_same_metrics_on_ours() {
    let pcp = match find_pcp() {
        Ok(p) => p,
        Err(why) => return skip(&why),
    };
    let user = match pmcd_user() {
        Ok(u) => u,
        Err(why) => return skip(&why),
    };
    if common::system_libpfm4().is_none() {
        return skip("no libpfm4 to compare with");
    }
    let work = common::work_dir("pcp");
    let reference = common::upstream_libpfm4().and_then(|p| p.parent().map(Path::to_path_buf));
    let theirs = match Fixture::start(&pcp, &work.join("libpfm4"), reference.as_deref(), &user) {
        Ok(fx) => read(&fx),
        Err(why) => {
            return skip(&format!(
                "pmcd with the perfevent PMDA cannot start on libpfm4: {why}"
            ))
        }
    };
    report("libpfm4", &theirs);
    check_plausible(&theirs, "libpfm4");
    let ours_dir = common::our_lib_dir();
    let ours = {
        let fx = Fixture::start(&pcp, &work.join("ours"), Some(&ours_dir), &user)
            .unwrap_or_else(|why| panic!("pmcd with the perfevent PMDA on our libpfm.so.4: {why}"));
        read(&fx)
    };
    report("ours", &ours);
    let lib = std::fs::canonicalize(ours_dir.join("libpfm.so.4")).expect("our library");
    assert_eq!(
        Path::new(&ours.library),
        lib,
        "the PMDA did not load our library"
    );
    assert_ne!(
        theirs.library, ours.library,
        "the reference run loaded our library"
    );
    check_plausible(&ours, "ours");
    compare(&theirs, &ours);
}
