//! What is counted: a command, existing processes (`-p`, every thread found
//! in `/proc`), every thread of the system (`--per-thread -a`), or CPUs
//! (`-a`, `-C`, checked against the online ones).

use super::args::Args;
use anyhow::bail;
use pfmlib_perf::Scope;
use std::path::Path;

/// Where the kernel lists the online CPUs.
const ONLINE_CPUS: &str = "/sys/devices/system/cpu/online";

/// The widest CPU range accepted in a list (`a-b` with `b - a` above this is refused).
const MAX_CPU_RANGE: u32 = 65536;

/// The scope the arguments ask for: `-p`, `-t`, `-a`/`-C` (with `-G`),
/// else the command (which the counting turns into its held child's).
pub fn resolve(a: &Args) -> anyhow::Result<Scope> {
    let tasks = if let Some(p) = &a.pid {
        tasks_of(p)?
    } else if let Some(t) = &a.tid {
        Scope::Tasks(tids_of(t)?)
    } else if a.per_thread && a.all_cpus {
        // perf's system-wide per-thread mode: each thread its own counters.
        Scope::Tasks(all_threads()?)
    } else if a.system_wide() {
        let Scope::Cpus(list) = cpus(a.cpu.as_deref())? else {
            bail!("no CPU to count on");
        };
        return match &a.cgroup {
            Some(name) if name.contains(',') => {
                bail!("-G {name:?}: one cgroup counts all the events here (perf's per-event lists are not supported)")
            }
            Some(name) => Ok(Scope::Cgroup {
                cgroup: pfmlib_perf::Cgroup::open(name)?,
                cpus: list,
            }),
            None => Ok(Scope::Cpus(list)),
        };
    } else if a.command.is_empty() {
        bail!("nothing to count: give a command (pfm stat [OPTIONS] -- COMMAND [ARGS]), -p PID, -t TID, -a or -C CPUS");
    } else {
        return Ok(Scope::Workload);
    };
    match tasks {
        Scope::Tasks(tids) if a.no_inherit => Ok(Scope::Threads {
            tids,
            inherit: false,
            start_at_exec: false,
        }),
        other => Ok(other),
    }
}

/// The threads of a `-t` list, each of them existing.
fn tids_of(list: &str) -> anyhow::Result<Vec<i32>> {
    let mut tids = Vec::new();
    for s in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let tid: i32 = s.parse().map_err(|_| anyhow::anyhow!("bad tid {s:?}"))?;
        if tid <= 0 || !Path::new(&format!("/proc/{tid}")).exists() {
            bail!("no such thread {s}");
        }
        if !tids.contains(&tid) {
            tids.push(tid);
        }
    }
    if tids.is_empty() {
        bail!("-t needs at least one tid");
    }
    Ok(tids)
}

/// Every thread of the processes of a `-p` list.
fn tasks_of(pids: &str) -> anyhow::Result<Scope> {
    let mut tids = Vec::new();
    for s in pids.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let pid: i32 = s.parse().map_err(|_| anyhow::anyhow!("bad pid {s:?}"))?;
        if pid <= 0 {
            bail!("bad pid {pid}");
        }
        tids.extend(threads_of(pid)?);
    }
    if tids.is_empty() {
        bail!("-p needs at least one pid");
    }
    Ok(Scope::Tasks(tids))
}

/// Every thread of every process in `/proc`, process by process (by pid),
/// each process's threads by tid: perf's order. A process that ends while
/// it is read is left out.
fn all_threads() -> anyhow::Result<Vec<i32>> {
    let mut pids: Vec<i32> = std::fs::read_dir("/proc")
        .map_err(|e| anyhow::anyhow!("--per-thread -a: cannot list /proc: {e}"))?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid > 0)
        .collect();
    pids.sort_unstable();
    let tids: Vec<i32> = pids
        .into_iter()
        .flat_map(|pid| threads_of(pid).unwrap_or_default())
        .collect();
    if tids.is_empty() {
        bail!("--per-thread -a: no thread found in /proc");
    }
    Ok(tids)
}

/// The CPUs of `-C` (all online ones without it), each of them online.
fn cpus(list: Option<&str>) -> anyhow::Result<Scope> {
    let online = online_cpus();
    match list {
        Some(c) => online_in(c, &online).map(Scope::Cpus),
        None => Ok(Scope::Cpus(online)),
    }
}

/// The CPUs of the list `s` (`0,2-3`), checked against the sorted `online`
/// CPUs range by range before anything is expanded, so that a huge list
/// costs time linear in its length and memory bounded by `online`.
fn online_in(s: &str, online: &[u32]) -> anyhow::Result<Vec<u32>> {
    let mut ranges = parse_cpu_ranges(s).map_err(|m| anyhow::anyhow!("bad -C: {m}"))?;
    for &(a, b) in &ranges {
        // Online CPUs within a..=b: all of them must be.
        let (lo, hi) = (
            online.partition_point(|&c| c < a),
            online.partition_point(|&c| c <= b),
        );
        if (hi - lo) as u64 != u64::from(b - a) + 1 {
            let bad = (a..=b)
                .zip(&online[lo..hi])
                .find(|(c, o)| c != *o)
                .map_or(if lo == hi { a } else { online[hi - 1] + 1 }, |(c, _)| c);
            bail!(
                "CPU {bad} is not online (online CPUs: {})",
                fmt_cpus(online)
            );
        }
    }
    ranges.sort_unstable();
    let mut ranges = ranges.into_iter().peekable();
    Ok(online
        .iter()
        .copied()
        .filter(|&c| {
            while ranges.next_if(|&(_, b)| b < c).is_some() {}
            ranges.peek().is_some_and(|&(a, _)| a <= c)
        })
        .collect())
}

/// Parses a CPU list `0,2-3`.
pub fn parse_cpu_list(s: &str) -> Result<Vec<u32>, String> {
    let mut v = Vec::new();
    for (a, b) in parse_cpu_ranges(s)? {
        v.extend(a..=b);
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// The ranges of a CPU list `0,2-3` (a single CPU `n` as `n..=n`), checked
/// but not expanded.
fn parse_cpu_ranges(s: &str) -> Result<Vec<(u32, u32)>, String> {
    let mut v = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let num = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| format!("bad CPU number {t:?} in {s:?}"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b || b - a > MAX_CPU_RANGE {
                    return Err(format!("bad CPU range {part:?}"));
                }
                v.push((a, b));
            }
            None => {
                let n = num(part)?;
                v.push((n, n));
            }
        }
    }
    if v.is_empty() {
        return Err(format!("no CPU in {s:?}"));
    }
    Ok(v)
}

/// The online CPUs, or as many as the machine has threads when sysfs does not say.
fn online_cpus() -> Vec<u32> {
    std::fs::read_to_string(ONLINE_CPUS)
        .ok()
        .and_then(|s| parse_cpu_list(s.trim()).ok())
        .unwrap_or_else(|| {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            (0..n as u32).collect()
        })
}

fn fmt_cpus(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// Threads of process `pid` (from /proc), or the pid alone if it has no task list.
fn threads_of(pid: i32) -> anyhow::Result<Vec<i32>> {
    if !Path::new(&format!("/proc/{pid}")).exists() {
        bail!("no such process {pid}");
    }
    let mut tids: Vec<i32> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    if tids.is_empty() {
        tids.push(pid);
    }
    tids.sort_unstable();
    Ok(tids)
}

/// True while task `pid` exists and has not exited (a zombie has).
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        // The state follows the parenthesised command name.
        let state = s
            .rfind(')')
            .and_then(|i| s[i + 1..].split_whitespace().next());
        !matches!(state, Some("Z") | Some("X") | None)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0,2-3,2").unwrap(), vec![0, 2, 3]);
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
        assert!(parse_cpu_list("").is_err());
        assert!(parse_cpu_list("0-4294967295").is_err());
    }

    #[test]
    fn cpu_lists_are_checked_against_the_online_ones() {
        let online = [0, 1, 2, 3, 8, 9];
        assert_eq!(online_in("3,0-1,1,9", &online).unwrap(), vec![0, 1, 3, 9]);
        assert_eq!(online_in("8-9,2-3", &online).unwrap(), vec![2, 3, 8, 9]);
        let bad = |s| online_in(s, &online).unwrap_err().to_string();
        assert!(
            bad("2-8").starts_with("CPU 4 is not online"),
            "{}",
            bad("2-8")
        );
        assert!(bad("5").starts_with("CPU 5 is not online"));
        assert!(bad("9-10").starts_with("CPU 10 is not online"));
        assert!(bad("x").starts_with("bad -C"));
        // A huge list of huge ranges is refused at its first range, without
        // expanding anything (issue 22: 128 KiB took 21.8 s and 4.1 GB).
        let huge = vec!["0-65535"; 20_000].join(",");
        assert!(bad(&huge).starts_with("CPU 4 is not online"));
        let many = vec!["0-3,8"; 20_000].join(",");
        assert_eq!(online_in(&many, &online).unwrap(), vec![0, 1, 2, 3, 8]);
    }

    #[test]
    fn this_process_is_alive_and_has_threads() {
        let me = std::process::id() as i32;
        assert!(alive(me));
        assert!(threads_of(me).is_ok_and(|t| t.contains(&me)));
        assert!(!online_cpus().is_empty());
        let all = all_threads().unwrap();
        assert!(all.contains(&me), "{all:?}");
        let mut unique = all.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), all.len());
    }
}
