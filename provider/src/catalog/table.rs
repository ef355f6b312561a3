//! `JetTable`: a Jet table as a DataFusion `TableProvider`.

use crate::handle::{JetHandle, JetOptions};
use crate::scan::complex::ComplexLists;
use crate::scan::exec::{IndexSeekExec, JetScanExec, Recheck};
use crate::scan::order::index_name;
use crate::scan::pushdown::Constraint;
use crate::scan::seek::{seek_plan, seekable};
use crate::write::dml::{DmlKind, DmlRows, JetDmlExec, JetSink};
use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::DFSchema;
use datafusion::datasource::TableType;
use datafusion::datasource::sink::DataSinkExec;
use datafusion::error::Result;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use jet_storage::{Database, Table};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// A table of a Jet database.
pub struct JetTable {
    table: Table,
    db: Database,
    /// The complex columns, typed as lists.
    complex: Arc<ComplexLists>,
    options: JetOptions,
    handle: Option<Arc<JetHandle>>,
    /// Column defaults (`jet.default`) as expressions for omitted INSERT
    /// columns.
    defaults: HashMap<String, Expr>,
}

impl fmt::Debug for JetTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JetTable")
            .field("name", &self.table.name())
            .finish()
    }
}

impl JetTable {
    /// A provider over `table` of `db`.
    pub fn new(table: Table, db: Database, options: JetOptions) -> Self {
        let defaults = crate::write::defaults::column_defaults(&table.schema());
        let complex = Arc::new(ComplexLists::new(&table, &db));
        JetTable {
            table,
            db,
            complex,
            options,
            handle: None,
            defaults,
        }
    }

    /// A provider over `table` whose writes go through `handle` (refused
    /// unless the handle's options are writable).
    pub fn with_handle(table: Table, db: Database, handle: Arc<JetHandle>) -> Self {
        let defaults = crate::write::defaults::column_defaults(&table.schema());
        let complex = Arc::new(ComplexLists::new(&table, &db));
        JetTable {
            table,
            db,
            complex,
            options: handle.options().clone(),
            handle: Some(handle),
            defaults,
        }
    }

    fn write_handle(&self) -> Result<Arc<JetHandle>> {
        match &self.handle {
            Some(h) if h.options().writable => Ok(h.clone()),
            _ => Err(datafusion::error::DataFusionError::Plan(format!(
                "table {:?} is read-only: the database is open for reading only (open it for writing: jetsql --write, or writable in the library's options)",
                self.table.name()
            ))),
        }
    }

    /// Refuses a write whose WHERE clause or SET expression reads complex
    /// values (its rows are storage's, carrying complex ids, not lists):
    /// `columns` are the complex columns it names.
    fn refuse_complex(&self, what: &str, columns: &[&str], why: &str) -> Result<()> {
        match columns {
            [] => Ok(()),
            cols => Err(datafusion::error::DataFusionError::Plan(format!(
                "{what} on table {:?} is refused: complex column{} {} ({why})",
                self.table.name(),
                if cols.len() == 1 { "" } else { "s" },
                cols.iter()
                    .map(|c| format!("{c:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    fn predicate(
        &self,
        state: &dyn Session,
        filters: &[Expr],
        what: &str,
    ) -> Result<Option<Arc<dyn datafusion::physical_expr::PhysicalExpr>>> {
        crate::write::guard::check_filters(state, what, self.table.name(), filters)?;
        self.refuse_complex(
            what,
            &self.complex.referenced(&self.table, filters),
            "a WHERE clause of a write cannot read complex values yet",
        )?;
        let Some(p) = conjunction(filters.iter().cloned()) else {
            return Ok(None);
        };
        let df_schema = DFSchema::try_from(self.table.schema().as_ref().clone())?;
        Ok(Some(state.create_physical_expr(p, &df_schema)?))
    }

    /// How DELETE / UPDATE find their rows: the WHERE conjuncts, sought
    /// through an index as the read side would when pushdown is on.
    fn dml_rows(&self, filters: Vec<Expr>) -> Result<DmlRows> {
        let label = seek_plan(
            &self.table,
            self.db.version(),
            self.options.pushdown,
            &filters,
        )?
        .map(|s| format!("{} {}", index_name(&self.table, s.index), s.label));
        Ok(DmlRows {
            filters,
            pushdown: self.options.pushdown,
            planned_seek: label,
        })
    }

    /// The storage table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The database the table is in.
    pub fn db(&self) -> &Database {
        &self.db
    }

    /// How the table is exposed (its password included: never send it
    /// anywhere).
    pub fn options(&self) -> &JetOptions {
        &self.options
    }

    /// The table's complex columns as this provider types them (lists).
    pub fn complex_lists(&self) -> &Arc<ComplexLists> {
        &self.complex
    }

    fn seekable(&self, e: &Expr) -> Option<(usize, Constraint, usize)> {
        seekable(&self.table, self.db.version(), self.options.pushdown, e)
    }
}

#[async_trait]
impl TableProvider for JetTable {
    fn schema(&self) -> SchemaRef {
        self.complex.schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.defaults.get(column)
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        // Exact: the plan seeks, then re-checks every pushed filter itself
        Ok(filters
            .iter()
            .map(|f| {
                if self.seekable(f).is_some() {
                    TableProviderFilterPushDown::Exact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let handle = self.write_handle()?;
        // complex columns take lists (the sink gives each new row its
        // complex id and stores the values in the hidden tables)
        if insert_op != InsertOp::Append {
            return Err(datafusion::error::DataFusionError::Plan(format!(
                "{insert_op} is not supported for Jet tables; use INSERT INTO"
            )));
        }
        // Every column may receive NULL: the writer decides (an omitted
        // Yes/No is No, as in Access; an omitted auto-number is assigned;
        // a required column refuses NULL naming table and column), so
        // DataFusion's own not-null check must not refuse first.
        let schema = self.complex.schema();
        let nullable = Arc::new(datafusion::arrow::datatypes::Schema::new_with_metadata(
            schema
                .fields()
                .iter()
                .map(|f| f.as_ref().clone().with_nullable(true))
                .collect::<Vec<_>>(),
            schema.metadata().clone(),
        ));
        let sink = JetSink::new(handle, self.table.name().to_string(), nullable);
        Ok(Arc::new(DataSinkExec::new(input, Arc::new(sink), None)))
    }

    async fn delete_from(
        &self,
        state: &dyn Session,
        filters: Vec<Expr>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let handle = self.write_handle()?;
        let predicate = self.predicate(state, &filters, "DELETE")?;
        Ok(Arc::new(JetDmlExec::new(
            handle,
            self.table.name().to_string(),
            predicate,
            self.dml_rows(filters)?,
            DmlKind::Delete,
        )))
    }

    async fn update(
        &self,
        state: &dyn Session,
        assignments: Vec<(String, Expr)>,
        filters: Vec<Expr>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let handle = self.write_handle()?;
        // a complex column set to a list replaces its values (the writer
        // refuses, naming table and column, the kinds it does not write)
        let values: Vec<Expr> = assignments.iter().map(|(_, e)| e.clone()).collect();
        self.refuse_complex(
            "UPDATE",
            &self.complex.referenced(&self.table, &values),
            "a SET expression cannot read complex values yet",
        )?;
        let predicate = self.predicate(state, &filters, "UPDATE")?;
        let df_schema = DFSchema::try_from(self.table.schema().as_ref().clone())?;
        let mut set = Vec::new();
        for (name, e) in assignments {
            set.push((name, state.create_physical_expr(e, &df_schema)?));
        }
        Ok(Arc::new(JetDmlExec::new(
            handle,
            self.table.name().to_string(),
            predicate,
            self.dml_rows(filters)?,
            DmlKind::Update(set),
        )))
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let version = self.db.version();
        let seek = seek_plan(&self.table, version, self.options.pushdown, filters)?;
        // Every filter DataFusion handed over is applied here: it was
        // accepted as Exact (seekable when offered), but the optimizer may
        // since have rewritten it (`Y IN (false)` becomes `NOT Y`) into a
        // form no seek reads; dropping it would answer for the whole table.
        let predicate = conjunction(filters.iter().cloned());
        let full = self.table.schema();
        // the plan decodes the projected columns plus those the predicate
        // reads, filters, then returns the projected ones
        let (decoded, output) = match (projection, &predicate) {
            (None, _) => (None, (0..full.fields().len()).collect::<Vec<_>>()),
            (Some(p), None) => (Some(p.clone()), (0..p.len()).collect()),
            (Some(p), Some(pred)) => {
                let mut cols: Vec<usize> = p.clone();
                for c in pred.column_refs() {
                    cols.push(full.index_of(&c.name)?);
                }
                cols.sort_unstable();
                cols.dedup();
                let output = p
                    .iter()
                    .map(|c| cols.binary_search(c).unwrap_or_default())
                    .collect();
                (Some(cols), output)
            }
        };
        let recheck = match &predicate {
            None => None,
            Some(pred) => {
                let decoded_schema = self.complex.projected_schema(decoded.as_deref())?;
                let df_schema = DFSchema::try_from(decoded_schema.as_ref().clone())?;
                Some(Recheck {
                    predicate: state.create_physical_expr(pred.clone(), &df_schema)?,
                    output,
                })
            }
        };
        let Some(seek) = seek else {
            let partitions = state.config().target_partitions();
            let Some(recheck) = recheck else {
                return Ok(Arc::new(
                    JetScanExec::try_new(
                        self.table.clone(),
                        self.db.clone(),
                        self.complex.clone(),
                        projection.cloned(),
                        limit,
                        partitions,
                        self.options.batch_size,
                    )?
                    .with_index_plans(self.options.pushdown),
                ));
            };
            // filters to apply without a seek: scan (no limit: it would
            // cut rows before the filter), filter, project
            let scan: Arc<dyn ExecutionPlan> = Arc::new(JetScanExec::try_new(
                self.table.clone(),
                self.db.clone(),
                self.complex.clone(),
                decoded,
                None,
                partitions,
                self.options.batch_size,
            )?);
            return filtered(recheck, scan);
        };
        let name = index_name(&self.table, seek.index);
        let recheck = recheck.ok_or_else(|| {
            datafusion::error::DataFusionError::Internal("a seek without filters".into())
        })?;
        if seek.ranges.is_empty() {
            return Ok(Arc::new(datafusion::physical_plan::empty::EmptyExec::new(
                self.complex
                    .projected_schema(projection.map(|p| p.as_slice()))?,
            )));
        }
        // one plan node for every range: one descent, then the leaves in
        // key order (an IN list of many values is one walk, not a union)
        Ok(Arc::new(
            IndexSeekExec::try_new(
                self.table.clone(),
                self.db.clone(),
                self.complex.clone(),
                seek.index,
                name,
                seek.label,
                seek.ranges,
                decoded,
                self.options.batch_size,
            )?
            .with_recheck(recheck)?,
        ))
    }
}

/// `input` (the decoded columns) filtered by `recheck`'s predicate, then
/// cut to its output columns.
fn filtered(recheck: Recheck, input: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    use datafusion::physical_expr::PhysicalExpr;
    let filtered: Arc<dyn ExecutionPlan> = Arc::new(
        datafusion::physical_plan::filter::FilterExec::try_new(recheck.predicate, input)?,
    );
    let schema = filtered.schema();
    let exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = recheck
        .output
        .iter()
        .map(|&i| {
            let name = schema.field(i).name().clone();
            (
                Arc::new(datafusion::physical_expr::expressions::Column::new(
                    &name, i,
                )) as _,
                name,
            )
        })
        .collect();
    Ok(Arc::new(
        datafusion::physical_plan::projection::ProjectionExec::try_new(exprs, filtered)?,
    ))
}
