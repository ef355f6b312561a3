//! mdb-reader (npm) as a second reading oracle: runs
//! `tests/oracle-js/dump.mjs` on a file and parses what it prints.
//!
//! `dump.mjs` prints one JSON object per line (see its header): a table's
//! columns, then its rows, every value `null` or a normalized string. This
//! module parses exactly that subset of JSON (objects, arrays, strings,
//! `null`), so the tests need no JSON crate.

use crate::{skip_or_fail, workspace_root};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One table as mdb-reader read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderTable {
    /// The table's name.
    pub name: String,
    /// Column names and mdb-reader's type names (`"long"`, `"text"`, …).
    pub columns: Vec<(String, String)>,
    /// The rows, in mdb-reader's order; each value `None` for NULL.
    pub rows: Vec<Vec<Option<String>>>,
    /// Why mdb-reader could not read the table, if it could not.
    pub error: Option<String>,
}

/// What `dump.mjs` printed for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReaderDump {
    /// The file opened; its user tables.
    Tables(Vec<ReaderTable>),
    /// mdb-reader could not open the file (its message).
    Refused(String),
}

/// The `tests/oracle-js` directory.
pub fn oracle_js_dir() -> PathBuf {
    workspace_root().join("tests").join("oracle-js")
}

/// The `dump.mjs` script if `node` runs and `npm ci` has installed
/// mdb-reader in `tests/oracle-js`; otherwise skips (prints a notice,
/// returns `None`) or, under `CI=true`, panics.
pub fn require_mdb_reader() -> Option<PathBuf> {
    let dir = oracle_js_dir();
    let node = Command::new("node").arg("--version").output();
    if !node.as_ref().is_ok_and(|o| o.status.success()) {
        return skip_or_fail("`node` does not run (install Node.js 18 or newer)");
    }
    if !dir.join("node_modules/mdb-reader/package.json").is_file() {
        return skip_or_fail(&format!(
            "mdb-reader is not installed: run `npm ci` in {}",
            dir.display()
        ));
    }
    Some(dir.join("dump.mjs"))
}

/// Runs `node dump.mjs file [password]` and parses its output. `Err` when
/// node fails in a way `dump.mjs` does not report (a crash, bad output).
pub fn dump(script: &Path, file: &Path, password: Option<&str>) -> Result<ReaderDump, String> {
    let mut cmd = Command::new("node");
    // mdb-reader formats extended date/time with local-time getters; Access
    // values are zone-less, so node must run in UTC
    cmd.env("TZ", "UTC").arg(script).arg(file);
    if let Some(p) = password {
        cmd.arg(p);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("node {}: {e}", script.display()))?;
    let text = String::from_utf8(out.stdout)
        .map_err(|e| format!("dump.mjs {}: output is not UTF-8: {e}", file.display()))?;
    let mut tables: Vec<ReaderTable> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let v = parse(line).ok_or_else(|| {
            format!(
                "dump.mjs {}: line {}: not JSON: {line:.200}",
                file.display(),
                n + 1
            )
        })?;
        let Json::Object(fields) = v else {
            return Err(format!(
                "dump.mjs {}: line {}: not an object",
                file.display(),
                n + 1
            ));
        };
        let get = |k: &str| fields.iter().find(|(name, _)| name == k).map(|(_, v)| v);
        if let Some(Json::Array(values)) = get("row") {
            let t = tables
                .last_mut()
                .ok_or_else(|| format!("dump.mjs {}: a row before any table", file.display()))?;
            t.rows.push(values.iter().map(Json::as_text).collect());
        } else if let Some(Json::String(name)) = get("table") {
            let error = get("error").and_then(Json::as_text);
            let columns = match get("columns") {
                Some(Json::Array(cols)) => cols
                    .iter()
                    .map(|c| match c {
                        Json::Array(p) if p.len() == 2 => Some((
                            p[0].as_text().unwrap_or_default(),
                            p[1].as_text().unwrap_or_default(),
                        )),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| format!("dump.mjs {}: bad columns", file.display()))?,
                _ => Vec::new(),
            };
            tables.push(ReaderTable {
                name: name.clone(),
                columns,
                rows: Vec::new(),
                error,
            });
        } else if let Some(e) = get("error").and_then(Json::as_text) {
            return Ok(ReaderDump::Refused(e));
        } else {
            return Err(format!(
                "dump.mjs {}: line {}: unexpected {line:.200}",
                file.display(),
                n + 1
            ));
        }
    }
    if !out.status.success() {
        return Err(format!(
            "node dump.mjs {}: {}: {}",
            file.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(ReaderDump::Tables(tables))
}

/// The JSON subset `dump.mjs` prints.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
    /// Numbers and booleans are not printed by `dump.mjs`; kept as text.
    Other(String),
}

impl Json {
    fn as_text(&self) -> Option<String> {
        match self {
            Json::String(s) | Json::Other(s) => Some(s.clone()),
            _ => None,
        }
    }
}

/// Parses one JSON value that fills `line`; `None` if it is not JSON of
/// the subset.
fn parse(line: &str) -> Option<Json> {
    let mut p = Parser {
        s: line.as_bytes(),
        i: 0,
    };
    let v = p.value()?;
    p.ws();
    (p.i == p.s.len()).then_some(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Option<Json> {
        self.ws();
        match *self.s.get(self.i)? {
            b'"' => self.string().map(Json::String),
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Some(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    if self.eat(b']') {
                        return Some(Json::Array(items));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'{' => {
                self.i += 1;
                let mut fields = Vec::new();
                if self.eat(b'}') {
                    return Some(Json::Object(fields));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    if !self.eat(b':') {
                        return None;
                    }
                    fields.push((k, self.value()?));
                    if self.eat(b'}') {
                        return Some(Json::Object(fields));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            _ => {
                let start = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|b| !matches!(b, b',' | b']' | b'}') && !b.is_ascii_whitespace())
                {
                    self.i += 1;
                }
                let word = std::str::from_utf8(self.s.get(start..self.i)?).ok()?;
                match word {
                    "null" => Some(Json::Null),
                    "" => None,
                    w => Some(Json::Other(w.to_string())),
                }
            }
        }
    }

    /// A string literal at the cursor, escapes resolved; a lone surrogate
    /// escape (JavaScript strings may hold one) becomes U+FFFD.
    fn string(&mut self) -> Option<String> {
        if self.s.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        let mut units: Vec<u16> = Vec::new();
        let mut out = String::new();
        let flush = |units: &mut Vec<u16>, out: &mut String| {
            out.extend(
                char::decode_utf16(units.drain(..))
                    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)),
            );
        };
        loop {
            let start = self.i;
            while self.s.get(self.i).is_some_and(|&b| b != b'"' && b != b'\\') {
                self.i += 1;
            }
            let run = std::str::from_utf8(self.s.get(start..self.i)?).ok()?;
            if !run.is_empty() {
                flush(&mut units, &mut out);
                out.push_str(run);
            }
            match *self.s.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    flush(&mut units, &mut out);
                    return Some(out);
                }
                _ => {
                    let e = *self.s.get(self.i + 1)?;
                    self.i += 2;
                    let simple = match e {
                        b'"' => Some('"'),
                        b'\\' => Some('\\'),
                        b'/' => Some('/'),
                        b'b' => Some('\u{8}'),
                        b'f' => Some('\u{c}'),
                        b'n' => Some('\n'),
                        b'r' => Some('\r'),
                        b't' => Some('\t'),
                        b'u' => None,
                        _ => return None,
                    };
                    if let Some(c) = simple {
                        flush(&mut units, &mut out);
                        out.push(c);
                    } else {
                        let hex = std::str::from_utf8(self.s.get(self.i..self.i + 4)?).ok()?;
                        units.push(u16::from_str_radix(hex, 16).ok()?);
                        self.i += 4;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_dump_subset() {
        assert_eq!(
            parse(r#"{"row":["a\"b\\c\n",null,"\ud83d\ude00x\u00e9","\ud83d"]}"#),
            Some(Json::Object(vec![(
                "row".into(),
                Json::Array(vec![
                    Json::String("a\"b\\c\n".into()),
                    Json::Null,
                    Json::String("😀xé".into()),
                    Json::String("\u{FFFD}".into()),
                ])
            )]))
        );
        assert_eq!(parse(r#"{"a":[]} x"#), None);
        assert_eq!(parse(r#"{"a":"unterminated}"#), None);
    }
}
