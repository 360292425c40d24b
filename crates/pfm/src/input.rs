//! Reading a whole request (a file, or standard input for `-`), bounded:
//! a file that never ends (`/dev/urandom`, `/dev/zero`) is refused at the
//! bound instead of filling the memory.

use anyhow::{bail, Context};
use std::io::Read;

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
