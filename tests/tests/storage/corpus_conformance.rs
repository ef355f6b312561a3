//! Corpus conformance: `jet-storage` against the corpus of real Access files
//! and against mdbtools 1.0 (the peer the oracle in `../shared/oracle` was
//! made with).
//!
//! Three tests:
//!
//! * [`every_corpus_file_opens_and_scans`]: every corpus file that is not
//!   encrypted opens, lists its tables and streams every user table to the
//!   end without an error; files encrypted with a password (ACCDB, a
//!   Microsoft Money file) are refused without it; the two deliberately damaged
//!   files may fail with a typed `Err`. Nothing may panic.
//! * [`row_counts_and_table_names_match_mdbtools`]: for every database the
//!   oracle describes, our user tables are the tables mdbtools lists, and
//!   each has the number of rows `mdb-export` wrote.
//! * [`values_match_mdbtools`]: every table of the oracle is exported live
//!   with `mdb-export`; the export must be byte-identical (SHA-256) to the
//!   oracle's, which proves the installed mdbtools is the oracle's; then the
//!   export is parsed and compared value by value with our scan, after the
//!   normalisation described at [`Kind`]. Rows are compared as multisets.
//!   Where mdbtools is known to be wrong, [`KNOWN_DISAGREEMENTS`] says so,
//!   with evidence; each listed disagreement must still occur (the list
//!   cannot go stale), and every other mismatch fails the test with the file,
//!   table, column, row key and both values.
//!
//! Without the corpus, the oracle or `mdb-export` the tests print a notice
//! and pass, except under `CI=true`, where that is a failure.
//!
//! ## How the oracle was made
//!
//! The oracle's README says the `.iso.tsv` digests are of
//! `mdb-export -D '%Y-%m-%d %H:%M:%S'`. With mdbtools 1.0 `-D` only formats
//! columns whose `Format` property is a short date; all other date/time
//! columns follow `-T`. The digests are in fact those of
//! `mdb-export -D '%Y-%m-%d %H:%M:%S' -T '%Y-%m-%d %H:%M:%S' -b hex`: that
//! reproduces all 161 tables, while `-D` alone misses the 15 tables whose
//! dates it leaves in the default `%x %X` form, and without `-b hex` the 9
//! tables with binary values differ. That is the command [`ISO_ARGS`] runs,
//! and its output, once its digest matches, is what is parsed. The plain
//! `.tsv` digests are of `mdb-export` with no options; they are checked too.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Decimal256Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    TimestampMicrosecondType, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use jet_storage::{Database, JetType, OpenOptions, ScanOptions, Table};
use jet_tests::{
    OracleTable, corpus, oracle, oracle_databases, read_oracle_tsv, require_mdb_export,
    run_mdb_export, sha256_hex,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

// ---------------------------------------------------------------------------
// The corpus: which files are special
// ---------------------------------------------------------------------------

/// Files encrypted with a password: `Database::open` without one must
/// return an `Err` (storage/tests/encrypted.rs opens them with it). The
/// Money files without a password (money2001.mny, money2002.mny) are read
/// like any other file.
const ENCRYPTED: &[&str] = &[
    "jackcess-encrypt/db-nonstandard.accdb",
    "jackcess-encrypt/db2007-enc.accdb",
    "jackcess-encrypt/db2007-oldenc.accdb",
    "jackcess-encrypt/money2001-pwd.mny",
];

/// Deliberately damaged or odd files: they may fail with a typed `Err`
/// anywhere (open, table list, scan) but must not panic.
const DAMAGED: &[&str] = &["ucanaccess/corrupted.accdb", "ucanaccess/badDb.accdb"];

fn is_encrypted(rel: &str) -> bool {
    ENCRYPTED.contains(&rel)
}

fn is_damaged(rel: &str) -> bool {
    DAMAGED.contains(&rel)
}

/// Whether `rel` (a path relative to the corpus) is a database file.
fn is_database(rel: &str) -> bool {
    let l = rel.to_ascii_lowercase();
    l.ends_with(".mdb") || l.ends_with(".accdb") || l.ends_with(".mny")
}

// ---------------------------------------------------------------------------
// mdb-export invocations
// ---------------------------------------------------------------------------

/// strftime format of the oracle's "ISO" exports.
const ISO_FMT: &str = "%Y-%m-%d %H:%M:%S";

/// Options of the oracle's `.iso.tsv` exports (see the module docs): ISO
/// dates for short-date (`-D`) and all other (`-T`) date/time columns,
/// binary as upper-case hex (`-b hex`).
const ISO_ARGS: &[&str] = &["-D", ISO_FMT, "-T", ISO_FMT, "-b", "hex"];

// ---------------------------------------------------------------------------
// Known disagreements with mdbtools
// ---------------------------------------------------------------------------

/// What mdbtools gets wrong in a known disagreement, which is how the
/// disagreement must look: it is not a blanket exemption of the column,
/// every differing value must have this shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// mdbtools' `mdb_date_to_tm` leaves the `struct tm` zeroed for a date
    /// stored as fewer than 0 or more than 1e6 days from 1899-12-30, so
    /// strftime prints `1900-01-00 00:00:00`. Our value must lie outside that
    /// range and mdbtools' must be exactly that string.
    DateOutOfRange,
    /// mdbtools does not know the column type ("mdb_col_to_string called on
    /// unsupported data type N" on stderr) and prints NULL; ours is a value.
    PrintsNull,
    /// mdbtools reads a calculated column's stored bytes as if they were the
    /// plain type (the value sits behind a 16-byte header in ACE 14+), so
    /// what it prints is not the value. Any differing value is accepted.
    RawCalculated,
    /// mdb-export prints every zero-length value as NULL (`if
    /// (!bound_lens[i])` in `mdb-export.c`); ours is an empty, non-NULL value.
    EmptyAsNull,
    /// mdbtools' text conversion (iconv) writes `?` for what it cannot
    /// convert: one `?` per UTF-16 unit of a character outside the Basic
    /// Multilingual Plane (it converts from UCS-2), and `?` for the five
    /// bytes Windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D,
    /// which Windows maps to U+0081 … U+009D). mdbtools' text must equal ours
    /// with exactly those characters replaced.
    QuestionMarks,
    /// mdbtools' `mdb_uuid_to_string` format string lacks the hyphen between
    /// the 4th and 5th groups (`{8-4-4-4-12}` printed as `{8-4-4-16}`).
    /// mdbtools' text must equal ours without its last hyphen.
    GuidMissingHyphen,
}

impl Expect {
    fn accepts(self, ours: &Cell, mdb: &Cell) -> bool {
        match self {
            Expect::DateOutOfRange => {
                matches!(mdb, Cell::Date { text, .. } if text == "1900-01-00 00:00:00")
                    && matches!(ours, Cell::Date { days: Some(d), .. } if *d < 0.0 || *d > 1e6)
            }
            Expect::PrintsNull => mdb == &Cell::Null && ours != &Cell::Null,
            Expect::RawCalculated => true,
            Expect::EmptyAsNull => mdb == &Cell::Null && ours == &Cell::Exact(String::new()),
            Expect::QuestionMarks => match (ours, mdb) {
                (Cell::Exact(o), Cell::Exact(m)) => {
                    let mut want = String::new();
                    for c in o.chars() {
                        if ('\u{80}'..='\u{9f}').contains(&c) || u32::from(c) > 0xFFFF {
                            want.push_str(&"?".repeat(c.len_utf16()));
                        } else {
                            want.push(c);
                        }
                    }
                    &want == m && &want != o
                }
                _ => false,
            },
            Expect::GuidMissingHyphen => match (ours, mdb) {
                (Cell::Exact(o), Cell::Exact(m)) => o.rfind('-').is_some_and(|i| {
                    let mut want = o.clone();
                    want.remove(i);
                    &want == m
                }),
                _ => false,
            },
        }
    }
}

/// A place where mdbtools and we disagree and mdbtools is wrong.
#[derive(Debug)]
struct Known {
    file: &'static str,
    table: &'static str,
    column: &'static str,
    expect: Expect,
    /// Why mdbtools is wrong, with the evidence.
    reason: &'static str,
}

const EXT_DATE: &str = "jackcess/V2019/extDateTestV2019.accdb";
const DATE_TEST: &str = "mdbtools/DateTestDatabase.mdb";
const OLD_DATES: &str = "jackcess/V2007/oldDatesV2007.accdb";
const CALC: &str = "jackcess/V2010/calcFieldTestV2010.accdb";
const UNSUPPORTED: &str = "jackcess/V2007/unsupportedFieldsTestV2007.accdb";
const INDEX_CODES: &str = "jackcess/V1997/testIndexCodesV1997.mdb";
const BIN_INDEX: &str = "jackcess/V2010/binIdxTestV2010.accdb";
const EMOTICONS: &str = "jackcess/V2010/testEmoticonsV2010.accdb";

const WHY_CP1252: &str = "Jet3 text in code page 1252. Row N was written by Jackcess with code \
     point N between the letters (the row name says N; where Java's Cp1252 could not encode it, \
     '?' was stored and both readers print '?'). For N = 129, 141, 143, 144, 157 the file holds \
     the bytes 0x81, 0x8D, 0x8F, 0x90, 0x9D, which Windows-1252 leaves undefined and Windows and \
     Java map to U+0081 … U+009D: ours is exactly code point N, mdbtools' iconv prints '?'";
const WHY_GUID: &str = "mdbtools' mdb_uuid_to_string format string has no hyphen between the \
     4th and 5th groups: ours {8E39276A-BCA8-4AC4-891E-49911D8438DD}, mdbtools \
     {8E39276A-BCA8-4AC4-891E49911D8438DD} (not a GUID's text form); the other 32 digits agree";
const WHY_OLD_DATES: &str = "dates before 1899-12-30 (day numbers below 0): mdbtools' \
     mdb_date_to_tm returns early and prints the zeroed struct tm, 1900-01-00 00:00:00, which is \
     not a date at all";

/// The evidence for every calculated column of calcFieldTestV2010.
macro_rules! calc_evidence {
    () => {
        "Jackcess' CalcFieldTest.testReadCalcFields expects exactly our values for all four \
         rows of this table; mdbtools reads the stored bytes, which begin with the calculated \
         value's 16-byte header, as if they were the plain value"
    };
}

/// Every known disagreement. Keep it small and keep the evidence current:
/// the test fails if a listed disagreement no longer occurs.
const KNOWN_DISAGREEMENTS: &[Known] = &[
    Known {
        file: EXT_DATE,
        table: "Table1",
        column: "DateNormal",
        expect: Expect::DateOutOfRange,
        reason: "rows 7-9 hold 1765-06-14, 0100-06-14 and 1265-06-14 12:45:00; the row's \
                 own text column DateExtStr says 6/14/1765, 6/14/100 and 6/14/1265 12:45 PM, \
                 as do the DateExt (extended) values; mdbtools prints 1900-01-00 00:00:00",
    },
    Known {
        file: EXT_DATE,
        table: "Table1",
        column: "DateExt",
        expect: Expect::PrintsNull,
        reason: "extended date/time (type 20) is unsupported by mdbtools 1.0 (it warns \
                 'unsupported data type 20' and prints NULL); our values equal the \
                 DateExtStr text column of each row (e.g. row 6: 2021-06-14 22:45:12.345678 \
                 vs '6/14/2021 10:45:12.3456789 PM', 100 ns digit truncated)",
    },
    Known {
        file: EXT_DATE,
        table: "Table1",
        column: "DateNormalCalc",
        expect: Expect::RawCalculated,
        reason: "calculated column: mdbtools prints 1899-12-30 00:00:00 in every row (it \
                 reads the calculated-value header as the double); ours equals DateNormal in \
                 every row, NULL where DateNormal is NULL",
    },
    Known {
        file: DATE_TEST,
        table: "DateTest",
        column: "DateTimeCol",
        expect: Expect::DateOutOfRange,
        reason: "rows 2-4 hold 9999-01-01, 1898-01-01 and 0632-01-01; the row's LongTextCol \
                 says 'Year 9999', 'Pre-1900 years', 'Pre-1000 years'; mdbtools prints \
                 1900-01-00 00:00:00 for all three (it gives up below day 0 and above day 1e6)",
    },
    Known {
        file: DATE_TEST,
        table: "DateTest",
        column: "DateCol",
        expect: Expect::DateOutOfRange,
        reason: "rows 2-4 hold 9999-01-01, 1899-01-01 and 0633-01-01 (LongTextCol: 'Year \
                 9999', 'Pre-1900 years', 'Pre-1000 years'); mdbtools prints 1900-01-00",
    },
    Known {
        file: DATE_TEST,
        table: "DateTest",
        column: "TimeCol",
        expect: Expect::DateOutOfRange,
        reason: "rows 2 and 4 hold 9999-01-01 and 0634-01-01 (LongTextCol: 'Year 9999', \
                 'Pre-1000 years'); mdbtools prints 1900-01-00; row 3 (1900-01-01) agrees",
    },
    Known {
        file: OLD_DATES,
        table: "Table1",
        column: "DateField",
        expect: Expect::DateOutOfRange,
        reason: "Jackcess' DatabaseTest.testAncientDates reads this table and expects \
                 DateField = 1582-10-15, 1582-10-14, 1492-01-10, 1392-01-10, which is ours; \
                 mdbtools prints 1900-01-00 00:00:00 for all four",
    },
    Known {
        file: INDEX_CODES,
        table: "Table6",
        column: "data",
        expect: Expect::DateOutOfRange,
        reason: WHY_OLD_DATES,
    },
    Known {
        file: INDEX_CODES,
        table: "Table6_desc",
        column: "data",
        expect: Expect::DateOutOfRange,
        reason: WHY_OLD_DATES,
    },
    Known {
        file: INDEX_CODES,
        table: "Table1",
        column: "data",
        expect: Expect::QuestionMarks,
        reason: WHY_CP1252,
    },
    Known {
        file: INDEX_CODES,
        table: "Table1_desc",
        column: "data",
        expect: Expect::QuestionMarks,
        reason: WHY_CP1252,
    },
    Known {
        file: INDEX_CODES,
        table: "Table14",
        column: "data",
        expect: Expect::QuestionMarks,
        reason: WHY_CP1252,
    },
    Known {
        file: INDEX_CODES,
        table: "Table14_desc",
        column: "data",
        expect: Expect::QuestionMarks,
        reason: WHY_CP1252,
    },
    Known {
        file: INDEX_CODES,
        table: "Table13",
        column: "data",
        expect: Expect::GuidMissingHyphen,
        reason: WHY_GUID,
    },
    Known {
        file: INDEX_CODES,
        table: "Table13_desc",
        column: "data",
        expect: Expect::GuidMissingHyphen,
        reason: WHY_GUID,
    },
    Known {
        file: EMOTICONS,
        table: "data",
        column: "data",
        expect: Expect::QuestionMarks,
        reason: "the key column is the code point between the letters (key 128512 = U+1F600): \
                 ours is 'a😀a', exactly that; mdbtools converts from UCS-2 and prints one '?' \
                 per surrogate, 'a??a'",
    },
    Known {
        file: BIN_INDEX,
        table: "Test",
        column: "BinAsc",
        expect: Expect::EmptyAsNull,
        reason: "row ID=201 stores a zero-length value with its null-mask bit set (raw row 03 00 \
                 c9 00 00 00 06 00 06 00 06 00 02 00 07: mask 0x07, both variable offsets 6, \
                 so present and empty); row ID=200 has the bits clear (mask 0x01) and both \
                 readers print NULL; mdb-export prints any zero-length value as NULL",
    },
    Known {
        file: BIN_INDEX,
        table: "Test",
        column: "BinDsc",
        expect: Expect::EmptyAsNull,
        reason: "as BinAsc: row ID=201 is present and empty (null-mask bit 2 set, zero \
                 length); mdb-export prints any zero-length value as NULL",
    },
    Known {
        file: UNSUPPORTED,
        table: "Test",
        column: "UnknownVar",
        expect: Expect::PrintsNull,
        reason: "column type 0x46 is unknown to both readers; mdbtools warns 'unsupported \
                 data type 70' and prints NULL; we pass the stored bytes through, which are \
                 what Jackcess' testUnsupportedColumns expects: FF FE 73 6F 6D 65 64 61 74 61, \
                 FF FE 6F 74 68 65 72 20 64 61 74 61, NULL",
    },
    Known {
        file: UNSUPPORTED,
        table: "Test",
        column: "UnknownFix",
        expect: Expect::PrintsNull,
        reason: "column type 0x47 is unknown to both readers; mdbtools warns 'unsupported \
                 data type 71' and prints NULL; our bytes are what Jackcess' \
                 testUnsupportedColumns expects: 37 00 00 00, F3 FF FF FF, 02 00 00 00",
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "LastFirst",
        expect: Expect::PrintsNull,
        reason: concat!(
            "calculated Text: ours 'Wayne, Bruce', 'Simpson, Bart', 'Doe, John', 'User, Test'; mdbtools prints NULL. ",
            calc_evidence!()
        ),
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "LastFirstLen",
        expect: Expect::RawCalculated,
        reason: concat!(
            "calculated Long: ours 12, 13, 9, 10; mdbtools 0. ",
            calc_evidence!()
        ),
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "MonthlySalary",
        expect: Expect::RawCalculated,
        reason: concat!(
            "calculated Currency: ours 83333.3333, -0.0833, 0, 8.3333; mdbtools 0. ",
            calc_evidence!()
        ),
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "IsRich",
        expect: Expect::RawCalculated,
        reason: concat!(
            "calculated Yes/No: ours true, false, false, false; mdbtools 0 in every row. ",
            calc_evidence!()
        ),
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "AllNames",
        expect: Expect::RawCalculated,
        reason: concat!(
            "calculated Memo: ours 'Wayne, Bruce=Wayne, Bruce' etc.; mdbtools prints the header bytes as text ('I\u{4000}\u{5900}'). ",
            calc_evidence!()
        ),
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "WeeklySalary",
        expect: Expect::RawCalculated,
        reason: concat!(
            "calculated Decimal: ours 19230.7692307692, -0.0192307692307692, 0, 1.92307692307692; mdbtools 0. ",
            calc_evidence!()
        ),
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "SalaryTest",
        expect: Expect::RawCalculated,
        reason: concat!(
            "calculated Currency: ours 1000000, -1, 0, 100; mdbtools 0.0000. ",
            calc_evidence!()
        ),
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "BoolTest",
        expect: Expect::RawCalculated,
        reason: concat!(
            "calculated Yes/No: ours true in every row; mdbtools 0. ",
            calc_evidence!()
        ),
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "DecimalTest",
        expect: Expect::RawCalculated,
        reason: concat!(
            "calculated Decimal: ours 50.325, -36.2222, 0.0123, 102030405060.654321; mdbtools 268435456. ",
            calc_evidence!()
        ),
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "FloatTest",
        expect: Expect::RawCalculated,
        reason: concat!(
            "calculated Single: ours 2583.2092, 0.0035889593, 0, 1.27413e-10; mdbtools 67108864 in every row. ",
            calc_evidence!()
        ),
    },
    Known {
        file: CALC,
        table: "Table1",
        column: "BigNumTest",
        expect: Expect::RawCalculated,
        reason: concat!(
            "calculated Decimal: ours 56505085819.424791296572280180, -0.0784734499180612994241100748, 0, 2.787019289824216980830e-7; mdbtools 268435456. ",
            calc_evidence!()
        ),
    },
];

fn known_for(file: &str, table: &str, column: &str) -> Option<usize> {
    KNOWN_DISAGREEMENTS
        .iter()
        .position(|k| k.file == file && k.table == table && k.column == column)
}

// ---------------------------------------------------------------------------
// Normalised values
// ---------------------------------------------------------------------------

/// How a column's values are normalised before they are compared. Our value
/// is taken from the Arrow array; mdbtools' from its CSV field, interpreted
/// by our column's type. NULL is a null in Arrow and an empty field in
/// `mdb-export` output; mdb-export writes every zero-length value (empty
/// text or binary) as an empty field too, see [`Expect::EmptyAsNull`].
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// Yes/No: `1`/`0` (mdb-export's default boolean output).
    Bool,
    /// Byte, Integer, Long, BigInt, Complex: equal as integers (mdbtools
    /// prints `%d`/`%ld`).
    Int,
    /// Single and Double: equal as `f64` within a relative tolerance, since
    /// mdbtools prints `%.8g` (Single) and `%.16g` (Double).
    Float {
        /// Largest accepted |a - b| / max(|a|, |b|).
        rel_tol: f64,
    },
    /// Currency and Decimal: equal as decimals (mdbtools prints a fixed
    /// number of fraction digits): sign, integer part without leading zeros,
    /// fraction without trailing zeros.
    Decimal,
    /// Date/Time: `YYYY-MM-DD HH:MM:SS`. Ours is rounded to the nearest
    /// second, as mdbtools' `mdb_date_to_tm` rounds (`+ 0.5` s) before
    /// strftime.
    DateTime,
    /// Text and Memo: exactly equal.
    Text,
    /// GUID: ours is `{XXXXXXXX-…}`; with `-b hex` mdb-export treats GUIDs as
    /// binary and prints the hex of that text (`7B38…7D`), which is decoded.
    /// Compared case-insensitively.
    Guid,
    /// Binary, OLE and unknown types: upper-case hex (`-b hex`).
    Binary,
}

impl Kind {
    fn for_column(jet: JetType, dt: &DataType) -> Result<Kind, String> {
        Ok(match dt {
            DataType::Boolean => Kind::Bool,
            DataType::UInt8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => Kind::Int,
            // %.8g: 8 significant digits, at most 5e-8 relative error
            DataType::Float32 => Kind::Float { rel_tol: 1e-7 },
            // %.16g: 16 significant digits, at most 5e-16 relative error
            DataType::Float64 => Kind::Float { rel_tol: 1e-13 },
            DataType::Decimal128(..) | DataType::Decimal256(..) => Kind::Decimal,
            DataType::Timestamp(TimeUnit::Microsecond, None) => Kind::DateTime,
            DataType::Utf8 if jet == JetType::Guid => Kind::Guid,
            DataType::Utf8 => Kind::Text,
            DataType::Binary => Kind::Binary,
            other => return Err(format!("no normalisation for Arrow type {other:?}")),
        })
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Bool => "boolean",
            Kind::Int => "integer",
            Kind::Float { .. } => "float",
            Kind::Decimal => "decimal",
            Kind::DateTime => "date/time",
            Kind::Text => "text",
            Kind::Guid => "GUID",
            Kind::Binary => "binary",
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Kind::Float { .. })
    }
}

/// A normalised value.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Null,
    /// Compared as strings.
    Exact(String),
    /// Compared with a tolerance.
    Float(f64),
    /// A date/time, compared by its text; ours also carries its distance in
    /// days from 1899-12-30 (for [`Expect::DateOutOfRange`]), mdbtools' has
    /// only its text.
    Date {
        text: String,
        days: Option<f64>,
    },
    /// An mdbtools field that does not parse as the column's type; never
    /// equal to anything.
    Unparsed(String),
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Null => write!(f, "NULL"),
            Cell::Exact(s) => write!(f, "{}", shorten(s)),
            Cell::Float(v) => write!(f, "{v:e}"),
            Cell::Date { text, .. } => write!(f, "{text:?}"),
            Cell::Unparsed(s) => write!(f, "unparsable {}", shorten(s)),
        }
    }
}

fn shorten(s: &str) -> String {
    const MAX: usize = 120;
    if s.chars().count() <= MAX {
        format!("{s:?}")
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head:?}… ({} chars)", s.chars().count())
    }
}

impl Cell {
    /// A string that identifies the value exactly (for grouping and sorting
    /// rows; float columns are left out of the grouping).
    fn key(&self) -> String {
        match self {
            Cell::Null => "\u{0}".into(),
            Cell::Exact(s) => format!("={s}"),
            Cell::Float(v) => format!("~{v:e}"),
            Cell::Date { text, .. } => format!("@{text}"),
            Cell::Unparsed(s) => format!("!{s}"),
        }
    }

    fn equals(&self, other: &Cell, kind: Kind) -> bool {
        match (self, other) {
            (Cell::Null, Cell::Null) => true,
            (Cell::Exact(a), Cell::Exact(b)) => a == b,
            (Cell::Date { text: a, .. }, Cell::Date { text: b, .. }) => a == b,
            (Cell::Float(a), Cell::Float(b)) => {
                let Kind::Float { rel_tol } = kind else {
                    return a == b;
                };
                a == b
                    || (a.is_nan() && b.is_nan())
                    || (a - b).abs() <= rel_tol * a.abs().max(b.abs())
            }
            _ => false,
        }
    }
}

/// Canonical form of a decimal number written `[-]digits[.digits]`, or
/// `None` if `s` is not one.
fn canon_decimal(s: &str) -> Option<String> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let mut out = String::new();
    if neg && !(int == "0" && frac.is_empty()) {
        out.push('-');
    }
    out.push_str(int);
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    Some(out)
}

/// `digits` (an integer's decimal text) scaled down by `scale` decimal
/// places, canonical as [`canon_decimal`].
fn scaled_decimal(digits: &str, scale: i8) -> String {
    let (neg, mut d) = match digits.strip_prefix('-') {
        Some(d) => (true, d.to_string()),
        None => (false, digits.to_string()),
    };
    let text = if scale > 0 {
        let s = scale as usize;
        if d.len() <= s {
            d = format!("{}{d}", "0".repeat(s + 1 - d.len()));
        }
        let (i, f) = d.split_at(d.len() - s);
        format!("{i}.{f}")
    } else {
        format!("{d}{}", "0".repeat((-scale) as usize))
    };
    let text = if neg { format!("-{text}") } else { text };
    canon_decimal(&text).expect("formatted decimal is canonicalisable")
}

/// (year, month, day) of the proleptic Gregorian calendar for `days` since
/// 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days from 1970-01-01 to 1899-12-30 (the Jet date epoch).
const JET_EPOCH_UNIX_DAYS: i64 = -25_569;

/// A timestamp in microseconds since 1970, rounded to the second, as
/// `YYYY-MM-DD HH:MM:SS`, with its (unrounded) day number since 1899-12-30.
fn date_cell(micros: i64) -> Cell {
    let secs = (micros + 500_000).div_euclid(1_000_000);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let t = secs.rem_euclid(86_400);
    let text = format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        t / 3600,
        t / 60 % 60,
        t % 60
    );
    let days = micros as f64 / 86_400e6 - JET_EPOCH_UNIX_DAYS as f64;
    Cell::Date {
        text,
        days: Some(days),
    }
}

fn hex_upper(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push_str(&format!("{b:02X}"));
    }
    s
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Our values of one column, normalised.
fn our_cells(a: &dyn Array, kind: Kind) -> Result<Vec<Cell>, String> {
    let n = a.len();
    let mut out = Vec::with_capacity(n);
    let dt = a.data_type().clone();
    macro_rules! each {
        ($arr:expr, |$v:ident| $e:expr) => {{
            let arr = $arr;
            for i in 0..n {
                out.push(if arr.is_null(i) {
                    Cell::Null
                } else {
                    let $v = arr.value(i);
                    $e
                });
            }
        }};
    }
    match (&dt, kind) {
        (DataType::Boolean, Kind::Bool) => {
            each!(a.as_boolean(), |v| Cell::Exact(
                if v { "1" } else { "0" }.into()
            ))
        }
        (DataType::UInt8, Kind::Int) => {
            each!(a.as_primitive::<UInt8Type>(), |v| Cell::Exact(
                v.to_string()
            ))
        }
        (DataType::Int16, Kind::Int) => {
            each!(a.as_primitive::<Int16Type>(), |v| Cell::Exact(
                v.to_string()
            ))
        }
        (DataType::Int32, Kind::Int) => {
            each!(a.as_primitive::<Int32Type>(), |v| Cell::Exact(
                v.to_string()
            ))
        }
        (DataType::Int64, Kind::Int) => {
            each!(a.as_primitive::<Int64Type>(), |v| Cell::Exact(
                v.to_string()
            ))
        }
        (DataType::Float32, Kind::Float { .. }) => {
            each!(a.as_primitive::<Float32Type>(), |v| Cell::Float(f64::from(
                v
            )))
        }
        (DataType::Float64, Kind::Float { .. }) => {
            each!(a.as_primitive::<Float64Type>(), |v| Cell::Float(v))
        }
        (DataType::Decimal128(_, s), Kind::Decimal) => {
            each!(a.as_primitive::<Decimal128Type>(), |v| Cell::Exact(
                scaled_decimal(&v.to_string(), *s)
            ))
        }
        (DataType::Decimal256(_, s), Kind::Decimal) => {
            each!(a.as_primitive::<Decimal256Type>(), |v| Cell::Exact(
                scaled_decimal(&v.to_string(), *s)
            ))
        }
        (DataType::Timestamp(TimeUnit::Microsecond, None), Kind::DateTime) => {
            each!(a.as_primitive::<TimestampMicrosecondType>(), |v| date_cell(
                v
            ))
        }
        (DataType::Utf8, Kind::Text) => each!(a.as_string::<i32>(), |v| Cell::Exact(v.into())),
        (DataType::Utf8, Kind::Guid) => {
            each!(a.as_string::<i32>(), |v| Cell::Exact(
                v.to_ascii_uppercase()
            ))
        }
        (DataType::Binary, Kind::Binary) => {
            each!(a.as_binary::<i32>(), |v| Cell::Exact(hex_upper(v)))
        }
        (dt, kind) => return Err(format!("Arrow type {dt:?} does not fit {kind:?}")),
    }
    Ok(out)
}

/// mdbtools' value of one field, normalised by our column's kind. `None` is
/// NULL.
fn mdb_cell(field: Option<&str>, kind: Kind) -> Cell {
    let Some(s) = field else {
        return Cell::Null;
    };
    let bad = || Cell::Unparsed(s.to_string());
    match kind {
        Kind::Bool => match s {
            "0" | "1" => Cell::Exact(s.into()),
            _ => bad(),
        },
        Kind::Int => s
            .parse::<i128>()
            .map(|v| Cell::Exact(v.to_string()))
            .unwrap_or_else(|_| bad()),
        Kind::Float { .. } => s.parse::<f64>().map(Cell::Float).unwrap_or_else(|_| bad()),
        Kind::Decimal => canon_decimal(s).map(Cell::Exact).unwrap_or_else(bad),
        Kind::DateTime => {
            let b = s.as_bytes();
            let shape = b.len() == 19
                && b.iter().enumerate().all(|(i, c)| match i {
                    4 | 7 => *c == b'-',
                    10 => *c == b' ',
                    13 | 16 => *c == b':',
                    _ => c.is_ascii_digit(),
                });
            if shape {
                Cell::Date {
                    text: s.into(),
                    days: None,
                }
            } else {
                bad()
            }
        }
        Kind::Text => Cell::Exact(s.into()),
        Kind::Guid => unhex(s)
            .and_then(|b| String::from_utf8(b).ok())
            .map(|g| Cell::Exact(g.to_ascii_uppercase()))
            .unwrap_or_else(bad),
        Kind::Binary => {
            if s.bytes().all(|c| c.is_ascii_hexdigit()) {
                Cell::Exact(s.to_ascii_uppercase())
            } else {
                bad()
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Reading a table with our reader
// ---------------------------------------------------------------------------

/// Scans `table` to the end; the batches and the row count.
fn scan_all(table: &Table) -> Result<(Vec<RecordBatch>, u64), String> {
    let scan = table
        .scan(ScanOptions::default())
        .map_err(|e| format!("scan: {e}"))?;
    let mut batches = Vec::new();
    let mut rows = 0u64;
    for b in scan {
        let b = b.map_err(|e| format!("after {rows} rows: {e}"))?;
        rows += b.num_rows() as u64;
        batches.push(b);
    }
    Ok((batches, rows))
}

/// Runs `f`, turning a panic into an `Err` with its message.
fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".into());
        format!("{what}: PANICKED: {msg}")
    })
}

fn fail_with(failures: &[String], what: &str) {
    if !failures.is_empty() {
        let mut msg = format!("{} {what}:\n", failures.len());
        for f in failures {
            msg.push_str("  - ");
            msg.push_str(f);
            msg.push('\n');
        }
        panic!("{msg}");
    }
}

// ---------------------------------------------------------------------------
// (a) every file opens and scans
// ---------------------------------------------------------------------------

#[derive(Default)]
struct FileStats {
    tables: usize,
    rows: u64,
}

/// Opens `path`, lists its tables and scans every user table to the end.
/// Linked tables must be refused with an `Err` by `Database::table`.
fn read_whole_file(path: &Path) -> Result<FileStats, String> {
    let db = Database::open(path, OpenOptions::default()).map_err(|e| format!("open: {e}"))?;
    let mut stats = FileStats::default();
    for name in db.table_names() {
        let table = db
            .table(&name)
            .map_err(|e| format!("table {name:?}: {e}"))?;
        let (_, rows) = scan_all(&table).map_err(|e| format!("table {name:?}: {e}"))?;
        stats.tables += 1;
        stats.rows += rows;
    }
    for entry in db.linked_tables() {
        if db.table(&entry.name).is_ok() {
            return Err(format!(
                "linked table {:?} opened as a local table ({:?})",
                entry.name, entry.kind
            ));
        }
    }
    Ok(stats)
}

/// Every corpus file: opens, lists tables, scans every user table; encrypted
/// files are refused; damaged files may fail; nothing panics.
#[test]
fn every_corpus_file_opens_and_scans() {
    let Some(corpus) = corpus() else { return };
    let files: Vec<String> = jet_tests::list_files(&corpus)
        .into_iter()
        .filter(|f| is_database(f))
        .collect();
    let mut failures = Vec::new();
    for listed in ENCRYPTED.iter().chain(DAMAGED) {
        if !files.iter().any(|f| f == listed) {
            failures.push(format!(
                "{listed}: listed in the test but not in the corpus"
            ));
        }
    }
    let (mut ok_files, mut tables, mut rows, mut refused, mut damaged_err) = (0, 0, 0u64, 0, 0);
    for rel in &files {
        let path = corpus.join(rel);
        if is_encrypted(rel) {
            match no_panic(rel, || Database::open(&path, OpenOptions::default())) {
                Ok(Err(e)) => {
                    refused += 1;
                    println!("refused (encrypted) {rel}: {e}");
                }
                Ok(Ok(_)) => failures.push(format!(
                    "{rel}: encrypted, but Database::open returned Ok (expected Err)"
                )),
                Err(p) => failures.push(p),
            }
            continue;
        }
        match no_panic(rel, || read_whole_file(&path)) {
            Ok(Ok(s)) => {
                ok_files += 1;
                tables += s.tables;
                rows += s.rows;
            }
            Ok(Err(e)) if is_damaged(rel) => {
                damaged_err += 1;
                println!("damaged file {rel} failed cleanly: {e}");
            }
            Ok(Err(e)) => failures.push(format!("{rel}: {e}")),
            Err(p) => failures.push(p),
        }
    }
    println!(
        "corpus: {} database files; {ok_files} read completely ({tables} user tables, {rows} \
         rows); {refused} encrypted files refused; {damaged_err} damaged files failed with a \
         typed error",
        files.len()
    );
    fail_with(&failures, "corpus files failed");
}

// ---------------------------------------------------------------------------
// (b) table names and row counts
// ---------------------------------------------------------------------------

/// One database of the oracle: its digest files.
struct OracleDb {
    rel: String,
    plain: Vec<OracleTable>,
    iso: Vec<OracleTable>,
}

fn load_oracle(oracle: &Path) -> Result<Vec<OracleDb>, Vec<String>> {
    let mut out = Vec::new();
    let mut errs = Vec::new();
    for rel in oracle_databases(oracle) {
        let plain = read_oracle_tsv(&oracle.join(format!("{rel}.tsv")));
        let iso = read_oracle_tsv(&oracle.join(format!("{rel}.iso.tsv")));
        match (plain, iso) {
            (Ok(plain), Ok(iso)) => {
                let names = |v: &[OracleTable]| -> Vec<(String, u64)> {
                    v.iter().map(|t| (t.name.clone(), t.rows)).collect()
                };
                if names(&plain) != names(&iso) {
                    errs.push(format!(
                        "{rel}: oracle .tsv and .iso.tsv list different tables or row counts"
                    ));
                }
                out.push(OracleDb { rel, plain, iso });
            }
            (Err(e), _) | (_, Err(e)) => errs.push(e),
        }
    }
    if out.is_empty() && errs.is_empty() {
        errs.push(format!("no digest files found in {}", oracle.display()));
    }
    if errs.is_empty() { Ok(out) } else { Err(errs) }
}

/// For every database of the oracle: our user tables are the tables
/// mdbtools lists, with the same row counts.
#[test]
fn row_counts_and_table_names_match_mdbtools() {
    let Some(corpus) = corpus() else { return };
    let Some(oracle) = oracle() else { return };
    let dbs = match load_oracle(&oracle) {
        Ok(d) => d,
        Err(e) => return fail_with(&e, "oracle problems"),
    };
    let mut failures = Vec::new();
    let (mut tables, mut rows) = (0, 0u64);
    for odb in &dbs {
        let rel = &odb.rel;
        let res = no_panic(rel, || -> Vec<String> {
            let mut f = Vec::new();
            let db = match Database::open(corpus.join(rel), OpenOptions::default()) {
                Ok(db) => db,
                Err(e) => return vec![format!("{rel}: open: {e}")],
            };
            let ours: BTreeSet<String> = db.table_names().into_iter().collect();
            let theirs: BTreeSet<String> = odb.plain.iter().map(|t| t.name.clone()).collect();
            for t in ours.difference(&theirs) {
                f.push(format!(
                    "{rel}: table {t:?} is ours only (mdbtools does not list it)"
                ));
            }
            for t in theirs.difference(&ours) {
                f.push(format!("{rel}: table {t:?} is listed by mdbtools only"));
            }
            for ot in &odb.plain {
                let got = db
                    .table(&ot.name)
                    .map_err(|e| e.to_string())
                    .and_then(|t| scan_all(&t).map(|(_, n)| n));
                match got {
                    Ok(n) if n == ot.rows => {
                        tables += 1;
                        rows += n;
                    }
                    Ok(n) => f.push(format!(
                        "{rel}: table {:?}: {n} rows, mdbtools exported {}",
                        ot.name, ot.rows
                    )),
                    Err(e) => f.push(format!("{rel}: table {:?}: {e}", ot.name)),
                }
            }
            f
        });
        match res {
            Ok(f) => failures.extend(f),
            Err(p) => failures.push(p),
        }
    }
    println!(
        "row counts: {} databases, {tables} tables with equal row counts ({rows} rows)",
        dbs.len()
    );
    fail_with(
        &failures,
        "table-list or row-count differences from mdbtools",
    );
}

// ---------------------------------------------------------------------------
// (c) values
// ---------------------------------------------------------------------------

/// One column as compared.
struct Col {
    name: String,
    kind: Kind,
    known: Option<usize>,
}

/// Counters of the value comparison.
#[derive(Default)]
struct Tally {
    tables: usize,
    rows: u64,
    /// Values compared in unlisted columns, by kind.
    values: BTreeMap<&'static str, u64>,
    /// Values compared in listed (known-disagreement) columns.
    known_values: u64,
    /// Per entry of [`KNOWN_DISAGREEMENTS`]: values that differ as listed.
    known_hits: Vec<u64>,
    /// Tables of the oracle whose values could not be compared (each is a
    /// failure already): their listed disagreements are not "stale".
    not_compared: BTreeSet<(String, String)>,
}

const MAX_MESSAGES_PER_TABLE: usize = 25;

/// Parses an `mdb-export` CSV (header row first). Fields equal to `null`
/// become `None`.
fn parse_csv(bytes: &[u8], null: Option<&str>) -> Result<CsvTable, String> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(bytes);
    let header: Vec<String> = rdr
        .byte_headers()
        .map_err(|e| format!("CSV header: {e}"))?
        .iter()
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    let mut rows = Vec::new();
    for rec in rdr.byte_records() {
        let rec = rec.map_err(|e| format!("CSV: {e}"))?;
        let mut row = Vec::with_capacity(rec.len());
        for f in rec.iter() {
            let s = String::from_utf8(f.to_vec())
                .map_err(|_| format!("CSV row {}: field is not UTF-8: {f:?}", rows.len() + 1))?;
            row.push(if Some(s.as_str()) == null {
                None
            } else {
                Some(s)
            });
        }
        rows.push(row);
    }
    Ok(CsvTable { header, rows })
}

struct CsvTable {
    header: Vec<String>,
    rows: Vec<Vec<Option<String>>>,
}

/// Compares one table. Returns the failures.
fn compare_table(
    rel: &str,
    table_name: &str,
    table: &Table,
    mdb: &CsvTable,
    tally: &mut Tally,
) -> Vec<String> {
    let at = |what: String| format!("{rel} / {table_name}: {what}");
    tally
        .not_compared
        .insert((rel.to_string(), table_name.to_string()));
    let def_cols = &table.def().columns;
    let schema = table.schema();
    let mut cols = Vec::new();
    for (c, field) in def_cols.iter().zip(schema.fields()) {
        match Kind::for_column(c.jet_type, field.data_type()) {
            Ok(kind) => cols.push(Col {
                name: c.name.clone(),
                kind,
                known: known_for(rel, table_name, &c.name),
            }),
            Err(e) => return vec![at(format!("column {:?}: {e}", c.name))],
        }
    }
    // mdbtools' columns, by name, to our positions
    let ours_names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
    let same_names = {
        let mut a = ours_names.clone();
        let mut b: Vec<&str> = mdb.header.iter().map(|s| s.as_str()).collect();
        a.sort();
        b.sort();
        a == b
    };
    if !same_names {
        return vec![at(format!(
            "columns differ: ours {ours_names:?}, mdbtools {:?}",
            mdb.header
        ))];
    }
    if ours_names.iter().zip(&mdb.header).any(|(a, b)| a != b) {
        return vec![at(format!(
            "column order differs: ours {ours_names:?}, mdbtools {:?}",
            mdb.header
        ))];
    }
    let mdb_pos: Vec<usize> = ours_names
        .iter()
        .map(|n| mdb.header.iter().position(|h| h == n).expect("same names"))
        .collect();

    // our rows
    let (batches, _) = match scan_all(table) {
        Ok(b) => b,
        Err(e) => return vec![at(e)],
    };
    let mut ours: Vec<Vec<Cell>> = Vec::new();
    for b in &batches {
        let mut by_col = Vec::with_capacity(cols.len());
        for (i, c) in cols.iter().enumerate() {
            match our_cells(b.column(i).as_ref(), c.kind) {
                Ok(v) => by_col.push(v),
                Err(e) => return vec![at(format!("column {:?}: {e}", c.name))],
            }
        }
        for r in 0..b.num_rows() {
            ours.push(by_col.iter().map(|v| v[r].clone()).collect());
        }
    }
    // mdbtools' rows, in our column order
    let theirs: Vec<Vec<Cell>> = mdb
        .rows
        .iter()
        .map(|row| {
            cols.iter()
                .zip(&mdb_pos)
                .map(|(c, &p)| mdb_cell(row[p].as_deref(), c.kind))
                .collect()
        })
        .collect();

    let mut msgs = Vec::new();
    if ours.len() != theirs.len() {
        msgs.push(at(format!(
            "{} rows, mdbtools exported {}",
            ours.len(),
            theirs.len()
        )));
    }

    // Pair rows: equal on every exactly-compared, unlisted column, and close
    // on every float column. Listed (known) columns are compared after.
    let exact: Vec<usize> = (0..cols.len())
        .filter(|&i| cols[i].known.is_none() && !cols[i].kind.is_float())
        .collect();
    let floats: Vec<usize> = (0..cols.len())
        .filter(|&i| cols[i].known.is_none() && cols[i].kind.is_float())
        .collect();
    let sig = |row: &[Cell]| -> String {
        exact
            .iter()
            .map(|&i| row[i].key())
            .collect::<Vec<_>>()
            .join("\u{1f}")
    };
    let mut groups: HashMap<String, Vec<usize>> = HashMap::new();
    for (j, row) in theirs.iter().enumerate() {
        groups.entry(sig(row)).or_default().push(j);
    }
    let mut pairs = Vec::new();
    let mut lone_ours = Vec::new();
    for (i, row) in ours.iter().enumerate() {
        let cands = groups.get_mut(&sig(row));
        let found = cands.and_then(|c| {
            let p = c.iter().position(|&j| {
                floats
                    .iter()
                    .all(|&k| row[k].equals(&theirs[j][k], cols[k].kind))
            })?;
            Some(c.remove(p))
        });
        match found {
            Some(j) => pairs.push((i, j)),
            None => lone_ours.push(i),
        }
    }
    let mut lone_theirs: Vec<usize> = groups.into_values().flatten().collect();
    lone_theirs.sort_unstable();

    // A key column to name rows by: the first exactly-compared column whose
    // values are distinct and non-null on both sides.
    let key_col = exact.iter().copied().find(|&k| {
        let distinct = |rows: &[Vec<Cell>]| {
            let mut seen = BTreeSet::new();
            rows.iter()
                .all(|r| r[k] != Cell::Null && seen.insert(r[k].key()))
        };
        distinct(&ours) && distinct(&theirs)
    });
    let row_name = |row: &[Cell], fallback: String| -> String {
        match key_col {
            Some(k) => format!("{}={}", cols[k].name, row[k]),
            None => fallback,
        }
    };

    // Rows that did not pair: pair them by key (or by sorted position) to
    // say which column differs.
    let mut diff_pairs: Vec<(usize, usize, String)> = Vec::new();
    if let Some(k) = key_col {
        let mut by_key: BTreeMap<String, usize> = lone_theirs
            .iter()
            .map(|&j| (theirs[j][k].key(), j))
            .collect();
        for &i in &lone_ours {
            match by_key.remove(&ours[i][k].key()) {
                Some(j) => diff_pairs.push((i, j, row_name(&ours[i], String::new()))),
                None => msgs.push(at(format!(
                    "row {} only in ours: {}",
                    row_name(&ours[i], String::new()),
                    fmt_row(&cols, &ours[i])
                ))),
            }
        }
        for j in by_key.into_values() {
            msgs.push(at(format!(
                "row {} only in mdbtools: {}",
                row_name(&theirs[j], String::new()),
                fmt_row(&cols, &theirs[j])
            )));
        }
    } else {
        let order = |rows: &[Vec<Cell>], idx: &mut Vec<usize>| {
            idx.sort_by_cached_key(|&i| rows[i].iter().map(Cell::key).collect::<Vec<_>>());
        };
        let mut lo = lone_ours.clone();
        let mut lt = lone_theirs.clone();
        order(&ours, &mut lo);
        order(&theirs, &mut lt);
        for (n, (&i, &j)) in lo.iter().zip(&lt).enumerate() {
            diff_pairs.push((
                i,
                j,
                format!(
                    "#{} of the unmatched rows in sorted order (ours {})",
                    n + 1,
                    fmt_row(&cols, &ours[i])
                ),
            ));
        }
        for &i in lo.iter().skip(lt.len()) {
            msgs.push(at(format!(
                "row only in ours: {}",
                fmt_row(&cols, &ours[i])
            )));
        }
        for &j in lt.iter().skip(lo.len()) {
            msgs.push(at(format!(
                "row only in mdbtools: {}",
                fmt_row(&cols, &theirs[j])
            )));
        }
    }

    // Compare paired rows column by column.
    let mut check = |i: usize, j: usize, name: &str, msgs: &mut Vec<String>| {
        for (k, c) in cols.iter().enumerate() {
            let (a, b) = (&ours[i][k], &theirs[j][k]);
            let equal = a.equals(b, c.kind);
            match c.known {
                Some(kn) => {
                    tally.known_values += 1;
                    if !equal {
                        if KNOWN_DISAGREEMENTS[kn].expect.accepts(a, b) {
                            tally.known_hits[kn] += 1;
                        } else {
                            msgs.push(at(format!(
                                "column {:?}: row {name}: ours {a}, mdbtools {b} (a listed \
                                 disagreement, but not of the listed kind {:?})",
                                c.name, KNOWN_DISAGREEMENTS[kn].expect
                            )));
                        }
                    }
                }
                None => {
                    *tally.values.entry(c.kind.name()).or_default() += 1;
                    if !equal {
                        msgs.push(at(format!(
                            "column {:?}: row {name}: ours {a}, mdbtools {b}{}",
                            c.name,
                            first_difference(a, b)
                        )));
                    }
                }
            }
        }
    };
    for &(i, j) in &pairs {
        let name = row_name(&ours[i], format!("({})", fmt_row(&cols, &ours[i])));
        check(i, j, &name, &mut msgs);
    }
    for (i, j, name) in &diff_pairs {
        check(*i, *j, name, &mut msgs);
    }
    tally.tables += 1;
    tally.rows += ours.len() as u64;
    tally
        .not_compared
        .remove(&(rel.to_string(), table_name.to_string()));
    if msgs.len() > MAX_MESSAGES_PER_TABLE {
        let more = msgs.len() - MAX_MESSAGES_PER_TABLE;
        msgs.truncate(MAX_MESSAGES_PER_TABLE);
        msgs.push(at(format!("… and {more} more differences")));
    }
    msgs
}

/// For two long texts, where they first differ (the messages shorten long
/// values, which may hide the difference).
fn first_difference(a: &Cell, b: &Cell) -> String {
    let (Cell::Exact(a), Cell::Exact(b)) = (a, b) else {
        return String::new();
    };
    if a.chars().count().max(b.chars().count()) <= 120 {
        return String::new();
    }
    let i = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let around = |s: &str| -> String { s.chars().skip(i.saturating_sub(8)).take(40).collect() };
    format!(
        "; first difference at character {i} (lengths {} and {}): ours …{:?}…, mdbtools …{:?}…",
        a.chars().count(),
        b.chars().count(),
        around(a),
        around(b)
    )
}

fn fmt_row(cols: &[Col], row: &[Cell]) -> String {
    let parts: Vec<String> = cols
        .iter()
        .zip(row)
        .take(6)
        .map(|(c, v)| format!("{}={v}", c.name))
        .collect();
    let more = if cols.len() > 6 { ", …" } else { "" };
    format!("[{}{more}]", parts.join(", "))
}

/// Runs the two exports of table `t` the oracle has digests of (no options,
/// and [`ISO_ARGS`]), checks both digests and returns the ISO export parsed:
/// the very bytes the oracle describes.
fn export_checked(
    mdb_export: &Path,
    version: &str,
    rel: &str,
    path: &Path,
    plain: &OracleTable,
    iso: &OracleTable,
) -> Result<CsvTable, String> {
    let t = iso.name.as_str();
    let mut iso_out = None;
    for (args, want, which) in [(&[][..], plain, "tsv"), (ISO_ARGS, iso, "iso.tsv")] {
        let out = run_mdb_export(mdb_export, args, path, t)?;
        let got = sha256_hex(&out.stdout);
        if got != want.sha256 {
            return Err(format!(
                "the installed mdbtools ({version}) is not the oracle's: `{}` has SHA-256 \
                 {got}, oracle {rel}.{which} says {}",
                out.command, want.sha256
            ));
        }
        iso_out = Some(out);
    }
    let iso_out = iso_out.expect("the ISO export ran");
    // mdb-export writes NULL, and every zero-length value, as an empty field
    let a = parse_csv(&iso_out.stdout, Some(""))?;
    if a.rows.len() as u64 != iso.rows {
        return Err(format!(
            "`{}` wrote {} rows, the oracle says {}",
            iso_out.command,
            a.rows.len(),
            iso.rows
        ));
    }
    Ok(a)
}

/// For every table of the oracle: the live `mdb-export` output is the
/// oracle's (SHA-256), and its values equal ours after normalisation, except
/// for the listed known disagreements, each of which must occur.
#[test]
fn values_match_mdbtools() {
    let Some(corpus) = corpus() else { return };
    let Some(oracle) = oracle() else { return };
    let Some((mdb_export, version)) = require_mdb_export() else {
        return;
    };
    let dbs = match load_oracle(&oracle) {
        Ok(d) => d,
        Err(e) => return fail_with(&e, "oracle problems"),
    };
    let mut failures = Vec::new();
    let mut tally = Tally {
        known_hits: vec![0; KNOWN_DISAGREEMENTS.len()],
        ..Tally::default()
    };
    for odb in &dbs {
        let rel = odb.rel.as_str();
        let path = corpus.join(rel);
        let db = match no_panic(rel, || Database::open(&path, OpenOptions::default())) {
            Ok(Ok(db)) => Some(db),
            Ok(Err(e)) => {
                failures.push(format!("{rel}: open: {e}"));
                None
            }
            Err(p) => {
                failures.push(p);
                None
            }
        };
        for (plain, iso) in odb.plain.iter().zip(&odb.iso) {
            let t = iso.name.as_str();
            let key = (rel.to_string(), t.to_string());
            let Some(db) = &db else {
                tally.not_compared.insert(key);
                continue;
            };
            let mdb = match export_checked(&mdb_export, &version, rel, &path, plain, iso) {
                Ok(m) => m,
                Err(e) => {
                    failures.push(format!("{rel} / {t}: {e}"));
                    tally.not_compared.insert(key);
                    continue;
                }
            };
            let table = match db.table(t) {
                Ok(table) => table,
                Err(e) => {
                    failures.push(format!("{rel} / {t}: {e}"));
                    tally.not_compared.insert(key);
                    continue;
                }
            };
            match no_panic(&format!("{rel} / {t}"), || {
                compare_table(rel, t, &table, &mdb, &mut tally)
            }) {
                Ok(msgs) => failures.extend(msgs),
                Err(p) => {
                    failures.push(p);
                    tally.not_compared.insert(key);
                }
            }
        }
    }
    println!("known disagreements with mdbtools (values differing as listed):");
    for (k, hits) in KNOWN_DISAGREEMENTS.iter().zip(&tally.known_hits) {
        println!(
            "  {:4}  {} / {} / {} ({:?})\n        {}",
            hits, k.file, k.table, k.column, k.expect, k.reason
        );
        let table_known = dbs
            .iter()
            .any(|d| d.rel == k.file && d.iso.iter().any(|t| t.name == k.table));
        if !table_known {
            failures.push(format!(
                "known disagreement {} / {} / {}: the oracle has no such table",
                k.file, k.table, k.column
            ));
        } else if *hits == 0
            && !tally
                .not_compared
                .contains(&(k.file.to_string(), k.table.to_string()))
        {
            failures.push(format!(
                "{} / {}: column {:?} is listed as a known disagreement ({:?}) but no value \
                 differs from mdbtools now: remove it from KNOWN_DISAGREEMENTS",
                k.file, k.table, k.column, k.expect
            ));
        }
    }
    let per_kind: Vec<String> = tally
        .values
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    println!(
        "values: {} databases, {} tables, {} rows; {} values compared in unlisted columns \
         ({}); {} values in the {} listed columns, {} of them differing as listed",
        dbs.len(),
        tally.tables,
        tally.rows,
        tally.values.values().sum::<u64>(),
        per_kind.join(", "),
        tally.known_values,
        KNOWN_DISAGREEMENTS.len(),
        tally.known_hits.iter().sum::<u64>()
    );
    fail_with(&failures, "differences from mdbtools");
}
