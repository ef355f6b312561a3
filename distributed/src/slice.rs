//! Jet scans as a Ballista task runs them: only the task's partitions.
//!
//! Ballista 55 gives each task a slice of a stage's partitions by
//! rewriting the stage's leaves before it sends them (file groups of a
//! file scan, in-memory partitions, shuffle locations); the executor then
//! runs every partition of the plan it gets. A leaf Ballista does not know
//! (every Jet scan) is sent whole, so each task would read all of it: the
//! rows come back once per task. That is a wrong answer without an error.
//!
//! So on a cluster every Jet scan becomes a [`TaskSliceExec`]: the scan,
//! kept whole, over a child Ballista does know how to slice: an in-memory
//! table whose partition `i` holds the single number `i`. Ballista slices
//! the child like any other; the task runs the scan's partitions whose
//! numbers it finds there, and only those.
//!
//! The wrapping is done where the scan is made: a table the scheduler
//! decodes is a [`ClusterTable`], whose scans come out wrapped. (A
//! physical optimizer rule would not do: Ballista's adaptive planner
//! replaces the session's rules with its own list.)

use datafusion::arrow::array::{AsArray, RecordBatch, UInt32Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, UInt32Type};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::common::{Constraints, Statistics};
use datafusion::datasource::TableType;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::TryStreamExt;
use jet_provider::archive::JetFilesExec;
use jet_provider::{IndexSeekExec, JetScanExec};
use std::fmt;
use std::sync::Arc;

/// The column of the partition numbers' table.
const PARTITION: &str = "jet_partition";

/// A Jet scan (`scan`, all its partitions) that runs the partitions whose
/// numbers its child yields: partition `i` of this plan runs the scan's
/// partitions listed in partition `i` of `numbers`. See the module docs.
#[derive(Debug)]
pub struct TaskSliceExec {
    scan: Arc<dyn ExecutionPlan>,
    numbers: Arc<dyn ExecutionPlan>,
    props: Arc<PlanProperties>,
}

/// The table of `n` partitions, partition `i` holding the number `i`.
pub fn partition_numbers(n: usize) -> Result<Arc<dyn ExecutionPlan>> {
    let schema = numbers_schema();
    let partitions = (0..n)
        .map(|i| {
            let i = u32::try_from(i).map_err(|_| {
                DataFusionError::Plan(format!(
                    "a scan of {n} partitions is too many for a cluster"
                ))
            })?;
            Ok(vec![RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(UInt32Array::from(vec![i]))],
            )?])
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(MemorySourceConfig::try_new_exec(&partitions, schema, None)?)
}

fn numbers_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        PARTITION,
        DataType::UInt32,
        false,
    )]))
}

impl TaskSliceExec {
    /// `scan` run partition by partition as `numbers` lists them. Fails
    /// when `numbers` does not yield partition numbers.
    pub fn try_new(scan: Arc<dyn ExecutionPlan>, numbers: Arc<dyn ExecutionPlan>) -> Result<Self> {
        if numbers.schema().fields().len() != 1
            || numbers.schema().field(0).data_type() != &DataType::UInt32
        {
            return Err(DataFusionError::Plan(
                "a cluster scan's partition list has the wrong columns".into(),
            ));
        }
        let props = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(scan.schema()),
            Partitioning::UnknownPartitioning(numbers.properties().partitioning.partition_count()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(TaskSliceExec {
            scan,
            numbers,
            props,
        })
    }

    /// `scan` with every partition listed.
    pub fn whole(scan: Arc<dyn ExecutionPlan>) -> Result<Self> {
        let n = scan.properties().partitioning.partition_count();
        Self::try_new(scan, partition_numbers(n)?)
    }

    /// The Jet scan, all of its partitions.
    pub fn scan(&self) -> &Arc<dyn ExecutionPlan> {
        &self.scan
    }

    /// Whether `plan` is a Jet scan a cluster must slice.
    pub fn is_jet_scan(plan: &dyn ExecutionPlan) -> bool {
        plan.is::<JetScanExec>() || plan.is::<IndexSeekExec>() || plan.is::<JetFilesExec>()
    }
}

impl DisplayAs for TaskSliceExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "TaskSliceExec: partitions={} of ",
            self.props.partitioning.partition_count()
        )?;
        self.scan.fmt_as(t, f)
    }
}

impl ExecutionPlan for TaskSliceExec {
    fn name(&self) -> &str {
        "TaskSliceExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.props
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.numbers]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match <[_; 1]>::try_from(children) {
            Ok([numbers]) => Ok(Arc::new(TaskSliceExec::try_new(
                self.scan.clone(),
                numbers,
            )?)),
            Err(_) => Err(DataFusionError::Internal(
                "TaskSliceExec has one child".into(),
            )),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let numbers = self.numbers.execute(partition, context.clone())?;
        let scan = self.scan.clone();
        let count = scan.properties().partitioning.partition_count();
        let rows = numbers
            .map_ok(|b: RecordBatch| {
                let ids = b.column(0).as_primitive::<UInt32Type>().clone();
                futures::stream::iter((0..ids.len()).map(move |i| Ok(ids.value(i) as usize)))
            })
            .try_flatten()
            .and_then(move |i: usize| {
                let scan = scan.clone();
                let context = context.clone();
                async move {
                    if i >= count {
                        return Err(DataFusionError::Internal(format!(
                            "a cluster task was given partition {i} of a scan of {count}"
                        )));
                    }
                    scan.execute(i, context)
                }
            })
            .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(self.schema(), rows)))
    }
}

/// `plan` with every Jet scan made a [`TaskSliceExec`] (see the module
/// docs); a scan already wrapped is left as it is.
pub fn slice_jet_scans(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_down(|node| {
        if node.is::<TaskSliceExec>() {
            return Ok(Transformed::new(node, false, TreeNodeRecursion::Jump));
        }
        if TaskSliceExec::is_jet_scan(node.as_ref()) {
            let sliced: Arc<dyn ExecutionPlan> = Arc::new(TaskSliceExec::whole(node)?);
            return Ok(Transformed::new(sliced, true, TreeNodeRecursion::Jump));
        }
        Ok(Transformed::no(node))
    })
    .data()
}

/// A Jet table as a cluster's scheduler plans it: the table's own plans,
/// every Jet scan in them wrapped in a [`TaskSliceExec`].
#[derive(Debug)]
pub struct ClusterTable {
    inner: Arc<dyn TableProvider>,
}

impl ClusterTable {
    /// `inner` (a Jet table) for a scheduler.
    pub fn new(inner: Arc<dyn TableProvider>) -> Self {
        ClusterTable { inner }
    }

    /// The Jet table.
    pub fn inner(&self) -> &Arc<dyn TableProvider> {
        &self.inner
    }
}

#[async_trait::async_trait]
impl TableProvider for ClusterTable {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.inner.constraints()
    }

    fn table_type(&self) -> TableType {
        self.inner.table_type()
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.inner.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.inner.statistics()
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let plan = self.inner.scan(state, projection, filters, limit).await?;
        slice_jet_scans(plan)
    }
}
