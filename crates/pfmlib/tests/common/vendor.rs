//! Where the vendors' event lists are (`../shared/oracle/vendor`, the
//! oracle of the `vendor_*` tests; never copied into the repository).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The vendor folder holding `sub` (`intel`, `arm`, `riscv`...):
/// `$PFMLIB_VENDOR_DIR`, else `vendor` beside `$PFMLIB_ORACLE_DIR` (both
/// set by `.ci/run`), else a `shared/oracle/vendor` above this crate or
/// above the main checkout of a git worktree. `None` (after printing
/// `SKIPPED`) when missing; a failure when `PFMLIB_REQUIRE_ORACLE` is set.
pub fn vendor_dir(sub: &str) -> Option<PathBuf> {
    let mut tries: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("PFMLIB_VENDOR_DIR") {
        tries.push(d.into());
    }
    if let Some(d) = std::env::var_os("PFMLIB_ORACLE_DIR") {
        tries.push(PathBuf::from(d).join("../vendor"));
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    tries.extend(here.ancestors().map(|a| a.join("shared/oracle/vendor")));
    // A git worktree: `.git` names the main checkout's `.git/worktrees/..`.
    if let Ok(git) = std::fs::read_to_string(here.join("../../.git")) {
        if let Some(main) = git
            .strip_prefix("gitdir: ")
            .and_then(|g| g.trim().split("/.git/").next())
        {
            tries.push(Path::new(main).join("../shared/oracle/vendor"));
        }
    }
    let found = tries.into_iter().find(|d| d.join(sub).is_dir());
    if found.is_none() {
        assert!(
            std::env::var_os("PFMLIB_REQUIRE_ORACLE").is_none(),
            "the vendor lists are required (PFMLIB_REQUIRE_ORACLE) but ../shared/oracle/vendor/{sub} was not found: set PFMLIB_VENDOR_DIR"
        );
        eprintln!("SKIPPED: ../shared/oracle/vendor/{sub} not found (set PFMLIB_VENDOR_DIR)");
    }
    found
}
