//! Shell-style patterns over event names for `pfm list PATTERN`: `*` (any
//! run of characters), `?` (one character), `[...]` (one character of a set:
//! `[abc]`, ranges `[a-z]`, negated with `[!...]` or `[^...]`), compared
//! without regard to ASCII case, as libpfm4 compares PMU and event names.
//! Patterns are checked and normalised here (lower case, `[^` as `[!`);
//! the matching is pfmlib-perf's, the one its tracepoint globs use.

use std::fmt;

/// One element of a compiled glob.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A literal character (already lower-cased).
    Lit(char),
    /// `?`.
    One,
    /// `*`.
    Any,
    /// `[...]`.
    Set,
}

/// A checked glob, matched against a whole name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    toks: Vec<Tok>,
    /// The pattern in lower case, negated sets written `[!...]`.
    norm: String,
}

/// A pattern that cannot be compiled, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// The pattern as given.
    pub pattern: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad pattern {}: {}",
            crate::cli::quoted(&self.pattern),
            self.reason
        )
    }
}

impl std::error::Error for PatternError {}

impl Glob {
    /// Compiles `p`; `whole` is the pattern reported in errors.
    fn new(p: &str, whole: &str) -> Result<Glob, PatternError> {
        let err = |reason| PatternError {
            pattern: whole.to_string(),
            reason,
        };
        let mut toks = Vec::new();
        let mut norm = String::with_capacity(p.len());
        let mut it = p.chars().peekable();
        while let Some(c) = it.next() {
            let t = match c {
                '*' => Tok::Any,
                '?' => Tok::One,
                '[' => {
                    let neg = matches!(it.peek(), Some('!' | '^'));
                    if neg {
                        it.next();
                    }
                    norm.push_str(if neg { "[!" } else { "[" });
                    let mut first = true;
                    loop {
                        let c = it.next().ok_or_else(|| err("`[` without its `]`"))?;
                        // A `]` right after `[` (or `[!`) is a member, as in the shell.
                        if c == ']' && !first {
                            break;
                        }
                        first = false;
                        let lo = c.to_ascii_lowercase();
                        let mut hi = lo;
                        if it.peek() == Some(&'-') {
                            let mut ahead = it.clone();
                            ahead.next();
                            if let Some(&h) = ahead.peek().filter(|&&h| h != ']') {
                                it = ahead;
                                it.next();
                                hi = h.to_ascii_lowercase();
                            }
                        }
                        if hi < lo {
                            return Err(err("a range in `[...]` runs backwards"));
                        }
                        norm.push(lo);
                        if hi != lo {
                            norm.push('-');
                            norm.push(hi);
                        }
                    }
                    norm.push(']');
                    Tok::Set
                }
                c => Tok::Lit(c.to_ascii_lowercase()),
            };
            match t {
                Tok::Any if toks.last() == Some(&Tok::Any) => continue,
                Tok::Any => norm.push('*'),
                Tok::One => norm.push('?'),
                Tok::Lit(c) => norm.push(c),
                Tok::Set => {}
            }
            toks.push(t);
        }
        Ok(Glob { toks, norm })
    }

    /// Does the pattern match all of `name` (ASCII case ignored)? (The
    /// reference that [`crate::pattern_set`] is tested against.)
    #[cfg(test)]
    pub fn matches(&self, name: &str) -> bool {
        self.matches_lowered(&name.to_ascii_lowercase())
    }

    /// Does the pattern match all of `lowered`, a name already in ASCII
    /// lower case? (What `Glob::matches`, a test-only reference, does after
    /// lower-casing.)
    pub fn matches_lowered(&self, lowered: &str) -> bool {
        pfmlib_perf::perf_syntax::tracepoint::glob_match(&self.norm, lowered)
    }

    /// The literal characters the pattern starts with (lower case): every
    /// name it matches starts with them, in lower case.
    pub fn prefix(&self) -> String {
        self.toks
            .iter()
            .map_while(|t| match t {
                Tok::Lit(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    /// The longest run of literal characters in the pattern (lower case,
    /// the first of equally long ones): every name it matches contains it,
    /// in lower case.
    pub fn longest_literal(&self) -> String {
        let runs = self.toks.split(|t| !matches!(t, Tok::Lit(_)));
        let best = runs.fold(&[][..], |b, r| if r.len() > b.len() { r } else { b });
        best.iter()
            .filter_map(|t| match t {
                Tok::Lit(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    /// Is this pattern a plain name (no `*`, `?` or `[`)?
    pub fn literal(&self) -> Option<String> {
        self.toks
            .iter()
            .map(|t| match t {
                Tok::Lit(c) => Some(*c),
                _ => None,
            })
            .collect()
    }
}

/// A `pfm list` pattern: `EVENT` (the event name on any PMU) or `PMU::EVENT`
/// (both parts), each part a [`Glob`].
#[derive(Debug, Clone)]
pub struct EventPattern {
    /// The pattern as given.
    pub text: String,
    /// The PMU part, if the pattern has `::`.
    pub pmu: Option<Glob>,
    /// The event part.
    pub event: Glob,
}

impl EventPattern {
    /// Parses `PMU::EVENT` or `EVENT`.
    pub fn parse(text: &str) -> Result<EventPattern, PatternError> {
        let err = |reason| PatternError {
            pattern: text.to_string(),
            reason,
        };
        let (pmu, event) = match text.split_once("::") {
            Some((p, e)) => (Some(Glob::new(p, text)?), e),
            None => (None, text),
        };
        if event.contains(':') {
            return Err(err(
                "patterns match `PMU::EVENT` names; unit masks and modifiers are not matched (list them with --umasks)",
            ));
        }
        if event.is_empty() {
            return Err(err("the event part is empty (use `*` for every event)"));
        }
        Ok(EventPattern {
            text: text.to_string(),
            pmu,
            event: Glob::new(event, text)?,
        })
    }

    /// Does the pattern match event `event` of PMU `pmu`? (The reference
    /// that [`crate::pattern_set`] is tested against.)
    #[cfg(test)]
    pub fn matches(&self, pmu: &str, event: &str) -> bool {
        self.pmu.as_ref().is_none_or(|g| g.matches(pmu)) && self.event.matches(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(p: &str) -> Glob {
        Glob::new(p, p).unwrap()
    }

    #[test]
    fn globs() {
        assert!(g("inst_retired").matches("INST_RETIRED"));
        assert!(g("INST*").matches("inst_retired"));
        assert!(g("*").matches(""));
        assert!(g("*_RETIRED").matches("INST_RETIRED"));
        assert!(!g("*_RETIRED").matches("INST_RETIRED_ANY"));
        assert!(g("*RET*ANY*").matches("INST_RETIRED_ANY_P"));
        assert!(g("cycle?").matches("CYCLES"));
        assert!(!g("cycle?").matches("CYCLE"));
        assert!(g("l[12]d*").matches("L1D_CACHE"));
        assert!(!g("l[!12]d*").matches("L1D_CACHE"));
        assert!(g("l[^12]d*").matches("L3D_CACHE"));
        assert!(g("[a-c]*").matches("BR_MISP"));
        assert!(g("[]x]").matches("]"));
        assert!(g("[a-]").matches("-"));
        assert!(g("a**b").matches("ab"));
        assert!(g("*a*a*a*a*b").matches("aaaaaaaaaaaaaaaaab"));
        assert!(!g("*a*a*a*a*b").matches("aaaaaaaaaaaaaaaaaa"));
        assert_eq!(g("Nhm").literal().as_deref(), Some("nhm"));
        assert_eq!(g("INST_[ab]*RET").prefix(), "inst_");
        assert_eq!(g("*INST").prefix(), "");
        assert_eq!(g("ab*CDE?f").longest_literal(), "cde");
        assert_eq!(g("ab*").longest_literal(), "ab");
        assert_eq!(g("*").longest_literal(), "");
        assert!(g("L[12]D*").matches_lowered("l1d_cache"));
        assert_eq!(g("nhm*").literal(), None);
        for bad in ["[abc", "[z-a]", "x[", "[!"] {
            assert!(Glob::new(bad, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn event_patterns() {
        let p = EventPattern::parse("arm_*::cpu_cycles").unwrap();
        assert!(p.matches("arm_n1", "CPU_CYCLES"));
        assert!(!p.matches("perf", "CPU_CYCLES"));
        let p = EventPattern::parse("*cycles*").unwrap();
        assert!(p.matches("perf", "PERF_COUNT_HW_CPU_CYCLES"));
        assert!(EventPattern::parse("nhm::INST_RETIRED:ANY_P").is_err());
        assert!(EventPattern::parse("nhm::").is_err());
        assert!(EventPattern::parse("").is_err());
        assert!(EventPattern::parse("[x").is_err());
    }
}
