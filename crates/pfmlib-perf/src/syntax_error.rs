//! What can be wrong with an event string in perf's syntax (the error type
//! of `perf_syntax`, kept below both it and the crate's
//! `Error`, which wraps it, so neither imports the other back).

/// A perf-syntax event string that cannot be resolved; each names the
/// faulty term, file or modifier (the crate's `Error::Syntax` adds the event).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SyntaxError {
    /// The string is not well formed.
    #[error("{detail}")]
    BadSyntax {
        /// What is wrong.
        detail: String,
    },
    /// No such PMU in `/sys/bus/event_source/devices`.
    #[error("no PMU {pmu:?} in /sys/bus/event_source/devices (present: {present})")]
    UnknownPmu {
        /// The PMU asked for.
        pmu: String,
        /// The PMUs there are, comma-separated.
        present: String,
    },
    /// A term the PMU's `format/` does not describe.
    #[error("PMU {pmu} has no term {term:?} (terms: {known})")]
    UnknownTerm {
        /// The PMU.
        pmu: String,
        /// The term.
        term: String,
        /// The terms it has, comma-separated.
        known: String,
    },
    /// A bare name that is neither a term nor an event of the PMU.
    #[error("PMU {pmu} has no event {alias:?} in its events/ directory (events: {known})")]
    UnknownAlias {
        /// The PMU.
        pmu: String,
        /// The name.
        alias: String,
        /// The events it has, comma-separated.
        known: String,
    },
    /// An alias term written `term=?` that the event does not give.
    #[error(
        "event {alias} of PMU {pmu} needs a value for {param}: write {pmu}/{alias},{param}=VALUE/"
    )]
    MissingParam {
        /// The PMU.
        pmu: String,
        /// The alias.
        alias: String,
        /// The term to give.
        param: String,
    },
    /// A term value that is not a number.
    #[error("term {term}: {value:?} is not a number (write 0x3c or 60)")]
    BadValue {
        /// The term.
        term: String,
        /// The value as written.
        value: String,
    },
    /// A value wider than its term's bits.
    #[error("term {term}: value {value:#x} does not fit in its {bits} bits")]
    ValueTooWide {
        /// The term.
        term: String,
        /// The value.
        value: u64,
        /// The term's width.
        bits: u32,
    },
    /// A sysfs or tracefs file that cannot be read.
    #[error("cannot read {path}")]
    Unreadable {
        /// The file.
        path: String,
    },
    /// A sysfs or tracefs file whose contents make no sense.
    #[error("{path}: {detail}")]
    BadFile {
        /// The file.
        path: String,
        /// What is wrong with it.
        detail: String,
    },
    /// Letters after `:` that are not perf modifiers.
    #[error("{modifiers:?} is not a list of perf modifiers (u, k, h, G, H, p, P, S, D, I, e)")]
    BadModifier {
        /// The letters.
        modifiers: String,
    },
    /// More than three `p`.
    #[error("{modifiers:?}: at most three 'p' (precise_ip is 0 to 3)")]
    TooPrecise {
        /// The letters.
        modifiers: String,
    },
    /// This process has no free file descriptor, so tracefs cannot be read
    /// (what is there is unknown, not missing).
    #[error("tracefs cannot be read: too many open files (the descriptor limit is reached; raise it with ulimit -n, or count fewer events)")]
    TooManyFiles,
    /// A tracepoint glob with no tracefs mounted.
    #[error("tracefs is not mounted (neither /sys/kernel/tracing nor /sys/kernel/debug/tracing has events/): mount -t tracefs nodev /sys/kernel/tracing")]
    NoTracefs,
    /// tracefs is there but its `events/` cannot be listed (not mounted,
    /// or not readable by this user: it is root's by default).
    #[error("tracefs at {dir} is not mounted or not readable by this user (its events/ cannot be listed: run as root, which mounts it as perf does, mount it yourself with mount -t tracefs nodev /sys/kernel/tracing, or make it readable){}", pfmlib.as_deref().map(|p| format!("; as a pfmlib event: {p}")).unwrap_or_default())]
    TracefsUnreadable {
        /// The tracefs directory.
        dir: String,
        /// pfmlib's error for the same string, when it could have been pfmlib's.
        pfmlib: Option<String>,
    },
    /// No tracepoint of that name.
    #[error("no such tracepoint in {dir} (list them with: ls {dir}/SUBSYSTEM)")]
    UnknownTracepoint {
        /// tracefs's `events/` directory.
        dir: String,
    },
    /// A glob that matches several tracepoints where one counter is opened.
    #[error(
        "matches {count} tracepoints: expand it first (perf_syntax::expand_groups) or name one"
    )]
    Ambiguous {
        /// How many it matches.
        count: usize,
    },
}
