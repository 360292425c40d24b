//! The differential sweep against a libpfm4 oracle, shared by the test
//! files of each oracle build (the installed x86 library; libraries built
//! for other architectures): table comparison, the event strings of one
//! event, the comparison of one string in three OS layers.

#![allow(dead_code)]

use pfm_oracle::{Libpfm4, PerfFields};
use pfmlib::{AttrType, Library, Os, Plm};
use std::collections::BTreeSet;

/// libpfm4's number of an OS layer.
pub fn os_code(os: Os) -> i32 {
    os.code() as i32
}

/// Whether `PFMLIB_SWEEP_PMUS` (a comma-separated list of PMU names, `*`
/// ending a prefix) selects this PMU; every PMU when it is unset. For
/// working on one table against an oracle; CI never sets it.
pub fn selected(name: &str) -> bool {
    let Some(list) = std::env::var_os("PFMLIB_SWEEP_PMUS") else {
        return true;
    };
    list.to_string_lossy()
        .split(',')
        .any(|w| match w.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == w,
        })
}

/// The PMUs both libraries know (those [`selected`]), by name, in
/// libpfm4's id order.
pub fn shared_pmus(o: &Libpfm4, lib: &Library) -> Vec<String> {
    o.pmus()
        .into_iter()
        .filter(|p| selected(&p.name) && lib.pmu(&p.name).is_some())
        .map(|p| p.name)
        .collect()
}

/// One PMU per distinct event table (the first by name of PMUs whose events
/// are the same), so shared tables are swept once.
pub fn one_per_table(lib: &Library, names: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for n in names {
        let Some(p) = lib.pmu(n) else { continue };
        let key: Vec<(String, u64, usize)> = p
            .events()
            .map(|e| {
                let i = e.info(Os::None);
                (i.name.to_string(), i.code, e.attrs(Os::None).len())
            })
            .collect();
        if seen.insert(key) {
            out.push(n.clone());
        }
    }
    out
}

/// Compares the tables of `names` (events, unit masks, modifiers, per OS
/// layer) and returns the differences.
pub fn compare_tables(o: &Libpfm4, lib: &Library, names: &[String]) -> Vec<String> {
    let mut diffs = Vec::new();
    for name in names {
        let theirs = o.pmu_by_name(name).expect("libpfm4 knows the PMU");
        let ours = lib.pmu(name).expect("pfmlib knows the PMU");
        let info = ours.info();
        let check = |what: &str, a: String, b: String, diffs: &mut Vec<String>| {
            if a != b {
                diffs.push(format!("{name}: {what}: pfmlib={a} libpfm4={b}"));
            }
        };
        check(
            "nevents",
            info.nevents.to_string(),
            theirs.nevents.to_string(),
            &mut diffs,
        );
        check(
            "num_cntrs",
            info.num_cntrs.to_string(),
            theirs.num_cntrs.to_string(),
            &mut diffs,
        );
        check(
            "num_fixed",
            info.num_fixed_cntrs.to_string(),
            theirs.num_fixed_cntrs.to_string(),
            &mut diffs,
        );
        check(
            "max_encoding",
            info.max_encoding.to_string(),
            theirs.max_encoding.to_string(),
            &mut diffs,
        );
        check(
            "kind",
            info.kind.code().to_string(),
            theirs.kind.to_string(),
            &mut diffs,
        );
        for os in [Os::None, Os::PerfEvent, Os::PerfEventExt] {
            let tev = o.events(&theirs, os_code(os));
            let oev: Vec<_> = ours.events().collect();
            check(
                &format!("{os:?} event count"),
                oev.len().to_string(),
                tev.len().to_string(),
                &mut diffs,
            );
            for (a, b) in oev.iter().zip(tev.iter()) {
                let ai = a.info(os);
                let ctx = format!("{os:?} {}", b.name);
                check(
                    &format!("{ctx} name"),
                    ai.name.into(),
                    b.name.clone(),
                    &mut diffs,
                );
                check(
                    &format!("{ctx} code"),
                    format!("{:#x}", ai.code),
                    format!("{:#x}", b.code),
                    &mut diffs,
                );
                check(
                    &format!("{ctx} equiv"),
                    format!("{:?}", ai.equiv),
                    format!("{:?}", b.equiv.as_deref()),
                    &mut diffs,
                );
                check(
                    &format!("{ctx} precise"),
                    ai.is_precise.to_string(),
                    b.is_precise.to_string(),
                    &mut diffs,
                );
                check(
                    &format!("{ctx} spec"),
                    ai.speculation.code().to_string(),
                    b.speculation.to_string(),
                    &mut diffs,
                );
                check(
                    &format!("{ctx} hw_smpl"),
                    ai.support_hw_smpl.to_string(),
                    b.support_hw_smpl.to_string(),
                    &mut diffs,
                );
                check(
                    &format!("{ctx} idx"),
                    ai.idx.to_string(),
                    b.idx.to_string(),
                    &mut diffs,
                );
                check(
                    &format!("{ctx} nattrs"),
                    ai.nattrs.to_string(),
                    b.nattrs.to_string(),
                    &mut diffs,
                );
                for (x, y) in a.attrs(os).iter().zip(b.attrs.iter()) {
                    let actx = format!("{ctx}:{}", y.name);
                    check(
                        &format!("{actx} name"),
                        x.name.into(),
                        y.name.clone(),
                        &mut diffs,
                    );
                    check(
                        &format!("{actx} type"),
                        x.attr_type.code().to_string(),
                        y.type_.to_string(),
                        &mut diffs,
                    );
                    check(
                        &format!("{actx} ctrl"),
                        x.ctrl.code().to_string(),
                        y.ctrl.to_string(),
                        &mut diffs,
                    );
                    check(
                        &format!("{actx} code"),
                        format!("{:#x}", x.code),
                        format!("{:#x}", y.code),
                        &mut diffs,
                    );
                    check(
                        &format!("{actx} dfl"),
                        x.is_dfl.to_string(),
                        y.is_dfl.to_string(),
                        &mut diffs,
                    );
                    check(
                        &format!("{actx} precise"),
                        x.is_precise.to_string(),
                        y.is_precise.to_string(),
                        &mut diffs,
                    );
                    check(
                        &format!("{actx} spec"),
                        x.speculation.code().to_string(),
                        y.speculation.to_string(),
                        &mut diffs,
                    );
                    check(
                        &format!("{actx} hw_smpl"),
                        x.support_hw_smpl.to_string(),
                        y.support_hw_smpl.to_string(),
                        &mut diffs,
                    );
                    check(
                        &format!("{actx} desc present"),
                        (!x.desc.is_empty()).to_string(),
                        (!y.desc.is_empty()).to_string(),
                        &mut diffs,
                    );
                    check(
                        &format!("{actx} equiv"),
                        format!("{:?}", x.equiv),
                        format!("{:?}", y.equiv.as_deref()),
                        &mut diffs,
                    );
                }
            }
        }
    }
    diffs
}

/// The unit masks unit mask `i` is paired with: every one for events with
/// few unit masks (at most [`ALL_PAIRS_UP_TO`]), else a sample that still
/// meets every group and both orders: itself, its neighbours, the first and
/// last, and one from each stride of the list.
fn pair_partners<'a>(umasks: &'a [&'static str], i: usize) -> Vec<&'a str> {
    let n = umasks.len();
    if n <= ALL_PAIRS_UP_TO {
        return umasks.to_vec();
    }
    let mut picks = vec![i, (i + 1) % n, (i + 2) % n, (i + n - 1) % n, 0, n - 1];
    let stride = n / 6 + 1;
    picks.extend((i % stride..n).step_by(stride));
    picks.sort_unstable();
    picks.dedup();
    picks.into_iter().map(|j| umasks[j]).collect()
}

/// Events with at most this many unit masks get every ordered pair.
const ALL_PAIRS_UP_TO: usize = 12;

/// Event strings for one event: alone, each unit mask, pairs, modifiers.
pub fn strings_for(lib: &Library, pmu: &str, event: &str) -> Vec<String> {
    let ev = lib
        .pmu(pmu)
        .and_then(|p| p.event(event))
        .expect("event exists");
    let base = format!("{pmu}::{event}");
    let mut umasks = Vec::new();
    let mut mods: BTreeSet<(&'static str, AttrType)> = BTreeSet::new();
    for os in [Os::None, Os::PerfEventExt] {
        for a in ev.attrs(os) {
            match a.attr_type {
                AttrType::Umask => {
                    if os == Os::None {
                        umasks.push(a.name)
                    }
                }
                t => {
                    mods.insert((a.name, t));
                }
            }
        }
    }
    // Modifiers offered only by the other layers, to check they are refused.
    for m in [
        "u", "k", "h", "precise", "period", "hw_smpl", "ldlat", "t", "c",
    ] {
        if !mods.iter().any(|(n, _)| *n == m) {
            mods.insert((m, AttrType::ModBool));
        }
    }
    let mut v = vec![
        base.clone(),
        base.to_lowercase(),
        format!("{base}:"),
        format!("{base}:NO_SUCH_UMASK"),
    ];
    for (i, u) in umasks.iter().enumerate() {
        v.push(format!("{base}:{u}"));
        v.push(format!("{base}.{}", u.to_lowercase()));
        v.push(format!("{base}:{u}=1"));
        for w in pair_partners(&umasks, i) {
            v.push(format!("{base}:{u}:{w}"));
        }
    }
    let prefixes: Vec<String> = std::iter::once(base.clone())
        .chain(umasks.first().map(|u| format!("{base}:{u}")))
        .collect();
    let int_vals = [
        "0", "1", "2", "3", "4", "5", "255", "256", "4095", "65535", "65536", "0x10", "010", "-1",
        "abc", "",
    ];
    let bool_vals = ["0", "1", "2", "y", "n", "t", "F", "yes", ""];
    for p in &prefixes {
        for (m, t) in &mods {
            v.push(format!("{p}:{m}"));
            let vals: &[&str] = if *t == AttrType::ModInteger {
                &int_vals
            } else {
                &bool_vals
            };
            for val in vals {
                v.push(format!("{p}:{m}={val}"));
            }
        }
        // Combinations and repeats.
        v.push(format!("{p}:u:k=0"));
        v.push(format!("{p}:k=0:u=0"));
        v.push(format!("{p}:u=1:u=1"));
        v.push(format!("{p}:u=1:u=0"));
        v.push(format!("{p}:c=1:e"));
        v.push(format!("{p}:c=2:i:e=0"));
        v.push(format!("{p}:t=1:c=3"));
        v.push(format!("{p}:period=1000:precise=1"));
        v.push(format!("{p}:freq=100:precise=2"));
        v.push(format!("{p}:period=10:freq=10"));
        v.push(format!("{p}:mg:mh"));
        v.push(format!("{p}:mg=0:mh=0"));
        v.push(format!("{p}:excl:pinned:cpu=3"));
        v.push(format!("{p}:h:u"));
        v.push(format!("{p}:ldlat=4:c=1"));
        v.push(format!("{p}:0x12"));
        v.push(format!("{p}:0xff"));
        v.push(format!("{p}:0x1ff"));
        v.push(format!("{p}:0xfffff"));
    }
    v
}

pub fn compare_one(lib: &Library, o: &Libpfm4, s: &str, plm: Plm, diffs: &mut Vec<String>) {
    // PFM_OS_NONE
    let ours = lib.encode(s, plm, Os::None);
    let theirs = o.encode_raw(s, plm.bits());
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => {
            if a.fstr != b.fstr || a.codes != b.codes || a.idx as i32 != b.idx {
                diffs.push(format!(
                    "none {s:?}: pfmlib {} {:x?} idx {} / libpfm4 {} {:x?} idx {}",
                    a.fstr, a.codes, a.idx, b.fstr, b.codes, b.idx
                ));
            }
        }
        (Err(a), Err(b)) if a.code() == *b => {}
        _ => diffs.push(format!(
            "none {s:?}: pfmlib {:?} / libpfm4 {:?}",
            ours.as_ref()
                .map(|e| (&e.fstr, &e.codes))
                .map_err(|e| (e.code(), e.to_string())),
            theirs.as_ref().map(|e| (&e.fstr, &e.codes))
        )),
    }
    for (os, ext) in [(Os::PerfEvent, false), (Os::PerfEventExt, true)] {
        let ours = lib.encode(s, plm, os);
        let theirs = o.encode_perf(s, plm.bits(), ext);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => {
                let p = a.perf.expect("perf fields");
                let mine = PerfFields {
                    type_: p.type_,
                    config: p.config,
                    config1: p.config1,
                    config2: p.config2,
                    exclude_user: p.exclude_user,
                    exclude_kernel: p.exclude_kernel,
                    exclude_hv: p.exclude_hv,
                    exclude_host: p.exclude_host,
                    exclude_guest: p.exclude_guest,
                    precise_ip: p.precise_ip,
                    sample_period: p.sample_period,
                    freq: p.freq,
                    pinned: p.pinned,
                    exclusive: p.exclusive,
                };
                let cpu = a.cpu.unwrap_or(-1);
                if a.fstr != b.fstr || Some(mine) != b.perf || cpu != b.cpu || a.idx as i32 != b.idx
                {
                    diffs.push(format!(
                        "{os:?} {s:?}: pfmlib {} {mine:?} cpu {cpu} / libpfm4 {} {:?} cpu {}",
                        a.fstr, b.fstr, b.perf, b.cpu
                    ));
                }
            }
            (Err(a), Err(b)) if a.code() == *b => {}
            _ => diffs.push(format!(
                "{os:?} {s:?}: pfmlib {:?} / libpfm4 {:?}",
                ours.as_ref()
                    .map(|e| &e.fstr)
                    .map_err(|e| (e.code(), e.to_string())),
                theirs.as_ref().map(|e| &e.fstr)
            )),
        }
    }
}

pub fn report(what: &str, diffs: &[String], total: usize) {
    if !diffs.is_empty() {
        for d in diffs.iter().take(60) {
            eprintln!("DIFF {d}");
        }
        panic!(
            "{what}: {} differences with libpfm4 (of {total} checks)",
            diffs.len()
        );
    }
    eprintln!("{what}: 100% agreement with libpfm4 ({total} strings x 3 OS layers)");
}

/// Encodes every event string of `strings_for` for one PMU in both libraries;
/// returns the differences and the number of strings.
pub fn sweep_pmu(o: &Libpfm4, lib: &Library, pmu: &str) -> (Vec<String>, usize) {
    let mut diffs = Vec::new();
    let mut n = 0;
    let names: Vec<&str> = lib
        .pmu(pmu)
        .expect("pmu")
        .events()
        .map(|e| e.name())
        .collect();
    for ev in names {
        for s in strings_for(lib, pmu, ev) {
            n += 1;
            compare_one(lib, o, &s, Plm::DEFAULT, &mut diffs);
        }
        // Other default privilege levels.
        for plm in [Plm::PLM3, Plm::PLM0, Plm::ALL, Plm::PLM1 | Plm::PLMH] {
            n += 1;
            compare_one(lib, o, &format!("{pmu}::{ev}"), plm, &mut diffs);
        }
    }
    (diffs, n)
}

/// Strings beyond the per-event sweep (x86 builds): empty and partial
/// names, unprefixed names, case, repeated and conflicting modifiers, odd
/// values, a fully-qualified string longer than libpfm4's limit. Returns
/// the differences and the number of strings.
pub fn x86_odd_strings(lib: &Library, o: &Libpfm4) -> (Vec<String>, usize) {
    let mut diffs = Vec::new();
    let cases = [
        "",
        "::",
        "nhm::",
        "::cycles",
        "nhm::ARITH,nhm::ARITH",
        "nhm::ARITH MUL",
        "cycles",
        "CYCLES",
        "instructions",
        "perf::cycles::u",
        "perf::cycles:u:",
        "nhm::ARITH:DIV:MUL",
        "nhm::ARITH:DIV:i=0",
        "nhm::ARITH:DIV:c=1",
        "nhm::arith:mul:mul:mul",
        "nhm::ARITH:mul:mul:mul:mul",
        "NHM::ARITH:MUL",
        "nhm::ARITH:MUL:U",
        "nhm::ARITH:MUL:K=1",
        "nhm::OFFCORE_RESPONSE_0:ANY_REQUEST:DMND_RFO",
        "nhm::OFFCORE_RESPONSE_0:0xffffffffff",
        "nhm::OFFCORE_RESPONSE_0:0x3fffffffff",
        "nhm::ILD_STALL:ANY",
        "nhm::MEM_INST_RETIRED:LOADS",
        "nhm::UOPS_DECODED_DEC0:u",
        "perf::L1-DCACHE-LOADS:MISS",
        "perf::L1-DCACHE-LOADS:READ",
        "perf::PERF_COUNT_HW_CACHE_L1D:READ:WRITE:MISS",
        "nhm::ARITH:0x1:0x2",
        "nhm::ARITH:MUL:c=0x",
        "nhm::ARITH:MUL:c=\r3",
        "nhm::ARITH:MUL:c=99999999999999999999999",
        "perf::cycles:period=18446744073709551615",
        "perf::cycles:cpu=-1",
        "nhm::INST_RETIRED:ANY_P:c=1:c=1:c=1",
    ];
    for s in cases {
        compare_one(lib, o, s, Plm::DEFAULT, &mut diffs);
    }
    // Very long strings exercise the fully-qualified string limit.
    let mut long = String::from("nhm::OFFCORE_RESPONSE_0");
    for u in lib
        .pmu("nhm")
        .and_then(|p| p.event("OFFCORE_RESPONSE_0"))
        .map(|e| e.attrs(Os::None))
        .unwrap_or_default()
    {
        if u.attr_type == AttrType::Umask && !u.name.starts_with("ANY") {
            long.push(':');
            long.push_str(u.name);
        }
    }
    compare_one(lib, o, &long, Plm::DEFAULT, &mut diffs);
    (diffs, cases.len() + 1)
}
