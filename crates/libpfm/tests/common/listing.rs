//! showevtinfo's listings, parsed and compared (descriptions left out):
//! `conformance.rs` and `conformance_arch.rs`.

use std::collections::BTreeSet;

/// showevtinfo's output: the PMU lists and the event blocks, by PMU.
#[derive(Debug, Default)]
pub struct Listing {
    /// `[id, name]` of every supported PMU.
    pub supported: Vec<(String, String)>,
    /// Detected PMUs: id, name and what follows the description.
    pub detected: Vec<(String, String, String)>,
    /// (PMU, normalised lines) of each event block.
    pub events: Vec<(String, Vec<String>)>,
    /// Other lines (compact listings).
    pub other: Vec<String>,
}

/// A line of an event block without its description.
fn normalise(line: &str) -> Option<String> {
    if line.starts_with("Desc     :") {
        return None;
    }
    if let Some(rest) = line.strip_prefix("PMU name : ") {
        return Some(format!(
            "PMU name : {}",
            rest.split(' ').next().unwrap_or("")
        ));
    }
    if line.starts_with("Umask-") {
        // "Umask-NN : CODE : SRC : [NAME] : FLAGS : DESC" or "...: Alias to X".
        let Some(name_end) = line.find("] : ").map(|i| i + 4) else {
            return Some(line.to_string());
        };
        let flags_end = line[name_end..]
            .find(':')
            .map_or(line.len(), |i| name_end + i + 1);
        let rest = &line[flags_end..];
        let alias = if rest.starts_with(" Alias to ") {
            rest
        } else {
            ""
        };
        return Some(format!("{}{alias}", &line[..flags_end]));
    }
    if line.starts_with("Modif-") {
        // "Modif-NN : CODE : SRC : [NAME] : DESC (boolean)".
        let name_end = line.find("] : ").map_or(line.len(), |i| i + 4);
        let kind = if line.ends_with("(boolean)") {
            "(boolean)"
        } else if line.ends_with("(integer)") {
            "(integer)"
        } else {
            ""
        };
        return Some(format!("{}{kind}", &line[..name_end]));
    }
    Some(line.to_string())
}

pub fn parse_listing(out: &str) -> Listing {
    let mut l = Listing::default();
    let mut section = "";
    let mut block: Option<(String, Vec<String>)> = None;
    for line in out.lines() {
        if line == "Supported PMU models:" || line == "Detected PMU models:" {
            section = line;
            continue;
        }
        if let Some(rest) = line.strip_prefix("\t[") {
            // "[id, name, "desc"...]".
            let mut parts = rest.splitn(3, ", ");
            let id = parts.next().unwrap_or("").to_string();
            let name = parts.next().unwrap_or("").to_string();
            let tail = parts.next().unwrap_or("");
            let after_desc = tail.rfind('"').map_or("", |i| &tail[i + 1..]).to_string();
            if section.starts_with("Supported") {
                l.supported.push((id, name));
            } else {
                l.detected.push((id, name, after_desc));
            }
            continue;
        }
        if line.starts_with("Total events") {
            continue;
        }
        if line == "#-----------------------------" {
            if let Some(b) = block.take() {
                l.events.push(b);
            }
            block = Some((String::new(), Vec::new()));
            continue;
        }
        match block.as_mut() {
            Some((pmu, lines)) => {
                if let Some(rest) = line.strip_prefix("PMU name : ") {
                    *pmu = rest.split(' ').next().unwrap_or("").to_string();
                }
                lines.extend(normalise(line));
            }
            None => l.other.push(line.to_string()),
        }
    }
    if let Some(b) = block.take() {
        l.events.push(b);
    }
    l
}

/// The PMU a compact listing line names (`... pmu::EVENT...`).
fn line_pmu(line: &str) -> Option<&str> {
    let word = line.split_whitespace().find(|w| w.contains("::"))?;
    word.split("::").next()
}

/// Compares the event blocks of the PMUs in `common`, PMU by PMU (at most
/// a few differing lines reported per PMU).
fn compare_blocks(
    theirs: &[(String, Vec<String>)],
    ours: &[(String, Vec<String>)],
    common: &BTreeSet<String>,
    what: &str,
    diffs: &mut Vec<String>,
) {
    let by_pmu = |v: &[(String, Vec<String>)]| {
        let mut m: std::collections::BTreeMap<String, Vec<Vec<String>>> = Default::default();
        for (p, lines) in v.iter().filter(|(p, _)| common.contains(p)) {
            m.entry(p.clone()).or_default().push(lines.clone());
        }
        m
    };
    let (a, b) = (by_pmu(theirs), by_pmu(ours));
    for pmu in common {
        let empty = Vec::new();
        let (ea, eb) = (a.get(pmu).unwrap_or(&empty), b.get(pmu).unwrap_or(&empty));
        let mut found = Vec::new();
        if ea.len() != eb.len() {
            found.push(format!(
                "{what}: {pmu}: {} events in libpfm4, {} here",
                ea.len(),
                eb.len()
            ));
        }
        for (la, lb) in ea.iter().zip(eb) {
            if la.len() != lb.len() {
                found.push(format!("{what}: {pmu}: block {la:?} / {lb:?}"));
                continue;
            }
            for (x, y) in la.iter().zip(lb).filter(|(x, y)| x != y) {
                found.push(format!("{what}: {pmu}: libpfm4 {x:?} / pfmlib {y:?}"));
            }
        }
        let n = found.len();
        diffs.extend(found.into_iter().take(5));
        if n > 5 {
            diffs.push(format!("{what}: {pmu}: {} more differences", n - 5));
        }
    }
}

/// Compares two listings on the PMUs both libraries have; the differing
/// lines (theirs, ours).
pub fn compare_listings(
    ours: &Listing,
    theirs: &Listing,
    what: &str,
    compare_other: bool,
) -> Vec<String> {
    let names =
        |s: &Vec<(String, String)>| s.iter().map(|(_, n)| n.clone()).collect::<BTreeSet<_>>();
    let common: BTreeSet<String> = names(&ours.supported)
        .intersection(&names(&theirs.supported))
        .cloned()
        .collect();
    let mut diffs = Vec::new();
    let keep2 = |v: &Vec<(String, String)>| -> Vec<(String, String)> {
        v.iter()
            .filter(|(_, n)| common.contains(n))
            .cloned()
            .collect()
    };
    if keep2(&ours.supported) != keep2(&theirs.supported) {
        diffs.push(format!(
            "{what}: supported PMUs differ: {:?} / {:?}",
            keep2(&theirs.supported),
            keep2(&ours.supported)
        ));
    }
    let keep3 = |v: &Vec<(String, String, String)>| -> Vec<(String, String, String)> {
        v.iter()
            .filter(|(_, n, _)| common.contains(n))
            .cloned()
            .collect()
    };
    if keep3(&ours.detected) != keep3(&theirs.detected) {
        diffs.push(format!(
            "{what}: detected PMUs differ: {:?} / {:?}",
            keep3(&theirs.detected),
            keep3(&ours.detected)
        ));
    }
    compare_blocks(&theirs.events, &ours.events, &common, what, &mut diffs);
    if compare_other {
        // Compact listings: one line per event, `pmu::EVENT` in it.
        let keep = |v: &Vec<String>| -> Vec<String> {
            v.iter()
                .filter(|l| line_pmu(l).is_none_or(|p| common.contains(p)))
                .cloned()
                .collect()
        };
        let (a, b) = (keep(&theirs.other), keep(&ours.other));
        for (x, y) in a.iter().zip(&b).filter(|(x, y)| x != y).take(20) {
            diffs.push(format!("{what}: libpfm4 {x:?} / pfmlib {y:?}"));
        }
        if a.len() != b.len() {
            diffs.push(format!(
                "{what}: {} compact lines in libpfm4, {} here",
                a.len(),
                b.len()
            ));
        }
    }
    diffs
}

impl Listing {
    /// The listing without pfmlib's own PMUs (ids above libpfm4's
    /// `PFM_PMU_MAX`, 700: tables beyond libpfm4), for comparisons with a
    /// libpfm4 build.
    pub fn without_own(mut self) -> Listing {
        let own = |id: &str| id.trim().parse::<u32>().is_ok_and(|i| i > 700);
        let gone: Vec<String> = self
            .supported
            .iter()
            .filter(|(i, _)| own(i))
            .map(|(_, n)| n.clone())
            .collect();
        self.supported.retain(|(i, _)| !own(i));
        self.detected.retain(|(i, _, _)| !own(i));
        self.events.retain(|(p, _)| !gone.contains(p));
        self
    }
}
