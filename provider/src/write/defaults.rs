//! Column defaults between SQL and Access.
//!
//! A SQL `DEFAULT` in `CREATE TABLE` becomes the column's Access
//! `DefaultValue` expression text (what the writer stores and evaluates);
//! the `jet.default` text of an existing column becomes the DataFusion
//! expression the planner uses for a column an `INSERT` omits. Both
//! directions accept exactly the expressions the writer evaluates
//! (`jet_storage::write::default`): literals, dates, `Now()`, `Date()`.

use datafusion::arrow::datatypes::{DataType, Schema, TimeUnit};
use datafusion::common::ScalarValue;
use datafusion::functions::datetime::expr_fn as datetime;
use datafusion::logical_expr::{Cast, Expr, lit};
use datafusion::sql::sqlparser::ast::{self, UnaryOperator, Value};
use jet_storage::write::default::{DefaultExpr, parse};
use std::collections::HashMap;

/// The Access `DefaultValue` text for a SQL `DEFAULT` expression: numbers
/// (with a sign), quoted strings, `TRUE`/`FALSE`, `NULL`,
/// `DATE '…'`/`TIMESTAMP '…'`/`TIME '…'`, `CURRENT_TIMESTAMP`/`NOW()`
/// and `CURRENT_DATE`. `None` for anything else (the caller refuses it).
pub(crate) fn access_default_text(e: &ast::Expr) -> Option<String> {
    let text = match e {
        ast::Expr::Nested(inner) => return access_default_text(inner),
        ast::Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.to_string(),
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                format!("\"{}\"", s.replace('"', "\"\""))
            }
            Value::Boolean(true) => "True".into(),
            Value::Boolean(false) => "False".into(),
            Value::Null => "Null".into(),
            _ => return None,
        },
        ast::Expr::UnaryOp {
            op: op @ (UnaryOperator::Minus | UnaryOperator::Plus),
            expr,
        } => match expr.as_ref() {
            ast::Expr::Value(v) => match &v.value {
                Value::Number(n, _) => format!("{op}{n}"),
                _ => return None,
            },
            _ => return None,
        },
        ast::Expr::TypedString(ts) => {
            let kind = ts.data_type.to_string().to_ascii_uppercase();
            if !matches!(kind.as_str(), "DATE" | "TIMESTAMP" | "DATETIME" | "TIME") {
                return None;
            }
            let s = ts.value.value.clone().into_string()?;
            if s.contains('#') {
                return None;
            }
            format!("#{}#", s.trim())
        }
        ast::Expr::Function(_) => {
            let compact: String = e
                .to_string()
                .to_ascii_uppercase()
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            match compact.as_str() {
                "CURRENT_TIMESTAMP" | "CURRENT_TIMESTAMP()" | "NOW()" | "LOCALTIMESTAMP" => {
                    "Now()".into()
                }
                "CURRENT_DATE" | "CURRENT_DATE()" => "Date()".into(),
                _ => return None,
            }
        }
        _ => return None,
    };
    // only what the writer evaluates
    parse(&text).map(|_| text)
}

/// The DataFusion expression for each column of `schema` with a
/// `jet.default` the writer can evaluate, keyed by column name. The planner
/// casts it to the column's type (a value that does not convert fails the
/// statement, it is never replaced by NULL).
pub(crate) fn column_defaults(schema: &Schema) -> HashMap<String, Expr> {
    schema
        .fields()
        .iter()
        .filter_map(|f| {
            let text = f.metadata().get("jet.default")?;
            let expr = default_expr(&parse(text)?, f.data_type());
            Some((f.name().clone(), expr))
        })
        .collect()
}

fn default_expr(d: &DefaultExpr, target: &DataType) -> Expr {
    match d {
        DefaultExpr::Null => lit(ScalarValue::Null),
        // Access spells Yes/No defaults as numbers too: 0 is No, others Yes
        DefaultExpr::Number(n) if *target == DataType::Boolean => lit(n
            .parse::<f64>()
            .map_or(ScalarValue::Utf8(Some(n.clone())), |v| {
                ScalarValue::Boolean(Some(v != 0.0))
            })),
        DefaultExpr::Number(n) => lit(ScalarValue::Utf8(Some(n.clone()))),
        DefaultExpr::Text(s) => lit(ScalarValue::Utf8(Some(s.clone()))),
        DefaultExpr::Bool(b) => lit(*b),
        DefaultExpr::Date(us) => lit(ScalarValue::TimestampMicrosecond(Some(*us), None)),
        // `now()` is a UTC instant with a zone; the column holds the
        // zone-less UTC wall time, as the writer's own `Now()` stores it
        DefaultExpr::Now => Expr::Cast(Cast::new(
            Box::new(datetime::now()),
            DataType::Timestamp(TimeUnit::Microsecond, None),
        )),
        DefaultExpr::Today => datetime::current_date(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::dialect::GenericDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    fn text(sql: &str) -> Option<String> {
        let e = Parser::new(&GenericDialect {})
            .try_with_sql(sql)
            .unwrap()
            .parse_expr()
            .unwrap();
        access_default_text(&e)
    }

    #[test]
    fn sql_defaults_become_access_text() {
        assert_eq!(text("12").as_deref(), Some("12"));
        assert_eq!(text("-3.25").as_deref(), Some("-3.25"));
        assert_eq!(text("'it''s \"x\"'").as_deref(), Some("\"it's \"\"x\"\"\""));
        assert_eq!(text("TRUE").as_deref(), Some("True"));
        assert_eq!(text("NULL").as_deref(), Some("Null"));
        assert_eq!(text("DATE '2024-01-31'").as_deref(), Some("#2024-01-31#"));
        assert_eq!(
            text("TIMESTAMP '2024-01-31 13:45:30'").as_deref(),
            Some("#2024-01-31 13:45:30#")
        );
        assert_eq!(text("CURRENT_TIMESTAMP").as_deref(), Some("Now()"));
        assert_eq!(text("now()").as_deref(), Some("Now()"));
        assert_eq!(text("CURRENT_DATE").as_deref(), Some("Date()"));
        assert_eq!(text("(7)").as_deref(), Some("7"));
    }

    #[test]
    fn other_expressions_are_refused() {
        for sql in [
            "1 + 2",
            "upper('a')",
            "x",
            "-'a'",
            "DATE 'not a date'",
            "random()",
        ] {
            assert_eq!(text(sql), None, "{sql}");
        }
    }

    #[test]
    fn stored_defaults_become_expressions() {
        use datafusion::arrow::datatypes::Field;
        let f = |name: &str, t: DataType, d: &str| {
            Field::new(name, t, true)
                .with_metadata(HashMap::from([("jet.default".to_string(), d.to_string())]))
        };
        let schema = Schema::new(vec![
            f("n", DataType::Int32, "5"),
            f("b", DataType::Boolean, "-1"),
            f("s", DataType::Utf8, "\"x\""),
            f("bad", DataType::Utf8, "Left(\"x\", 1)"),
            Field::new("none", DataType::Int32, true),
        ]);
        let d = column_defaults(&schema);
        assert_eq!(d.len(), 3);
        assert_eq!(d["n"], lit("5"));
        assert_eq!(d["b"], lit(true));
        assert_eq!(d["s"], lit("x"));
    }
}
