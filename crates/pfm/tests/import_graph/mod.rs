//! The module import graph of a crate's sources, read without compiling
//! them: one node per module (file or inline `mod x { }`), an edge from A
//! to B when A's code names B's items (`use crate::b::x`, `crate::b::x`,
//! `super::x`, `self::b`, `b::x` for a child `b`, grouped `use` trees).
//!
//! An item re-exported by a module counts as that module's (`use
//! crate::X` where the root says `pub use error::X` is an edge to the
//! root). Declaring a child (`mod b;`) is not an edge, and test code
//! (`#[cfg(test)]` items, `mod tests` among them) is left out. An inline
//! module (`mod id { }`, a namespace of constants) is part of its file:
//! the graph's nodes are files, which is what layering is about.

mod tokens;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tokens::{tokenize, Spanned, Tok};

/// One module of a crate.
#[derive(Debug)]
pub struct Module {
    /// Its path from the crate root (empty for the root).
    pub path: Vec<String>,
    /// The file it is in, relative to the workspace.
    pub file: PathBuf,
    /// Whether it is an inline `mod x { }` inside `file`.
    pub inline: bool,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    body: Vec<Spanned>,
}

/// An import: `from` uses `to`'s items, first at `line` of `from`'s file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    /// The importing module.
    pub from: usize,
    /// The imported one.
    pub to: usize,
    /// Where it is first seen.
    pub line: usize,
}

/// The modules of one crate (the tree from one root file) and their imports.
#[derive(Debug)]
pub struct Graph {
    /// Index 0 is the root.
    pub modules: Vec<Module>,
    /// Each (from, to) once, with its first line.
    pub edges: Vec<Edge>,
}

/// Reads files for the graph: the workspace's, or a test's in memory.
pub trait Source {
    /// The text of `path` (relative to the workspace), if there is such a file.
    fn read(&self, path: &Path) -> Option<String>;
}

/// Files under a directory.
pub struct Dir(pub PathBuf);

impl Source for Dir {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(self.0.join(path)).ok()
    }
}

impl Source for BTreeMap<PathBuf, String> {
    fn read(&self, path: &Path) -> Option<String> {
        self.get(path).cloned()
    }
}

impl Graph {
    /// The graph of the crate whose root file is `root` (`crates/x/src/lib.rs`).
    pub fn of(src: &dyn Source, root: &Path) -> Result<Graph, String> {
        let mut modules = Vec::new();
        let text = src
            .read(root)
            .ok_or_else(|| format!("cannot read {}", root.display()))?;
        load(src, &mut modules, None, Vec::new(), root, true, &text)?;
        // An inline module is part of its file: its imports are the file's.
        let mut file_of: Vec<usize> = Vec::with_capacity(modules.len());
        for (m, module) in modules.iter().enumerate() {
            let own = match (module.inline, module.parent) {
                (true, Some(p)) => file_of[p],
                _ => m,
            };
            file_of.push(own);
        }
        let mut edges: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for m in 0..modules.len() {
            for (segs, line) in paths(&modules[m].body, &modules[m].children) {
                if let Some(to) = resolve(&modules, m, &segs) {
                    let (from, to) = (file_of[m], file_of[to]);
                    if to != from {
                        let first = edges.entry((from, to)).or_insert(line);
                        *first = (*first).min(line);
                    }
                }
            }
        }
        let edges = edges
            .into_iter()
            .map(|((from, to), line)| Edge { from, to, line })
            .collect();
        Ok(Graph { modules, edges })
    }

    /// The strongly connected components of more than one module (the
    /// import cycles), each sorted by module index.
    pub fn cycles(&self) -> Vec<Vec<usize>> {
        let n = self.modules.len();
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
        for e in &self.edges {
            next[e.from].push(e.to);
        }
        let mut t = Tarjan {
            next: &next,
            index: vec![None; n],
            low: vec![0; n],
            stack: Vec::new(),
            on_stack: vec![false; n],
            counter: 0,
            out: Vec::new(),
        };
        for v in 0..n {
            if t.index[v].is_none() {
                t.visit(v);
            }
        }
        let mut out: Vec<Vec<usize>> = t.out.into_iter().filter(|c| c.len() > 1).collect();
        out.iter_mut().for_each(|c| c.sort_unstable());
        out.sort();
        out
    }
}

/// Tarjan's strongly-connected-components walk.
struct Tarjan<'a> {
    next: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    stack: Vec<usize>,
    on_stack: Vec<bool>,
    counter: usize,
    out: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.counter);
        self.low[v] = self.counter;
        self.counter += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for &w in &self.next[v] {
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            self.out.push(comp);
        }
    }
}

/// Adds the module of `file` (or an inline one whose `text` is its body)
/// and, recursively, its children; returns its index.
fn load(
    src: &dyn Source,
    modules: &mut Vec<Module>,
    parent: Option<usize>,
    path: Vec<String>,
    file: &Path,
    owns_dir: bool,
    text: &str,
) -> Result<usize, String> {
    let toks = without_test_code(&tokenize(text));
    add_module(src, modules, parent, path, file, owns_dir, false, toks)
}

/// Adds a module from its tokens, then its children (file or inline).
#[allow(clippy::too_many_arguments)]
fn add_module(
    src: &dyn Source,
    modules: &mut Vec<Module>,
    parent: Option<usize>,
    path: Vec<String>,
    file: &Path,
    owns_dir: bool,
    inline: bool,
    toks: Vec<Spanned>,
) -> Result<usize, String> {
    let me = modules.len();
    modules.push(Module {
        path: path.clone(),
        file: file.to_path_buf(),
        inline,
        parent,
        children: BTreeMap::new(),
        body: Vec::new(),
    });
    let (body, decls) = split_mods(&toks);
    modules[me].body = body;
    let dir = file.parent().unwrap_or(Path::new(""));
    for d in decls {
        let mut child_path = path.clone();
        child_path.push(d.name.clone());
        let child = match d.inline {
            Some(toks) => add_module(
                src,
                modules,
                Some(me),
                child_path,
                file,
                owns_dir,
                true,
                toks,
            )?,
            None => {
                let (child_file, text) = child_file(src, file, dir, owns_dir, &d)?;
                let owns = d.path_attr.is_some() || child_file.ends_with("mod.rs");
                load(src, modules, Some(me), child_path, &child_file, owns, &text)?
            }
        };
        modules[me].children.insert(d.name, child);
    }
    Ok(me)
}

/// The file of a `mod name;` declared in `file`, and its text: `#[path]`
/// relative to the file's directory; else `name.rs` or `name/mod.rs` beside
/// a `mod.rs`-like file, under `stem/` beside another.
fn child_file(
    src: &dyn Source,
    file: &Path,
    dir: &Path,
    owns_dir: bool,
    d: &ModDecl,
) -> Result<(PathBuf, String), String> {
    let candidates: Vec<PathBuf> = match &d.path_attr {
        Some(p) => vec![dir.join(p)],
        None => {
            let base = match owns_dir {
                true => dir.to_path_buf(),
                false => dir.join(file.file_stem().unwrap_or_default()),
            };
            vec![
                base.join(format!("{}.rs", d.name)),
                base.join(&d.name).join("mod.rs"),
            ]
        }
    };
    for c in &candidates {
        if let Some(text) = src.read(c) {
            return Ok((c.clone(), text));
        }
    }
    Err(format!(
        "{}: no file for mod {} (tried {candidates:?})",
        file.display(),
        d.name
    ))
}

/// A `mod` item of a module's body.
struct ModDecl {
    name: String,
    /// Its `#[path = "..."]`.
    path_attr: Option<String>,
    /// The tokens of an inline module's body.
    inline: Option<Vec<Spanned>>,
}

/// The tokens of a module's own body (children's inline bodies taken out)
/// and its `mod` items.
fn split_mods(toks: &[Spanned]) -> (Vec<Spanned>, Vec<ModDecl>) {
    let (mut body, mut decls) = (Vec::new(), Vec::new());
    let mut path_attr = None;
    let mut i = 0;
    let mut depth = 0i32;
    while i < toks.len() {
        let t = &toks[i].0;
        if depth == 0 && *t == Tok::Punct('#') {
            let end = attr_end(toks, i);
            if let Some([(Tok::Ident(p), _), (Tok::Punct('='), _), (Tok::Str(s), _)]) =
                toks.get(i + 2..end.saturating_sub(1))
            {
                if p == "path" {
                    path_attr = Some(s.clone());
                }
            }
            i = end;
            continue;
        }
        if depth == 0 && *t == Tok::Ident("mod".into()) {
            if let Some((Tok::Ident(name), _)) = toks.get(i + 1) {
                let name = name.clone();
                let attr = path_attr.take();
                if toks.get(i + 2).map(|t| &t.0) == Some(&Tok::Punct('{')) {
                    let end = block_end(toks, i + 2);
                    let inner = toks[i + 3..end - 1].to_vec();
                    decls.push(ModDecl {
                        name,
                        path_attr: attr,
                        inline: Some(inner),
                    });
                    i = end;
                } else {
                    decls.push(ModDecl {
                        name,
                        path_attr: attr,
                        inline: None,
                    });
                    i += 3;
                }
                continue;
            }
        }
        match t {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct('}' | ')' | ']') => depth -= 1,
            Tok::Punct(';') if depth == 0 => path_attr = None,
            _ => {}
        }
        body.push(toks[i].clone());
        i += 1;
    }
    (body, decls)
}

/// The index after the attribute starting at `i` (`#[…]` or `#![…]`).
fn attr_end(toks: &[Spanned], i: usize) -> usize {
    let open = match toks.get(i + 1).map(|t| &t.0) {
        Some(Tok::Punct('!')) => i + 2,
        _ => i + 1,
    };
    match toks.get(open).map(|t| &t.0) {
        Some(Tok::Punct('[')) => block_end(toks, open),
        _ => i + 1,
    }
}

/// The index after the bracket that closes the one at `open`.
fn block_end(toks: &[Spanned], open: usize) -> usize {
    let mut depth = 0;
    for (j, (t, _)) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct('}' | ')' | ']') => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

/// `toks` without the items marked `#[cfg(test)]` (and their attributes).
fn without_test_code(toks: &[Spanned]) -> Vec<Spanned> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i].0 == Tok::Punct('#') && is_cfg_test(toks, i) {
            i = item_end(toks, attr_end(toks, i));
            continue;
        }
        out.push(toks[i].clone());
        i += 1;
    }
    out
}

/// Whether the attribute at `i` is exactly `#[cfg(test)]`.
fn is_cfg_test(toks: &[Spanned], i: usize) -> bool {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    toks.len() >= i + want.len() && toks[i..i + want.len()].iter().map(|t| &t.0).eq(want.iter())
}

/// The index after the item starting at `i` (its further attributes
/// included): its first `;` outside brackets, or its closing brace.
fn item_end(toks: &[Spanned], mut i: usize) -> usize {
    while toks.get(i).map(|t| &t.0) == Some(&Tok::Punct('#')) {
        i = attr_end(toks, i);
    }
    while i < toks.len() {
        match toks[i].0 {
            Tok::Punct(';') => return i + 1,
            Tok::Punct('(' | '[') => i = block_end(toks, i),
            Tok::Punct('{') => {
                let end = block_end(toks, i);
                return match toks.get(end).map(|t| &t.0) {
                    Some(Tok::Punct(';')) => end + 1,
                    _ => end,
                };
            }
            _ => i += 1,
        }
    }
    toks.len()
}

/// The module paths named in `body` (of a module with these children):
/// every path of every `use` tree, and every path in code that starts with
/// `crate`, `super`, `self` or a child's name; with their lines.
fn paths(body: &[Spanned], children: &BTreeMap<String, usize>) -> Vec<(Vec<String>, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let prev = i.checked_sub(1).map(|p| &body[p].0);
        let after_sep = matches!(prev, Some(Tok::PathSep | Tok::Punct('$' | '.')));
        match &body[i].0 {
            Tok::Ident(w) if w == "use" && !after_sep => {
                let line = body[i].1;
                let mut trees = Vec::new();
                i = use_tree(body, i + 1, Vec::new(), &mut trees);
                out.extend(trees.into_iter().map(|t| (t, line)));
            }
            Tok::Ident(w) if !after_sep && body.get(i + 1).map(|t| &t.0) == Some(&Tok::PathSep) => {
                let start =
                    matches!(w.as_str(), "crate" | "super" | "self") || children.contains_key(w);
                let line = body[i].1;
                let mut segs = vec![w.clone()];
                i += 1;
                while body.get(i).map(|t| &t.0) == Some(&Tok::PathSep) {
                    match body.get(i + 1).map(|t| &t.0) {
                        Some(Tok::Ident(s)) => segs.push(s.clone()),
                        _ => break,
                    }
                    i += 2;
                }
                // `stat::run(…)`: a call names a function, even where a
                // child module has the same name.
                if body.get(i).map(|t| &t.0) == Some(&Tok::Punct('(')) && segs.len() > 1 {
                    segs.pop();
                }
                if start {
                    out.push((segs, line));
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// Parses a `use` tree at `i` under `prefix` into full paths (`self` in a
/// group stands for the prefix; a glob ends at its module); returns the
/// index after it.
fn use_tree(
    toks: &[Spanned],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    if toks.get(i).map(|t| &t.0) == Some(&Tok::PathSep) {
        i += 1; // `use ::std::x`: an extern crate, as any other first segment
    }
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::Ident(s)) if s == "self" && !prefix.is_empty() => {
                out.push(prefix.clone());
                i += 1;
            }
            Some(Tok::Ident(s)) => {
                prefix.push(s.clone());
                i += 1;
                if toks.get(i).map(|t| &t.0) == Some(&Tok::PathSep) {
                    i += 1;
                    continue;
                }
                out.push(prefix.clone());
            }
            Some(Tok::Punct('*')) => {
                out.push(prefix.clone());
                i += 1;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                while !matches!(toks.get(i).map(|t| &t.0), Some(Tok::Punct('}')) | None) {
                    i = use_tree(toks, i, prefix.clone(), out);
                    if toks.get(i).map(|t| &t.0) == Some(&Tok::Punct(',')) {
                        i += 1;
                    }
                }
                i += 1;
            }
            _ => {}
        }
        break;
    }
    // `as alias`
    if toks.get(i).map(|t| &t.0) == Some(&Tok::Ident("as".into())) {
        i += 2;
    }
    if toks.get(i).map(|t| &t.0) == Some(&Tok::Punct(';')) {
        i += 1;
    }
    i
}

/// The module whose items the path `segs`, written in module `m`, names:
/// the deepest module reached through `crate`, `super`, `self` and child
/// names; `None` for paths into other crates.
fn resolve(modules: &[Module], m: usize, segs: &[String]) -> Option<usize> {
    let mut cur = m;
    let mut rest = segs.iter().peekable();
    match rest.peek().map(|s| s.as_str()) {
        Some("crate") => {
            cur = 0;
            rest.next();
        }
        Some("self") => {
            rest.next();
        }
        Some("super") => {
            while rest.peek().map(|s| s.as_str()) == Some("super") {
                cur = modules[cur].parent?;
                rest.next();
            }
        }
        Some(first) if modules[m].children.contains_key(first) => {}
        _ => return None,
    }
    for s in rest {
        match modules[cur].children.get(s) {
            Some(&c) => cur = c,
            None => break,
        }
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(files: &[(&str, &str)]) -> Graph {
        let src: BTreeMap<PathBuf, String> = files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect();
        Graph::of(&src, Path::new(files[0].0)).unwrap()
    }

    fn edges(g: &Graph) -> Vec<(String, String)> {
        g.edges
            .iter()
            .map(|e| {
                (
                    g.modules[e.from].path.join("::"),
                    g.modules[e.to].path.join("::"),
                )
            })
            .collect()
    }

    #[test]
    fn edges_from_uses_and_paths_not_from_declarations() {
        let g = graph(&[
            (
                "s/lib.rs",
                "mod a; mod b; mod c; pub use c::Z; fn f() { b::g(); }",
            ),
            (
                "s/a.rs",
                "use crate::{b::{self, X}, c};\n// use crate::d;\nconst S: &str = \"crate::d::x\";",
            ),
            (
                "s/b.rs",
                "mod inner { pub fn h() { super::super::Z; } }\npub fn g() { inner::h() }",
            ),
            (
                "s/c.rs",
                "#[cfg(test)]\nmod tests { use crate::a::*; }\npub struct Z;",
            ),
        ]);
        let mut e = edges(&g);
        e.sort();
        let want = [("", "b"), ("", "c"), ("a", "b"), ("a", "c"), ("b", "")];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(e, want);
        // lib → b (b::g) → lib (Z, re-exported by the root, named in b's
        // inline module, which is part of b's file).
        assert_eq!(g.cycles(), [vec![0, 2]]);
    }

    #[test]
    fn files_of_mod_rs_named_and_path_layouts() {
        let g = graph(&[
            ("s/main.rs", "mod x;\n#[path = \"y/defs.rs\"]\nmod defs;"),
            ("s/x/mod.rs", "mod z; use super::defs::fam;"),
            ("s/x/z.rs", "mod w; use self::w::W;"),
            ("s/x/z/w.rs", "pub struct W; use crate::x::Q;"),
            ("s/y/defs.rs", "#[path = \"fam/defs.rs\"]\npub mod fam;"),
            (
                "s/y/fam/defs.rs",
                "r#\"mod nope;\"#; 'a'; '\\''; fn f<'a>() {}",
            ),
        ]);
        let files: Vec<String> = g
            .modules
            .iter()
            .map(|m| m.file.display().to_string())
            .collect();
        assert_eq!(
            files,
            [
                "s/main.rs",
                "s/x/mod.rs",
                "s/x/z.rs",
                "s/x/z/w.rs",
                "s/y/defs.rs",
                "s/y/fam/defs.rs"
            ]
        );
        let mut e = edges(&g);
        e.sort();
        assert_eq!(
            e,
            [("x", "defs::fam"), ("x::z", "x::z::w"), ("x::z::w", "x")]
                .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        assert!(g.cycles().is_empty());
    }

    #[test]
    fn a_call_names_a_function_not_the_module_of_that_name() {
        let g = graph(&[
            ("s/main.rs", "mod stat; fn main() { stat::run(1); }"),
            ("s/stat/mod.rs", "mod run; pub fn run(x: u8) { run::go(x) }"),
            ("s/stat/run.rs", "pub fn go(_: u8) {}"),
        ]);
        let mut e = edges(&g);
        e.sort();
        let want = [("", "stat"), ("stat", "stat::run")];
        assert_eq!(e, want.map(|(a, b)| (a.to_string(), b.to_string())));
    }
}
