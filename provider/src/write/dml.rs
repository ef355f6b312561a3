//! Writes through DataFusion: the INSERT sink and the plan of DELETE and
//! UPDATE, each one statement's write through the registration's
//! [`JetHandle`] (one journaled transaction: either all its rows change or
//! none do).
//!
//! Planning never writes (so `EXPLAIN DELETE …` leaves the file alone); the
//! work happens when the plan executes.

use crate::error::{refuse, to_df};
use crate::handle::JetHandle;
use crate::scan::exec::bound_ref;
use async_trait::async_trait;
use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, UInt64Array};
use datafusion::arrow::compute::{cast, concat_batches, filter_record_batch};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::sink::DataSink;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::StreamExt;
use jet_storage::index::{Bookmark, KeyMatch};
use jet_storage::{Database, ScanOptions};
use std::fmt;
use std::sync::Arc;

/// The one-row `count` result of a DML statement.
pub(crate) fn count_batch(n: u64) -> Result<RecordBatch> {
    Ok(RecordBatch::try_new(
        count_schema(),
        vec![Arc::new(UInt64Array::from(vec![n]))],
    )?)
}

fn count_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        "count",
        DataType::UInt64,
        false,
    )]))
}

/// INSERT sink: all input batches go into the table in one transaction.
#[derive(Debug)]
pub struct JetSink {
    handle: Arc<JetHandle>,
    table: String,
    schema: SchemaRef,
}

impl JetSink {
    /// A sink appending to `table` of `handle`.
    pub fn new(handle: Arc<JetHandle>, table: String, schema: SchemaRef) -> Self {
        JetSink {
            handle,
            table,
            schema,
        }
    }
}

impl DisplayAs for JetSink {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "JetSink: table={}", self.table)
    }
}

/// Drops auto-number columns whose values are all NULL (the value was
/// omitted), so the writer assigns them.
fn without_omitted_auto_numbers(batch: &RecordBatch, auto: &[String]) -> Result<RecordBatch> {
    let keep: Vec<usize> = (0..batch.num_columns())
        .filter(|&i| {
            let name = batch.schema().field(i).name().clone();
            !(auto.iter().any(|a| a.eq_ignore_ascii_case(&name))
                && batch.column(i).null_count() == batch.num_rows())
        })
        .collect();
    Ok(batch.project(&keep)?)
}

#[async_trait]
impl DataSink for JetSink {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        _context: &Arc<TaskContext>,
    ) -> Result<u64> {
        let mut batches = Vec::new();
        while let Some(b) = data.next().await {
            let b = b?;
            if b.num_rows() > 0 {
                batches.push(b);
            }
        }
        let table = self.table.clone();
        self.handle.write(
            |db| {
                let t = db.table(&table).map_err(to_df)?;
                let auto: Vec<String> = t
                    .def()
                    .columns
                    .iter()
                    .filter(|c| c.is_auto_number())
                    .map(|c| c.name.clone())
                    .collect();
                let complex = db.complex_columns(&t).map_err(to_df)?;
                let batches = batches
                    .iter()
                    .map(|b| without_omitted_auto_numbers(b, &auto))
                    .collect::<Result<Vec<_>>>()?;
                Ok((batches, complex))
            },
            |tx, (batches, complex)| {
                let mut n = 0u64;
                for b in &batches {
                    n += if complex.is_empty() {
                        tx.insert(&table, b)?.len()
                    } else {
                        tx.insert_complex(&table, b, &complex)?.len()
                    } as u64;
                }
                Ok(n)
            },
        )
    }
}

/// What a [`JetDmlExec`] does to the rows its predicate selects.
#[derive(Debug, Clone)]
pub enum DmlKind {
    /// `DELETE`.
    Delete,
    /// `UPDATE`: (column name, new value over the old row).
    Update(Vec<(String, Arc<dyn PhysicalExpr>)>),
}

/// How a DELETE / UPDATE finds its candidate rows.
#[derive(Debug, Clone)]
pub struct DmlRows {
    /// The WHERE conjuncts as they reached the table.
    pub filters: Vec<Expr>,
    /// Seek through an index where the read side would
    /// ([`crate::JetOptions::pushdown`]); off: every row is read.
    pub pushdown: bool,
    /// The seek chosen while planning (index and ranges), for EXPLAIN;
    /// the seek is chosen again on the image the statement changes.
    pub planned_seek: Option<String>,
}

impl DmlRows {
    /// Every row (no WHERE).
    pub fn all() -> DmlRows {
        DmlRows {
            filters: Vec::new(),
            pushdown: false,
            planned_seek: None,
        }
    }

    /// The candidate rows of `t` in bookmark order: the bookmarks an index
    /// seek yields (a superset of the matching rows, as on the read side),
    /// or every live row. The caller re-checks the predicate exactly.
    fn candidates(&self, db: &Database, t: &jet_storage::Table) -> Result<Vec<Bookmark>> {
        let plan = crate::scan::seek::seek_plan(t, db.version(), self.pushdown, &self.filters)?;
        let Some(plan) = plan else {
            return t.bookmarks().map_err(to_df);
        };
        let idx = t.index(plan.index).map_err(to_df)?;
        let refs: Vec<_> = plan
            .ranges
            .iter()
            .map(|(lo, hi)| (bound_ref(lo), bound_ref(hi)))
            .collect();
        let entries = idx
            .seek_ranges(&refs, KeyMatch::Prefix)
            .map_err(|e| to_df(jet_storage::Error::from(e).in_table(t.name())))?;
        let mut marks: Vec<Bookmark> = entries.into_iter().map(|e| e.bookmark).collect();
        marks.sort_unstable();
        marks.dedup();
        Ok(marks)
    }
}

/// The plan of `DELETE` / `UPDATE`: nothing happens until it executes;
/// then the rows of the committed image are read, the predicate is
/// evaluated exactly on each (SQL semantics: NULL is not true), and the
/// selected rows change in one transaction. Yields one row, `count`.
#[derive(Debug)]
pub struct JetDmlExec {
    handle: Arc<JetHandle>,
    table: String,
    predicate: Option<Arc<dyn PhysicalExpr>>,
    rows: DmlRows,
    kind: DmlKind,
    props: Arc<PlanProperties>,
}

impl JetDmlExec {
    /// The plan; `predicate` `None` selects every row. `rows` says how
    /// the candidate rows are found (its filters must be the conjuncts of
    /// `predicate`: every candidate is re-checked against `predicate`).
    pub fn new(
        handle: Arc<JetHandle>,
        table: String,
        predicate: Option<Arc<dyn PhysicalExpr>>,
        rows: DmlRows,
        kind: DmlKind,
    ) -> Self {
        let props = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(count_schema()),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        JetDmlExec {
            handle,
            table,
            predicate,
            rows,
            kind,
            props,
        }
    }

    fn run(&self) -> Result<u64> {
        let table = self.table.clone();
        let batch_size = self.handle.options().batch_size.max(1);
        let predicate = self.predicate.clone();
        let kind = self.kind.clone();
        let rows = self.rows.clone();
        self.handle.write(
            |db| {
                let t = db.table(&table).map_err(to_df)?;
                let complex = db.complex_columns(&t).map_err(to_df)?;
                // a complex column is set to a list of the type the read
                // side gives it
                let targets = jet_storage::read::complex::list_schema(&t.schema(), &complex);
                let marks = rows.candidates(db, &t)?;
                let mut chosen: Vec<Bookmark> = Vec::new();
                let mut changes: Vec<RecordBatch> = Vec::new();
                for chunk in marks.chunks(batch_size) {
                    let scan = t
                        .fetch(
                            chunk.to_vec(),
                            ScanOptions {
                                batch_size,
                                ..ScanOptions::default()
                            },
                        )
                        .map_err(to_df)?;
                    let schema = scan.schema();
                    let parts = scan
                        .collect::<jet_storage::Result<Vec<_>>>()
                        .map_err(to_df)?;
                    let rows = concat_batches(&schema, &parts)?;
                    if rows.num_rows() != chunk.len() {
                        return Err(DataFusionError::Internal(format!(
                            "table {table}: fetched {} rows for {} bookmarks",
                            rows.num_rows(),
                            chunk.len()
                        )));
                    }
                    let mask: BooleanArray = match &predicate {
                        None => BooleanArray::from(vec![true; rows.num_rows()]),
                        Some(p) => {
                            let v = p.evaluate(&rows)?.into_array(rows.num_rows())?;
                            let b = v
                                .as_any()
                                .downcast_ref::<BooleanArray>()
                                .ok_or_else(|| refuse("the WHERE clause is not boolean"))?;
                            b.iter().map(|x| Some(x == Some(true))).collect()
                        }
                    };
                    for (i, bm) in chunk.iter().enumerate() {
                        if mask.value(i) {
                            chosen.push(*bm);
                        }
                    }
                    if let DmlKind::Update(assign) = &kind {
                        let sel = filter_record_batch(&rows, &mask)?;
                        if sel.num_rows() == 0 {
                            continue;
                        }
                        let mut fields = Vec::new();
                        let mut cols: Vec<ArrayRef> = Vec::new();
                        for (name, e) in assign {
                            let target = targets.field_with_name(name).map_err(|_| {
                                refuse(format!("table {table:?} has no column {name:?}"))
                            })?;
                            let v = e.evaluate(&sel)?.into_array(sel.num_rows())?;
                            let v = if v.data_type() == target.data_type() {
                                v
                            } else {
                                cast(&v, target.data_type())?
                            };
                            fields.push(Field::new(name, target.data_type().clone(), true));
                            cols.push(v);
                        }
                        changes.push(RecordBatch::try_new(Arc::new(Schema::new(fields)), cols)?);
                    }
                }
                let changes = match changes.first() {
                    Some(f) => Some(concat_batches(&f.schema(), &changes)?),
                    None => None,
                };
                Ok((chosen, changes, complex))
            },
            |tx, (chosen, changes, complex)| {
                if chosen.is_empty() {
                    return Ok(0u64);
                }
                let n = match (&kind, changes) {
                    (DmlKind::Update(_), Some(c)) if complex.is_empty() => {
                        tx.update(&table, &chosen, &c)?
                    }
                    (DmlKind::Update(_), Some(c)) => {
                        tx.update_complex(&table, &chosen, &c, &complex)?
                    }
                    _ if complex.is_empty() => tx.delete(&table, &chosen)?,
                    _ => tx.delete_complex(&table, &chosen, &complex)?,
                };
                Ok(n as u64)
            },
        )
    }
}

impl DisplayAs for JetDmlExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let what = match &self.kind {
            DmlKind::Delete => "delete".to_string(),
            DmlKind::Update(a) => format!(
                "update set {}",
                a.iter()
                    .map(|(n, e)| format!("{n} = {e}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        write!(f, "JetDmlExec: table={}, {what}", self.table)?;
        if let Some(p) = &self.predicate {
            write!(f, ", where {p}")?;
        }
        if let Some(s) = &self.rows.planned_seek {
            write!(f, ", rows sought through index {s}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for JetDmlExec {
    fn name(&self) -> &str {
        "JetDmlExec"
    }
    fn properties(&self) -> &Arc<PlanProperties> {
        &self.props
    }
    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }
    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }
    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }
    fn execute(
        &self,
        partition: usize,
        _ctx: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if partition != 0 {
            return Err(DataFusionError::Internal(format!(
                "JetDmlExec has no partition {partition}"
            )));
        }
        let this = JetDmlExec::new(
            self.handle.clone(),
            self.table.clone(),
            self.predicate.clone(),
            self.rows.clone(),
            self.kind.clone(),
        );
        let fut = async move { this.run().and_then(count_batch) };
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            count_schema(),
            futures::stream::once(fut),
        )))
    }
}
