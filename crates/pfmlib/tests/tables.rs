//! Every table, checked like libpfm4's `validate_table`: names, descriptions,
//! groups, defaults, flags; and the expected sizes of the complete tables.

use pfmlib::{AttrType, Host, Library, Os, Vendor};
use std::collections::HashSet;

fn all_hosts_lib() -> Library {
    // A Nehalem host with architectural perfmon v3 and every event available,
    // so every table (the architectural one too) has all its events.
    let mut h = Host::synthetic(Vendor::Intel, 6, 26);
    h.arch_perfmon = Some(pfmlib::ArchPerfmon {
        eax: 0x0730_0403,
        ebx: 0,
        edx: 0x0603,
    });
    Library::with_host(h)
}

/// Events whose table facts break a rule below on one PMU of a shared
/// table, exactly as in libpfm4 (whose own table check looks at the whole
/// shared table): the rule, the event, and why.
const LIBPFM4_FACTS: &[(&str, &str)] = &[
    // Its unit masks all exist on snb_ep only; libpfm4 lists it on snb too.
    ("cannot be encoded", "snb::MEM_LOAD_UOPS_LLC_MISS_RETIRED"),
    // One unit mask on bdw (the others are bdw_ep's), not marked default.
    ("single unit mask", "bdw::MEM_LOAD_UOPS_L3_MISS_RETIRED"),
    ("single unit mask", "bdw::MEM_LOAD_UOPS_LLC_MISS_RETIRED"),
];

fn known(rule: &str, ctx: &str) -> bool {
    LIBPFM4_FACTS.iter().any(|(r, e)| *r == rule && *e == ctx)
}

/// Unit masks of the table entry of event `name` at index `idx`, counted
/// over every PMU that shares the entry (same name, same position in its
/// table), as libpfm4's table validation counts them: an event whose other
/// unit masks belong to other models of its table is not a one-unit-mask
/// event.
fn entry_umasks(lib: &Library, name: &str, idx: u32) -> usize {
    const POSITION: u32 = (1 << 21) - 1;
    lib.pmus()
        .flat_map(|p| p.events())
        .filter(|e| {
            let i = e.info(Os::None);
            i.name == name && i.idx & POSITION == idx & POSITION
        })
        .map(|e| {
            e.attrs(Os::None)
                .iter()
                .filter(|a| a.attr_type == AttrType::Umask)
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// Events libpfm4 lists twice under one name, or names differing only in
/// case (the second copy is kept, so event indexes match, and can only be
/// reached by index): PMU name prefix and event.
const LIBPFM4_DUPLICATES: &[(&str, &str)] = &[
    ("hswep_unc_ha", "UNC_H_SBO0_CREDIT_OCCUPANCY"),
    ("ultra3p", "EC_miss_mtag_remote"),
    ("ultra4p", "SSM_L3_miss_mtag_remote"),
    ("ultra4p", "IU_stat_br_count_taken"),
];

#[test]
fn every_table_is_consistent() {
    let lib = all_hosts_lib();
    let mut problems = Vec::new();
    for pmu in lib.pmus() {
        let mut names = HashSet::new();
        for ev in pmu.events() {
            let info = ev.info(Os::None);
            let ctx = format!("{}::{}", pmu.name(), info.name);
            if !names.insert(info.name.to_ascii_uppercase())
                && !LIBPFM4_DUPLICATES
                    .iter()
                    .any(|(p, e)| pmu.name().starts_with(p) && info.name == *e)
            {
                problems.push(format!("{ctx}: duplicate event name"));
            }
            // "TODO": a description `pfm-vendorgen` left to be written.
            if info.desc.trim().is_empty() || info.desc == "TODO" {
                problems.push(format!("{ctx}: empty description"));
            }
            if let Some(eq) = info.equiv {
                let target = eq.split([':', '.']).next().unwrap_or_default();
                if pmu.event(target).is_none() {
                    problems.push(format!("{ctx}: alias names unknown event {target}"));
                }
            }
            let attrs = ev.attrs(Os::None);
            let mut unames = HashSet::new();
            for a in attrs.iter().filter(|a| a.attr_type == AttrType::Umask) {
                if !unames.insert(a.name.to_ascii_uppercase()) {
                    problems.push(format!("{ctx}:{}: duplicate unit mask", a.name));
                }
                if a.desc.trim().is_empty() || a.desc == "TODO" {
                    problems.push(format!("{ctx}:{}: empty description", a.name));
                }
            }
            let umask_count = unames.len();
            if umask_count == 1
                && pmu.name() != "perf"
                && !known("single unit mask", &ctx)
                && entry_umasks(&lib, info.name, info.idx) == 1
            {
                let only = attrs.iter().find(|a| a.attr_type == AttrType::Umask);
                if only.is_some_and(|a| !a.is_dfl) {
                    problems.push(format!("{ctx}: single unit mask is not the default"));
                }
            }
            let mut mnames = HashSet::new();
            for a in attrs.iter().filter(|a| a.attr_type != AttrType::Umask) {
                if !mnames.insert(a.name) {
                    problems.push(format!("{ctx}: duplicate modifier {}", a.name));
                }
            }
            if info.is_precise
                && pmu.name() != "perf"
                && umask_count > 0
                && !attrs.iter().any(|a| a.is_precise)
            {
                problems.push(format!("{ctx}: precise event without a precise unit mask"));
            }
            // Every event must encode on its own or with one of its unit masks.
            let alone = lib.encode(&ctx, pfmlib::Plm::DEFAULT, Os::None);
            let with_umask = attrs
                .iter()
                .filter(|a| a.attr_type == AttrType::Umask)
                .any(|a| {
                    lib.encode(&format!("{ctx}:{}", a.name), pfmlib::Plm::DEFAULT, Os::None)
                        .is_ok()
                });
            // An event that requires a modifier (libpfm4's modmsk_req, e.g.
            // a frequency band's ff=) encodes once it is given.
            let with_modifier = attrs
                .iter()
                .filter(|a| a.attr_type == AttrType::ModInteger)
                .any(|a| {
                    lib.encode(
                        &format!("{ctx}:{}=1", a.name),
                        pfmlib::Plm::DEFAULT,
                        Os::None,
                    )
                    .is_ok()
                });
            if alone.is_err() && !with_umask && !with_modifier && !known("cannot be encoded", &ctx)
            {
                problems.push(format!(
                    "{ctx}: cannot be encoded at all ({:?})",
                    alone.err()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} table problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn complete_tables_have_libpfm4_sizes() {
    let lib = all_hosts_lib();
    let count = |name: &str| {
        let p = lib.pmu(name).expect("pmu");
        let events: Vec<_> = p.events().collect();
        let umasks: usize = events
            .iter()
            .map(|e| {
                e.attrs(Os::None)
                    .iter()
                    .filter(|a| a.attr_type == AttrType::Umask)
                    .count()
            })
            .sum();
        (events.len(), umasks)
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sizes");
    let mut pinned = 0;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/sizes")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable sizes file");
        for line in text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let w: Vec<&str> = line.split_whitespace().collect();
            let [pmu, events, umasks] = w[..] else {
                panic!("{}: bad line {line:?}", f.display());
            };
            let want = (
                events.parse().expect("events"),
                umasks.parse().expect("umasks"),
            );
            assert_eq!(count(pmu), want, "{pmu} ({})", f.display());
            pinned += 1;
        }
    }
    // Every PMU pfmlib has is pinned.
    assert_eq!(
        pinned,
        lib.pmus().count(),
        "a PMU without a line in tests/sizes"
    );
}
