//! `JetTable`: a Jet table as a DataFusion `TableProvider`.

use crate::complex::ComplexLists;
use crate::dml::{DmlKind, DmlRows, JetDmlExec, JetHandle, JetSink};
use crate::exec::{IndexSeekExec, JetScanExec, Recheck};
use crate::pushdown::{Constraint, analyze, index_for};
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
use jet_storage::index_key::{KeyValue, first_column_bounds};
use jet_storage::{Database, JetVersion, Table};
use std::collections::HashMap;
use std::fmt;
use std::ops::Bound;
use std::sync::Arc;

/// How a database is exposed to DataFusion.
#[derive(Debug, Clone)]
pub struct JetOptions {
    /// List system tables (MSysObjects, …) too.
    pub system_tables: bool,
    /// Use indexes: filters become index seeks, and (with the rules of
    /// [`crate::physical_optimizer_rules`]) `ORDER BY … LIMIT` walks an
    /// index and `MIN`/`MAX` read index ends. Off: every query is answered
    /// from full scans (the reference for differential tests).
    pub pushdown: bool,
    /// Rows per batch.
    pub batch_size: usize,
    /// Allow INSERT / UPDATE / DELETE / CREATE TABLE / DROP TABLE. Off (the
    /// default): the database is read-only and every write is refused.
    pub writable: bool,
    /// The database's password: it opens an encrypted file (and every
    /// re-open after a write), and pages written to it are encrypted
    /// again. Never shown (its `Debug` hides it).
    pub password: Option<jet_storage::Password>,
    /// For a read-only database opened with `OpenOptions::hold_lock`
    /// off: no lock is held between statements, so writers in other
    /// processes get in; [`crate::JetHandle::read_snapshot`] takes the
    /// shared lock for each statement and reads the file again when it
    /// changed. Off (the default): the database's lock is held for as long
    /// as it is registered.
    pub lock_per_statement: bool,
}

impl Default for JetOptions {
    fn default() -> Self {
        JetOptions {
            system_tables: false,
            pushdown: true,
            batch_size: 8192,
            writable: false,
            password: None,
            lock_per_statement: false,
        }
    }
}

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
        let defaults = crate::defaults::column_defaults(&table.schema());
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
        let defaults = crate::defaults::column_defaults(&table.schema());
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
        crate::statement::check_filters(state, what, self.table.name(), filters)?;
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
        .map(|s| {
            format!(
                "{} {}",
                crate::ordered::index_name(&self.table, s.index),
                s.label
            )
        });
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

/// What a filter conjunct seeks: (column, constraint, real index), when
/// `pushdown` is on and the conjunct maps onto the first key column of an
/// index whose keys this reader encodes.
pub(crate) fn seekable(
    table: &Table,
    version: JetVersion,
    pushdown: bool,
    e: &Expr,
) -> Option<(usize, Constraint, usize)> {
    if !pushdown {
        return None;
    }
    let (col, c) = analyze(e, table)?;
    // a complex column's stored value is an id, not what SQL compares
    if table.def().columns.get(col)?.jet_type == jet_storage::JetType::Complex {
        return None;
    }
    let idx = index_for(table, col)?;
    // an IgnoreNulls index has no entries for NULL keys
    let ignores_nulls = table.def().real_indexes[idx].flags & 0x02 != 0;
    if ignores_nulls && c == Constraint::Eq(KeyValue::Null) {
        return None;
    }
    // every bound must have a key form (or none can match): a literal the
    // encoder refuses (NaN, another kind of value, a text range, a
    // character the collation tables do not know) is not sought, so the
    // filter stays with DataFusion. Out-of-range literals do encode: they
    // clamp to an unbounded side or an empty range.
    let column = &table.def().columns[col];
    let dir = table.def().real_indexes[idx].key.first()?.1;
    // (a text value no row can hold, such as a character outside a Jet3
    // column's code page, is left to the scan as well)
    let text = column.jet_type == jet_storage::JetType::Text;
    let encodes = |lo: Bound<&KeyValue>, hi: Bound<&KeyValue>| match first_column_bounds(
        column, dir, lo, hi, version,
    ) {
        Ok(Some(_)) => true,
        Ok(None) => !text,
        Err(_) => false,
    };
    let ok = match &c {
        Constraint::Eq(v) => encodes(Bound::Included(v), Bound::Included(v)),
        Constraint::In(vs) => vs
            .iter()
            .all(|v| encodes(Bound::Included(v), Bound::Included(v))),
        Constraint::Range(lo, hi) => encodes(lo.as_ref(), hi.as_ref()),
    };
    if !ok {
        return None;
    }
    Some((col, c, idx))
}

/// Encoded key bounds of one range of a seek.
pub(crate) use crate::exec::KeyRange;

/// How the read side finds the rows of a set of filter conjuncts through
/// one index: the index, its key ranges (together a superset of the
/// matching rows), and the conjuncts the seek answers (to be re-checked
/// exactly).
pub(crate) struct SeekPlan {
    /// Real index number.
    pub index: usize,
    /// The value ranges, as EXPLAIN shows them.
    pub label: String,
    /// Key ranges sorted by lower bound, without duplicates; empty when no
    /// key can match.
    pub ranges: Vec<KeyRange>,
}

/// More values than this in an `IN` list are labelled by their count.
const LISTED_VALUES: usize = 8;

/// The seek the read side would use for `filters` (equality first, then
/// IN, then ranges merged on one column; unique indexes first within
/// each), or `None` when no conjunct maps onto an index.
pub(crate) fn seek_plan(
    table: &Table,
    version: JetVersion,
    pushdown: bool,
    filters: &[Expr],
) -> Result<Option<SeekPlan>> {
    let pushed: Vec<(&Expr, (usize, Constraint, usize))> = filters
        .iter()
        .filter_map(|f| seekable(table, version, pushdown, f).map(|s| (f, s)))
        .collect();
    let rank = |c: &Constraint, idx: usize| {
        let unique = table.def().real_indexes[idx].flags & 0x01 != 0;
        let kind = match c {
            Constraint::Eq(_) => 0,
            Constraint::In(_) => 1,
            Constraint::Range(..) => 2,
        };
        (kind, !unique)
    };
    let Some((_, (col, first, idx))) = pushed
        .iter()
        .min_by_key(|(_, (_, c, i))| rank(c, *i))
        .cloned()
    else {
        return Ok(None);
    };
    let column = &table.def().columns[col];
    let dir = table.def().real_indexes[idx].key[0].1;
    let value_ranges: Vec<(Bound<KeyValue>, Bound<KeyValue>)> = match first {
        Constraint::Eq(v) => vec![(Bound::Included(v.clone()), Bound::Included(v))],
        Constraint::In(vs) => vs
            .into_iter()
            .map(|v| (Bound::Included(v.clone()), Bound::Included(v)))
            .collect(),
        Constraint::Range(lo, hi) => {
            // merge every range on the same column into one
            let (mut lo, mut hi) = (lo, hi);
            for (_, (c2, k, _)) in &pushed {
                if *c2 == col
                    && let Constraint::Range(l2, h2) = k
                {
                    lo = tighter(lo, l2.clone(), true);
                    hi = tighter(hi, h2.clone(), false);
                }
            }
            vec![(lo, hi)]
        }
    };
    let label = if value_ranges.len() > LISTED_VALUES {
        format!("{} in {} values", column.name, value_ranges.len())
    } else {
        format!(
            "{} in {}",
            column.name,
            value_ranges
                .iter()
                .map(|(lo, hi)| describe(lo, hi))
                .collect::<Vec<_>>()
                .join(" ∪ ")
        )
    };
    let mut ranges = Vec::with_capacity(value_ranges.len());
    for (lo, hi) in &value_ranges {
        let bounds = first_column_bounds(column, dir, lo.as_ref(), hi.as_ref(), version)
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        ranges.extend(bounds);
    }
    // key order, so one walk of the leaves visits each range in turn
    ranges.sort_by(|a, b| lower_key_order(&a.0, &b.0));
    ranges.dedup();
    Ok(Some(SeekPlan {
        index: idx,
        label,
        ranges,
    }))
}

/// Orders encoded lower bounds: unbounded first, then by key bytes.
fn lower_key_order(a: &Bound<Vec<u8>>, b: &Bound<Vec<u8>>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Bound::Unbounded, Bound::Unbounded) => Ordering::Equal,
        (Bound::Unbounded, _) => Ordering::Less,
        (_, Bound::Unbounded) => Ordering::Greater,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => {
            x.cmp(y)
        }
    }
}

/// Tightens value bounds: the larger lower bound and the smaller upper bound
/// when comparable, otherwise the first (a wider range is always safe).
fn tighter(a: Bound<KeyValue>, b: Bound<KeyValue>, lower: bool) -> Bound<KeyValue> {
    let v = |x: &Bound<KeyValue>| match x {
        Bound::Included(v) | Bound::Excluded(v) => Some(v.clone()),
        Bound::Unbounded => None,
    };
    let num = |k: &KeyValue| match k {
        KeyValue::Int(i) => Some(*i as f64),
        KeyValue::Float(f) => Some(*f),
        KeyValue::TimestampMicros(m) => Some(*m as f64),
        KeyValue::Decimal { value, scale } => Some(*value as f64 / 10f64.powi(i32::from(*scale))),
        _ => None,
    };
    match (v(&a).as_ref().and_then(num), v(&b).as_ref().and_then(num)) {
        (Some(x), Some(y)) => {
            let pick_b = if lower { y > x } else { y < x };
            if pick_b { b } else { a }
        }
        (None, Some(_)) if matches!(a, Bound::Unbounded) => b,
        _ => a,
    }
}

fn show(v: &KeyValue) -> String {
    match v {
        KeyValue::Null => "NULL".into(),
        KeyValue::Bool(b) => b.to_string(),
        KeyValue::Int(i) => i.to_string(),
        KeyValue::Float(f) => f.to_string(),
        KeyValue::Decimal { value, scale } => {
            datafusion::common::ScalarValue::Decimal128(Some(*value), 38, *scale as i8).to_string()
        }
        KeyValue::TimestampMicros(m) => {
            datafusion::common::ScalarValue::TimestampMicrosecond(Some(*m), None).to_string()
        }
        KeyValue::Bytes(b) => format!(
            "0x{}",
            b.iter().map(|x| format!("{x:02x}")).collect::<String>()
        ),
        KeyValue::Guid(g) => g.clone(),
        KeyValue::Text(t) => format!("{t:?}"),
    }
}

/// A value range in interval notation: `[a, b]`, `(a, +∞)`, `[NULL]`.
fn describe(lo: &Bound<KeyValue>, hi: &Bound<KeyValue>) -> String {
    if let (Bound::Included(a), Bound::Included(b)) = (lo, hi)
        && a == b
    {
        return format!("[{}]", show(a));
    }
    let l = match lo {
        Bound::Included(v) => format!("[{}", show(v)),
        Bound::Excluded(v) => format!("({}", show(v)),
        Bound::Unbounded => "(-∞".into(),
    };
    let h = match hi {
        Bound::Included(v) => format!("{}]", show(v)),
        Bound::Excluded(v) => format!("{})", show(v)),
        Bound::Unbounded => "+∞)".into(),
    };
    format!("{l}, {h}")
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
        let name = crate::ordered::index_name(&self.table, seek.index);
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
