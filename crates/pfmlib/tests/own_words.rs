//! Descriptions are our own words: for every PMU both libraries have, no
//! event or unit-mask description may equal libpfm4's (ignoring case,
//! spacing and punctuation), nor share a run of eight or more consecutive
//! words with it, nor (when both are sentences of eight words or more)
//! share most of its word triples. Names, codes and flags are facts and may
//! agree; prose may not: identifiers (words with an underscore, such as
//! `PERF_COUNT_HW_CPU_CYCLES`) are left out of the comparison.
//!
//! Needs `libpfm.so.4`; without it the test says so and passes, unless
//! `PFMLIB_REQUIRE_LIBPFM4` is set.

use pfm_oracle::Libpfm4;
use pfmlib::{AttrType, Library, Os};
use std::collections::BTreeMap;

#[path = "common/words.rs"]
mod words;

/// Why `ours` reads as a copy of `theirs`, if it does.
fn copied(ours: &str, theirs: &str) -> Option<String> {
    words::copied_by(ours, theirs, words::PROSE)
}

#[test]
fn descriptions_are_our_own() {
    let o = match Libpfm4::load() {
        Ok(o) => o,
        Err(e) => {
            if std::env::var_os("PFMLIB_REQUIRE_LIBPFM4").is_some() {
                panic!("libpfm4 required but not loadable: {e}");
            }
            eprintln!("SKIPPED: libpfm4 not available ({e})");
            return;
        }
    };
    let lib = Library::global();
    let mut bad = Vec::new();
    let mut checked = 0usize;
    for theirs in o.pmus() {
        let Some(ours) = lib.pmu(&theirs.name) else {
            continue;
        };
        let their_events: BTreeMap<String, _> = o
            .events(&theirs, 0)
            .into_iter()
            .map(|e| (e.name.clone(), e))
            .collect();
        for ev in ours.events() {
            let Some(te) = their_events.get(ev.name()) else {
                continue;
            };
            let info = ev.info(Os::None);
            let mut pairs = vec![(
                format!("{}::{}", theirs.name, info.name),
                info.desc.to_string(),
                te.desc.clone(),
            )];
            for a in ev
                .attrs(Os::None)
                .iter()
                .filter(|a| a.attr_type == AttrType::Umask)
            {
                if let Some(ta) = te.attrs.iter().find(|t| t.name == a.name && t.type_ == 1) {
                    pairs.push((
                        format!("{}::{}:{}", theirs.name, info.name, a.name),
                        a.desc.to_string(),
                        ta.desc.clone(),
                    ));
                }
            }
            for (what, mine, other) in pairs {
                checked += 1;
                if let Some(why) = copied(&mine, &other) {
                    bad.push(format!(
                        "{what}: {why}\n    ours:    {mine}\n    libpfm4: {other}"
                    ));
                }
            }
        }
    }
    eprintln!(
        "descriptions checked against libpfm4: {checked}, too close: {}",
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "descriptions too close to libpfm4's:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_closeness_rules() {
    assert!(copied(
        "Counts retired instructions.",
        "counts RETIRED instructions"
    )
    .is_some());
    assert!(copied(
        "number of cycles the divider is busy executing divide or square root operations",
        "Cycles the divider is busy executing divide or square root operations"
    )
    .is_some());
    assert!(copied(
        "Instructions retired",
        "Instructions retired from execution"
    )
    .is_none());
    assert!(copied("Loads that hit the L1 data cache.", "L1D hits by loads").is_none());
}
