//! Reading a whole request (a file, or standard input for `-`), bounded:
//! a file that never ends (`/dev/urandom`, `/dev/zero`) is refused at the
//! bound instead of filling the memory; and the JSON shape of a failure
//! that `pfm dispatch --json` and `pfm counters --json` share.

use anyhow::{bail, Context};
use std::io::{BufRead, Read};

/// The most a request file may hold, in bytes.
pub const MAX_REQUEST_BYTES: u64 = 16 << 20;

/// The text of `path` (`None` or `-`: standard input), at most
/// [`MAX_REQUEST_BYTES`] bytes.
pub fn read_request(path: Option<&std::path::Path>) -> anyhow::Result<String> {
    let (name, reader): (String, Box<dyn Read>) = match path {
        None => ("standard input".into(), Box::new(std::io::stdin())),
        Some(p) if p.as_os_str() == "-" => ("standard input".into(), Box::new(std::io::stdin())),
        Some(p) => (
            p.display().to_string(),
            Box::new(
                std::fs::File::open(p).with_context(|| format!("cannot read {}", p.display()))?,
            ),
        ),
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_REQUEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {name}"))?;
    if bytes.len() as u64 > MAX_REQUEST_BYTES {
        bail!(
            "{name} is larger than {} MiB: not a request",
            MAX_REQUEST_BYTES >> 20
        );
    }
    String::from_utf8(bytes).with_context(|| format!("{name} is not UTF-8 text"))
}

/// The longest line [`Lines`] takes, in bytes.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

/// The lines of a file or of standard input (`-`), one at a time as they
/// arrive (a pipe or a terminal is answered line by line), each at most
/// [`MAX_LINE_BYTES`] bytes: a file without line ends (`/dev/zero`) is
/// refused at the bound, and nothing accumulates between lines.
pub struct Lines {
    reader: Box<dyn BufRead>,
    name: String,
    number: usize,
}

impl Lines {
    /// Opens `path` (`-`: standard input).
    pub fn open(path: &std::path::Path) -> anyhow::Result<Lines> {
        let (name, reader): (String, Box<dyn BufRead>) = if path.as_os_str() == "-" {
            ("standard input".into(), Box::new(std::io::stdin().lock()))
        } else {
            let f = std::fs::File::open(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            (
                path.display().to_string(),
                Box::new(std::io::BufReader::new(f)),
            )
        };
        Ok(Lines {
            reader,
            name,
            number: 0,
        })
    }

    /// Where the last line came from, for messages: `FILE line N`.
    pub fn position(&self) -> String {
        format!("{} line {}", self.name, self.number)
    }

    /// The next line without its line end; `None` at the end.
    pub fn next_line(&mut self) -> anyhow::Result<Option<String>> {
        let mut bytes = Vec::new();
        let n = (&mut self.reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut bytes)
            .with_context(|| format!("cannot read {}", self.name))?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        } else if bytes.len() as u64 > MAX_LINE_BYTES {
            bail!(
                "{} is longer than {} KiB: not a line of operations",
                self.position(),
                MAX_LINE_BYTES >> 10
            );
        }
        String::from_utf8(bytes)
            .map(Some)
            .with_context(|| format!("{} is not UTF-8 text", self.position()))
    }
}

/// The JSON object of a failure, shared by `pfm dispatch --json` and `pfm
/// counters --json`: `{"ok": false, "error": {"kind": KIND, "message":
/// TEXT}}`. `kind` is `usage` for input that cannot be read or parsed (exit
/// status 2); the commands name their other kinds and may add members to
/// `error` (dispatch: `code`, `name`) or beside it (counters: `op`,
/// `counter`).
pub fn error_json(kind: &str, message: &str) -> serde_json::Value {
    serde_json::json!({"ok": false, "error": {"kind": kind, "message": message}})
}
