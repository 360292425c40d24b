//! perf's generic software events, including those pfmlib's `perf` PMU
//! lacks, and perf's tool events (`duration_time`).

/// `PERF_TYPE_SOFTWARE`.
pub const PERF_TYPE_SOFTWARE: u32 = 1;

/// `PERF_COUNT_SW_DUMMY`: counts nothing; tool events are opened as it.
pub const SW_DUMMY: u64 = 9;

/// perf's software event names and their `PERF_COUNT_SW_*` config.
pub const SOFTWARE: [(&str, u64); 17] = [
    ("cpu-clock", 0),
    ("task-clock", 1),
    ("page-faults", 2),
    ("faults", 2),
    ("context-switches", 3),
    ("cs", 3),
    ("cpu-migrations", 4),
    ("migrations", 4),
    ("minor-faults", 5),
    ("major-faults", 6),
    ("alignment-faults", 7),
    ("emulation-faults", 8),
    ("dummy", SW_DUMMY),
    ("bpf-output", 10),
    ("cgroup-switches", 11),
    ("cpu-clock-sw", 0),
    ("task-clock-sw", 1),
];

/// A value perf computes itself instead of reading a kernel counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `duration_time`: wall-clock nanoseconds counted (the time the
    /// counter was enabled, taken once, not per CPU or thread).
    DurationTime,
}

/// perf's tool events by name.
pub const TOOLS: [(&str, Tool); 1] = [("duration_time", Tool::DurationTime)];

/// The `PERF_COUNT_SW_*` config of perf's software event `name`.
pub fn software(name: &str) -> Option<u64> {
    SOFTWARE.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
}

/// The tool event `name`, if it is one.
pub fn tool(name: &str) -> Option<Tool> {
    TOOLS.iter().find(|(n, _)| *n == name).map(|&(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(software("alignment-faults"), Some(7));
        assert_eq!(software("emulation-faults"), Some(8));
        assert_eq!(software("dummy"), Some(9));
        assert_eq!(software("bpf-output"), Some(10));
        assert_eq!(software("cgroup-switches"), Some(11));
        assert_eq!(software("Dummy"), None);
        assert_eq!(tool("duration_time"), Some(Tool::DurationTime));
        assert_eq!(tool("dummy"), None);
    }
}
