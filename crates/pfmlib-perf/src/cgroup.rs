//! Cgroups for counting the tasks of one cgroup on CPUs (`perf stat -G`):
//! where the perf_event cgroup hierarchy is mounted and an open descriptor
//! of one cgroup's directory, which `perf_event_open(2)` takes as its pid.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where the kernel lists this process's mounts.
const MOUNTINFO: &str = "/proc/self/mountinfo";

/// Why a cgroup cannot be counted.
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    /// Neither a cgroup v2 nor a v1 `perf_event` hierarchy is mounted.
    #[error("no cgroup hierarchy with perf_event is mounted (looked in {MOUNTINFO})")]
    NoHierarchy,
    /// The cgroup's directory cannot be opened (no such cgroup, no access).
    #[error("no access to cgroup {}: {cause}", path.display())]
    NoAccess {
        /// Its directory.
        path: PathBuf,
        /// The OS's reason.
        cause: std::io::Error,
    },
}

/// One cgroup, its directory kept open for `perf_event_open`.
#[derive(Debug, Clone)]
pub struct Cgroup {
    name: String,
    path: PathBuf,
    dir: Arc<File>,
}

impl PartialEq for Cgroup {
    fn eq(&self, other: &Cgroup) -> bool {
        self.path == other.path
    }
}

impl Eq for Cgroup {}

impl Cgroup {
    /// Opens cgroup `name` (`/` for the root, `a/b` below it) of the
    /// perf_event hierarchy: a v1 `perf_event` mount when there is one,
    /// else the cgroup v2 mount (as perf looks them up).
    pub fn open(name: &str) -> Result<Cgroup, CgroupError> {
        let info = std::fs::read_to_string(MOUNTINFO).unwrap_or_default();
        let root = hierarchy_root(&info).ok_or(CgroupError::NoHierarchy)?;
        let path = root.join(name.trim_start_matches('/'));
        let dir = File::open(&path).map_err(|cause| CgroupError::NoAccess {
            path: path.clone(),
            cause,
        })?;
        if !dir.metadata().is_ok_and(|m| m.is_dir()) {
            return Err(CgroupError::NoAccess {
                path,
                cause: std::io::Error::from_raw_os_error(libc::ENOTDIR),
            });
        }
        Ok(Cgroup {
            name: name.to_string(),
            path,
            dir: Arc::new(dir),
        })
    }

    /// The name as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The descriptor `perf_event_open` takes (valid while `self` lives).
    pub fn fd(&self) -> i32 {
        self.dir.as_raw_fd()
    }
}

/// The mount point of the perf_event hierarchy in a mountinfo text.
fn hierarchy_root(mountinfo: &str) -> Option<PathBuf> {
    let mut v2 = None;
    for line in mountinfo.lines() {
        // Fields: id parent dev root mountpoint options [tags] - fstype source superopts
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let Some(mount) = left.split_whitespace().nth(4) else {
            continue;
        };
        let mut r = right.split_whitespace();
        let fstype = r.next().unwrap_or("");
        let superopts = r.nth(1).unwrap_or("");
        match fstype {
            "cgroup" if superopts.split(',').any(|o| o == "perf_event") => {
                return Some(PathBuf::from(mount));
            }
            "cgroup2" if v2.is_none() => v2 = Some(PathBuf::from(mount)),
            _ => {}
        }
    }
    v2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_perf_event_hierarchy_is_found() {
        let v2 = "30 25 0:26 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw\n\
                  31 25 0:27 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
        assert_eq!(
            hierarchy_root(v2),
            Some(PathBuf::from("/sys/fs/cgroup/unified"))
        );
        let v1 = format!(
            "{v2}32 25 0:28 / /sys/fs/cgroup/perf_event rw - cgroup cgroup rw,perf_event\n"
        );
        assert_eq!(
            hierarchy_root(&v1),
            Some(PathBuf::from("/sys/fs/cgroup/perf_event"))
        );
        assert_eq!(hierarchy_root("garbage\n1 2 3\n"), None);
    }
}
