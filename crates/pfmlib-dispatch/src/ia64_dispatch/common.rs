//! Helpers every IA-64 dispatch step uses: errors, privilege levels, register names.

use crate::error::{DispatchError, DispatchErrorKind as K};
use crate::request::parse_plm;
use crate::response::Reg;

/// A dispatch error.
pub(super) fn err(kind: K, msg: impl Into<String>) -> DispatchError {
    DispatchError::new(kind, msg)
}

/// Privilege-level letters to a 4-bit IA-64 mask (no hypervisor level).
pub(super) fn plm4(s: &str) -> Result<u32, DispatchError> {
    let p = parse_plm(s)?;
    if p & 0x10 != 0 {
        return Err(err(
            K::Invalid,
            format!("privilege levels {s:?}: IA-64 has no hypervisor level (use k, 1, 2, u)"),
        ));
    }
    Ok(p)
}

/// [`plm4`] of an optional field (0: absent).
pub(super) fn opt_plm4(s: &Option<String>) -> Result<u32, DispatchError> {
    match s {
        Some(p) => plm4(p),
        None => Ok(0),
    }
}

/// An IA-64 register of a kind (`PMC`, `PMD`, `IBR`, `DBR`); its number is its address.
pub(super) fn ia64_reg(kind: &'static str, n: u32) -> Reg {
    Reg {
        name: format!("{kind}{n}"),
        reg: kind,
        index: n,
        addr: u64::from(n),
    }
}
