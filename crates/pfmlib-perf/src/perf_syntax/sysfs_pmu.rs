//! Kernel PMUs by their sysfs description: `pmu/term=value,.../` and
//! `pmu/alias/`, from `/sys/bus/event_source/devices/<pmu>/{type,format,events}`.

use crate::syntax_error::SyntaxError;
use pfmlib::Host;

/// Where the kernel lists its perf_events PMUs.
pub const DEVICES: &str = "/sys/bus/event_source/devices";

/// Which `perf_event_attr` field a format term writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// `config`.
    Config,
    /// `config1`.
    Config1,
    /// `config2`.
    Config2,
}

impl Field {
    fn index(self) -> usize {
        match self {
            Field::Config => 0,
            Field::Config1 => 1,
            Field::Config2 => 2,
        }
    }
}

/// A `format/<term>` file: the field and its bit ranges, low bits of the
/// value first (`config:8-15,32-35` puts value bits 0-7 at 8-15, 8-11 at 32-35).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    /// The field written.
    pub field: Field,
    /// Inclusive bit ranges `(low, high)`, in value order.
    pub ranges: Vec<(u32, u32)>,
}

impl Format {
    /// Parses `config:0-7`, `config1:0-15`, `config:8-15,32-35`, `config:21`.
    pub fn parse(text: &str, path: &str) -> Result<Format, SyntaxError> {
        let bad = || SyntaxError::BadFile {
            path: path.to_string(),
            detail: format!("{:?} is not a format such as config:0-7", text.trim()),
        };
        let (field, bits) = text.trim().split_once(':').ok_or_else(bad)?;
        let field = match field {
            "config" => Field::Config,
            "config1" => Field::Config1,
            "config2" => Field::Config2,
            _ => return Err(bad()),
        };
        let mut ranges = Vec::new();
        for part in bits.split(',') {
            let (lo, hi) = part.split_once('-').unwrap_or((part, part));
            let lo: u32 = lo.trim().parse().map_err(|_| bad())?;
            let hi: u32 = hi.trim().parse().map_err(|_| bad())?;
            if lo > hi || hi > 63 {
                return Err(bad());
            }
            ranges.push((lo, hi));
        }
        Ok(Format { field, ranges })
    }

    /// The mask of the field's bits this term owns.
    pub fn mask(&self) -> u64 {
        self.ranges
            .iter()
            .fold(0, |m, &(lo, hi)| m | (u64::MAX >> (63 - hi + lo)) << lo)
    }

    /// The width of the term's value in bits.
    pub fn width(&self) -> u32 {
        self.ranges.iter().map(|&(lo, hi)| hi - lo + 1).sum()
    }

    /// `value` spread over the term's bits; `None` when it does not fit.
    pub fn place(&self, value: u64) -> Option<u64> {
        if self.width() < 64 && value >> self.width() != 0 {
            return None;
        }
        let mut out = 0;
        let mut shift = 0;
        for &(lo, hi) in &self.ranges {
            let n = hi - lo + 1;
            let chunk = if n == 64 {
                value
            } else {
                value.checked_shr(shift).unwrap_or(0) & ((1u64 << n) - 1)
            };
            out |= chunk << lo;
            shift += n;
        }
        Some(out)
    }
}

/// One `name[=value]` term of a `pmu/.../` event or of an alias file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The term's name.
    pub name: String,
    /// Its value as written (`None`: a bare name).
    pub value: Option<String>,
}

/// Splits `event=0x3c,umask=0x1,edge` into terms.
pub fn parse_terms(body: &str) -> Result<Vec<Term>, SyntaxError> {
    body.split(',')
        .map(str::trim)
        .map(|t| {
            if t.is_empty() {
                return Err(SyntaxError::BadSyntax {
                    detail: format!("empty term in {body:?}"),
                });
            }
            Ok(match t.split_once('=') {
                Some((n, v)) => Term {
                    name: n.trim().to_string(),
                    value: Some(v.trim().to_string()),
                },
                None => Term {
                    name: t.to_string(),
                    value: None,
                },
            })
        })
        .collect()
}

/// A number as perf writes them: `0x3c` or `60`.
pub fn parse_number(term: &str, v: &str) -> Result<u64, SyntaxError> {
    let r = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => v.parse(),
    };
    r.map_err(|_| SyntaxError::BadValue {
        term: term.to_string(),
        value: v.to_string(),
    })
}

/// A `pmu/.../` event resolved against sysfs.
#[derive(Debug, Clone, PartialEq)]
pub struct SysfsEvent {
    /// The PMU's directory name.
    pub pmu: String,
    /// Its `type` (the `perf_event_attr.type`).
    pub type_: u32,
    /// `config`, `config1`, `config2`.
    pub config: [u64; 3],
    /// `period=`, if given.
    pub sample_period: Option<u64>,
    /// `name=`, if given.
    pub name: Option<String>,
    /// The alias's `.scale` (multiply the count by it), if any.
    pub scale: Option<f64>,
    /// The alias's `.unit`, if any.
    pub unit: Option<String>,
}

/// The PMU's `type`, or an error listing the PMUs there are.
fn pmu_type(host: &Host, pmu: &str) -> Result<u32, SyntaxError> {
    let path = format!("{DEVICES}/{pmu}/type");
    let Some(text) = host.read_file(&path) else {
        let present = host.list_dir(DEVICES);
        return Err(SyntaxError::UnknownPmu {
            pmu: pmu.to_string(),
            present: if present.is_empty() {
                "none".into()
            } else {
                present.join(", ")
            },
        });
    };
    text.trim().parse().map_err(|_| SyntaxError::BadFile {
        path,
        detail: format!("{:?} is not a PMU type", text.trim()),
    })
}

/// The alias file of `pmu` named `name` (case-insensitive), if any.
fn find_alias(host: &Host, pmu: &str, name: &str) -> Option<String> {
    host.list_dir(&format!("{DEVICES}/{pmu}/events"))
        .into_iter()
        .find(|a| !a.contains('.') && a.eq_ignore_ascii_case(name))
}

fn aliases(host: &Host, pmu: &str) -> String {
    let v: Vec<String> = host
        .list_dir(&format!("{DEVICES}/{pmu}/events"))
        .into_iter()
        .filter(|a| !a.contains('.'))
        .collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// Resolves `pmu/body/` (the slashes gone) with the host's sysfs.
pub fn resolve(host: &Host, pmu: &str, body: &str) -> Result<SysfsEvent, SyntaxError> {
    let type_ = pmu_type(host, pmu)?;
    let mut ev = SysfsEvent {
        pmu: pmu.to_string(),
        type_,
        config: [0; 3],
        sample_period: None,
        name: None,
        scale: None,
        unit: None,
    };
    let terms = expand_aliases(host, &mut ev, parse_terms(body)?)?;
    for t in &terms {
        apply_term(host, &mut ev, t)?;
    }
    Ok(ev)
}

/// Replaces bare alias names with the alias's terms (user terms after
/// them override them); a `?` left in an alias term must be given.
fn expand_aliases(
    host: &Host,
    ev: &mut SysfsEvent,
    terms: Vec<Term>,
) -> Result<Vec<Term>, SyntaxError> {
    let pmu = ev.pmu.clone();
    let mut out: Vec<Term> = Vec::new();
    let mut from_alias: Vec<(String, String)> = Vec::new();
    for t in terms {
        let is_format = host.file_exists(&format!("{DEVICES}/{pmu}/format/{}", t.name));
        if t.value.is_some() || is_format || is_special(&t.name) {
            out.push(t);
            continue;
        }
        let Some(alias) = find_alias(host, &pmu, &t.name) else {
            return Err(SyntaxError::UnknownAlias {
                pmu: pmu.clone(),
                alias: t.name,
                known: aliases(host, &pmu),
            });
        };
        let path = format!("{DEVICES}/{pmu}/events/{alias}");
        let text = host
            .read_file(&path)
            .ok_or(SyntaxError::Unreadable { path: path.clone() })?;
        for at in parse_terms(text.trim())? {
            from_alias.push((alias.clone(), at.name.clone()));
            out.push(at);
        }
        ev.scale = host
            .read_file(&format!("{path}.scale"))
            .and_then(|s| s.trim().parse().ok());
        ev.unit = host
            .read_file(&format!("{path}.unit"))
            .map(|s| s.trim().to_string());
    }
    // A `?` term is filled by a later term of the same name.
    for (i, t) in out.iter().enumerate() {
        if t.value.as_deref() == Some("?") && !out[i + 1..].iter().any(|l| l.name == t.name) {
            let alias = from_alias
                .iter()
                .find(|(_, n)| *n == t.name)
                .map_or_else(String::new, |(a, _)| a.clone());
            return Err(SyntaxError::MissingParam {
                pmu,
                alias,
                param: t.name.clone(),
            });
        }
    }
    Ok(out
        .into_iter()
        .filter(|t| t.value.as_deref() != Some("?"))
        .collect())
}

/// Terms every PMU takes besides its format terms.
const SPECIAL: [&str; 5] = ["config", "config1", "config2", "period", "name"];

fn is_special(name: &str) -> bool {
    SPECIAL.contains(&name)
}

fn apply_term(host: &Host, ev: &mut SysfsEvent, t: &Term) -> Result<(), SyntaxError> {
    let value = |t: &Term| match &t.value {
        Some(v) => parse_number(&t.name, v),
        None => Ok(1),
    };
    match t.name.as_str() {
        "config" => ev.config[0] = value(t)?,
        "config1" => ev.config[1] = value(t)?,
        "config2" => ev.config[2] = value(t)?,
        "period" => ev.sample_period = Some(value(t)?),
        "name" => ev.name = t.value.clone(),
        name => {
            let path = format!("{DEVICES}/{}/format/{name}", ev.pmu);
            let Some(text) = host.read_file(&path) else {
                let mut known = host.list_dir(&format!("{DEVICES}/{}/format", ev.pmu));
                known.extend(SPECIAL.iter().map(|s| s.to_string()));
                return Err(SyntaxError::UnknownTerm {
                    pmu: ev.pmu.clone(),
                    term: name.to_string(),
                    known: known.join(", "),
                });
            };
            let f = Format::parse(&text, &path)?;
            let v = value(t)?;
            let placed = f.place(v).ok_or_else(|| SyntaxError::ValueTooWide {
                term: name.to_string(),
                value: v,
                bits: f.width(),
            })?;
            let slot = &mut ev.config[f.field.index()];
            *slot = (*slot & !f.mask()) | placed;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let f = Format::parse("config:8-15,32-35\n", "f").unwrap();
        assert_eq!(f.width(), 12);
        assert_eq!(f.mask(), 0xff00 | 0xf << 32);
        assert_eq!(f.place(0xabc), Some(0xbc00 | 0xa << 32));
        assert_eq!(f.place(0x1000), None);
        let one = Format::parse("config1:21", "f").unwrap();
        assert_eq!((one.field, one.place(1)), (Field::Config1, Some(1 << 21)));
        let all = Format::parse("config:0-63", "f").unwrap();
        assert_eq!(
            (all.mask(), all.place(u64::MAX)),
            (u64::MAX, Some(u64::MAX))
        );
        for bad in [
            "config",
            "config3:0-7",
            "config:7-0",
            "config:0-64",
            "config:a",
        ] {
            assert!(matches!(
                Format::parse(bad, "f"),
                Err(SyntaxError::BadFile { .. })
            ));
        }
    }

    #[test]
    fn terms_and_numbers() {
        let t = parse_terms("event=0x3c, umask=1,edge").unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(t[2].value, None);
        assert_eq!(t[1].value.as_deref(), Some("1"));
        assert!(parse_terms("a,,b").is_err());
        assert_eq!(parse_number("x", "0x3C").unwrap(), 0x3c);
        assert_eq!(parse_number("x", "60").unwrap(), 60);
        assert!(matches!(
            parse_number("x", "zz"),
            Err(SyntaxError::BadValue { .. })
        ));
    }
}
