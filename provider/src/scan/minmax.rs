//! `MIN`/`MAX` read the ends of an index instead of scanning
//! ([`IndexMinMaxExec`]): which index answers a column, and the plan that
//! fetches the row of the first value entry at the wanted end. An index
//! qualifies when its key order is Arrow's order (see [`super::order`]).

use super::order::{UNIQUE, column_order, cursor, index_name};
use super::walk::Segment;
use crate::error::to_df;
use datafusion::arrow::array::{Array, ArrayRef, RecordBatch, new_null_array};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{
    Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet,
};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use jet_storage::schema::tdef::Direction;
use jet_storage::{Database, ScanOptions, Table};
use std::fmt;
use std::ops::Bound;
use std::sync::Arc;

/// One `MIN(col)` or `MAX(col)` answered from an index.
#[derive(Debug, Clone)]
pub(crate) struct MinMaxItem {
    /// Table column.
    pub column: usize,
    /// `MAX` when true.
    pub max: bool,
    /// Real index whose first key column is `column`.
    pub index: usize,
    pub index_name: String,
    /// The value keys, walked so the wanted end comes first.
    pub segment: Segment,
}

/// The index that answers `MIN`/`MAX` of table column `column`: one whose
/// first key column it is, in an order Arrow shares (see
/// [`super::order`]). NULL keys are skipped, as `MIN` and `MAX` skip NULLs,
/// so IgnoreNulls indexes qualify.
pub(crate) fn min_max_item(
    table: &Table,
    db: &Database,
    column: usize,
    max: bool,
) -> Result<Option<MinMaxItem>> {
    let def = table.def();
    let Some(col) = def.columns.get(column) else {
        return Ok(None);
    };
    let mut candidates: Vec<usize> = (0..def.real_indexes.len())
        .filter(|&i| def.real_indexes[i].key.first().map(|k| k.0) == Some(col.col_num))
        .collect();
    candidates.sort_by_key(|&i| def.real_indexes[i].flags & UNIQUE == 0);
    for idx in candidates {
        let Some(reversed) = column_order(table, db, idx, 0)? else {
            continue;
        };
        let dir = def.real_indexes[idx].key[0].1;
        let ascending_forward = (dir == Direction::Ascending) != reversed;
        // MIN is the first value in Arrow's ascending order
        let forward = ascending_forward != max;
        return Ok(Some(MinMaxItem {
            column,
            max,
            index: idx,
            index_name: index_name(table, idx),
            segment: Segment::new(forward, Bound::Unbounded, Bound::Unbounded)
                .first_column(dir == Direction::Ascending, false),
        }));
    }
    Ok(None)
}

/// Answers an aggregate made only of `MIN`/`MAX` over indexed columns
/// (no GROUP BY, no filter) by reading, per aggregate, the first value
/// entry at the wanted end of the index and fetching that one row: a
/// descent and a data page instead of a table scan. One row, one partition;
/// its schema is the aggregate's.
#[derive(Debug)]
pub struct IndexMinMaxExec {
    table: Table,
    db: Database,
    items: Vec<MinMaxItem>,
    schema: SchemaRef,
    props: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl IndexMinMaxExec {
    /// The plan for `items`, producing one row of `schema` (one column per
    /// item, of the column's type).
    pub(crate) fn try_new(
        table: Table,
        db: Database,
        items: Vec<MinMaxItem>,
        schema: SchemaRef,
    ) -> Result<Self> {
        if schema.fields().len() != items.len() {
            return Err(DataFusionError::Internal(
                "IndexMinMaxExec: one output column per aggregate".into(),
            ));
        }
        let props = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        Ok(IndexMinMaxExec {
            table,
            db,
            items,
            schema,
            props,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }

    /// The value of one item: the column of the first live row at the
    /// wanted end, or NULL when the index holds no value key.
    fn value(&self, pos: usize, index_pages: &Count) -> Result<ArrayRef> {
        let item = &self.items[pos];
        let field = self.schema.field(pos);
        let mut c = cursor(
            &self.table,
            &self.db,
            item.index,
            vec![item.segment.clone()],
        )?;
        let mut out = None;
        for e in c.by_ref() {
            let e =
                e.map_err(|e| to_df(jet_storage::Error::from(e).in_table(self.table.name())))?;
            let scan = self
                .table
                .fetch(
                    vec![e.bookmark],
                    ScanOptions {
                        projection: Some(vec![item.column]),
                        batch_size: 1,
                        ..Default::default()
                    },
                )
                .map_err(to_df)?;
            let mut found = None;
            for b in scan {
                let b = b.map_err(to_df)?;
                if b.num_rows() > 0 {
                    found = Some(b.column(0).slice(0, 1));
                    break;
                }
            }
            // an entry whose row is gone (deleted) does not count
            if found.is_some() {
                out = found;
                break;
            }
        }
        index_pages.add(c.pages_read as usize);
        let a = out.unwrap_or_else(|| new_null_array(field.data_type(), 1));
        if a.data_type() != field.data_type() {
            return Err(DataFusionError::Internal(format!(
                "IndexMinMaxExec: column type {} where {} is expected",
                a.data_type(),
                field.data_type()
            )));
        }
        Ok(a)
    }
}

impl DisplayAs for IndexMinMaxExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let items: Vec<String> = self
            .items
            .iter()
            .map(|i| {
                format!(
                    "{}({}) from {:?} {}",
                    if i.max { "max" } else { "min" },
                    self.table.def().columns[i.column].name,
                    i.index_name,
                    if i.segment.forward { "first" } else { "last" }
                )
            })
            .collect();
        write!(
            f,
            "IndexMinMaxExec: table={:?}, [{}]",
            self.table.name(),
            items.join(", ")
        )
    }
}

impl ExecutionPlan for IndexMinMaxExec {
    fn name(&self) -> &str {
        "IndexMinMaxExec"
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
                "IndexMinMaxExec has no partition {partition}"
            )));
        }
        let pages = MetricBuilder::new(&self.metrics).global_counter("pages_read");
        let index_pages = MetricBuilder::new(&self.metrics).global_counter("index_pages_read");
        let before = self.db.pages_read();
        let columns: Result<Vec<ArrayRef>> = (0..self.items.len())
            .map(|i| self.value(i, &index_pages))
            .collect();
        pages.add(self.db.pages_read().saturating_sub(before) as usize);
        let batch = columns.and_then(|c| Ok(RecordBatch::try_new(self.schema.clone(), c)?));
        let s = futures::stream::iter(std::iter::once(batch));
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            s,
        )))
    }
    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}
