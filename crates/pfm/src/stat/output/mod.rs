//! The counts as perf prints them, to where the arguments say. Each event
//! of a run or of the summary becomes one [`CountRecord`] (`record`), built
//! once; the formats (`text`, `csv` for `-x`, `json`), one module each,
//! only lay records out.

mod csv;
mod json;
mod record;
mod text;

use super::args::{Args, Format};
use super::metricdefs::{self, MetricDef};
use super::stats::Line;
use anyhow::Context;
use record::CountRecord;
use serde_json::json;
use std::io::{self, Write};
use std::time::Duration;

/// How lines look beyond the format: digit grouping, the cgroup column,
/// the `-M` metrics.
#[derive(Debug, Clone, Default)]
pub struct Style {
    /// Group count digits with this separator (text only; `-B`, the locale's).
    pub thousands: Option<String>,
    /// The cgroup counted (`-G`), printed after each event.
    pub cgroup: Option<String>,
    /// The metrics of `-M`, printed after the counts.
    pub metrics: Vec<&'static MetricDef>,
    /// `--per-thread -a`: leave out each thread's events that counted
    /// nothing, as perf does (most of a system's threads count nothing).
    pub skip_zero: bool,
}

/// perf reprints the interval header after this many intervals.
const HEADER_EVERY: u64 = 25;

/// Where the counts go (standard error, `-o FILE`, `--log-fd N`, nowhere
/// with `-q`) and how.
pub struct Report {
    out: Box<dyn Write>,
    format: Format,
    style: Style,
    intervals: u64,
}

impl Report {
    /// A report to where the arguments say, in `format`.
    pub fn open(a: &Args, format: Format, style: Style) -> anyhow::Result<Report> {
        let out: Box<dyn Write> = if a.quiet {
            Box::new(std::io::sink())
        } else if let Some(fd) = a.log_fd {
            let f = pfmlib_perf::inherited_fd(fd).map_err(|e| match e.raw_os_error() {
                Some(libc::EBADF) => anyhow::anyhow!("--log-fd {fd}: not an open descriptor"),
                _ => anyhow::anyhow!("--log-fd {fd}: {e}"),
            })?;
            Box::new(std::io::LineWriter::new(f))
        } else if let Some(p) = &a.output {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .append(a.append)
                .truncate(!a.append)
                .open(p)
                .with_context(|| format!("cannot create {}", p.display()))?;
            let mut w = std::io::BufWriter::new(f);
            writeln!(
                w,
                "# started on {}\n",
                started_on(std::time::SystemTime::now())
            )
            .with_context(|| format!("cannot write {}", p.display()))?;
            Box::new(w)
        } else {
            // One write per line: the command's own output, also on
            // standard error, cannot land in the middle of one.
            Box::new(std::io::LineWriter::new(std::io::stderr()))
        };
        Ok(Report::styled(out, format, style))
    }

    /// A report to `out`.
    #[cfg(test)]
    pub fn to(out: Box<dyn Write>, format: Format) -> Report {
        Report::styled(out, format, Style::default())
    }

    /// A report to `out` with `style`.
    pub fn styled(out: Box<dyn Write>, format: Format, style: Style) -> Report {
        Report {
            out,
            format,
            style,
            intervals: 0,
        }
    }

    /// After each run: JSON prints one record per event; the others wait for the end.
    pub fn after_run(&mut self, run_no: u32, lines: &[Line], elapsed: Duration) -> io::Result<()> {
        if self.format != Format::Json {
            return Ok(());
        }
        let elapsed_ns = elapsed.as_nanos() as f64;
        for (line, i) in self.shown(lines, false) {
            let t = &line.tally;
            let ev = &t.events[i];
            let reading = t.readings.get(i).and_then(Option::as_ref);
            let rec = CountRecord::of_run(ev, reading, &t.events, elapsed_ns);
            let mut extra = self.extra(line);
            extra.push(("run", json!(run_no)));
            extra.push(("elapsed-ns", json!(elapsed.as_nanos() as u64)));
            json::record(&mut self.out, &rec, &extra)?;
        }
        Ok(())
    }

    /// The JSON fields of a line's prefix and the cgroup.
    fn extra(&self, line: &Line) -> Vec<(&'static str, serde_json::Value)> {
        let mut v = Vec::new();
        if let Some(l) = &line.label {
            v.push((l.key, json!(l.json)));
            if let Some(nr) = l.nr {
                v.push(("aggregate-number", json!(nr)));
            }
        }
        if let Some(c) = &self.style.cgroup {
            v.push(("cgroup", json!(c)));
        }
        v
    }

    /// After each run of `-r 0` (repeat until interrupted): that run's
    /// counts, as after a single run (JSON already printed them).
    pub fn each_run(&mut self, lines: &[Line], title: &str) -> io::Result<()> {
        if matches!(self.format, Format::Json) {
            return Ok(());
        }
        self.finish(lines, title, true)
    }

    /// The records of `lines` over their runs, in perf's order, with each
    /// line's prefix.
    fn summaries<'l>(&self, lines: &'l [Line]) -> Vec<(&'l Line, CountRecord<'l>)> {
        self.shown(lines, true)
            .map(|(line, i)| {
                let t = &line.tally;
                (
                    line,
                    CountRecord::summary(&t.events[i], &t.events, t.elapsed.mean),
                )
            })
            .collect()
    }

    /// The `-M` metrics of each line: (line, metric, value when computable).
    fn metric_values<'l>(
        &self,
        lines: &'l [Line],
    ) -> Vec<(&'l Line, &'static MetricDef, Option<f64>)> {
        // `--per-thread -a`: a thread that counted nothing has no metrics either.
        let idle = |l: &Line| l.tally.events.iter().all(|e| e.value.mean == 0.0);
        lines
            .iter()
            .filter(|l| !(self.style.skip_zero && idle(l)))
            .flat_map(|l| {
                self.style.metrics.iter().map(move |m| {
                    (
                        l,
                        *m,
                        metricdefs::value(m, &l.tally.events, l.tally.elapsed.mean),
                    )
                })
            })
            .collect()
    }

    /// After the last run: the summary in the report's format, then a flush.
    pub fn finish(&mut self, lines: &[Line], title: &str, workload: bool) -> io::Result<()> {
        let Some(first) = lines.first() else {
            return self.out.flush();
        };
        let runs = first.tally.runs;
        let records = self.summaries(lines);
        let metrics = self.metric_values(lines);
        match &self.format {
            Format::Json => {
                if runs > 1 {
                    for (line, rec) in &records {
                        let mut extra = self.extra(line);
                        extra.push(("summary", json!(true)));
                        extra.push(("runs", json!(runs)));
                        json::summary(&mut self.out, rec, &extra)?;
                    }
                }
                for (line, m, v) in &metrics {
                    let extra = self.extra(line);
                    json::metric(&mut self.out, m, *v, &extra)?;
                }
            }
            Format::Csv(sep) => {
                for (line, rec) in &records {
                    let lead = line.label.as_ref().map(|l| l.csv(sep)).unwrap_or_default();
                    csv::line(
                        &mut self.out,
                        &lead,
                        rec,
                        runs,
                        sep,
                        self.style.cgroup.as_deref(),
                    )?;
                }
                for (line, m, v) in &metrics {
                    let lead = line.label.as_ref().map(|l| l.csv(sep)).unwrap_or_default();
                    csv::metric(&mut self.out, &lead, m, *v, sep)?;
                }
            }
            Format::Text => {
                let uw = text::unit_width(opened(&records));
                let mut body: Vec<String> = records
                    .iter()
                    .map(|(line, rec)| self.text_line("", line, rec, runs, uw))
                    .collect();
                body.extend(metrics.iter().filter_map(|(line, m, v)| {
                    let lead = line.label.as_ref().map(|l| l.text()).unwrap_or_default();
                    v.map(|v| text::metric_line(&lead, m, v))
                }));
                text::report(&mut self.out, title, &body, &first.tally, workload)?;
            }
        }
        self.out.flush()
    }

    fn text_line(
        &self,
        ts: &str,
        line: &Line,
        rec: &CountRecord,
        runs: u32,
        unit_width: usize,
    ) -> String {
        let mut lead = ts.to_string();
        if let Some(l) = &line.label {
            lead.push_str(&l.text());
        }
        let look = text::Look {
            thousands: self.style.thousands.as_deref(),
            cgroup: self.style.cgroup.as_deref(),
            unit_width,
        };
        format!("{lead}{}", text::line_with(rec, runs, &look))
    }

    /// One interval (`-I`): each line's counts since the last one, stamped
    /// with `ts`, the time since counting started.
    pub fn interval(&mut self, ts: Duration, lines: &[Line]) -> io::Result<()> {
        let stamp = format!("{:>6}.{:09}", ts.as_secs(), ts.subsec_nanos());
        let records: Vec<(&Line, CountRecord)> = self
            .shown(lines, false)
            .map(|(line, i)| {
                let t = &line.tally;
                let reading = t.readings.get(i).and_then(Option::as_ref);
                (
                    line,
                    CountRecord::of_run(&t.events[i], reading, &t.events, t.elapsed.mean),
                )
            })
            .collect();
        match &self.format {
            Format::Json => {
                for (line, rec) in &records {
                    let mut extra = vec![("interval", json!(ts.as_secs_f64()))];
                    extra.extend(self.extra(line));
                    json::record(&mut self.out, rec, &extra)?;
                }
            }
            Format::Csv(sep) => {
                for (line, rec) in &records {
                    let mut lead = format!("{stamp}{sep}");
                    if let Some(l) = &line.label {
                        lead.push_str(&l.csv(sep));
                    }
                    csv::line(
                        &mut self.out,
                        &lead,
                        rec,
                        1,
                        sep,
                        self.style.cgroup.as_deref(),
                    )?;
                }
            }
            Format::Text => {
                if self.intervals % HEADER_EVERY == 0 {
                    writeln!(self.out, "{}", text::interval_header(lines))?;
                }
                let uw = text::unit_width(opened(&records));
                for (line, rec) in &records {
                    let l = self.text_line(&format!("{stamp} "), line, rec, 1, uw);
                    writeln!(self.out, "{l}")?;
                }
            }
        }
        self.intervals += 1;
        self.out.flush()
    }
}

impl Report {
    /// [`order`] without what `--per-thread -a` leaves out: a line's event
    /// that counted nothing (in the last run, or on average over the runs
    /// for the `summary`).
    fn shown<'l>(
        &self,
        lines: &'l [Line],
        summary: bool,
    ) -> impl Iterator<Item = (&'l Line, usize)> + 'l {
        let skip_zero = self.style.skip_zero;
        order(lines).filter(move |(line, i)| {
            let t = &line.tally;
            let nothing = match summary {
                true => t.events.get(*i).is_none_or(|e| e.value.mean == 0.0),
                false => t
                    .readings
                    .get(*i)
                    .and_then(Option::as_ref)
                    .is_none_or(|r| r.value == 0),
            };
            !(skip_zero && nothing)
        })
    }
}

/// The units of the events that could be opened: perf sizes its unit
/// column by those alone.
fn opened<'r>(records: &'r [(&Line, CountRecord)]) -> impl Iterator<Item = &'r str> {
    records
        .iter()
        .filter(|(_, r)| !matches!(r.status, record::Status::NotSupported(_)))
        .map(|(_, r)| r.unit)
}

/// `(line, event)` in perf's order: event by event, each over the lines
/// (the whole, CPUs, threads), or line by line for cores and sockets.
fn order(lines: &[Line]) -> impl Iterator<Item = (&Line, usize)> {
    let events = lines.first().map_or(0, |l| l.tally.events.len());
    let by_line = lines
        .first()
        .and_then(|l| l.label.as_ref())
        .is_some_and(|l| l.nr.is_some());
    let pairs: Vec<(&Line, usize)> = if by_line {
        lines
            .iter()
            .flat_map(|l| (0..events).map(move |i| (l, i)))
            .collect()
    } else {
        (0..events)
            .flat_map(|i| lines.iter().map(move |l| (l, i)))
            .collect()
    };
    pairs.into_iter()
}

/// The time a report started, as `ctime(3)` prints it in UTC:
/// `Mon Nov 23 23:11:19 2026`.
pub fn started_on(t: std::time::SystemTime) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{} {} {:>2} {:02}:{:02}:{:02} {}",
        DAYS[(days % 7) as usize],
        MONTHS[(month - 1).clamp(0, 11) as usize],
        day,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        year
    )
}

#[cfg(test)]
mod tests;
