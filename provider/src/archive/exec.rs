//! `JetFilesExec`: the scan of a multi-file table. Its partitions are
//! groups of files (a large file split into page-range parts), balanced
//! by size; each partition reads its files one after another. A file is
//! opened only when its turn comes, under a semaphore bounding the files
//! open at once over every scan of the table, and closed when its rows
//! are read. Each file is read by the single-file plan (`JetTable::scan`:
//! page-range scans, index seeks from the filters that apply to it), and
//! its rows are mapped onto the union schema (widened types, NULL for a
//! column the file lacks, `_file` its path).

use super::discover::{Member, open, plain};
use super::options::JetFilesOptions;
use super::schema::FILE_COLUMN;
use super::stats::{ArchiveStats, OpenGuard};
use datafusion::arrow::array::{
    ArrayRef, RecordBatch, RecordBatchOptions, StringArray, new_null_array,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::session_state::SessionState;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::stream::{BoxStream, StreamExt};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// One piece of work: part `part` of `parts` of member `member`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unit {
    pub member: usize,
    pub part: usize,
    pub parts: usize,
}

/// What every partition of a scan shares.
pub(crate) struct ScanSpec {
    pub members: Arc<Vec<Member>>,
    pub table: String,
    pub options: JetFilesOptions,
    pub stats: Arc<ArchiveStats>,
    pub semaphore: Arc<Semaphore>,
    /// The union schema (all columns, `_file` last).
    pub union: SchemaRef,
    /// The union columns the scan produces.
    pub projection: Vec<usize>,
    /// Their schema.
    pub output: SchemaRef,
    /// Filters to hand to each file whose columns they fit.
    pub filters: Vec<Expr>,
    pub limit: Option<usize>,
    /// Planning state of a file's scan, by its number of parts.
    pub states: HashMap<usize, Arc<SessionState>>,
}

/// The scan of a multi-file table (see the module docs).
pub struct JetFilesExec {
    spec: Arc<ScanSpec>,
    groups: Vec<Vec<Unit>>,
    schema: SchemaRef,
    props: Arc<PlanProperties>,
}

impl fmt::Debug for JetFilesExec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JetFilesExec")
            .field("table", &self.spec.table)
            .field("partitions", &self.groups.len())
            .finish()
    }
}

impl JetFilesExec {
    /// A scan of `units`, spread over at most `partitions` partitions
    /// (larger units first, each to the partition with the fewest bytes).
    pub(crate) fn new(spec: ScanSpec, units: Vec<Unit>, partitions: usize) -> Self {
        let n = partitions.clamp(1, units.len().max(1));
        let weight = |u: &Unit| spec.members[u.member].size / u.parts as u64 + 1;
        let mut order = units;
        order.sort_by_key(|u| std::cmp::Reverse(weight(u)));
        let mut groups: Vec<(u64, Vec<Unit>)> = vec![(0, Vec::new()); n];
        for u in order {
            let g = groups
                .iter_mut()
                .min_by_key(|(w, _)| *w)
                .expect("at least one group");
            g.0 += weight(&u);
            g.1.push(u);
        }
        let groups: Vec<Vec<Unit>> = groups.into_iter().map(|(_, g)| g).collect();
        let schema = spec.output.clone();
        let props = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(groups.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        JetFilesExec {
            spec: Arc::new(spec),
            groups,
            schema,
            props,
        }
    }

    /// The files this scan reads (after `_file` pruning), as `_file` shows them.
    pub fn files(&self) -> Vec<&str> {
        let mut m: Vec<usize> = self.groups.iter().flatten().map(|u| u.member).collect();
        m.sort_unstable();
        m.dedup();
        m.into_iter()
            .map(|i| self.spec.members[i].shown.as_str())
            .collect()
    }
}

impl DisplayAs for JetFilesExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "JetFilesExec: table={:?}, files={}, partitions={}, max_open={}",
            self.spec.table,
            self.files().len(),
            self.groups.len(),
            self.spec.options.max_open
        )?;
        if let Some(l) = self.spec.limit {
            write!(f, ", limit={l}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for JetFilesExec {
    fn name(&self) -> &str {
        "JetFilesExec"
    }
    fn properties(&self) -> &Arc<PlanProperties> {
        &self.props
    }
    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }
    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(
            &Arc<dyn datafusion::physical_expr::PhysicalExpr>,
        ) -> Result<datafusion::common::tree_node::TreeNodeRecursion>,
    ) -> Result<datafusion::common::tree_node::TreeNodeRecursion> {
        Ok(datafusion::common::tree_node::TreeNodeRecursion::Continue)
    }
    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if children.is_empty() {
            Ok(self)
        } else {
            Err(DataFusionError::Internal(
                "JetFilesExec has no children".into(),
            ))
        }
    }
    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let units = self.groups.get(partition).cloned().ok_or_else(|| {
            DataFusionError::Internal(format!("JetFilesExec has no partition {partition}"))
        })?;
        let spec = self.spec.clone();
        let s = futures::stream::iter(units)
            .then(move |u| unit_stream(spec.clone(), u, context.clone()))
            .flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            s,
        )))
    }
}

/// How an output column is made from a file's batch.
#[derive(Debug, Clone)]
enum Source {
    /// Column `i` of the file's projected batch, cast to the union type.
    File(usize),
    /// NULL: the file has no such column.
    Null,
    /// The file's path.
    Path,
}

/// The rows of one unit, mapped onto the output; its failure is one error
/// naming the file, or with `skip_errors` a warning and the rows read.
async fn unit_stream(
    spec: Arc<ScanSpec>,
    u: Unit,
    ctx: Arc<TaskContext>,
) -> BoxStream<'static, Result<RecordBatch>> {
    let shown = spec.members[u.member].shown.clone();
    let permit = match spec.semaphore.clone().acquire_owned().await {
        Ok(p) => p,
        Err(_) => {
            return futures::stream::once(async {
                Err(DataFusionError::Execution(
                    "the scan's file limit was closed".into(),
                ))
            })
            .boxed();
        }
    };
    let guard = spec.stats.scan_opened();
    match file_stream(&spec, u, ctx).await {
        Ok((stream, sources)) => Mapped {
            spec,
            shown,
            sources,
            stream: Some(stream),
            rows: 0,
            _held: Some((permit, guard)),
        }
        .into_stream(),
        Err(e) => {
            drop((permit, guard));
            failure(&spec, &shown, &e, 0)
        }
    }
}

/// A file's failure after `rows` rows: an error naming the file, or
/// (`skip_errors`) a warning and the end of its rows.
fn failure(
    spec: &ScanSpec,
    shown: &str,
    e: &DataFusionError,
    rows: usize,
) -> BoxStream<'static, Result<RecordBatch>> {
    let msg = format!("{shown}: {}", plain(e));
    if spec.options.skip_errors {
        let kept = if rows > 0 {
            format!(" (skipped after {rows} rows)")
        } else {
            " (skipped)".to_string()
        };
        spec.stats.warn(format!("{msg}{kept}"));
        futures::stream::empty().boxed()
    } else {
        futures::stream::once(async move { Err(DataFusionError::Execution(msg)) }).boxed()
    }
}

/// Opens the unit's file and starts its single-file plan.
async fn file_stream(
    spec: &ScanSpec,
    u: Unit,
    ctx: Arc<TaskContext>,
) -> Result<(SendableRecordBatchStream, Vec<Source>)> {
    let m = &spec.members[u.member];
    let db = open(&m.path, &spec.options).map_err(DataFusionError::Execution)?;
    let t = db.table(&spec.table).map_err(|_| {
        DataFusionError::Execution(format!("the file has no table {:?}", spec.table))
    })?;
    let provider = crate::JetTable::new(t, db, spec.options.jet_options());
    let file_schema = provider.schema();
    let find = |name: &str| {
        file_schema
            .fields()
            .iter()
            .position(|f| f.name().eq_ignore_ascii_case(name))
    };
    let mut wanted: Vec<usize> = Vec::new();
    let mut sources = Vec::new();
    for &c in &spec.projection {
        let name = spec.union.field(c).name();
        if name == FILE_COLUMN {
            sources.push(Source::Path);
        } else if let Some(i) = find(name) {
            let at = wanted.iter().position(|&w| w == i).unwrap_or_else(|| {
                wanted.push(i);
                wanted.len() - 1
            });
            sources.push(Source::File(at));
        } else {
            sources.push(Source::Null);
        }
    }
    // a filter goes to the file when every column it reads is there with
    // the union's type (DataFusion applies every filter again above)
    let mut pushed = Vec::new();
    'filters: for f in &spec.filters {
        for c in f.column_refs() {
            let Some(i) = find(&c.name) else {
                continue 'filters;
            };
            let union_type = spec.union.field_with_name(&c.name).map(|f| f.data_type());
            if union_type.ok() != Some(file_schema.field(i).data_type()) {
                continue 'filters;
            }
        }
        let renamed = f
            .clone()
            .transform(|e| match e {
                Expr::Column(c) => match find(&c.name) {
                    Some(i) => Ok(Transformed::yes(Expr::Column(
                        datafusion::common::Column::new_unqualified(file_schema.field(i).name()),
                    ))),
                    None => Ok(Transformed::no(Expr::Column(c))),
                },
                e => Ok(Transformed::no(e)),
            })?
            .data;
        pushed.push(renamed);
    }
    let state = spec.states.get(&u.parts).ok_or_else(|| {
        DataFusionError::Internal(format!("no planning state for {} parts", u.parts))
    })?;
    let plan = provider
        .scan(state.as_ref(), Some(&wanted), &pushed, spec.limit)
        .await?;
    if u.part >= plan.properties().partitioning.partition_count() {
        let empty = RecordBatchStreamAdapter::new(plan.schema(), futures::stream::empty());
        return Ok((Box::pin(empty), sources));
    }
    Ok((plan.execute(u.part, ctx)?, sources))
}

/// A file's batches mapped onto the output schema; holds the file's place
/// under the open-files bound until its last batch.
struct Mapped {
    spec: Arc<ScanSpec>,
    shown: String,
    sources: Vec<Source>,
    stream: Option<SendableRecordBatchStream>,
    rows: usize,
    _held: Option<(OwnedSemaphorePermit, OpenGuard)>,
}

impl Mapped {
    fn into_stream(self) -> BoxStream<'static, Result<RecordBatch>> {
        futures::stream::unfold(self, |mut me| async move {
            let stream = me.stream.as_mut()?;
            match stream.next().await {
                Some(Ok(b)) => {
                    me.rows += b.num_rows();
                    match me.map(&b) {
                        Ok(b) => Some((futures::stream::iter(Some(Ok(b))).boxed(), me)),
                        Err(e) => me.fail(e),
                    }
                }
                Some(Err(e)) => me.fail(e),
                // the file is closed and its place freed when `me` drops
                None => None,
            }
        })
        .flatten()
        .boxed()
    }

    /// Ends the file after an error: the error (naming the file) as the
    /// last item, or nothing with `skip_errors`.
    fn fail(
        mut self,
        e: DataFusionError,
    ) -> Option<(BoxStream<'static, Result<RecordBatch>>, Self)> {
        self.stream = None;
        self._held = None;
        let s = failure(&self.spec, &self.shown, &e, self.rows);
        Some((s, self))
    }

    fn map(&self, b: &RecordBatch) -> Result<RecordBatch> {
        let n = b.num_rows();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.sources.len());
        for (src, &c) in self.sources.iter().zip(&self.spec.projection) {
            let t = self.spec.union.field(c).data_type();
            columns.push(match src {
                Source::File(i) => {
                    let a = b.column(*i);
                    if a.data_type() == t {
                        a.clone()
                    } else {
                        cast(a, t)?
                    }
                }
                Source::Null => new_null_array(t, n),
                Source::Path => Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
                    self.shown.as_str(),
                    n,
                ))),
            });
        }
        Ok(RecordBatch::try_new_with_options(
            self.spec.output.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )?)
    }
}
