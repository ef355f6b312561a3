//! Shared by `migrate_sqlite.rs` and `migrate_postgres.rs`: running
//! `jetsql migrate`, the corpus files to migrate, the two reading oracles
//! (mdb-reader and `mdb-export`) to compare the target's values with, and
//! `mdb-schema`'s keys, indexes and relationships to compare its schema
//! with.

#![allow(dead_code)]

#[path = "../../../tests/tests/support/oracle_values.rs"]
pub mod oracle_values;

use jet_storage::{Database, JetType, OpenOptions};
use jet_tests::mdb_reader::{ReaderDump, dump, require_mdb_reader};
use jet_tests::{corpus, list_files, require_mdb_export, run_mdb_export};
use oracle_values::{Csv, Ctx, KNOWN, Ours, Tally, compare_columns, parse_csv};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Files that are damaged on purpose (corpus README): they may fail.
pub const DAMAGED: &[&str] = &["ucanaccess/corrupted.accdb", "ucanaccess/badDb.accdb"];

/// mdb-export options of the oracle's ISO exports (as corpus_conformance).
pub const ISO_ARGS: &[&str] = &[
    "-D",
    "%Y-%m-%d %H:%M:%S",
    "-T",
    "%Y-%m-%d %H:%M:%S",
    "-b",
    "hex",
];

/// Runs `jetsql migrate FILE TARGET`.
pub fn migrate(file: &Path, target: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_jetsql"))
        .arg("migrate")
        .arg(file)
        .arg(target)
        .env_remove("JETSQL_PASSWORD")
        .output()
        .expect("jetsql runs")
}

/// `nwind.mdb` of the corpus (Jet3), or a skip (a failure under CI).
pub fn nwind() -> Option<PathBuf> {
    Some(corpus()?.join("mdbtools/nwind.mdb"))
}

/// The corpus databases jetsql opens without a password, except the
/// deliberately damaged ones: (path relative to the corpus, full path).
pub fn readable_corpus() -> Option<Vec<(String, PathBuf)>> {
    let root = corpus()?;
    let mut out = Vec::new();
    for rel in list_files(&root) {
        let l = rel.to_ascii_lowercase();
        if !(l.ends_with(".mdb") || l.ends_with(".accdb") || l.ends_with(".mny")) {
            continue;
        }
        if DAMAGED.contains(&rel.as_str()) {
            continue;
        }
        let path = root.join(&rel);
        if Database::open(&path, OpenOptions::default()).is_ok() {
            out.push((rel, path));
        }
    }
    Some(out)
}

/// One migrated table's column facts from the source (types, not values).
pub struct SourceTable {
    /// Table name.
    pub name: String,
    /// Migrated columns: name, Access type, calculated.
    pub columns: Vec<(String, JetType, bool)>,
}

/// The user tables of `path` and their migrated (non-complex) columns.
pub fn source_tables(path: &Path) -> Vec<SourceTable> {
    let db = Database::open(path, OpenOptions::default()).expect("opens");
    db.table_names()
        .into_iter()
        .map(|name| {
            let t = db.table(&name).expect("table");
            let columns = t
                .def()
                .columns
                .iter()
                .filter(|c| c.jet_type != JetType::Complex)
                .map(|c| (c.name.clone(), c.jet_type, c.is_calculated()))
                .collect();
            SourceTable { name, columns }
        })
        .collect()
}

/// Both oracles' output for one file: mdb-reader's tables, and
/// `mdb-export` per table (`None` where it cannot read the table).
pub struct Oracles {
    /// mdb-reader's tables.
    pub reader: Vec<jet_tests::mdb_reader::ReaderTable>,
    /// `mdb-export` CSV per table name.
    pub mdb: Vec<(String, Option<Csv>)>,
}

/// The oracles' reading of `path`, or why there is none (an oracle
/// refuses the file).
pub fn oracles(path: &Path, tables: &[SourceTable]) -> Result<Oracles, String> {
    let script = require_mdb_reader().ok_or("mdb-reader is missing")?;
    let (mdb_export, _) = require_mdb_export().ok_or("mdb-export is missing")?;
    let reader = match dump(&script, path, None)? {
        ReaderDump::Tables(t) => t,
        ReaderDump::Refused(e) => return Err(format!("mdb-reader refuses the file: {e}")),
    };
    let mdb = tables
        .iter()
        .map(|t| {
            let csv = run_mdb_export(&mdb_export, ISO_ARGS, path, &t.name)
                .ok()
                .and_then(|o| parse_csv(&o.stdout).ok());
            (t.name.clone(), csv)
        })
        .collect();
    Ok(Oracles { reader, mdb })
}

/// What a corpus pass collects.
#[derive(Default)]
pub struct Run {
    /// Hits per [`KNOWN`] entry.
    pub known_hits: Vec<u64>,
    /// Counters.
    pub tally: Tally,
    /// Failures.
    pub failures: Vec<String>,
    /// Tables not compared, and why.
    pub notes: Vec<String>,
}

impl Run {
    /// A fresh pass.
    pub fn new() -> Run {
        Run {
            known_hits: vec![0; KNOWN.len()],
            ..Run::default()
        }
    }

    /// Prints the tally and fails with the failures.
    pub fn finish(&self, what: &str) {
        finish(what, &self.tally, &self.notes, &self.failures);
    }
}

/// Compares the values read from the target (`cols[c][r]`, typed) of
/// table `t` with both oracles. Tables an oracle cannot read are noted.
pub fn compare_table(rel: &str, t: &SourceTable, cols: &[Vec<Ours>], o: &Oracles, run: &mut Run) {
    let Run {
        known_hits,
        tally,
        failures,
        notes,
    } = run;
    let Some(rt) = o.reader.iter().find(|r| r.name == t.name) else {
        failures.push(format!(
            "{rel}: table {:?}: mdb-reader does not list it",
            t.name
        ));
        return;
    };
    if let Some(e) = &rt.error {
        notes.push(format!(
            "{rel}: {:?}: mdb-reader cannot read it: {e}",
            t.name
        ));
        return;
    }
    let Some(Some(mdb)) = o.mdb.iter().find(|(n, _)| *n == t.name).map(|(_, c)| c) else {
        notes.push(format!("{rel}: {:?}: mdbtools cannot read it", t.name));
        return;
    };
    let names: Vec<String> = t.columns.iter().map(|c| c.0.clone()).collect();
    let calculated: Vec<bool> = t.columns.iter().map(|c| c.2).collect();
    compare_columns(
        &names,
        &calculated,
        cols,
        rt,
        mdb,
        Ctx {
            rel,
            table: &t.name,
            known_hits,
            tally,
            failures,
        },
    );
}

/// Decimal text (`-12.34`, `5`, `1e-3` not accepted) as the unscaled
/// value at `scale`; `None` if it has more fraction digits than `scale`
/// allows or is not a decimal.
pub fn parse_decimal(s: &str, scale: i8) -> Option<i128> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let frac = frac.trim_end_matches('0');
    let scale = usize::try_from(scale).ok()?;
    if frac.len() > scale || int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let digits = format!("{int}{frac:0<scale$}");
    let v: i128 = digits.trim_start_matches('0').parse().unwrap_or(0);
    Some(if neg { -v } else { v })
}

/// `YYYY-MM-DD HH:MM:SS[.f…]` as µs since 1970.
pub fn parse_timestamp(s: &str) -> Option<i64> {
    // a year past 9999 (PostgreSQL prints no sign; chrono wants one)
    let signed;
    let s = if s.find('-').is_some_and(|i| i > 4) && !s.starts_with('+') {
        signed = format!("+{s}");
        signed.as_str()
    } else {
        s
    };
    let t = chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f").ok()?;
    Some(t.and_utc().timestamp_micros())
}

/// Hex digits as bytes.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The scale Arrow (and so the oracles' comparison) gives a Currency or
/// Decimal column.
pub fn scale_of(path: &Path, table: &str, column: &str) -> i8 {
    let db = Database::open(path, OpenOptions::default()).expect("opens");
    let t = db.table(table).expect("table");
    let c = t
        .def()
        .columns
        .iter()
        .find(|c| c.name == column)
        .expect("column");
    match c.arrow_type() {
        arrow_schema::DataType::Decimal128(_, s) => s,
        _ => 0,
    }
}

/// Keys, indexes and relationships of a database, names in lower case:
/// what `mdb-schema` prints, or what a target holds.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Keys {
    /// (table, primary key columns).
    pub primary: BTreeSet<(String, Vec<String>)>,
    /// (table, columns with ` DESC` where descending, unique).
    pub indexes: BTreeSet<(String, Vec<String>, bool)>,
    /// Every foreign key.
    pub foreign: BTreeSet<ForeignKey>,
}

/// A foreign key: (table, columns, referenced table, referenced columns,
/// on update cascade, on delete cascade).
pub type ForeignKey = (String, Vec<String>, String, Vec<String>, bool, bool);

/// The quoted names of `s` in order (`"a", "b"` → `[a, b]`), lower case.
fn quoted_names(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(a) = rest.find('"') {
        let after = &rest[a + 1..];
        let Some(b) = after.find('"') else { break };
        let mut name = after[..b].to_lowercase();
        let tail = &after[b + 1..];
        if tail.trim_start().to_ascii_uppercase().starts_with("DESC") {
            name.push_str(" DESC");
        }
        out.push(name);
        rest = tail;
    }
    out
}

/// Parses `mdb-schema --relations FILE postgres`.
pub fn mdb_schema_keys(path: &Path) -> Keys {
    let out = Command::new("mdb-schema")
        .arg("--relations")
        .arg("--no-comments")
        .arg(path)
        .arg("postgres")
        .output()
        .expect("mdb-schema runs");
    assert!(out.status.success(), "mdb-schema failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut k = Keys::default();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("ALTER TABLE ") {
            let names = quoted_names(rest);
            if line.contains(" PRIMARY KEY ") {
                let cols = quoted_names(&line[line.find("PRIMARY KEY").unwrap_or(0)..]);
                k.primary.insert((names[0].clone(), cols));
            } else if line.contains(" FOREIGN KEY ") {
                let fk = &line[line.find("FOREIGN KEY").unwrap_or(0)..];
                let (from, to) = fk.split_once("REFERENCES").unwrap_or((fk, ""));
                let to_names = quoted_names(to.split(')').next().unwrap_or(""));
                let Some((rt, rcols)) = to_names.split_first() else {
                    continue;
                };
                k.foreign.insert((
                    names[0].clone(),
                    quoted_names(from),
                    rt.clone(),
                    rcols.to_vec(),
                    line.contains("ON UPDATE CASCADE"),
                    line.contains("ON DELETE CASCADE"),
                ));
            }
        } else if line.starts_with("CREATE INDEX ") || line.starts_with("CREATE UNIQUE INDEX ") {
            let on = &line[line.find(" ON ").unwrap_or(0)..];
            let names = quoted_names(on);
            if let Some((t, cols)) = names.split_first() {
                k.indexes
                    .insert((t.clone(), cols.to_vec(), line.starts_with("CREATE UNIQUE")));
            }
        }
    }
    k
}

/// A name unique to this test run (process id, time, counter).
pub fn unique_name(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "{prefix}_{}_{nanos}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Prints the tally and fails with `failures`.
pub fn finish(what: &str, tally: &Tally, notes: &[String], failures: &[String]) {
    println!("{what}: not compared:");
    for n in notes {
        println!("  {n}");
    }
    println!(
        "{what}: {} files, {} tables, {} values: {} agree with both oracles, {} with mdb-reader \
         only, {} with mdbtools only; known disagreements {:?}",
        tally.files,
        tally.tables,
        tally.values,
        tally.agree_all,
        tally.reader_only,
        tally.mdbtools_only,
        tally.known
    );
    assert!(
        failures.is_empty(),
        "{what}: {} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A cell normalised for comparing a view's rows across engines: NULL,
/// Booleans as 1/0, numbers to 6 significant digits, timestamps with a
/// space between date and time and without a zero fraction; text as is.
pub fn norm_cell(v: Option<&str>) -> String {
    let Some(s) = v else {
        return "NULL".into();
    };
    match s {
        "true" | "t" => return "1".into(),
        "false" | "f" => return "0".into(),
        _ => {}
    }
    // text like a zip code "01234" stays text
    let leading_zero = s.len() > 1 && s.starts_with('0') && !s.starts_with("0.");
    if !leading_zero
        && let Ok(x) = s.parse::<f64>()
        && x.is_finite()
    {
        return format!("{x:.5e}");
    }
    let b = s.as_bytes();
    if b.len() >= 19 && b[4] == b'-' && b[7] == b'-' && (b[10] == b'T' || b[10] == b' ') {
        let mut t = s.replacen('T', " ", 1);
        if let Some(dot) = t.find('.')
            && t[dot + 1..].chars().all(|c| c == '0')
        {
            t.truncate(dot);
        }
        return t;
    }
    s.to_string()
}

/// The rows jetsql gives for `SELECT * FROM [name]` on `file`, each cell
/// normalised ([`norm_cell`]), sorted.
pub fn jetsql_rows(file: &Path, name: &str) -> Result<Vec<Vec<String>>, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_jetsql"))
        .arg(file)
        .args(["--format", "csv", "--null", "\\N", "-c"])
        .arg(format!("SELECT * FROM [{name}]"))
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(&out.stdout[..]);
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| e.to_string())?;
        rows.push(
            rec.iter()
                .map(|f| norm_cell((f != "\\N").then_some(f)))
                .collect::<Vec<_>>(),
        );
    }
    rows.sort();
    Ok(rows)
}

/// A copy of the corpus's `jackcess/V2019/extDateTestV2019.accdb` (ACE17,
/// whose `Table1` has extended Date/Time columns) in `dir` with one more
/// table, `EveryType`, of every Access type a table can declare (Yes/No,
/// Byte, Integer, Long, Large Number, Currency, Decimal, Single, Double,
/// Date/Time, Text, Memo, GUID, Binary, OLE Object), holding edge values
/// (bounds, fractions, NULLs, control and non-ASCII characters, 00/FF
/// bytes), written through `jetsql --write`.
pub fn every_type_file(dir: &Path) -> Option<PathBuf> {
    let path = dir.join("every_type.accdb");
    std::fs::copy(
        corpus()?.join("jackcess/V2019/extDateTestV2019.accdb"),
        &path,
    )
    .unwrap();
    // the corpus's files are read-only; the copy is written
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&path, perms).unwrap();
    let create = "CREATE TABLE EveryType (ID COUNTER PRIMARY KEY, YesNo BIT, B BYTE, \
         I SMALLINT, L INTEGER, Big BIGINT, Money CURRENCY, Dec DECIMAL(28,6), \
         S REAL, D DOUBLE, T DATETIME, Txt VARCHAR(80), Note MEMO, G GUID, \
         Bin VARBINARY(16), Ole LONGBINARY)";
    let rows = [
        "(TRUE, 0, -32768, -2147483648, -9223372036854775808, \
          CAST('-922337203685477.5808' AS DECIMAL(19,4)), \
          CAST('-1234567890123456789012.345678' AS DECIMAL(28,6)), \
          CAST('-3.4028235e38' AS REAL), CAST('-1.7976931348623157e308' AS DOUBLE), \
          arrow_cast('0100-01-01T00:00:00', 'Timestamp(Microsecond, None)'), '', '', \
          '{00000000-0000-0000-0000-000000000000}', X'00', X'00')",
        "(FALSE, 255, 32767, 2147483647, 9223372036854775807, \
          CAST('922337203685477.5807' AS DECIMAL(19,4)), \
          CAST('0.000001' AS DECIMAL(28,6)), \
          CAST('1.4e-45' AS REAL), CAST('5e-324' AS DOUBLE), \
          arrow_cast('9999-12-31T23:59:59', 'Timestamp(Microsecond, None)'), 'tab\tnew\nline \\ \"q\" ''a''', \
          'ünïcödé ✓ 中文 😀', '{FFFFFFFF-ABCD-EF01-2345-6789ABCDEF01}', \
          X'FF00FF00FF00FF00FF00FF00FF00FF00', X'0102030405060708090A')",
        "(TRUE, 7, 0, 0, 0, CAST('0.0001' AS DECIMAL(19,4)), \
          CAST('0' AS DECIMAL(28,6)), CAST('0.1' AS REAL), CAST('0.1' AS DOUBLE), \
          arrow_cast('1899-12-30T12:34:56.789', 'Timestamp(Microsecond, None)'), 'x', repeat('memo ', 2000), \
          '{12345678-90AB-CDEF-1234-567890ABCDEF}', X'', CAST(repeat('ole', 20000) AS BYTEA))",
        "(FALSE, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
          NULL, NULL, NULL)",
    ];
    let insert = format!(
        "INSERT INTO EveryType (YesNo, B, I, L, Big, Money, Dec, S, D, T, Txt, Note, G, Bin, Ole) VALUES {}",
        rows.join(", ")
    );
    let out = Command::new(env!("CARGO_BIN_EXE_jetsql"))
        .arg("--write")
        .args(["--dialect", "datafusion"])
        .arg(&path)
        .args(["-c", create, "-c", &insert])
        .output()
        .expect("jetsql runs");
    assert!(
        out.status.success(),
        "EveryType: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(path)
}

/// The tables of one target as `migrate` (`fast`) and the loaded `dump`
/// script (`plain`) left them, each `(table, [its columns, then a line a
/// row])`, compared: differences go to `failures` (named by `rel`, the
/// file). The rows compared, or `None` when the two hold other tables.
pub fn compare_stored(
    rel: &str,
    fast: &[(String, Vec<String>)],
    plain: &[(String, Vec<String>)],
    failures: &mut Vec<String>,
) -> Option<usize> {
    let names = |x: &[(String, Vec<String>)]| x.iter().map(|t| t.0.clone()).collect::<Vec<_>>();
    if names(fast) != names(plain) {
        failures.push(format!(
            "{rel}: tables {:?} vs {:?}",
            names(fast),
            names(plain)
        ));
        return None;
    }
    let mut rows = 0;
    for ((name, fast_rows), (_, plain_rows)) in fast.iter().zip(plain) {
        rows += fast_rows.len() - 1;
        if fast_rows.len() != plain_rows.len() {
            failures.push(format!(
                "{rel}: {name}: {} rows vs {} in the script's",
                fast_rows.len() - 1,
                plain_rows.len() - 1
            ));
        } else if let Some((i, (x, y))) = fast_rows
            .iter()
            .zip(plain_rows)
            .enumerate()
            .find(|(_, (x, y))| x != y)
        {
            let what = if i == 0 {
                "columns".to_string()
            } else {
                format!("row {i}")
            };
            failures.push(format!(
                "{rel}: {name}: {what}:\n  migrate: {x}\n  script:  {y}"
            ));
        }
    }
    Some(rows)
}
