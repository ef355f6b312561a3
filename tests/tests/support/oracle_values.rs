//! When a value jetsql reads agrees with what mdb-reader (`dump.mjs`) or
//! mdbtools (`mdb-export` with ISO dates and `-b hex`) prints for it. The
//! rules are stated in `oracle_mdb_reader.rs`'s module docs.

use jet_tests::mdb_reader::ReaderTable;
use std::collections::BTreeMap;

/// A value jetsql read, typed by its Arrow type.
#[derive(Debug, Clone, PartialEq)]
pub enum Ours {
    /// NULL.
    Null,
    /// Yes/No.
    Bool(bool),
    /// Byte, Integer, Long, BigInt (and complex-column ids).
    Int(i128),
    /// Single.
    F32(f32),
    /// Double.
    F64(f64),
    /// Currency or Decimal: unscaled value and scale.
    Dec(i128, i8),
    /// Date/Time as µs since 1970 (zone-less).
    Micros(i64),
    /// Extended Date/Time as µs since 1970 (zone-less).
    ExtMicros(i64),
    /// Text or Memo.
    Text(String),
    /// GUID in `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}` form.
    Guid(String),
    /// Binary, OLE, unknown types.
    Bytes(Vec<u8>),
    /// A type neither oracle prints comparably (its Arrow type).
    Other(String),
}

/// Whether `ours` equals mdb-reader's normalized text `theirs` (`None` for
/// NULL) of a column mdb-reader types `rtype`.
pub fn agrees_reader(ours: &Ours, theirs: Option<&str>, rtype: &str) -> bool {
    let Some(s) = theirs else {
        return *ours == Ours::Null;
    };
    match ours {
        Ours::Null => false,
        Ours::Bool(b) => s == if *b { "true" } else { "false" },
        Ours::Int(v) => s.parse::<i128>().is_ok_and(|t| t == *v),
        Ours::F32(v) => float_eq(f64::from(*v), s, 0.0),
        Ours::F64(v) => float_eq(*v, s, 0.0),
        Ours::Dec(v, scale) => canon_decimal(s).is_some_and(|t| t == scaled(*v, *scale)),
        Ours::Micros(us) => iso_millis(s).is_some_and(|ms| (ms - round_div(*us, 1000)).abs() <= 1),
        // "YYYY.MM.DD HH:MM:SS.nnnnnnnnn", compared to the microsecond
        Ours::ExtMicros(us) => {
            let (date, time) = civil(*us);
            let want = format!("{} {time}", date.replace('-', "."));
            s.len() == 29 && s.get(..26) == Some(want.as_str())
        }
        Ours::Text(t) => s == t,
        Ours::Guid(g) => rtype == "repid" && hexdigits(s) == hexdigits(g),
        Ours::Bytes(b) => s.eq_ignore_ascii_case(&hex(b)),
        Ours::Other(_) => false,
    }
}

/// Whether `ours` equals mdbtools' field `theirs` (`None` for NULL or an
/// empty field).
pub fn agrees_mdbtools(ours: &Ours, theirs: Option<&str>) -> bool {
    let Some(s) = theirs else {
        return *ours == Ours::Null;
    };
    match ours {
        Ours::Null => false,
        Ours::Bool(b) => s == if *b { "1" } else { "0" },
        Ours::Int(v) => s.parse::<i128>().is_ok_and(|t| t == *v),
        Ours::F32(v) => float_eq(f64::from(*v), s, 1e-7),
        Ours::F64(v) => float_eq(*v, s, 1e-13),
        Ours::Dec(v, scale) => canon_decimal(s).is_some_and(|t| t == scaled(*v, *scale)),
        Ours::Micros(us) | Ours::ExtMicros(us) => {
            let (d, t) = civil(round_div(*us, 1_000_000) * 1_000_000);
            s == format!("{d} {}", &t[..8])
        }
        Ours::Text(t) => s == t,
        Ours::Guid(g) => unhex(s)
            .and_then(|b| String::from_utf8(b).ok())
            .is_some_and(|t| hexdigits(&t) == hexdigits(g)),
        Ours::Bytes(b) => s.eq_ignore_ascii_case(&hex(b)),
        Ours::Other(_) => false,
    }
}

/// The known classes of disagreement with both oracles
/// (`tests/oracle-js/KNOWN_DISAGREEMENTS.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// A calculated column: both oracles decode the stored header.
    Calculated,
    /// Windows-1252's five undefined bytes: U+FFFD in mdb-reader, `?` in
    /// mdbtools, the code point U+0081 … U+009D in jetsql.
    Cp1252Undefined,
    /// A date before 1899-12-30 with a time of day: mdb-reader converts
    /// the double linearly, mdbtools prints `1900-01-00 00:00:00`.
    Pre1899Time,
}

impl Class {
    /// The class's name in `KNOWN_DISAGREEMENTS.md`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Calculated => "calculated",
            Class::Cp1252Undefined => "cp1252-undefined",
            Class::Pre1899Time => "pre-1899-time",
        }
    }

    /// Whether a value where jetsql (`ours`) differs from mdb-reader (`r`)
    /// and mdbtools (`m`) has this class's shape; `calculated` is whether
    /// jetsql's TDEF reader marks the column calculated.
    pub fn accepts(self, ours: &Ours, r: Option<&str>, m: Option<&str>, calculated: bool) -> bool {
        match self {
            Class::Calculated => calculated,
            Class::Cp1252Undefined => {
                let Ours::Text(t) = ours else { return false };
                let undefined = |c: char| matches!(u32::from(c), 0x81 | 0x8D | 0x8F | 0x90 | 0x9D);
                let sub = |with: char| -> String {
                    t.chars()
                        .map(|c| if undefined(c) { with } else { c })
                        .collect()
                };
                t.chars().any(undefined)
                    && r == Some(sub('\u{FFFD}').as_str())
                    && m == Some(sub('?').as_str())
            }
            Class::Pre1899Time => {
                let Ours::Micros(us) = ours else { return false };
                let epoch_us = -25_569 * 86_400_000_000i64;
                let tod_ms = us.rem_euclid(86_400_000_000) / 1000;
                *us < epoch_us
                    && tod_ms != 0
                    && m == Some("1900-01-00 00:00:00")
                    && r.and_then(iso_millis)
                        .is_some_and(|ms| (ms - (round_div(*us, 1000) - 2 * tod_ms)).abs() <= 1)
            }
        }
    }
}

/// `a` against the number printed as `s`, exactly when `rel_tol` is 0.
fn float_eq(a: f64, s: &str, rel_tol: f64) -> bool {
    let Ok(b) = s.parse::<f64>() else {
        return false;
    };
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= rel_tol * a.abs().max(b.abs())
}

/// `a / b` rounded half away from zero (`b > 0`).
fn round_div(a: i64, b: i64) -> i64 {
    let q = a.div_euclid(b);
    let r = a.rem_euclid(b);
    if 2 * r >= b { q + 1 } else { q }
}

/// The lower-case hex digits of `s`, nothing else.
fn hexdigits(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_hexdigit)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
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

/// Canonical decimal text: no leading zeros in the integer part, no
/// trailing zeros in the fraction, no `-0`.
fn canon_decimal(s: &str) -> Option<String> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let frac = frac.trim_end_matches('0');
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

/// `v / 10^scale` as canonical decimal text.
fn scaled(v: i128, scale: i8) -> String {
    let digits = v.unsigned_abs().to_string();
    let text = if scale > 0 {
        let s = usize::try_from(scale).unwrap_or(0);
        let d = format!("{digits:0>width$}", width = s + 1);
        let (i, f) = d.split_at(d.len() - s);
        format!("{i}.{f}")
    } else {
        format!("{digits}{}", "0".repeat(usize::from(scale.unsigned_abs())))
    };
    let text = if v < 0 { format!("-{text}") } else { text };
    canon_decimal(&text).unwrap_or(text)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (`YYYY-MM-DD`, `HH:MM:SS.ffffff`) of µs since 1970.
fn civil(us: i64) -> (String, String) {
    let days = us.div_euclid(86_400_000_000);
    let t = us.rem_euclid(86_400_000_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let secs = t / 1_000_000;
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!(
            "{:02}:{:02}:{:02}.{:06}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            t % 1_000_000
        ),
    )
}

/// Milliseconds since 1970 of JavaScript's `toISOString()` text
/// (`YYYY-MM-DDTHH:MM:SS.mmmZ`, years outside 0..=9999 as `±YYYYYY`).
fn iso_millis(s: &str) -> Option<i64> {
    let (date, time) = s.strip_suffix('Z')?.split_once('T')?;
    let (sign, date) = match date.as_bytes().first()? {
        b'+' => (1, date.get(1..)?),
        b'-' => (-1, date.get(1..)?),
        _ => (1, date),
    };
    let mut dp = date.split('-');
    let y: i64 = dp.next()?.parse().ok()?;
    let m: i64 = dp.next()?.parse().ok()?;
    let d: i64 = dp.next()?.parse().ok()?;
    let (hms, ms) = time.split_once('.')?;
    let mut tp = hms.split(':');
    let h: i64 = tp.next()?.parse().ok()?;
    let mi: i64 = tp.next()?.parse().ok()?;
    let se: i64 = tp.next()?.parse().ok()?;
    let ms: i64 = ms.parse().ok()?;
    let days = days_from_civil(sign * y, m, d);
    Some(((days * 24 + h) * 60 + mi) * 60_000 + se * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_and_civil_agree() {
        assert_eq!(iso_millis("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(
            iso_millis("1899-12-30T00:00:00.000Z"),
            Some(-25_569 * 86_400_000)
        );
        let us = -25_569 * 86_400_000_000 + 3_723_000_001;
        assert_eq!(civil(us), ("1899-12-30".into(), "01:02:03.000001".into()));
        assert_eq!(
            iso_millis("-000001-01-01T00:00:00.000Z").map(|m| m < 0),
            Some(true)
        );
        assert_eq!(scaled(-5, 4), "-0.0005");
        assert_eq!(scaled(140_000, 4), "14");
        assert_eq!(canon_decimal("14.0000").as_deref(), Some("14"));
    }
}

// ---------------------------------------------------------------------------
// Shared by oracle_mdb_reader.rs and sql-cli's migration tests
// ---------------------------------------------------------------------------

/// A column where jetsql differs from both oracles and both are wrong.
pub struct Known {
    /// The file, relative to the corpus.
    pub file: &'static str,
    /// The table.
    pub table: &'static str,
    /// The column.
    pub column: &'static str,
    /// The class in `tests/oracle-js/KNOWN_DISAGREEMENTS.md`; every
    /// differing value must have its shape ([`Class::accepts`]).
    pub class: Class,
}

/// A [`Known`] entry.
pub const fn known(
    file: &'static str,
    table: &'static str,
    column: &'static str,
    class: Class,
) -> Known {
    Known {
        file,
        table,
        column,
        class,
    }
}

/// The corpus file with calculated columns of every type.
pub const CALC: &str = "jackcess/V2010/calcFieldTestV2010.accdb";
/// The corpus file of text index codes (Jet3).
pub const CODES: &str = "jackcess/V1997/testIndexCodesV1997.mdb";
/// The corpus file of extended date/time columns.
pub const EXT: &str = "jackcess/V2019/extDateTestV2019.accdb";

/// Every accepted disagreement with both oracles (see the module docs).
pub const KNOWN: &[Known] = &[
    known(CALC, "Table1", "AllNames", Class::Calculated),
    known(CALC, "Table1", "BigNumTest", Class::Calculated),
    known(CALC, "Table1", "BoolTest", Class::Calculated),
    known(CALC, "Table1", "DecimalTest", Class::Calculated),
    known(CALC, "Table1", "FloatTest", Class::Calculated),
    known(CALC, "Table1", "IsRich", Class::Calculated),
    known(CALC, "Table1", "LastFirst", Class::Calculated),
    known(CALC, "Table1", "LastFirstLen", Class::Calculated),
    known(CALC, "Table1", "MonthlySalary", Class::Calculated),
    known(CALC, "Table1", "SalaryTest", Class::Calculated),
    known(CALC, "Table1", "WeeklySalary", Class::Calculated),
    known(EXT, "Table1", "DateNormalCalc", Class::Calculated),
    known(
        "ucanaccess/alterTable.accdb",
        "Tabella1",
        "eee",
        Class::Calculated,
    ),
    known(
        "ucanaccess/badDb.accdb",
        "Tabella1",
        "eee",
        Class::Calculated,
    ),
    known(
        "ucanaccess/calculatedField.accdb",
        "products",
        "%markup",
        Class::Calculated,
    ),
    known(CODES, "Table1", "data", Class::Cp1252Undefined),
    known(CODES, "Table1_desc", "data", Class::Cp1252Undefined),
    known(CODES, "Table14", "data", Class::Cp1252Undefined),
    known(CODES, "Table14_desc", "data", Class::Cp1252Undefined),
    known(CODES, "Table6", "data", Class::Pre1899Time),
    known(CODES, "Table6_desc", "data", Class::Pre1899Time),
    known(EXT, "Table1", "DateNormal", Class::Pre1899Time),
];

/// mdb-export's CSV: header and rows; an empty field is NULL (mdb-export
/// prints zero-length values as NULL).
pub struct Csv {
    /// Column names.
    pub header: Vec<String>,
    /// Rows; `None` for an empty field.
    pub rows: Vec<Vec<Option<String>>>,
}

/// Parses `mdb-export` CSV output (header line first).
pub fn parse_csv(bytes: &[u8]) -> Result<Csv, String> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(bytes);
    let header = r
        .headers()
        .map_err(|e| format!("CSV header: {e}"))?
        .iter()
        .map(str::to_string)
        .collect();
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| format!("CSV: {e}"))?;
        rows.push(
            rec.iter()
                .map(|f| (!f.is_empty()).then(|| f.to_string()))
                .collect(),
        );
    }
    Ok(Csv { header, rows })
}

/// For each of our `n` rows, the oracle row it is compared with: the same
/// position when `score(i, i)` (the number of agreeing columns) is `full`,
/// otherwise the unused oracle row with the highest score (the first with
/// `full`). A bijection on `0..n`.
pub fn align(n: usize, score: impl Fn(usize, usize) -> usize, full: usize) -> Vec<usize> {
    let mut used = vec![false; n];
    let mut out = vec![usize::MAX; n];
    let mut pending = Vec::new();
    for (i, o) in out.iter_mut().enumerate() {
        if score(i, i) == full {
            *o = i;
            used[i] = true;
        } else {
            pending.push(i);
        }
    }
    for i in pending {
        let mut best: Option<(usize, usize)> = None;
        for j in (0..n).filter(|&j| !used[j]) {
            let s = score(i, j);
            if best.is_none_or(|(b, _)| s > b) {
                best = Some((s, j));
                if s == full {
                    break;
                }
            }
        }
        if let Some((_, j)) = best {
            out[i] = j;
            used[j] = true;
        }
    }
    out
}

/// Counters, printed at the end.
#[derive(Default, Debug)]
pub struct Tally {
    pub files: usize,
    pub tables: usize,
    pub values: u64,
    pub agree_all: u64,
    pub reader_only: u64,
    pub mdbtools_only: u64,
    pub known: BTreeMap<&'static str, u64>,
    /// Per (file, table, column): disagreements with mdb-reader only.
    pub reader_differs: BTreeMap<String, u64>,
    /// Per (file, table, column): disagreements with mdbtools only.
    pub mdbtools_differs: BTreeMap<String, u64>,
}

/// Where one table's comparison reports.
pub struct Ctx<'a> {
    pub rel: &'a str,
    pub table: &'a str,
    pub known_hits: &'a mut [u64],
    pub tally: &'a mut Tally,
    pub failures: &'a mut Vec<String>,
}

/// Compares a table's values (`cols[c][r]`: column `c` named `names[c]`,
/// row `r`, typed) with both oracles' output for it: counts agreements in
/// `cx.tally`; a value differing from both is a failure unless its column
/// is listed in [`KNOWN`] and the value has its class's shape.
pub fn compare_columns(
    names: &[String],
    calculated: &[bool],
    cols: &[Vec<Ours>],
    rt: &ReaderTable,
    mdb: &Csv,
    cx: Ctx<'_>,
) {
    let Ctx {
        rel,
        table,
        known_hits,
        tally,
        failures,
    } = cx;
    let rows = cols.first().map_or(0, Vec::len);
    if rt.rows.len() != rows || mdb.rows.len() != rows {
        failures.push(format!(
            "{rel}: table {table:?}: {rows} rows, mdb-reader {}, mdbtools {}",
            rt.rows.len(),
            mdb.rows.len()
        ));
        return;
    }
    tally.tables += 1;
    // the columns as each oracle orders them
    let mut pos: Vec<(usize, usize, String)> = Vec::new();
    for name in names {
        match (
            rt.columns.iter().position(|(n, _)| n == name),
            mdb.header.iter().position(|n| n == name),
        ) {
            (Some(ri), Some(mi)) => pos.push((ri, mi, rt.columns[ri].1.clone())),
            _ => {
                failures.push(format!(
                    "{rel}: {table:?}.{name:?}: an oracle lacks the column"
                ));
                return;
            }
        }
    }
    // rows are matched, not taken in order: jetsql may walk the data
    // pages of a table in another order than the oracles
    let to_reader = align(
        rows,
        |i, j| {
            (0..cols.len())
                .filter(|&c| {
                    let v = rt.rows[j].get(pos[c].0).cloned().flatten();
                    agrees_reader(&cols[c][i], v.as_deref(), &pos[c].2)
                })
                .count()
        },
        cols.len(),
    );
    let to_mdb = align(
        rows,
        |i, j| {
            (0..cols.len())
                .filter(|&c| {
                    let v = mdb.rows[j].get(pos[c].1).cloned().flatten();
                    agrees_mdbtools(&cols[c][i], v.as_deref())
                })
                .count()
        },
        cols.len(),
    );
    for (c, name) in names.iter().enumerate() {
        let (ri, mi, rtype) = (pos[c].0, pos[c].1, pos[c].2.as_str());
        let key = format!("{rel} {table:?}.{name:?}");
        let known = KNOWN
            .iter()
            .position(|k| k.file == rel && k.table == table && k.column == name);
        let mut shown = 0;
        for (r, ours) in cols[c].iter().enumerate() {
            let rv = rt.rows[to_reader[r]].get(ri).cloned().flatten();
            let mv = mdb.rows[to_mdb[r]].get(mi).cloned().flatten();
            let a_r = agrees_reader(ours, rv.as_deref(), rtype);
            let a_m = agrees_mdbtools(ours, mv.as_deref());
            tally.values += 1;
            match (a_r, a_m) {
                (true, true) => tally.agree_all += 1,
                (true, false) => {
                    tally.reader_only += 1;
                    *tally.mdbtools_differs.entry(key.clone()).or_default() += 1;
                }
                (false, true) => {
                    tally.mdbtools_only += 1;
                    *tally.reader_differs.entry(key.clone()).or_default() += 1;
                }
                (false, false) => {
                    if let Some(k) = known.filter(|&k| {
                        KNOWN[k]
                            .class
                            .accepts(ours, rv.as_deref(), mv.as_deref(), calculated[c])
                    }) {
                        known_hits[k] += 1;
                        *tally.known.entry(KNOWN[k].class.name()).or_default() += 1;
                    } else if shown < 5 {
                        shown += 1;
                        failures.push(format!(
                            "{key} row {}: ours {ours:?}, mdb-reader ({rtype}) {rv:?}, \
                             mdbtools {mv:?}",
                            r + 1
                        ));
                    }
                }
            }
        }
    }
}
