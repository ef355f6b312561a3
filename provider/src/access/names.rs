//! Names as Access resolves them: table and column names match whatever
//! their case (unquoted, bracketed or double-quoted), and the statement
//! then names them exactly as the catalog spells them, so results keep the
//! catalog's spelling (`SELECT orderid FROM orders` yields a column
//! `OrderID`) and plans are those of the exactly-quoted statement (index
//! seeks included).
//!
//! Two passes over a parsed statement:
//! 1. [`resolve_relations`] (synchronous, from the catalog's table lists):
//!    every table name is replaced by the catalog's spelling; CTE names,
//!    table aliases and select-list aliases are collected (and quoted, so
//!    their spelling survives DataFusion's case folding).
//! 2. [`Columns`], built from the resolved tables' schemas, rewrites every
//!    column reference to the spelling of the one column it names.
//!
//! A name that matches nothing is left alone (DataFusion's error names it;
//! the Access pass turns it into a parameter or a string). A name that
//! matches columns of two spellings (`OrderID`, `OrderId`) is left alone
//! too, unless qualified.

use super::ast::exact;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::TableReference;
use datafusion::prelude::SessionContext;
use datafusion::sql::sqlparser::ast::{
    AssignmentTarget, Expr, Ident, JoinConstraint, ObjectName, ObjectNamePart, Query, Select,
    SelectItem, SelectItemQualifiedWildcardKind, SetExpr, Statement, TableFactor, TableObject,
    VisitMut, VisitorMut,
};
use std::collections::HashMap;
use std::ops::ControlFlow;

/// A table the statement reads or writes, resolved in the catalog.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedTable {
    /// Where DataFusion finds it.
    pub reference: TableReference,
    /// The name it goes by in the statement: its alias, or its table name.
    pub qualifier: String,
    /// Its columns (exact names and types), filled by the caller.
    pub columns: Vec<(String, DataType)>,
}

/// What the relation pass learnt.
#[derive(Debug, Default)]
pub(crate) struct Relations {
    /// The catalog tables, in order of appearance.
    pub tables: Vec<ResolvedTable>,
    /// Aliases of derived tables, CTE names and other relations whose
    /// columns this pass does not know.
    pub opaque: Vec<String>,
    /// Whether some relation could not be resolved (a file, a table
    /// function, a misspelt table): then unknown names may be its columns.
    pub unknown_relation: bool,
    /// Select-list aliases and CTE column aliases, as spelt where defined.
    pub aliases: Vec<String>,
}

impl Relations {
    /// Whether every relation's columns are known.
    pub fn all_known(&self) -> bool {
        !self.unknown_relation && self.opaque.is_empty()
    }
}

fn lower(s: &str) -> String {
    s.to_lowercase()
}

fn ident_parts(name: &ObjectName) -> Option<Vec<Ident>> {
    name.0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => Some(i.clone()),
            _ => None,
        })
        .collect()
}

/// Picks the entry matching `name`: exactly spelt first, else the one that
/// matches ignoring case (none when two do).
fn pick<'a>(names: impl Iterator<Item = &'a String> + Clone, name: &str) -> Option<&'a String> {
    if let Some(e) = names.clone().find(|n| *n == name) {
        return Some(e);
    }
    let l = lower(name);
    let mut found = names.filter(|n| lower(n) == l);
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// A session configuration extension: the relation pass then writes every
/// table it resolves with its catalog and schema, so the statement means
/// the same tables in any session. Set while a saved query of one database
/// is prepared for a session whose bare names mean another's tables.
#[derive(Debug, Default)]
pub(crate) struct QualifyTables;

struct RelationPass<'a> {
    ctx: &'a SessionContext,
    qualify: bool,
    default_catalog: String,
    default_schema: String,
    ctes: Vec<String>,
    out: Relations,
}

impl RelationPass<'_> {
    fn schema_tables(&self, catalog: &str, schema: &str) -> Option<(String, String, Vec<String>)> {
        let catalogs = self.ctx.catalog_names();
        let c = pick(catalogs.iter(), catalog)?.clone();
        let cat = self.ctx.catalog(&c)?;
        let schemas = cat.schema_names();
        let s = pick(schemas.iter(), schema)?.clone();
        let tables = cat.schema(&s)?.table_names();
        Some((c, s, tables))
    }

    /// Resolves a table name in place (written with its catalog and schema
    /// under [`QualifyTables`]); returns its reference.
    fn resolve(&mut self, name: &mut ObjectName) -> Option<TableReference> {
        let reference = self.resolve_spelling(name)?;
        if self.qualify
            && let TableReference::Full {
                catalog,
                schema,
                table,
            } = &reference
        {
            name.0 = [catalog, schema, table]
                .into_iter()
                .map(|p| ObjectNamePart::Identifier(exact(p)))
                .collect();
        }
        Some(reference)
    }

    /// Resolves a table name in place, as short as it was written.
    fn resolve_spelling(&mut self, name: &mut ObjectName) -> Option<TableReference> {
        let parts = ident_parts(name)?;
        let (c, s, t) = match parts.as_slice() {
            [t] => {
                if self.ctes.iter().any(|c| lower(c) == lower(&t.value)) {
                    return None;
                }
                let (c, s, tables) =
                    self.schema_tables(&self.default_catalog, &self.default_schema)?;
                let t = pick(tables.iter(), &t.value)?.clone();
                name.0 = vec![ObjectNamePart::Identifier(exact(&t))];
                return Some(TableReference::full(c, s, t));
            }
            [s, t] => {
                if let Some((c, s, tables)) = self.schema_tables(&self.default_catalog, &s.value)
                    && let Some(t) = pick(tables.iter(), &t.value)
                {
                    let t = t.clone();
                    name.0 = vec![
                        ObjectNamePart::Identifier(exact(&s)),
                        ObjectNamePart::Identifier(exact(&t)),
                    ];
                    return Some(TableReference::full(c, s, t));
                }
                // `nwind.Orders`: a database's table, schema omitted
                (s.value.clone(), "public".to_string(), t.value.clone())
            }
            [c, s, t] => (c.value.clone(), s.value.clone(), t.value.clone()),
            _ => return None,
        };
        let (c, s, tables) = self.schema_tables(&c, &s)?;
        let t = pick(tables.iter(), &t)?.clone();
        name.0 = [&c, &s, &t]
            .into_iter()
            .map(|p| ObjectNamePart::Identifier(exact(p)))
            .collect();
        Some(TableReference::full(c, s, t))
    }

    fn add_table(&mut self, name: &mut ObjectName, alias: Option<&mut Ident>) {
        let original = ident_parts(name)
            .and_then(|p| p.last().map(|i| i.value.clone()))
            .unwrap_or_default();
        match self.resolve(name) {
            Some(reference) => {
                let qualifier = match alias {
                    Some(a) => {
                        keep_spelling(a);
                        a.value.clone()
                    }
                    None => reference.table().to_string(),
                };
                if !self
                    .out
                    .tables
                    .iter()
                    .any(|t| t.reference == reference && t.qualifier == qualifier)
                {
                    self.out.tables.push(ResolvedTable {
                        reference,
                        qualifier,
                        columns: Vec::new(),
                    });
                }
            }
            None => {
                if self.ctes.iter().any(|c| lower(c) == lower(&original)) {
                    self.out.opaque.push(original);
                    if let Some(a) = alias {
                        keep_spelling(a);
                        self.out.opaque.push(a.value.clone());
                    }
                } else {
                    self.out.unknown_relation = true;
                }
            }
        }
    }
}

/// Quotes an alias so DataFusion keeps its spelling.
fn keep_spelling(i: &mut Ident) {
    if i.quote_style.is_none() {
        i.quote_style = Some('"');
    }
}

impl VisitorMut for RelationPass<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        if let Some(with) = &mut q.with {
            for cte in &mut with.cte_tables {
                keep_spelling(&mut cte.alias.name);
                self.ctes.push(cte.alias.name.value.clone());
                for c in &mut cte.alias.columns {
                    keep_spelling(&mut c.name);
                    self.out.aliases.push(c.name.value.clone());
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, s: &mut Select) -> ControlFlow<()> {
        for item in &mut s.projection {
            if let SelectItem::ExprWithAlias { alias, .. } = item {
                keep_spelling(alias);
                self.out.aliases.push(alias.value.clone());
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, tf: &mut TableFactor) -> ControlFlow<()> {
        match tf {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                if args.is_some() {
                    // a table function: its columns are unknown here
                    self.out.unknown_relation = true;
                } else {
                    self.add_table(name, alias.as_mut().map(|a| &mut a.name));
                }
                if let Some(a) = alias {
                    for c in &mut a.columns {
                        keep_spelling(&mut c.name);
                        self.out.aliases.push(c.name.value.clone());
                    }
                }
            }
            TableFactor::Derived { alias, .. } => {
                if let Some(a) = alias {
                    keep_spelling(&mut a.name);
                    self.out.opaque.push(a.name.value.clone());
                    for c in &mut a.columns {
                        keep_spelling(&mut c.name);
                        self.out.aliases.push(c.name.value.clone());
                    }
                }
            }
            TableFactor::NestedJoin { .. } => {}
            _ => self.out.unknown_relation = true,
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_statement(&mut self, s: &mut Statement) -> ControlFlow<()> {
        match s {
            Statement::Insert(i) => {
                if let TableObject::TableName(name) = &mut i.table {
                    self.add_table(name, None);
                }
            }
            Statement::CreateTable(ct) => {
                // names typed in CREATE TABLE keep their spelling
                for part in &mut ct.name.0 {
                    if let ObjectNamePart::Identifier(i) = part {
                        keep_spelling(i);
                    }
                }
                for c in &mut ct.columns {
                    keep_spelling(&mut c.name);
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// Pass 1: resolves every table name of `statement` in place and collects
/// the names the column pass needs.
pub(crate) fn resolve_relations(statement: &mut Statement, ctx: &SessionContext) -> Relations {
    let state = ctx.state();
    let options = state.config().options().catalog.clone();
    let mut pass = RelationPass {
        ctx,
        qualify: state.config().get_extension::<QualifyTables>().is_some(),
        default_catalog: options.default_catalog,
        default_schema: options.default_schema,
        ctes: Vec::new(),
        out: Relations::default(),
    };
    // CTE names first, so a CTE that shadows a table is not resolved as it
    let _ = statement.visit(&mut CteNames(&mut pass.ctes));
    let _ = statement.visit(&mut pass);
    pass.out
}

struct CteNames<'a>(&'a mut Vec<String>);

impl VisitorMut for CteNames<'_> {
    type Break = ();
    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        if let Some(with) = &q.with {
            self.0
                .extend(with.cte_tables.iter().map(|c| c.alias.name.value.clone()));
        }
        ControlFlow::Continue(())
    }
}

/// The column names in scope of one statement.
#[derive(Debug, Default)]
pub(crate) struct Columns {
    /// lower-case name → exact spelling (`None`: two spellings).
    any: HashMap<String, Option<String>>,
    /// lower-case qualifier → (exact qualifier, its columns when known).
    qualifiers: HashMap<String, (String, Option<HashMap<String, String>>)>,
    /// lower-case column name → its type, when all spellings agree on one.
    types: HashMap<String, Option<DataType>>,
}

impl Columns {
    /// The scope of `relations` (whose tables have their columns filled).
    pub fn new(relations: &Relations) -> Self {
        let mut c = Columns::default();
        for t in &relations.tables {
            let mut own = HashMap::new();
            for (name, ty) in &t.columns {
                c.add(name);
                own.insert(lower(name), name.clone());
                let e = c
                    .types
                    .entry(lower(name))
                    .or_insert_with(|| Some(ty.clone()));
                if e.as_ref() != Some(ty) {
                    *e = None;
                }
            }
            c.qualifiers
                .insert(lower(&t.qualifier), (t.qualifier.clone(), Some(own)));
            let table = t.reference.table().to_string();
            c.qualifiers
                .entry(lower(&table))
                .or_insert_with(|| (table, None));
        }
        for a in &relations.aliases {
            c.add(a);
        }
        for o in &relations.opaque {
            c.qualifiers.insert(lower(o), (o.clone(), None));
        }
        c
    }

    fn add(&mut self, name: &str) {
        let e = self
            .any
            .entry(lower(name))
            .or_insert_with(|| Some(name.to_string()));
        if e.as_deref() != Some(name) {
            *e = None;
        }
    }

    /// The exact spelling of column `name`, when exactly one matches.
    pub fn column(&self, name: &str) -> Option<&str> {
        self.any.get(&lower(name)).and_then(|e| e.as_deref())
    }

    /// The Arrow type of column `name` when it is unambiguous.
    pub fn column_type(&self, name: &str) -> Option<&DataType> {
        self.types.get(&lower(name)).and_then(|t| t.as_ref())
    }

    fn qualified(&self, qualifier: &str, column: &str) -> Option<(String, Option<String>)> {
        let (q, cols) = self.qualifiers.get(&lower(qualifier))?;
        let col = match cols {
            Some(cols) => cols.get(&lower(column)).cloned(),
            None => self.column(column).map(str::to_string),
        };
        Some((q.clone(), col))
    }

    /// Rewrites one identifier path in place; `true` when it resolved.
    pub fn resolve_path(&self, parts: &mut [Ident]) -> bool {
        match parts {
            [c] => match self.column(&c.value) {
                Some(e) => {
                    *c = exact(e);
                    true
                }
                None => false,
            },
            [q, c] => match self.qualified(&q.value, &c.value) {
                Some((qe, ce)) => {
                    *q = exact(&qe);
                    if let Some(ce) = ce {
                        *c = exact(&ce);
                    }
                    true
                }
                // `column.field`: a struct column's field
                None => match self.column(&q.value) {
                    Some(e) => {
                        *q = exact(e);
                        true
                    }
                    None => false,
                },
            },
            [.., t, c] => {
                // catalog.schema.table.column: the table part qualifies
                let Some((qe, ce)) = self.qualified(&t.value, &c.value) else {
                    return false;
                };
                *t = exact(&qe);
                if let Some(ce) = ce {
                    *c = exact(&ce);
                }
                true
            }
            [] => false,
        }
    }
}

/// Pass 2 for everything that is not an expression: select-list
/// wildcards, `JOIN … USING`, INSERT column lists, UPDATE targets.
pub(crate) struct ColumnTargets<'a>(pub &'a Columns);

impl ColumnTargets<'_> {
    fn name(&self, n: &mut ObjectName) {
        if let Some(mut parts) = ident_parts(n)
            && self.0.resolve_path(&mut parts)
        {
            n.0 = parts.into_iter().map(ObjectNamePart::Identifier).collect();
        }
    }

    fn qualifier(&self, n: &mut ObjectName) {
        if let Some(mut parts) = ident_parts(n)
            && let Some(last) = parts.last_mut()
            && let Some((q, _)) = self.0.qualifiers.get(&lower(&last.value))
        {
            *last = exact(q);
            n.0 = parts.into_iter().map(ObjectNamePart::Identifier).collect();
        }
    }
}

impl VisitorMut for ColumnTargets<'_> {
    type Break = ();

    fn pre_visit_select(&mut self, s: &mut Select) -> ControlFlow<()> {
        for item in &mut s.projection {
            if let SelectItem::QualifiedWildcard(
                SelectItemQualifiedWildcardKind::ObjectName(n),
                _,
            ) = item
            {
                self.qualifier(n);
            }
        }
        for twj in &mut s.from {
            for j in &mut twj.joins {
                if let Some(JoinConstraint::Using(cols)) = join_constraint(&mut j.join_operator) {
                    for c in cols {
                        self.name(c);
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_statement(&mut self, s: &mut Statement) -> ControlFlow<()> {
        match s {
            Statement::Insert(i) => {
                for c in &mut i.columns {
                    self.name(c);
                }
            }
            Statement::Update(u) => {
                for a in &mut u.assignments {
                    match &mut a.target {
                        AssignmentTarget::ColumnName(n) => self.name(n),
                        AssignmentTarget::Tuple(ns) => ns.iter_mut().for_each(|n| self.name(n)),
                    }
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        if let SetExpr::Select(_) = q.body.as_ref() {
            // handled by pre_visit_select
        }
        ControlFlow::Continue(())
    }
}

fn join_constraint(
    op: &mut datafusion::sql::sqlparser::ast::JoinOperator,
) -> Option<&mut JoinConstraint> {
    use datafusion::sql::sqlparser::ast::JoinOperator as J;
    match op {
        J::Join(c)
        | J::Inner(c)
        | J::Left(c)
        | J::LeftOuter(c)
        | J::Right(c)
        | J::RightOuter(c)
        | J::FullOuter(c)
        | J::Semi(c)
        | J::LeftSemi(c)
        | J::RightSemi(c)
        | J::Anti(c)
        | J::LeftAnti(c)
        | J::RightAnti(c) => Some(c),
        _ => None,
    }
}

/// Rewrites a column reference expression in place (pass 2 for
/// expressions); `Some(false)` when it is a name that resolved to nothing,
/// `None` when it is no name at all.
pub(crate) fn resolve_expr(columns: &Columns, e: &mut Expr) -> Option<bool> {
    match e {
        Expr::Identifier(i) => {
            let mut parts = [i.clone()];
            let ok = columns.resolve_path(&mut parts);
            if ok {
                let [p] = parts;
                *i = p;
            }
            Some(ok)
        }
        Expr::CompoundIdentifier(parts) => Some(columns.resolve_path(parts)),
        _ => None,
    }
}
