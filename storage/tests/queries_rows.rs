//! The pure saved-query rebuild over hand-made and random `MSysQueries`
//! rows: Jackcess's row-level tests replayed (expected strings from
//! Jackcess's src/test/java/com/healthmarketscience/jackcess/query/
//! QueryTest.java, Apache License 2.0: `testSelectQuery` and its `doTest*`
//! steps, `testUnionQuery`, `testPassthroughQuery`,
//! `testDataDefinitionQuery`, `testUpdateQuery`, `testAppendQuery`,
//! `testBadQueries`, `testComplexJoins`), then random rows that must never
//! panic it. Texts are compared up to whitespace.

use crate::support::queries as support;

use jet_storage::QueryKind;
use jet_storage::read::queries::{MAX_JOINS, rebuild};
use proptest::prelude::*;
use support::*;

#[test]
fn jackcess_select_query_steps() {
    // Expected strings: Jackcess QueryTest.testSelectQuery and its doTest* steps.
    let mut q = TestQuery::new(QueryKind::Select, None, None);
    q.add([r4(TABLE, None, Some("Table1"), None)]).set_flag(1);
    q.expect(&["SELECT *", "FROM Table1;"]);

    q.add([
        r4(COLUMN, Some("Table1.id"), None, None),
        r4(COLUMN, Some("Table1.col"), Some("Some.Alias"), None),
    ]);
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias], *",
        "FROM Table1;",
    ]);

    q.set_flag(3);
    q.expect(&[
        "SELECT DISTINCT Table1.id, Table1.col AS [Some.Alias], *",
        "FROM Table1;",
    ]);
    q.set_flag(9);
    q.expect(&[
        "SELECT DISTINCTROW Table1.id, Table1.col AS [Some.Alias], *",
        "FROM Table1;",
    ]);
    q.set_flag(7);
    q.expect(&[
        "SELECT DISTINCT Table1.id, Table1.col AS [Some.Alias], *",
        "FROM Table1",
        "WITH OWNERACCESS OPTION;",
    ]);
    q.replace(row(FLAGS, None, Some(49), None, Some("5"), None));
    q.expect(&[
        "SELECT TOP 5 PERCENT Table1.id, Table1.col AS [Some.Alias], *",
        "FROM Table1;",
    ]);
    q.set_flag(0);

    // parameters
    q.add([r5(PARAMETER, None, 3, Some("INT_VAL"), None)]);
    q.expect(&[
        "PARAMETERS INT_VAL Short;",
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        "FROM Table1;",
    ]);
    q.add([
        row(PARAMETER, None, Some(10), Some(50), Some("TextVal"), None),
        row(
            PARAMETER,
            None,
            Some(0),
            Some(50),
            Some("[Some Value]"),
            None,
        ),
    ]);
    q.expect(&[
        "PARAMETERS INT_VAL Short, TextVal Text(50), [Some Value] Value;",
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        "FROM Table1;",
    ]);
    let params = rebuild("TestQuery", 13, q.flags, &q.rows).parameters;
    assert_eq!(
        params,
        [
            ("INT_VAL", "Short"),
            ("TextVal", "Text(50)"),
            ("[Some Value]", "Value")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    q.add([r5(PARAMETER, None, -1, Some("BadVal"), None)]);
    q.expect_problem();
    q.remove(PARAMETER);

    // tables
    q.add([
        r4(TABLE, None, Some("Table2"), Some("Another Table")),
        r4(
            TABLE,
            Some("Select val from Table3"),
            Some("val"),
            Some("Table3Val"),
        ),
    ]);
    let from3 = "FROM Table1, Table2 AS [Another Table], [Select val from Table3].val AS Table3Val";
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        &format!("{from3};"),
    ]);

    // remote database
    q.add([r5(REMOTE, None, 2, Some("other_db.mdb"), None)]);
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        &format!("{from3} IN 'other_db.mdb';"),
    ]);
    q.replace(r5(REMOTE, Some("MDB_FILE;"), 2, Some("other_db.mdb"), None));
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        &format!("{from3} IN 'other_db.mdb' [MDB_FILE;];"),
    ]);
    q.replace(r5(REMOTE, Some("MDB_FILE;"), 2, None, None));
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        &format!("{from3} IN '' [MDB_FILE;];"),
    ]);
    q.remove(REMOTE);

    // joins
    q.add([r5(
        JOIN,
        Some("(Table1.id = [Another Table].id)"),
        1,
        Some("Table1"),
        Some("Another Table"),
    )]);
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        "FROM [Select val from Table3].val AS Table3Val, Table1 INNER JOIN Table2 AS [Another Table] ON (Table1.id = [Another Table].id);",
    ]);
    q.add([r5(
        JOIN,
        Some("(Table1.id = Table3Val.id)"),
        2,
        Some("Table1"),
        Some("Table3Val"),
    )]);
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        "FROM (Table1 INNER JOIN Table2 AS [Another Table] ON (Table1.id = [Another Table].id)) LEFT JOIN [Select val from Table3].val AS Table3Val ON (Table1.id = Table3Val.id);",
    ]);
    q.add([r5(
        JOIN,
        Some("(Table1.id = Table3Val.id)"),
        5,
        Some("Table1"),
        Some("Table3Val"),
    )]);
    q.expect_problem();
    q.rows.pop();
    q.sql();
    q.add([r5(
        JOIN,
        Some("(Table1.id = Table3Val.id)"),
        1,
        Some("BogusTable"),
        Some("Table3Val"),
    )]);
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        "FROM BogusTable INNER JOIN ((Table1 INNER JOIN Table2 AS [Another Table] ON (Table1.id = [Another Table].id)) LEFT JOIN [Select val from Table3].val AS Table3Val ON (Table1.id = Table3Val.id)) ON (Table1.id = Table3Val.id);",
    ]);
    q.remove(JOIN);

    // WHERE, GROUP BY, HAVING, ORDER BY
    q.add([r4(WHERE, Some("(Table1.col2 < 13)"), None, None)]);
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        from3,
        "WHERE (Table1.col2 < 13);",
    ]);
    q.add([
        r4(GROUP_BY, Some("Table1.id"), None, None),
        r4(GROUP_BY, Some("SUM(Table1.val)"), None, None),
    ]);
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        from3,
        "WHERE (Table1.col2 < 13)",
        "GROUP BY Table1.id, SUM(Table1.val);",
    ]);
    q.add([r4(HAVING, Some("(SUM(Table1.val) = 500)"), None, None)]);
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        from3,
        "WHERE (Table1.col2 < 13)",
        "GROUP BY Table1.id, SUM(Table1.val)",
        "HAVING (SUM(Table1.val) = 500);",
    ]);
    q.add([
        r4(ORDER_BY, Some("Table1.id"), None, None),
        r4(ORDER_BY, Some("Table2.val"), Some("D"), None),
    ]);
    q.expect(&[
        "SELECT Table1.id, Table1.col AS [Some.Alias]",
        from3,
        "WHERE (Table1.col2 < 13)",
        "GROUP BY Table1.id, SUM(Table1.val)",
        "HAVING (SUM(Table1.val) = 500)",
        "ORDER BY Table1.id, Table2.val DESC;",
    ]);
}

#[test]
fn jackcess_other_kinds() {
    // Expected strings: Jackcess QueryTest.testUnionQuery, testPassthroughQuery,
    // testDataDefinitionQuery, testUpdateQuery, testAppendQuery, testBadQueries.
    let mut u = TestQuery::new(QueryKind::Union, None, None);
    u.add([
        r4(
            TABLE,
            Some("Select * from Table1"),
            None,
            Some("X7YZ_____1"),
        ),
        r4(
            TABLE,
            Some("Select * from Table2"),
            None,
            Some("X7YZ_____2"),
        ),
    ])
    .set_flag(3);
    u.expect(&["Select * from Table1", "UNION Select * from Table2;"]);
    u.set_flag(1);
    u.expect(&["Select * from Table1", "UNION ALL Select * from Table2;"]);
    u.add([r4(ORDER_BY, Some("Table1.id"), None, None)]);
    u.expect(&[
        "Select * from Table1",
        "UNION ALL Select * from Table2",
        "ORDER BY Table1.id;",
    ]);
    u.remove(TABLE);
    u.expect_problem();

    let p = TestQuery::new(
        QueryKind::PassThrough,
        Some("Select * from Table1"),
        Some("ODBC;"),
    );
    assert_eq!(p.sql(), "Select * from Table1");
    let q = rebuild("TestQuery", 13, p.flags, &p.rows);
    assert_eq!(q.connect.as_deref(), Some("ODBC;"));

    let d = TestQuery::new(QueryKind::DataDefinition, Some("Drop table Table1"), None);
    assert_eq!(d.sql(), "Drop table Table1");

    let mut up = TestQuery::new(QueryKind::Update, None, None);
    up.add([
        r4(TABLE, None, Some("Table1"), None),
        r4(COLUMN, Some("\"some string\""), None, Some("Table1.id")),
        r4(COLUMN, Some("42"), None, Some("Table1.col1")),
    ]);
    up.expect(&[
        "UPDATE Table1",
        "SET Table1.id = \"some string\", Table1.col1 = 42;",
    ]);
    up.add([r4(WHERE, Some("(Table1.col2 < 13)"), None, None)]);
    up.expect(&[
        "UPDATE Table1",
        "SET Table1.id = \"some string\", Table1.col1 = 42",
        "WHERE (Table1.col2 < 13);",
    ]);

    let value = i16::MIN; // Jackcess APPEND_VALUE_FLAG, (short) 0x8000
    let mut a = TestQuery::new(QueryKind::Append, None, Some("Table2"));
    a.add([
        r5(COLUMN, Some("54"), value, None, None),
        r5(COLUMN, Some("'hello'"), value, None, None),
    ]);
    a.expect(&["INSERT INTO Table2", "VALUES (54, 'hello');"]);
    let mut a = TestQuery::new(QueryKind::Append, None, Some("Table2"));
    a.add([
        r5(COLUMN, Some("54"), value, None, Some("ID")),
        r5(COLUMN, Some("'hello'"), value, None, Some("Field 3")),
    ]);
    a.expect(&[
        "INSERT INTO Table2 (ID, [Field 3])",
        "VALUES (54, 'hello');",
    ]);

    // testBadQueries: object flag -1 and type -1: no query kind
    let bad = rebuild("TestQuery", 13, u32::MAX, &[r5(TYPE, None, -1, None, None)]);
    assert!(bad.problem.is_some());
    // a type row that disagrees with the object flag
    let mut wrong = TestQuery::new(QueryKind::Union, None, None);
    wrong.rows[0].flag = Some(-1);
    wrong.expect_problem();
}

/// Jackcess's `addJoinRows`: replaces the join rows by one per triple
/// (from, to, type), with condition `TableF.fI = TableT.fI` (I the
/// triple's index in the flat list).
fn set_joins(q: &mut TestQuery, joins: &[i16]) {
    q.remove(JOIN);
    for (n, t) in joins.chunks(3).enumerate() {
        let i = n * 3;
        let (tf, tt) = (format!("Table{}", t[0]), format!("Table{}", t[1]));
        let on = format!("{tf}.f{i} = {tt}.f{i}");
        q.add([r5(JOIN, Some(&on), t[2], Some(&tf), Some(&tt))]);
    }
}

#[test]
fn jackcess_complex_joins() {
    // Expected strings: Jackcess QueryTest.testComplexJoins.
    let mut q = TestQuery::new(QueryKind::Select, None, None);
    q.set_flag(1);
    for i in 1..=10 {
        q.add([r4(TABLE, None, Some(&format!("Table{i}")), None)]);
    }
    set_joins(&mut q, &[1, 2, 1, 2, 3, 1, 3, 4, 1]);
    q.expect(&["SELECT *", "FROM Table5, Table6, Table7, Table8, Table9, Table10, ((Table1 INNER JOIN Table2 ON Table1.f0 = Table2.f0) INNER JOIN Table3 ON Table2.f3 = Table3.f3) INNER JOIN Table4 ON Table3.f6 = Table4.f6;"]);

    set_joins(&mut q, &[1, 2, 1, 2, 1, 1]);
    q.expect(&["SELECT *", "FROM Table3, Table4, Table5, Table6, Table7, Table8, Table9, Table10, Table1 INNER JOIN Table2 ON (Table2.f3 = Table1.f3) AND (Table1.f0 = Table2.f0);"]);

    set_joins(&mut q, &[1, 2, 1, 2, 1, 2]);
    q.expect_problem();

    set_joins(&mut q, &[1, 2, 1, 3, 4, 1, 5, 6, 1, 7, 8, 1, 2, 3, 1]);
    q.expect(&["SELECT *", "FROM Table9, Table10, Table5 INNER JOIN Table6 ON Table5.f6 = Table6.f6, Table7 INNER JOIN Table8 ON Table7.f9 = Table8.f9, (Table1 INNER JOIN Table2 ON Table1.f0 = Table2.f0) INNER JOIN (Table3 INNER JOIN Table4 ON Table3.f3 = Table4.f3) ON Table2.f12 = Table3.f12;"]);

    set_joins(
        &mut q,
        &[1, 2, 1, 3, 4, 1, 5, 6, 1, 7, 8, 1, 2, 3, 1, 5, 8, 1],
    );
    q.expect(&["SELECT *", "FROM Table9, Table10, (Table1 INNER JOIN Table2 ON Table1.f0 = Table2.f0) INNER JOIN (Table3 INNER JOIN Table4 ON Table3.f3 = Table4.f3) ON Table2.f12 = Table3.f12, (Table5 INNER JOIN Table6 ON Table5.f6 = Table6.f6) INNER JOIN (Table7 INNER JOIN Table8 ON Table7.f9 = Table8.f9) ON Table5.f15 = Table8.f15;"]);

    set_joins(
        &mut q,
        &[
            1, 2, 1, 1, 3, 1, 6, 3, 1, 1, 9, 2, 10, 9, 3, 7, 8, 3, 1, 8, 2, 1, 4, 2, 5, 4, 3,
        ],
    );
    q.expect(&["SELECT *", "FROM Table5 RIGHT JOIN (((Table10 RIGHT JOIN ((Table6 INNER JOIN ((Table1 INNER JOIN Table2 ON Table1.f0 = Table2.f0) INNER JOIN Table3 ON Table1.f3 = Table3.f3) ON Table6.f6 = Table3.f6) LEFT JOIN Table9 ON Table1.f9 = Table9.f9) ON Table10.f12 = Table9.f12) LEFT JOIN (Table7 RIGHT JOIN Table8 ON Table7.f15 = Table8.f15) ON Table1.f18 = Table8.f18) LEFT JOIN Table4 ON Table1.f21 = Table4.f21) ON Table5.f24 = Table4.f24;"]);

    set_joins(
        &mut q,
        &[
            1, 2, 1, 1, 3, 1, 1, 9, 2, 1, 8, 2, 1, 4, 2, 6, 3, 1, 5, 4, 3, 7, 8, 3, 10, 9, 3,
        ],
    );
    q.expect(&["SELECT *", "FROM Table10 RIGHT JOIN (Table7 RIGHT JOIN (Table5 RIGHT JOIN (Table6 INNER JOIN (((((Table1 INNER JOIN Table2 ON Table1.f0 = Table2.f0) INNER JOIN Table3 ON Table1.f3 = Table3.f3) LEFT JOIN Table9 ON Table1.f6 = Table9.f6) LEFT JOIN Table8 ON Table1.f9 = Table8.f9) LEFT JOIN Table4 ON Table1.f12 = Table4.f12) ON Table6.f15 = Table3.f15) ON Table5.f18 = Table4.f18) ON Table7.f21 = Table8.f21) ON Table10.f24 = Table9.f24;"]);

    q.remove(TABLE);
    set_joins(&mut q, &[1, 2, 1, 2, 3, 1, 2, 4, 1, 1, 4, 1, 5, 3, 1]);
    q.expect(&["SELECT *", "FROM Table5 INNER JOIN (((Table1 INNER JOIN Table2 ON Table1.f0 = Table2.f0) INNER JOIN Table3 ON Table2.f3 = Table3.f3) INNER JOIN Table4 ON (Table1.f9 = Table4.f9) AND (Table2.f6 = Table4.f6)) ON Table5.f12 = Table3.f12;"]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_rows_never_panic(
        flags in any_object_flags(),
        rows in prop::collection::vec(any_row(), 0..40),
    ) {
        check_invariants(&rebuild("Q", 1, flags, &rows));
    }

    #[test]
    fn many_joins_never_panic(
        tables in prop::collection::vec(0u8..6, 0..6),
        joins in prop::collection::vec((0u8..8, 0u8..8, 0i16..5), 0..(MAX_JOINS + 20)),
    ) {
        let mut rows = vec![r5(TYPE, None, 1, None, None)];
        for t in tables {
            rows.push(r4(TABLE, None, Some(&format!("T{t}")), None));
        }
        let n = joins.len();
        for (a, b, kind) in joins {
            let (a, b) = (format!("T{a}"), format!("T{b}"));
            rows.push(r5(JOIN, Some("c"), kind, Some(&a), Some(&b)));
        }
        let q = rebuild("Q", 1, 0, &rows);
        check_invariants(&q);
        if n > MAX_JOINS {
            prop_assert!(q.problem.is_some());
        }
    }
}
