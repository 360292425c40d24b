//! perf's raw events `rNNNN`: the hexadecimal `config` of `PERF_TYPE_RAW`.

/// `PERF_TYPE_RAW`.
pub const PERF_TYPE_RAW: u32 = 4;

/// The config of `rNNNN` (hexadecimal digits after `r`, at most 16);
/// `None` when `s` is not of that form.
///
/// ```
/// use pfmlib_perf::perf_syntax::raw_config;
/// assert_eq!(raw_config("r1a8"), Some(0x1a8));
/// assert_eq!(raw_config("rusty"), None);
/// ```
pub fn raw_config(s: &str) -> Option<u64> {
    let hex = s.strip_prefix('r')?;
    let hex = hex.strip_prefix("0x").unwrap_or(hex);
    if hex.is_empty() || hex.len() > 16 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_codes() {
        assert_eq!(raw_config("r0"), Some(0));
        assert_eq!(raw_config("rC0"), Some(0xc0));
        assert_eq!(raw_config("r0x1a8"), Some(0x1a8));
        assert_eq!(raw_config("rffffffffffffffff"), Some(u64::MAX));
        assert_eq!(raw_config("r1ffffffffffffffff"), None);
        assert_eq!(raw_config("r"), None);
        assert_eq!(raw_config("rx1"), None);
        assert_eq!(raw_config("1a8"), None);
    }
}
