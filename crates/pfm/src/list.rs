//! `pfm list`: PMUs, events, unit masks and modifiers, all of them or those
//! whose names match shell-style patterns, in full or one line per event.

use crate::cli::{self, OsArg};
use crate::pattern::EventPattern;
use crate::pattern_set::PatternSet;
use pfmlib::{AttrType, Event, Library, Os, Pmu, PmuKind};
use serde_json::Value;
use std::io::Write;
use std::process::ExitCode;

/// What `pfm list --help` says about patterns.
const PATTERN_HELP: &str = "\
Patterns:
  A pattern without `::` matches event names on every PMU searched; `PMU::EVENT`
  matches both parts. `*` matches any run of characters, `?` one character,
  `[...]` one character of a set (`[ab]`, `[a-z]`, `[!ab]` or `[^ab]` for any
  other); case is ignored, as in event strings. Quote patterns from the shell.
  An event is listed when it matches any pattern.

  The PMUs searched are those present on this host; with --all, every PMU
  pfmlib knows; with --pmu, that one. A pattern whose PMU part is a plain name
  (`nhm::INST*`) also searches that PMU, present or not.

  Exit status: 0 when something is listed, 1 when no event matches (with a
  message; a pattern that matches nothing beside others that do is reported
  on standard error), 2 for a bad pattern or an unknown --pmu.

Examples:
  pfm list '*cycles*'                 events with CYCLES in their name
  pfm list --compact 'perf::*'        the perf_events generic events, one a line
  pfm list --all 'arm_n1::L1D*'       any PMU pfmlib knows, present or not
  pfm list -c --umasks 'nhm::MEM_*'   one line per unit mask";

/// `pfm list`'s arguments.
#[derive(clap::Args)]
#[command(after_long_help = PATTERN_HELP)]
pub struct Args {
    /// Only events whose names match one of these patterns (`EVENT` or
    /// `PMU::EVENT`, with `*`, `?`, `[...]`; see --help).
    #[arg(value_name = "PATTERN")]
    patterns: Vec<String>,
    /// Only this PMU (any PMU pfmlib knows, present or not).
    #[arg(long)]
    pmu: Option<String>,
    /// Every PMU pfmlib knows, not only those present on this host.
    #[arg(long, conflicts_with = "pmu")]
    all: bool,
    /// Attributes as offered by this OS layer.
    #[arg(long, value_enum, default_value = "none")]
    os: OsArg,
    /// One JSON document instead of text (the patterns apply).
    #[arg(long)]
    json: bool,
    /// One line per event, `PMU::EVENT  CODE  DESCRIPTION`, without the host
    /// line and PMU headers.
    #[arg(long, short = 'c', conflicts_with = "json")]
    compact: bool,
    /// With --compact: also one line per unit mask, `PMU::EVENT:UMASK  CODE  DESCRIPTION`.
    #[arg(long, requires = "compact")]
    umasks: bool,
}

/// A PMU with the events to list.
struct Listed<'a> {
    pmu: Pmu<'a>,
    events: Vec<Event<'a>>,
}

/// Lists the PMUs and events `a` selects; the exit status (see [`PATTERN_HELP`]).
pub fn run(lib: &Library, a: Args) -> anyhow::Result<ExitCode> {
    let os: Os = a.os.into();
    let patterns = a
        .patterns
        .iter()
        .map(|p| EventPattern::parse(p))
        .collect::<Result<Vec<_>, _>>()?;
    let searched = searched_pmus(lib, &a, &patterns)?;
    let set = PatternSet::new(&patterns, 0..patterns.len());
    let mut hits = vec![0usize; patterns.len()];
    // PMU by PMU, each written before the next is selected.
    let listed = searched
        .iter()
        .filter_map(|p| select(*p, &patterns, &set, &mut hits));
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if a.json {
        let mut host = serde_json::to_value(lib.host()).unwrap_or(Value::Null);
        // The running machine's brand string is read when asked.
        if let Some(obj) = host.as_object_mut() {
            obj.insert("brand".into(), serde_json::json!(lib.host().brand_string()));
        }
        let pmus = listed.map(|l| {
            let events = l.events.into_iter().map(move |e| event_json(&e, os));
            (pmu_json(&l.pmu), events)
        });
        crate::list_json::write_list(&mut out, host, pmus)?;
    } else if a.compact {
        write_compact(&mut out, &listed.collect::<Vec<_>>(), os, a.umasks)?;
    } else {
        write_full(&mut out, lib, listed, os, !patterns.is_empty())?;
    }
    out.flush()?;
    if patterns.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    Ok(report_misses(lib, &a, &patterns, &hits, &searched))
}

/// The PMUs to search: --pmu's, all, or the active ones, and the PMUs named
/// plainly in the patterns' PMU parts.
fn searched_pmus<'a>(
    lib: &'a Library,
    a: &Args,
    patterns: &[EventPattern],
) -> anyhow::Result<Vec<Pmu<'a>>> {
    if let Some(name) = &a.pmu {
        return match lib.pmu(name) {
            Some(p) => Ok(vec![p]),
            None => {
                let close = cli::closest(name, lib.pmus().map(|p| p.name()), 8);
                let hint = if close.is_empty() {
                    "`pfm list --all` lists every PMU".to_string()
                } else {
                    format!(
                        "did you mean {}? `pfm list --all` lists every PMU",
                        close.join(", ")
                    )
                };
                anyhow::bail!("unknown PMU {}: {hint}", cli::quoted(name));
            }
        };
    }
    let mut pmus: Vec<Pmu> = if a.all {
        lib.pmus().collect()
    } else {
        lib.active_pmus().collect()
    };
    let named = patterns
        .iter()
        .filter_map(|p| p.pmu.as_ref()?.literal())
        .filter_map(|n| lib.pmu(&n));
    for p in named {
        if !pmus.iter().any(|q| q.id() == p.id()) {
            pmus.push(p);
        }
    }
    Ok(pmus)
}

/// The events of `pmu` the patterns (`set`) select (all without patterns),
/// counting each pattern's matches; `None` when there are none.
fn select<'a>(
    pmu: Pmu<'a>,
    patterns: &[EventPattern],
    set: &PatternSet,
    hits: &mut [usize],
) -> Option<Listed<'a>> {
    if patterns.is_empty() {
        let events = pmu.events().collect();
        return Some(Listed { pmu, events });
    }
    let m = set.for_pmu(pmu.name());
    if m.is_empty() {
        return None;
    }
    let events: Vec<Event> = pmu
        .events()
        .filter(|e| {
            let mut any = false;
            m.each_match(e.name(), |i| {
                hits[i] += 1;
                any = true;
            });
            any
        })
        .collect();
    (!events.is_empty()).then_some(Listed { pmu, events })
}

/// Says which patterns matched nothing; the exit status: 1 when none matched.
fn report_misses(
    lib: &Library,
    a: &Args,
    patterns: &[EventPattern],
    hits: &[usize],
    searched: &[Pmu],
) -> ExitCode {
    let listed_any = hits.iter().any(|&n| n > 0);
    let missed = (0..patterns.len()).filter(|&i| hits[i] == 0);
    let elsewhere = if a.pmu.is_some() || a.all {
        vec![0; patterns.len()]
    } else {
        matches_elsewhere(lib, patterns, missed.clone(), searched)
    };
    for i in missed {
        let quoted = cli::quoted(&patterns[i].text);
        if let Some(pmu) = &a.pmu {
            warn!("pfm: no event matches {quoted} on PMU {}", cli::quoted(pmu));
            continue;
        }
        let elsewhere = elsewhere[i];
        if elsewhere > 0 {
            warn!("pfm: no event matches {quoted} on the PMUs present here ({elsewhere} on other PMUs: add --all)");
        } else {
            warn!("pfm: no event matches {quoted} on any PMU pfmlib knows");
        }
    }
    if listed_any {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// For each pattern, how many events of the PMUs not `searched` the
/// patterns `which` match (0 for the others): one pass over those PMUs.
fn matches_elsewhere(
    lib: &Library,
    patterns: &[EventPattern],
    which: impl IntoIterator<Item = usize>,
    searched: &[Pmu],
) -> Vec<usize> {
    let set = PatternSet::new(patterns, which);
    let mut counts = vec![0; patterns.len()];
    for q in lib.pmus() {
        if searched.iter().any(|s| s.id() == q.id()) {
            continue;
        }
        let m = set.for_pmu(q.name());
        if m.is_empty() {
            continue;
        }
        for e in q.events() {
            m.each_match(e.name(), |i| counts[i] += 1);
        }
    }
    counts
}

/// The PMU kind in words.
fn kind_words(k: PmuKind) -> &'static str {
    match k {
        PmuKind::Core => "core",
        PmuKind::Uncore => "uncore",
        PmuKind::OsGeneric => "OS generic",
        PmuKind::Unknown => "unknown",
        _ => "other",
    }
}

/// `n` and the noun, singular or plural.
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The full text: the host line, then each PMU's header and events.
fn write_full<'a>(
    out: &mut impl Write,
    lib: &Library,
    listed: impl Iterator<Item = Listed<'a>>,
    os: Os,
    filtered: bool,
) -> std::io::Result<()> {
    writeln!(out, "{}", cli::host_line(lib))?;
    let mut none = true;
    for l in listed {
        none = false;
        write_pmu_header(out, &l.pmu, filtered.then_some(l.events.len()))?;
        for e in &l.events {
            write_event(out, e, os)?;
        }
    }
    if none && !filtered {
        writeln!(
            out,
            "No PMU is active on this host; use --all or --pmu NAME to see the others."
        )?;
    }
    Ok(())
}

/// One line per event (and per unit mask with `umasks`), names aligned.
fn write_compact(
    out: &mut impl Write,
    listed: &[Listed],
    os: Os,
    umasks: bool,
) -> std::io::Result<()> {
    let mut lines: Vec<(String, u64, &str)> = Vec::new();
    for e in listed.iter().flat_map(|l| &l.events) {
        let name = format!("{}::{}", e.pmu().name(), e.name());
        if umasks {
            let attrs = e.attrs(os);
            let masks = attrs.iter().filter(|u| u.attr_type == AttrType::Umask);
            let masks: Vec<_> = masks
                .map(|u| (format!("{name}:{}", u.name), u.code, u.desc))
                .collect();
            lines.push((name, e.code(), e.desc()));
            lines.extend(masks);
        } else {
            lines.push((name, e.code(), e.desc()));
        }
    }
    let width = lines.iter().map(|l| l.0.len()).max().unwrap_or(0).min(60);
    for (name, code, desc) in &lines {
        writeln!(out, "{name:<width$}  {:<10}  {desc}", format!("{code:#x}"))?;
    }
    Ok(())
}

/// A PMU's JSON without its events: its information, and for a hybrid core
/// PMU the kernel PMU it counts with and its CPUs (the events listed are
/// written after it, under `events`, by [`crate::list_json`]).
pub fn pmu_json(p: &Pmu) -> Value {
    let mut v = serde_json::to_value(p.info()).unwrap_or(Value::Null);
    if let Some(k) = p.kernel_pmu().filter(|k| k.cpus.is_some()) {
        v["kernel_pmu"] = serde_json::json!({ "name": k.name, "type": k.type_, "cpus": k.cpus });
    }
    v
}

/// An event's JSON: its information, counters, attributes (and its
/// model-specific facts, where its model has some).
pub fn event_json(e: &Event, os: Os) -> Value {
    let mut v = serde_json::to_value(e.info(os)).unwrap_or(Value::Null);
    v["counters"] = format!("{:#x}", e.counter_mask()).into();
    v["attrs"] = serde_json::to_value(e.attrs(os)).unwrap_or(Value::Null);
    // Every per-event query of the libpfm-3 pages, under their names.
    if let (Some(f), Value::Object(obj)) = (pfmlib_dispatch::model_facts(*e), &mut v) {
        if let Ok(Value::Object(extra)) = serde_json::to_value(f.fields()) {
            obj.extend(extra);
        }
    }
    v
}

/// `PMU name — description [kind, presence, events, counters]`; `shown`:
/// how many events follow when a pattern selected them.
fn write_pmu_header(out: &mut impl Write, p: &Pmu, shown: Option<usize>) -> std::io::Result<()> {
    let i = p.info();
    let mut events = count(i.nevents, "event");
    if let Some(n) = shown {
        events += &format!(" ({n} listed)");
    }
    writeln!(out)?;
    writeln!(
        out,
        "PMU {} — {} [{}, {}, {events}, {} generic + {} fixed {}]",
        i.name,
        i.desc,
        kind_words(i.kind),
        if i.is_present {
            "present"
        } else {
            "not present"
        },
        i.num_cntrs,
        i.num_fixed_cntrs,
        if i.num_fixed_cntrs == 1 {
            "counter"
        } else {
            "counters"
        }
    )?;
    // A hybrid core PMU: which kernel PMU, on which CPUs.
    if let Some((k, cpus)) = p.kernel_pmu().and_then(|k| k.cpus.clone().map(|c| (k, c))) {
        writeln!(
            out,
            "  counts on CPUs {} (kernel PMU {}, type {})",
            cpu_ranges(&cpus),
            k.name,
            k.type_
        )?;
    }
    Ok(())
}

/// `0-15,20` for sorted CPU numbers (`none` for none).
fn cpu_ranges(cpus: &[u32]) -> String {
    if cpus.is_empty() {
        "none".to_string()
    } else {
        pfmlib::cpulist::format(cpus)
    }
}

/// One event in full: name, code and flags, description, unit masks, modifiers.
pub fn write_event(out: &mut impl Write, e: &Event, os: Os) -> std::io::Result<()> {
    let i = e.info(os);
    let mut tags = vec![format!("code {:#x}", i.code)];
    if i.is_precise {
        tags.push("precise".into());
    }
    if let Some(eq) = i.equiv {
        tags.push(format!("alias of {eq}"));
    }
    writeln!(out, "\n{}::{}  ({})", i.pmu, i.name, tags.join(", "))?;
    writeln!(out, "    {}", i.desc)?;
    let attrs = e.attrs(os);
    let umasks: Vec<_> = attrs
        .iter()
        .filter(|a| a.attr_type == AttrType::Umask)
        .collect();
    let width = umasks.iter().map(|a| a.name.len()).max().unwrap_or(0);
    for u in &umasks {
        let mut flags = Vec::new();
        if u.is_dfl {
            flags.push("default".to_string());
        }
        if u.is_precise {
            flags.push("precise".to_string());
        }
        if let Some(eq) = u.equiv {
            flags.push(format!("= {eq}"));
        }
        let flags = if flags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", flags.join(", "))
        };
        writeln!(
            out,
            "    :{:<width$}  {:#06x}  {}{}",
            u.name, u.code, u.desc, flags
        )?;
    }
    let mods: Vec<String> = attrs
        .iter()
        .filter(|a| a.attr_type != AttrType::Umask)
        .map(|a| {
            if a.attr_type == AttrType::ModInteger {
                format!("{}=N", a.name)
            } else {
                a.name.to_string()
            }
        })
        .collect();
    if !mods.is_empty() {
        writeln!(out, "    modifiers: {}", mods.join(" "))?;
    }
    Ok(())
}
