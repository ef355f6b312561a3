//! `\d` in batch mode: the table list, one table's columns, indexes and
//! keys, and the Design View properties a person set in Access, checked
//! against mdbtools' `mdb-prop`, an independent reader of the same
//! property maps.

use predicates::prelude::*;
use predicates::str::contains;
use std::collections::BTreeMap;
use std::path::Path;

use crate::common;
use common::{jetsql, nwind};

/// The part of `text` after the line `header` (a section of `\\d`).
fn section<'a>(text: &'a str, header: &str) -> &'a str {
    let at = text
        .find(&format!("\n{header}\n"))
        .unwrap_or_else(|| panic!("no section {header:?} in\n{text}"));
    &text[at + header.len() + 2..]
}

/// The cells of the first table row of `text` whose first cell is `first`.
fn row<'a>(text: &'a str, first: &str) -> Vec<&'a str> {
    try_row(text, first).unwrap_or_else(|| panic!("no row {first:?} in\n{text}"))
}

/// [`row`], `None` when there is no such row.
fn try_row<'a>(text: &'a str, first: &str) -> Option<Vec<&'a str>> {
    text.lines()
        .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>())
        .find(|cells| cells.get(1) == Some(&first))
        .map(|cells| cells[1..cells.len() - 1].to_vec())
}

/// `\\d NAME` (NAME as typed, quotes included) in batch mode.
fn describe(db: &Path, table: &str) -> String {
    let out = jetsql()
        .arg(db)
        .args(["-c", &format!("\\d {table}")])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "\\d {table}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn describe_lists_tables_columns_indexes_and_keys() {
    let Some(db) = nwind() else { return };
    jetsql()
        .arg(&db)
        .args(["-c", "\\d"])
        .assert()
        .success()
        .stdout(
            contains("| database | table                           | columns | indexes | kind")
                .and(contains(
                    "| nwind    | Order Details                   | 5       | 5       | table ",
                ))
                .and(contains("| nwind    | Umsätze"))
                .and(contains(
                    "| nwind    | Order Subtotals                 |         |         | view (select query)",
                ))
                .and(contains("(session)").not()),
        );
    let text = describe(&db, "\"order details\"");
    assert!(
        text.starts_with("Table \"Order Details\" in nwind (Jet3, TDEF page 415"),
        "{text}"
    );
    assert_eq!(
        row(&text, "column"),
        [
            "column",
            "jet type",
            "arrow type",
            "null",
            "default",
            "flags"
        ]
    );
    // types as mdb-schema prints them (Long Integer, Currency, Integer,
    // Single); Required and DefaultValue as mdb-prop reads them
    assert_eq!(
        row(&text, "OrderID"),
        ["OrderID", "Long", "Int32", "", "", ""]
    );
    assert_eq!(
        row(&text, "UnitPrice"),
        [
            "UnitPrice",
            "Currency",
            "Decimal128(19, 4)",
            "NOT NULL",
            "0",
            ""
        ]
    );
    assert_eq!(
        row(&text, "Quantity"),
        ["Quantity", "Integer", "Int16", "NOT NULL", "1", ""]
    );
    assert_eq!(
        row(&text, "Discount"),
        ["Discount", "Single", "Float32", "NOT NULL", "0", ""]
    );
    assert_eq!(
        row(&text, "PrimaryKey"),
        ["PrimaryKey", "primary key", "OrderID, ProductID"]
    );
    let keys = section(&text, "Foreign keys:");
    assert_eq!(
        row(keys, "OrdersOrder Details"),
        [
            "OrdersOrder Details",
            "OrderID",
            "Orders(OrderID)",
            "cascade deletes"
        ]
    );
    assert_eq!(
        row(keys, "ProductsOrder Details"),
        [
            "ProductsOrder Details",
            "ProductID",
            "Products(ProductID)",
            ""
        ]
    );
    let text = describe(&db, "nwind.Customers");
    assert_eq!(&row(&text, "CustomerID")[..2], ["CustomerID", "Text(5)"]);
    jetsql()
        .arg(&db)
        .args(["-c", "\\d Nope"])
        .assert()
        .code(1)
        .stderr(contains("no table or saved query \"Nope\""));
}

/// `mdb-prop FILE TABLE`: property maps by name (`(none)` for the table),
/// each property's value on one line (continuation lines of multi-line
/// values joined with a space, as `\d` shows them).
fn mdb_prop(db: &Path, table: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let out = std::process::Command::new("mdb-prop")
        .arg(db)
        .arg(table)
        .output()
        .expect("mdb-prop runs (apt-get install mdbtools)");
    assert!(out.status.success(), "mdb-prop {table}");
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let mut maps: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut current = String::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("name: ") {
            current = name.to_string();
            maps.entry(current.clone()).or_default();
        } else if let Some(prop) = line.strip_prefix('\t') {
            let (k, v) = prop.split_once(": ").unwrap_or((prop, ""));
            maps.entry(current.clone())
                .or_default()
                .push((k.to_string(), v.to_string()));
        } else if !line.is_empty()
            && let Some(last) = maps.get_mut(&current).and_then(|m| m.last_mut())
        {
            last.1.push(' ');
            last.1.push_str(line);
        }
    }
    maps
}

/// The user tables of `db` whose name no other object (form, report,
/// query…) of MSysObjects carries: `mdb-prop` looks an object up by name
/// and may answer with a form's properties (nwind's Orders form shares
/// the Orders table's name, and mdb-prop prints the form's description).
fn unambiguous_tables(db: &Path) -> Vec<String> {
    let tables = std::process::Command::new("mdb-tables")
        .arg("-1")
        .arg(db)
        .output()
        .expect("mdb-tables runs");
    let tables = String::from_utf8_lossy(&tables.stdout).into_owned();
    let objects = std::process::Command::new("mdb-export")
        .args(["-Q", "-d", "\t"])
        .arg(db)
        .arg("MSysObjects")
        .output()
        .expect("mdb-export runs");
    let objects = String::from_utf8_lossy(&objects.stdout).into_owned();
    // Name and Type are the third and fourth fields of every row
    let names: Vec<&str> = objects
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() > 3 && f[3].parse::<i32>().is_ok()).then(|| f[2])
        })
        .collect();
    tables
        .lines()
        .filter(|t| !t.is_empty() && names.iter().filter(|n| *n == t).count() == 1)
        .map(str::to_string)
        .collect()
}

/// Every Design View property `\\d` shows (Required as NOT NULL, the
/// default, description, caption, format, input mask, validation rule and
/// text, lookups) equals what `mdb-prop` reads, over the corpus files that
/// set the most of them (Jet3, Jet4 and ACE).
#[test]
fn design_view_properties_match_mdb_prop() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    if jet_tests::require_mdb_export().is_none() {
        return;
    }
    let files = [
        "mdbtools/nwind.mdb",
        "ucanaccess/githubIssue16.accdb",
        "jackcess/V2010/testV2010.accdb",
        "jackcess/V2000/testV2000.mdb",
        "jackcess/V1997/testV1997.mdb",
        "jackcess/V2010/calcFieldTestV2010.accdb",
        "jackcess/V2007/indexTestV2007.accdb",
    ];
    let labels = [
        ("Description", "description"),
        ("Caption", "caption"),
        ("Format", "format"),
        ("InputMask", "input mask"),
        ("ValidationRule", "validation rule"),
        ("ValidationText", "validation text"),
    ];
    let mut checked = 0;
    for (file, table) in files.iter().flat_map(|f| {
        let db = corpus.join(f);
        unambiguous_tables(&db).into_iter().map(move |t| (f, t))
    }) {
        let db = corpus.join(file);
        let table = table.as_str();
        let text = describe(&db, &format!("\"{table}\""));
        for (map, props) in mdb_prop(&db, table) {
            let get = |k: &str| props.iter().find(|(p, _)| p == k).map(|(_, v)| v.as_str());
            if map == "(none)" {
                for (prop, label) in &labels[..1] {
                    if let Some(v) = get(prop) {
                        let r = row(&text, label);
                        assert_eq!(r, [*label, v], "{table}: {prop}");
                        checked += 1;
                    }
                }
                continue;
            }
            // Access keeps the maps of columns long since dropped or
            // renamed (MSysCompactError's "id" and "data"): no column, no row
            let Some(cells) = try_row(&text, &map) else {
                eprintln!("{file} {table}: property map {map:?} names no column");
                continue;
            };
            if let Some(req) = get("Required") {
                let boolean = cells[1] == "Boolean";
                let want = if req == "yes" || boolean {
                    "NOT NULL"
                } else {
                    ""
                };
                assert_eq!(cells[3], want, "{table}.{map}: Required {req}");
                checked += 1;
            }
            assert_eq!(cells[4], get("DefaultValue").unwrap_or(""), "{table}.{map}");
            checked += 1;
            for (prop, label) in labels {
                if let Some(v) = get(prop) {
                    let found = text.lines().any(|l| {
                        let c: Vec<&str> = l.split('|').map(str::trim).collect();
                        c.len() == 5 && c[1] == map && c[2] == label && c[3] == v
                    });
                    assert!(found, "{table}.{map}: {prop} = {v:?} missing in\n{text}");
                    checked += 1;
                }
            }
            if matches!(get("DisplayControl"), Some("110" | "111")) {
                let source = get("RowSource").unwrap_or("");
                let found = text.lines().any(|l| {
                    let c: Vec<&str> = l.split('|').map(str::trim).collect();
                    c.len() == 5 && c[1] == map && c[2] == "lookup" && c[3].contains(source)
                });
                assert!(
                    found,
                    "{table}.{map}: lookup over {source:?} missing in\n{text}"
                );
                checked += 1;
            }
        }
    }
    // these files set properties on most columns: a broken reader cannot
    // pass by finding nothing
    assert!(checked > 100, "only {checked} properties checked");
}
