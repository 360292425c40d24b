//! Tracepoints `subsystem:event` from tracefs (`events/<subsystem>/<event>/id`),
//! with shell-style globs in either part as perf accepts them.

use crate::syntax_error::SyntaxError;
use pfmlib::Host;

/// Where tracefs is looked for, in order: its own mount, then under debugfs.
pub const TRACEFS_EVENTS: [&str; 2] = [
    "/sys/kernel/tracing/events",
    "/sys/kernel/debug/tracing/events",
];

/// `PERF_TYPE_TRACEPOINT`.
pub const PERF_TYPE_TRACEPOINT: u32 = 2;

/// The `events/` directory of the host's tracefs, if mounted. On the
/// running system (a host rooted at `/`), an unmounted tracefs is mounted
/// first where this process may (as perf does); a recorded tree is only
/// read.
pub fn events_dir(host: &Host) -> Option<&'static str> {
    let found = || TRACEFS_EVENTS.into_iter().find(|d| host.file_exists(d));
    found().or_else(|| {
        let live = host.root() == Some(std::path::Path::new("/"));
        let mountable = host.file_exists("/sys/kernel/tracing");
        (live && mountable && crate::sys_process::mount_tracefs().is_ok())
            .then(found)
            .flatten()
    })
}

/// A tracefs directory that exists while its `events/` cannot be listed
/// (not mounted there, or not readable by this user), when no tracefs can.
pub fn unreadable(host: &Host) -> Option<&'static str> {
    if events_dir(host).is_some() {
        return None;
    }
    TRACEFS_EVENTS
        .into_iter()
        .filter_map(|d| d.strip_suffix("/events"))
        .find(|d| host.file_exists(d))
}

/// True when `s` holds glob characters (`*`, `?`, `[`).
pub fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Shell-style match of `name` against `pattern`: `*` any run, `?` one
/// character, `[abc]` / `[a-z]` / `[!a]` a set.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches_from(&p, &n)
}

/// Matches with one backtracking point, the last `*` (linear in practice,
/// never exponential whatever the pattern).
fn matches_from(p: &[char], n: &[char]) -> bool {
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some(_) => {
                if let Some(len) = match_one(&p[pi..], n[ni]) {
                    pi += len;
                    ni += 1;
                    continue;
                }
            }
            None => {}
        }
        match star {
            // Let the last `*` take one more character.
            Some((sp, sn)) => {
                star = Some((sp, sn + 1));
                pi = sp + 1;
                ni = sn + 1;
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether the pattern element at the start of `p` (not `*`) matches `c`,
/// and how many pattern characters it spans.
fn match_one(p: &[char], c: char) -> Option<usize> {
    match p.first()? {
        '?' => Some(1),
        '[' => match class_end(p) {
            Some(end) => class_has(&p[1..end], c).then_some(end + 1),
            // An unclosed `[` is an ordinary character.
            None => (c == '[').then_some(1),
        },
        &x => (x == c).then_some(1),
    }
}

/// Index of the `]` closing the class that opens `p`.
fn class_end(p: &[char]) -> Option<usize> {
    let start = if p.get(1) == Some(&'!') { 3 } else { 2 };
    (start..p.len()).find(|&i| p[i] == ']')
}

fn class_has(class: &[char], c: char) -> bool {
    let (negate, set) = match class.split_first() {
        Some(('!', rest)) => (true, rest),
        _ => (false, class),
    };
    let mut found = false;
    let mut i = 0;
    while i < set.len() {
        if i + 2 < set.len() && set[i + 1] == '-' {
            found |= (set[i]..=set[i + 2]).contains(&c);
            i += 3;
        } else {
            found |= set[i] == c;
            i += 1;
        }
    }
    found != negate
}

/// True when this process cannot open one more file (EMFILE, ENFILE): an
/// empty or unreadable tracefs directory then says nothing about what
/// tracefs holds.
pub fn out_of_descriptors() -> bool {
    match std::fs::File::open("/dev/null") {
        Ok(_) => false,
        Err(e) => matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)),
    }
}

/// The subsystems of tracefs that match `pattern` (a name or a glob).
pub fn subsystems(host: &Host, events: &str, pattern: &str) -> Vec<String> {
    host.list_dir(events)
        .into_iter()
        .filter(|s| glob_match(pattern, s))
        // Subsystems are directories; `enable`, `filter`, `header_*` are files.
        .filter(|s| !host.list_dir(&format!("{events}/{s}")).is_empty())
        .collect()
}

/// Every `(subsystem, event)` matching `sys:event` (globs allowed), sorted.
pub fn expand(host: &Host, events: &str, sys: &str, event: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in subsystems(host, events, sys) {
        for e in host.list_dir(&format!("{events}/{s}")) {
            if glob_match(event, &e) && host.file_exists(&format!("{events}/{s}/{e}/id")) {
                out.push((s.clone(), e));
            }
        }
    }
    out
}

/// The tracepoint's id (`events/<sys>/<event>/id`), its `config`.
pub fn id(host: &Host, events: &str, sys: &str, event: &str) -> Result<u64, SyntaxError> {
    let path = format!("{events}/{sys}/{event}/id");
    let text = host
        .read_file_now(&path)
        .ok_or_else(|| SyntaxError::Unreadable { path: path.clone() })?;
    text.trim().parse().map_err(|_| SyntaxError::BadFile {
        path,
        detail: format!("{:?} is not a tracepoint id", text.trim()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("sys_enter_get*", "sys_enter_getpid"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("sys_enter_get*", "sys_exit_getpid"));
        assert!(glob_match("sched_?witch", "sched_switch"));
        assert!(glob_match("sys_[ex]*_open", "sys_exit_open"));
        assert!(glob_match("sys_[a-f]*", "sys_enter"));
        assert!(!glob_match("sys_[!e]*", "sys_enter"));
        assert!(glob_match("a[b", "a[b"));
        assert!(!glob_match("abc", "abcd"));
        assert!(glob_match("*a*b", "xxaxxab") && !glob_match("*a*b", "xxaxxa"));
        assert!(glob_match("**", "") && !glob_match("?", ""));
        // Many stars against a long name: no exponential backtracking.
        let long = "a".repeat(200);
        assert!(!glob_match(&"*a".repeat(30).replace("a*a", "a*b"), &long));
        assert!(is_glob("a*") && is_glob("a?") && is_glob("[a]") && !is_glob("abc"));
    }
}
