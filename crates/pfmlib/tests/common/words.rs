//! The "our own words" check of `tests/own_words.rs` and the Arm oracle
//! tests: a description may not equal libpfm4's (ignoring case, spacing and
//! punctuation), nor share a run of eight or more consecutive words with
//! it, nor share most of its word triples. [`Rules`] says what counts as a
//! word and from what length the triples are compared.

#![allow(dead_code)]

use std::collections::HashSet;

/// Longest run of consecutive words two descriptions may share.
pub const MAX_SHARED_RUN: usize = 7;
/// Largest share of word triples two descriptions may have in common.
pub const MAX_TRIPLE_SHARE: f64 = 0.5;

/// How two descriptions are compared.
#[derive(Clone, Copy)]
pub struct Rules {
    /// Leave identifiers (words with an underscore) out of the comparison.
    pub skip_identifiers: bool,
    /// Fewest words both need before their word triples are compared.
    pub min_triple_words: usize,
}

/// The Arm tests' rules: every word counts, triples always compared.
pub const STRICT: Rules = Rules {
    skip_identifiers: false,
    min_triple_words: 0,
};

/// `own_words.rs`'s rules: identifiers such as `PERF_COUNT_HW_CPU_CYCLES`
/// are facts, and triples mean nothing below eight words.
pub const PROSE: Rules = Rules {
    skip_identifiers: true,
    min_triple_words: 8,
};

fn words(s: &str, r: Rules) -> Vec<String> {
    let sep = |c: char| !(c.is_alphanumeric() || (r.skip_identifiers && c == '_'));
    let identifier = |w: &str| r.skip_identifiers && w.contains('_');
    s.split(sep)
        .filter(|w| !w.is_empty() && !identifier(w))
        .map(str::to_lowercase)
        .collect()
}

fn longest_shared_run(a: &[String], b: &[String]) -> usize {
    let mut best = 0;
    let mut prev = vec![0usize; b.len() + 1];
    for x in a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            if x == y {
                cur[j + 1] = prev[j] + 1;
                best = best.max(cur[j + 1]);
            }
        }
        prev = cur;
    }
    best
}

fn triple_share(a: &[String], b: &[String]) -> f64 {
    let t = |w: &[String]| -> HashSet<String> { w.windows(3).map(|x| x.join(" ")).collect() };
    let (ta, tb) = (t(a), t(b));
    if ta.len() < 3 || tb.len() < 3 {
        return 0.0;
    }
    ta.intersection(&tb).count() as f64 / ta.len().min(tb.len()) as f64
}

/// Why `ours` reads as a copy of `theirs` under the [`STRICT`] rules, if it does.
pub fn copied(ours: &str, theirs: &str) -> Option<String> {
    copied_by(ours, theirs, STRICT)
}

/// Why `ours` reads as a copy of `theirs` under rules `r`, if it does.
pub fn copied_by(ours: &str, theirs: &str, r: Rules) -> Option<String> {
    let (a, b) = (words(ours, r), words(theirs, r));
    if a.is_empty() || b.is_empty() {
        return None;
    }
    if a == b && a.len() > 2 {
        return Some("same words".into());
    }
    let run = longest_shared_run(&a, &b);
    if run > MAX_SHARED_RUN {
        return Some(format!("{run} consecutive words in common"));
    }
    let share = if a.len().min(b.len()) >= r.min_triple_words {
        triple_share(&a, &b)
    } else {
        0.0
    };
    if share > MAX_TRIPLE_SHARE {
        return Some(format!("{:.0}% of word triples in common", share * 100.0));
    }
    None
}
