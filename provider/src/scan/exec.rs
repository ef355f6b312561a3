//! Physical plans: a partitioned full scan and an index seek.

use super::complex::{ComplexLists, expand};
use crate::error::to_df;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::Result;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::StreamExt;
use jet_storage::index::{Bookmark, KeyMatch};
use jet_storage::{Database, ScanOptions, Table};
use std::fmt;
use std::ops::{Bound, Range};
use std::sync::Arc;

/// An encoded key range: lower and upper bounds of first-column prefixes.
pub type KeyRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);
/// A borrowed [`KeyRange`].
pub type KeyRangeRef<'a> = (&'a Bound<Vec<u8>>, &'a Bound<Vec<u8>>);

fn properties(schema: SchemaRef, partitions: usize) -> Arc<PlanProperties> {
    Arc::new(PlanProperties::new(
        EquivalenceProperties::new(schema),
        Partitioning::UnknownPartitioning(partitions),
        EmissionType::Incremental,
        Boundedness::Bounded,
    ))
}

/// Streams a storage iterator of batches as a DataFusion stream, complex
/// ids turned into lists by `expander` when there is one; at the end adds
/// the pages the scan itself read to `pages` (the scan's own count, so
/// partitions running in parallel are not counted twice).
fn stream_of(
    schema: SchemaRef,
    iter: jet_storage::TableScan,
    pages: Option<datafusion::physical_plan::metrics::Count>,
    expander: Option<jet_storage::read::complex::ListExpander>,
) -> SendableRecordBatchStream {
    let mut pages = pages;
    let mut iter = iter;
    let mut expander = expander;
    let s = futures::stream::iter(std::iter::from_fn(move || {
        let next = iter.next();
        if next.is_none()
            && let Some(count) = pages.take()
        {
            count.add(iter.pages_read() as usize);
        }
        next.map(|r| r.map_err(to_df).and_then(|b| expand(&mut expander, b)))
    }));
    Box::pin(RecordBatchStreamAdapter::new(schema, s))
}

/// A full scan of a table split into partitions over page ranges; each
/// partition streams batches decoded straight from storage. Projection and
/// limit are applied in storage (a limit stops reading pages).
#[derive(Debug)]
pub struct JetScanExec {
    table: Table,
    db: Database,
    complex: Arc<ComplexLists>,
    projection: Option<Vec<usize>>,
    limit: Option<usize>,
    ranges: Vec<Range<u32>>,
    batch_size: usize,
    schema: SchemaRef,
    props: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
    index_plans: bool,
}

impl JetScanExec {
    /// A scan of `table` (of database `db`) in at most `partitions`
    /// partitions; each partition counts its own page reads. The database is
    /// kept for the index plans that may replace this scan. Projected
    /// complex columns come out as the lists of `complex`.
    pub fn try_new(
        table: Table,
        db: Database,
        complex: Arc<ComplexLists>,
        projection: Option<Vec<usize>>,
        limit: Option<usize>,
        partitions: usize,
        batch_size: usize,
    ) -> Result<Self> {
        let pages = table.data_pages().map_err(to_df)?;
        let n = if limit.is_some() {
            1
        } else {
            partitions.clamp(1, pages.len().max(1))
        };
        let per = pages.len().div_ceil(n).max(1);
        let mut ranges = Vec::new();
        for (i, chunk) in pages.chunks(per).enumerate() {
            let start = if i == 0 { 0 } else { chunk[0] };
            let end = pages.get((i + 1) * per).copied().unwrap_or(u32::MAX);
            ranges.push(start..end);
        }
        if ranges.is_empty() {
            ranges.push(0..u32::MAX);
        }
        let schema = complex.projected_schema(projection.as_deref())?;
        let props = properties(schema.clone(), ranges.len());
        Ok(JetScanExec {
            table,
            db,
            complex,
            projection,
            limit,
            ranges,
            batch_size,
            schema,
            props,
            metrics: ExecutionPlanMetricsSet::new(),
            index_plans: false,
        })
    }

    /// Lets the Jet optimizer rules replace this scan with index plans
    /// (ordered walks, MIN/MAX from index ends); off by default.
    pub fn with_index_plans(mut self, on: bool) -> Self {
        self.index_plans = on;
        self
    }

    /// Whether index plans may replace this scan.
    pub fn index_plans(&self) -> bool {
        self.index_plans
    }

    /// The table scanned.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The database of the table.
    pub fn db(&self) -> &Database {
        &self.db
    }

    /// The table's complex columns, as this scan types them.
    pub fn complex(&self) -> &Arc<ComplexLists> {
        &self.complex
    }

    /// Columns produced (table column numbers), all when `None`.
    pub fn projection(&self) -> Option<&Vec<usize>> {
        self.projection.as_ref()
    }

    /// Row limit applied in storage.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// Rows per batch.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// The page ranges of the partitions, one per partition, in order:
    /// partition `i` reads the table's data pages `p` with
    /// `ranges[i].start <= p < ranges[i].end`.
    pub fn page_ranges(&self) -> &[Range<u32>] {
        &self.ranges
    }

    /// This scan with `ranges` as its partitions (one partition each; at
    /// least one, so an empty list means one range over every page): how a
    /// scan planned in one process is made again, partition for
    /// partition, in another.
    pub fn with_page_ranges(mut self, ranges: Vec<Range<u32>>) -> Self {
        self.ranges = if ranges.is_empty() {
            std::iter::once(0..u32::MAX).collect()
        } else {
            ranges
        };
        self.props = properties(self.schema.clone(), self.ranges.len());
        self
    }
}

impl DisplayAs for JetScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "JetScanExec: table={:?}, partitions={}",
            self.table.name(),
            self.ranges.len()
        )?;
        if let Some(p) = &self.projection {
            let names: Vec<&str> = p
                .iter()
                .map(|&i| self.table.def().columns[i].name.as_str())
                .collect();
            write!(f, ", projection={names:?}")?;
        }
        if let Some(l) = self.limit {
            write!(f, ", limit={l}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for JetScanExec {
    fn name(&self) -> &str {
        "JetScanExec"
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
        let range = self.ranges.get(partition).cloned().ok_or_else(|| {
            datafusion::error::DataFusionError::Internal(format!(
                "JetScanExec has no partition {partition}"
            ))
        })?;
        let scan = self
            .table
            .scan(ScanOptions {
                projection: self.projection.clone(),
                batch_size: self.batch_size,
                limit: self.limit,
                page_range: Some(range),
            })
            .map_err(to_df)?;
        let count = MetricBuilder::new(&self.metrics).global_counter("pages_read");
        let expander = self
            .complex
            .expander(&scan.schema(), self.projection.as_deref())?;
        Ok(stream_of(self.schema.clone(), scan, Some(count), expander))
    }
    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}

/// An encoded key bound as the index reader takes it.
pub(crate) fn bound_ref(x: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match x {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Reads only the rows whose index keys lie in one or more ranges: descends
/// the B-tree, collects the bookmarks (several ranges in one walk of the
/// leaves in key order), and decodes just those rows. The rows are a
/// superset of the predicate's matches (bounds are widened outward); the
/// seek's [`Recheck`] or the plan above re-checks them.
#[derive(Debug)]
pub struct IndexSeekExec {
    table: Table,
    db: Database,
    complex: Arc<ComplexLists>,
    index: usize,
    index_name: String,
    /// Human-readable range, for EXPLAIN.
    range: String,
    /// Key ranges, sorted by lower bound.
    ranges: Vec<KeyRange>,
    projection: Option<Vec<usize>>,
    batch_size: usize,
    /// The filter this seek re-checks itself (over the decoded columns) and
    /// the output columns; `None`: the decoded rows are the output.
    recheck: Option<Recheck>,
    schema: SchemaRef,
    props: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

/// What a seek does to the rows it decodes before returning them: keeps
/// those `predicate` accepts (the pushed filters, re-checked because the
/// key range is a superset of their matches), then the `output` columns.
/// Done inside the seek so a point lookup is one plan node: no filter,
/// projection or repartition above a leaf that returns a handful of rows.
#[derive(Debug, Clone)]
pub struct Recheck {
    /// Over the decoded columns (the seek's projection).
    pub predicate: Arc<dyn PhysicalExpr>,
    /// Positions, among the decoded columns, of the columns returned.
    pub output: Vec<usize>,
}

impl IndexSeekExec {
    /// A seek of real index `index` of `table` for the keys inside any of
    /// `ranges` (encoded first-column bounds, sorted by lower bound,
    /// `Unbounded` first; they may overlap).
    #[allow(clippy::too_many_arguments)]
    pub fn try_new(
        table: Table,
        db: Database,
        complex: Arc<ComplexLists>,
        index: usize,
        index_name: String,
        range: String,
        ranges: Vec<KeyRange>,
        projection: Option<Vec<usize>>,
        batch_size: usize,
    ) -> Result<Self> {
        let schema = complex.projected_schema(projection.as_deref())?;
        let props = properties(schema.clone(), 1);
        Ok(IndexSeekExec {
            table,
            db,
            complex,
            index,
            index_name,
            range,
            ranges,
            projection,
            batch_size,
            recheck: None,
            schema,
            props,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }

    /// This seek with `recheck` applied to its rows: the output becomes the
    /// rows the predicate accepts, `recheck.output` columns of them.
    pub fn with_recheck(mut self, recheck: Recheck) -> Result<Self> {
        self.schema = Arc::new(self.schema.project(&recheck.output)?);
        self.props = properties(self.schema.clone(), 1);
        self.recheck = Some(recheck);
        Ok(self)
    }

    /// The filter and output columns the seek applies itself, if any.
    pub fn recheck(&self) -> Option<&Recheck> {
        self.recheck.as_ref()
    }

    /// Table column numbers of the output columns, in output order.
    pub fn output_columns(&self) -> Vec<usize> {
        let decoded = match &self.projection {
            Some(p) => p.clone(),
            None => (0..self.table.def().columns.len()).collect(),
        };
        match &self.recheck {
            Some(r) => r
                .output
                .iter()
                .filter_map(|&i| decoded.get(i).copied())
                .collect(),
            None => decoded,
        }
    }

    /// `input` (producing the decoded columns, as this seek decodes them)
    /// with this seek's re-check on top: a filter and a projection, or
    /// `input` itself when the seek has none. Used by plans that replace the
    /// seek's reading but not its predicate (an ordered index walk).
    pub fn recheck_over(&self, input: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(r) = &self.recheck else {
            return Ok(input);
        };
        let filtered: Arc<dyn ExecutionPlan> = Arc::new(
            datafusion::physical_plan::filter::FilterExec::try_new(r.predicate.clone(), input)?,
        );
        let schema = filtered.schema();
        let exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = r
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

    /// The table sought.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The database of the table.
    pub fn db(&self) -> &Database {
        &self.db
    }

    /// The table's complex columns, as this seek types them.
    pub fn complex(&self) -> &Arc<ComplexLists> {
        &self.complex
    }

    /// Real index number sought.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The index's name, as EXPLAIN shows it.
    pub fn index_name(&self) -> &str {
        &self.index_name
    }

    /// The encoded key bounds (first-column prefixes) when the seek has
    /// exactly one range.
    pub fn single_range(&self) -> Option<KeyRangeRef<'_>> {
        match self.ranges.as_slice() {
            [(lower, upper)] => Some((lower, upper)),
            _ => None,
        }
    }

    /// The encoded key ranges, sorted by lower bound.
    pub fn ranges(&self) -> &[KeyRange] {
        &self.ranges
    }

    /// The value range, as EXPLAIN shows it.
    pub fn range_label(&self) -> &str {
        &self.range
    }

    /// Columns decoded (table column numbers), all when `None`; the output
    /// is these unless the seek has a [`Recheck`].
    pub fn projection(&self) -> Option<&Vec<usize>> {
        self.projection.as_ref()
    }

    /// Rows per batch.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    fn bookmarks(&self) -> jet_storage::Result<Vec<Bookmark>> {
        let idx = self.table.index(self.index)?;
        let entries = match self.ranges.as_slice() {
            [(lower, upper)] => idx.seek(bound_ref(lower), bound_ref(upper), KeyMatch::Prefix),
            ranges => {
                let refs: Vec<_> = ranges
                    .iter()
                    .map(|(l, u)| (bound_ref(l), bound_ref(u)))
                    .collect();
                idx.seek_ranges(&refs, KeyMatch::Prefix)
            }
        }
        .map_err(jet_storage::Error::from)?;
        Ok(entries.into_iter().map(|e| e.bookmark).collect())
    }
}

impl DisplayAs for IndexSeekExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "IndexSeekExec: table={:?}, index={:?}, range={}",
            self.table.name(),
            self.index_name,
            self.range
        )?;
        if let Some(r) = &self.recheck {
            write!(f, ", filter={}", r.predicate)?;
        }
        if self.recheck.is_some() || self.projection.is_some() {
            let names: Vec<String> = self
                .output_columns()
                .iter()
                .map(|&i| self.table.def().columns[i].name.clone())
                .collect();
            write!(f, ", projection={names:?}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for IndexSeekExec {
    fn name(&self) -> &str {
        "IndexSeekExec"
    }
    fn properties(&self) -> &Arc<PlanProperties> {
        &self.props
    }
    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }
    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        match &self.recheck {
            Some(r) => f(&r.predicate),
            None => Ok(TreeNodeRecursion::Continue),
        }
    }
    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }
    fn execute(
        &self,
        _partition: usize,
        _ctx: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let count = MetricBuilder::new(&self.metrics).global_counter("pages_read");
        let before = self.db.pages_read();
        let marks = self
            .bookmarks()
            .map_err(|e| to_df(e.in_table(self.table.name())))?;
        let rows = MetricBuilder::new(&self.metrics).global_counter("rows_sought");
        rows.add(marks.len());
        count.add((self.db.pages_read() - before) as usize);
        // builders sized for the rows sought, not for a full batch: a
        // point lookup decodes one row
        let batch_size = self.batch_size.min(marks.len()).max(1);
        let scan = self
            .table
            .fetch(
                marks,
                ScanOptions {
                    projection: self.projection.clone(),
                    batch_size,
                    ..Default::default()
                },
            )
            .map_err(to_df)?;
        let expander = self
            .complex
            .expander(&scan.schema(), self.projection.as_deref())?;
        let Some(recheck) = self.recheck.clone() else {
            return Ok(stream_of(self.schema.clone(), scan, Some(count), expander));
        };
        let decoded_schema = self.complex.projected_schema(self.projection.as_deref())?;
        let decoded = stream_of(decoded_schema, scan, Some(count), expander);
        let checked = decoded.map(move |batch| {
            let batch = batch?;
            let kept = datafusion::physical_plan::filter::batch_filter(&batch, &recheck.predicate)?;
            Ok(kept.project(&recheck.output)?)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            checked,
        )))
    }
    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}
