//! Rust source as tokens, as far as module paths need: identifiers, `::`,
//! punctuation and string literals (for `#[path = "…"]`), with their
//! lines; comments, characters and numbers carry nothing.

/// A token of Rust source, as far as module paths need.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// An identifier or keyword (`r#` stripped).
    Ident(String),
    /// A string literal's contents (escapes left as written).
    Str(String),
    /// `::`.
    PathSep,
    /// Any other punctuation character.
    Punct(char),
    /// A number, character or lifetime: nothing a path needs.
    Other,
}

/// A token and the line it starts on.
pub type Spanned = (Tok, usize);

/// The tokens of `src`, comments left out.
pub fn tokenize(src: &str) -> Vec<Spanned> {
    let b: Vec<char> = src.chars().collect();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    let newlines = |s: &[char]| s.iter().filter(|&&c| c == '\n').count();
    while i < b.len() {
        let c = b[i];
        let start = i;
        let at = line;
        if c == '\n' {
            line += 1;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if let Some(end) = comment_end(&b, i) {
            line += newlines(&b[start..end]);
            i = end;
            continue;
        }
        if let Some((end, text)) = string_at(&b, i) {
            line += newlines(&b[start..end]);
            out.push((Tok::Str(text), at));
            i = end;
            continue;
        }
        if c == '\'' {
            i = quote_end(&b, i);
            out.push((Tok::Other, at));
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            let word: String = b[start..i].iter().collect();
            if word == "r"
                && b.get(i) == Some(&'#')
                && b.get(i + 1).is_some_and(|c| c.is_alphabetic())
            {
                i += 1; // r#ident: the identifier follows the '#'
                continue;
            }
            let tok = match c.is_ascii_digit() {
                true => Tok::Other,
                false => Tok::Ident(word),
            };
            out.push((tok, at));
            continue;
        }
        if c == ':' && b.get(i + 1) == Some(&':') {
            out.push((Tok::PathSep, at));
            i += 2;
            continue;
        }
        out.push((Tok::Punct(c), at));
        i += 1;
    }
    out
}

/// The end of the comment starting at `i` (`//` to the end of the line,
/// nested `/* */`), if one starts there.
fn comment_end(b: &[char], i: usize) -> Option<usize> {
    match (b[i], b.get(i + 1)) {
        ('/', Some('/')) => Some((i..b.len()).find(|&j| b[j] == '\n').unwrap_or(b.len())),
        ('/', Some('*')) => {
            let (mut j, mut depth) = (i, 0);
            while j < b.len() {
                if b[j] == '/' && b.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if b[j] == '*' && b.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            Some(j.min(b.len()))
        }
        _ => None,
    }
}

/// The end of the character literal (`'x'`, `'\n'`, `'\u{1F600}'`) or
/// lifetime (`'a`) whose quote is at `i`.
fn quote_end(b: &[char], i: usize) -> usize {
    if b.get(i + 1) == Some(&'\\') {
        let mut j = i + 3;
        while j < b.len() && b[j] != '\'' {
            j += 1;
        }
        j + 1
    } else if b.get(i + 2) == Some(&'\'') {
        i + 3
    } else {
        i + 1
    }
}

/// A string literal starting at `i` (`"…"`, `b"…"`, `r#"…"#`, `br"…"`,
/// `c"…"`): where it ends and its contents.
fn string_at(b: &[char], i: usize) -> Option<(usize, String)> {
    let mut j = i;
    while j < b.len() && j < i + 2 && matches!(b[j], 'b' | 'c' | 'r') {
        j += 1;
    }
    // A prefix must not be the end of an identifier (`attr"`).
    if j > i && i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_') {
        return None;
    }
    let raw = b[i..j].contains(&'r');
    let mut hashes = 0;
    while raw && b.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if b.get(j) != Some(&'"') {
        return None;
    }
    let body = j + 1;
    let mut k = body;
    while k < b.len() {
        if !raw && b[k] == '\\' {
            k += 2;
            continue;
        }
        if b[k] == '"' && (0..hashes).all(|h| b.get(k + 1 + h) == Some(&'#')) {
            let text = b[body..k].iter().collect();
            return Some((k + 1 + hashes, text));
        }
        k += 1;
    }
    Some((b.len(), b[body..].iter().collect()))
}
