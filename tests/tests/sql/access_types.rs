//! Access's operators over every pair of Access scalar types (issue 45):
//! the result type and value of `+ - * / \ Mod ^ &`, `And Or Xor Eqv Imp`,
//! the six comparisons and `Not`, for a sample of each of Byte, Integer,
//! Long, Single, Double, Currency, Decimal, Date/Time, Text, Yes/No and
//! Null. Every table names the Microsoft page its rules come from; the
//! same tables, with the rules quoted, are `docs/access-operators.md`.
//! Then overflow, type mismatch, Currency's rounding, decimal literals,
//! and property tests comparing `+ - * / \ Mod` on random operands of
//! every numeric type with a model written here (IEEE arithmetic for
//! Single and Double, i128 for the whole numbers, Currency and Decimal).
//!
//! Expected values are the pages' rules computed here, never answers
//! recorded from jetsql. The tests over Northwind read the corpus
//! (`mdbtools/nwind.mdb`) and are skipped without it.

use super::access_support::{nwind, session};
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::ScalarValue;
use jet_provider::{JetSession, SqlDialect};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cmp::Ordering;

/// Microsoft's VBA language reference, whose operator pages Access's
/// expression service follows.
const VBA: &str = "https://learn.microsoft.com/office/vba/language/reference/user-interface-help/";

/// The type and value of every column of the first row `sql` answers.
async fn row(s: &JetSession, sql: &str) -> Result<Vec<(DataType, ScalarValue)>, String> {
    let batches = s.sql(sql).await.map_err(|e| e.to_string())?;
    let b = batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .ok_or_else(|| "no row".to_string())?;
    (0..b.num_columns())
        .map(|i| {
            let v = ScalarValue::try_from_array(b.column(i), 0).map_err(|e| e.to_string())?;
            Ok((b.schema().field(i).data_type().clone(), v))
        })
        .collect()
}

/// `n / d` (d > 0) rounded half to even.
fn round_half_even(n: i128, d: i128) -> i128 {
    let (q, r) = (n.div_euclid(d), n.rem_euclid(d));
    if 2 * r > d || (2 * r == d && q % 2 != 0) {
        q + 1
    } else {
        q
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

/// `n / d` at `s` decimal places, rounded half to even (`None` beyond
/// i128).
fn at_scale(n: i128, d: i128, s: i8) -> Option<i128> {
    let (n, d) = if d < 0 { (-n, -d) } else { (n, d) };
    let p = 10i128.checked_pow(u32::try_from(s).ok()?)?;
    let g = gcd(p, d);
    Some(round_half_even(n.checked_mul(p / g)?, d / g))
}

/// Engine microseconds of an Access serial date: whole days from
/// 1899-12-30 (25,569 days before 1970-01-01), the fraction the time of
/// day, also before day zero ("Date data type",
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/date-data-type).
fn micros(serial: f64) -> i64 {
    const DAY: i64 = 86_400_000_000;
    let day = serial.trunc();
    let frac = (serial - day).abs();
    (day as i64 - 25_569) * DAY + (frac * DAY as f64).round() as i64
}

/// The Access types of the matrix, in the tables' order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Byte,
    Integer,
    Long,
    Single,
    Double,
    Currency,
    Decimal,
    Date,
    Text,
    YesNo,
    Null,
}

const TYPES: [Ty; 11] = [
    Ty::Byte,
    Ty::Integer,
    Ty::Long,
    Ty::Single,
    Ty::Double,
    Ty::Currency,
    Ty::Decimal,
    Ty::Date,
    Ty::Text,
    Ty::YesNo,
    Ty::Null,
];

impl Ty {
    /// The sample operand of the type. The values keep every cell of the
    /// tables inside its type's range (except where `^` overflows a
    /// Double, which the tables expect), and no rounded sample is zero.
    fn sql(self) -> &'static str {
        match self {
            Ty::Byte => "CByte(12)",
            Ty::Integer => "CInt(7)",
            Ty::Long => "CLng(40000)",
            Ty::Single => "CSng(2.5)",
            Ty::Double => "CDbl(1.25)",
            Ty::Currency => "CCur(1.2345)",
            Ty::Decimal => "CDec(2.75)",
            Ty::Date => "CDate('1/5/1998')",
            Ty::Text => "'8'",
            Ty::YesNo => "True",
            Ty::Null => "Null",
        }
    }

    /// The number the sample stands for, exactly: 1/5/1998 is serial day
    /// 35,800; True is -1 ("Boolean data type": "True becomes -1").
    fn ratio(self) -> Option<(i128, i128)> {
        Some(match self {
            Ty::Byte => (12, 1),
            Ty::Integer => (7, 1),
            Ty::Long => (40_000, 1),
            Ty::Single => (5, 2),
            Ty::Double => (5, 4),
            Ty::Currency => (12_345, 10_000),
            Ty::Decimal => (275, 100),
            Ty::Date => (35_800, 1),
            Ty::Text => (8, 1),
            Ty::YesNo => (-1, 1),
            Ty::Null => return None,
        })
    }

    fn double(self) -> Option<f64> {
        self.ratio().map(|(n, d)| n as f64 / d as f64)
    }

    /// The sample rounded half to even to a whole number, as `\`, `Mod`,
    /// `Not` and the bitwise operators read it.
    fn whole(self) -> Option<i128> {
        self.ratio().map(|(n, d)| round_half_even(n, d))
    }

    /// The sample's text as `&` converts it (`CStr`'s forms).
    fn text(self) -> Option<&'static str> {
        Some(match self {
            Ty::Byte => "12",
            Ty::Integer => "7",
            Ty::Long => "40000",
            Ty::Single => "2.5",
            Ty::Double => "1.25",
            Ty::Currency => "1.2345",
            Ty::Decimal => "2.75",
            Ty::Date => "1/5/1998",
            Ty::Text => "8",
            Ty::YesNo => "True",
            Ty::Null => return None,
        })
    }
}

/// An expected answer.
#[derive(Clone, Debug, PartialEq)]
enum Want {
    Null,
    Bool(bool),
    Whole(i128),
    Single(f32),
    Double(f64),
    /// Currency, in ten-thousandths.
    Currency(i128),
    /// The exact Decimal `n / d`, compared at the result's scale.
    Decimal(i128, i128),
    /// Engine microseconds.
    Date(i64),
    Text(String),
    /// An error whose message holds this.
    Error(&'static str),
}

/// Whether `t` is the type a table names (Int Integer, Sng Single, Dbl
/// Double, Cur Currency, Dec Decimal, Y/N Yes/No).
fn type_is(abbr: &str, t: &DataType) -> bool {
    match abbr {
        "Byte" => *t == DataType::UInt8,
        "Int" => *t == DataType::Int16,
        "Long" => *t == DataType::Int32,
        "Sng" => *t == DataType::Float32,
        "Dbl" => *t == DataType::Float64,
        "Cur" => *t == DataType::Decimal128(19, 4),
        "Dec" => matches!(t, DataType::Decimal128(..)) && *t != DataType::Decimal128(19, 4),
        "Date" => *t == DataType::Timestamp(TimeUnit::Microsecond, None),
        "Text" => *t == DataType::Utf8,
        "Y/N" => *t == DataType::Boolean,
        _ => true,
    }
}

fn whole_of(v: &ScalarValue) -> Option<i128> {
    match v {
        ScalarValue::UInt8(Some(x)) => Some(i128::from(*x)),
        ScalarValue::Int16(Some(x)) => Some(i128::from(*x)),
        ScalarValue::Int32(Some(x)) => Some(i128::from(*x)),
        ScalarValue::Int64(Some(x)) => Some(i128::from(*x)),
        _ => None,
    }
}

/// Whether the answer `v` is `want`.
fn value_is(want: &Want, v: &ScalarValue) -> bool {
    match want {
        Want::Null => v.is_null(),
        Want::Bool(b) => *v == ScalarValue::Boolean(Some(*b)),
        Want::Whole(n) => whole_of(v) == Some(*n),
        Want::Single(f) => *v == ScalarValue::Float32(Some(*f)),
        Want::Double(f) => *v == ScalarValue::Float64(Some(*f)),
        Want::Currency(u) => *v == ScalarValue::Decimal128(Some(*u), 19, 4),
        Want::Decimal(n, d) => match v {
            ScalarValue::Decimal128(Some(u), _, s) => at_scale(*n, *d, *s) == Some(*u),
            _ => false,
        },
        Want::Date(us) => *v == ScalarValue::TimestampMicrosecond(Some(*us), None),
        Want::Text(s) => *v == ScalarValue::Utf8(Some(s.clone())),
        Want::Error(_) => false,
    }
}

/// The range of a whole-number result type of the tables (Data type
/// summary: Byte 0 to 255, Integer -32,768 to 32,767, Long
/// -2,147,483,648 to 2,147,483,647).
fn in_range(abbr: &str, n: i128) -> bool {
    match abbr {
        "Byte" => (0..=255).contains(&n),
        "Int" => i16::try_from(n).is_ok(),
        "Long" => i32::try_from(n).is_ok(),
        _ => i64::try_from(n).is_ok(),
    }
}

/// One cell of a table: its SQL, the type the table names, the answer
/// the rules give.
struct Cell {
    sql: String,
    abbr: &'static str,
    want: Want,
}

/// Checks one answer against its cell; the failure names the page.
fn judge(cell: &Cell, got: Result<(DataType, ScalarValue), String>, page: &str) -> Option<String> {
    let fail = |what: String| Some(format!("{}: {what} ({VBA}{page})", cell.sql));
    match (&cell.want, got) {
        (Want::Error(part), Err(e)) => {
            if e.contains(*part) && !e.contains('\n') {
                None
            } else {
                fail(format!("error {e:?}, not one line holding {part:?}"))
            }
        }
        (Want::Error(part), Ok((t, v))) => fail(format!("answered {v:?} ({t}), not {part:?}")),
        (want, Err(e)) => fail(format!("error {e}, wanted {want:?}")),
        (want, Ok((t, v))) => {
            if *want != Want::Null && !type_is(cell.abbr, &t) {
                fail(format!("type {t}, wanted {}", cell.abbr))
            } else if !value_is(want, &v) {
                fail(format!("{v:?}, wanted {want:?} ({})", cell.abbr))
            } else {
                None
            }
        }
    }
}

/// Runs cells: those that answer in one statement, the rest (the errors
/// and, when the shared statement fails, every cell) one by one.
async fn run_cells(s: &JetSession, cells: &[Cell], page: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let good: Vec<&Cell> = cells
        .iter()
        .filter(|c| !matches!(c.want, Want::Error(_)))
        .collect();
    let mut alone: Vec<&Cell> = cells
        .iter()
        .filter(|c| matches!(c.want, Want::Error(_)))
        .collect();
    if !good.is_empty() {
        let select: Vec<String> = good.iter().map(|c| c.sql.clone()).collect();
        match row(s, &format!("SELECT {}", select.join(", "))).await {
            Ok(values) if values.len() == good.len() => {
                for (c, got) in good.iter().zip(values) {
                    failures.extend(judge(c, Ok(got), page));
                }
            }
            _ => alone.extend(good),
        }
    }
    for c in alone {
        let got = row(s, &format!("SELECT {}", c.sql))
            .await
            .and_then(|mut v| v.pop().ok_or_else(|| "no column".to_string()));
        failures.extend(judge(c, got, page));
    }
    failures
}

/// The result types of an operator: a row per left operand and a column
/// per right operand in [`TYPES`]' order, or one type for every pair.
enum Types {
    Rows([&'static str; 11]),
    Every(&'static str),
}

/// A binary operator's table.
struct Binary {
    /// The operator as Access SQL writes it.
    op: &'static str,
    /// Its page under [`VBA`].
    page: &'static str,
    types: Types,
    /// The answer to `a op b` whose type the table names.
    value: fn(&str, Ty, Ty, &str) -> Want,
}

async fn check(b: &Binary) {
    let s = session(SqlDialect::Access);
    let mut failures = Vec::new();
    for (i, a) in TYPES.iter().enumerate() {
        let types: Vec<&'static str> = match &b.types {
            Types::Rows(r) => r[i].split_whitespace().collect(),
            Types::Every(t) => vec![*t; TYPES.len()],
        };
        assert_eq!(types.len(), TYPES.len(), "{} row {a:?}", b.op);
        let cells: Vec<Cell> = TYPES
            .iter()
            .zip(types)
            .map(|(r, abbr)| Cell {
                sql: format!("{} {} {}", a.sql(), b.op, r.sql()),
                abbr,
                want: (b.value)(b.op, *a, *r, abbr),
            })
            .collect();
        failures.extend(run_cells(&s, &cells, b.page).await);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `+`, `-`, `*`, `/` by the type the table names: whole numbers exactly,
/// Single and Double in IEEE arithmetic, Currency in ten-thousandths
/// (a product rounded half to even), Decimal exactly, a Date as serial
/// days, two texts joined.
fn arithmetic(op: &str, a: Ty, b: Ty, abbr: &str) -> Want {
    let (Some((an, ad)), Some((bn, bd))) = (a.ratio(), b.ratio()) else {
        return Want::Null;
    };
    let (x, y) = (a.double().unwrap_or(0.0), b.double().unwrap_or(0.0));
    if op == "/" && bn == 0 {
        return Want::Error("Division by zero");
    }
    match abbr {
        "Byte" | "Int" | "Long" => {
            let n = match op {
                "+" => an + bn,
                "-" => an - bn,
                _ => an * bn,
            };
            if in_range(abbr, n) {
                Want::Whole(n)
            } else {
                Want::Error("overflow")
            }
        }
        "Sng" => {
            let (x, y) = (x as f32, y as f32);
            Want::Single(match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                _ => x / y,
            })
        }
        "Dbl" => Want::Double(match op {
            "+" => x + y,
            "-" => x - y,
            "*" => x * y,
            _ => x / y,
        }),
        "Cur" => {
            let (x, y) = (
                round_half_even(an * 10_000, ad),
                round_half_even(bn * 10_000, bd),
            );
            Want::Currency(match op {
                "+" => x + y,
                "-" => x - y,
                _ => round_half_even(x * y, 10_000),
            })
        }
        "Dec" => match op {
            "+" => Want::Decimal(an * bd + bn * ad, ad * bd),
            "-" => Want::Decimal(an * bd - bn * ad, ad * bd),
            "*" => Want::Decimal(an * bn, ad * bd),
            _ => Want::Decimal(an * bd, ad * bn),
        },
        "Date" => Want::Date(micros(if op == "-" { x - y } else { x + y })),
        "Text" => Want::Text(format!(
            "{}{}",
            a.text().unwrap_or(""),
            b.text().unwrap_or("")
        )),
        _ => Want::Error("no such type"),
    }
}

/// `\` and `Mod`: the operands rounded half to even, the quotient
/// truncated, the remainder with the dividend's sign.
fn whole_division(op: &str, a: Ty, b: Ty, abbr: &str) -> Want {
    let (Some(x), Some(y)) = (a.whole(), b.whole()) else {
        return Want::Null;
    };
    if y == 0 {
        return Want::Error("Division by zero");
    }
    let n = if op == "Mod" { x % y } else { x / y };
    if in_range(abbr, n) {
        Want::Whole(n)
    } else {
        Want::Error("overflow")
    }
}

/// `^`: a Double; a negative base to a fractional power and a result
/// beyond a Double are errors.
fn power(_: &str, a: Ty, b: Ty, _: &str) -> Want {
    let (Some(x), Some(y)) = (a.double(), b.double()) else {
        return Want::Null;
    };
    let r = x.powf(y);
    if r.is_nan() {
        Want::Error("negative number raised to a fractional power")
    } else if r.is_infinite() {
        Want::Error("overflow")
    } else {
        Want::Double(r)
    }
}

/// `&`: the texts joined, Null read as empty; Null & Null is Null.
fn concatenation(_: &str, a: Ty, b: Ty, _: &str) -> Want {
    match (a.text(), b.text()) {
        (None, None) => Want::Null,
        (x, y) => Want::Text(format!("{}{}", x.unwrap_or(""), y.unwrap_or(""))),
    }
}

/// The three-valued tables of the And, Or, Xor, Eqv and Imp pages.
fn three_valued(op: &str, a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match op {
        "And" => match (a, b) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        "Or" => match (a, b) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        "Xor" => Some(a? != b?),
        "Eqv" => Some(a? == b?),
        _ => match (a, b) {
            (Some(false), _) | (_, Some(true)) => Some(true),
            (Some(true), Some(false)) => Some(false),
            _ => None,
        },
    }
}

/// `And`, `Or`, `Xor`, `Eqv`, `Imp`: three-valued for Yes/No and Null;
/// otherwise bit by bit on the operands rounded to whole numbers, in the
/// table's type (a Byte's eight bits).
fn logic(op: &str, a: Ty, b: Ty, abbr: &str) -> Want {
    let yes_no = |t: Ty| matches!(t, Ty::YesNo | Ty::Null);
    if yes_no(a) && yes_no(b) {
        let v = |t: Ty| (t == Ty::YesNo).then_some(true);
        return three_valued(op, v(a), v(b)).map_or(Want::Null, Want::Bool);
    }
    let (Some(x), Some(y)) = (a.whole(), b.whole()) else {
        return Want::Null;
    };
    let r = match op {
        "And" => x & y,
        "Or" => x | y,
        "Xor" => x ^ y,
        "Eqv" => !(x ^ y),
        _ => !x | y,
    };
    Want::Whole(match abbr {
        "Byte" => r & 0xFF,
        "Int" => i128::from(r as i16),
        "Long" => i128::from(r as i32),
        _ => r,
    })
}

/// Comparisons: Null with Null; two texts as text; anything else as
/// numbers (Yes/No -1, a date its serial number, the text '8' the number
/// 8, or serial day 8 beside a date).
fn comparison(op: &str, a: Ty, b: Ty, _: &str) -> Want {
    let (Some((an, ad)), Some((bn, bd))) = (a.ratio(), b.ratio()) else {
        return Want::Null;
    };
    let order = if a == Ty::Text && b == Ty::Text {
        a.text().cmp(&b.text())
    } else {
        (an * bd).cmp(&(bn * ad))
    };
    Want::Bool(match op {
        "=" => order == Ordering::Equal,
        "<>" => order != Ordering::Equal,
        "<" => order == Ordering::Less,
        "<=" => order != Ordering::Greater,
        ">" => order == Ordering::Greater,
        _ => order != Ordering::Less,
    })
}

/// `+`: "the order of precision, from least to most precise, is Byte,
/// Integer, Long, Single, Double, Currency, and Decimal"; "A Single and a
/// Long are added: A Double"; "A Date is added to any data type: A Date";
/// "Both expressions are String: Concatenate"; a numeric text with a
/// number adds, as a Double.
const ADDITION: Binary = Binary {
    op: "+",
    page: "plus-operator",
    types: Types::Rows([
        "Byte Int  Long Sng  Dbl  Cur  Dec  Date Dbl  Int  Null", // Byte
        "Int  Int  Long Sng  Dbl  Cur  Dec  Date Dbl  Int  Null", // Integer
        "Long Long Long Dbl  Dbl  Cur  Dec  Date Dbl  Long Null", // Long
        "Sng  Sng  Dbl  Sng  Dbl  Cur  Dec  Date Dbl  Sng  Null", // Single
        "Dbl  Dbl  Dbl  Dbl  Dbl  Cur  Dec  Date Dbl  Dbl  Null", // Double
        "Cur  Cur  Cur  Cur  Cur  Cur  Dec  Date Cur  Cur  Null", // Currency
        "Dec  Dec  Dec  Dec  Dec  Dec  Dec  Date Dec  Dec  Null", // Decimal
        "Date Date Date Date Date Date Date Date Date Date Null", // Date
        "Dbl  Dbl  Dbl  Dbl  Dbl  Cur  Dec  Date Text Dbl  Null", // Text
        "Int  Int  Long Sng  Dbl  Cur  Dec  Date Dbl  Int  Null", // Yes/No
        "Null Null Null Null Null Null Null Null Null Null Null", // Null
    ]),
    value: arithmetic,
};

/// `-`: the order of `+`; "Subtraction involves a Single and a Long: A
/// Double"; "Subtraction involves a Date and any other data type: A
/// Date"; "Subtraction involves two Date expressions: A Double".
const SUBTRACTION: Binary = Binary {
    op: "-",
    page: "minus-operator",
    types: Types::Rows([
        "Byte Int  Long Sng  Dbl  Cur  Dec  Date Dbl  Int  Null", // Byte
        "Int  Int  Long Sng  Dbl  Cur  Dec  Date Dbl  Int  Null", // Integer
        "Long Long Long Dbl  Dbl  Cur  Dec  Date Dbl  Long Null", // Long
        "Sng  Sng  Dbl  Sng  Dbl  Cur  Dec  Date Dbl  Sng  Null", // Single
        "Dbl  Dbl  Dbl  Dbl  Dbl  Cur  Dec  Date Dbl  Dbl  Null", // Double
        "Cur  Cur  Cur  Cur  Cur  Cur  Dec  Date Cur  Cur  Null", // Currency
        "Dec  Dec  Dec  Dec  Dec  Dec  Dec  Date Dec  Dec  Null", // Decimal
        "Date Date Date Date Date Date Date Dbl  Date Date Null", // Date
        "Dbl  Dbl  Dbl  Dbl  Dbl  Cur  Dec  Date Dbl  Dbl  Null", // Text
        "Int  Int  Long Sng  Dbl  Cur  Dec  Date Dbl  Int  Null", // Yes/No
        "Null Null Null Null Null Null Null Null Null Null Null", // Null
    ]),
    value: arithmetic,
};

/// `*`: "Byte, Integer, Long, Single, Currency, Double, and Decimal";
/// "Multiplication involves a Single and a Long: A Double"; a Date
/// multiplies as its Double serial number.
const MULTIPLICATION: Binary = Binary {
    op: "*",
    page: "operator",
    types: Types::Rows([
        "Byte Int  Long Sng  Dbl  Cur  Dec  Dbl  Dbl  Int  Null", // Byte
        "Int  Int  Long Sng  Dbl  Cur  Dec  Dbl  Dbl  Int  Null", // Integer
        "Long Long Long Dbl  Dbl  Cur  Dec  Dbl  Dbl  Long Null", // Long
        "Sng  Sng  Dbl  Sng  Dbl  Cur  Dec  Dbl  Dbl  Sng  Null", // Single
        "Dbl  Dbl  Dbl  Dbl  Dbl  Dbl  Dec  Dbl  Dbl  Dbl  Null", // Double
        "Cur  Cur  Cur  Cur  Dbl  Cur  Dec  Dbl  Dbl  Cur  Null", // Currency
        "Dec  Dec  Dec  Dec  Dec  Dec  Dec  Dec  Dec  Dec  Null", // Decimal
        "Dbl  Dbl  Dbl  Dbl  Dbl  Dbl  Dec  Dbl  Dbl  Dbl  Null", // Date
        "Dbl  Dbl  Dbl  Dbl  Dbl  Dbl  Dec  Dbl  Dbl  Dbl  Null", // Text
        "Int  Int  Long Sng  Dbl  Cur  Dec  Dbl  Dbl  Int  Null", // Yes/No
        "Null Null Null Null Null Null Null Null Null Null Null", // Null
    ]),
    value: arithmetic,
};

/// `/`: "usually a Double"; "Both expressions are Byte, Integer, or
/// Single expressions: A Single"; "Division involves a Decimal and any
/// other data type: A Decimal data type" (Yes/No counts as an Integer).
const DIVISION: Binary = Binary {
    op: "/",
    page: "forwardslash-operator",
    types: Types::Rows([
        "Sng  Sng  Dbl  Sng  Dbl  Dbl  Dec  Dbl  Dbl  Sng  Null", // Byte
        "Sng  Sng  Dbl  Sng  Dbl  Dbl  Dec  Dbl  Dbl  Sng  Null", // Integer
        "Dbl  Dbl  Dbl  Dbl  Dbl  Dbl  Dec  Dbl  Dbl  Dbl  Null", // Long
        "Sng  Sng  Dbl  Sng  Dbl  Dbl  Dec  Dbl  Dbl  Sng  Null", // Single
        "Dbl  Dbl  Dbl  Dbl  Dbl  Dbl  Dec  Dbl  Dbl  Dbl  Null", // Double
        "Dbl  Dbl  Dbl  Dbl  Dbl  Dbl  Dec  Dbl  Dbl  Dbl  Null", // Currency
        "Dec  Dec  Dec  Dec  Dec  Dec  Dec  Dec  Dec  Dec  Null", // Decimal
        "Dbl  Dbl  Dbl  Dbl  Dbl  Dbl  Dec  Dbl  Dbl  Dbl  Null", // Date
        "Dbl  Dbl  Dbl  Dbl  Dbl  Dbl  Dec  Dbl  Dbl  Dbl  Null", // Text
        "Sng  Sng  Dbl  Sng  Dbl  Dbl  Dec  Dbl  Dbl  Sng  Null", // Yes/No
        "Null Null Null Null Null Null Null Null Null Null Null", // Null
    ]),
    value: arithmetic,
};

/// The result types of `\` and `Mod`: "the numeric expressions are
/// rounded to Byte, Integer, or Long expressions"; the result "is a
/// Byte, Byte variant, Integer, Integer variant, Long, or Long variant".
const WHOLE_TYPES: [&str; 11] = [
    "Byte Int  Long Long Long Long Long Long Long Int  Null", // Byte
    "Int  Int  Long Long Long Long Long Long Long Int  Null", // Integer
    "Long Long Long Long Long Long Long Long Long Long Null", // Long
    "Long Long Long Long Long Long Long Long Long Long Null", // Single
    "Long Long Long Long Long Long Long Long Long Long Null", // Double
    "Long Long Long Long Long Long Long Long Long Long Null", // Currency
    "Long Long Long Long Long Long Long Long Long Long Null", // Decimal
    "Long Long Long Long Long Long Long Long Long Long Null", // Date
    "Long Long Long Long Long Long Long Long Long Long Null", // Text
    "Int  Int  Long Long Long Long Long Long Long Int  Null", // Yes/No
    "Null Null Null Null Null Null Null Null Null Null Null", // Null
];

const INTEGER_DIVISION: Binary = Binary {
    op: "\\",
    page: "backslash-operator",
    types: Types::Rows(WHOLE_TYPES),
    value: whole_division,
};

const MODULO: Binary = Binary {
    op: "Mod",
    page: "mod-operator",
    types: Types::Rows(WHOLE_TYPES),
    value: whole_division,
};

/// The result types of the bitwise operators: the wider of the operands'
/// whole-number types (anything else rounded to a Long); two Yes/No (or
/// Null) operands follow the three-valued table (`3val`).
const LOGIC_TYPES: [&str; 11] = [
    "Byte Int  Long Long Long Long Long Long Long Int  Null", // Byte
    "Int  Int  Long Long Long Long Long Long Long Int  Null", // Integer
    "Long Long Long Long Long Long Long Long Long Long Null", // Long
    "Long Long Long Long Long Long Long Long Long Long Null", // Single
    "Long Long Long Long Long Long Long Long Long Long Null", // Double
    "Long Long Long Long Long Long Long Long Long Long Null", // Currency
    "Long Long Long Long Long Long Long Long Long Long Null", // Decimal
    "Long Long Long Long Long Long Long Long Long Long Null", // Date
    "Long Long Long Long Long Long Long Long Long Long Null", // Text
    "Int  Int  Long Long Long Long Long Long Long Y/N  3val", // Yes/No
    "Null Null Null Null Null Null Null Null Null 3val 3val", // Null
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn addition_over_every_pair_of_types() {
    check(&ADDITION).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subtraction_over_every_pair_of_types() {
    check(&SUBTRACTION).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multiplication_over_every_pair_of_types() {
    check(&MULTIPLICATION).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn division_over_every_pair_of_types() {
    check(&DIVISION).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn integer_division_over_every_pair_of_types() {
    check(&INTEGER_DIVISION).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modulo_over_every_pair_of_types() {
    check(&MODULO).await;
}

/// `^`: "Usually, the data type of result is a Double"; "A number can be
/// negative only if exponent is an integer value".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exponentiation_over_every_pair_of_types() {
    check(&Binary {
        op: "^",
        page: "caret-operator",
        types: Types::Every("Dbl"),
        value: power,
    })
    .await;
}

/// `&`: "If an expression is not a string, it is converted to a String
/// variant"; "if only one expression is Null, that expression is treated
/// as a zero-length string".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concatenation_over_every_pair_of_types() {
    check(&Binary {
        op: "&",
        page: "ampersand-operator",
        types: Types::Every("Text"),
        value: concatenation,
    })
    .await;
}

/// `And`, `Or`, `Xor`, `Eqv`, `Imp`: each page's three-valued table for
/// True, False and Null, and "a bitwise comparison of identically
/// positioned bits in two numeric expressions".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logical_operators_over_every_pair_of_types() {
    for (op, page) in [
        ("And", "and-operator"),
        ("Or", "or-operator"),
        ("Xor", "xor-operator"),
        ("Eqv", "eqv-operator"),
        ("Imp", "imp-operator"),
    ] {
        check(&Binary {
            op,
            page,
            types: Types::Rows(LOGIC_TYPES),
            value: logic,
        })
        .await;
    }
}

/// The comparisons: Null when either operand is Null; numbers (Byte,
/// Boolean, Integer, Long, Single, Double, Date, Currency, Decimal)
/// compare as numbers; two texts as text; a number with a text "that is,
/// or can be, a number" as numbers (so '8' < 12, where the texts '8' and
/// '12' would compare the other way).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comparisons_over_every_pair_of_types() {
    for op in ["=", "<>", "<", "<=", ">", ">="] {
        check(&Binary {
            op,
            page: "comparison-operators",
            types: Types::Every("Y/N"),
            value: comparison,
        })
        .await;
    }
}

/// `Not`: True and False swap, Null stays Null, and "the Not operator
/// inverts the bit values of any variable": a Byte's eight bits, an
/// Integer's or Long's all; anything else rounded to a Long first
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/not-operator).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_over_every_type() {
    let s = session(SqlDialect::Access);
    let cells: Vec<Cell> = TYPES
        .iter()
        .map(|t| {
            let (abbr, want) = match (t, t.whole()) {
                (Ty::YesNo, _) => ("Y/N", Want::Bool(false)),
                (_, None) => ("Null", Want::Null),
                (Ty::Byte, Some(n)) => ("Byte", Want::Whole(255 - n)),
                (Ty::Integer, Some(n)) => ("Int", Want::Whole(!n)),
                (_, Some(n)) => ("Long", Want::Whole(!n)),
            };
            Cell {
                sql: format!("Not {}", t.sql()),
                abbr,
                want,
            }
        })
        .collect();
    let failures = run_cells(&s, &cells, "not-operator").await;
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // the page's example: A = 10, Not A is -11
    assert_eq!(
        row(&s, "SELECT Not 10").await.unwrap()[0].1,
        ScalarValue::Int64(Some(-11))
    );
}

async fn error(s: &JetSession, sql: &str) -> String {
    match s.sql(sql).await {
        Ok(b) => panic!("{sql}: no error, answered {b:?}"),
        Err(e) => e.to_string(),
    }
}

/// A result beyond its type is Access's overflow error, never a wrapped
/// value: `2000 * 365` of two Integers overflows, `CLng(2000) * 365` does
/// not (Overflow (Error 6),
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/overflow-error-6;
/// the ranges are the Data type summary's,
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/data-type-summary).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overflow_is_an_error_not_a_wrapped_value() {
    let s = session(SqlDialect::Access);
    for sql in [
        "SELECT CInt(2000) * CInt(365)",
        "SELECT CInt(30000) + CInt(30000)",
        "SELECT CByte(200) + CByte(100)",
        "SELECT CByte(1) - CByte(2)",
        "SELECT CLng(2147483647) + CLng(1)",
        "SELECT CInt(-32768) \\ CInt(-1)",
        "SELECT CCur(922337203685477) * 10",
        "SELECT CDbl('1E+308') * 10",
        "SELECT CDbl('3E+9') \\ 1",
        "SELECT 9223372036854775807 + 1",
    ] {
        let e = error(&s, sql).await;
        assert!(e.contains("overflow") && !e.contains('\n'), "{sql}: {e}");
    }
    assert_eq!(
        row(&s, "SELECT CLng(2000) * CInt(365)").await.unwrap()[0],
        (DataType::Int32, ScalarValue::Int32(Some(730_000)))
    );
}

/// A text that spells no number is a type mismatch in arithmetic and
/// against a number (+ operator: "One expression is a numeric data type
/// and the other is a String: A Type mismatch error occurs" for text that
/// is no number; Comparison operators: "a string Variant that can't be
/// converted to a number: A Type Mismatch error occurs"), in one line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_that_is_no_number_is_a_type_mismatch() {
    let s = session(SqlDialect::Access);
    for sql in [
        "SELECT 'abc' + 1",
        "SELECT 2 * 'abc'",
        "SELECT CInt(1) - 'x1'",
        "SELECT 'abc' < 1",
        "SELECT 'abc' \\ 2",
        "SELECT 'abc' / 2",
    ] {
        let e = error(&s, sql).await;
        assert!(
            e.contains("type mismatch: 'abc' is not a number")
                || e.contains("'x1' is not a number"),
            "{sql}: {e}"
        );
        assert!(!e.contains('\n'), "{sql}: {e}");
    }
}

/// Currency keeps four places and rounds a product half to even
/// (Currency data type: "a range of -922,337,203,685,477.5808 to
/// 922,337,203,685,477.5807", four digits to the right of the point,
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/currency-data-type).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn currency_is_exact_to_four_places() {
    let s = session(SqlDialect::Access);
    for (sql, want) in [
        // 1.2345 × 2.5 = 3.08625: half to even gives 3.0862
        ("SELECT CCur(1.2345) * CSng(2.5)", 30_862),
        // 0.0001 × 0.5 = 0.00005 → 0.0000; 0.0003 × 0.5 = 0.00015 → 0.0002
        ("SELECT CCur(0.0001) * CCur(0.5)", 0),
        ("SELECT CCur(0.0003) * CCur(0.5)", 2),
        // sums are exact (a Double would give 0.30000000000000004)
        ("SELECT CCur(0.1) + CCur(0.2)", 3_000),
        // "the order of precision ... Double, Currency": Currency + Double is Currency
        ("SELECT CCur(1) + CDbl(0.5)", 15_000),
    ] {
        assert_eq!(
            row(&s, sql).await.unwrap()[0],
            (
                DataType::Decimal128(19, 4),
                ScalarValue::Decimal128(Some(want), 19, 4)
            ),
            "{sql}"
        );
    }
}

/// A literal with a decimal point is a Double in Access: `1.5 + CInt(1)`
/// is a Double ("+ operator": Integer < Double), `CCur(2) * 1.5` is a
/// Double ("* operator": Currency < Double), `CCur(2) + 1.5` a Currency
/// ("+ operator": Double < Currency); `CSng(0.1) = 0.1` is True ("When a
/// Single is compared to a Double, the Double is rounded to the precision
/// of the Single", Comparison operators).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decimal_literals_are_doubles() {
    let s = session(SqlDialect::Access);
    assert_eq!(
        row(&s, "SELECT 1.5 + CInt(1)").await.unwrap()[0],
        (DataType::Float64, ScalarValue::Float64(Some(2.5)))
    );
    assert_eq!(
        row(&s, "SELECT CCur(2) * 1.5").await.unwrap()[0],
        (DataType::Float64, ScalarValue::Float64(Some(3.0)))
    );
    assert_eq!(
        row(&s, "SELECT CCur(2) + 1.5").await.unwrap()[0],
        (
            DataType::Decimal128(19, 4),
            ScalarValue::Decimal128(Some(35_000), 19, 4)
        )
    );
    assert_eq!(
        row(&s, "SELECT CSng(0.1) = 0.1, CSng(0.1) = CDbl(0.1)")
            .await
            .unwrap()
            .into_iter()
            .map(|(_, v)| v)
            .collect::<Vec<_>>(),
        vec![
            ScalarValue::Boolean(Some(true)),
            ScalarValue::Boolean(Some(true))
        ]
    );
}

/// Texts with numbers compare as numbers ("One expression is a numeric
/// data type and the other is a Variant that is, or can be, a number:
/// Perform a numeric comparison"): `'10' > 9` is True although the text
/// '10' sorts before '9'; two texts still compare as text (`'10' > '9'`
/// is False: "Both expressions are String: Perform a string comparison").
/// Yes/No compares as -1 and 0, so `True < False`
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/comparison-operators).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn texts_with_numbers_compare_as_numbers() {
    let s = session(SqlDialect::Access);
    let got: Vec<ScalarValue> = row(
        &s,
        "SELECT '10' > 9, '10' > '9', 9 < '10', True < False, '1.5' = 1.5",
    )
    .await
    .unwrap()
    .into_iter()
    .map(|(_, v)| v)
    .collect();
    let want: Vec<ScalarValue> = [true, false, true, true, true]
        .into_iter()
        .map(|b| ScalarValue::Boolean(Some(b)))
        .collect();
    assert_eq!(got, want);
}

/// Arithmetic on the constant side of a comparison folds to a constant,
/// so the plain form's index seek stays: `OrderID = 10247 + 1` seeks the
/// primary key as `OrderID = 10248` does, and a date range written with
/// `#…# - 30` or with text dates plans as the `#…#` range does; each
/// selects what its plain form selects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn constant_arithmetic_still_seeks() {
    let Some(s) = nwind() else { return };
    let range =
        "SELECT count(*) FROM Orders WHERE OrderDate >= #1/1/1995# And OrderDate <= #1/31/1995#";
    for (plain, computed) in [
        (
            "SELECT count(*) FROM Orders WHERE OrderID = 10248",
            "SELECT count(*) FROM Orders WHERE OrderID = 10247 + 1",
        ),
        (
            range,
            "SELECT count(*) FROM Orders WHERE OrderDate >= #1/31/1995# - 30 And OrderDate <= #1/31/1995#",
        ),
        (
            range,
            "SELECT count(*) FROM Orders WHERE OrderDate >= '1/1/1995' And OrderDate <= '1/31/1995'",
        ),
    ] {
        assert_eq!(
            row(&s, plain).await.unwrap(),
            row(&s, computed).await.unwrap(),
            "{computed}"
        );
        assert_eq!(
            seeks(&s, plain).await,
            seeks(&s, computed).await,
            "{computed}"
        );
    }
    assert!(
        seeks(&s, "SELECT count(*) FROM Orders WHERE OrderID = 10247 + 1").await,
        "the primary key seek"
    );
}

/// Whether the plan of `sql` seeks an index.
async fn seeks(s: &JetSession, sql: &str) -> bool {
    let batches = s.sql(&format!("EXPLAIN {sql}")).await.unwrap();
    datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string()
        .contains("IndexSeekExec")
}

/// A Single column compared with a decimal literal compares at the
/// Single's precision ("When a Single is compared to a Double, the Double
/// is rounded to the precision of the Single", Comparison operators):
/// `Discount = 0.15` finds Northwind's 15% discounts, as
/// `Discount = CSng(0.15)` does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_columns_equal_decimal_literals() {
    let Some(s) = nwind() else { return };
    let a = row(
        &s,
        "SELECT count(*) FROM [Order Details] WHERE Discount = 0.15",
    )
    .await
    .unwrap();
    let b = row(
        &s,
        "SELECT count(*) FROM [Order Details] WHERE Discount = CSng(0.15)",
    )
    .await
    .unwrap();
    assert_eq!(a, b);
    assert!(
        matches!(a[0].1, ScalarValue::Int64(Some(n)) if n > 0),
        "{a:?}"
    );
}

// ---- property tests ------------------------------------------------------

/// A random operand of a numeric Access type, every one a whole number
/// of ten-thousandths, so its SQL literal is exact.
#[derive(Clone, Copy, Debug)]
enum Num {
    Byte(u8),
    Integer(i16),
    Long(i32),
    /// Quarters (at most seven significant digits, as a Single shows).
    Single(i32),
    /// Sixteenths (exact in binary and in four decimal places).
    Double(i64),
    /// Ten-thousandths.
    Currency(i64),
    /// Ten-thousandths.
    Decimal(i64),
}

/// The numeric kinds of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum K {
    Byte,
    Integer,
    Long,
    Single,
    Double,
    Currency,
    Decimal,
}

/// `u` ten-thousandths as a decimal literal.
fn fixed(u: i128) -> String {
    let sign = if u < 0 { "-" } else { "" };
    let a = u.unsigned_abs();
    format!("{sign}{}.{:04}", a / 10_000, a % 10_000)
}

impl Num {
    fn sql(self) -> String {
        match self {
            Num::Byte(n) => format!("CByte({n})"),
            Num::Integer(n) => format!("CInt({n})"),
            Num::Long(n) => format!("CLng({n})"),
            Num::Single(q) => format!("CSng({})", fixed(i128::from(q) * 2_500)),
            Num::Double(k) => format!("CDbl({})", fixed(i128::from(k) * 625)),
            Num::Currency(u) => format!("CCur({})", fixed(i128::from(u))),
            Num::Decimal(u) => format!("CDec({})", fixed(i128::from(u))),
        }
    }

    fn kind(self) -> K {
        match self {
            Num::Byte(_) => K::Byte,
            Num::Integer(_) => K::Integer,
            Num::Long(_) => K::Long,
            Num::Single(_) => K::Single,
            Num::Double(_) => K::Double,
            Num::Currency(_) => K::Currency,
            Num::Decimal(_) => K::Decimal,
        }
    }

    /// The value in ten-thousandths, exactly.
    fn tenths(self) -> i128 {
        match self {
            Num::Byte(n) => i128::from(n) * 10_000,
            Num::Integer(n) => i128::from(n) * 10_000,
            Num::Long(n) => i128::from(n) * 10_000,
            Num::Single(q) => i128::from(q) * 2_500,
            Num::Double(k) => i128::from(k) * 625,
            Num::Currency(u) | Num::Decimal(u) => i128::from(u),
        }
    }

    /// The value as a Double (a Currency as its ten-thousandths divided by
    /// 10,000, as Access converts it).
    fn f64(self) -> f64 {
        match self {
            Num::Single(q) => f64::from(q) / 4.0,
            Num::Double(k) => k as f64 / 16.0,
            Num::Currency(u) | Num::Decimal(u) => u as f64 / 10_000.0,
            other => (other.tenths() / 10_000) as f64,
        }
    }

    /// The value as a Single (only Byte, Integer and Single meet in
    /// Single arithmetic; all are exact in a Single).
    fn f32(self) -> f32 {
        self.f64() as f32
    }

    /// The whole number `\` and `Mod` round the operand to: a Byte,
    /// Integer or Long as it is, anything else rounded half to even to a
    /// Long (an overflow beyond it).
    fn whole(self) -> Result<i128, &'static str> {
        match self {
            Num::Byte(_) | Num::Integer(_) | Num::Long(_) => Ok(self.tenths() / 10_000),
            _ => {
                let n = round_half_even(self.tenths(), 10_000);
                if i32::try_from(n).is_ok() {
                    Ok(n)
                } else {
                    Err("overflow")
                }
            }
        }
    }
}

fn num() -> impl Strategy<Value = Num> {
    prop_oneof![
        any::<u8>().prop_map(Num::Byte),
        any::<i16>().prop_map(Num::Integer),
        (-20i16..20).prop_map(Num::Integer),
        any::<i32>().prop_map(Num::Long),
        (-50_000i32..50_000).prop_map(Num::Long),
        (-400_000i32..400_000).prop_map(Num::Single),
        (-(1i64 << 24)..(1i64 << 24)).prop_map(Num::Double),
        (-(1i64 << 40)..(1i64 << 40)).prop_map(Num::Double),
        (-100_000_000_000_000i64..100_000_000_000_000).prop_map(Num::Currency),
        (-10_000_000i64..10_000_000).prop_map(Num::Currency),
        (-1_000_000_000i64..1_000_000_000).prop_map(Num::Decimal),
    ]
}

/// The model's order of precision for `+` and `-` ("Byte, Integer, Long,
/// Single, Double, Currency, and Decimal", plus-operator) and for `*`
/// ("Byte, Integer, Long, Single, Currency, Double, and Decimal",
/// operator).
fn rank(k: K, multiplication: bool) -> u8 {
    match k {
        K::Byte => 0,
        K::Integer => 1,
        K::Long => 2,
        K::Single => 3,
        K::Double if multiplication => 5,
        K::Currency if multiplication => 4,
        K::Double => 4,
        K::Currency => 5,
        K::Decimal => 6,
    }
}

/// The result kind of `a op b` by the pages' rules.
fn result_kind(op: &str, a: K, b: K) -> K {
    let precise = |multiplication: bool| {
        if (a, b) == (K::Single, K::Long) || (a, b) == (K::Long, K::Single) {
            K::Double
        } else if rank(a, multiplication) >= rank(b, multiplication) {
            a
        } else {
            b
        }
    };
    let rounded = |k: K| match k {
        K::Byte | K::Integer => k,
        _ => K::Long,
    };
    match op {
        "+" | "-" => precise(false),
        "*" => precise(true),
        "/" => {
            let small = |k: K| matches!(k, K::Byte | K::Integer | K::Single);
            if a == K::Decimal || b == K::Decimal {
                K::Decimal
            } else if small(a) && small(b) {
                K::Single
            } else {
                K::Double
            }
        }
        _ => {
            let (x, y) = (rounded(a), rounded(b));
            if rank(x, false) >= rank(y, false) {
                x
            } else {
                y
            }
        }
    }
}

/// The model's answer to `a op b`: its kind and value.
fn model(op: &str, a: Num, b: Num) -> (K, Want) {
    let k = result_kind(op, a.kind(), b.kind());
    let abbr = match k {
        K::Byte => "Byte",
        K::Integer => "Int",
        K::Long => "Long",
        _ => "",
    };
    if op == "\\" || op == "Mod" {
        let want = match (a.whole(), b.whole()) {
            (Err(e), _) | (_, Err(e)) => Want::Error(e),
            (_, Ok(0)) => Want::Error("Division by zero"),
            (Ok(x), Ok(y)) => {
                let n = if op == "Mod" { x % y } else { x / y };
                if in_range(abbr, n) {
                    Want::Whole(n)
                } else {
                    Want::Error("overflow")
                }
            }
        };
        return (k, want);
    }
    if op == "/" && b.tenths() == 0 {
        return (k, Want::Error("Division by zero"));
    }
    let (x, y) = (a.tenths(), b.tenths());
    let want = match k {
        K::Byte | K::Integer | K::Long => {
            let (x, y) = (x / 10_000, y / 10_000);
            let n = match op {
                "+" => x + y,
                "-" => x - y,
                _ => x * y,
            };
            if in_range(abbr, n) {
                Want::Whole(n)
            } else {
                Want::Error("overflow")
            }
        }
        K::Single => {
            let (x, y) = (a.f32(), b.f32());
            let r = match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                _ => x / y,
            };
            if r.is_finite() {
                Want::Single(r)
            } else {
                Want::Error("overflow")
            }
        }
        K::Double => {
            let (x, y) = (a.f64(), b.f64());
            let r = match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                _ => x / y,
            };
            if r.is_finite() {
                Want::Double(r)
            } else {
                Want::Error("overflow")
            }
        }
        K::Currency => {
            let r = match op {
                "+" => x + y,
                "-" => x - y,
                _ => round_half_even(x * y, 10_000),
            };
            if i64::try_from(r).is_ok() {
                Want::Currency(r)
            } else {
                Want::Error("overflow")
            }
        }
        K::Decimal => match op {
            "+" => Want::Decimal(x + y, 10_000),
            "-" => Want::Decimal(x - y, 10_000),
            "*" => Want::Decimal(x * y, 100_000_000),
            _ => Want::Decimal(x, y),
        },
    };
    (k, want)
}

fn kind_type(k: K) -> &'static str {
    match k {
        K::Byte => "Byte",
        K::Integer => "Int",
        K::Long => "Long",
        K::Single => "Sng",
        K::Double => "Dbl",
        K::Currency => "Cur",
        K::Decimal => "Dec",
    }
}

/// Runs `a op b` on random operands of every numeric type and compares
/// each answer, type and value, with [`model`].
fn property(op: &'static str, page: &'static str) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let s = session(SqlDialect::Access);
    let mut runner = TestRunner::new(Config {
        cases: 128,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&(num(), num()), |(a, b)| {
        let (k, want) = model(op, a, b);
        let cell = Cell {
            sql: format!("{} {op} {}", a.sql(), b.sql()),
            abbr: kind_type(k),
            want,
        };
        let got = rt
            .block_on(row(&s, &format!("SELECT {}", cell.sql)))
            .and_then(|mut v| v.pop().ok_or_else(|| "no column".to_string()));
        match judge(&cell, got, page) {
            None => Ok(()),
            Some(f) => Err(TestCaseError::fail(f)),
        }
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn addition_matches_the_model() {
    property("+", "plus-operator");
}

#[test]
fn subtraction_matches_the_model() {
    property("-", "minus-operator");
}

#[test]
fn multiplication_matches_the_model() {
    property("*", "operator");
}

#[test]
fn division_matches_the_model() {
    property("/", "forwardslash-operator");
}

#[test]
fn integer_division_matches_the_model() {
    property("\\", "backslash-operator");
}

#[test]
fn modulo_matches_the_model() {
    property("Mod", "mod-operator");
}
