//! `jetsql dump`: a SQL script that builds the database in a target —
//! tables, data as multi-row INSERTs, indexes, foreign keys, auto-number
//! counters — in one transaction. Saved queries are listed as comments
//! with their Access SQL.

use super::data::{self, Problem, TargetRows, Value, cannot_hold};
use super::ddl;
use super::dialect::{self, ident, string};
use super::schema::{Model, TableModel};
use super::types::Target;
use datafusion::arrow::array::RecordBatch;
use jet_storage::{Database, JetType};
use std::io::Write;

/// Rows per INSERT statement.
const ROWS_PER_INSERT: usize = 100;

/// A float as a literal of `target` (`None`: it has none).
fn float(target: Target, x: f64, real: bool) -> Option<String> {
    if x.is_finite() {
        return Some(if real && target != Target::Sqlite {
            format!("{:?}", x as f32)
        } else {
            format!("{x:?}")
        });
    }
    let word = if x.is_nan() {
        "NaN"
    } else if x > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    };
    match target {
        Target::Postgres => Some(format!(
            "'{word}'::{}",
            if real { "real" } else { "double precision" }
        )),
        Target::Duckdb => Some(format!(
            "'{word}'::{}",
            if real { "REAL" } else { "DOUBLE" }
        )),
        Target::Sqlite if !x.is_nan() => Some(if x > 0.0 { "9e999" } else { "-9e999" }.into()),
        _ => None,
    }
}

/// `v` as a SQL literal of `target`; `None` when the target cannot hold it.
pub fn literal(target: Target, jet: JetType, v: &Value<'_>) -> Option<String> {
    if cannot_hold(target, jet, v).is_some() {
        return None;
    }
    Some(match v {
        Value::Null => "NULL".into(),
        Value::Bool(b) => dialect::boolean(target, *b).into(),
        Value::Int(i) => i.to_string(),
        Value::F32(x) => float(target, f64::from(*x), true)?,
        Value::F64(x) => float(target, *x, jet == JetType::Single)?,
        // SQLite: text, which NUMERIC affinity stores as a number only
        // when that is exact
        Value::Dec(u, s) if target == Target::Sqlite => format!("'{}'", data::decimal_text(*u, *s)),
        Value::Dec(u, s) => data::decimal_text(*u, *s),
        Value::Micros(m) => {
            let ts = data::timestamp_text(*m)?;
            match target {
                Target::Postgres | Target::Duckdb => format!("TIMESTAMP '{ts}'"),
                _ => format!("'{ts}'"),
            }
        }
        Value::Text(s) => string(target, s),
        Value::Bytes(b) => dialect::bytes(target, b),
    })
}

/// INSERT statements for the rows of `b` (rows `first_row + 1 …` of the
/// table); values the target cannot hold become NULL and are reported.
fn write_rows(
    out: &mut dyn Write,
    target: Target,
    t: &TableModel,
    b: &RecordBatch,
    first_row: u64,
    problems: &mut Vec<Problem>,
) -> Result<(), String> {
    let head = format!(
        "INSERT INTO {} ({}) VALUES\n",
        ident(target, &t.name),
        ddl::insert_columns(target, t)
    );
    let rows = TargetRows {
        target,
        table: t,
        first_row,
    };
    let mut start = 0;
    while start < b.num_rows() {
        let end = (start + ROWS_PER_INSERT).min(b.num_rows());
        let mut s = head.clone();
        for r in start..end {
            s.push_str(if r == start { "(" } else { ",\n(" });
            for (i, c) in t.columns.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                let v = rows.cell(b, c, r, problems);
                match literal(target, c.jet, &v) {
                    Some(l) => s.push_str(&l),
                    None => {
                        problems.push(rows.problem(c, r, "no SQL literal of the target"));
                        s.push_str("NULL");
                    }
                }
            }
            s.push(')');
        }
        s.push_str(";\n");
        out.write_all(s.as_bytes()).map_err(|e| e.to_string())?;
        start = end;
    }
    Ok(())
}

/// Comment lines for `text` (each line prefixed with `-- `).
pub fn comment(text: &str) -> String {
    text.lines()
        .map(|l| format!("-- {l}\n"))
        .collect::<String>()
}

/// Writes the script that builds `db` (read as `model`) in `target` to
/// `out`; returns the values the target cannot hold (written as NULL).
pub fn dump(
    db: &Database,
    model: &Model,
    target: Target,
    out: &mut dyn Write,
    progress: &indicatif::ProgressBar,
) -> Result<Vec<Problem>, String> {
    let w = |out: &mut dyn Write, s: &str| out.write_all(s.as_bytes()).map_err(|e| e.to_string());
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    let (fks, fk_notes) = ddl::usable_foreign_keys(model);
    notes.extend(fk_notes);
    w(
        out,
        &format!("-- Written by jetsql dump for {}\n", target.name()),
    )?;
    w(
        out,
        match target {
            Target::Mysql => "SET FOREIGN_KEY_CHECKS = 0;\nSTART TRANSACTION;\n",
            Target::Duckdb => "BEGIN TRANSACTION;\n",
            _ => "BEGIN;\n",
        },
    )?;
    for t in &model.tables {
        let sql = ddl::create_table(target, t, &fks, true, &mut notes);
        w(out, &format!("\n{sql};\n"))?;
    }
    let mut counters = Vec::new();
    for t in &model.tables {
        progress.set_prefix(t.name.clone());
        let table = db.table(&t.name).map_err(|e| e.to_string())?;
        let mut rows = 0u64;
        let mut max = None;
        data::scan(&table, |b, pages| {
            write_rows(out, target, t, b, rows, &mut problems)?;
            rows += b.num_rows() as u64;
            max = max.max(data::max_auto(t, b));
            progress.inc(pages as u64);
            Ok(())
        })?;
        if let Some(next) = t.next_auto {
            counters.push((t, next.max(max.unwrap_or(0) + 1)));
        }
    }
    w(out, "\n")?;
    for (t, next) in counters {
        for s in ddl::carry_counter(target, t, next) {
            w(out, &format!("{s};\n"))?;
        }
    }
    let mut names = ddl::IndexNames::new(target);
    for t in &model.tables {
        for s in ddl::create_indexes(target, t, &mut names) {
            w(out, &format!("{s};\n"))?;
        }
    }
    match target {
        Target::Postgres | Target::Mysql => {
            for fk in &fks {
                w(out, &format!("{};\n", ddl::add_foreign_key(target, fk)))?;
            }
        }
        Target::Duckdb => {
            for fk in &fks {
                notes.push(format!(
                    "foreign key not declared (DuckDB cannot add one to a table): {}",
                    ddl::add_foreign_key(target, fk)
                ));
            }
        }
        Target::Sqlite => {}
    }
    for q in &model.queries {
        notes.push(format!(
            "saved query {} (Access SQL, not translated):\n{}",
            q.name,
            q.sql.trim_end()
        ));
    }
    w(
        out,
        if target == Target::Mysql {
            "COMMIT;\nSET FOREIGN_KEY_CHECKS = 1;\n"
        } else {
            "COMMIT;\n"
        },
    )?;
    if !notes.is_empty() {
        w(out, "\n")?;
        for n in &notes {
            w(out, &comment(n))?;
        }
    }
    out.flush().map_err(|e| e.to_string())?;
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_per_target() {
        let pg = Target::Postgres;
        assert_eq!(
            literal(pg, JetType::Currency, &Value::Dec(123_400, 4)).unwrap(),
            "12.3400"
        );
        assert_eq!(
            literal(Target::Sqlite, JetType::Currency, &Value::Dec(123_400, 4)).unwrap(),
            "'12.3400'"
        );
        assert_eq!(
            literal(pg, JetType::Boolean, &Value::Bool(true)).unwrap(),
            "TRUE"
        );
        assert_eq!(
            literal(Target::Sqlite, JetType::Boolean, &Value::Bool(true)).unwrap(),
            "1"
        );
        assert_eq!(
            literal(pg, JetType::DateTime, &Value::Micros(0)).unwrap(),
            "TIMESTAMP '1970-01-01 00:00:00'"
        );
        assert_eq!(
            literal(pg, JetType::Double, &Value::F64(f64::NAN)).unwrap(),
            "'NaN'::double precision"
        );
        assert!(literal(Target::Sqlite, JetType::Double, &Value::F64(f64::NAN)).is_none());
        assert!(literal(pg, JetType::Memo, &Value::Text("a\0b")).is_none());
        assert_eq!(
            literal(pg, JetType::Single, &Value::F32(0.1)).unwrap(),
            "0.1"
        );
    }
}
