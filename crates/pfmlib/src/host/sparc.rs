//! The SPARC processor's PMU name from `/proc/cpuinfo`, read exactly as
//! libpfm4's sparc build reads it (`pfmlib_getcpuinfo_attr("pmu", buf, 32)`
//! in `pfmlib_sparc.c`, over `pfmlib_getl`, upstream's of June 2026),
//! quirks included:
//!
//! - the file is read line by line into one buffer that grows (32 bytes,
//!   then doubling) and is reused; a last line without a newline ends the
//!   reading, its bytes written over the start of the buffer (without a
//!   NUL: 4.13's `pfmlib_getl` ended them with one, so there such a line
//!   could stand in for the value read before it);
//! - a blank line (its first byte a newline) is skipped; a line without `:`
//!   ends the search: nothing is found;
//! - the key (the text before the first `:`) is compared with `strncmp`:
//!   any key that *starts with* `pmu` matches (`pmu\t\t`, `pmu_type`);
//! - the value starts two bytes after the `:` (the colon and, presumably, a
//!   space) and loses its last byte (presumably the newline): nothing else
//!   is trimmed;
//! - when no key matches, the value of the last line read is kept all the
//!   same (as far as the buffer still holds it), and at most 31 bytes of it.
//!
//! A file of blank lines only (or none) makes libpfm4 copy from a null
//! pointer; pfmlib reads nothing there.

use super::arch::Arch;
use super::facts::Facts;

/// The file libpfm4 reads (no variable names another, unlike on Arm).
const CPUINFO: &str = "/proc/cpuinfo";
/// The attribute libpfm4 looks for.
const KEY: &[u8] = b"pmu";
/// libpfm4's result buffer (`char buffer[32]`), NUL included.
const RESULT_BYTES: usize = 32;
/// `pfmlib_getl`'s first buffer size.
const FIRST_LEN: usize = 32;

/// On a SPARC host, the `pmu` value of `root/proc/cpuinfo` as libpfm4 reads
/// it (see the module); `None` elsewhere, or when it finds none.
pub(super) fn read(arch: Arch, facts: &Facts) -> Option<String> {
    if arch != Arch::Sparc {
        return None;
    }
    facts.read(CPUINFO).and_then(|t| cpuinfo_pmu(t.as_bytes()))
}

/// What libpfm4 leaves in its result buffer after looking for `pmu` in the
/// text of `/proc/cpuinfo` (`None`: it reports the attribute missing).
pub(crate) fn cpuinfo_pmu(text: &[u8]) -> Option<String> {
    let mut lines = Lines {
        text,
        at: 0,
        buf: Vec::new(),
    };
    let mut value = None;
    while lines.next_line() {
        let buf = &mut lines.buf;
        if buf.first() == Some(&b'\n') {
            continue;
        }
        let colon = c_string(buf, 0).iter().position(|&b| b == b':')?;
        buf[colon] = 0;
        let at = colon + 2;
        let len = c_string(buf, at).len();
        // `value[strlen(value) - 1] = '\0'`: with an empty value, the byte
        // before it.
        let cut = (at + len).saturating_sub(1);
        if let Some(b) = buf.get_mut(cut) {
            *b = 0;
        }
        value = Some(at);
        if buf.starts_with(KEY) {
            break;
        }
    }
    let v = c_string(&lines.buf, value?);
    let v = &v[..v.len().min(RESULT_BYTES - 1)];
    Some(String::from_utf8_lossy(v).into_owned())
}

/// The bytes of `buf` from `at` to the first NUL (or the end).
fn c_string(buf: &[u8], at: usize) -> &[u8] {
    let s = buf.get(at..).unwrap_or_default();
    s.iter().position(|&b| b == 0).map_or(s, |end| &s[..end])
}

/// `pfmlib_getl` over a text: one buffer, reused and grown as libpfm4 grows
/// its heap buffer (bytes it never wrote read as 0).
struct Lines<'a> {
    text: &'a [u8],
    at: usize,
    buf: Vec<u8>,
}

impl Lines<'_> {
    /// Reads the next line into the buffer, NUL-terminated; `false` at end
    /// of file, where a last line without a newline has been written over
    /// the start of the buffer without its NUL.
    fn next_line(&mut self) -> bool {
        let mut i = 0;
        while let Some(&c) = self.text.get(self.at) {
            self.at += 1;
            if self.buf.is_empty() || i + 2 == self.buf.len() {
                let len = if self.buf.is_empty() {
                    FIRST_LEN
                } else {
                    self.buf.len() * 2
                };
                self.buf.resize(len, 0);
            }
            self.buf[i] = c;
            i += 1;
            if c == b'\n' {
                self.buf[i] = 0;
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::cpuinfo_pmu;

    fn pmu(text: &str) -> Option<String> {
        cpuinfo_pmu(text.as_bytes())
    }

    #[test]
    fn the_line_a_kernel_writes() {
        let t2 = "cpu\t\t: UltraSparc T2 (Niagara2)\nfpu\t\t: UltraSparc T2 integrated FPU\npmu\t\t: niagara2\nprom\t\t: OBP 4.30.4 2009/08/19 07:25\n";
        assert_eq!(pmu(t2).as_deref(), Some("niagara2"));
    }

    #[test]
    fn keys_that_start_with_pmu_match() {
        assert_eq!(pmu("pmu_type : ultra3\n").as_deref(), Some("ultra3"));
        assert_eq!(pmu("pm : ultra3\nx: y\n").as_deref(), Some("y"));
    }

    #[test]
    fn values_are_cut_by_position_not_trimmed() {
        assert_eq!(pmu("pmu:ultra3\n").as_deref(), Some("ltra3"));
        assert_eq!(pmu("pmu :  ultra3 \n").as_deref(), Some(" ultra3 "));
        assert_eq!(pmu("pmu : ultra3\r\n").as_deref(), Some("ultra3\r"));
        assert_eq!(pmu("pmu:\n").as_deref(), Some(""));
        let long = format!("pmu : {}\n", "x".repeat(40));
        assert_eq!(pmu(&long), Some("x".repeat(31)));
    }

    #[test]
    fn without_a_match_the_last_value_stays() {
        assert_eq!(pmu("cpu : x\ntype : ultra3\n\n").as_deref(), Some("ultra3"));
        // A line without a colon ends the search.
        assert_eq!(pmu("cpu : x\nno colon\npmu : ultra3\n"), None);
        assert_eq!(pmu(""), None);
        assert_eq!(pmu("\n\n"), None);
    }

    #[test]
    fn a_last_line_without_newline_is_not_read_but_written() {
        assert_eq!(pmu("cpu : x\nzz").as_deref(), Some("x"));
        // Its bytes land over the buffer where the last value was.
        assert_eq!(pmu("a: ultra3\nxyzniagara").as_deref(), Some("niagara"));
        assert_eq!(pmu("cpu : x\npmu : ultra3").as_deref(), Some("ultra3"));
    }

    #[test]
    fn long_lines_grow_the_buffer() {
        let text = format!("cpu : {}\npmu : ultra4+\n", "y".repeat(100));
        assert_eq!(pmu(&text).as_deref(), Some("ultra4+"));
    }
}
