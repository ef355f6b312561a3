//! Statements prepared once and run with parameter values: what a server
//! speaking a wire protocol needs (`jetsql serve`: PostgreSQL's Parse /
//! Describe / Bind / Execute). A statement is parsed and checked as
//! [`JetSession::sql`] parses it, described (its `$n` parameters and the
//! columns it returns) without running, and run as many times as asked
//! with values for its placeholders, through the same entry point as any
//! other statement: a write takes the writer locks and is one journaled
//! transaction.

use super::kind::{Kind, classify};
use super::statement::JetSession;
use datafusion::arrow::datatypes::{DataType, Schema, SchemaRef};
use datafusion::common::ParamValues;
use datafusion::error::Result;
use datafusion::logical_expr::LogicalPlan;
use datafusion::prelude::DataFrame;
use datafusion::sql::parser::Statement as DFStatement;
use std::sync::Arc;

/// What a statement does, as a server must know before it runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatementKind {
    /// A query, `SHOW`, `EXPLAIN` of a query, `SET`: changes no database.
    Read,
    /// INSERT, UPDATE, DELETE, CREATE / ALTER / DROP of a table or index:
    /// may change a database.
    Write,
    /// `BEGIN` / `START TRANSACTION`.
    Begin,
    /// `COMMIT`.
    Commit,
    /// `ROLLBACK`.
    Rollback,
    /// `EXECUTE name`: a saved query (a select or an action query) or a
    /// prepared statement of the session.
    Execute,
}

/// The parameters a statement takes and the columns it returns.
#[derive(Debug, Clone)]
pub struct Described {
    /// The type of `$1`, `$2`, … in order, where the plan tells it
    /// (`None`: the statement does not fix it, as in `SELECT $1`).
    /// Placeholders the statement skips (`$2` without `$1`) are `None`
    /// too.
    pub parameters: Vec<Option<DataType>>,
    /// The columns of the rows it returns (empty for a statement without
    /// rows; the `count` column for INSERT, UPDATE and DELETE).
    pub schema: SchemaRef,
}

impl JetSession {
    /// Parses `sql` in the session's dialect with every check
    /// [`JetSession::sql`] makes, without running it: one entry a
    /// statement. `$1`, `$2`, … stay in the statements as placeholders.
    pub async fn prepare(&self, sql: &str) -> Result<Vec<DFStatement>> {
        self.parse(sql).await
    }

    /// What `s` does; an error for the DELETE / UPDATE forms this entry
    /// point refuses (with the reason).
    pub fn kind_of(s: &DFStatement) -> Result<StatementKind> {
        let kind = classify(s)?;
        Ok(match kind {
            Kind::Begin => StatementKind::Begin,
            Kind::Commit => StatementKind::Commit,
            Kind::Rollback => StatementKind::Rollback,
            Kind::Execute(..) => StatementKind::Execute,
            k if k.writes() => StatementKind::Write,
            _ => StatementKind::Read,
        })
    }

    /// The parameters `s` takes and the columns it returns, from its plan
    /// (nothing runs). Statements the entry point carries out itself
    /// (DDL, transactions, `EXECUTE` of a saved query) take no parameters
    /// and describe as returning no rows.
    pub async fn describe(&self, s: &DFStatement) -> Result<Described> {
        let kind = classify(s)?;
        if !kind.takes_parameters() {
            return Ok(Described {
                parameters: Vec::new(),
                schema: Arc::new(Schema::empty()),
            });
        }
        let plan = self.plan(s.clone(), self.dialect(), None).await?;
        let fields = plan.get_parameter_fields()?;
        let mut parameters: Vec<Option<DataType>> = Vec::new();
        for (id, field) in fields {
            // DataFusion names placeholders `$1`, `$2`, …
            let Some(n) = id
                .strip_prefix('$')
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..=u16::MAX as usize).contains(n))
            else {
                continue;
            };
            if parameters.len() < n {
                parameters.resize(n, None);
            }
            parameters[n - 1] = field.map(|f| f.data_type().clone());
        }
        let schema = Arc::new(plan.schema().as_arrow().clone());
        Ok(Described { parameters, schema })
    }

    /// Runs one prepared statement with `params` (`None`: it has no
    /// placeholders) as [`JetSession::sql_frame`] runs the last statement
    /// of a text: a query comes back planned and not yet run; anything
    /// else has run and the frame holds its result. A placeholder without
    /// a value, or a value of the wrong type, is an error naming it.
    /// A panic while preparing comes back as an error.
    pub async fn frame_for(
        &self,
        s: DFStatement,
        params: Option<ParamValues>,
    ) -> Result<DataFrame> {
        crate::frontdoor::catch_panic(self.frame_of(s, params.as_ref())).await
    }
}

/// `values` made to fit the types `plan` gives its placeholders: a value
/// of another type is cast (text `'12'` for an integer parameter reads as
/// 12, as PostgreSQL reads a parameter sent without a type); a value that
/// does not read as the type is an error naming the parameter.
pub(super) fn fit_parameters(plan: &LogicalPlan, values: &ParamValues) -> Result<ParamValues> {
    let ParamValues::List(list) = values else {
        return Ok(values.clone());
    };
    let types = plan.get_parameter_types()?;
    let mut fitted = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let id = format!("${}", i + 1);
        let mut v = v.clone();
        if let Some(Some(want)) = types.get(&id)
            && v.value.data_type() != *want
        {
            v.value = v.value.cast_to(want).map_err(|_| {
                crate::error::refuse(format!(
                    "parameter {id}: {} is not {}",
                    shown(&v.value),
                    type_words(want)
                ))
            })?;
        }
        fitted.push(v);
    }
    Ok(ParamValues::List(fitted))
}

/// A parameter value as a person reads it in an error.
fn shown(v: &datafusion::common::ScalarValue) -> String {
    let text = v.to_string();
    let text: String = text.chars().take(40).collect();
    match v.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => format!("'{text}'"),
        _ => text,
    }
}

/// The kind of value a type holds, in words.
fn type_words(t: &DataType) -> String {
    match t {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => "a whole number".into(),
        DataType::Float16 | DataType::Float32 | DataType::Float64 => "a number".into(),
        DataType::Decimal32(..)
        | DataType::Decimal64(..)
        | DataType::Decimal128(..)
        | DataType::Decimal256(..) => "a decimal number".into(),
        DataType::Boolean => "true or false".into(),
        DataType::Date32 | DataType::Date64 | DataType::Timestamp(..) => "a date/time".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "text".into(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "binary data".into(),
        other => format!("a value of type {other}"),
    }
}
