//! C strings for the names and descriptions libpfm4's info calls return:
//! the tables' strings as they are (pfmlib ends each with a NUL), the few
//! that are Rust constants (modifier and perf_events attribute names and
//! descriptions) copied once, with a NUL, and kept for the life of the
//! process, so that a pointer handed out stays valid, as libpfm4's do.

use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{PoisonError, RwLock};

/// Hashes the address of a `&'static str` (the key is the address and the
/// length; distinct constants have distinct addresses).
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0 ^ n as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
}

type Interned = HashMap<(usize, usize), &'static CStr, BuildHasherDefault<AddressHasher>>;

static INTERNED: RwLock<Option<Interned>> = RwLock::new(None);

/// `s` as a C string pointer that stays valid for the life of the process:
/// a string of pfmlib's tables as it is (a NUL follows it there), any other
/// one copied once.
pub(crate) fn c_ptr(s: &'static str) -> *const c_char {
    if pfmlib::c_support::is_table_string(s) {
        return s.as_ptr().cast();
    }
    let key = (s.as_ptr() as usize, s.len());
    let slot = (key.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) % RECENT_SLOTS;
    RECENT.with(|r| {
        let mut r = r.borrow_mut();
        match r[slot] {
            Some((k, c)) if k == key => c.as_ptr(),
            _ => {
                let c = interned(s);
                r[slot] = Some((key, c));
                c.as_ptr()
            }
        }
    })
}

const RECENT_SLOTS: usize = 64;

/// A string's address and length, and its copy.
type Recent = Option<((usize, usize), &'static CStr)>;

thread_local! {
    /// The copies this thread used last, by address: the common case (the
    /// same few modifier names, again and again) without the shared lock.
    static RECENT: std::cell::RefCell<[Recent; RECENT_SLOTS]> =
        const { std::cell::RefCell::new([None; RECENT_SLOTS]) };
}

fn interned(s: &'static str) -> &'static CStr {
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
    let map = guard.get_or_insert_with(Interned::default);
    map.entry(key).or_insert_with(|| {
        // A constant with a NUL inside would end there, as in C.
        let bytes = s.split('\0').next().unwrap_or("");
        let owned = CString::new(bytes).unwrap_or_default();
        Box::leak(owned.into_boxed_c_str())
    })
}

/// An optional string: NULL (`None`) stays NULL.
pub(crate) fn opt_c_ptr(s: Option<&'static str>) -> *const c_char {
    s.map_or(std::ptr::null(), c_ptr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_copied_once_and_table_strings_not_at_all() {
        static NAME: &str = "precise";
        let a = interned(NAME);
        assert_eq!(a, c"precise");
        assert!(std::ptr::eq(a, interned(NAME)));
        assert_eq!(c_ptr(NAME), a.as_ptr());
        let ev = pfmlib::Library::global()
            .find_event("nhm::INST_RETIRED")
            .unwrap();
        assert_eq!(c_ptr(ev.name()), ev.name().as_ptr().cast());
        assert_eq!(c_ptr(ev.desc()), ev.desc().as_ptr().cast());
        assert!(opt_c_ptr(None).is_null());
    }
}
