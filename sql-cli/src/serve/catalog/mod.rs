//! The PostgreSQL catalog a connection's clients browse: `pg_catalog`
//! tables ([`tables`]) and functions ([`functions`]) over a snapshot of
//! the served database, in a DataFusion context of their own. The
//! snapshot is taken at the connection's first catalog statement and
//! again whenever the session's databases changed since (a table created
//! through the server shows in `\dt` at once). A statement that reads `pg_catalog.*` or `information_schema.*`,
//! an unqualified `pg_*` relation that is not a served table, or only
//! catalog functions (`SELECT version()`) is read as PostgreSQL SQL, its
//! PostgreSQL-only syntax rewritten ([`rewrite`]), and answered here,
//! whatever the connection's dialect: client metadata SQL is PostgreSQL.

mod empty;
mod functions;
mod rewrite;
pub mod tables;

use crate::migrate::schema;
use datafusion::catalog::TableProvider;
use datafusion::common::ParamValues;
use datafusion::datasource::MemTable;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::TableType;
use datafusion::prelude::{DataFrame, SessionConfig, SessionContext};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    Expr, ObjectName, ObjectNamePart, Statement, visit_expressions, visit_relations,
};
use datafusion::sql::sqlparser::dialect::PostgreSqlDialect;
use datafusion::sql::sqlparser::parser::Parser;
use jet_provider::JetSession;
use std::ops::ControlFlow;
use std::sync::Arc;
use tables::{Attribute, Relation, Snapshot};

/// One connection's catalog.
pub struct Catalog {
    ctx: SessionContext,
    snapshot: Arc<Snapshot>,
}

/// The identifier parts of `name`, lower-cased.
fn parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .filter_map(ObjectNamePart::as_ident)
        .map(|i| i.value.to_lowercase())
        .collect()
}

impl Catalog {
    /// The catalog of database `name` as `session` sees it (its tables and
    /// saved queries in schema `public`), with every served database in
    /// `pg_database`.
    pub async fn build(
        session: &JetSession,
        name: &str,
        db: Option<jet_storage::Database>,
        databases: Vec<String>,
        settings: Arc<std::sync::Mutex<super::local::Settings>>,
    ) -> Result<Catalog> {
        let schema = session
            .context()
            .catalog(name)
            .and_then(|c| c.schema("public"))
            .ok_or_else(|| DataFusionError::Plan(format!("no database {name}")))?;
        let mut relations = Vec::new();
        let mut names = schema.table_names();
        names.sort();
        for t in names {
            // a saved query that cannot be planned (parameters, Access
            // syntax not translated) has no columns to show: left out
            let Ok(Some(p)) = schema.table(&t).await else {
                continue;
            };
            relations.push(relation(&t, p.as_ref()));
        }
        // tables first, then views, each by name: OIDs stable per image
        relations.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
        let mut snapshot = Snapshot {
            database: name.to_string(),
            databases,
            relations,
            ..Snapshot::default()
        };
        if let Some(model) = db.as_ref().and_then(|db| schema::read(db).ok()) {
            for r in snapshot.relations.iter_mut().filter(|r| r.kind == "r") {
                let Some(t) = model.tables.iter().find(|t| t.name == r.name) else {
                    continue;
                };
                for a in &mut r.columns {
                    let Some(c) = t.columns.iter().find(|c| c.name == a.name) else {
                        continue;
                    };
                    // Text(n): n characters, as `jetsql migrate` declares it
                    if a.ty == pgwire::api::Type::VARCHAR && c.length > 0 {
                        a.typmod = i32::try_from(c.length).unwrap_or(i32::MAX - 4) + 4;
                    }
                    a.not_null |= c.required || t.primary_key.contains(&c.name);
                    // `jetsql migrate` makes a Long auto-number an identity
                    a.identity = c.auto && a.ty == pgwire::api::Type::INT4;
                }
            }
            snapshot = snapshot.with_keys(&model);
        }
        let snapshot = Arc::new(snapshot);
        let config = SessionConfig::new()
            .with_default_catalog_and_schema("jetsql", "pg_catalog")
            .with_information_schema(false);
        let ctx = SessionContext::new_with_config(config);
        for (table, schema, batch) in tables::pg_catalog(&snapshot) {
            ctx.register_table(
                table,
                Arc::new(MemTable::try_new(schema, vec![vec![batch]])?),
            )?;
        }
        for f in functions::all(&snapshot, settings) {
            ctx.register_udf(f);
        }
        Ok(Catalog { ctx, snapshot })
    }

    /// A claimed statement rewritten for this catalog's snapshot.
    pub fn rewritten(&self, mut claimed: Claimed) -> Claimed {
        rewrite::rewrite(&mut claimed.stmt, &self.snapshot);
        claimed
    }

    async fn plan(&self, stmt: &Statement) -> Result<datafusion::logical_expr::LogicalPlan> {
        self.ctx
            .state()
            .statement_to_plan(DFStatement::Statement(Box::new(stmt.clone())))
            .await
    }

    /// The parameter types and result columns of a claimed statement.
    pub async fn describe(
        &self,
        claimed: &Claimed,
    ) -> Result<(
        Vec<Option<datafusion::arrow::datatypes::DataType>>,
        datafusion::arrow::datatypes::SchemaRef,
    )> {
        let stmt = &claimed.stmt;
        if let Some(names) = empty::columns_if_empty_statement(stmt) {
            let fields: Vec<datafusion::arrow::datatypes::Field> = names
                .iter()
                .map(|n| {
                    datafusion::arrow::datatypes::Field::new(
                        n,
                        datafusion::arrow::datatypes::DataType::Utf8,
                        true,
                    )
                })
                .collect();
            return Ok((
                vec![None; claimed.count],
                Arc::new(datafusion::arrow::datatypes::Schema::new(fields)),
            ));
        }
        let plan = self.plan(stmt).await?;
        let types = plan.get_parameter_types()?;
        let mut params = Vec::new();
        // every placeholder of the text, also those a rewrite removed
        for n in 1..=claimed.count {
            params.push(types.get(&format!("${n}")).cloned().flatten());
        }
        Ok((params, Arc::new(plan.schema().as_arrow().clone())))
    }

    /// The plan of a claimed statement, with `params` for its `$n`.
    pub async fn frame(&self, stmt: Statement, params: Option<ParamValues>) -> Result<Answer> {
        if let Some(names) = empty::columns_if_empty_statement(&stmt) {
            return Ok(Answer::Empty(names));
        }
        let plan = self.plan(&stmt).await?;
        let plan = match params {
            Some(p) => plan.with_param_values(p)?,
            None => plan,
        };
        Ok(Answer::Rows(self.ctx.execute_logical_plan(plan).await?))
    }
}

/// `sql` read as a catalog statement (not yet rewritten: see
/// [`Catalog::rewritten`]); `None` when it is the engine's (it names a
/// served table, or nothing of the catalog, or is not PostgreSQL SQL).
/// `served` tells whether a lower-cased name is a served relation.
pub fn claims(sql: &str, served: impl Fn(&str) -> bool) -> Option<Claimed> {
    let mut stmts = Parser::parse_sql(&PostgreSqlDialect {}, sql).ok()?;
    if stmts.len() != 1 || !matches!(stmts[0], Statement::Query(_)) {
        return None;
    }
    let stmt = stmts.pop()?;
    let mut catalog = false;
    let mut engine = false;
    let _ = visit_relations(&stmt, |name| {
        let p = parts(name);
        match p.as_slice() {
            [schema, _] if schema == "pg_catalog" || schema == "information_schema" => {
                catalog = true
            }
            [t] if t.starts_with("pg_") && !served(t) => catalog = true,
            _ => engine = true,
        }
        ControlFlow::<()>::Continue(())
    });
    if engine {
        return None;
    }
    if !catalog {
        let _ = visit_expressions(&stmt, |e| {
            if let Expr::Function(f) = e
                && parts(&f.name)
                    .last()
                    .is_some_and(|n| functions::NAMES.contains(&n.as_str()))
            {
                catalog = true;
            }
            ControlFlow::<()>::Continue(())
        });
    }
    if !catalog {
        return None;
    }
    let count = placeholders(&stmt);
    Some(Claimed { stmt, count })
}

/// A statement the catalog answers, rewritten, with the number of `$n`
/// placeholders its text had.
#[derive(Clone)]
pub struct Claimed {
    /// The statement as it is planned.
    pub stmt: Statement,
    /// The highest `$n` of the text as the client wrote it.
    pub count: usize,
}

/// The highest `$n` in `stmt`.
fn placeholders(stmt: &Statement) -> usize {
    let mut max = 0;
    let _ = visit_expressions(stmt, |e| {
        if let Expr::Value(v) = e
            && let datafusion::sql::sqlparser::ast::Value::Placeholder(p) = &v.value
            && let Some(n) = p.strip_prefix('$').and_then(|n| n.parse::<usize>().ok())
        {
            max = max.max(n.min(u16::MAX as usize));
        }
        ControlFlow::<()>::Continue(())
    });
    max
}

/// What a catalog statement answers.
pub enum Answer {
    /// Rows to run.
    Rows(DataFrame),
    /// No rows, under these column names (of text type).
    Empty(Vec<String>),
}

/// `pg_attribute`'s view of table or view `name`.
fn relation(name: &str, p: &dyn TableProvider) -> Relation {
    let schema = p.schema();
    Relation {
        name: name.to_string(),
        kind: if p.table_type() == TableType::View {
            "v"
        } else {
            "r"
        },
        columns: schema
            .fields()
            .iter()
            .map(|f| {
                let (ty, typmod) = super::types::pg_type(f);
                Attribute {
                    name: f.name().clone(),
                    ty,
                    typmod,
                    not_null: !f.is_nullable(),
                    default: None,
                    identity: false,
                }
            })
            .collect(),
    }
}
