//! `pfm counters`: the perfmon(4)-style counter device, driven by a list of
//! operations (setup, get, start, stop, reset, read, tstamp).

use anyhow::bail;
use pfmlib::Library;
use pfmlib_perf::{host_npmc, CounterDevice, Pmc, PmcFlags, RateSource, Setup, Target};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
#[command(after_help = "Operations, run in order (each word with its arguments):
  npmc                                   number of counters (NPMC)
  setup N event=E [unit=U] [flags=F] [mask=M]
                                         raw PERFEVTSEL setup; F from usr,os,e,inv (default usr,os)
  setup N EVENT                          any event string pfmlib encodes (task-clock, perf::cycles:u ...)
  get N | start N | stop N | reset N     current setup; start; stop; zero (stopped counters only)
  read N                                 current value, a signed 64-bit number
  tstamp                                 time-stamp counter and its approximate rate in MHz
  spin MS | sleep MS                     busy-loop or sleep this thread, for something to count

Example:
  pfm counters setup 0 task-clock setup 1 page-faults start 0 start 1 spin 50 stop 0 stop 1 read 0 read 1 tstamp

The counters count this command's own thread (or --pid / --cpu). The command line's operations
run first, then those of -f FILE, each line as soon as it is read (`-f -` answers a pipe or a
terminal line by line; an operation and its arguments stay on one line). The first failing
operation stops the sequence with exit status 1; on a kernel without a hardware PMU raw setups
fail as not supported. Operations that cannot be parsed stop with status 2 (nothing on the
command line runs then; a file's earlier lines have run).

--json: one object per operation, {\"ok\":true,\"op\":WORD,\"counter\":N,...} (counter when the
operation takes one); a failure {\"ok\":false,\"op\":WORD,\"counter\":N,\"error\":{\"kind\":K,
\"message\":TEXT}} with K not_supported or failed, or {\"ok\":false,\"error\":{\"kind\":\"usage\",...}}
for operations that cannot be parsed.")]
pub struct Args {
    /// Operations; see below. With -f, those of FILE run after them (`-` for standard input).
    #[arg(value_name = "OP", allow_hyphen_values = true)]
    ops: Vec<String>,
    /// Read operations from FILE, running each line as it is read (one or
    /// more per line, `#` starts a comment); `-` is standard input.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    file: Option<PathBuf>,
    /// Count this process or thread instead of pfm's own thread.
    #[arg(long, value_name = "PID", conflicts_with = "cpu")]
    pid: Option<i32>,
    /// Count every task on this CPU instead of pfm's own thread.
    #[arg(long, value_name = "CPU")]
    cpu: Option<u32>,
    /// Number of counters (default: the host CPU's generic counters; at
    /// most 1024).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(0..=pfmlib_perf::MAX_NPMC as i64))]
    npmc: Option<u16>,
    /// One JSON object per operation and line.
    #[arg(long)]
    json: bool,
}

/// One operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Npmc,
    SetupRaw(Pmc),
    SetupEvent(usize, String),
    Get(usize),
    Start(usize),
    Stop(usize),
    Reset(usize),
    Read(usize),
    Tstamp,
    Spin(u64),
    Sleep(u64),
}

fn parse_num(s: &str, what: &str) -> Result<u64, String> {
    let r = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        s.parse::<u64>()
    };
    r.map_err(|_| format!("{what}: {s:?} is not a number"))
}

fn parse_u8(s: &str, what: &str) -> Result<u8, String> {
    let v = parse_num(s, what)?;
    u8::try_from(v).map_err(|_| format!("{what}: {s} does not fit in 8 bits (0-255)"))
}

/// Parses a sequence of operation words.
pub fn parse_ops(tokens: &[String]) -> Result<Vec<Op>, String> {
    let mut ops = Vec::new();
    let mut i = 0;
    let next = |i: &mut usize, op: &str| -> Result<String, String> {
        let t = tokens
            .get(*i)
            .cloned()
            .ok_or_else(|| format!("{op}: missing argument"))?;
        *i += 1;
        Ok(t)
    };
    while i < tokens.len() {
        let word = tokens[i].to_ascii_lowercase();
        i += 1;
        let counter = |i: &mut usize| -> Result<usize, String> {
            let t = next(i, &word)?;
            let n = parse_num(&t, &format!("{word}: counter number"))?;
            usize::try_from(n).map_err(|_| format!("{word}: counter number {t} is too large"))
        };
        let op = match word.as_str() {
            "npmc" => Op::Npmc,
            "tstamp" => Op::Tstamp,
            "get" => Op::Get(counter(&mut i)?),
            "start" => Op::Start(counter(&mut i)?),
            "stop" => Op::Stop(counter(&mut i)?),
            "reset" => Op::Reset(counter(&mut i)?),
            "read" => Op::Read(counter(&mut i)?),
            "spin" => Op::Spin(parse_num(&next(&mut i, "spin")?, "spin: milliseconds")?),
            "sleep" => Op::Sleep(parse_num(&next(&mut i, "sleep")?, "sleep: milliseconds")?),
            "setup" => {
                let num = counter(&mut i)?;
                let first = next(&mut i, "setup")?;
                if first.to_ascii_lowercase().starts_with("event=") {
                    let mut pmc = Pmc {
                        num,
                        flags: PmcFlags::USR | PmcFlags::OS,
                        ..Pmc::default()
                    };
                    let mut kv = vec![first];
                    while let Some(t) = tokens.get(i) {
                        let l = t.to_ascii_lowercase();
                        if ["unit=", "flags=", "mask="].iter().any(|p| l.starts_with(p)) {
                            kv.push(t.clone());
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    for t in kv {
                        let (k, v) = t.split_once('=').unwrap_or((t.as_str(), ""));
                        match k.to_ascii_lowercase().as_str() {
                            "event" => pmc.event = parse_u8(v, "setup: event")?,
                            "unit" => pmc.unit = parse_u8(v, "setup: unit")?,
                            "mask" => pmc.mask = parse_u8(v, "setup: mask")?,
                            _ => pmc.flags = v.parse().map_err(|e| format!("setup: {e}"))?,
                        }
                    }
                    Op::SetupRaw(pmc)
                } else {
                    Op::SetupEvent(num, first)
                }
            }
            other => {
                return Err(format!(
                    "unknown operation {other:?}: use npmc, setup, get, start, stop, reset, read, tstamp, spin, sleep"
                ))
            }
        };
        ops.push(op);
    }
    Ok(ops)
}

fn spin(ms: u64) -> u64 {
    let end = Instant::now() + Duration::from_millis(ms);
    let mut x: u64 = 0;
    while Instant::now() < end {
        for k in 0..1000u64 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(k));
        }
    }
    x
}

fn setup_json(s: &Setup) -> Value {
    match s {
        Setup::Raw(p) => json!({
            "counter": p.num,
            "event": format!("{:#04x}", p.event),
            "unit": format!("{:#04x}", p.unit),
            "flags": p.flags.to_string(),
            "mask": p.mask,
            "perfevtsel": format!("{:#x}", p.perfevtsel().0),
        }),
        Setup::Event { num, event } => json!({"counter": num, "event": event}),
    }
}

/// Runs one operation: (text line, JSON object).
fn apply(dev: &mut CounterDevice, op: &Op) -> Result<(String, Value), pfmlib_perf::Error> {
    Ok(match op {
        Op::Npmc => (
            format!("npmc: {}", dev.npmc()),
            json!({"op": "npmc", "npmc": dev.npmc()}),
        ),
        Op::SetupRaw(p) => {
            dev.setup(p)?;
            let s = Setup::Raw(*p);
            (
                format!("setup {}: {s}", p.num),
                json!({"op": "setup", "setup": setup_json(&s)}),
            )
        }
        Op::SetupEvent(n, ev) => {
            dev.setup_event(*n, ev)?;
            let s = dev.get(*n)?;
            (
                format!("setup {n}: {s}"),
                json!({"op": "setup", "setup": setup_json(&s)}),
            )
        }
        Op::Get(n) => {
            let s = dev.get(*n)?;
            let running = dev.is_running(*n)?;
            (
                format!(
                    "get {n}: {s}{}",
                    if running { " [running]" } else { " [stopped]" }
                ),
                json!({"op": "get", "setup": setup_json(&s), "running": running}),
            )
        }
        Op::Start(n) => {
            dev.start(*n)?;
            (format!("start {n}"), json!({"op": "start", "counter": n}))
        }
        Op::Stop(n) => {
            dev.stop(*n)?;
            (format!("stop {n}"), json!({"op": "stop", "counter": n}))
        }
        Op::Reset(n) => {
            dev.reset(*n)?;
            (format!("reset {n}"), json!({"op": "reset", "counter": n}))
        }
        Op::Read(n) => {
            let v = dev.read(*n)?;
            (
                format!("read {n}: {v}"),
                json!({"op": "read", "counter": n, "value": v}),
            )
        }
        Op::Tstamp => {
            let t = dev.tstamp()?;
            let src = match t.source {
                RateSource::Kernel => "kernel",
                RateSource::Measured => "measured",
            };
            (
                format!(
                    "tstamp: {} (rate about {} MHz, {src}; approximate)",
                    t.value, t.rate_mhz
                ),
                json!({"op": "tstamp", "value": t.value, "rate_mhz": t.rate_mhz, "rate_source": src}),
            )
        }
        Op::Spin(ms) => {
            spin(*ms);
            (format!("spin {ms}"), json!({"op": "spin", "ms": ms}))
        }
        Op::Sleep(ms) => {
            std::thread::sleep(Duration::from_millis(*ms));
            (format!("sleep {ms}"), json!({"op": "sleep", "ms": ms}))
        }
    })
}

/// The operation's word and its counter, if it takes one.
fn op_word(op: &Op) -> (&'static str, Option<usize>) {
    match op {
        Op::Npmc => ("npmc", None),
        Op::SetupRaw(p) => ("setup", Some(p.num)),
        Op::SetupEvent(n, _) => ("setup", Some(*n)),
        Op::Get(n) => ("get", Some(*n)),
        Op::Start(n) => ("start", Some(*n)),
        Op::Stop(n) => ("stop", Some(*n)),
        Op::Reset(n) => ("reset", Some(*n)),
        Op::Read(n) => ("read", Some(*n)),
        Op::Tstamp => ("tstamp", None),
        Op::Spin(_) => ("spin", None),
        Op::Sleep(_) => ("sleep", None),
    }
}

/// `v` with `ok`, the operation's `op` word and its `counter` (when it
/// takes one): the members every `--json` line of an operation has, in
/// success and failure alike.
fn tagged(mut v: Value, op: &Op, ok: bool) -> Value {
    let (word, counter) = op_word(op);
    if let Some(o) = v.as_object_mut() {
        o.insert("ok".into(), ok.into());
        o.insert("op".into(), word.into());
        if let Some(n) = counter {
            o.insert("counter".into(), n.into());
        }
    }
    v
}

/// Exit status of operations that cannot be read or parsed.
const EXIT_USAGE: u8 = 2;
/// Exit status of an operation that failed.
const EXIT_FAILED: u8 = 1;

/// The message when neither the command line nor the file gives an operation.
const NO_OPERATION: &str = "no operation: try `pfm counters npmc tstamp` or `pfm counters --help`";

/// A usage failure: the shared JSON object with `--json` (status 2), else
/// an error for `main` to print (status 2 too).
fn usage(out: &mut impl Write, json: bool, message: String) -> anyhow::Result<ExitCode> {
    if json {
        writeln!(out, "{}", crate::input::error_json("usage", &message))?;
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    bail!("{message}")
}

/// Runs operations in order, printing (and flushing) each answer; the exit
/// status of the first that fails, if one does.
fn run_ops(
    dev: &mut CounterDevice,
    ops: &[Op],
    json: bool,
    out: &mut impl Write,
) -> anyhow::Result<Option<ExitCode>> {
    for op in ops {
        match apply(dev, op) {
            Ok((text, v)) => {
                if json {
                    writeln!(out, "{}", tagged(v, op, true))?;
                } else {
                    writeln!(out, "{text}")?;
                }
                out.flush()?;
            }
            Err(e) => {
                let (word, counter) = op_word(op);
                if json {
                    let kind = if e.is_not_supported() {
                        "not_supported"
                    } else {
                        "failed"
                    };
                    let v = tagged(crate::input::error_json(kind, &e.to_string()), op, false);
                    writeln!(out, "{v}")?;
                } else {
                    out.flush()?;
                    let name = counter.map_or_else(|| word.to_string(), |n| format!("{word} {n}"));
                    warn!("pfm counters: {name}: {e}");
                }
                return Ok(Some(ExitCode::from(EXIT_FAILED)));
            }
        }
    }
    Ok(None)
}

/// The operations of one line of a file (`#` starts a comment).
fn line_ops(line: &str) -> Result<Vec<Op>, String> {
    let words: Vec<String> = line
        .split('#')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    parse_ops(&words)
}

pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let ops = match parse_ops(&a.ops) {
        Ok(ops) => ops,
        Err(e) => return usage(&mut out, a.json, e),
    };
    let lines = a.file.as_deref().map(crate::input::Lines::open).transpose();
    let mut lines = match lines {
        Ok(l) => l,
        Err(e) => return usage(&mut out, a.json, format!("{e:#}")),
    };
    if ops.is_empty() && lines.is_none() {
        return usage(&mut out, a.json, NO_OPERATION.into());
    }
    let target = match (a.pid, a.cpu) {
        (Some(p), _) => Target::Task(p),
        (None, Some(c)) => Target::Cpu(c),
        (None, None) => Target::CallingThread,
    };
    let npmc = a.npmc.map_or_else(|| host_npmc(lib), usize::from);
    let mut dev = CounterDevice::with(npmc, target);
    // The command line's operations first, then the file's, each line run
    // as soon as it is read.
    if let Some(code) = run_ops(&mut dev, &ops, a.json, &mut out)? {
        return Ok(code);
    }
    let mut ran = ops.len();
    if let Some(lines) = lines.as_mut() {
        loop {
            let ops = match lines.next_line() {
                Ok(Some(line)) => line_ops(&line).map_err(|e| format!("{}: {e}", lines.position())),
                Ok(None) => break,
                Err(e) => Err(format!("{e:#}")),
            };
            let ops = match ops {
                Ok(ops) => ops,
                Err(e) => return usage(&mut out, a.json, e),
            };
            if let Some(code) = run_ops(&mut dev, &ops, a.json, &mut out)? {
                return Ok(code);
            }
            ran += ops.len();
        }
    }
    if ran == 0 {
        return usage(&mut out, a.json, NO_OPERATION.into());
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn ops_parse() {
        let ops = parse_ops(&toks("setup 0 event=0xc0 unit=0x01 flags=usr,e mask=2 start 0 read 0 setup 1 task-clock tstamp")).unwrap();
        assert_eq!(
            ops[0],
            Op::SetupRaw(Pmc {
                num: 0,
                event: 0xc0,
                unit: 1,
                flags: PmcFlags::USR | PmcFlags::E,
                mask: 2
            })
        );
        assert_eq!(ops[1], Op::Start(0));
        assert_eq!(ops[2], Op::Read(0));
        assert_eq!(ops[3], Op::SetupEvent(1, "task-clock".into()));
        assert_eq!(ops[4], Op::Tstamp);
        // Default flags: usr,os.
        assert_eq!(
            parse_ops(&toks("setup 2 event=0x3c")).unwrap()[0],
            Op::SetupRaw(Pmc {
                num: 2,
                event: 0x3c,
                flags: PmcFlags::USR | PmcFlags::OS,
                ..Pmc::default()
            })
        );
        for bad in [
            "read",
            "read x",
            "setup 0",
            "setup 0 event=0x100",
            "setup 0 event=1 flags=usr,zz",
            "frobnicate",
            "spin -1",
            "read 99999999999999999999999",
        ] {
            assert!(parse_ops(&toks(bad)).is_err(), "{bad}");
        }
    }
}
