//! What every format shares: the descriptions of a data file already
//! there, and writing a data file (or, with `--check`, telling what would
//! change).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

/// The placeholder of a description nobody has written yet.
pub const TODO: &str = "TODO";

/// Descriptions of an existing data file, by `EVENT` and `EVENT:UMASK`
/// (empty when the file does not exist yet).
pub fn descriptions(path: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(out);
    };
    let doc: toml::Value = toml::from_str(&text)?;
    let events = doc.get("event").and_then(|e| e.as_array());
    for ev in events.into_iter().flatten() {
        let Some(name) = ev.get("name").and_then(|n| n.as_str()) else {
            continue;
        };
        if let Some(d) = ev.get("desc").and_then(|d| d.as_str()) {
            out.insert(name.to_string(), d.to_string());
        }
        let umasks = ev.get("umask").and_then(|u| u.as_array());
        for um in umasks.into_iter().flatten() {
            let (Some(u), Some(d)) = (
                um.get("name").and_then(|n| n.as_str()),
                um.get("desc").and_then(|d| d.as_str()),
            ) else {
                continue;
            };
            out.insert(format!("{name}:{u}"), d.to_string());
        }
    }
    Ok(out)
}

/// Writes `text` to `path`, or with `check` writes nothing and returns
/// whether it would change the file (printing the lines that differ).
pub fn write_or_check(path: &Path, text: &str, check: bool) -> anyhow::Result<bool> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    if old == text {
        return Ok(false);
    }
    if check {
        let a: std::collections::BTreeSet<&str> = old.lines().collect();
        let b: std::collections::BTreeSet<&str> = text.lines().collect();
        println!("{}: would change", path.display());
        for l in a.difference(&b) {
            println!("  - {l}");
        }
        for l in b.difference(&a) {
            println!("  + {l}");
        }
    } else {
        std::fs::write(path, text)?;
        println!("{}: written", path.display());
    }
    Ok(true)
}

/// A TOML basic string (quotes and escapes).
pub fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The first lines of a unit mask: `[[event.umask]]`, its name, description
/// and `code` (already written as TOML).
pub fn umask_head(name: &str, desc: &str, code: &str) -> String {
    format!(
        "\n  [[event.umask]]\n  name = {}\n  desc = {}\n  code = {code}\n",
        quoted(name),
        quoted(desc)
    )
}

/// The vendors' lists for tests: `$PFMLIB_VENDOR_DIR`, else `vendor`
/// beside `$PFMLIB_ORACLE_DIR` (`.ci/run` sets both), else a
/// `shared/oracle/vendor` above this crate, if it holds `sub`. `None` when
/// not found, a panic then if `PFMLIB_REQUIRE_ORACLE` is set.
#[cfg(test)]
pub fn vendor_dir(sub: &str) -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    let mut tries: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("PFMLIB_VENDOR_DIR") {
        tries.push(d.into());
    }
    if let Some(d) = std::env::var_os("PFMLIB_ORACLE_DIR") {
        tries.push(PathBuf::from(d).join("../vendor"));
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    tries.extend(here.ancestors().map(|a| a.join("shared/oracle/vendor")));
    let found = tries.into_iter().find(|d| d.join(sub).is_dir());
    if found.is_none() {
        assert!(
            std::env::var_os("PFMLIB_REQUIRE_ORACLE").is_none(),
            "the vendor lists are required (PFMLIB_REQUIRE_ORACLE) but not found: set PFMLIB_VENDOR_DIR"
        );
        eprintln!("SKIPPED: the vendor lists (../shared/oracle/vendor) not found");
    }
    found
}
