//! `pfm_pmu_validate`: checks one PMU's table, printing each problem found
//! to the caller's stream. The checks are libpfm4's in purpose: the PMU's
//! description (name, description, id, encoding size, events), no name
//! or id shared with another active PMU, the events and unit masks named
//! and described (a name may repeat, as in libpfm4's own tables), no
//! attribute listed twice, and every event encodable
//! with each of its unit masks alone (or with none, when it has none),
//! except where the table marks an event or unit mask as needing others.

use crate::abi::{PFM_ERR_ATTR, PFM_ERR_INVAL, PFM_ERR_NOTSUPP, PFM_SUCCESS, PMU_ID_LIMIT};
use crate::state::State;
use pfmlib::{AttrType, Os, Plm};
use std::collections::HashSet;
use std::ffi::c_int;
use std::io::Write;

/// Most codes libpfm4 lets one event take (`PFMLIB_MAX_ENCODING`).
const MAX_ENCODING: u32 = 4;

/// Validates PMU `id`: `PFM_SUCCESS`, or the code of the first problem of
/// the PMU's description or table, or of the last encoding that failed.
/// `PFM_ERR_INVAL` for a PMU this library does not have.
pub(crate) fn validate(st: &State, id: u32, out: &mut dyn Write) -> c_int {
    let Some(pmu) = st.lib.pmu_by_id(id) else {
        return PFM_ERR_INVAL;
    };
    let name = pmu.name();
    let mut problem = |msg: &str| {
        let _ = writeln!(out, "pmu: {name} :: {msg}");
    };
    let info = pmu.info();
    let checks: [(bool, &str); 6] = [
        (name.is_empty(), "no name"),
        (pmu.desc().is_empty(), "no description"),
        (id >= PMU_ID_LIMIT, "PMU id out of range"),
        (info.max_encoding == 0, "max_encoding is zero"),
        (info.max_encoding > MAX_ENCODING, "max_encoding too high"),
        (
            info.is_present && info.nevents == 0,
            "active but without events",
        ),
    ];
    for (bad, msg) in checks {
        if bad {
            problem(msg);
            return PFM_ERR_INVAL;
        }
    }
    // Ids are unique by construction (the tables are indexed by id); names
    // are compared without case, as event strings name PMUs.
    for other in st.lib.active_pmus() {
        if other.id() != id && other.name().eq_ignore_ascii_case(name) {
            problem(&format!("name shared with PMU id {}", other.id()));
            return PFM_ERR_INVAL;
        }
    }
    let ret = check_table(st, id, out);
    if ret != PFM_SUCCESS {
        return ret;
    }
    check_encodings(st, id, out)
}

/// Names, descriptions and attribute lists of every event.
fn check_table(st: &State, id: u32, out: &mut dyn Write) -> c_int {
    let Some(pmu) = st.lib.pmu_by_id(id) else {
        return PFM_ERR_INVAL;
    };
    let pname = pmu.name();
    // Two events may share a name: libpfm4 4.13's own Haswell-EP home agent
    // table lists UNC_H_SBO0_CREDIT_OCCUPANCY twice (the second is SBO1's,
    // code 0x6b) and its validation accepts that; the first one is the one
    // a lookup finds, in both libraries.
    for ev in pmu.events() {
        let ename = ev.name();
        let problem = if ename.is_empty() {
            Some((PFM_ERR_INVAL, "no name".to_string()))
        } else if ev.desc().is_empty() {
            Some((PFM_ERR_INVAL, "no description".to_string()))
        } else {
            attr_problem(&ev.attrs(Os::None))
        };
        if let Some((code, msg)) = problem {
            let _ = writeln!(
                out,
                "pmu: {pname} :: event {ename} ({:#x}): {msg}",
                ev.idx()
            );
            return code;
        }
    }
    PFM_SUCCESS
}

/// The first problem of an attribute list: a nameless attribute, a unit
/// mask without description (aliases excepted), a name listed twice.
fn attr_problem(attrs: &[pfmlib::AttrInfo]) -> Option<(c_int, String)> {
    let mut names = HashSet::new();
    for a in attrs {
        if a.name.is_empty() {
            return Some((PFM_ERR_INVAL, format!("attribute {} has no name", a.idx)));
        }
        if a.attr_type == AttrType::Umask && a.desc.is_empty() && a.equiv.is_none() {
            return Some((
                PFM_ERR_INVAL,
                format!("unit mask {} has no description", a.name),
            ));
        }
        if !names.insert(a.name) {
            return Some((PFM_ERR_ATTR, format!("attribute {} listed twice", a.name)));
        }
    }
    None
}

/// Every event with each of its unit masks alone, or alone when it has
/// none, encodes for `PFM_OS_NONE` (a PMU without raw encodings answers
/// `PFM_ERR_NOTSUPP`, which is no table error).
fn check_encodings(st: &State, id: u32, out: &mut dyn Write) -> c_int {
    let Some(pmu) = st.lib.pmu_by_id(id) else {
        return PFM_ERR_INVAL;
    };
    let pname = pmu.name();
    let plm = Plm::PLM0 | Plm::PLM3;
    let mut ret = PFM_SUCCESS;
    let mut try_one = |s: &str, can_auto: Option<bool>| -> bool {
        match st.lib.encode(s, plm, Os::None) {
            Ok(_) => true,
            Err(_) if can_auto == Some(false) => false,
            Err(e) if e.code() == PFM_ERR_NOTSUPP => false,
            Err(e) => {
                let _ = writeln!(out, "cannot encode event {s} : {e}");
                ret = e.code();
                false
            }
        }
    };
    for ev in pmu.events() {
        let mut umasks = 0;
        let attrs = ev.attrs(Os::None);
        for (u, a) in attrs.iter().enumerate() {
            if a.attr_type != AttrType::Umask {
                continue;
            }
            let s = format!("{pname}::{}:{}", ev.name(), a.name);
            if try_one(&s, ev.can_auto_encode(u)) {
                umasks += 1;
            }
        }
        if umasks == 0 {
            let s = format!("{pname}::{}", ev.name());
            try_one(&s, ev.can_auto_encode(attrs.len()));
        }
    }
    ret
}
