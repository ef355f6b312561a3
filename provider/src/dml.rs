//! Writes through DataFusion: the shared database handle a writable
//! registration's tables hold, the INSERT sink, and the plan of DELETE and
//! UPDATE.
//!
//! Every statement is one journaled transaction of the storage writer:
//! either all its rows change or none do. Planning never writes (so
//! `EXPLAIN DELETE …` leaves the file alone); the work happens when the
//! plan executes. After each commit the handle reopens its read-side
//! [`Database`], so the next statement sees the new rows.
//!
//! Serializable writers: a statement that writes takes the file's writer
//! lock *before* it is planned ([`JetHandle::lock_for_statement`], called
//! by [`crate::JetSession`]) and refreshes the read-side [`Database`] under
//! it, so everything the statement reads (an `INSERT … SELECT` from the
//! same table, the rows a DELETE chooses) is the committed image no other
//! process can change until the statement's own commit. A writer that
//! cannot get the lock within the wait fails with the busy error
//! (`JournalError::Locked`).

use crate::exec::bound_ref;
use crate::table::JetOptions;
use crate::to_df;
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
use jet_storage::image::{CommitTarget, ImageChanges, MemImage};
use jet_storage::index::{Bookmark, KeyMatch};
use jet_storage::journal::JournaledFile;
use jet_storage::journal::lock::{DEFAULT_LOCK_WAIT, FileLock};
use jet_storage::write::WResult;
use jet_storage::{Database, FileStamp, OpenOptions, ScanOptions, Transaction, Writer};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

fn err(msg: impl Into<String>) -> DataFusionError {
    DataFusionError::Plan(msg.into())
}

/// An explicit transaction in progress: the writer holding the file's
/// exclusive lock, the committed image at `BEGIN`, and an in-memory writer
/// that collects the statements' changes until `COMMIT`.
struct Explicit {
    file: Writer<JournaledFile>,
    base: Vec<u8>,
    mem: Writer<MemImage>,
}

struct State {
    db: Database,
    /// The file's stamp when `db` was read (per-statement locking).
    stamp: Option<FileStamp>,
    explicit: Option<Explicit>,
    /// The writer (and its exclusive lock) held for one statement.
    statement: Option<Writer<JournaledFile>>,
}

/// One registered database: the read-side [`Database`] the tables scan
/// (swapped after every commit) and, when writable, the file writes go to.
/// Writes are serialised by the handle's lock; the writer (and its
/// exclusive lock) is held only while a statement or an explicit
/// transaction runs.
pub struct JetHandle {
    path: Option<PathBuf>,
    options: JetOptions,
    state: Mutex<State>,
}

impl fmt::Debug for JetHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JetHandle")
            .field("path", &self.path)
            .field("writable", &self.options.writable)
            .finish()
    }
}

impl JetHandle {
    /// A handle over an already open database; writable only when
    /// `options.writable` is set and `db` was opened from a file.
    pub fn new(db: Database, options: JetOptions) -> Self {
        let stamp = db.path().and_then(|p| FileStamp::of(p).ok());
        JetHandle {
            path: db.path().map(|p| p.to_path_buf()),
            options,
            state: Mutex::new(State {
                db,
                stamp,
                explicit: None,
                statement: None,
            }),
        }
    }

    /// Options of the registration.
    pub fn options(&self) -> &JetOptions {
        &self.options
    }

    fn lock(&self) -> Result<MutexGuard<'_, State>> {
        self.state
            .lock()
            .map_err(|_| DataFusionError::Internal("jet handle lock poisoned".into()))
    }

    /// The current read-side database (the committed image, or inside an
    /// explicit transaction the image with its changes so far).
    pub fn database(&self) -> Result<Database> {
        Ok(self.lock()?.db.clone())
    }

    /// True while an explicit transaction (`BEGIN` … `COMMIT`) is open.
    pub fn in_transaction(&self) -> bool {
        self.lock().map(|s| s.explicit.is_some()).unwrap_or(false)
    }

    fn writable_path(&self) -> Result<&PathBuf> {
        if !self.options.writable {
            return Err(err(
                "the database is open read-only; open it for writing (jetsql --write) to change it",
            ));
        }
        self.path
            .as_ref()
            .ok_or_else(|| err("the database was not opened from a file; it cannot be written"))
    }

    /// Whether the handle holds no lock between statements.
    fn per_statement(&self) -> bool {
        self.options.lock_per_statement && !self.options.writable
    }

    fn reopen(&self, path: &PathBuf) -> Result<Database> {
        let options = OpenOptions {
            password: self.options.password.clone(),
            hold_lock: !self.per_statement(),
            ..OpenOptions::default()
        };
        Database::open(path, options).map_err(to_df)
    }

    /// For a read-only handle registered with
    /// [`JetOptions::lock_per_statement`]: takes the file's shared lock for
    /// one statement (waiting, as any reader, for another process's writer
    /// to commit) and, when the file changed since it was last read
    /// ([`FileStamp`]), opens it again first, so the statement reads one
    /// committed state. Keep the returned lock until the statement's
    /// results are read. `None` for other handles, whose database holds
    /// its lock for as long as it is open.
    pub fn read_snapshot(&self) -> Result<Option<FileLock>> {
        if !self.per_statement() {
            return Ok(None);
        }
        let Some(path) = self.path.clone() else {
            return Ok(None);
        };
        let guard = jet_storage::journal::open_for_read(&path, DEFAULT_LOCK_WAIT)
            .map_err(|e| to_df(e.into()))?;
        let stamp = FileStamp::of(&path).ok();
        let mut st = self.lock()?;
        if stamp.is_none() || st.stamp != stamp {
            st.db = self.reopen(&path)?;
            st.stamp = stamp;
        }
        Ok(guard)
    }

    /// The file's writer (its lock taken), unlocked with the password.
    fn open_writer(&self, path: &Path) -> Result<Writer<JournaledFile>> {
        Database::open_writable_with_password(path, self.options.password.as_ref()).map_err(to_df)
    }

    /// Takes the file's writer lock for one statement that writes (waiting
    /// up to the lock wait for other processes, then failing with the busy
    /// error) and reopens the read side under it, so the statement plans
    /// and reads the image its commit will change. Does nothing for a
    /// read-only handle, inside an explicit transaction (which holds the
    /// lock since `BEGIN`) or when the lock is already held; release with
    /// [`JetHandle::unlock_statement`].
    pub fn lock_for_statement(&self) -> Result<()> {
        if !self.options.writable {
            return Ok(());
        }
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        let mut st = self.lock()?;
        if st.explicit.is_some() || st.statement.is_some() {
            return Ok(());
        }
        let writer = self.open_writer(&path)?;
        st.db = self.reopen(&path)?;
        st.statement = Some(writer);
        Ok(())
    }

    /// Releases the lock [`JetHandle::lock_for_statement`] took.
    pub fn unlock_statement(&self) {
        if let Ok(mut st) = self.lock() {
            st.statement = None;
        }
    }

    /// Runs one statement's write: `prepare` reads the committed image (to
    /// choose rows), then `apply` changes it in one transaction. Outside an
    /// explicit transaction the change is committed through the journal
    /// and the read side reopened; inside one it joins the transaction.
    /// Under [`JetHandle::lock_for_statement`] the held writer is used;
    /// otherwise the writer lock is taken here (then only `prepare` is
    /// guaranteed to read under it).
    pub fn write<P, R>(
        &self,
        prepare: impl FnOnce(&Database) -> Result<P>,
        apply: impl FnOnce(&mut Transaction<'_>, P) -> WResult<R>,
    ) -> Result<R> {
        let path = self.writable_path()?.clone();
        let mut st = self.lock()?;
        if let Some(ex) = st.explicit.as_mut() {
            let db = ex.mem.database().map_err(to_df)?;
            let p = prepare(&db)?;
            let out = ex.mem.transaction(|tx| apply(tx, p)).map_err(to_df)?;
            st.db = ex_db(st.explicit.as_ref())?;
            return Ok(out);
        }
        if let Some(writer) = st.statement.as_mut() {
            let db = writer.database().map_err(to_df)?;
            let p = prepare(&db)?;
            drop(db);
            // on an error the file is not read again here: a journal left
            // by an uncertain commit is decided by the next statement's
            // lock (recovery), and the error itself must reach the user
            let out = writer.transaction(|tx| apply(tx, p)).map_err(to_df)?;
            st.db = self.reopen(&path)?;
            return Ok(out);
        }
        let mut writer = self.open_writer(&path)?;
        let db = writer.database().map_err(to_df)?;
        let p = prepare(&db)?;
        drop(db);
        let out = writer.transaction(|tx| apply(tx, p)).map_err(to_df)?;
        drop(writer);
        st.db = self.reopen(&path)?;
        Ok(out)
    }

    /// `BEGIN`: later statements collect their changes in memory until
    /// [`JetHandle::commit`]; the file's writer lock is held meanwhile.
    pub fn begin(&self) -> Result<()> {
        let path = self.writable_path()?.clone();
        let mut st = self.lock()?;
        if st.explicit.is_some() {
            return Err(err("a transaction is already open (BEGIN inside BEGIN)"));
        }
        let file = self.open_writer(&path)?;
        let base = std::fs::read(&path).map_err(DataFusionError::IoError)?;
        let mem = Writer::with_password(
            MemImage {
                bytes: base.clone(),
            },
            self.options.password.as_ref(),
        )
        .map_err(to_df)?;
        st.explicit = Some(Explicit { file, base, mem });
        st.db = ex_db(st.explicit.as_ref())?;
        Ok(())
    }

    /// `COMMIT`: every change since `BEGIN` reaches the file in one
    /// journaled commit.
    pub fn commit(&self) -> Result<()> {
        let path = self.writable_path()?.clone();
        let mut st = self.lock()?;
        let Some(ex) = st.explicit.take() else {
            return Err(err("COMMIT without BEGIN"));
        };
        let version = ex.mem.version();
        let new = ex.mem.into_target().bytes;
        let changes = diff(&ex.base, &new, version.layout().page_size)?;
        let mut target = ex.file.into_target();
        if !changes.is_empty() {
            target.commit(&changes).map_err(to_df)?;
        }
        drop(target);
        st.db = self.reopen(&path)?;
        Ok(())
    }

    /// `ROLLBACK`: forgets every change since `BEGIN`; the file was never
    /// touched.
    pub fn rollback(&self) -> Result<()> {
        let path = self.writable_path()?.clone();
        let mut st = self.lock()?;
        if st.explicit.take().is_none() {
            return Err(err("ROLLBACK without BEGIN"));
        }
        st.db = self.reopen(&path)?;
        Ok(())
    }
}

fn ex_db(ex: Option<&Explicit>) -> Result<Database> {
    let ex = ex.ok_or_else(|| DataFusionError::Internal("no explicit transaction".into()))?;
    ex.mem.database().map_err(to_df)
}

/// The pages of `new` that differ from `old` (both whole images).
fn diff(old: &[u8], new: &[u8], page_size: usize) -> Result<ImageChanges> {
    let pages = |b: &[u8]| {
        u32::try_from(b.len() / page_size)
            .map_err(|_| DataFusionError::Internal("image too large".into()))
    };
    let (old_pages, new_pages) = (pages(old)?, pages(new)?);
    let mut changed = BTreeMap::new();
    for (n, page) in new.chunks(page_size).enumerate() {
        let o = old.get(n * page_size..(n + 1) * page_size);
        if o != Some(page) {
            let n = u32::try_from(n).map_err(|_| DataFusionError::Internal("page".into()))?;
            changed.insert(n, page.to_vec().into_boxed_slice());
        }
    }
    Ok(ImageChanges {
        page_size,
        old_pages,
        new_pages,
        pages: changed,
    })
}

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
        let plan = crate::table::seek_plan(t, db.version(), self.pushdown, &self.filters)?;
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
        let batch_size = self.handle.options.batch_size.max(1);
        let predicate = self.predicate.clone();
        let kind = self.kind.clone();
        let rows = self.rows.clone();
        self.handle.write(
            |db| {
                let t = db.table(&table).map_err(to_df)?;
                let complex = db.complex_columns(&t).map_err(to_df)?;
                // a complex column is set to a list of the type the read
                // side gives it
                let targets = jet_storage::complex::list_schema(&t.schema(), &complex);
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
                                .ok_or_else(|| err("the WHERE clause is not boolean"))?;
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
                                err(format!("table {table:?} has no column {name:?}"))
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
