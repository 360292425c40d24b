//! The IBM Power Torrent PMU (`power_torrent`) against one powerpc build of
//! libpfm4 (4.13's or upstream's, `common/arm.rs`'s `Build`): its table,
//! every event in the sweep's strings and in strings of its own (the
//! modifiers libpfm4 names but never offers, perf's attributes taken as
//! them), odd strings, and our own descriptions. Until the whole powerpc
//! build is compared (`libpfm4_diff_powerpc.rs`), this is Torrent's check.

#![allow(dead_code)]

use super::arm::{odd_strings_of, oracle, Build};
use super::sweep::{compare_one, compare_tables, report, sweep_pmu};
use pfm_oracle::Libpfm4;
use pfmlib::{Library, Os, Plm, PmuKind};

/// The PMU.
pub const PMU: &str = "power_torrent";

/// pfmlib as the oracle answers on this (non-PowerPC) host: nothing
/// detected, every PMU encodable with its prefix.
fn library() -> Library {
    super::arm::library()
}

/// The table: counts, kind, events, codes, attributes in the three OS layers.
pub fn tables(build: Build) {
    let Some(o) = oracle(build) else { return };
    let lib = library();
    let theirs = o.pmu_by_name(PMU).expect("the build has power_torrent");
    assert!(!theirs.is_present, "libpfm4 finds no Torrent chip here");
    let diffs = compare_tables(&o, &lib, &[PMU.to_string()]);
    report(&format!("{build:?} table {PMU}"), &diffs, 1);
    let ours = lib.pmu(PMU).expect("pfmlib has power_torrent").info();
    assert_eq!(ours.id, theirs.id as u32);
    assert_eq!(ours.kind, PmuKind::Unknown);
    assert_eq!(ours.supported_plm.bits(), 0);
    assert!(!ours.is_present);
}

/// The sweep's strings for every event, then strings of our own for every
/// event, with the default privilege levels.
pub fn sweep(build: Build) {
    let Some(o) = oracle(build) else { return };
    let lib = library();
    let (mut diffs, mut n) = sweep_pmu(&o, &lib, PMU);
    let (d, m) = own_strings(&o, &lib);
    diffs.extend(d);
    n += m;
    eprintln!(
        "{build:?} sweep {PMU}: {n} strings x 3 OS layers, {} differences",
        diffs.len()
    );
    report(&format!("{build:?} sweep {PMU}"), &diffs, n);
}

/// Attributes tried on every event: the modifiers of libpfm4's table (never
/// offered), in and out of range; perf's attributes alone and in the
/// combinations the encoder reads as modifiers; repeats.
const PER_EVENT: &[&str] = &[
    ":type=0",
    ":type=3",
    ":type=4",
    ":sel=1",
    ":sel=9",
    ":lo_cmp=31",
    ":lo_cmp=32",
    ":hi_cmp=5",
    ":hi_cmp=99",
    ":type",
    ":sel",
    ":u",
    ":k",
    ":h",
    ":u=0",
    ":k=0",
    ":u:k",
    ":k:u",
    ":u=0:k=1",
    ":u:k:h",
    ":h:k:u",
    ":mg",
    ":mh",
    ":u:mg",
    ":k:mh",
    ":mg:mh",
    ":u:u",
    ":u=1:u=0",
    ":k:k=0",
    ":period=100",
    ":freq=10",
    ":excl",
    ":cpu=2",
    ":pinned",
    ":u:period=7",
    ":k:excl",
    ":u:k:cpu=1",
    ":u:k:pinned",
    ":precise=1",
    ":hw_smpl",
    ":0x1",
    ":PM_PBUS_W_IN_IDLE",
];

/// [`PER_EVENT`] on every event, and each event's name in lower case with
/// `:u:k`.
fn own_strings(o: &Libpfm4, lib: &Library) -> (Vec<String>, usize) {
    let mut diffs = Vec::new();
    let mut n = 0;
    let names: Vec<&str> = lib
        .pmu(PMU)
        .expect("pmu")
        .events()
        .map(|e| e.name())
        .collect();
    for ev in names {
        for a in PER_EVENT {
            n += 1;
            compare_one(lib, o, &format!("{PMU}::{ev}{a}"), Plm::DEFAULT, &mut diffs);
        }
        n += 1;
        let lower = format!("{PMU}::{}:u:k", ev.to_lowercase());
        compare_one(lib, o, &lower, Plm::PLM3, &mut diffs);
    }
    (diffs, n)
}

/// Strings beyond the per-event ones: without the prefix (the PMU is not
/// present), the PMU's name in other cases, empty and unknown parts, two
/// events, long attribute lists.
pub const ODD: &[&str] = &[
    "PM_PBUS_W_DISABLED",
    "PM_PBUS_MCD0_CASTOUT:u",
    "POWER_TORRENT::PM_PBUS_W_DISABLED",
    "Power_Torrent::pm_mmu_g_mmchit:U",
    "power_torrent::",
    "power_torrent::NO_SUCH_EVENT",
    "power_torrent::PM_PBUS_W_DISABLED:",
    "power_torrent::PM_PBUS_W_DISABLED::u",
    "power_torrent::PM_PBUS_W_DISABLED,power_torrent::PM_MMU_G_MMCHIT",
    "power_torrent::PM_PBUS_MCD1_EMQ_NOT_MT:u=1:u=1",
    "power_torrent::PM_PBUS_MCD1_EMQ_NOT_MT:u=1:k=1",
    "power_torrent::PM_PBUS_MCD1_EMQ_NOT_MT:u=2",
    "power_torrent::PM_PBUS_MCD1_EMQ_NOT_MT:u=y",
    "power_torrent::PM_PBUS_MCD1_EMQ_NOT_MT:type=1:u",
    "power_torrent::PM_PBUS_UTIL_PB_APM_NM_HI_CNT:u:k:h:mg:mh",
    "power_torrent::PM_PBUS_UTIL_PB_APM_NM_LO_CNT:u:k:period=10:excl:cpu=0:pinned",
    "power_torrent::PM_PBUS_UTIL_PB_APM_LM_HI_CNT:k:k:u",
    "power_torrent::PM_PBUS_UTIL_PB_APM_LM_LO_CNT:u=0:k=0:h=0",
    "power_torrent::PM_PBUS_UTIL_NODE_MASTER_PUMPS:u:k:h:mg:mh:excl:pinned",
    "power_torrent::PM_PBUS_UTIL_PB_APM_LM_LO_CNT:sel=1:lo_cmp=2",
    "power_torrent::PM_PBUS_UTIL_PB_APM_LM_LO_CNT:period=0",
    "power_torrent::PM_PBUS_UTIL_PB_APM_LM_LO_CNT:freq=5:period=5",
    "power_torrent::PM_PBUS_UTIL_PB_APM_LM_LO_CNT:cpu=-1",
    "power_torrent::PM_PBUS_UTIL_PB_APM_LM_LO_CNT:cpu=2147483647",
    "power_torrent::PM_PBUS_LL6_OUT_ISR:u:k:h:mg:mh:u:k:h",
    "power_torrent::PM_CAU_CYCLES_WAITING_ON_A_CREDIT:pinned=0",
    "power_torrent::PM_CAU_CYCLES_WAITING_ON_A_CREDIT.u",
];

/// [`ODD`], with every default privilege level mask.
pub fn odd_strings(build: Build) {
    odd_strings_of(build, ODD, &[]);
}

/// Every event description is our own (the PMU's events list no attribute,
/// so that is all libpfm4 shows), and so is every modifier's, compared with
/// libpfm4's `torrent_modifiers` in its source when that is at hand.
pub fn own_words(build: Build) {
    let Some(o) = oracle(build) else { return };
    let lib = library();
    let theirs = o.pmu_by_name(PMU).expect("shared");
    let ours = lib.pmu(PMU).expect("shared");
    let mut bad = Vec::new();
    let mut checked = 0;
    for (a, b) in ours.events().zip(o.events(&theirs, 0)) {
        let info = a.info(Os::None);
        checked += 1;
        if let Some(why) = super::words::copied(info.desc, &b.desc) {
            bad.push(format!("{}: {why}", info.name));
        }
    }
    for (m, theirs) in pfmlib_defs::power_torrent::MODIFIERS
        .iter()
        .zip(modifier_descs(build))
    {
        checked += 1;
        if let Some(why) = super::words::copied(m.desc, &theirs) {
            bad.push(format!("modifier {}: {why}", m.name));
        }
    }
    eprintln!(
        "{build:?}: {PMU} descriptions checked: {checked}, too close: {}",
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "too close to libpfm4's:\n{}",
        bad.join("\n")
    );
}

/// The descriptions of libpfm4's `torrent_modifiers`, from the source tree
/// of `build` (empty when it is not at hand).
fn modifier_descs(build: Build) -> Vec<String> {
    let var = if build.is_head() {
        super::head::SRC
    } else {
        "PFMLIB_LIBPFM4_SRC"
    };
    let Some(dir) = std::env::var_os(var) else {
        return Vec::new();
    };
    let path = std::path::Path::new(&dir).join("lib/pfmlib_torrent.c");
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("PFM_ATTR_I("))
        .filter_map(|rest| rest.split('"').nth(3).map(str::to_string))
        .collect()
}
