//! C strings for the names and descriptions libpfm4's info calls return:
//! the tables' strings as they are (pfmlib ends each with a NUL), the few
//! that are Rust constants (modifier and perf_events attribute names and
//! descriptions) copied once, with a NUL, and kept for the life of the
//! process, so that a pointer handed out stays valid, as libpfm4's do.

use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::sync::{PoisonError, RwLock};

type Interned = HashMap<(usize, usize), &'static CStr>;

static INTERNED: RwLock<Option<Interned>> = RwLock::new(None);

/// `s` as a C string that lives as long as the process.
pub(crate) fn c_str(s: &'static str) -> &'static CStr {
    if let Some(c) = pfmlib::table_cstr(s) {
        return c;
    }
    let key = (s.as_ptr() as usize, s.len());
    if let Some(c) = INTERNED
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|m| m.get(&key))
    {
        return c;
    }
    let mut guard = INTERNED.write().unwrap_or_else(PoisonError::into_inner);
    let map = guard.get_or_insert_with(HashMap::new);
    map.entry(key).or_insert_with(|| {
        // A constant with a NUL inside would end there, as in C.
        let bytes = s.split('\0').next().unwrap_or("");
        let owned = CString::new(bytes).unwrap_or_default();
        Box::leak(owned.into_boxed_c_str())
    })
}

/// An optional string: NULL (`None`) stays NULL.
pub(crate) fn opt_c_str(s: Option<&'static str>) -> Option<&'static CStr> {
    s.map(c_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_copied_once_and_table_strings_not_at_all() {
        static NAME: &str = "precise";
        let a = c_str(NAME);
        assert_eq!(a, c"precise");
        assert!(std::ptr::eq(a, c_str(NAME)));
        let ev = pfmlib::Library::global()
            .find_event("nhm::INST_RETIRED")
            .unwrap();
        assert_eq!(
            c_str(ev.name()).as_ptr() as usize,
            ev.name().as_ptr() as usize
        );
        assert_eq!(opt_c_str(None), None);
    }
}
