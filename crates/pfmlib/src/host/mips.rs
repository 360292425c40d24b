//! The `cpu model` of a MIPS host's `/proc/cpuinfo`, read exactly as
//! libpfm4 reads it (`pfmlib_getcpuinfo_attr` in `pfmlib_mips.c`, the same
//! in 4.13 and upstream, over `pfmlib_getl`), quirks included:
//!
//! - the file is read line by line into one buffer that is reused (and
//!   only grows); a last line without a newline is never looked at
//!   (`pfmlib_getl` reports end of file for it), though its bytes are left
//!   in the buffer;
//! - lines starting with a newline are skipped; any other line without `:`
//!   ends the search: the attribute is not found;
//! - the key is the text before the first `:`; a line counts when its key
//!   *starts with* `cpu model`; the value starts two bytes after the `:`
//!   (the colon and one space) and loses its last byte (the newline);
//! - when no line counts, the value of the last line looked at is the
//!   answer (read from the buffer as the end of file left it); a file with
//!   no such line at all has no answer (libpfm4 would copy from a null
//!   pointer);
//! - the answer is cut to 1023 bytes, and ends at its first NUL.
//!
//! `pfm_mips_detect` then wants `MIPS` in the answer, `pfm_mips_detect_74k`
//! `MIPS 74K`.

/// The attribute libpfm4 looks for.
const CPU_MODEL: &[u8] = b"cpu model";
/// libpfm4's buffer for the answer (`char buffer[1024]`), less its NUL.
const MAX_VALUE: usize = 1023;

/// What libpfm4's MIPS detection reads as the `cpu model` of this
/// `/proc/cpuinfo` text, or `None` where it finds nothing.
pub(crate) fn cpu_model(text: &[u8]) -> Option<String> {
    // The reused line buffer: bytes never written read as 0.
    let mut buf: Vec<u8> = Vec::new();
    // Where the value of the last line looked at starts in `buf`.
    let mut value: Option<usize> = None;
    for line in text.split_inclusive(|&b| b == b'\n') {
        store(&mut buf, line);
        if line.last() != Some(&b'\n') {
            // pfmlib_getl: end of file, the line is not looked at.
            break;
        }
        if buf[0] == b'\n' {
            continue;
        }
        // No colon: "not found", whatever was read before.
        let colon = buf[..c_len(&buf, 0)].iter().position(|&b| b == b':')?;
        buf[colon] = 0;
        let v = colon + 2;
        let len = c_len(&buf, v);
        // value[strlen(value) - 1] = '\0' (for an empty value, the byte
        // before it).
        buf[v + len - 1] = 0;
        value = Some(v);
        if buf.starts_with(CPU_MODEL) {
            break;
        }
    }
    let v = value?;
    let s = &buf[v..v + c_len(&buf, v)];
    let s = &s[..s.len().min(MAX_VALUE)];
    Some(String::from_utf8_lossy(s).into_owned())
}

/// Writes `line` at the start of `buf`, then its NUL when it ends with a
/// newline (`pfmlib_getl`), growing `buf` as needed (zeros beyond).
fn store(buf: &mut Vec<u8>, line: &[u8]) {
    let need = line.len() + 2;
    if buf.len() < need {
        buf.resize(need, 0);
    }
    buf[..line.len()].copy_from_slice(line);
    if line.last() == Some(&b'\n') {
        buf[line.len()] = 0;
    }
}

/// Length of the C string at `at` in `buf` (to the first NUL or the end).
fn c_len(buf: &[u8], at: usize) -> usize {
    buf.get(at..)
        .map_or(0, |s| s.iter().position(|&b| b == 0).unwrap_or(s.len()))
}

#[cfg(test)]
mod tests {
    use super::cpu_model;

    fn model(s: &str) -> Option<String> {
        cpu_model(s.as_bytes())
    }

    /// A Broadcom BCM4716 router's file (Linux 2.6 and later kernels).
    #[test]
    fn a_74k_router() {
        let t = "system type\t\t: Broadcom BCM4716 chip rev 1\nprocessor\t\t: 0\n\
                 cpu model\t\t: MIPS 74K V4.0\nBogoMIPS\t\t: 239.20\n\n";
        assert_eq!(model(t).as_deref(), Some("MIPS 74K V4.0"));
    }

    #[test]
    fn quirks() {
        // The key only has to start with "cpu model".
        assert_eq!(model("cpu models: MIPS 74K\n").as_deref(), Some("MIPS 74K"));
        // Two bytes after the colon: no space eats the first letter.
        assert_eq!(model("cpu model:MIPS 74K\n").as_deref(), Some("IPS 74K"));
        // The last byte goes, whatever it is.
        assert_eq!(
            model("cpu model : MIPS 74K\r\n").as_deref(),
            Some("MIPS 74K\r")
        );
        // An empty value.
        assert_eq!(model("cpu model:\n").as_deref(), Some(""));
        // A line without a colon ends the search, before or after a blank line.
        assert_eq!(model("junk\ncpu model : MIPS 74K\n"), None);
        assert_eq!(
            model("\n\ncpu model : MIPS 74K\n").as_deref(),
            Some("MIPS 74K")
        );
        // Not found: the last line's value.
        assert_eq!(
            model("a : b\nsystem : MIPS 74K box\n").as_deref(),
            Some("MIPS 74K box")
        );
        // A last line without a newline is not looked at, but overwrites the
        // buffer the previous value is read from.
        assert_eq!(model("cpu model : MIPS 74K"), None);
        assert_eq!(model("a : MIPS 74K\nxy").as_deref(), Some("MIPS 74K"));
        assert_eq!(model("a : MIPS 74K\nxyzab").as_deref(), Some("bIPS 74K"));
        // Nothing looked at.
        assert_eq!(model(""), None);
        assert_eq!(model("\n\n"), None);
        // Cut to 1023 bytes.
        let long = format!("cpu model : MIPS 74K {}\n", "x".repeat(2000));
        assert_eq!(model(&long).map(|m| m.len()), Some(1023));
        // The first line that counts wins.
        let two = "cpu model : MIPS 24K\ncpu model : MIPS 74K\n";
        assert_eq!(model(two).as_deref(), Some("MIPS 24K"));
    }
}
