//! The formats against reports pinned from the single-file `pfm stat` this
//! module replaced (`golden.txt`): four synthetic sessions (one run, three
//! runs with multiplexing and gaps, zero times, large counts) in text, CSV
//! with two separators and JSON.

use super::record::{NOT_COUNTED, NOT_SUPPORTED};
use super::*;
use crate::stat::kind::{Kind, Scaled};
use crate::stat::run::RunEnd;
use crate::stat::stats::EventStats;
use pfmlib_perf::Reading;
use std::cell::RefCell;
use std::rc::Rc;

/// A writer whose bytes the test can read after the report has it.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// (value, enabled, running) of one run; `None`: not open.
type Run = Option<(u64, u64, u64)>;

struct Ev {
    name: &'static str,
    kind: Kind,
    unsupported: Option<&'static str>,
    runs: Vec<Run>,
    /// `.scale` and `.unit`, for a scaled event.
    scaled: Option<(f64, &'static str)>,
}

struct Session {
    title: &'static str,
    workload: bool,
    elapsed_ns: Vec<u64>,
    events: Vec<Ev>,
}

fn ev(name: &'static str, kind: Kind, runs: Vec<Run>) -> Ev {
    Ev {
        name,
        kind,
        unsupported: None,
        runs,
        scaled: None,
    }
}

fn unsupported(name: &'static str, kind: Kind, reason: &'static str, runs: usize) -> Ev {
    Ev {
        name,
        kind,
        unsupported: Some(reason),
        runs: vec![None; runs],
        scaled: None,
    }
}

fn one_run() -> Session {
    use Kind::*;
    let s = |v| vec![Some((v, 10, 10))];
    Session {
        title: "'ls /'",
        workload: true,
        elapsed_ns: vec![4_000_000],
        events: vec![
            ev("task-clock", Clock, s(2_000_000)),
            ev("context-switches", SwRate, s(3)),
            ev("cpu-migrations", SwRate, s(0)),
            ev("page-faults", SwRate, s(100)),
            ev("cycles", Cycles, vec![Some((4_000_000, 100, 25))]),
            unsupported("instructions", Instructions, "no PMU \"here\"", 1),
            ev("branches", Branches, vec![Some((0, 0, 0))]),
            ev("branch-misses", BranchMisses, vec![Some((7, 5, 5))]),
            ev(
                "nhm::ARITH:MUL:a_very_long_event_name_indeed_xx",
                Other,
                vec![Some((123456789, 7, 7))],
            ),
        ],
    }
}

fn three_runs() -> Session {
    use Kind::*;
    let s = |a, b, c| vec![Some((a, 10, 10)), Some((b, 10, 10)), Some((c, 10, 10))];
    Session {
        title: "'true'",
        workload: true,
        elapsed_ns: vec![1_000_000, 1_500_000, 900_000],
        events: vec![
            ev(
                "task-clock",
                Clock,
                vec![
                    Some((800_000, 800_000, 800_000)),
                    Some((1_200_000, 5, 5)),
                    Some((700_001, 9, 9)),
                ],
            ),
            ev(
                "page-faults",
                SwRate,
                vec![Some((10, 1, 1)), Some((12, 1, 1)), Some((14, 1, 1))],
            ),
            ev(
                "cycles",
                Cycles,
                vec![
                    Some((3_000_000, 10, 10)),
                    Some((0, 10, 0)),
                    Some((2_000_000, 10, 3)),
                ],
            ),
            ev(
                "instructions",
                Instructions,
                s(6_000_000, 5_000_000, 4_000_000),
            ),
            ev(
                "branches",
                Branches,
                s(1_000_000_000, 2_000_000_000, 3_000_000),
            ),
            ev("branch-misses", BranchMisses, s(5_000, 6_000, 7_000)),
            ev("cpu-clock", Clock, vec![Some((0, 0, 0)); 3]),
            unsupported("ref-cycles", Other, "unschedulable", 3),
            ev("nhm::X:u", Other, vec![None, Some((5, 4, 2)), None]),
        ],
    }
}

fn zero_time() -> Session {
    use Kind::*;
    let s = |v| vec![Some((v, 10, 10))];
    Session {
        title: "'system wide'",
        workload: false,
        elapsed_ns: vec![0],
        events: vec![
            ev("cpu-clock", Clock, s(0)),
            ev("context-switches", SwRate, s(999)),
            ev("cycles", Cycles, s(77)),
            ev("instructions", Instructions, s(50)),
            ev("branch-misses", BranchMisses, s(3)),
            ev("branches", Branches, s(0)),
        ],
    }
}

fn large_counts() -> Session {
    use Kind::*;
    let s = |a, b| vec![Some((a, 10, 10)), Some((b, 10, 10))];
    Session {
        title: "process id '1,2'",
        workload: false,
        elapsed_ns: vec![2_000_000_000, 3_000_000_000],
        events: vec![
            ev("task-clock", Clock, s(1_999_999_999, 2_999_999_999)),
            ev("page-faults", SwRate, s(5_000_000, 6_000_001)),
            ev("context-switches", SwRate, s(5_000, 7_000)),
            ev("cpu-migrations", SwRate, vec![Some((0, 0, 0)); 2]),
            ev("cycles", Cycles, s(u64::MAX / 4, 1)),
        ],
    }
}

/// Runs `s` through the tally and a report in `format`, as `pfm stat` does.
fn render(s: &Session, format: Format) -> String {
    let buf = Shared::default();
    let mut report = Report::to(Box::new(buf.clone()), format);
    let events = s
        .events
        .iter()
        .map(|e| {
            let scaled = e.scaled.map(|(factor, unit)| Scaled {
                factor,
                unit: unit.into(),
            });
            EventStats::new(e.name.into(), e.kind).with_scaled(scaled)
        })
        .collect();
    let mut lines = vec![Line {
        label: None,
        units: vec![0],
        tally: crate::stat::stats::Tally::new(events),
    }];
    for (r, &ns) in s.elapsed_ns.iter().enumerate() {
        let tally = &mut lines[0].tally;
        for (st, e) in tally.events.iter_mut().zip(&s.events) {
            st.unsupported = e.unsupported.map(String::from);
        }
        let readings: Vec<Option<Reading>> = s
            .events
            .iter()
            .map(|e| {
                e.runs[r].map(|(value, time_enabled, time_running)| {
                    Reading::new(value, time_enabled, time_running)
                })
            })
            .collect();
        let end = RunEnd {
            elapsed: Duration::from_nanos(ns),
            user: Duration::from_micros(1_234_567),
            sys: Duration::from_nanos(89),
            code: 0,
        };
        let run_no = r as u32 + 1;
        tally.add_run(&readings, end);
        report.after_run(run_no, &lines, end.elapsed).unwrap();
    }
    report.finish(&lines, s.title, s.workload).unwrap();
    let bytes = buf.0.borrow().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn every_format_as_pinned() {
    let mut all = String::new();
    let sessions = [one_run(), three_runs(), zero_time(), large_counts()];
    for (si, s) in sessions.iter().enumerate() {
        let formats = [
            Format::Text,
            Format::Csv(",".into()),
            Format::Csv(";;".into()),
            Format::Json,
        ];
        for (fi, f) in formats.into_iter().enumerate() {
            all.push_str(&format!("=== scenario {si} format {fi}\n"));
            all.push_str(&render(s, f));
        }
    }
    if std::env::var_os("PFM_BLESS_GOLDEN").is_some() {
        // Rewrites the pinned reports after a deliberate change (review the diff).
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/stat/output/golden.txt");
        std::fs::write(path, &all).unwrap();
        return;
    }
    let want = include_str!("golden.txt");
    if all != want {
        let at = all
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "line {}: got\n{}\nwant\n{}",
            at + 1,
            all.lines().nth(at).unwrap_or("(end)"),
            want.lines().nth(at).unwrap_or("(end)")
        );
    }
}

#[test]
fn text_lines() {
    let s = one_run();
    let text = render(&s, Format::Text);
    let line_of = |ev: &str| {
        text.lines()
            .find(|l| l.split_whitespace().any(|w| w == ev))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        line_of("task-clock"),
        "              2.00 msec task-clock                       #    0.500 CPUs utilized"
    );
    assert_eq!(
        line_of("page-faults"),
        "               100      page-faults                      #   50.000 K/sec"
    );
    let l = line_of("cycles");
    assert!(
        l.contains("#    8.000 GHz") && l.ends_with("  (25.00%)"),
        "{l}"
    );
    assert_eq!(
        line_of("instructions"),
        format!("   {NOT_SUPPORTED}      instructions")
    );
    assert_eq!(
        line_of("branches"),
        format!("     {NOT_COUNTED}      branches")
    );
    let text = render(&three_runs(), Format::Text);
    let pf = text
        .lines()
        .find(|l| l.contains("page-faults"))
        .unwrap_or_default();
    assert!(pf.ends_with("( +-  9.62% )"), "{pf}");
}

/// A hybrid host (perf's Intel hybrid support): each generic hardware
/// event once per core type, named `cpu_core/…/` and `cpu_atom/…/`, each
/// scaled by its own running time, ratios within one core type.
#[test]
fn hybrid_lines() {
    use Kind::*;
    let s = Session {
        title: "'./a.out'",
        workload: true,
        elapsed_ns: vec![4_000_000],
        events: vec![
            ev("task-clock", Clock, vec![Some((2_000_000, 10, 10))]),
            ev("cpu_core/cycles/", Cycles, vec![Some((3_000_000, 100, 75))]),
            ev("cpu_atom/cycles/", Cycles, vec![Some((500_000, 100, 25))]),
            ev(
                "cpu_core/instructions/",
                Instructions,
                vec![Some((6_000_000, 100, 75))],
            ),
            ev(
                "cpu_atom/instructions/",
                Instructions,
                vec![Some((250_000, 100, 25))],
            ),
        ],
    };
    let text = render(&s, Format::Text);
    let line_of = |ev: &str| {
        text.lines()
            .find(|l| l.split_whitespace().any(|w| w == ev))
            .unwrap_or_default()
            .to_string()
    };
    let l = line_of("cpu_core/cycles/");
    assert!(l.contains("4,000,000") || l.contains("4000000"), "{l}");
    assert!(l.ends_with("  (75.00%)"), "{l}");
    let l = line_of("cpu_atom/cycles/");
    assert!(l.ends_with("  (25.00%)"), "{l}");
    // Instructions per cycle of each core type: 8M/4M and 1M/2M.
    assert!(
        line_of("cpu_core/instructions/").contains("#    2.000 insn per cycle"),
        "{text}"
    );
    assert!(
        line_of("cpu_atom/instructions/").contains("#    0.500 insn per cycle"),
        "{text}"
    );
}

/// RAPL's architectural energy unit, 2⁻³² J.
const TICK_JOULES: f64 = 1.0 / 4_294_967_296.0;

fn scaled(name: &'static str, factor: f64, unit: &'static str, runs: Vec<Run>) -> Ev {
    Ev {
        scaled: Some((factor, unit)),
        ..ev(name, Kind::Other, runs)
    }
}

/// System-wide energy, memory traffic in MiB and a plain count, once and
/// over two runs.
fn energy(runs: usize) -> Session {
    let r = |v: u64| {
        (0..runs as u64)
            .map(|i| Some((v + i * v / 10, 10, 10)))
            .collect()
    };
    Session {
        title: "'system wide'",
        workload: false,
        elapsed_ns: vec![1_000_000_000; runs],
        events: vec![
            scaled(
                "power/energy-pkg/",
                TICK_JOULES,
                "Joules",
                r(53_000_000_000),
            ),
            scaled("power/energy-ram/", 1.0 / 65_536.0, "Joules", r(100_000)),
            scaled(
                "uncore_imc_0/cas_count_read/",
                6.103515625e-5,
                "MiB",
                r(1_000_000),
            ),
            scaled("bytes/", 64.0, "B", r(3)),
            ev("msr/tsc/", Kind::Other, r(1000)),
        ],
    }
}

#[test]
fn scaled_events_as_perf_prints_them() {
    let text = render(&energy(1), Format::Text);
    let body: Vec<&str> = text.lines().skip(3).take(5).collect();
    assert_eq!(
        body,
        [
            "             12.34 Joules power/energy-pkg/",
            "              1.53 Joules power/energy-ram/",
            "             61.04 MiB    uncore_imc_0/cas_count_read/",
            "               192 B      bytes/",
            "              1000        msr/tsc/",
        ],
        "{text}"
    );
    let csv = render(&energy(1), Format::Csv(",".into()));
    assert_eq!(
        csv.lines().collect::<Vec<_>>(),
        [
            "12.34,Joules,power/energy-pkg/,10,100.00,,",
            "1.53,Joules,power/energy-ram/,10,100.00,,",
            "61.04,MiB,uncore_imc_0/cas_count_read/,10,100.00,,",
            "192,B,bytes/,10,100.00,,",
            "1000,,msr/tsc/,10,100.00,,",
        ]
    );
    let json = render(&energy(1), Format::Json);
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(first["unit"], "Joules");
    assert_eq!(first["raw-counter-value"], 53_000_000_000u64);
    let v = first["counter-value"].as_f64().unwrap();
    assert!((v - 53e9 * TICK_JOULES).abs() < 1e-9, "{v}");
    let tsc: serde_json::Value = serde_json::from_str(json.lines().nth(4).unwrap()).unwrap();
    assert!(tsc.get("raw-counter-value").is_none(), "{tsc}");
    assert_eq!(tsc["counter-value"], 1000);
}

#[test]
fn scaled_summaries_keep_the_mean_and_spread_in_the_unit() {
    let text = render(&energy(2), Format::Text);
    let pkg = text.lines().find(|l| l.contains("energy-pkg")).unwrap();
    // (53e9 + 58.3e9) / 2 ticks = 12.96 J, +- 4.76 %.
    assert_eq!(
        pkg,
        "             12.96 Joules power/energy-pkg/                                              ( +-  4.76% )"
    );
    let json = render(&energy(2), Format::Json);
    let sum: serde_json::Value = serde_json::from_str(
        json.lines()
            .find(|l| l.contains("\"summary\"") && l.contains("energy-pkg"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(sum["raw-counter-value"], 55_650_000_000.0);
    let var = sum["variance"].as_f64().unwrap();
    let want = (5.3e9f64 * 5.3e9 / 2.0) * TICK_JOULES * TICK_JOULES;
    assert!((var - want).abs() < want * 1e-9, "{var} {want}");
}

/// The report of one run of `events` counted on `per_unit` (each unit's
/// reading of each event: value, enabled = running), one line per label.
fn render_lines(
    labels: Vec<(Option<crate::stat::aggr::Label>, Vec<usize>)>,
    events: &[(&'static str, Kind)],
    per_unit: &[Vec<u64>],
    format: Format,
    style: Style,
) -> String {
    let buf = Shared::default();
    let mut report = Report::styled(Box::new(buf.clone()), format, style);
    let stats: Vec<EventStats> = events
        .iter()
        .map(|(n, k)| EventStats::new((*n).into(), *k))
        .collect();
    let buckets = labels
        .into_iter()
        .map(|(label, units)| crate::stat::aggr::Bucket { label, units })
        .collect();
    let mut lines = Line::of(buckets, &stats);
    let per_unit: Vec<Vec<Option<Reading>>> = per_unit
        .iter()
        .map(|u| {
            u.iter()
                .map(|&v| Some(Reading::new(v, 1000, 1000)))
                .collect()
        })
        .collect();
    let end = RunEnd {
        elapsed: Duration::from_nanos(1_000_000),
        user: Duration::ZERO,
        sys: Duration::ZERO,
        code: 0,
    };
    for line in lines.iter_mut() {
        let r = line.readings(&per_unit);
        line.tally.add_run(&r, end);
    }
    report.after_run(1, &lines, end.elapsed).unwrap();
    report.finish(&lines, "'system wide'", false).unwrap();
    report.interval(Duration::from_millis(100), &lines).unwrap();
    let bytes = buf.0.borrow().clone();
    String::from_utf8(bytes).unwrap()
}

fn plain() -> Style {
    Style::default()
}

fn threads_of_all() -> Style {
    Style {
        skip_zero: true,
        ..Style::default()
    }
}

fn label(name: &str, key: &'static str, nr: Option<usize>) -> Option<crate::stat::aggr::Label> {
    let json = match key {
        "cpu" => name.trim_start_matches("CPU").to_string(),
        _ => name.to_string(),
    };
    Some(crate::stat::aggr::Label {
        name: name.into(),
        key,
        nr,
        json,
    })
}

/// `--per-die` and `--per-node` lines as perf 6 prints them (checked
/// against perf 6.1 on this VM: `S0-D0           2`, `N0        2`, the
/// interval headers, the CSV and JSON keys).
#[test]
fn die_and_node_lines() {
    use Kind::SwRate;
    let units = vec![vec![10], vec![20], vec![30], vec![40]];
    let dies = || {
        vec![
            (label("S0-D0", "die", Some(2)), vec![0, 1]),
            (label("S1-D1", "die", Some(2)), vec![2, 3]),
        ]
    };
    let ev = [("page-faults", SwRate)];
    let text = render_lines(dies(), &ev, &units, Format::Text, plain());
    assert!(
        text.contains("\nS0-D0           2                 30      page-faults"),
        "{text}"
    );
    assert!(text.contains("\nS1-D1           2                 70      page-faults"));
    assert!(text.contains(
        "#           time die          cpus             counts unit events\n     0.100000000 S0-D0           2                 30      page-faults"
    ), "{text}");
    let csv = render_lines(dies(), &ev, &units, Format::Csv(",".into()), plain());
    assert!(
        csv.contains("\nS1-D1,2,70,,page-faults,2000,100.00"),
        "{csv}"
    );
    let json = render_lines(dies(), &ev, &units, Format::Json, plain());
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(first["die"], "S0-D0");
    assert_eq!(first["aggregate-number"], 2);
    let nodes = vec![
        (label("N0", "node", Some(3)), vec![0, 1, 3]),
        (label("N1", "node", Some(1)), vec![2]),
    ];
    let text = render_lines(nodes.clone(), &ev, &units, Format::Text, plain());
    assert!(
        text.contains("\nN0        3                 70      page-faults"),
        "{text}"
    );
    assert!(text.contains("#           time node   cpus             counts unit events\n"));
    let csv = render_lines(nodes.clone(), &ev, &units, Format::Csv(";".into()), plain());
    assert!(csv.contains("\nN1;1;30;;page-faults;"), "{csv}");
    let json = render_lines(nodes, &ev, &units, Format::Json, plain());
    assert!(json.contains(r#""node":"N1""#), "{json}");
}

/// `--per-thread -a`: each thread's events that counted nothing are left
/// out (perf: "otherwise too many 0 output"), in every format; with -p/-t
/// (no skipping) the zeros stay.
#[test]
fn system_wide_threads_leave_out_what_counted_nothing() {
    use Kind::*;
    let threads = || {
        vec![
            (label("systemd-1", "thread", None), vec![0]),
            (label("kworker/0:1-12", "thread", None), vec![1]),
            (label("sleep-4242", "thread", None), vec![2]),
        ]
    };
    let ev = [("cpu-clock", Clock), ("page-faults", SwRate)];
    let units = vec![vec![0, 0], vec![2_000_000, 0], vec![1_000_000, 77]];
    let text = render_lines(threads(), &ev, &units, Format::Text, threads_of_all());
    assert!(!text.contains("systemd-1"), "{text}");
    assert!(
        text.contains("\n     kworker/0:1-12                     2.00 msec cpu-clock"),
        "{text}"
    );
    assert!(
        text.contains("\n           sleep-4242                     77      page-faults"),
        "{text}"
    );
    assert_eq!(
        text.matches("page-faults").count(),
        2,
        "summary and interval: {text}"
    );
    assert!(
        text.contains("#           time             comm-pid                  counts unit events")
    );
    let csv = render_lines(
        threads(),
        &ev,
        &units,
        Format::Csv(",".into()),
        threads_of_all(),
    );
    let rows: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains("-clock,") || l.contains(",page-faults,"))
        .collect();
    assert_eq!(rows.len(), 6, "three pairs, summary and interval: {csv}");
    let json = render_lines(threads(), &ev, &units, Format::Json, threads_of_all());
    assert_eq!(
        json.lines().count(),
        6,
        "three pairs, run and interval: {json}"
    );
    assert!(!json.contains("systemd-1"));
    let all = render_lines(threads(), &ev, &units, Format::Csv(",".into()), plain());
    assert!(all.contains("systemd-1,0.00,msec,cpu-clock"), "{all}");
    // -M: a thread that counted nothing has no metric line either.
    let style = Style {
        metrics: crate::stat::metricdefs::resolve(&["CPUs_utilized".into()]).unwrap(),
        ..threads_of_all()
    };
    let text = render_lines(threads(), &ev, &units, Format::Text, style);
    assert_eq!(text.matches("CPUs_utilized").count(), 2, "{text}");
}
