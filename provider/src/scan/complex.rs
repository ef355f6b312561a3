//! Complex columns (attachments, multi-value lists, version histories) as
//! Arrow lists in a table's schema.
//!
//! Storage scans give a complex column as its Int32 complex id; every plan
//! over a table (full scan, index seek, ordered index walk) turns those ids
//! into lists right where its batches leave storage, through one
//! [`ComplexLists`], so all of them give the same schema. Only projected
//! complex columns are expanded: a plan that does not project one makes no
//! expander and reads no row of a hidden table. The list types and the
//! bounds on what an expansion reads are storage's
//! ([`jet_storage::read::complex`]).

use crate::error::to_df;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::Expr;
use jet_storage::read::complex::{ListExpander, list_schema};
use jet_storage::{ComplexColumn, Database, JetType, Table};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The complex columns of one table and the table's schema with them as
/// lists. Made once per table provider: resolving reads
/// `MSysComplexColumns` and the hidden tables' definitions (not their
/// rows), and only for a table that has a complex column.
#[derive(Debug, Clone)]
pub struct ComplexLists {
    db: Database,
    table: String,
    /// Table positions of the complex columns.
    positions: Vec<usize>,
    /// The resolved columns, or why they could not be resolved.
    columns: std::result::Result<Vec<ComplexColumn>, String>,
    schema: SchemaRef,
    /// Expanders made so far (each reads hidden tables as its batches
    /// need them; no expander, no hidden-table read).
    expanders: Arc<AtomicUsize>,
}

impl ComplexLists {
    /// The complex columns of `table` of `db`. Reads nothing when the
    /// table has none. When `MSysComplexColumns` or the hidden tables do
    /// not describe them, the columns keep their Int32 ids in the schema
    /// and a plan projecting one fails with the reason.
    pub fn new(table: &Table, db: &Database) -> ComplexLists {
        let positions: Vec<usize> = table
            .def()
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.jet_type == JetType::Complex)
            .map(|(i, _)| i)
            .collect();
        let columns = if positions.is_empty() {
            Ok(Vec::new())
        } else {
            db.complex_columns(table).map_err(|e| e.to_string())
        };
        let schema = match &columns {
            Ok(cols) if !cols.is_empty() => Arc::new(list_schema(&table.schema(), cols)),
            _ => table.schema(),
        };
        ComplexLists {
            db: db.clone(),
            table: table.name().to_string(),
            positions,
            columns,
            schema,
            expanders: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// How many streams so far were given an expander, the only reader of
    /// hidden tables in a plan: a query that projects no complex column
    /// leaves it unchanged.
    pub fn expanders_made(&self) -> usize {
        self.expanders.load(Ordering::Relaxed)
    }

    /// The table's schema, complex columns as lists.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The schema of table columns `projection` (all when `None`).
    pub fn projected_schema(&self, projection: Option<&[usize]>) -> Result<SchemaRef> {
        Ok(match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        })
    }

    /// Whether table column `col` is a complex column.
    pub fn is_complex(&self, col: usize) -> bool {
        self.positions.contains(&col)
    }

    /// The complex columns among those `exprs` read, by name (a DML
    /// statement may not read or set them: its rows are storage's, with
    /// complex ids).
    pub fn referenced<'a>(&self, table: &'a Table, exprs: &[Expr]) -> Vec<&'a str> {
        let mut out: Vec<&str> = Vec::new();
        for e in exprs {
            for c in e.column_refs() {
                if let Some(&p) = self
                    .positions
                    .iter()
                    .find(|&&p| table.def().columns[p].name == c.name)
                {
                    let name = table.def().columns[p].name.as_str();
                    if !out.contains(&name) {
                        out.push(name);
                    }
                }
            }
        }
        out
    }

    /// The expander for batches of storage schema `input` whose columns are
    /// table columns `projection` (all when `None`); `None` when no
    /// projected column is complex. An error when a projected complex
    /// column could not be resolved.
    pub fn expander(
        &self,
        input: &Schema,
        projection: Option<&[usize]>,
    ) -> Result<Option<ListExpander>> {
        let all: Vec<usize>;
        let positions = match projection {
            Some(p) => p,
            None => {
                all = (0..input.fields().len()).collect();
                &all
            }
        };
        if !positions.iter().any(|p| self.positions.contains(p)) {
            return Ok(None);
        }
        let columns = self.columns.as_ref().map_err(|why| {
            DataFusionError::External(
                format!(
                    "the complex columns of table {:?} cannot be read: {why}",
                    self.table
                )
                .into(),
            )
        })?;
        let expander = ListExpander::new(&self.db, columns, input, positions);
        if expander.is_some() {
            self.expanders.fetch_add(1, Ordering::Relaxed);
        }
        Ok(expander)
    }
}

/// `batch` through `expander` when there is one.
pub(crate) fn expand(
    expander: &mut Option<ListExpander>,
    batch: datafusion::arrow::array::RecordBatch,
) -> Result<datafusion::arrow::array::RecordBatch> {
    match expander {
        Some(e) => e.expand(&batch).map_err(to_df),
        None => Ok(batch),
    }
}
