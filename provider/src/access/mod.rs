//! # The Access SQL front end
//!
//! Exports: modules [`functions`] (the Access function library) and
//! [`unrunnable`]; [`SqlDialect`], [`AccessDialect`], [`Params`],
//! [`ParamValue`] and [`parse_param_value`].
//!
//! Access SQL is translated into DataFusion plans in four steps, each a
//! module:
//!
//! 1. [`prelex`]: the script splits into statements; the clauses sqlparser
//!    has no grammar for (`PARAMETERS`, `DISTINCTROW`, `TRANSFORM`,
//!    `PIVOT`) are lifted out, blanked in place so positions stay true.
//! 2. [`dialect`]: sqlparser parses the rest with the Access dialect
//!    (`[names]`, `#dates#`, `\`, `Mod`, `^`, `!`).
//! 3. Tree rewrites: [`rewrite::DomainAggregates`] (DLookup & co. become
//!    subqueries), [`names`] (tables and columns resolved ignoring case,
//!    then spelt as the catalog spells them), [`rewrite::Exprs`] (strings,
//!    Yes/No, parameters, `Like`), [`select`] (`TOP`, `SELECT … INTO`,
//!    `DISTINCTROW`) and [`crosstab`] (`TRANSFORM … PIVOT`).
//! 4. Planning in a session state that adds [`planner::AccessPlanner`]
//!    (operators typed by their operands) and the Access function library
//!    ([`functions`]).
//!
//! The names step also runs for the DataFusion dialect: in every jetsql
//! session table and column names match regardless of case.

pub(crate) mod action;
pub(crate) mod ast;
pub(crate) mod crosstab;
mod datelit;
mod dialect;
pub(crate) mod distinctrow;
pub mod functions;
mod like;
pub(crate) mod names;
mod params;
mod planner;
mod prelex;
pub(crate) mod rewrite;
pub(crate) mod select;
pub mod unrunnable;
pub(crate) mod views;

use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::{DFParserBuilder, Statement as DFStatement};
use datafusion::sql::sqlparser::ast::{Statement, VisitMut};

pub use dialect::AccessDialect;
pub(crate) use dialect::{PARSER_RECURSION_LIMIT, parse_query};
pub use params::{ParamValue, Params, parse_param_value};
pub(crate) use planner::access_state;

/// Which SQL a session reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SqlDialect {
    /// Access SQL, as Access users type it (see the module docs); also
    /// reads most DataFusion SQL.
    #[default]
    Access,
    /// DataFusion's own SQL (PostgreSQL-like): case-sensitive text,
    /// `"quoted"` names, `COPY`, `::` casts, array literals. Names still
    /// match the catalog ignoring case.
    DataFusion,
}

impl std::str::FromStr for SqlDialect {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "access" => Ok(SqlDialect::Access),
            "datafusion" | "df" => Ok(SqlDialect::DataFusion),
            other => Err(format!(
                "unknown SQL dialect {other:?}: use access or datafusion"
            )),
        }
    }
}

impl std::fmt::Display for SqlDialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SqlDialect::Access => "access",
            SqlDialect::DataFusion => "datafusion",
        })
    }
}

/// A statement ready to plan, with what the Access rewrites still owe it.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The statement.
    pub statement: DFStatement,
}

/// Moves the "Line: l, Column: c" of a parser message by the statement's
/// position in the script.
fn shift_position(msg: &str, script: &str, offset: usize) -> String {
    let before = &script[..offset];
    let line0 = before.matches('\n').count();
    let col0 = before.len() - before.rfind('\n').map_or(0, |p| p + 1);
    let Some(at) = msg.find("Line: ") else {
        return msg.to_string();
    };
    let rest = &msg[at + 6..];
    let Some(comma) = rest.find(", Column: ") else {
        return msg.to_string();
    };
    let line: usize = rest[..comma].parse().unwrap_or(1);
    let col_text: String = rest[comma + 10..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let col: usize = col_text.parse().unwrap_or(1);
    let (l, c) = if line <= 1 {
        (line0 + 1, col0 + col)
    } else {
        (line0 + line, col)
    };
    format!(
        "{}Line: {l}, Column: {c}{}",
        &msg[..at],
        &rest[comma + 10 + col_text.len()..]
    )
}

fn parse_error(e: impl std::fmt::Display, script: &str, offset: usize) -> DataFusionError {
    let msg = e.to_string();
    let msg = msg
        .strip_prefix("SQL error: ")
        .unwrap_or(&msg)
        .trim_start_matches("ParserError(\"")
        .trim_start_matches("TokenizerError(\"")
        .trim_end_matches("\")")
        .to_string();
    let msg = msg
        .strip_prefix("sql parser error: ")
        .unwrap_or(&msg)
        .to_string();
    let mut msg = shift_position(&msg, script, offset);
    if !msg.contains("Line: ") {
        // sqlparser names no position at the end of the text: give the
        // statement's last line
        let end = script[offset..]
            .find(';')
            .map_or(script.len(), |p| offset + p);
        let line = script[..end].matches('\n').count() + 1;
        msg.push_str(&format!(" at the end of the statement (Line: {line})"));
    }
    DataFusionError::Plan(format!("syntax error: {msg}"))
}

/// The syntax error for `/*` at byte `at` of a statement's `text` (at
/// `offset` in `script`): Access SQL has no `/* */` comments, and
/// sqlparser would read one, so the front end refuses the pair itself.
fn no_block_comments(text: &str, at: usize, script: &str, offset: usize) -> DataFusionError {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |p| p + 1)..]
        .chars()
        .count()
        + 1;
    parse_error(
        format!(
            "Access SQL has no /* */ comments: '/*' at Line: {line}, Column: {column} is a \
             division sign followed by '*' (comment with '-- ' to the end of a line, or use \
             the DataFusion dialect)"
        ),
        script,
        offset,
    )
}

/// Parses `script` in `dialect` and rewrites every statement for planning.
pub(crate) async fn prepare(
    script: &str,
    dialect: SqlDialect,
    ctx: &SessionContext,
    params: &Params,
) -> Result<Vec<Prepared>> {
    let mut out = Vec::new();
    match dialect {
        SqlDialect::DataFusion => {
            let statements = {
                let state = ctx.state();
                let options = state.config().options();
                let d = datafusion::sql::sqlparser::dialect::dialect_from_str(
                    options.sql_parser.dialect,
                )
                .ok_or_else(|| DataFusionError::Plan("unsupported SQL dialect".into()))?;
                DFParserBuilder::new(script)
                    .with_dialect(d.as_ref())
                    .with_recursion_limit(options.sql_parser.recursion_limit.get())
                    .build()
                    .and_then(|mut p| p.parse_statements())
                    .map_err(|e| parse_error(e, script, 0))?
            };
            for mut s in statements {
                if let Some(inner) = sql_statement(&mut s) {
                    resolve(inner, ctx, false, params).await?;
                }
                out.push(Prepared { statement: s });
            }
        }
        SqlDialect::Access => {
            let limit = ctx
                .state()
                .config()
                .options()
                .sql_parser
                .recursion_limit
                .get();
            for piece in prelex::split(script) {
                if piece.text.trim().is_empty() {
                    continue;
                }
                // the statement as typed: TRANSFORM and PIVOT, lifted out
                // of `text`, are parsed too
                let typed = script
                    .get(piece.offset..piece.offset + piece.text.len())
                    .unwrap_or(piece.text.as_str());
                if let Some(at) = prelex::slash_star(typed) {
                    return Err(no_block_comments(typed, at, script, piece.offset));
                }
                let statements = DFParserBuilder::new(piece.text.as_str())
                    .with_dialect(&AccessDialect)
                    .with_recursion_limit(limit)
                    .build()
                    .and_then(|mut p| p.parse_statements())
                    .map_err(|e| parse_error(e, script, piece.offset))?;
                for mut s in statements {
                    if let Some(inner) = sql_statement(&mut s) {
                        if piece.transform.is_some() {
                            crosstab::inject(inner, &piece)?;
                        }
                        let mut domain = rewrite::DomainAggregates { error: None };
                        let _ = inner.visit(&mut domain);
                        if let Some(e) = domain.error {
                            return Err(e);
                        }
                        let missing = resolve(inner, ctx, true, params).await?;
                        if !missing.is_empty() {
                            return Err(missing_parameters(&missing, &piece.parameters));
                        }
                        if piece.transform.is_some() {
                            crosstab::rewrite(inner, ctx).await?;
                        }
                        select::rewrite(inner, &piece, ctx).await?;
                        if let Statement::Delete(d) = inner {
                            action::check_delete_targets(d, &piece.delete_targets)?;
                        }
                    } else if piece.distinctrow || piece.transform.is_some() {
                        return Err(DataFusionError::Plan(
                            "DISTINCTROW and TRANSFORM apply to SELECT statements only".into(),
                        ));
                    }
                    out.push(Prepared { statement: s });
                }
            }
        }
    }
    Ok(out)
}

fn missing_parameters(
    missing: &[datafusion::sql::sqlparser::ast::Ident],
    declared: &[(String, String)],
) -> DataFusionError {
    let names: Vec<String> = missing.iter().map(|i| format!("[{}]", i.value)).collect();
    let undeclared: Vec<&str> = missing
        .iter()
        .filter(|i| {
            !declared
                .iter()
                .any(|(d, _)| d.eq_ignore_ascii_case(&i.value))
        })
        .map(|i| i.value.as_str())
        .collect();
    let mut msg = format!(
        "the query needs a value for {} (bind {} with \\param NAME VALUE in the shell, or \
         with the library's bind)",
        names.join(", "),
        if names.len() == 1 { "it" } else { "them" }
    );
    if !undeclared.is_empty() {
        msg.push_str(&format!(
            "; no table or column is named {}",
            undeclared
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    DataFusionError::Plan(msg)
}

/// The sqlparser statement inside a DataFusion statement, when names in it
/// are to be resolved.
fn sql_statement(s: &mut DFStatement) -> Option<&mut Statement> {
    match s {
        DFStatement::Statement(s) => match s.as_mut() {
            Statement::Query(_)
            | Statement::Insert(_)
            | Statement::Update(_)
            | Statement::Delete(_)
            | Statement::CreateTable(_)
            | Statement::CreateView(_) => Some(s.as_mut()),
            _ => None,
        },
        DFStatement::Explain(e) => sql_statement(e.statement.as_mut()),
        _ => None,
    }
}

/// Resolves names in one statement (both passes); in Access mode also the
/// Access meanings of unresolved names and `Like`. Returns the parameters
/// referenced without a value.
async fn resolve(
    s: &mut Statement,
    ctx: &SessionContext,
    access: bool,
    params: &Params,
) -> Result<Vec<datafusion::sql::sqlparser::ast::Ident>> {
    let mut relations = names::resolve_relations(s, ctx);
    for t in &mut relations.tables {
        if let Ok(p) = ctx.table_provider(t.reference.clone()).await {
            // a saved query that cannot be run is named with its reason
            // here, before planning meets its empty column list
            if let Some(u) =
                (p.as_ref() as &dyn std::any::Any).downcast_ref::<unrunnable::UnrunnableQuery>()
            {
                return Err(u.error());
            }
            t.columns = p
                .schema()
                .fields()
                .iter()
                .map(|f| (f.name().clone(), f.data_type().clone()))
                .collect();
        }
    }
    let columns = names::Columns::new(&relations);
    let _ = s.visit(&mut names::ColumnTargets(&columns));
    let mut exprs = rewrite::Exprs {
        columns: &columns,
        access,
        all_known: relations.all_known(),
        params,
        missing: Vec::new(),
        error: None,
    };
    let _ = s.visit(&mut exprs);
    if let Some(e) = exprs.error {
        return Err(e);
    }
    Ok(exprs.missing)
}
