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

/// One piece of work: part `part` (counted from 0) of the `parts` page
/// ranges of file `member`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    /// The file: its number in the scan's file list.
    pub member: usize,
    /// Which part of the file.
    pub part: usize,
    /// How many parts the file is read in.
    pub parts: usize,
}

/// A file a [`JetFilesPlan`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFile {
    /// The file.
    pub path: std::path::PathBuf,
    /// The path as `_file` shows it.
    pub shown: String,
    /// Its size in bytes when the table was made (it weighs partitions).
    pub size: u64,
}

/// What a [`JetFilesExec`] reads, as plain data: enough to make the same
/// scan again in another process that sees the same files (an executor
/// of a cluster). It holds no rows and no password: the process that
/// rebuilds the scan supplies the password ([`JetFilesExec::from_plan`]).
#[derive(Debug, Clone)]
pub struct JetFilesPlan {
    /// The table read in every file (matched ignoring case).
    pub table: String,
    /// The files the scan reads, and only those.
    pub files: Vec<PlanFile>,
    /// How files are read; the password is never part of a plan.
    pub options: JetFilesOptions,
    /// The union schema (all columns, `_file` last).
    pub union: SchemaRef,
    /// The union columns produced.
    pub projection: Vec<usize>,
    /// Filters handed to each file whose columns fit them.
    pub filters: Vec<Expr>,
    /// Rows wanted, when limited.
    pub limit: Option<usize>,
    /// The units each partition reads, in order; `member` numbers `files`.
    pub groups: Vec<Vec<Unit>>,
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
    /// Also print each skipped file's warning on standard error: set for a
    /// scan rebuilt from a [`JetFilesPlan`], whose stats nobody reads (an
    /// executor's log is where its skips are seen).
    pub echo_warnings: bool,
    /// Each file's password, when it is not the options' one password
    /// (a scan rebuilt from a plan takes them from its process's keyring).
    pub passwords: Option<PasswordFn>,
}

/// The password of the file at a path, if it has one.
pub type PasswordFn = Arc<dyn Fn(&std::path::Path) -> Option<jet_storage::Password> + Send + Sync>;

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

    /// This scan as plain data ([`JetFilesPlan`]), its password left out.
    pub fn plan(&self) -> JetFilesPlan {
        let mut used: Vec<usize> = self.groups.iter().flatten().map(|u| u.member).collect();
        used.sort_unstable();
        used.dedup();
        let files = used
            .iter()
            .map(|&i| {
                let m = &self.spec.members[i];
                PlanFile {
                    path: m.path.clone(),
                    shown: m.shown.clone(),
                    size: m.size,
                }
            })
            .collect();
        let renumber = |member: usize| used.binary_search(&member).unwrap_or(0);
        let groups = self
            .groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|u| Unit {
                        member: renumber(u.member),
                        ..*u
                    })
                    .collect()
            })
            .collect();
        JetFilesPlan {
            table: self.spec.table.clone(),
            files,
            options: JetFilesOptions {
                password: None,
                ..self.spec.options.clone()
            },
            union: self.spec.union.clone(),
            projection: self.spec.projection.clone(),
            filters: self.spec.filters.clone(),
            limit: self.spec.limit,
            groups,
        }
    }

    /// The scan `plan` describes, with the partitions it lists, opening
    /// each file with the password `passwords` gives for its path and
    /// planning each file's scan with the configuration and runtime of
    /// `ctx`. Fails when the plan does not
    /// hold together (a unit naming a file it does not list, a column
    /// beyond the schema).
    pub fn from_plan(plan: JetFilesPlan, passwords: PasswordFn, ctx: &TaskContext) -> Result<Self> {
        let bad = |what: String| {
            DataFusionError::Plan(format!("the multi-file scan sent is not valid: {what}"))
        };
        for u in plan.groups.iter().flatten() {
            if u.member >= plan.files.len() || u.parts == 0 || u.part >= u.parts {
                return Err(bad(format!(
                    "part {} of {} of file {} (of {})",
                    u.part,
                    u.parts,
                    u.member,
                    plan.files.len()
                )));
            }
        }
        let output = Arc::new(plan.union.project(&plan.projection).map_err(|_| {
            bad(format!(
                "columns {:?} of {}",
                plan.projection,
                plan.union.fields().len()
            ))
        })?);
        let mut states = HashMap::new();
        for u in plan.groups.iter().flatten() {
            states.entry(u.parts).or_insert_with(|| {
                let mut config = ctx.session_config().clone();
                config.options_mut().execution.target_partitions = u.parts;
                Arc::new(
                    datafusion::execution::SessionStateBuilder::new()
                        .with_config(config)
                        .with_runtime_env(ctx.runtime_env())
                        .build(),
                )
            });
        }
        let members = plan
            .files
            .into_iter()
            .map(|f| Member {
                path: f.path,
                shown: f.shown,
                size: f.size,
                schema: Arc::new(datafusion::arrow::datatypes::Schema::empty()),
            })
            .collect();
        let options = JetFilesOptions {
            password: None,
            ..plan.options
        };
        let spec = ScanSpec {
            members: Arc::new(members),
            table: plan.table,
            semaphore: Arc::new(Semaphore::new(options.max_open.max(1))),
            options,
            stats: Arc::default(),
            union: plan.union,
            projection: plan.projection,
            output: output.clone(),
            filters: plan.filters,
            limit: plan.limit,
            states,
            echo_warnings: true,
            passwords: Some(passwords),
        };
        let groups = if plan.groups.is_empty() {
            vec![Vec::new()]
        } else {
            plan.groups
        };
        let props = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(output.clone()),
            Partitioning::UnknownPartitioning(groups.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(JetFilesExec {
            spec: Arc::new(spec),
            groups,
            schema: output,
            props,
        })
    }

    /// Opens, the most open at once, and the files skipped by this scan's
    /// table (or, for a scan made by [`Self::from_plan`], by this scan).
    pub fn stats(&self) -> &Arc<ArchiveStats> {
        &self.spec.stats
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
        if spec.echo_warnings {
            eprintln!("jetsql: warning: {msg}{kept}");
        }
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
    let db = match &spec.passwords {
        Some(passwords) => {
            let options = JetFilesOptions {
                password: passwords(&m.path),
                ..spec.options.clone()
            };
            open(&m.path, &options)
        }
        None => open(&m.path, &spec.options),
    }
    .map_err(DataFusionError::Execution)?;
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
