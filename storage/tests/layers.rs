//! Imports point one way. This test reads every `.rs` file of `storage/src`
//! and `provider/src`, each down to its first `#[cfg(test)]` (test modules
//! are left out; a `#[cfg(test)] mod x;` line is skipped), finds which file
//! imports which, and fails on a circle of files that is not on the
//! allowlist below. An import is a `use` item or a path in code that starts
//! at `crate`, `super`, `self`, a child module or a name a `use` brought
//! in, resolved to the file that defines the item.
//!
//! The allowlist holds today's circles, as mapped in
//! `../shared/design/redesign-stages.md` ("Where things stand"). Each
//! redesign stage cuts ties and deletes entries; an entry that no longer
//! matches a circle fails the test too, so the list only shrinks. A new
//! circle fails the test: cut one of the ties it prints.
//!
//! Two things are not imports: a parent's `mod x;` and a parent's
//! `pub use x::…` of its own descendants (the folder's face). Paths go
//! through re-exports: `crate::Error` names `error/mod.rs`, not `lib.rs`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Today's circles in `storage/src`: none. Issue 46 cut the design map's
/// 22-file circle (error payloads in `error/`, format enums and fields in
/// `format/`, row planning in `read/row.rs`, the writer's parts of the
/// reader's concerns in `write/`); issue 47 cut the circles inside folders
/// (`write/tdef/` sharing through `spec.rs`, `write/txn/` split by
/// statement kind, `relations::show` beside the cascades, the query
/// builder's quoting in `read/queries/quote.rs` and its row and kind types
/// in their own files, `Database::complex_values` beside `ComplexValues`).
/// A new circle fails the test.
const STORAGE_CIRCLES: &[&[&str]] = &[];

/// Circles allowed in `provider/src`: none (issue 48 cut the design map's
/// 9-file circle and the two file pairs; every folder's files import one
/// way, and so do the folders).
const PROVIDER_CIRCLES: &[&[&str]] = &[];

#[test]
fn storage_has_no_new_file_circles() {
    check_crate("storage", STORAGE_CIRCLES, "STORAGE_CIRCLES");
}

/// Storage's top-level modules point one way (issues 46 and 47): no
/// circle among them, nor any allowed.
#[test]
fn storage_top_level_modules_point_one_way() {
    check_modules("storage", &[], "(none may be listed)");
}

/// Provider's top-level modules point one way (issue 48): no circle
/// among them, nor any allowed.
#[test]
fn provider_top_level_modules_point_one_way() {
    check_modules("provider", &[], "(none may be listed)");
}

#[test]
fn provider_has_no_new_file_circles() {
    check_crate("provider", PROVIDER_CIRCLES, "PROVIDER_CIRCLES");
}

/// `ARCHITECTURE.md` names only files and folders that exist: every
/// backticked path (a word with a `/` or ending in `.rs` or `.md`) is
/// found from the repository root or, written short, under `storage/src`
/// or `provider/src`. The map cannot go stale silently.
#[test]
fn architecture_map_names_only_what_exists() {
    let root = repo_root();
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md at the repository root");
    let mut named = 0;
    let mut missing = Vec::new();
    for (i, quoted) in map.split('`').enumerate() {
        let is_path = i % 2 == 1
            && !quoted.contains(' ')
            && !quoted.contains("::")
            && (quoted.contains('/') || quoted.ends_with(".rs") || quoted.ends_with(".md"));
        if !is_path {
            continue;
        }
        named += 1;
        let found = ["", "storage/src", "provider/src"]
            .iter()
            .any(|base| root.join(base).join(quoted).exists());
        if !found {
            missing.push(quoted.to_string());
        }
    }
    assert!(named > 40, "ARCHITECTURE.md names only {named} paths");
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist (moved or renamed? update the map): {missing:?}"
    );
}

/// Synthetic crate for the resolver test: each `== file -> imports` line
/// opens a file and says which files it must be found to import.
const SYNTHETIC: &str = "
== lib.rs ->
pub mod a; mod b; mod c; mod d;
pub use a::A; // the crate's face: no import
== a/mod.rs -> b.rs
mod x; // a parent's declaration: no import
/// crate::c::C in a comment
pub struct A(crate::b::B);
== a/x.rs -> a/mod.rs
use super::A; // super of a/x.rs is a/mod.rs
== b.rs -> a/mod.rs c.rs
use crate::{c::{self, C}, a};
pub struct B(C);
== c.rs -> a/mod.rs
pub struct C(super::A); // super of c.rs is the root, its A is a's
const S: &str = \"crate::d\";
== d.rs -> a/mod.rs
use crate::A;
#[cfg(test)]
mod tests { use crate::b; }
";

#[test]
fn resolver_sees_circles_super_paths_and_not_child_declarations() {
    let mut files = Vec::new();
    let mut expected = Vec::new();
    for section in SYNTHETIC.split("\n== ").skip(1) {
        let (head, text) = section.split_once('\n').unwrap();
        let (file, imports) = head.split_once(" ->").unwrap();
        files.push((file.to_string(), text.to_string()));
        expected.push((file, imports.trim()));
    }
    let graph = file_graph(&files);
    for (file, imports) in expected {
        let found: Vec<_> = graph[file].keys().map(String::as_str).collect();
        assert_eq!(found.join(" "), imports, "the imports of {file}");
    }
    let circle = ["a/mod.rs", "b.rs", "c.rs"].map(String::from).to_vec();
    assert_eq!(circles(&graph), vec![circle]);
}

/// Fails with a message per circle of `<crate>/src` that is not on `allowed`
/// and per entry of `allowed` that is no longer a circle.
fn check_crate(krate: &str, allowed: &[&[&str]], list: &str) {
    check_graph(krate, "files", &crate_graph(krate), allowed, list);
}

/// As [`check_crate`], for the crate's top-level modules: a file under
/// `src/` or a folder with everything in it ([`module_graph`]).
fn check_modules(krate: &str, allowed: &[&[&str]], list: &str) {
    let graph = module_graph(&crate_graph(krate));
    check_graph(krate, "top-level modules", &graph, allowed, list);
}

/// The file import graph of `<crate>/src`; fails when it holds no files.
fn crate_graph(krate: &str) -> Graph {
    let src = repo_root().join(krate).join("src");
    let graph = file_graph(&read_sources(&src));
    assert!(
        graph.len() > 1,
        "found no Rust files under {}",
        src.display()
    );
    graph
}

/// Fails with a message per circle of `graph` (of `what`: files or
/// modules) not on `allowed`, and per entry of `allowed` that is no
/// longer a circle.
fn check_graph(krate: &str, what: &str, graph: &Graph, allowed: &[&[&str]], list: &str) {
    let found = circles(graph);
    let mut problems = Vec::new();
    for circle in &found {
        if allowed.iter().any(|a| a.iter().eq(circle.iter())) {
            continue;
        }
        let mut msg = format!(
            "{krate}/src has a circle of {} {what} that is not on the allowlist \
             {list}. Cut one of its ties, so that imports point one way. \
             Each one and those of the circle it imports:\n",
            circle.len()
        );
        for file in circle {
            let ties: Vec<_> = graph[file]
                .iter()
                .filter(|(to, _)| circle.contains(to))
                .map(|(to, path)| format!("{to} (through {path})"))
                .collect();
            msg += &format!("  {file} imports {}\n", ties.join(", "));
        }
        msg += "Only if the circle is meant to stay for now, add it to the allowlist:\n    &[\n";
        for file in circle {
            msg += &format!("        \"{file}\",\n");
        }
        msg += "    ],";
        problems.push(msg);
    }
    for entry in allowed {
        if !found.iter().any(|c| c.iter().eq(entry.iter())) {
            problems.push(format!(
                "The allowlist {list} lists a circle that {krate}/src no longer has \
                 (a tie was cut): remove it from the allowlist. Its files:\n  {}",
                entry.join("\n  ")
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n\n"));
}

/// The repository root: the parent of the storage crate's directory.
fn repo_root() -> PathBuf {
    match option_env!("CARGO_MANIFEST_DIR") {
        Some(dir) => Path::new(dir).parent().unwrap().to_path_buf(),
        // Compiled alone with rustc from the repository root.
        None => PathBuf::from("."),
    }
}

/// Every `.rs` file under `dir` as (path relative to `dir` with `/`, text).
fn read_sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file: `lib.rs` is the root, `a/mod.rs` and `a.rs`
/// are `a`, `a/b.rs` is `a::b`.
fn module_of(file: &str) -> Vec<String> {
    let mut segs: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(segs.last().map(String::as_str), Some("mod" | "lib")) {
        segs.pop();
    }
    segs
}

/// A file's text without its tests: a `#[cfg(test)] mod x;` line pair is
/// dropped, any other `#[cfg(test)]` ends the text.
fn without_tests(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            let next = lines.peek().map_or("", |l| l.trim());
            if next.starts_with("mod ") && next.ends_with(';') {
                lines.next();
                continue;
            }
            break;
        }
        out += line;
        out.push('\n');
    }
    out
}

/// Rust tokens, enough for paths: identifiers, `::`, other punctuation one
/// character each; comments, strings, chars and lifetimes left out.
fn tokenize(text: &str) -> Vec<String> {
    let c: Vec<char> = text.chars().collect();
    let (mut out, mut i) = (Vec::new(), 0);
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let (mut depth, mut j) = (1, i + 2);
            while j < c.len() && depth > 0 {
                match (c[j], at(j + 1)) {
                    ('/', '*') => (depth, j) = (depth + 1, j + 2),
                    ('*', '/') => (depth, j) = (depth - 1, j + 2),
                    _ => j += 1,
                }
            }
            i = j;
        } else if ch == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if ch == '\'' {
            if at(i + 1) == '\\' {
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1; // a lifetime: its name is skipped as an identifier
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
            if matches!(word.as_str(), "r" | "br" | "cr") && at(i + hashes) == '"' {
                let close: Vec<char> = std::iter::once('"')
                    .chain("#".repeat(hashes).chars())
                    .collect();
                i += hashes + 1;
                while i < c.len() && !c[i..].starts_with(&close) {
                    i += 1;
                }
                i += close.len();
            } else if !(matches!(word.as_str(), "b" | "c") && matches!(at(i), '"' | '\'')) {
                out.push(word); // b"…", c"…" and b'…' go on as plain literals
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push("::".into());
            i += 2;
        } else {
            out.push(ch.to_string());
            i += 1;
        }
    }
    out
}

/// Whether the token is an identifier or keyword (not a number, not punctuation).
fn is_ident(t: Option<&String>) -> bool {
    t.is_some_and(|t| t.starts_with(|c: char| c.is_alphabetic() || c == '_'))
}

/// One leaf of a `use` tree: its path and the name it binds (`None` for `*`).
type UseLeaf = (Vec<String>, Option<String>);

/// Reads the `use` tree at `t[*i]` below `path`, pushing its leaves.
fn use_tree(t: &[String], i: &mut usize, mut path: Vec<String>, out: &mut Vec<UseLeaf>) {
    while let Some(tok) = t.get(*i) {
        *i += 1;
        match tok.as_str() {
            "*" => {
                out.push((path, None));
                return;
            }
            "{" => {
                while t.get(*i).is_some_and(|x| x != "}") {
                    let before = *i;
                    use_tree(t, i, path.clone(), out);
                    if t.get(*i).is_some_and(|x| x == ",") {
                        *i += 1;
                    } else if *i == before {
                        break;
                    }
                }
                *i += 1;
                return;
            }
            seg if is_ident(Some(tok)) => {
                if t.get(*i).is_some_and(|x| x == "::") {
                    path.push(seg.to_string());
                    *i += 1;
                    continue;
                }
                let mut name = seg.to_string();
                if seg != "self" {
                    path.push(name.clone());
                } else if let Some(last) = path.last() {
                    name = last.clone();
                }
                if t.get(*i).is_some_and(|x| x == "as") {
                    name = t.get(*i + 1).cloned().unwrap_or_default();
                    *i += 2;
                }
                out.push((path, Some(name)));
                return;
            }
            _ => return,
        }
    }
}

/// What one file says about other modules.
#[derive(Default)]
struct Source {
    /// The file's module path from the crate root.
    module: Vec<String>,
    /// Names bound by `use`: their path from the crate root, `None` outside the crate.
    bindings: HashMap<String, Option<Vec<String>>>,
    /// Crate paths the file names, in `use` items and in code: (path from
    /// the crate root, named by a `pub use`, as written).
    refs: Vec<(Vec<String>, bool, String)>,
}

/// `segs` as a path from the crate root, or `None` when it leaves the crate.
fn absolute(
    segs: &[String],
    module: &[String],
    children: &BTreeSet<String>,
    bindings: &HashMap<String, Option<Vec<String>>>,
) -> Option<Vec<String>> {
    let (first, mut rest) = segs.split_first()?;
    let mut base = match first.as_str() {
        "crate" => vec![],
        "self" => module.to_vec(),
        "super" => module[..module.len().saturating_sub(1)].to_vec(),
        name if children.contains(name) => [module, &[name.to_string()]].concat(),
        name => bindings.get(name)?.clone()?,
    };
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Parses one file's text (tests already removed). An inline `mod x { … }`
/// is read as part of the file's module (only `format/mod.rs` has them,
/// with no paths in them).
fn parse(file: &str, text: &str) -> Source {
    let t = tokenize(text);
    let module = module_of(file);
    let children: BTreeSet<String> = (0..t.len().saturating_sub(2))
        .filter(|&i| t[i] == "mod" && is_ident(t.get(i + 1)) && t[i + 2] == ";")
        .map(|i| t[i + 1].clone())
        .collect();
    let mut src = Source {
        module,
        ..Source::default()
    };
    let mut raw_paths = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let prev = if i > 0 { t[i - 1].as_str() } else { "" };
        if t[i] == "use" {
            let public = prev == "pub"
                || (prev == ")"
                    && t[..i]
                        .iter()
                        .rev()
                        .skip_while(|x| *x != "(")
                        .nth(1)
                        .is_some_and(|x| x == "pub"));
            let mut leaves = Vec::new();
            i += 1;
            use_tree(&t, &mut i, Vec::new(), &mut leaves);
            for (segs, name) in leaves {
                let abs = absolute(&segs, &src.module, &children, &src.bindings);
                if let Some(abs) = &abs {
                    src.refs.push((abs.clone(), public, segs.join("::")));
                }
                if let Some(name) = name {
                    src.bindings.insert(name, abs);
                }
            }
        } else if is_ident(t.get(i))
            && t.get(i + 1).is_some_and(|x| x == "::")
            && is_ident(t.get(i + 2))
            && prev != "::"
            && prev != "."
        {
            let mut segs = vec![t[i].clone()];
            while t.get(i + 1).is_some_and(|x| x == "::") && is_ident(t.get(i + 2)) {
                segs.push(t[i + 2].clone());
                i += 2;
            }
            raw_paths.push(segs);
        }
        i += 1;
    }
    // Paths in code start at `crate`, `super`, `self`, a child module or
    // any `use` binding of the file, wherever it stands.
    for p in raw_paths {
        if let Some(abs) = absolute(&p, &src.module, &children, &src.bindings) {
            src.refs.push((abs, false, p.join("::")));
        }
    }
    src
}

/// Import graph of one crate's files: file → (imported file → first path naming it).
type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// The file that defines what `path` (from the crate root) names: the
/// longest prefix that is a module's file, followed through that file's
/// `use` bindings, so re-exports lead to the defining file.
fn resolve(
    path: &[String],
    files: &HashMap<Vec<String>, String>,
    sources: &BTreeMap<String, Source>,
    depth: usize,
) -> String {
    let k = (0..=path.len())
        .rev()
        .find(|&k| files.contains_key(&path[..k]))
        .unwrap_or(0);
    let file = files
        .get(&path[..k])
        .cloned()
        .unwrap_or_else(|| "lib.rs".into());
    if let (Some(name), Some(src)) = (path.get(k), sources.get(&file))
        && let Some(Some(target)) = src.bindings.get(name)
        && depth < 8
        && target[..] != path[..=k]
    {
        let next = [target.as_slice(), &path[k + 1..]].concat();
        return resolve(&next, files, sources, depth + 1);
    }
    file
}

/// The file import graph of a crate from (path under `src/`, text) pairs.
fn file_graph(files: &[(String, String)]) -> Graph {
    let sources: BTreeMap<String, Source> = files
        .iter()
        .map(|(f, text)| (f.clone(), parse(f, &without_tests(text))))
        .collect();
    let by_module: HashMap<Vec<String>, String> = sources
        .iter()
        .map(|(f, s)| (s.module.clone(), f.clone()))
        .collect();
    let mut graph = Graph::new();
    for (file, src) in &sources {
        let edges = graph.entry(file.clone()).or_default();
        for (path, public, written) in &src.refs {
            let face = *public && path.len() > src.module.len() && path.starts_with(&src.module);
            let to = resolve(path, &by_module, &sources, 0);
            if !face && to != *file {
                edges.entry(to).or_insert_with(|| written.clone());
            }
        }
    }
    graph
}

/// The top-level module of a file under `src/`: its first folder, or the
/// file's own name without `.rs` (`index/key/text.rs` → `index`,
/// `error.rs` → `error`).
fn top_level(file: &str) -> &str {
    match file.split_once('/') {
        Some((folder, _)) => folder,
        None => file.strip_suffix(".rs").unwrap_or(file),
    }
}

/// The import graph of a crate's top-level modules: a tie from one to
/// another wherever a file of the first imports a file of the second
/// (the tie names the first such import). `lib.rs`, the crate's face, is
/// left out.
fn module_graph(files: &Graph) -> Graph {
    let mut graph = Graph::new();
    for (file, edges) in files {
        let from = top_level(file);
        if from == "lib" {
            continue;
        }
        let out = graph.entry(from.to_string()).or_default();
        for (to_file, path) in edges {
            let to = top_level(to_file);
            if to != from && to != "lib" {
                out.entry(to.to_string())
                    .or_insert_with(|| format!("{file} -> {to_file}, {path}"));
            }
        }
    }
    graph
}

/// The strongly connected components of more than one node (Tarjan), each sorted.
fn circles(graph: &Graph) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        graph: &'a Graph,
        index: HashMap<&'a str, (usize, usize)>, // file → (index, lowlink)
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, (n, n));
            self.stack.push(v);
            for w in self.graph.get(v).into_iter().flat_map(|e| e.keys()) {
                let low = match self.index.get(w.as_str()) {
                    None => {
                        self.visit(w);
                        self.index[w.as_str()].1
                    }
                    Some(&(i, _)) if self.stack.contains(&w.as_str()) => i,
                    Some(_) => continue,
                };
                let entry = self.index.get_mut(v).unwrap();
                entry.1 = entry.1.min(low);
            }
            if self.index[v].0 == self.index[v].1 {
                let at = self.stack.iter().rposition(|x| *x == v).unwrap();
                let mut part: Vec<String> = self.stack.drain(at..).map(String::from).collect();
                if part.len() > 1 {
                    part.sort();
                    self.out.push(part);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: HashMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out.sort();
    t.out
}
