//! `--input FILE`: event strings one per line, from a file or standard input.

use crate::input::MAX_LINE_BYTES;
use anyhow::{bail, Context};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// What [`for_each_event`] hands its caller: the next event string, or word
/// that the input has nothing more buffered, so the next read may wait (the
/// caller flushes what it printed: each answer reaches a pipe or a terminal
/// before the next line is typed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item<'a> {
    /// One event string.
    Event(&'a str),
    /// Nothing buffered: the next read may block.
    Idle,
}

/// Input read ahead at a time.
const READ_AHEAD: usize = 64 << 10;

/// Calls `check` with each event string of `path` (`-`: standard input), in
/// order: one per line, without its line ending (`\n` or `\r\n`); empty
/// lines are skipped. A line that is not UTF-8, or longer than
/// [`MAX_LINE_BYTES`] (a file without line ends, such as `/dev/zero`),
/// stops the reading with an error naming it (as the command line refuses
/// such an argument), so nothing unbounded is ever held. Before each read
/// that may wait for more input, `check` gets [`Item::Idle`].
pub fn for_each_event(
    path: &Path,
    check: impl FnMut(Item) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let name = path.display().to_string();
    if path.as_os_str() == "-" {
        for_each_line(std::io::stdin().lock(), "standard input", check)
    } else {
        let file = std::fs::File::open(path).with_context(|| format!("cannot read {name}"))?;
        for_each_line(file, &name, check)
    }
}

/// [`for_each_event`] over any reader; `name` says where the lines come from.
pub fn for_each_line(
    reader: impl Read,
    name: &str,
    mut check: impl FnMut(Item) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut reader = BufReader::with_capacity(READ_AHEAD, reader);
    let mut buf = Vec::with_capacity(256);
    let mut line_no = 0usize;
    loop {
        buf.clear();
        if reader.buffer().is_empty() {
            check(Item::Idle)?;
        }
        let n = (&mut reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("cannot read {name}"))?;
        if n == 0 {
            return Ok(());
        }
        line_no += 1;
        if buf.last() != Some(&b'\n') && buf.len() as u64 > MAX_LINE_BYTES {
            bail!(
                "line {line_no} of {name} is longer than {} KiB: not an event string",
                MAX_LINE_BYTES >> 10
            );
        }
        let line = strip_line_end(&buf);
        if line.is_empty() {
            continue;
        }
        let Ok(ev) = std::str::from_utf8(line) else {
            bail!("line {line_no} of {name} is not valid UTF-8");
        };
        check(Item::Event(ev))?;
    }
}

/// `line` without its `\n` and then one `\r`.
fn strip_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> anyhow::Result<Vec<String>> {
        let mut v = Vec::new();
        for_each_line(input, "test", |it| {
            if let Item::Event(ev) = it {
                v.push(ev.to_string());
            }
            Ok(())
        })?;
        Ok(v)
    }

    #[test]
    fn lines_without_endings_and_empty_ones() {
        let v = lines(b"a\r\n\nb\n\r\n c \r\r\nlast").unwrap();
        assert_eq!(v, ["a", "b", " c \r", "last"]);
        assert!(lines(b"").unwrap().is_empty());
        assert_eq!(lines(b"\n\n").unwrap().len(), 0);
    }

    #[test]
    fn endless_lines_are_refused_at_the_bound() {
        let zeros = std::io::repeat(0).take(4 * MAX_LINE_BYTES);
        let e = for_each_line(zeros, "zeros", |_| Ok(())).unwrap_err();
        assert!(
            e.to_string().contains("line 1 of zeros is longer than"),
            "{e}"
        );
        // A line of exactly the bound is still read.
        let mut long = vec![b'x'; MAX_LINE_BYTES as usize];
        long.push(b'\n');
        let mut n = 0;
        for_each_line(long.as_slice(), "long", |it| {
            if let Item::Event(ev) = it {
                n = ev.len();
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(n, MAX_LINE_BYTES as usize);
    }

    #[test]
    fn idle_comes_before_each_read_that_may_wait() {
        // A reader that hands out one line per read, as a terminal does.
        struct Typed(Vec<&'static [u8]>);
        impl Read for Typed {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let Some(l) = self.0.first().copied() else {
                    return Ok(0);
                };
                self.0.remove(0);
                out[..l.len()].copy_from_slice(l);
                Ok(l.len())
            }
        }
        let mut seen = Vec::new();
        for_each_line(Typed(vec![&b"a\n"[..], &b"b\nc\n"[..]]), "tty", |it| {
            seen.push(match it {
                Item::Event(e) => e.to_string(),
                Item::Idle => "-".to_string(),
            });
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, ["-", "a", "-", "b", "c", "-"]);
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let e = lines(b"ok\n\xff\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2 of test is not valid UTF-8");
    }

    #[test]
    fn a_missing_file_is_named() {
        let e = for_each_event(Path::new("/no/such/file"), |_| Ok(())).unwrap_err();
        assert!(
            format!("{e:#}").starts_with("cannot read /no/such/file: "),
            "{e:#}"
        );
    }
}
