//! Facts the kernel publishes as files (`/sys`, `/proc`), read under a root
//! directory that tests can point at a tree of their own, or answered from
//! files given in memory.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The most a fact file may hold: far more than any `/proc/cpuinfo` or sysfs
/// attribute (a 1,024-CPU cpuinfo is about 1.5 MiB), far less than a file
/// that never ends.
pub(crate) const MAX_FACT_BYTES: u64 = 16 << 20;

/// The text of the regular file at `path`, at most [`MAX_FACT_BYTES`]
/// bytes; `None` for anything else. Opened without blocking (a FIFO under a
/// recorded root would wait for a writer forever) and checked once open, so
/// a link into a device (`/dev/zero`), a FIFO or a socket is refused, and so
/// is a file over the bound.
fn read_bounded(path: &Path) -> Option<String> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    f.take(MAX_FACT_BYTES + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MAX_FACT_BYTES {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// Where file facts come from.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// Root the absolute paths are read under (`/` for the running system);
    /// `None`: no files at all.
    root: Option<PathBuf>,
    /// Files given in memory, by absolute path; they win over the root.
    files: BTreeMap<String, String>,
    /// Answers already read, by absolute path (read once, then remembered).
    cache: Arc<Mutex<BTreeMap<String, Option<Arc<str>>>>>,
}

impl PartialEq for Facts {
    fn eq(&self, other: &Facts) -> bool {
        self.root == other.root && self.files == other.files
    }
}

impl Facts {
    /// The running system's files.
    pub fn system() -> Facts {
        Facts::under(PathBuf::from("/"))
    }

    /// Files under `root` (a recorded tree: `root/sys/bus/...`).
    pub fn under(root: PathBuf) -> Facts {
        Facts {
            root: Some(root),
            ..Facts::default()
        }
    }

    /// No files: every fact is absent.
    pub fn none() -> Facts {
        Facts::default()
    }

    /// Adds (or replaces) an in-memory file; the cache starts afresh.
    pub fn with_file(mut self, path: &str, contents: &str) -> Facts {
        self.files.insert(path.to_string(), contents.to_string());
        self.cache = Arc::default();
        self
    }

    /// The root directory, if files are read from one.
    pub fn root(&self) -> Option<&std::path::Path> {
        self.root.as_deref()
    }

    /// Does `path` (absolute) exist?
    pub fn exists(&self, path: &str) -> bool {
        if self.files.contains_key(path) {
            return true;
        }
        self.files
            .keys()
            .any(|k| k.starts_with(path) && k[path.len()..].starts_with('/'))
            || self
                .root
                .as_ref()
                .is_some_and(|r| r.join(path.trim_start_matches('/')).exists())
    }

    /// The names of the entries directly under directory `path` (absolute),
    /// sorted, with the in-memory files under it; empty when there is none.
    pub fn list_dir(&self, path: &str) -> Vec<String> {
        let dir = path.trim_end_matches('/');
        let mut names = std::collections::BTreeSet::new();
        for k in self.files.keys() {
            if let Some(rest) = k.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) {
                if let Some(first) = rest.split('/').next().filter(|f| !f.is_empty()) {
                    names.insert(first.to_string());
                }
            }
        }
        if let Some(root) = &self.root {
            if let Ok(rd) = std::fs::read_dir(root.join(dir.trim_start_matches('/'))) {
                names.extend(rd.filter_map(|e| e.ok()?.file_name().into_string().ok()));
            }
        }
        names.into_iter().collect()
    }

    /// The contents of `path` (absolute), read once and remembered.
    pub fn read(&self, path: &str) -> Option<Arc<str>> {
        if let Some(s) = self.files.get(path) {
            return Some(Arc::from(s.as_str()));
        }
        let root = self.root.as_ref()?;
        if let Ok(cache) = self.cache.lock() {
            if let Some(hit) = cache.get(path) {
                return hit.clone();
            }
        }
        let v: Option<Arc<str>> =
            read_bounded(&root.join(path.trim_start_matches('/'))).map(Arc::from);
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(path.to_string(), v.clone());
        }
        v
    }

    /// `len` bytes at `offset` of the file at `path` (a character device
    /// such as `/dev/cpu/0/cpuid`, or a regular file standing for one in a
    /// recorded tree), read now; `None` when unreadable or short. Never
    /// from in-memory files.
    pub fn read_at(&self, path: &str, offset: u64, len: usize) -> Option<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let root = self.root.as_ref()?;
        let f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(root.join(path.trim_start_matches('/')))
            .ok()?;
        let kind = f.metadata().ok()?.file_type();
        use std::os::unix::fs::FileTypeExt;
        if !(kind.is_file() || kind.is_char_device()) {
            return None;
        }
        let mut buf = vec![0u8; len];
        f.read_exact_at(&mut buf, offset).ok()?;
        Some(buf)
    }

    /// The contents of `path`, read now (for facts that change while a
    /// program runs, such as `/proc/self/status`).
    pub fn read_fresh(&self, path: &str) -> Option<String> {
        if let Some(s) = self.files.get(path) {
            return Some(s.clone());
        }
        let root = self.root.as_ref()?;
        read_bounded(&root.join(path.trim_start_matches('/')))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_files_and_a_recorded_tree() {
        let dir = std::env::temp_dir().join(format!("pfmlib-facts-{}", std::process::id()));
        let dev = dir.join("sys/bus/event_source/devices/uncore");
        std::fs::create_dir_all(&dev).unwrap();
        std::fs::write(dev.join("type"), "13\n").unwrap();
        let f = Facts::under(dir.clone()).with_file("/proc/x", "1");
        assert_eq!(
            f.read("/sys/bus/event_source/devices/uncore/type")
                .as_deref(),
            Some("13\n")
        );
        assert!(f.exists("/sys/bus/event_source/devices/uncore"));
        assert!(!f.exists("/sys/bus/event_source/devices/cpu"));
        assert_eq!(f.read("/proc/x").as_deref(), Some("1"));
        assert!(f.exists("/proc"));
        assert_eq!(f.list_dir("/sys/bus/event_source/devices/"), vec!["uncore"]);
        assert_eq!(f.list_dir("/proc"), vec!["x"]);
        assert!(f.list_dir("/nowhere").is_empty());
        assert_eq!(Facts::none().read("/proc/x"), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn only_bounded_regular_files_are_read() {
        let dir = std::env::temp_dir().join(format!("pfmlib-facts-bad-{}", std::process::id()));
        let dev = dir.join("sys/bus/event_source/devices/uncore");
        std::fs::create_dir_all(&dev).unwrap();
        // A `type` linked into a device that never ends.
        std::os::unix::fs::symlink("/dev/zero", dev.join("type")).unwrap();
        // A cpuinfo over the bound (sparse: nothing is written).
        let big = std::fs::File::create(dir.join("cpuinfo")).unwrap();
        big.set_len(MAX_FACT_BYTES + 1).unwrap();
        // A FIFO nobody writes to (opening it blocking would wait forever).
        let fifo = dev.join("cpumask");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let f = Facts::under(dir.clone());
        assert_eq!(f.read("/sys/bus/event_source/devices/uncore/type"), None);
        assert_eq!(f.read_fresh("/cpuinfo"), None);
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(f.read("/sys/bus/event_source/devices/uncore/cpumask"), None);
        }
        // A file of exactly the bound is read.
        big.set_len(MAX_FACT_BYTES).unwrap();
        assert_eq!(
            f.read_fresh("/cpuinfo").map(|s| s.len() as u64),
            Some(MAX_FACT_BYTES)
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
