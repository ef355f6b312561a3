//! `CREATE TABLE` with Jet types: the SQL and Access type names a user
//! writes mapped to writer column specs, column and table constraints
//! mapped to indexes, and the Jet types `CREATE TABLE … AS SELECT` chooses
//! from the Arrow types of its query.
//!
//! Everything here only builds a [`TableSpec`]; the writer checks it again
//! (names, sizes, what the file version can store) inside the statement's
//! transaction, and its refusals name the table and column.

use crate::error::refuse;
use datafusion::arrow::datatypes::{DataType as ArrowType, Field, Schema, TimeUnit};
use datafusion::error::Result;
use datafusion::sql::sqlparser::ast::{
    ColumnDef, ColumnOption, ColumnOptionDef, CreateTable, Ident, IndexColumn, ObjectName,
    TableConstraint,
};
use jet_storage::schema::tdef::Direction;
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec};
use jet_storage::{JetType, JetVersion};

/// An identifier as DataFusion reads it: unquoted names fold to lower case
/// when the session normalizes identifiers (its default), quoted names
/// keep their spelling.
pub(crate) fn ident(i: &Ident, normalize: bool) -> String {
    if normalize && i.quote_style.is_none() {
        i.value.to_lowercase()
    } else {
        i.value.clone()
    }
}

/// The parts of a (possibly qualified) SQL name, as [`ident`] reads them.
pub(crate) fn name_parts(name: &ObjectName, normalize: bool) -> Vec<String> {
    name.0
        .iter()
        .map(|p| match p.as_ident() {
            Some(i) => ident(i, normalize),
            None => p.to_string(),
        })
        .collect()
}

/// A SQL type as written: its name (upper case, words joined by one space)
/// and its numeric arguments.
fn split_type(written: &str) -> (String, Option<Vec<String>>) {
    match written.split_once('(') {
        Some((name, rest)) => {
            let args = rest
                .trim_end()
                .trim_end_matches(')')
                .split(',')
                .map(|a| a.trim().to_string())
                .collect();
            (normal(name), Some(args))
        }
        None => (normal(written), None),
    }
}

fn normal(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_uppercase()
}

/// The column spec for a column declared with the SQL / Access type
/// `written` (as the parser prints it: `VARCHAR(20)`, `NUMERIC(10,2)`,
/// `COUNTER`, …). Unknown types and bad arguments are errors naming the
/// table and column.
///
/// `stmt` (`CREATE TABLE`, `ALTER TABLE`) starts the errors, with the
/// table's name.
pub(crate) fn typed_column(
    stmt: &str,
    table: &str,
    column: &str,
    written: &str,
) -> Result<ColumnSpec> {
    let (name, args) = split_type(written);
    let bad = |why: String| {
        refuse(format!(
            "{stmt} {table:?}: column {column:?}: type {written}: {why}"
        ))
    };
    let nums: Vec<u32> = match &args {
        None => Vec::new(),
        Some(a) => a
            .iter()
            .map(|x| {
                x.parse::<u32>()
                    .map_err(|_| bad(format!("argument {x:?} is not a number")))
            })
            .collect::<Result<_>>()?,
    };
    let no_args = |spec: ColumnSpec| -> Result<ColumnSpec> {
        if nums.is_empty() {
            Ok(spec)
        } else {
            Err(bad("takes no size".into()))
        }
    };
    let sized = |t: JetType, max: u32| -> Result<ColumnSpec> {
        match nums.as_slice() {
            [n] if (1..=max).contains(n) => Ok(ColumnSpec {
                size: *n as u16,
                ..ColumnSpec::new(column, t)
            }),
            [n] => Err(bad(format!("size {n} is outside 1..={max}"))),
            _ => Err(bad("takes one size".into())),
        }
    };
    match name.as_str() {
        "INTEGER" | "INT" | "LONG" | "INT4" | "INTEGER4" => {
            no_args(ColumnSpec::new(column, JetType::Long))
        }
        "SMALLINT" | "SHORT" | "INT2" | "INTEGER2" => {
            no_args(ColumnSpec::new(column, JetType::Integer))
        }
        "TINYINT" | "BYTE" | "INTEGER1" => no_args(ColumnSpec::new(column, JetType::Byte)),
        "BIGINT" | "INT8" | "LARGENUMBER" => no_args(ColumnSpec::new(column, JetType::BigInt)),
        "REAL" | "SINGLE" | "FLOAT4" | "IEEESINGLE" => {
            no_args(ColumnSpec::new(column, JetType::Single))
        }
        "DOUBLE" | "DOUBLE PRECISION" | "FLOAT" | "FLOAT8" | "IEEEDOUBLE" | "NUMBER" => {
            no_args(ColumnSpec::new(column, JetType::Double))
        }
        "DECIMAL" | "NUMERIC" | "DEC" => match nums.as_slice() {
            [] => Ok(ColumnSpec::numeric(column, 18, 0)),
            [p] if (1..=28).contains(p) => Ok(ColumnSpec::numeric(column, *p as u8, 0)),
            [p, s] if (1..=28).contains(p) && s <= p => {
                Ok(ColumnSpec::numeric(column, *p as u8, *s as u8))
            }
            _ => Err(bad(
                "precision 1 to 28 and a scale no larger than the precision".into(),
            )),
        },
        "MONEY" | "CURRENCY" => no_args(ColumnSpec::new(column, JetType::Currency)),
        "BOOLEAN" | "BOOL" | "BIT" | "YESNO" | "LOGICAL" | "LOGICAL1" => {
            no_args(ColumnSpec::new(column, JetType::Boolean))
        }
        "DATETIME" | "TIMESTAMP" | "DATE" | "TIME" => {
            if nums.is_empty() || nums == [3] || nums == [0] {
                Ok(ColumnSpec::new(column, JetType::DateTime))
            } else {
                Err(bad(
                    "Access dates hold milliseconds (precision 0 or 3 only)".into(),
                ))
            }
        }
        "VARCHAR" | "CHAR" | "CHARACTER" | "CHARACTER VARYING" | "CHAR VARYING" | "NVARCHAR"
        | "NCHAR" | "ALPHANUMERIC" | "STRING" => {
            if nums.is_empty() {
                Ok(ColumnSpec::text(column, 255))
            } else {
                sized(JetType::Text, 255)
            }
        }
        "TEXT" => {
            if nums.is_empty() {
                Ok(ColumnSpec::new(column, JetType::Memo))
            } else {
                sized(JetType::Text, 255)
            }
        }
        "MEMO" | "LONGTEXT" | "LONGCHAR" | "NOTE" | "NTEXT" | "CLOB" => {
            no_args(ColumnSpec::new(column, JetType::Memo))
        }
        "HYPERLINK" => no_args(ColumnSpec {
            hyperlink: true,
            ..ColumnSpec::new(column, JetType::Memo)
        }),
        "VARBINARY" | "BINARY" => {
            if nums.is_empty() {
                Ok(ColumnSpec::new(column, JetType::Binary))
            } else {
                sized(JetType::Binary, 255)
            }
        }
        "LONGBINARY" | "BLOB" | "LONGBLOB" | "OLEOBJECT" | "GENERAL" | "IMAGE" | "BYTEA" => {
            no_args(ColumnSpec::new(column, JetType::Ole))
        }
        "GUID" | "UNIQUEIDENTIFIER" | "UUID" => no_args(ColumnSpec::new(column, JetType::Guid)),
        "COUNTER" | "AUTOINCREMENT" | "AUTO_INCREMENT" | "IDENTITY" | "SERIAL" => {
            if nums.is_empty() {
                Ok(ColumnSpec::new(column, JetType::Long).auto_number())
            } else {
                Err(bad(
                    "a seed and increment are not supported (the counter starts at 1 and steps by 1)"
                        .into(),
                ))
            }
        }
        _ => Err(refuse(format!(
            "{stmt} {table:?}: column {column:?}: unknown type {written} \
             (Jet types: INTEGER/LONG, SMALLINT, TINYINT/BYTE, BIGINT, REAL/SINGLE, DOUBLE/FLOAT, \
             DECIMAL(p,s), CURRENCY, BOOLEAN/YESNO, DATETIME, VARCHAR(n)/TEXT(n), MEMO, VARBINARY(n), \
             LONGBINARY/OLEOBJECT, GUID, COUNTER)"
        ))),
    }
}

/// The key columns of a PRIMARY KEY / UNIQUE constraint of statement
/// `stmt` on table `table`, each the spelling in `known` (the table's
/// columns) of the name written, with its direction.
pub(crate) fn key_columns(
    stmt: &str,
    table: &str,
    cols: &[IndexColumn],
    known: &[String],
    normalize: bool,
) -> Result<Vec<(String, Direction)>> {
    cols.iter()
        .map(|c| {
            let name = match &c.column.expr {
                datafusion::sql::sqlparser::ast::Expr::Identifier(i) => ident(i, normalize),
                e => {
                    return Err(refuse(format!(
                        "{stmt} {table:?}: index key {e} is not a column name"
                    )));
                }
            };
            let real = known
                .iter()
                .find(|d| d.eq_ignore_ascii_case(&name))
                .cloned()
                .ok_or_else(|| {
                    refuse(format!(
                        "{stmt} {table:?}: key column {name:?} is not a column of the table"
                    ))
                })?;
            if c.column.options.nulls_first.is_some() {
                return Err(refuse(format!(
                    "{stmt} {table:?}: key column {name:?}: NULLS FIRST/LAST cannot be declared (Access sorts NULL first)"
                )));
            }
            let dir = if c.column.options.asc == Some(false) {
                Direction::Descending
            } else {
                Direction::Ascending
            };
            Ok((real, dir))
        })
        .collect()
}

/// The writer spec of one column definition of statement `stmt`
/// (`CREATE TABLE`, `ALTER TABLE … ADD COLUMN`) of table `table`: its
/// type, NOT NULL, DEFAULT (stored as the column's Access `DefaultValue`)
/// and AUTOINCREMENT; the PRIMARY KEY and UNIQUE options come back for
/// the caller; any other option is refused by name.
pub(crate) fn column_def_spec<'a>(
    stmt: &str,
    table: &str,
    cd: &'a ColumnDef,
    normalize: bool,
) -> Result<(ColumnSpec, Vec<&'a ColumnOptionDef>)> {
    let column = ident(&cd.name, normalize);
    let mut spec = typed_column(stmt, table, &column, &cd.data_type.to_string())?;
    let mut keys = Vec::new();
    for o in &cd.options {
        match &o.option {
            ColumnOption::Null => {}
            ColumnOption::NotNull => spec.not_null = true,
            ColumnOption::Default(e) => {
                let text = super::defaults::access_default_text(e).ok_or_else(|| {
                    refuse(format!(
                        "{stmt} {table:?}: column {column:?}: DEFAULT {e} is not a value \
                         the writer can store (numbers, strings, TRUE/FALSE, NULL, DATE/TIMESTAMP \
                         literals, CURRENT_TIMESTAMP, CURRENT_DATE); nothing changed"
                    ))
                })?;
                spec.default_value = Some(text);
            }
            ColumnOption::PrimaryKey(_) | ColumnOption::Unique(_) => keys.push(o),
            ColumnOption::DialectSpecific(tokens)
                if tokens.len() == 1
                    && matches!(
                        tokens[0].to_string().to_ascii_uppercase().as_str(),
                        "AUTOINCREMENT" | "AUTO_INCREMENT"
                    ) =>
            {
                if spec.jet_type != JetType::Long {
                    return Err(refuse(format!(
                        "{stmt} {table:?}: column {column:?}: AUTOINCREMENT needs a Long (INTEGER) column"
                    )));
                }
                spec.auto_number = true;
            }
            other => {
                return Err(refuse(format!(
                    "{stmt} {table:?}: column {column:?}: {other} is not supported"
                )));
            }
        }
    }
    Ok((spec, keys))
}

/// The writer spec of `CREATE TABLE name (columns, constraints)`:
/// column types, NOT NULL, DEFAULT (stored as the column's Access
/// `DefaultValue`), auto-numbers, and the PRIMARY KEY / UNIQUE
/// constraints (column or table level, composite, ASC/DESC) as indexes.
/// CHECK, FOREIGN KEY and the other options are refused by name.
pub(crate) fn table_spec(ct: &CreateTable, table: &str, normalize: bool) -> Result<TableSpec> {
    let table = table.to_string();
    if ct.columns.is_empty() {
        return Err(refuse(format!("CREATE TABLE {table:?}: no columns")));
    }
    let mut columns: Vec<ColumnSpec> = Vec::new();
    let mut indexes: Vec<IndexSpec> = Vec::new();
    let mut primary_seen = false;
    for cd in &ct.columns {
        let (spec, keys) = column_def_spec("CREATE TABLE", &table, cd, normalize)?;
        let column = spec.name.clone();
        for o in keys {
            match &o.option {
                ColumnOption::PrimaryKey(_) => {
                    if primary_seen {
                        return Err(refuse(format!(
                            "CREATE TABLE {table:?}: more than one PRIMARY KEY"
                        )));
                    }
                    primary_seen = true;
                    indexes.push(IndexSpec::primary("PrimaryKey", &[column.as_str()]));
                }
                ColumnOption::Unique(u) => {
                    let iname = u
                        .name
                        .as_ref()
                        .or(o.name.as_ref())
                        .map(|n| ident(n, normalize))
                        .unwrap_or_else(|| column.clone());
                    indexes.push(IndexSpec::new(&iname, &[column.as_str()]).unique());
                }
                other => {
                    return Err(refuse(format!(
                        "CREATE TABLE {table:?}: column {column:?}: {other} is not supported"
                    )));
                }
            }
        }
        columns.push(spec);
    }
    for c in &ct.constraints {
        match c {
            TableConstraint::PrimaryKey(pk) => {
                if primary_seen {
                    return Err(refuse(format!(
                        "CREATE TABLE {table:?}: more than one PRIMARY KEY"
                    )));
                }
                primary_seen = true;
                let name = pk
                    .name
                    .as_ref()
                    .or(pk.index_name.as_ref())
                    .map(|n| ident(n, normalize))
                    .unwrap_or_else(|| "PrimaryKey".to_string());
                indexes.push(IndexSpec {
                    columns: key_columns(
                        "CREATE TABLE",
                        &table,
                        &pk.columns,
                        &names(&columns),
                        normalize,
                    )?,
                    ..IndexSpec::primary(&name, &[])
                });
            }
            TableConstraint::Unique(u) => {
                let cols = key_columns(
                    "CREATE TABLE",
                    &table,
                    &u.columns,
                    &names(&columns),
                    normalize,
                )?;
                let name = u
                    .name
                    .as_ref()
                    .or(u.index_name.as_ref())
                    .map(|n| ident(n, normalize))
                    .unwrap_or_else(|| {
                        cols.iter()
                            .map(|(c, _)| c.as_str())
                            .collect::<Vec<_>>()
                            .join("_")
                    });
                indexes.push(IndexSpec {
                    columns: cols,
                    ..IndexSpec::new(&name, &[]).unique()
                });
            }
            other => {
                return Err(refuse(format!(
                    "CREATE TABLE {table:?}: constraint {other} is not supported"
                )));
            }
        }
    }
    Ok(TableSpec {
        name: table,
        columns,
        indexes,
    })
}

fn names(columns: &[ColumnSpec]) -> Vec<String> {
    columns.iter().map(|c| c.name.clone()).collect()
}

/// The Jet column for a query output field of `CREATE TABLE … AS SELECT`.
/// A field read from a Jet table keeps its Jet type (the `jet.*` field
/// metadata: Text length, Currency, GUID, Binary length, hyperlink);
/// otherwise the Arrow type decides: Boolean → Yes/No, UInt8 → Byte,
/// Int8/Int16 → Integer, UInt16/Int32 → Long, Int64/UInt32 → Large Number
/// where the file version has it (ACE16+), else Long (values outside its
/// range are refused by the writer, naming the value), Float32 → Single,
/// Float64 → Double, Decimal128(p ≤ 28, s) → Numeric(p, s), timestamps
/// without a zone and dates → Date/Time, strings → Memo, binary → OLE,
/// FixedSizeBinary(n ≤ 255) → Binary(n). Other types are errors naming the
/// column.
pub(crate) fn column_for_field(table: &str, f: &Field, version: JetVersion) -> Result<ColumnSpec> {
    let name = f.name().as_str();
    let md = f.metadata();
    let meta_len = || md.get("jet.length").and_then(|l| l.parse::<u16>().ok());
    if let Some(t) = md.get("jet.type") {
        let kept = match (t.as_str(), f.data_type()) {
            ("Text", ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View) => meta_len()
                .filter(|l| (2..=510).contains(l))
                .map(|l| ColumnSpec::text(name, l / 2)),
            ("Memo", ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View) => {
                Some(ColumnSpec {
                    hyperlink: md.get("jet.hyperlink").is_some_and(|v| v == "true"),
                    ..ColumnSpec::new(name, JetType::Memo)
                })
            }
            ("GUID", ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View) => {
                Some(ColumnSpec::new(name, JetType::Guid))
            }
            ("Currency", ArrowType::Decimal128(19, 4)) => {
                Some(ColumnSpec::new(name, JetType::Currency))
            }
            ("Binary", ArrowType::Binary | ArrowType::LargeBinary | ArrowType::BinaryView) => {
                meta_len()
                    .filter(|l| (1..=255).contains(l))
                    .map(|l| ColumnSpec {
                        size: l,
                        ..ColumnSpec::new(name, JetType::Binary)
                    })
            }
            _ => None,
        };
        if let Some(k) = kept {
            return Ok(k);
        }
    }
    let t = match f.data_type() {
        ArrowType::Boolean => JetType::Boolean,
        ArrowType::UInt8 => JetType::Byte,
        ArrowType::Int8 | ArrowType::Int16 => JetType::Integer,
        ArrowType::UInt16 | ArrowType::Int32 => JetType::Long,
        ArrowType::Int64 | ArrowType::UInt32 | ArrowType::UInt64 => {
            if version >= JetVersion::Ace16 {
                JetType::BigInt
            } else {
                JetType::Long
            }
        }
        ArrowType::Float16 | ArrowType::Float32 => JetType::Single,
        ArrowType::Float64 => JetType::Double,
        ArrowType::Decimal128(p, s) if *p <= 28 && *s >= 0 && (*s as u8) <= *p => {
            return Ok(ColumnSpec::numeric(name, *p, *s as u8));
        }
        ArrowType::Timestamp(_, None) | ArrowType::Date32 | ArrowType::Date64 => JetType::DateTime,
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => JetType::Memo,
        ArrowType::Binary | ArrowType::LargeBinary | ArrowType::BinaryView => JetType::Ole,
        ArrowType::FixedSizeBinary(n) if (1..=255).contains(n) => {
            return Ok(ColumnSpec {
                size: *n as u16,
                ..ColumnSpec::new(name, JetType::Binary)
            });
        }
        ArrowType::Null => {
            return Err(refuse(format!(
                "CREATE TABLE {table:?} AS SELECT: column {name:?} has no type (a bare NULL); CAST it to a type"
            )));
        }
        ArrowType::Timestamp(
            TimeUnit::Second | TimeUnit::Millisecond | TimeUnit::Microsecond | TimeUnit::Nanosecond,
            Some(tz),
        ) => {
            return Err(refuse(format!(
                "CREATE TABLE {table:?} AS SELECT: column {name:?} is a timestamp in zone {tz}; Access dates have no zone (CAST it to TIMESTAMP)"
            )));
        }
        other => {
            return Err(refuse(format!(
                "CREATE TABLE {table:?} AS SELECT: column {name:?}: Arrow type {other} has no Jet column type"
            )));
        }
    };
    Ok(ColumnSpec::new(name, t))
}

/// The table spec of `CREATE TABLE table AS SELECT …` from the query's
/// output schema (no indexes).
pub(crate) fn spec_from_schema(
    table: &str,
    schema: &Schema,
    version: JetVersion,
) -> Result<TableSpec> {
    let columns = schema
        .fields()
        .iter()
        .map(|f| column_for_field(table, f, version))
        .collect::<Result<Vec<_>>>()?;
    Ok(TableSpec::new(table, columns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_type_names_map_to_jet_types() {
        let t = |w: &str| typed_column("CREATE TABLE", "T", "c", w).map(|c| (c.jet_type, c.size));
        assert_eq!(t("INTEGER").unwrap().0, JetType::Long);
        assert_eq!(t("int").unwrap().0, JetType::Long);
        assert_eq!(t("SMALLINT").unwrap().0, JetType::Integer);
        assert_eq!(t("BYTE").unwrap().0, JetType::Byte);
        assert_eq!(t("BIGINT").unwrap().0, JetType::BigInt);
        assert_eq!(t("DOUBLE PRECISION").unwrap().0, JetType::Double);
        assert_eq!(t("VARCHAR(20)").unwrap(), (JetType::Text, 20));
        assert_eq!(t("TEXT(50)").unwrap(), (JetType::Text, 50));
        assert_eq!(t("TEXT").unwrap().0, JetType::Memo);
        assert_eq!(t("VARBINARY(16)").unwrap(), (JetType::Binary, 16));
        assert_eq!(t("MONEY").unwrap().0, JetType::Currency);
        let n = typed_column("CREATE TABLE", "T", "c", "NUMERIC(10,2)").unwrap();
        assert_eq!(
            (n.jet_type, n.precision, n.scale),
            (JetType::Numeric, 10, 2)
        );
        let c = typed_column("CREATE TABLE", "T", "c", "COUNTER").unwrap();
        assert!(c.auto_number && c.jet_type == JetType::Long);
        for bad in [
            "VARCHAR(300)",
            "NUMERIC(30,2)",
            "INTERVAL",
            "INTEGER(4)",
            "TEXT(0)",
        ] {
            let e = typed_column("CREATE TABLE", "T", "c", bad)
                .unwrap_err()
                .to_string();
            assert!(e.contains("\"T\"") && e.contains("\"c\""), "{bad}: {e}");
        }
    }
}
