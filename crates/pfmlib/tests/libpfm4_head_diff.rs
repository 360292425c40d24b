//! Differential sweep against libpfm4 upstream's x86_64 build (`make lib`
//! of the tree in `../shared/oracle/libpfm4-head/`, found through
//! `PFMLIB_LIBPFM4_HEAD`, see `common/head.rs`), as `libpfm4_diff.rs` does
//! against 4.13: the tables of every PMU of the build (events, unit masks,
//! modifiers, per OS layer) and every event string of each distinct table
//! (plus the AMD PMUs that share a table but not their perf attributes or
//! ids) in PFM_OS_NONE, PFM_OS_PERF_EVENT and PFM_OS_PERF_EVENT_EXT; and
//! every description is our own against upstream's. The oracle is loaded
//! once for the process, so the tests may run in parallel.

mod common;

use common::head::{self, not_yet};
use common::sweep::*;
use pfmlib::{AttrType, Library, Os};
use std::collections::BTreeMap;

/// PMUs pfmlib does not follow upstream for yet (see `common/head.rs`):
/// skipped, and printed; emptied when every table is in.
const NOT_YET: &[&str] = &[];

/// PMUs sharing a table (in PFM_OS_NONE) with one the sweep covers, but
/// not their perf_events attributes or ids (see `libpfm4_diff_amd.rs`).
const SHARED_TABLE_PMUS: &[&str] = &["amd64_fam17h_zen1", "amd64_k8_revc", "amd64_k8_revg"];

/// Test threads the sweep is split over.
const SHARDS: usize = 4;

/// The PMUs compared: those of the build (selected), all but `NOT_YET`;
/// one pfmlib lacks outside `NOT_YET` fails.
fn checked(o: &pfm_oracle::Libpfm4, lib: &Library) -> Vec<String> {
    let names = shared_pmus(o, lib);
    let mut skipped = Vec::new();
    let mut missing = Vec::new();
    for p in o.pmus().into_iter().filter(|p| selected(&p.name)) {
        if not_yet(NOT_YET, &p.name) {
            skipped.push((p.name, p.nevents as usize));
        } else if !names.contains(&p.name) {
            missing.push(p.name);
        }
    }
    assert!(
        missing.is_empty(),
        "upstream PMUs pfmlib lacks: {missing:?}"
    );
    head::print_skips(
        "libpfm4_head_diff",
        "events (of skipped PMUs)",
        NOT_YET,
        &skipped,
    );
    names.into_iter().filter(|n| !not_yet(NOT_YET, n)).collect()
}

#[test]
fn tables_match_libpfm4_head() {
    let Some(o) = head::oracle(head::X86_64) else {
        return;
    };
    let theirs = o.pmus();
    let events: usize = theirs.iter().map(|p| p.nevents as usize).sum();
    if std::env::var_os("PFMLIB_SWEEP_PMUS").is_none() {
        assert_eq!(
            (theirs.len(), events),
            head::X86_64_SIZE,
            "the oracle's size"
        );
    }
    let lib = Library::global();
    let names = checked(o, lib);
    let diffs = compare_tables(o, lib, &names);
    eprintln!(
        "tables compared with libpfm4 upstream: {} of {} PMUs",
        names.len(),
        theirs.len()
    );
    report("table", &diffs, 0);
}

fn sweep_shard(k: usize) {
    let Some(o) = head::oracle(head::X86_64) else {
        return;
    };
    let lib = Library::global();
    let all = checked(o, lib);
    let mut names = one_per_table(lib, &all);
    names.extend(
        SHARED_TABLE_PMUS
            .iter()
            .filter(|p| all.iter().any(|n| n == *p))
            .map(|p| p.to_string()),
    );
    let mut diffs = Vec::new();
    let mut total = 0;
    for (i, pmu) in names.iter().enumerate() {
        if i % SHARDS != k {
            continue;
        }
        let (d, n) = sweep_pmu(o, lib, pmu);
        eprintln!(
            "head sweep {pmu}: {n} strings x 3 OS layers, {} differences",
            d.len()
        );
        diffs.extend(d);
        total += n;
    }
    report(&format!("head sweep shard {k}"), &diffs, total);
}

#[test]
fn sweep_head_shard_0() {
    sweep_shard(0);
}

#[test]
fn sweep_head_shard_1() {
    sweep_shard(1);
}

#[test]
fn sweep_head_shard_2() {
    sweep_shard(2);
}

#[test]
fn sweep_head_shard_3() {
    sweep_shard(3);
}

/// Every event and unit-mask description of the PMUs compared is our own
/// against upstream's (the rules of `own_words.rs`).
#[test]
fn descriptions_are_our_own_head() {
    let Some(o) = head::oracle(head::X86_64) else {
        return;
    };
    let lib = Library::global();
    let mut bad = Vec::new();
    let mut checked_n = 0usize;
    for name in checked(o, lib) {
        let (Some(theirs), Some(ours)) = (o.pmu_by_name(&name), lib.pmu(&name)) else {
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
                info.name.to_string(),
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
                        format!("{}:{}", info.name, a.name),
                        a.desc.to_string(),
                        ta.desc.clone(),
                    ));
                }
            }
            for (what, mine, other) in pairs {
                checked_n += 1;
                if let Some(why) = common::words::copied_by(&mine, &other, common::words::PROSE) {
                    bad.push(format!(
                        "{name}::{what}: {why}\n    ours:    {mine}\n    upstream: {other}"
                    ));
                }
            }
        }
    }
    eprintln!(
        "descriptions checked against libpfm4 upstream: {checked_n}, too close: {}",
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "descriptions too close to upstream's:\n{}",
        bad.join("\n")
    );
}

/// The odd strings of the 4.13 sweep (unprefixed names, case, repeated
/// modifiers, odd values, the fully-qualified string limit) against
/// upstream.
#[test]
fn odd_strings_head() {
    let Some(o) = head::oracle(head::X86_64) else {
        return;
    };
    let (diffs, n) = x86_odd_strings(Library::global(), o);
    report("head odd strings", &diffs, n);
}
