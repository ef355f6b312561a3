//! Which columns are auto-numbers, against mdbtools: for every corpus
//! file both read, the Long columns jetsql marks auto-number
//! (`Column::is_auto_number`, shown by `\d`) are exactly the columns
//! `mdb-schema FILE postgres` declares `SERIAL`. Access 97 files set bit
//! 0x40 on ordinary columns (nwind's Orders: 13 of 14), which once made
//! them all "auto-number".

use jet_storage::{Database, JetType, OpenOptions};
use std::collections::BTreeSet;
use std::process::Command;

/// The name quoted at the start of `s` (`"a""b"` → `a"b`), as the
/// postgres backend writes it.
fn quoted(s: &str) -> Option<String> {
    let mut chars = s.strip_prefix('"')?.chars().peekable();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        if c == '"' {
            if chars.peek() == Some(&'"') {
                chars.next();
            } else {
                return Some(out);
            }
        }
        out.push(c);
    }
    None
}

/// `(table, column)` pairs declared SERIAL, lower-cased (the postgres
/// backend folds names).
fn serial_columns(file: &std::path::Path) -> Option<BTreeSet<(String, String)>> {
    let out = Command::new("mdb-schema")
        .arg(file)
        .arg("postgres")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut table = String::new();
    let mut set = BTreeSet::new();
    for line in text.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("CREATE TABLE IF NOT EXISTS ") {
            table = quoted(rest.trim()).unwrap_or_default().to_lowercase();
        } else if l.contains("SERIAL")
            && let Some(name) = quoted(l)
        {
            set.insert((table.clone(), name.to_lowercase()));
        }
    }
    Some(set)
}

#[test]
fn auto_numbers_are_the_columns_mdbtools_calls_serial() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let Some(_) = jet_tests::require_mdb_export() else {
        return;
    };
    let (mut files, mut autos) = (0usize, 0usize);
    for rel in jet_tests::list_files(&corpus) {
        let path = corpus.join(&rel);
        let Ok(db) = Database::open(&path, OpenOptions::default()) else {
            continue;
        };
        let Some(theirs) = serial_columns(&path) else {
            continue;
        };
        let mut ours = BTreeSet::new();
        for name in db.table_names() {
            let Ok(t) = db.table(&name) else { continue };
            for c in &t.def().columns {
                if c.jet_type == JetType::Long && c.is_auto_number() {
                    ours.insert((name.to_lowercase(), c.name.to_lowercase()));
                }
            }
        }
        // mdb-schema lists user tables only, as table_names does
        assert_eq!(ours, theirs, "{rel}: auto-number columns");
        files += 1;
        autos += ours.len();
    }
    println!("{files} files, {autos} auto-number columns, all as mdbtools declares them");
    assert!(files > 50, "only {files} files compared");
    // nwind's Orders: OrderID only
    let nwind = Database::open(corpus.join("mdbtools/nwind.mdb"), OpenOptions::default()).unwrap();
    let orders = nwind.table("Orders").unwrap();
    let auto: Vec<&str> = orders
        .def()
        .columns
        .iter()
        .filter(|c| c.is_auto_number())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(auto, ["OrderID"]);
}
