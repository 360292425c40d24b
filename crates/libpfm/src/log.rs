//! libpfm4's diagnostic output: `LIBPFM_VERBOSE` (a digit: messages for
//! people, such as the forced PMU and each encoding), `LIBPFM_DEBUG` (a
//! digit: the library's reasons, such as why an event string was refused),
//! written to the C library's `stderr`, or `stdout` with
//! `LIBPFM_DEBUG_STDOUT`, so that they interleave with the program's own
//! output as libpfm4's do.

use crate::ffi::sys;
use std::fmt;

/// Where and how much to say.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Log {
    verbose: u8,
    debug: u8,
    to_stdout: bool,
}

/// libpfm4's reading of a level: the variable's first character, if a digit.
fn level(v: Option<String>) -> u8 {
    v.and_then(|s| s.bytes().next())
        .filter(u8::is_ascii_digit)
        .map_or(0, |c| c - b'0')
}

impl Log {
    /// The settings of the environment.
    pub fn from_env() -> Log {
        Log::with_env(|k| std::env::var(k).ok())
    }

    /// The settings `var` answers.
    pub fn with_env(var: impl Fn(&str) -> Option<String>) -> Log {
        Log {
            verbose: level(var("LIBPFM_VERBOSE")),
            debug: level(var("LIBPFM_DEBUG")),
            to_stdout: var("LIBPFM_DEBUG_STDOUT").is_some(),
        }
    }

    /// Is verbose output on?
    pub fn verbose_on(&self) -> bool {
        self.verbose > 0
    }

    /// Is debug output on?
    pub fn debug_on(&self) -> bool {
        self.debug > 0
    }

    /// A verbose message (one line).
    pub fn verbose(&self, args: fmt::Arguments<'_>) {
        if self.verbose_on() {
            sys::print_line(self.to_stdout, &args.to_string());
        }
    }

    /// A debug message (one line, prefixed `pfmlib:`).
    pub fn debug(&self, args: fmt::Arguments<'_>) {
        if self.debug_on() {
            sys::print_line(self.to_stdout, &format!("pfmlib: {args}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_as_libpfm4_reads_them() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let l = Log::with_env(env(&[("LIBPFM_VERBOSE", "1"), ("LIBPFM_DEBUG", "x")]));
        assert!(l.verbose_on() && !l.debug_on() && !l.to_stdout);
        let l = Log::with_env(env(&[
            ("LIBPFM_DEBUG", "3yes"),
            ("LIBPFM_DEBUG_STDOUT", ""),
        ]));
        assert!(!l.verbose_on() && l.debug == 3 && l.to_stdout);
        let l = Log::with_env(env(&[("LIBPFM_VERBOSE", "0")]));
        assert!(!l.verbose_on());
    }
}
