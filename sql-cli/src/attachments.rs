//! `jetsql attachments FILE TABLE [--column C] --to DIR`: every attachment
//! of a table's attachment columns written out as a file.
//!
//! Layout: `DIR/<table>/<column>/<key>/<file name>`, where `<key>` is the
//! row's primary-key value when the table's primary key is one column,
//! else `row-<n>` (the row's 1-based position in the table's scan order).
//! Every component comes from the file and is made safe before it touches
//! the file system (see [`safe_component`]): separators and characters
//! Windows refuses become `_`, `.`/`..`/empty names and device names
//! (`CON`, `NUL`, `COM1`, …) get a `_` in front, so no name can leave its
//! directory. Two attachments of one row with the same safe name get
//! ` (2)`, ` (3)`, … before the extension. Existing files are never
//! replaced: a file already there is an error naming it.

use crate::session::{OpenRequest, open_database};
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use jet_storage::read::complex::ListExpander;
use jet_storage::schema::tdef::IndexKind;
use jet_storage::{ComplexColumn, ComplexKind, Database, ScanOptions, Table};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The longest component written, in bytes (file systems allow 255).
const MAX_COMPONENT: usize = 200;

/// Names Windows reserves for devices, with or without an extension.
const DEVICES: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// `name` as one safe path component: `/ \ : * ? " < > |` and control
/// characters become `_`; trailing dots and spaces (which Windows drops)
/// become `_` (so `.` is `_` and `..` is `__`); an empty name and a device
/// name get a leading `_`; at most [`MAX_COMPONENT`] bytes (cut at a character boundary).
/// The result never contains a separator and never names a parent or the
/// directory itself.
pub fn safe_component(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    let kept = out.trim_end_matches(['.', ' ']).len();
    if kept < out.len() {
        let cut = out.len() - kept;
        out.truncate(kept);
        out.push_str(&"_".repeat(cut));
    }
    // (no name ends in a dot now, so none is `.` or `..`)
    let stem = out.split('.').next().unwrap_or_default().trim_end();
    if out.is_empty() || DEVICES.iter().any(|d| d.eq_ignore_ascii_case(stem)) {
        out.insert(0, '_');
    }
    if out.len() > MAX_COMPONENT {
        let mut end = MAX_COMPONENT;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    out
}

/// `name` with ` (n)` before its extension.
fn numbered(name: &str, n: usize) -> String {
    match name.rfind('.') {
        Some(dot) if dot > 0 => format!("{} ({n}){}", &name[..dot], &name[dot..]),
        _ => format!("{name} ({n})"),
    }
}

/// What the command wrote.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// Files written, each with its size in bytes.
    pub files: Vec<(PathBuf, usize)>,
}

/// The table of `db` named `name` (exactly, else ignoring case).
fn find_table(db: &Database, name: &str) -> Result<Table, String> {
    let names = db.table_names();
    let real = names
        .iter()
        .find(|n| *n == name)
        .or_else(|| names.iter().find(|n| n.eq_ignore_ascii_case(name)))
        .ok_or_else(|| format!("no table {name:?} in the database"))?;
    db.table(real).map_err(|e| e.to_string())
}

/// The attachment columns to write: `column` (which must be one) or all.
fn attachment_columns(
    db: &Database,
    t: &Table,
    column: Option<&str>,
) -> Result<Vec<ComplexColumn>, String> {
    let all = db.complex_columns(t).map_err(|e| e.to_string())?;
    let Some(want) = column else {
        let found: Vec<ComplexColumn> = all
            .into_iter()
            .filter(|c| c.kind == ComplexKind::Attachment)
            .collect();
        if found.is_empty() {
            return Err(format!("table {:?} has no attachment column", t.name()));
        }
        return Ok(found);
    };
    let exists = t
        .def()
        .columns
        .iter()
        .any(|c| c.name.eq_ignore_ascii_case(want));
    match all
        .into_iter()
        .find(|c| c.column.eq_ignore_ascii_case(want))
    {
        Some(c) if c.kind == ComplexKind::Attachment => Ok(vec![c]),
        Some(c) => Err(format!(
            "column {:?} of table {:?} holds {}, not attachments",
            c.column,
            t.name(),
            c.kind.name()
        )),
        None if exists => Err(format!(
            "column {want:?} of table {:?} is not an attachment column",
            t.name()
        )),
        None => Err(format!("table {:?} has no column {want:?}", t.name())),
    }
}

/// The position of the table's one-column primary key, if it has one.
fn primary_key(t: &Table) -> Option<usize> {
    let def = t.def();
    let pk = def
        .indexes
        .iter()
        .find(|l| l.kind == IndexKind::PrimaryKey)?;
    let real = def.real_indexes.get(usize::try_from(pk.real_index).ok()?)?;
    let [(col_num, _)] = real.key.as_slice() else {
        return None;
    };
    def.columns.iter().position(|c| c.col_num == *col_num)
}

/// Writes every attachment of `table` of `file` (of `column` only when
/// given) under `dir` (created when missing), as the module documentation
/// lays out.
pub fn write_attachments(
    file: &Path,
    table: &str,
    column: Option<&str>,
    dir: &Path,
    req: &OpenRequest,
) -> Result<Written, String> {
    let db = open_database(file, req)?;
    let t = find_table(&db, table)?;
    let columns = attachment_columns(&db, &t, column)?;
    let pk = primary_key(&t);
    let mut projection: Vec<usize> = pk.into_iter().collect();
    projection.extend(columns.iter().map(|c| c.position));
    let scan = t
        .scan(ScanOptions {
            projection: Some(projection.clone()),
            batch_size: 256,
            ..ScanOptions::default()
        })
        .map_err(|e| e.to_string())?;
    let mut lists = ListExpander::new(&db, &columns, &scan.schema(), &projection)
        .ok_or("the attachment columns cannot be read as lists")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let table_dir = dir.join(safe_component(t.name()));
    let mut written = Written::default();
    let mut row = 0usize;
    for batch in scan {
        let batch = batch.map_err(|e| e.to_string())?;
        let batch = lists.expand(&batch).map_err(|e| e.to_string())?;
        for r in 0..batch.num_rows() {
            row += 1;
            let key = match pk {
                Some(_) => key_text(&batch, r)?,
                None => format!("row-{row}"),
            };
            for (i, c) in columns.iter().enumerate() {
                let at = i + usize::from(pk.is_some());
                let to = table_dir
                    .join(safe_component(&c.column))
                    .join(safe_component(&key));
                write_row(&batch, at, r, &to, &mut written)?;
            }
        }
    }
    Ok(written)
}

/// The text of the key column (the batch's first) at row `r`.
fn key_text(batch: &RecordBatch, r: usize) -> Result<String, String> {
    let options = FormatOptions::default().with_null("NULL");
    let f =
        ArrayFormatter::try_new(batch.column(0).as_ref(), &options).map_err(|e| e.to_string())?;
    Ok(f.value(r).to_string())
}

/// Writes the attachments in column `at` of row `r` into `to`.
fn write_row(
    batch: &RecordBatch,
    at: usize,
    r: usize,
    to: &Path,
    written: &mut Written,
) -> Result<(), String> {
    let lists = batch.column(at).as_list::<i32>();
    if lists.is_null(r) {
        return Ok(());
    }
    let files = lists.value(r);
    let files = files.as_struct();
    if files.is_empty() {
        return Ok(());
    }
    let names = files
        .column_by_name("file_name")
        .ok_or("attachments without file names")?
        .as_string::<i32>();
    let data = files
        .column_by_name("file_data")
        .ok_or("attachments without file data")?
        .as_binary::<i64>();
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let mut used: HashSet<String> = HashSet::new();
    for i in 0..files.len() {
        let given = if names.is_null(i) {
            format!("attachment-{}", i + 1)
        } else {
            names.value(i).to_string()
        };
        let base = safe_component(&given);
        let mut name = base.clone();
        let mut n = 1;
        while !used.insert(name.to_lowercase()) {
            n += 1;
            name = numbered(&base, n);
        }
        let path = to.join(&name);
        let bytes: &[u8] = if data.is_null(i) { &[] } else { data.value(i) };
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        f.write_all(bytes)
            .and_then(|_| f.sync_all())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        written.files.push((path, bytes.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_stay_inside() {
        for (given, want) in [
            ("report.pdf", "report.pdf"),
            ("../../etc/passwd", ".._.._etc_passwd"),
            ("..", "__"),
            (".", "_"),
            ("", "_"),
            ("/abs/path", "_abs_path"),
            ("C:\\Windows\\x.dll", "C__Windows_x.dll"),
            ("con", "_con"),
            ("NUL.txt", "_NUL.txt"),
            ("com1.log", "_com1.log"),
            ("console.txt", "console.txt"),
            ("trailing. ", "trailing__"),
            ("a\u{0}b\nc", "a_b_c"),
            ("ok name.txt", "ok name.txt"),
        ] {
            assert_eq!(safe_component(given), want, "{given:?}");
        }
        for hostile in ["..", ".", "../..", "/", "\\", "....", " .. ", "a/../../b"] {
            let s = safe_component(hostile);
            assert!(!s.contains('/') && !s.contains('\\'), "{hostile:?} → {s:?}");
            assert!(
                s != "." && s != ".." && !s.is_empty(),
                "{hostile:?} → {s:?}"
            );
            let p = Path::new("/base").join(&s);
            assert_eq!(p.parent(), Some(Path::new("/base")), "{hostile:?} → {s:?}");
        }
        let long = "é".repeat(300);
        let s = safe_component(&long);
        assert!(s.len() <= MAX_COMPONENT && s.chars().all(|c| c == 'é'));
    }

    /// Characters of random attachment names: separators, dots, glob and
    /// brace characters, Windows' reserved characters, control bytes,
    /// non-ASCII text, device names.
    const PIECES: &[&str] = &[
        "a",
        "Z",
        "7",
        ".",
        "..",
        " ",
        "/",
        "\\",
        ":",
        "*",
        "?",
        "\"",
        "<",
        ">",
        "|",
        "[",
        "]",
        "{",
        "}",
        "-",
        "é",
        "日本",
        "🦀",
        "\u{1b}[31m",
        "\u{0}",
        "\n",
        "\u{7f}",
        "con",
        "NUL",
        "com1",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 256,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Any stored name becomes one component that the file system
        /// keeps as given: a file created under it inside a directory is
        /// listed back under exactly that name, directly in that
        /// directory.
        #[test]
        fn safe_names_round_trip_through_the_file_system(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..12)
        ) {
            let given = pieces.concat();
            let safe = safe_component(&given);
            proptest::prop_assert!(!safe.is_empty() && safe != "." && safe != "..");
            proptest::prop_assert!(!safe.contains(['/', '\\', '\u{0}']), "{safe:?}");
            proptest::prop_assert!(safe.len() <= MAX_COMPONENT);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(&safe);
            proptest::prop_assert_eq!(path.parent(), Some(dir.path()));
            std::fs::write(&path, given.as_bytes()).unwrap();
            let listed: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            proptest::prop_assert_eq!(listed, vec![safe.clone()]);
            proptest::prop_assert_eq!(std::fs::read(&path).unwrap(), given.into_bytes());
        }
    }

    #[test]
    fn duplicates_are_numbered() {
        assert_eq!(numbered("a.txt", 2), "a (2).txt");
        assert_eq!(numbered("noext", 3), "noext (3)");
        assert_eq!(numbered(".hidden", 2), ".hidden (2)");
    }
}
