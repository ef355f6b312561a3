//! Plans that read a table in index order: [`IndexOrderExec`] (`ORDER BY
//! … LIMIT n` walks an index instead of sorting), and which index orders
//! are Arrow's order, which `MIN`/`MAX` read from the ends of an index
//! rely on too ([`super::minmax`]).
//!
//! # When an index order is Arrow's order
//!
//! A key column's bytes sort like its Arrow values for Byte, Integer, Long,
//! Large Number (big-endian, sign bit flipped), Currency (the same over the
//! scaled integer Decimal128(19,4) holds), Single and Double (sign bit
//! flipped for positive values, all bits for negative ones: this is IEEE
//! 754 totalOrder on the stored bits, -NaN < -∞ < … < -0.0 < +0.0 < … < +∞
//! < +NaN, the order Arrow's sort kernels and row format use), and Yes/No
//! (reversed: the key stores true, -1 in Access, below false). The
//! [`jet_kernels::widen::order_admission`] kernel states this per type.
//! Date/Time keys sort the stored day number; from 1899-12-30 on that is
//! chronological, before it Access stores the time of day as a positive
//! fraction below a negative day, so within such a day the key order runs
//! backwards: a Date/Time index is used only when its smallest stored value
//! is not negative (read from the index end when planning). Text, GUID,
//! Binary, Numeric and Extended Date/Time indexes never claim an order.
//! Indexes with the IgnoreNulls flag hold no entry for NULL keys, so they
//! never stand in for a table in an ordered walk.
//!
//! # NULL placement
//!
//! Access sorts NULL first in ascending order (the NULL flag `00` precedes
//! the value flag `7F`) and last in descending order (`FF` after `80`).
//! A walk therefore yields `ASC NULLS FIRST` or `DESC NULLS LAST` on the
//! first key column directly; for `ASC NULLS LAST` and `DESC NULLS FIRST`
//! (DataFusion's defaults) the walk is split into the value keys and the
//! NULL keys, read as two stretches in the requested order. Later key
//! columns must match the walk's own NULL placement (or be Yes/No, which is
//! never NULL), otherwise the sort stays.

use super::walk::{IndexCursor, Segment};
use crate::error::to_df;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{
    EquivalenceProperties, LexOrdering, PhysicalExpr, PhysicalSortExpr,
};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{
    Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet,
};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use jet_kernels::widen::{KeyKind, OrderAdmission, order_admission};
use jet_storage::index::Bookmark;
use jet_storage::schema::tdef::{Direction, IndexKind};
use jet_storage::{Database, JetType, ScanOptions, Table};
use std::fmt;
use std::ops::Bound;
use std::sync::Arc;

const ASC_VALUE: u8 = 0x7F;
const ASC_NULL: u8 = 0x00;
const DESC_VALUE: u8 = 0x80;
const DESC_NULL: u8 = 0xFF;
/// Index flag: keys that are entirely NULL have no entry.
const IGNORE_NULLS: u8 = 0x02;
/// Index flag: unique keys.
pub(super) const UNIQUE: u8 = 0x01;
/// Index flag: every key column is required (no NULL keys).
const REQUIRED: u8 = 0x08;

fn key_kind(t: JetType) -> KeyKind {
    match t {
        JetType::Byte | JetType::Integer | JetType::Long | JetType::BigInt => KeyKind::Integer,
        JetType::Currency => KeyKind::Currency,
        JetType::Single | JetType::Double => KeyKind::Float,
        JetType::DateTime => KeyKind::DateTime,
        JetType::Boolean => KeyKind::Boolean,
        JetType::Text | JetType::Memo => KeyKind::Text,
        _ => KeyKind::Other,
    }
}

fn flags(dir: Direction) -> (u8, u8) {
    match dir {
        Direction::Ascending => (ASC_VALUE, ASC_NULL),
        Direction::Descending => (DESC_VALUE, DESC_NULL),
    }
}

/// The name EXPLAIN shows for real index `idx`: its primary key or first
/// logical index.
pub(crate) fn index_name(table: &Table, idx: usize) -> String {
    table
        .def()
        .indexes
        .iter()
        .filter(|l| l.real_index as usize == idx)
        .min_by_key(|l| match l.kind {
            IndexKind::PrimaryKey => 0,
            IndexKind::Normal => 1,
            _ => 2,
        })
        .map(|l| l.name.clone())
        .unwrap_or_else(|| format!("#{idx}"))
}

/// A cursor walking `segments` of real index `idx` of `table`.
pub(super) fn cursor(
    table: &Table,
    db: &Database,
    idx: usize,
    segments: Vec<Segment>,
) -> Result<IndexCursor> {
    let real = table.def().real_indexes.get(idx).ok_or_else(|| {
        DataFusionError::Internal(format!("table {:?} has no real index {idx}", table.name()))
    })?;
    Ok(IndexCursor::new(
        db.page_source().clone(),
        db.version().layout(),
        table.def().page,
        real.root_page,
        segments,
    ))
}

/// How an index column sorts: `Some(reversed)` when its key order is
/// Arrow's order (`reversed` for Yes/No), `None` when it claims no order.
/// A Date/Time column qualifies only as the first key column and only when
/// no stored value is negative (read from the index: at most a descent).
pub(super) fn column_order(
    table: &Table,
    db: &Database,
    idx: usize,
    pos: usize,
) -> Result<Option<bool>> {
    let real = &table.def().real_indexes[idx];
    let Some(&(num, dir)) = real.key.get(pos) else {
        return Ok(None);
    };
    let Some(col) = table.def().columns.iter().find(|c| c.col_num == num) else {
        return Ok(None);
    };
    if col.is_calculated() {
        return Ok(None);
    }
    let kind = key_kind(col.jet_type);
    let reversed = match order_admission(kind) {
        OrderAdmission::Preserved => false,
        OrderAdmission::Reversed => true,
        OrderAdmission::None => return Ok(None),
    };
    if kind == KeyKind::DateTime && (pos > 0 || !dates_not_negative(table, db, idx, dir)?) {
        return Ok(None);
    }
    Ok(Some(reversed))
}

/// Whether the smallest stored day number of the first key column of
/// `idx` (a Date/Time) is not negative. Reads the lowest value key: the
/// first one ascending, the last one descending.
fn dates_not_negative(table: &Table, db: &Database, idx: usize, dir: Direction) -> Result<bool> {
    let forward = dir == Direction::Ascending;
    let seg =
        Segment::new(forward, Bound::Unbounded, Bound::Unbounded).first_column(forward, false);
    let mut c = cursor(table, db, idx, vec![seg])?;
    let first = c
        .next()
        .transpose()
        .map_err(|e| to_df(jet_storage::Error::from(e).in_table(table.name())))?;
    Ok(match first.and_then(|e| e.key.get(1).copied()) {
        // ascending keys flip the sign bit of non-negative values; a
        // descending key inverts that again
        Some(b) => (b & 0x80 != 0) == forward,
        None => true,
    })
}

/// One sort key of a request: a table column and its Arrow sort options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SortKey {
    pub column: usize,
    pub options: SortOptions,
}

/// A walk that yields rows in a requested order.
#[derive(Debug, Clone)]
pub(crate) struct OrderedWalk {
    pub index: usize,
    pub index_name: String,
    pub segments: Vec<Segment>,
    /// For EXPLAIN: direction and how NULL keys are placed.
    pub walk: String,
    /// Key offsets of the flag bytes of later key columns whose NULL
    /// placement the plan takes from the index's Required flag: a NULL
    /// flag there is an error, never a misplaced row.
    pub required: Vec<(usize, u8)>,
}

/// A seek's range on a real index: the index and its encoded bounds.
pub(crate) type SeekRange<'a> = (usize, &'a Bound<Vec<u8>>, &'a Bound<Vec<u8>>);

/// An index walk producing `keys` in order, within `range` (an encoded
/// first-column range of a seek on real index `range.0`) when given.
/// `None` when no index fits; see the module documentation.
pub(crate) fn ordered_walk(
    table: &Table,
    db: &Database,
    keys: &[SortKey],
    range: Option<SeekRange<'_>>,
) -> Result<Option<OrderedWalk>> {
    let Some(first) = keys.first() else {
        return Ok(None);
    };
    let def = table.def();
    let mut candidates: Vec<usize> = (0..def.real_indexes.len())
        .filter(|&i| range.is_none_or(|r| r.0 == i))
        .filter(|&i| def.real_indexes[i].flags & IGNORE_NULLS == 0)
        .filter(|&i| def.real_indexes[i].key.len() >= keys.len())
        .filter(|&i| {
            keys.iter()
                .zip(&def.real_indexes[i].key)
                .all(|(k, (num, _))| def.columns.get(k.column).map(|c| c.col_num) == Some(*num))
        })
        .collect();
    candidates.sort_by_key(|&i| def.real_indexes[i].flags & UNIQUE == 0);
    'index: for idx in candidates {
        let real = &def.real_indexes[idx];
        let mut forward = None;
        let mut required = Vec::new();
        let mut offset = 0usize;
        for (pos, k) in keys.iter().enumerate() {
            let Some(reversed) = column_order(table, db, idx, pos)? else {
                continue 'index;
            };
            let asc = real.key[pos].1 == Direction::Ascending;
            // a forward walk yields this column's Arrow values ascending
            // when the key is ascending and not reversed (or both)
            let ascending_forward = asc != reversed;
            let f = ascending_forward != k.options.descending;
            match forward {
                None => forward = Some(f),
                Some(w) if w != f => continue 'index,
                Some(_) => {}
            }
            // NULL keys come first when the walk runs from the NULL end
            let nulls_first = f == asc;
            if pos > 0 && !reversed && nulls_first != k.options.nulls_first {
                // a Required index has no NULL keys (checked while walking)
                if real.flags & REQUIRED == 0 {
                    continue 'index;
                }
                required.push((offset, flags(real.key[pos].1).0));
            }
            // every admitted type has a fixed-width key: flag and value
            let Some(width) = def.columns[k.column].jet_type.fixed_size() else {
                continue 'index;
            };
            offset += 1 + if def.columns[k.column].jet_type == JetType::Boolean {
                1
            } else {
                width
            };
        }
        let Some(forward) = forward else { continue };
        let (lower, upper) = match range {
            Some((_, l, u)) => (l.clone(), u.clone()),
            None => (Bound::Unbounded, Bound::Unbounded),
        };
        let base = Segment::new(forward, lower, upper);
        let dir0 = real.key[0].1;
        let natural_nulls_first = forward == (dir0 == Direction::Ascending);
        let bool0 = def.columns[first.column].jet_type == JetType::Boolean;
        let direction = if forward { "forward" } else { "backward" };
        let (segments, walk) = if bool0 || natural_nulls_first == first.options.nulls_first {
            (vec![base], direction.to_string())
        } else {
            let asc0 = dir0 == Direction::Ascending;
            let values = base.clone().first_column(asc0, false);
            let nulls = base.first_column(asc0, true);
            if first.options.nulls_first {
                (vec![nulls, values], format!("{direction}, NULL keys first"))
            } else {
                (vec![values, nulls], format!("{direction}, NULL keys last"))
            }
        };
        return Ok(Some(OrderedWalk {
            index: idx,
            index_name: index_name(table, idx),
            segments,
            walk,
            required,
        }));
    }
    Ok(None)
}

fn sort_label(table: &Table, keys: &[SortKey]) -> String {
    keys.iter()
        .map(|k| {
            format!(
                "{} {} NULLS {}",
                table.def().columns[k.column].name,
                if k.options.descending { "DESC" } else { "ASC" },
                if k.options.nulls_first {
                    "FIRST"
                } else {
                    "LAST"
                }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads rows in the order of an index walk: descends to the first entry
/// of each stretch, follows the leaf chain, and fetches the rows of the
/// entries in that order, `fetch` rows at most. Declares the requested
/// ordering, so no sort is needed above it. One partition.
#[derive(Debug)]
pub struct IndexOrderExec {
    table: Table,
    db: Database,
    complex: Arc<super::complex::ComplexLists>,
    walk: OrderedWalk,
    keys: Vec<SortKey>,
    range: Option<String>,
    projection: Option<Vec<usize>>,
    fetch: Option<usize>,
    batch_size: usize,
    schema: SchemaRef,
    props: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl IndexOrderExec {
    /// The plan for `walk` (from [`ordered_walk`] for `keys`), projected
    /// to `projection`; `range` labels a seek range for EXPLAIN.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn try_new(
        table: Table,
        db: Database,
        complex: Arc<super::complex::ComplexLists>,
        walk: OrderedWalk,
        keys: Vec<SortKey>,
        range: Option<String>,
        projection: Option<Vec<usize>>,
        fetch: Option<usize>,
        batch_size: usize,
    ) -> Result<Self> {
        let schema = complex.projected_schema(projection.as_deref())?;
        let position = |col: usize| match &projection {
            Some(p) => p.iter().position(|&c| c == col),
            None => Some(col),
        };
        let mut ordering = Vec::new();
        for k in &keys {
            let Some(i) = position(k.column) else {
                return Err(DataFusionError::Internal(
                    "IndexOrderExec: a sort column is not projected".into(),
                ));
            };
            ordering.push(PhysicalSortExpr::new(
                Arc::new(Column::new(schema.field(i).name(), i)),
                k.options,
            ));
        }
        let eq = match LexOrdering::new(ordering) {
            Some(o) => EquivalenceProperties::new_with_orderings(schema.clone(), [o]),
            None => EquivalenceProperties::new(schema.clone()),
        };
        let props = Arc::new(PlanProperties::new(
            eq,
            Partitioning::UnknownPartitioning(1),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(IndexOrderExec {
            table,
            db,
            complex,
            walk,
            keys,
            range,
            projection,
            fetch,
            batch_size: batch_size.max(1),
            schema,
            props,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }

    /// Name of the index walked.
    pub fn index_name(&self) -> &str {
        &self.walk.index_name
    }

    fn with_fetch_value(&self, fetch: Option<usize>) -> Self {
        IndexOrderExec {
            table: self.table.clone(),
            db: self.db.clone(),
            complex: self.complex.clone(),
            walk: self.walk.clone(),
            keys: self.keys.clone(),
            range: self.range.clone(),
            projection: self.projection.clone(),
            fetch,
            batch_size: self.batch_size,
            schema: self.schema.clone(),
            props: self.props.clone(),
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }
}

impl DisplayAs for IndexOrderExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "IndexOrderExec: table={:?}, index={:?}, order=[{}], walk={}",
            self.table.name(),
            self.walk.index_name,
            sort_label(&self.table, &self.keys),
            self.walk.walk
        )?;
        if let Some(r) = &self.range {
            write!(f, ", range={r}")?;
        }
        if let Some(n) = self.fetch {
            write!(f, ", fetch={n}")?;
        }
        Ok(())
    }
}

/// The pull state of an ordered walk: entries come in chunks, each chunk's
/// rows are fetched in entry order.
struct OrderState {
    table: Table,
    db: Database,
    cursor: IndexCursor,
    projection: Option<Vec<usize>>,
    remaining: Option<usize>,
    chunk: usize,
    batch_size: usize,
    rows: Option<jet_storage::TableScan>,
    entries_done: bool,
    finished: bool,
    required: Vec<(usize, u8)>,
    index_name: String,
    pages: Count,
    index_pages: Count,
    before: u64,
    /// Turns projected complex ids into lists.
    expander: Option<jet_storage::read::complex::ListExpander>,
}

impl OrderState {
    fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if self.finished {
                return None;
            }
            if self.remaining == Some(0) {
                return self.finish(None);
            }
            if let Some(rows) = self.rows.as_mut() {
                match rows.next() {
                    Some(Ok(b)) => {
                        let b = match self.remaining.as_mut() {
                            Some(r) => {
                                let n = b.num_rows().min(*r);
                                *r -= n;
                                b.slice(0, n)
                            }
                            None => b,
                        };
                        let b = match super::complex::expand(&mut self.expander, b) {
                            Ok(b) => b,
                            Err(e) => return self.finish(Some(e)),
                        };
                        self.account();
                        return Some(Ok(b));
                    }
                    Some(Err(e)) => return self.finish(Some(to_df(e))),
                    None => self.rows = None,
                }
            }
            if self.entries_done {
                return self.finish(None);
            }
            // the next chunk of entries; without a limit it grows, so a
            // filter above that needs few rows reads few
            let want = match self.remaining {
                Some(r) => r.min(self.batch_size),
                None => self.chunk,
            };
            self.chunk = (self.chunk * 2).min(self.batch_size);
            let mut marks: Vec<Bookmark> = Vec::with_capacity(want);
            while marks.len() < want {
                match self.cursor.next() {
                    Some(Ok(e)) => {
                        if let Some(&(at, _)) = self
                            .required
                            .iter()
                            .find(|(at, flag)| e.key.get(*at) != Some(flag))
                        {
                            let msg = format!(
                                "table {:?}: index {:?} is marked Required but holds a NULL or \
                                 malformed key (byte {at} of the entry for page {} row {}); \
                                 its order cannot stand in for the sort",
                                self.table.name(),
                                self.index_name,
                                e.bookmark.page,
                                e.bookmark.row
                            );
                            return self.finish(Some(DataFusionError::Execution(msg)));
                        }
                        marks.push(e.bookmark)
                    }
                    Some(Err(e)) => {
                        let e = jet_storage::Error::from(e).in_table(self.table.name());
                        return self.finish(Some(to_df(e)));
                    }
                    None => {
                        self.entries_done = true;
                        break;
                    }
                }
            }
            if marks.is_empty() {
                continue;
            }
            let scan = self.table.fetch(
                marks,
                ScanOptions {
                    projection: self.projection.clone(),
                    batch_size: self.batch_size,
                    ..Default::default()
                },
            );
            match scan {
                Ok(s) => self.rows = Some(s),
                Err(e) => return self.finish(Some(to_df(e))),
            }
        }
    }

    /// Ends the stream (with `error` as its last item) and records the
    /// pages read.
    fn finish(&mut self, error: Option<DataFusionError>) -> Option<Result<RecordBatch>> {
        self.finished = true;
        self.rows = None;
        self.account();
        error.map(Err)
    }

    /// Adds the pages read since the last call to the metrics (a consumer
    /// may stop pulling at any batch).
    fn account(&mut self) {
        let now = self.db.pages_read();
        self.pages.add(now.saturating_sub(self.before) as usize);
        self.before = now;
        self.index_pages.add(self.cursor.pages_read as usize);
        self.cursor.pages_read = 0;
    }
}

impl ExecutionPlan for IndexOrderExec {
    fn name(&self) -> &str {
        "IndexOrderExec"
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
    fn supports_limit_pushdown(&self) -> bool {
        true
    }
    fn with_fetch(&self, limit: Option<usize>) -> Option<Arc<dyn ExecutionPlan>> {
        Some(Arc::new(self.with_fetch_value(limit)))
    }
    fn fetch(&self) -> Option<usize> {
        self.fetch
    }
    fn execute(
        &self,
        partition: usize,
        _ctx: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if partition != 0 {
            return Err(DataFusionError::Internal(format!(
                "IndexOrderExec has no partition {partition}"
            )));
        }
        let cursor = cursor(
            &self.table,
            &self.db,
            self.walk.index,
            self.walk.segments.clone(),
        )?;
        let stored = self
            .table
            .projected_schema(self.projection.as_deref())
            .map_err(to_df)?;
        let expander = self.complex.expander(&stored, self.projection.as_deref())?;
        let mut state = OrderState {
            table: self.table.clone(),
            db: self.db.clone(),
            cursor,
            projection: self.projection.clone(),
            remaining: self.fetch,
            chunk: 64.min(self.batch_size),
            batch_size: self.batch_size,
            rows: None,
            entries_done: false,
            finished: false,
            required: self.walk.required.clone(),
            index_name: self.walk.index_name.clone(),
            pages: MetricBuilder::new(&self.metrics).global_counter("pages_read"),
            index_pages: MetricBuilder::new(&self.metrics).global_counter("index_pages_read"),
            before: self.db.pages_read(),
            expander,
        };
        let s = futures::stream::iter(std::iter::from_fn(move || state.next_batch()));
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            s,
        )))
    }
    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}
