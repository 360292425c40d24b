//! Kernel CPU lists (`0-15,20,22-23`), as sysfs `cpus`, `cpumask`,
//! `cpulist` and `online` files write them: read and written in one place
//! (a leaf: it imports nothing of the crate).

/// Largest range one `a-b` item may span (the kernel's lists are far
/// shorter; a bigger one is not a CPU list).
const MAX_SPAN: u32 = 1 << 16;

/// The CPUs of a kernel CPU list, in the list's order; `None` when the text
/// is not such a list. Surrounding white space (the file's newline) is
/// ignored; an empty list has no CPU.
///
/// ```
/// assert_eq!(pfmlib::cpulist::parse("0-3,8\n"), Some(vec![0, 1, 2, 3, 8]));
/// assert_eq!(pfmlib::cpulist::parse("3-1"), None);
/// ```
pub fn parse(text: &str) -> Option<Vec<u32>> {
    let text = text.trim();
    let mut cpus = Vec::new();
    if text.is_empty() {
        return Some(cpus);
    }
    for part in text.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        if b < a || b - a > MAX_SPAN {
            return None;
        }
        cpus.extend(a..=b);
    }
    Some(cpus)
}

/// The kernel's way of writing sorted CPU numbers: runs as `a-b`, joined
/// by commas (`0-15,20`); empty for none.
///
/// ```
/// assert_eq!(pfmlib::cpulist::format(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
/// ```
pub fn format(cpus: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j].saturating_add(1) {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_and_written() {
        assert_eq!(parse("0-3,8,10-11\n"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(parse(""), Some(vec![]));
        for bad in ["x", "3-1", "1,,2", "-1", "0-99999999"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        assert_eq!(format(&[]), "");
        assert_eq!(format(&[5]), "5");
        assert_eq!(format(&[0, 1, 2, 4, u32::MAX]), "0-2,4,4294967295");
        let cpus = [0, 2, 3, 4, 9];
        assert_eq!(parse(&format(&cpus)).as_deref(), Some(&cpus[..]));
    }
}
