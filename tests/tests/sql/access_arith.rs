//! Access arithmetic (issue 45): in the Access dialect `/` gives Access's
//! quotient (a Double, not DataFusion's integer division), decimal
//! literals divide as Doubles, `--` is two minus signs, `Between` takes
//! its bounds in either order, a zero divisor is an error, and `\` and
//! `Mod` are unchanged; the DataFusion dialect keeps its own answers.
//! Expected values are Microsoft's (each test names its page); the
//! property test checks `/` against IEEE division computed here.
//!
//! The tests over Northwind read the corpus (`mdbtools/nwind.mdb`) and are
//! skipped without it; the others need no file.

use super::access_support::{error, nwind, session, value};
use datafusion::common::ScalarValue;
use jet_provider::SqlDialect;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Microsoft's "/ operator" page (VBA; Access's expression service
/// follows it): the result is a Double, a Single when both operands are
/// Byte, Integer or Single, a Decimal when either is a Decimal, Null when
/// either is Null.
const DIVISION: &str = "https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator";

fn double(sql: &str, v: &ScalarValue) -> f64 {
    match v {
        ScalarValue::Float64(Some(f)) => *f,
        other => panic!("{sql}: {other:?} is no Double ({DIVISION})"),
    }
}

/// `1/2` is 0.5 and `7/2` is 3.5: `/` is floating-point division
/// ("Used to divide two numbers and return a floating-point result",
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_of_whole_numbers_is_a_double_quotient() {
    let s = session(SqlDialect::Access);
    assert_eq!(double("1/2", &value(&s, "SELECT 1/2").await), 0.5);
    assert_eq!(double("7/2", &value(&s, "SELECT 7/2").await), 3.5);
    assert_eq!(double("-7/2", &value(&s, "SELECT -7/2").await), -3.5);
}

/// An Integer column divided by a whole number is a Double: Quantity 10
/// (Integer) / 4 is 2.5
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn integer_column_divides_to_a_double() {
    let Some(s) = nwind() else { return };
    let sql = "SELECT Quantity/4 FROM [Order Details] WHERE OrderID = 10248 AND Quantity = 10";
    assert_eq!(double(sql, &value(&s, sql).await), 2.5);
}

/// A Currency column divides as Double: UnitPrice 14 / 3 is the Double
/// nearest 14/3, which Access shows as 4.66666666666667 (its 15-digit
/// display of the same Double), not an 8-place decimal (Currency is none
/// of the Single or Decimal cases of
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn currency_column_divides_to_a_double() {
    let Some(s) = nwind() else { return };
    let sql = "SELECT UnitPrice/3 FROM [Order Details] WHERE OrderID = 10248 AND UnitPrice = 14";
    let q = double(sql, &value(&s, sql).await);
    assert_eq!(q, 14.0 / 3.0);
    assert_eq!(format!("{q:.14}"), "4.66666666666667");
}

/// A literal with a decimal point is a Double in Access SQL: `1.0/3.001`
/// is the Double quotient 0.333222259246918 (Access's display), not a
/// 5-place decimal
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decimal_literals_divide_as_doubles() {
    let s = session(SqlDialect::Access);
    let q = double("1.0/3.001", &value(&s, "SELECT 1.0/3.001").await);
    assert_eq!(q, 1.0 / 3.001);
    assert_eq!(format!("{q:.15}"), "0.333222259246918");
}

/// `IIf(1/2 > 0.4, …)` takes the True part: 1/2 is 0.5
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator;
/// IIf:
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/iif-function).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iif_sees_the_double_quotient() {
    let s = session(SqlDialect::Access);
    let v = value(&s, "SELECT IIf(1/2 > 0.4, 'yes', 'no')").await;
    assert_eq!(v, ScalarValue::Utf8(Some("yes".into())));
}

/// `30--7` is 30 − (−7) = 37: Access SQL has no `--` comment (its SQL
/// reference,
/// https://learn.microsoft.com/office/client-developer/access/desktop-database-reference/microsoft-access-sql-reference,
/// defines none; `-` is subtraction and negation:
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/subtraction-operator).
/// `--` followed by a blank stays a comment to the end of the line, as
/// jetsql's scripts write them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn double_minus_is_subtraction_of_a_negative() {
    let s = session(SqlDialect::Access);
    assert_eq!(
        value(&s, "SELECT 30--7").await,
        ScalarValue::Int64(Some(37))
    );
    assert_eq!(
        value(&s, "SELECT 30---7").await,
        ScalarValue::Int64(Some(23))
    );
    assert_eq!(
        value(&s, "SELECT 30 -- a note\n - 7").await,
        ScalarValue::Int64(Some(23))
    );
    // the `;` after `--7` ends the statement
    assert_eq!(
        value(&s, "SELECT 1--1; SELECT 30--7").await,
        ScalarValue::Int64(Some(37))
    );
}

/// `5 Between 10 And 1` is True: Access takes the bounds in either order;
/// Null when a bound is Null ("Between...And operator",
/// https://learn.microsoft.com/office/vba/access/concepts/miscellaneous/between-and-operator:
/// "If expr, value1, or value2 is Null, Between...And returns a Null
/// value").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn between_takes_its_bounds_in_either_order() {
    let s = session(SqlDialect::Access);
    for (sql, want) in [
        ("SELECT 5 Between 10 And 1", Some(true)),
        ("SELECT 5 Between 1 And 10", Some(true)),
        ("SELECT 10 Between 10 And 1", Some(true)),
        ("SELECT 11 Between 10 And 1", Some(false)),
        ("SELECT 5 Not Between 10 And 1", Some(false)),
        ("SELECT 11 Not Between 10 And 1", Some(true)),
        ("SELECT 'b' Between 'c' And 'a'", Some(true)),
        ("SELECT 5 Between Null And 1", None),
        ("SELECT 5 Not Between 10 And Null", None),
        ("SELECT Null Between 10 And 1", None),
    ] {
        let v = value(&s, sql).await;
        match want {
            Some(b) => assert_eq!(v, ScalarValue::Boolean(Some(b)), "{sql}"),
            None => assert!(v.is_null(), "{sql}: {v:?}"),
        }
    }
}

/// Over a table: reversed bounds select the same orders (10248 to 10250,
/// three), and reversed date bounds still seek the OrderDate index.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reversed_bounds_select_the_range_and_still_seek() {
    let Some(s) = nwind() else { return };
    for sql in [
        "SELECT count(*) FROM Orders WHERE OrderID Between 10250 And 10248",
        "SELECT count(*) FROM Orders WHERE OrderID Between 10248 And 10250",
    ] {
        assert_eq!(value(&s, sql).await, ScalarValue::Int64(Some(3)), "{sql}");
    }
    let a = value(
        &s,
        "SELECT count(*) FROM Orders WHERE OrderDate Between #1/31/1995# And #1/1/1995#",
    )
    .await;
    let b = value(
        &s,
        "SELECT count(*) FROM Orders WHERE OrderDate >= #1/1/1995# And OrderDate <= #1/31/1995#",
    )
    .await;
    assert_eq!(a, b);
    let batches = s
        .sql("EXPLAIN SELECT count(*) FROM Orders WHERE OrderDate Between #1/31/1995# And #1/1/1995#")
        .await
        .unwrap();
    let plan = datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string();
    assert!(plan.contains("IndexSeekExec"), "{plan}");
}

/// Division by zero is an error; a Null operand gives Null ("If one or
/// both expressions are Null expressions, result is Null",
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator;
/// error 11, "Division by zero":
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/division-by-zero-error-11).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zero_divisors_are_errors_and_nulls_propagate() {
    let s = session(SqlDialect::Access);
    for sql in [
        "SELECT 1/0",
        "SELECT 1.5/0.0",
        "SELECT CInt(7)/CInt(0)",
        "SELECT CDec(7)/0",
    ] {
        let e = error(&s, sql).await;
        assert!(e.contains("Division by zero"), "{sql}: {e}");
    }
    for sql in ["SELECT 1/Null", "SELECT Null/2", "SELECT Null/0"] {
        let v = value(&s, sql).await;
        assert!(v.is_null(), "{sql}: {v:?}");
    }
}

/// Two Integers divide as a Single ("Both expressions are Byte, Integer,
/// or Single expressions": "A Single"); a Decimal operand gives a Decimal
/// ("Division involves a Decimal and any other data type": "A Decimal
/// data type"; here CDec's scale of 10 places)
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_and_decimal_quotients() {
    let s = session(SqlDialect::Access);
    assert_eq!(
        value(&s, "SELECT CInt(10)/CInt(4)").await,
        ScalarValue::Float32(Some(2.5))
    );
    assert_eq!(
        value(&s, "SELECT CSng(1)/CByte(3)").await,
        ScalarValue::Float32(Some(1.0f32 / 3.0))
    );
    // Integer / Long is a Double
    assert_eq!(
        value(&s, "SELECT CInt(1)/CLng(3)").await,
        ScalarValue::Float64(Some(1.0 / 3.0))
    );
    assert_eq!(
        value(&s, "SELECT CDec(1)/3").await,
        ScalarValue::Decimal128(Some(3_333_333_333), 38, 10)
    );
    assert_eq!(
        value(&s, "SELECT CDec(10)/4").await,
        ScalarValue::Decimal128(Some(25_000_000_000), 38, 10)
    );
}

/// `\` and `Mod` keep their meanings: 11 \ 4 is 2 and 10 Mod 3 is 1, the
/// operands rounded to whole numbers first
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/backslash-operator,
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/mod-operator).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn integer_division_and_mod_are_unchanged() {
    let s = session(SqlDialect::Access);
    for (sql, want) in [
        ("SELECT 11 \\ 4", 2),
        ("SELECT 7 \\ 2", 3),
        ("SELECT 10 Mod 3", 1),
        ("SELECT 12 Mod 4.3", 0),
        // 7/2 is 3.5, which \ rounds half to even first: 4 \ 1
        ("SELECT 7/2 \\ 1", 4),
    ] {
        assert_eq!(
            value(&s, sql).await,
            ScalarValue::Int64(Some(want)),
            "{sql}"
        );
    }
}

/// `Xor`, `Eqv` and `Imp` follow Microsoft's three-valued tables and
/// examples (A = 10, B = 8, C = 6, D = Null):
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/xor-operator,
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/eqv-operator,
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/imp-operator;
/// they bind more loosely than the comparisons, `And` and `Or`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xor_eqv_imp_follow_the_three_valued_tables() {
    let s = session(SqlDialect::Access);
    for (sql, want) in [
        // Xor
        ("SELECT 10 > 8 Xor 8 > 6", Some(false)),
        ("SELECT 8 > 10 Xor 8 > 6", Some(true)),
        ("SELECT 8 > 10 Xor 6 > 8", Some(false)),
        ("SELECT 8 > Null Xor 10 > 8", None),
        // Eqv
        ("SELECT 10 > 8 Eqv 8 > 6", Some(true)),
        ("SELECT 8 > 10 Eqv 8 > 6", Some(false)),
        ("SELECT 10 > 8 Eqv 8 > Null", None),
        // Imp: every row of the page's table
        ("SELECT True Imp True", Some(true)),
        ("SELECT True Imp False", Some(false)),
        ("SELECT True Imp Null", None),
        ("SELECT False Imp True", Some(true)),
        ("SELECT False Imp False", Some(true)),
        ("SELECT False Imp Null", Some(true)),
        ("SELECT Null Imp True", Some(true)),
        ("SELECT Null Imp False", None),
        ("SELECT Null Imp Null", None),
        // the page's examples
        ("SELECT 10 > 8 Imp 8 > 6", Some(true)),
        ("SELECT 10 > 8 Imp 6 > 8", Some(false)),
        ("SELECT 8 > 10 Imp 6 > 8", Some(true)),
        ("SELECT 8 > 10 Imp 6 > Null", Some(true)),
        ("SELECT 6 > Null Imp 8 > 10", None),
        // looser than Or: (True Or False) Xor True
        ("SELECT True Or False Xor True", Some(false)),
    ] {
        let v = value(&s, sql).await;
        match want {
            Some(b) => assert_eq!(v, ScalarValue::Boolean(Some(b)), "{sql}"),
            None => assert!(v.is_null(), "{sql}: {v:?}"),
        }
    }
}

/// On whole numbers `And`, `Or`, `Xor`, `Eqv` and `Imp` compare bits:
/// `5 And 3` is 1, and the pages' examples `10 Xor 8` = 2, `10 Eqv 8` =
/// −3, `8 Imp 10` = −1
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/and-operator,
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/or-operator
/// and the Xor, Eqv and Imp pages above).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logical_operators_compare_the_bits_of_whole_numbers() {
    let s = session(SqlDialect::Access);
    for (sql, want) in [
        ("SELECT 5 And 3", 1),
        ("SELECT 5 Or 3", 7),
        ("SELECT 10 Xor 8", 2),
        ("SELECT 10 Eqv 8", -3),
        ("SELECT 8 Imp 10", -1),
        // True is −1
        ("SELECT True And 6", 6),
    ] {
        assert_eq!(
            value(&s, sql).await,
            ScalarValue::Int64(Some(want)),
            "{sql}"
        );
    }
}

/// A numeric text and a number add as numbers: `"25" + 12` is 37 (the +
/// operator page:
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/addition-operator,
/// "One expression is numeric and the other a string: Add"); two texts
/// still concatenate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_numeric_text_adds_to_a_number() {
    let s = session(SqlDialect::Access);
    assert_eq!(
        double("\"25\" + 12", &value(&s, "SELECT \"25\" + 12").await),
        37.0
    );
    assert_eq!(
        double("12 + '25'", &value(&s, "SELECT 12 + '25'").await),
        37.0
    );
    assert_eq!(
        double("'25' - 12", &value(&s, "SELECT '25' - 12").await),
        13.0
    );
    assert_eq!(
        value(&s, "SELECT '25' + '12'").await,
        ScalarValue::Utf8(Some("2512".into()))
    );
    let e = error(&s, "SELECT 'abc' + 12").await;
    assert!(e.contains("type mismatch"), "{e}");
}

/// The last two examples as typed. `True Xor False` is True
/// ("If expression1 is True and expression2 is False, result is True",
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/xor-operator).
/// `Pmt(0.1/12, 36, -1000)` is the monthly payment of 1,000 over 36
/// months at 10% a year (the Pmt function,
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/pmt-function):
/// numpy-financial's `npf.pmt(0.1/12, 36, -1000)` is 32.26718719383758
/// (the two agree to 1e-9; their last digits differ with the order of
/// the floating-point operations).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xor_of_literals_and_pmt_give_accesss_answers() {
    let s = session(SqlDialect::Access);
    assert_eq!(
        value(&s, "SELECT True Xor False").await,
        ScalarValue::Boolean(Some(true))
    );
    let sql = "SELECT Pmt(0.1/12, 36, -1000)";
    let p = double(sql, &value(&s, sql).await);
    let numpy = 32.26718719383758_f64;
    assert!((p - numpy).abs() <= 1e-9 * numpy, "{sql}: {p}");
}

/// Negation keeps Access's types and never wraps ("- operator",
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/operator-minus,
/// and "Overflow (Error 6)": a result outside its type's range is an
/// error, https://learn.microsoft.com/office/vba/language/reference/user-interface-help/overflow-error-6):
/// `-CInt(-32768)` leaves the Integer range (SQL's negation wrapped it to
/// -32768), a Byte or Yes/No negates to an Integer (`-True` is 1), text
/// to a Double, a Date stays a Date (serial 36526, 1/1/2000, negated is
/// 36526 days before 12/30/1899).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn negation_keeps_types_and_reports_overflow() {
    let s = session(SqlDialect::Access);
    for sql in [
        "SELECT -CInt(-32768)",
        "SELECT -CLng(-2147483648)",
        "SELECT -(CInt(-32767) - CInt(1))",
    ] {
        let e = error(&s, sql).await;
        assert!(e.contains("overflow"), "{sql}: {e}");
    }
    for (sql, want) in [
        (
            "SELECT TypeName(-CByte(5)) & ' ' & CStr(-CByte(5))",
            "Integer -5",
        ),
        ("SELECT TypeName(-True) & ' ' & CStr(-True)", "Integer 1"),
        (
            "SELECT TypeName(-CInt(-32767)) & ' ' & CStr(-CInt(-32767))",
            "Integer 32767",
        ),
        (
            "SELECT TypeName(-'2.5') & ' ' & CStr(-'2.5')",
            "Double -2.5",
        ),
        (
            "SELECT TypeName(-CCur(12.5)) & ' ' & CStr(-CCur(12.5))",
            "Currency -12.5",
        ),
        (
            "SELECT TypeName(-CSng(1.5)) & ' ' & CStr(-CSng(1.5))",
            "Single -1.5",
        ),
        (
            "SELECT TypeName(-#1/1/2000#) & ' ' & CStr(-#1/1/2000#)",
            "Date 12/28/1799",
        ),
        (
            "SELECT TypeName(-CDec(1.25)) & ' ' & CStr(-CDec(1.25))",
            "Decimal -1.25",
        ),
    ] {
        assert_eq!(
            value(&s, sql).await,
            ScalarValue::Utf8(Some(want.into())),
            "{sql}"
        );
    }
    assert!(value(&s, "SELECT -Null").await.is_null());
    let e = error(&s, "SELECT -'abc'").await;
    assert!(e.contains("type mismatch"), "{e}");
    // literals still fold, and a double minus is still arithmetic
    assert_eq!(value(&s, "SELECT -5").await, ScalarValue::Int64(Some(-5)));
    assert_eq!(
        value(&s, "SELECT 30 - -CInt(7)").await,
        ScalarValue::Int64(Some(37))
    );
}

/// A column negated keeps its type: Northwind's Quantity is an Integer,
/// so `-Quantity` is one, row by row, with the sum unchanged in size.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn negated_columns_keep_their_types() {
    let Some(s) = nwind() else { return };
    let plain = value(&s, "SELECT Sum(Quantity) FROM [Order Details]").await;
    let negated = value(&s, "SELECT -Sum(-Quantity) FROM [Order Details]").await;
    assert_eq!(plain, negated);
    assert_eq!(
        value(&s, "SELECT TypeName(-Quantity) FROM [Order Details]").await,
        ScalarValue::Utf8(Some("Integer".into()))
    );
}

/// Null with a number in `And`, `Or` and `Imp` answers as the pages'
/// logical tables do, with 0 as False and -1 as True: "False And Null"
/// is False, "True Or Null" is True, "False Imp Null" and "Null Imp
/// True" are True; any other Null operand gives Null
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/and-operator,
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/or-operator,
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/imp-operator).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn null_with_numbers_follows_the_logical_tables() {
    let s = session(SqlDialect::Access);
    for (sql, want) in [
        ("SELECT Null And 0", Some(0)),
        ("SELECT 0 And Null", Some(0)),
        ("SELECT Null And 5", None),
        ("SELECT Null Or -1", Some(-1)),
        ("SELECT -1 Or Null", Some(-1)),
        ("SELECT Null Or 5", None),
        ("SELECT 0 Imp Null", Some(-1)),
        ("SELECT Null Imp -1", Some(-1)),
        ("SELECT 5 Imp Null", None),
        ("SELECT Null Imp 0", None),
        ("SELECT Null Xor 0", None),
        ("SELECT Null Eqv 0", None),
    ] {
        assert_eq!(value(&s, sql).await, ScalarValue::Int64(want), "{sql}");
    }
}

/// Serial 0, midnight of 12/30/1899, shows as a time: a value with no
/// whole part is a time alone in General Date ("If there is no integer
/// part, display time only",
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/format-function-visual-basic-for-applications),
/// so `TimeSerial(0, 0, 0)` is 12:00:00 AM, as the TimeSerial page's
/// times are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn midnight_of_day_zero_is_a_time() {
    let s = session(SqlDialect::Access);
    for sql in [
        "SELECT CStr(TimeSerial(0, 0, 0))",
        "SELECT CStr(CDate(0))",
        "SELECT Format(0, 'General Date')",
    ] {
        assert_eq!(
            value(&s, sql).await,
            ScalarValue::Utf8(Some("12:00:00 AM".into())),
            "{sql}"
        );
    }
    assert_eq!(
        value(&s, "SELECT CStr(CDate(1))").await,
        ScalarValue::Utf8(Some("12/31/1899".into()))
    );
}

/// The DataFusion dialect keeps DataFusion's answers: integer division,
/// `--` comments, BETWEEN with its bounds in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn datafusion_dialect_keeps_its_own_answers() {
    let s = session(SqlDialect::DataFusion);
    assert_eq!(value(&s, "SELECT 1/2").await, ScalarValue::Int64(Some(0)));
    assert_eq!(value(&s, "SELECT 7/2").await, ScalarValue::Int64(Some(3)));
    assert_eq!(
        value(&s, "SELECT 30--7").await,
        ScalarValue::Int64(Some(30))
    );
    assert_eq!(
        value(&s, "SELECT 5 BETWEEN 10 AND 1").await,
        ScalarValue::Boolean(Some(false))
    );
}

/// A `/` operand of the property test: how it is written and the Access
/// type it has.
#[derive(Debug, Clone)]
enum Operand {
    /// `CInt(n)`: Integer.
    Integer(i16),
    /// `CLng(n)`: Long.
    Long(i32),
    /// A bare whole number (DataFusion's BigInt literal).
    Literal(i32),
    /// `CDbl('…')`: Double, spelt so it reads back exactly.
    Double(f64),
}

impl Operand {
    fn sql(&self) -> String {
        match self {
            Operand::Integer(n) => format!("CInt({n})"),
            Operand::Long(n) => format!("CLng({n})"),
            Operand::Literal(n) => format!("({n})"),
            Operand::Double(x) => format!("CDbl('{x:e}')"),
        }
    }
    fn number(&self) -> f64 {
        match self {
            Operand::Integer(n) => f64::from(*n),
            Operand::Long(n) | Operand::Literal(n) => f64::from(*n),
            Operand::Double(x) => *x,
        }
    }
}

fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        any::<i16>().prop_map(Operand::Integer),
        any::<i32>().prop_map(Operand::Long),
        (-1000i32..1000).prop_map(Operand::Literal),
        (-1.0e12f64..1.0e12).prop_map(Operand::Double),
        any::<i8>().prop_map(|n| Operand::Integer(i16::from(n))),
    ]
}

/// `a / b` in the Access dialect is IEEE division computed here: in
/// Single for two Integers, in Double otherwise
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator);
/// a zero divisor is "Division by zero".
#[test]
fn division_is_ieee_division() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let s = session(SqlDialect::Access);
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&(operand(), operand()), |(a, b)| {
        let sql = format!("SELECT {} / {}", a.sql(), b.sql());
        let got = rt.block_on(s.sql(&sql));
        if b.number() == 0.0 {
            let e = match got {
                Ok(_) => return Err(TestCaseError::fail(format!("{sql}: no error"))),
                Err(e) => e.to_string(),
            };
            prop_assert!(e.contains("Division by zero"), "{}: {}", sql, e);
            return Ok(());
        }
        let batches = got.map_err(|e| TestCaseError::fail(format!("{sql}: {e}")))?;
        let v = ScalarValue::try_from_array(batches[0].column(0), 0)
            .map_err(|e| TestCaseError::fail(format!("{sql}: {e}")))?;
        match (&a, &b) {
            (Operand::Integer(x), Operand::Integer(y)) => {
                let want = f32::from(*x) / f32::from(*y);
                prop_assert_eq!(v, ScalarValue::Float32(Some(want)), "{}", sql);
            }
            _ => {
                let want = a.number() / b.number();
                prop_assert!(want.is_finite(), "{}: the oracle overflowed", sql);
                prop_assert_eq!(v, ScalarValue::Float64(Some(want)), "{}", sql);
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
