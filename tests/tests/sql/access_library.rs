//! Access's function library against Microsoft's list (issue 45):
//! VarType and TypeName of literals and of a column of every Access type
//! the bundled sample (`fixtures/sample.mdb`) and Northwind have, the Is
//! functions, Partition, QBColor, RGB, the domain aggregates DStDev,
//! DStDevP, DVar and DVarP, and a check that every function
//! `docs/access-functions.md` lists as supported can be called in the
//! Access dialect. Expected values are Microsoft's (each test names its
//! page).
//!
//! The Northwind tests read the corpus (`mdbtools/nwind.mdb`) and are
//! skipped without it; the others need only the bundled sample.

use super::access_support::{nwind, session};
use datafusion::common::ScalarValue;
use jet_provider::{JetOptions, JetSession, SqlDialect};
use std::collections::HashSet;

/// Microsoft's VarType page ("the VarType page" in the tests).
const VARTYPE: &str = "https://learn.microsoft.com/office/vba/language/reference/user-interface-help/vartype-function";
/// Microsoft's TypeName page ("the TypeName page" in the tests).
const TYPENAME: &str = "https://learn.microsoft.com/office/vba/language/reference/user-interface-help/typename-function";

/// An Access-dialect session over the bundled sample database.
fn sample() -> JetSession {
    let s = session(SqlDialect::Access);
    s.register(
        "fx",
        jet_tests::workspace_root().join("fixtures/sample.mdb"),
        JetOptions::default(),
        true,
    )
    .unwrap();
    s
}

/// The first row `sql` answers.
async fn row(s: &JetSession, sql: &str) -> Vec<ScalarValue> {
    let batches = s.sql(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    let b = batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .unwrap_or_else(|| panic!("{sql}: no row"));
    (0..b.num_columns())
        .map(|c| ScalarValue::try_from_array(b.column(c), 0).unwrap())
        .collect()
}

/// Every row `sql` answers.
async fn rows(s: &JetSession, sql: &str) -> Vec<Vec<ScalarValue>> {
    let batches = s.sql(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    let mut out = Vec::new();
    for b in &batches {
        for r in 0..b.num_rows() {
            out.push(
                (0..b.num_columns())
                    .map(|c| ScalarValue::try_from_array(b.column(c), r).unwrap())
                    .collect(),
            );
        }
    }
    out
}

/// A whole number of any integer type.
fn int(sql: &str, v: &ScalarValue) -> i64 {
    match v {
        ScalarValue::Int16(Some(n)) => i64::from(*n),
        ScalarValue::Int32(Some(n)) => i64::from(*n),
        ScalarValue::Int64(Some(n)) => *n,
        other => panic!("{sql}: {other:?} is no whole number"),
    }
}

/// Text (Null as `None`).
fn text(sql: &str, v: &ScalarValue) -> Option<String> {
    match v.try_as_str() {
        Some(t) => t.map(str::to_string),
        None => panic!("{sql}: {v:?} is no text"),
    }
}

/// A Double (Null as `None`).
fn double(sql: &str, v: &ScalarValue) -> Option<f64> {
    match v {
        ScalarValue::Float64(f) => *f,
        other => panic!("{sql}: {other:?} is no Double"),
    }
}

fn yes_no(sql: &str, v: &ScalarValue) -> bool {
    match v {
        ScalarValue::Boolean(Some(b)) => *b,
        other => panic!("{sql}: {other:?} is no Yes/No"),
    }
}

/// `VarType(expr), TypeName(expr)` over `from` (empty: no table).
async fn var_type(s: &JetSession, expr: &str, from: &str) -> (i64, String) {
    let sql = format!("SELECT VarType({expr}), TypeName({expr}) {from}");
    let r = row(s, &sql).await;
    let name = text(&sql, &r[1]).unwrap_or_else(|| panic!("{sql}: TypeName is Null"));
    (int(&sql, &r[0]), name)
}

/// The example: in Access `1` is an Integer literal, so
/// `VarType(1)` is 2 (vbInteger, the VarType page) and `TypeName(1)` is
/// "Integer" (the TypeName page).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vartype_of_one_is_integer() {
    let s = session(SqlDialect::Access);
    let sql = "SELECT VarType(1), TypeName(1)";
    let r = row(&s, sql).await;
    assert_eq!(r[0], ScalarValue::Int16(Some(2)), "{sql}: {VARTYPE}");
    assert_eq!(
        text(sql, &r[1]).as_deref(),
        Some("Integer"),
        "{sql}: {TYPENAME}"
    );
}

/// Literals have Access's literal types (a whole number too big for an
/// Integer is a Long, a number with a decimal point a Double, text a
/// String, a `#…#` date a Date: the VarType page's example gives 2, 7
/// and 8 for 459, #2/12/69# and "Hello World"), Null is vbNull and
/// "Null" (the TypeName page's example), and each conversion function
/// returns the type Microsoft's Type Conversion Functions page gives it
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/type-conversion-functions),
/// reported with the codes of the VarType page and the names of the TypeName page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vartype_of_literals_and_conversions() {
    let s = session(SqlDialect::Access);
    let cases: &[(&str, i64, &str)] = &[
        ("459", 2, "Integer"),
        ("100000", 3, "Long"),
        ("1.5", 5, "Double"),
        ("'Hello World'", 8, "String"),
        ("#2/12/69#", 7, "Date"),
        ("Null", 1, "Null"),
        ("CBool(1)", 11, "Boolean"),
        ("CByte(1)", 17, "Byte"),
        ("CCur(1)", 6, "Currency"),
        ("CDate(1)", 7, "Date"),
        ("CDbl(1)", 5, "Double"),
        ("CDec(1)", 14, "Decimal"),
        ("CInt(1)", 2, "Integer"),
        ("CLng(1)", 3, "Long"),
        ("CSng(1)", 4, "Single"),
        ("CStr(1)", 8, "String"),
    ];
    for (expr, code, name) in cases {
        assert_eq!(
            var_type(&s, expr, "").await,
            (*code, name.to_string()),
            "VarType/TypeName({expr})"
        );
    }
}

/// A column of every Access type of the bundled sample: the value of a
/// field has the VBA type of its data type (Long Integer → Long 3, Text
/// and Memo → String 8, Date/Time → Date 7, Currency 6, Yes/No → Boolean
/// 11, Integer 2, Single 4, Byte 17, Double 5, Decimal 14; codes from
/// the VarType page, names from the TypeName page).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vartype_of_every_sample_column_type() {
    let s = sample();
    let cases: &[(&str, &str, i64, &str)] = &[
        ("Customers", "CustomerID", 3, "Long"),
        ("Customers", "Company", 8, "String"),
        ("Customers", "Notes", 8, "String"),
        ("Customers", "CustomerSince", 7, "Date"),
        ("Customers", "CreditLimit", 6, "Currency"),
        ("Customers", "Active", 11, "Boolean"),
        ("Products", "UnitsInStock", 2, "Integer"),
        ("Products", "WeightKg", 4, "Single"),
        ("Orders", "Status", 17, "Byte"),
        ("OrderLines", "Discount", 5, "Double"),
        ("OrderLines", "LineTotal", 14, "Decimal"),
    ];
    for (table, column, code, name) in cases {
        let from = format!("FROM [{table}] WHERE [{column}] IS NOT NULL");
        assert_eq!(
            var_type(&s, &format!("[{column}]"), &from).await,
            (*code, name.to_string()),
            "{table}.{column}"
        );
    }
}

/// A Null field is vbNull (1), "Null", whatever the field's type
/// (the VarType page, the TypeName page).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vartype_of_a_null_field_is_null() {
    let s = sample();
    let from = "FROM Orders WHERE ShippedDate IS NULL";
    assert_eq!(
        var_type(&s, "ShippedDate", from).await,
        (1, "Null".to_string())
    );
}

/// An OLE Object field holds binary data, a Byte array to VBA: vbArray +
/// vbByte = 8209 ("the value returned for an array of integers is
/// calculated as vbInteger + vbArray", the VarType page) and "Byte()" ("if
/// varname is an array … with empty parentheses appended", the TypeName page);
/// IsArray is True for it
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/isarray-function).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vartype_of_an_ole_object_field() {
    let Some(s) = nwind() else { return };
    let from = "FROM Categories WHERE Picture IS NOT NULL";
    assert_eq!(
        var_type(&s, "Picture", from).await,
        (8209, "Byte()".to_string())
    );
    let sql = format!("SELECT IsArray(Picture) {from}");
    assert!(yes_no(&sql, &row(&s, &sql).await[0]), "{sql}");
}

/// IsArray is False for values that are not arrays and for Null
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/isarray-function);
/// IsError, IsMissing and IsObject are False for every value a query has
/// (no value is an error value made by CVErr, a missing optional
/// argument or an object:
/// https://learn.microsoft.com/office/vba/language/reference/user-interface-help/iserror-function,
/// …/ismissing-function, …/isobject-function).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn is_functions_of_query_values() {
    let s = sample();
    let sql = "SELECT IsArray(Company), IsArray(Null), IsError(Company), IsError(Null), \
               IsMissing(Company), IsObject(Company), IsObject(Null) FROM Customers";
    for v in row(&s, sql).await {
        assert!(!yes_no(sql, &v), "{sql}");
    }
}

/// Partition: "if interval is 1, number is 100 and stop is 1000,
/// Partition returns \" 100: 100\""
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/partition-function);
/// Microsoft's VB.NET page of the same function gives " 20: 29" and
/// "190:199" for start 20, stop 199, interval 10 and " 100: 119" and
/// "1000:1010" for start 100, stop 1010, interval 20
/// (https://learn.microsoft.com/previous-versions/visualstudio/visual-studio-2008/ek4702k8(v=vs.90));
/// a Null argument gives Null.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partition_of_constants() {
    let s = session(SqlDialect::Access);
    let cases = [
        ("Partition(100, 0, 1000, 1)", " 100: 100"),
        ("Partition(25, 20, 199, 10)", " 20: 29"),
        ("Partition(199, 20, 199, 10)", "190:199"),
        ("Partition(100, 100, 1010, 20)", " 100: 119"),
        ("Partition(1010, 100, 1010, 20)", "1000:1010"),
    ];
    for (expr, want) in cases {
        let sql = format!("SELECT {expr}");
        assert_eq!(
            text(&sql, &row(&s, &sql).await[0]).as_deref(),
            Some(want),
            "{sql}"
        );
    }
    let sql = "SELECT Partition(Null, 0, 10, 1)";
    assert_eq!(text(sql, &row(&s, sql).await[0]), None, "{sql}");
    let e = s
        .sql("SELECT Partition(5, 10, 10, 1)")
        .await
        .expect_err("stop must be greater than start")
        .to_string();
    assert!(e.contains("Partition"), "{e}");
}

/// The Partition page's example query over Northwind's Orders (without
/// its DISTINCTROW, counting rows): every order falls in one range, so
/// the counts add up to the 830 orders (the row count mdbtools reports,
/// `oracle/mdbtools/nwind.mdb.tsv`), and the ranges are padded so that
/// sorting them as text sorts them by number, as the page says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partition_groups_orders_by_freight() {
    let Some(s) = nwind() else { return };
    let sql = "SELECT Partition([freight], 0, 500, 50) AS Freights, Count(*) AS N FROM Orders \
               GROUP BY Partition([freight], 0, 500, 50)";
    let got = rows(&s, sql).await;
    let total: i64 = got.iter().map(|r| int(sql, &r[1])).sum();
    assert_eq!(total, 830, "{sql}");
    let mut ranges: Vec<String> = got
        .iter()
        .map(|r| text(sql, &r[0]).unwrap_or_else(|| panic!("{sql}: a Null range")))
        .collect();
    for r in &ranges {
        // both sides as wide as "501", stop + 1
        assert_eq!(r.len(), 7, "{r:?}");
    }
    ranges.sort();
    let lower = |r: &String| r[..3].trim().parse::<i64>().unwrap();
    let numeric: Vec<i64> = ranges.iter().map(lower).collect();
    let mut sorted = numeric.clone();
    sorted.sort();
    assert_eq!(numeric, sorted, "{ranges:?}");
    assert!(ranges.contains(&"  0: 49".to_string()), "{ranges:?}");
}

/// RGB: Red is (255, 0, 0), White (255, 255, 255); "the value for any
/// argument to RGB that exceeds 255 is assumed to be 255"
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/rgb-function).
/// QBColor: 0 is Black and 15 Bright White
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/qbcolor-function),
/// the RGB values of those colours on the RGB page; both return a Long.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rgb_and_qbcolor() {
    let s = session(SqlDialect::Access);
    let sql = "SELECT RGB(255, 0, 0), RGB(255, 255, 255), RGB(300, 0, 0), QBColor(0), QBColor(15)";
    let r = row(&s, sql).await;
    assert!(
        matches!(r[0], ScalarValue::Int32(_)),
        "{sql}: {:?} is no Long",
        r[0]
    );
    let got: Vec<i64> = r.iter().map(|v| int(sql, v)).collect();
    assert_eq!(got, vec![255, 16_777_215, 255, 0, 16_777_215], "{sql}");
    assert!(s.sql("SELECT QBColor(16)").await.is_err());
}

/// DStDev, DStDevP, DVar and DVarP are StDev, StDevP, Var and VarP over
/// the domain ("if you simply want to find the standard deviation across
/// all records in domain, use the StDev or StDevP function",
/// https://learn.microsoft.com/office/vba/api/access.application.dstdevp;
/// the DVarP page says the same of Var and VarP), and Null when fewer
/// than two records satisfy the criteria (the same pages).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn domain_spread_functions() {
    let s = sample();
    for (domain, sql_aggregate) in [
        ("DStDev", "StDev"),
        ("DStDevP", "StDevP"),
        ("DVar", "Var"),
        ("DVarP", "VarP"),
    ] {
        let sql = format!(
            "SELECT {domain}(\"Freight\", \"Orders\") AS d, (SELECT {sql_aggregate}(Freight) FROM Orders) AS a"
        );
        let r = row(&s, &sql).await;
        let d = double(&sql, &r[0]).unwrap_or_else(|| panic!("{sql}: Null"));
        let a = double(&sql, &r[1]).unwrap_or_else(|| panic!("{sql}: Null"));
        assert!(d > 0.0, "{sql}");
        assert!((d - a).abs() <= 1e-9 * a.abs(), "{sql}: {d} and {a}");
        let one = format!("SELECT {domain}(\"Freight\", \"Orders\", \"OrderID = 1\")");
        assert_eq!(double(&one, &row(&s, &one).await[0]), None, "{one}");
    }
}

/// The statuses `docs/access-functions.md` gives a function.
const STATUSES: [&str; 3] = ["supported", "added", "left"];

/// One row of the list in `docs/access-functions.md`.
struct Listed {
    name: String,
    status: String,
    example: String,
}

/// The rows of the tables under "## The list" in the doc.
fn listed(doc: &str) -> Vec<Listed> {
    let mut out = Vec::new();
    let mut in_list = false;
    for line in doc.lines() {
        if line.starts_with("## ") {
            in_list = line.trim() == "## The list";
            continue;
        }
        if !in_list || !line.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        assert_eq!(cells.len(), 4, "a row of four cells: {line}");
        if cells[0] == "Function" || cells[0].starts_with("---") {
            continue;
        }
        assert!(STATUSES.contains(&cells[1]), "unknown status: {line}");
        out.push(Listed {
            name: cells[0].to_string(),
            status: cells[1].to_string(),
            example: cells[2].to_string(),
        });
    }
    out
}

/// Every function `docs/access-functions.md` lists as supported or added
/// runs in the Access dialect (its example, over the bundled sample for
/// the domain aggregates); functions left out give their reason; the
/// counts the document states are the counts of its rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documented_functions_are_callable() {
    let path = jet_tests::workspace_root().join("docs/access-functions.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let list = listed(&doc);
    let mut names = HashSet::new();
    for f in &list {
        assert!(
            names.insert(f.name.to_ascii_lowercase()),
            "{} twice",
            f.name
        );
    }
    let callable: Vec<&Listed> = list
        .iter()
        .filter(|f| f.status == "supported" || f.status == "added")
        .collect();
    let stated = format!("**{} of {}**", callable.len(), list.len());
    assert!(doc.contains(&stated), "the document should state {stated}");

    let s = sample();
    let mut failures = Vec::new();
    for f in &callable {
        let Some(expr) = f
            .example
            .strip_prefix('`')
            .and_then(|e| e.strip_suffix('`'))
        else {
            failures.push(format!("{}: no example call", f.name));
            continue;
        };
        assert!(
            expr.to_ascii_lowercase()
                .starts_with(&f.name.to_ascii_lowercase()),
            "{}'s example calls something else: {expr}",
            f.name
        );
        let sql = format!("SELECT {expr}");
        match s.sql(&sql).await {
            Ok(batches) if batches.iter().map(|b| b.num_rows()).sum::<usize>() == 1 => {}
            Ok(batches) => failures.push(format!("{sql}: {} batches, not one row", batches.len())),
            Err(e) => failures.push(format!("{sql}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "not callable:\n{}",
        failures.join("\n")
    );
}
