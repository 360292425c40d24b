//! Many `pfm list` patterns matched at once: a pattern is only tried on the
//! PMUs its PMU part can match, a plain event name is a hash lookup, and a
//! glob is tried only on names that start with its literal prefix and
//! contain its longest literal run (both necessary for a match), found
//! through the prefix's first character or a piece of the run (up to
//! [`GRAM`] characters) that the name holds, so a thousand patterns cost
//! about what one does. What matches is exactly what each pattern alone
//! matches: the final word is always its glob's (the unit tests compare
//! with `EventPattern::matches`).

use crate::pattern::EventPattern;
use std::collections::HashMap;

/// The most characters of a literal run that index a glob starting with a
/// wildcard.
const GRAM: usize = 4;

/// How many globs starting with a wildcard are tried on every name before
/// the others are indexed (for a few, looking up the pieces of each name
/// costs more than trying them).
const DIRECT: usize = 32;

/// A glob event part with what a name needs before the glob is tried.
struct Candidate {
    /// The pattern's index.
    idx: usize,
    /// The literal prefix (lower case).
    prefix: String,
    /// The longest literal run (lower case).
    needle: String,
}

/// The event parts of a group of patterns (those that apply to one PMU).
#[derive(Default)]
struct EventMatcher {
    /// Plain event names (lower case), with the patterns that name them.
    names: HashMap<String, Vec<usize>>,
    /// Globs with a literal prefix, by its first character.
    by_first: HashMap<char, Vec<Candidate>>,
    /// Globs that start with a wildcard, by a piece of their longest
    /// literal run: [`GRAM`] characters, or all of a shorter run (two at
    /// least).
    by_gram: HashMap<String, Vec<Candidate>>,
    /// Which lengths the keys of `by_gram` have.
    gram_lens: [bool; GRAM + 1],
    /// Globs that start with a wildcard: the first [`DIRECT`] ones and
    /// those with no literal run of two.
    others: Vec<Candidate>,
}

impl EventMatcher {
    /// Adds pattern `idx`'s event part.
    fn add(&mut self, idx: usize, p: &EventPattern) {
        if let Some(name) = p.event.literal() {
            self.names.entry(name).or_default().push(idx);
            return;
        }
        let c = Candidate {
            idx,
            prefix: p.event.prefix(),
            needle: p.event.longest_literal(),
        };
        if let Some(first) = c.prefix.chars().next() {
            self.by_first.entry(first).or_default().push(c);
            return;
        }
        let needle: Vec<char> = c.needle.chars().collect();
        if needle.len() < 2 || self.others.len() < DIRECT {
            self.others.push(c);
            return;
        }
        // The piece of the run whose list is shortest so far.
        let k = needle.len().min(GRAM);
        let grams = needle.windows(k).map(|w| w.iter().collect::<String>());
        let bucket = |g: &String| self.by_gram.get(g).map_or(0, Vec::len);
        if let Some(g) = grams.min_by_key(bucket) {
            self.gram_lens[k] = true;
            self.by_gram.entry(g).or_default().push(c);
        }
    }

    fn is_empty(&self) -> bool {
        self.names.is_empty()
            && self.by_first.is_empty()
            && self.by_gram.is_empty()
            && self.others.is_empty()
    }

    /// The distinct pieces of `lowered` of the lengths `by_gram` is keyed by.
    fn grams<'n>(&self, lowered: &'n str) -> Vec<&'n str> {
        if self.by_gram.is_empty() {
            return Vec::new();
        }
        let ends: Vec<usize> = lowered
            .char_indices()
            .map(|(i, _)| i)
            .chain([lowered.len()])
            .collect();
        let mut grams = Vec::new();
        for (i, &start) in ends.iter().enumerate() {
            for k in (2..=GRAM).filter(|&k| self.gram_lens[k]) {
                if let Some(&end) = ends.get(i + k) {
                    grams.push(&lowered[start..end]);
                }
            }
        }
        // Each candidate is under one piece: each piece of the name once.
        grams.sort_unstable();
        grams.dedup();
        grams
    }

    /// Calls `f` with the index of each pattern whose event part matches
    /// `lowered` (an event name in ASCII lower case).
    fn each(&self, patterns: &[EventPattern], lowered: &str, f: &mut impl FnMut(usize)) {
        for &i in self.names.get(lowered).into_iter().flatten() {
            f(i);
        }
        let first = lowered.chars().next();
        let prefixed = first.and_then(|c| self.by_first.get(&c));
        let grams = self.grams(lowered);
        let pieces = grams.iter().filter_map(|g| self.by_gram.get(*g)).flatten();
        for c in prefixed
            .into_iter()
            .flatten()
            .chain(pieces)
            .chain(&self.others)
        {
            if lowered.starts_with(c.prefix.as_str())
                && lowered.contains(c.needle.as_str())
                && patterns[c.idx].event.matches_lowered(lowered)
            {
                f(c.idx);
            }
        }
    }
}

/// A set of patterns, ready to be matched against many PMUs' events.
pub struct PatternSet<'a> {
    patterns: &'a [EventPattern],
    /// Patterns without a PMU part.
    any_pmu: EventMatcher,
    /// Patterns whose PMU part is a plain name (lower case), by that name.
    by_pmu: HashMap<String, EventMatcher>,
    /// Patterns whose PMU part is a glob.
    pmu_globs: Vec<usize>,
}

impl<'a> PatternSet<'a> {
    /// The set of the patterns `which` (indices into `patterns`).
    pub fn new(patterns: &'a [EventPattern], which: impl IntoIterator<Item = usize>) -> Self {
        let mut set = PatternSet {
            patterns,
            any_pmu: EventMatcher::default(),
            by_pmu: HashMap::new(),
            pmu_globs: Vec::new(),
        };
        for idx in which {
            let Some(p) = patterns.get(idx) else { continue };
            match &p.pmu {
                None => set.any_pmu.add(idx, p),
                Some(g) => match g.literal() {
                    Some(name) => set.by_pmu.entry(name).or_default().add(idx, p),
                    None => set.pmu_globs.push(idx),
                },
            }
        }
        set
    }

    /// The patterns that apply to the events of PMU `pmu`.
    pub fn for_pmu(&self, pmu: &str) -> PmuPatterns<'_> {
        let lowered = pmu.to_ascii_lowercase();
        let mut globbed = EventMatcher::default();
        for &idx in &self.pmu_globs {
            let p = &self.patterns[idx];
            if p.pmu.as_ref().is_some_and(|g| g.matches_lowered(&lowered)) {
                globbed.add(idx, p);
            }
        }
        let fixed = [Some(&self.any_pmu), self.by_pmu.get(&lowered)];
        PmuPatterns {
            patterns: self.patterns,
            fixed: fixed
                .into_iter()
                .flatten()
                .filter(|m| !m.is_empty())
                .collect(),
            globbed,
        }
    }
}

/// The patterns of a [`PatternSet`] that apply to one PMU.
pub struct PmuPatterns<'s> {
    patterns: &'s [EventPattern],
    fixed: Vec<&'s EventMatcher>,
    globbed: EventMatcher,
}

impl PmuPatterns<'_> {
    /// True when no pattern can match an event of this PMU.
    pub fn is_empty(&self) -> bool {
        self.fixed.is_empty() && self.globbed.is_empty()
    }

    /// Calls `f` once with the index of each pattern that matches event
    /// `event` of this PMU (in no particular order).
    pub fn each_match(&self, event: &str, mut f: impl FnMut(usize)) {
        let lowered = event.to_ascii_lowercase();
        for m in self.fixed.iter().copied().chain([&self.globbed]) {
            m.each(self.patterns, &lowered, &mut f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The indices of the patterns that match, as the set finds them.
    fn found(set: &PatternSet, pmu: &str, event: &str) -> Vec<usize> {
        let mut v = Vec::new();
        set.for_pmu(pmu).each_match(event, |i| v.push(i));
        v.sort_unstable();
        v
    }

    #[test]
    fn the_set_finds_what_each_pattern_matches() {
        let texts = [
            "INST_RETIRED",
            "inst_retired",
            "nhm::INST_RETIRED",
            "NHM::inst*",
            "snb::inst*",
            "*::*cycles*",
            "*cycles",
            "n?m::[a-c]*",
            "[!n]*::*_[ab]*",
            "*",
            "l[12]d_cache*",
            "*a*a*b",
            "x]y",
            "[]x]*",
        ];
        // Enough globs starting with `*` that most are indexed by pieces.
        let mut texts: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        for name in ["inst_retired_any", "l1d_cache_refill", "cpu_cycles"] {
            for k in [2, 3, 5] {
                for i in (0..name.len() - k).step_by(2) {
                    texts.push(format!("*{}*", &name[i..i + k]));
                    texts.push(format!("*{}?*", &name[i..i + k]));
                }
            }
        }
        assert!(texts.len() > 2 * DIRECT, "{}", texts.len());
        let patterns: Vec<EventPattern> = texts
            .iter()
            .map(|t| EventPattern::parse(t).unwrap())
            .collect();
        let set = PatternSet::new(&patterns, 0..patterns.len());
        let pmus = ["nhm", "NHM", "snb", "perf", "arm_n1", "nxm"];
        let events = [
            "INST_RETIRED",
            "inst_retired_any",
            "CPU_CYCLES",
            "cycles",
            "BR_MISP",
            "L1D_CACHE_REFILL",
            "L3D_CACHE",
            "aaaab",
            "x]y",
            "]",
            "",
            "É_cycles",
        ];
        for pmu in pmus {
            for ev in events {
                let naive: Vec<usize> = (0..patterns.len())
                    .filter(|&i| patterns[i].matches(pmu, ev))
                    .collect();
                assert_eq!(found(&set, pmu, ev), naive, "{pmu}::{ev}");
            }
        }
        let some = PatternSet::new(&patterns, [2, 4]);
        assert_eq!(found(&some, "nhm", "inst_retired"), [2]);
        assert!(some.for_pmu("perf").is_empty());
        assert!(!some.for_pmu("SNB").is_empty());
    }
}
