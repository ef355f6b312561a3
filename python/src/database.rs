//! The native `Database` class behind `jetsql.open`: one Access file
//! registered on its own jetsql session. Python-facing conversions (to
//! pyarrow, pandas) live in `jetsql/__init__.py`; this class hands out
//! Arrow streams and runs statements.
//!
//! Every call that reads pages or runs a query releases the GIL; calls
//! that wait for a query look for Ctrl-C while they wait (see
//! [`crate::runtime::wait`]). The file's lock is held from `open` until
//! `close` (or until the last stream and table provider taken from the
//! database are gone): shared when read-only, and when writable the
//! writer's lock is taken for each statement or transaction.

use crate::errors::{self, from_df, from_storage};
use crate::runtime::wait;
use crate::stream::{QueryReader, ScanReader, Stream, schema_capsule};
use datafusion::arrow::array::{RecordBatch, UInt64Array};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::DataFusionError;
use jet_provider::{JetHandle, JetOptions, JetSchemaProvider, JetSession, SqlDialect};
use jet_storage::{OpenOptions, Password, ScanOptions};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What an open database holds.
struct Open {
    session: Arc<JetSession>,
    handle: Arc<JetHandle>,
    catalog: String,
}

/// An open Access database (`jetsql.open`).
#[pyclass(frozen, module = "jetsql._jetsql", name = "Database")]
pub struct Database {
    path: PathBuf,
    writable: bool,
    open: Mutex<Option<Open>>,
}

/// The Arrow schema of a table, for `pyarrow.schema(...)` (Arrow
/// PyCapsule interface).
#[pyclass(frozen, module = "jetsql._jetsql", name = "ArrowSchema")]
pub struct ArrowSchema {
    schema: SchemaRef,
}

#[pymethods]
impl ArrowSchema {
    /// The Arrow C schema (Arrow PyCapsule interface).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }
}

/// The message for a file that did not open, naming it (never the
/// password).
fn open_error(path: &Path, e: &jet_storage::Error) -> PyErr {
    let kind = errors::storage_kind(e);
    match e {
        jet_storage::Error::Format(jet_storage::FormatError::NotAFile { .. }) => {
            kind.to_py(e.to_string())
        }
        _ => kind.to_py(format!("{}: {e}", path.display())),
    }
}

/// Opens `path` and registers it on a new session.
fn open_file(
    path: &Path,
    password: Option<&str>,
    writable: bool,
    dialect: SqlDialect,
) -> PyResult<Open> {
    let options = OpenOptions {
        password: password.map(Password::from),
        ..OpenOptions::default()
    };
    let db = jet_storage::Database::open(path, options).map_err(|e| open_error(path, &e))?;
    // the shell's session, so a statement answers here as it does there
    let session =
        jet_provider::session::new_session(jet_provider::frontdoor::default_memory_limit())
            .map_err(|e| from_df(&e))?;
    session.set_dialect(dialect);
    let jet = JetOptions {
        writable,
        password: password.map(Password::from),
        ..JetOptions::default()
    };
    // named as the shell names it; its tables also answer to bare names
    let catalog = jet_provider::session::catalog_name(path);
    let handle = session
        .register_database(&catalog, db, jet, true)
        .map_err(|e| from_df(&e))?;
    Ok(Open {
        session: Arc::new(session),
        handle,
        catalog,
    })
}

/// A query's result: computed, or running as a stream.
enum Rows {
    Collected(SchemaRef, Vec<RecordBatch>),
    Streaming(SchemaRef, datafusion::execution::SendableRecordBatchStream),
}

/// The single count of a write's result (`INSERT`, `UPDATE`, `DELETE`,
/// `CREATE TABLE … AS`), if that is what `batches` hold.
fn row_count(batches: &[RecordBatch]) -> Option<u64> {
    let [b] = batches else { return None };
    if b.num_columns() != 1 || b.num_rows() != 1 || b.schema().field(0).name() != "count" {
        return None;
    }
    b.column(0)
        .as_any()
        .downcast_ref::<UInt64Array>()
        .map(|a| a.value(0))
}

impl Database {
    /// Runs `f` on the open database, or says it is closed.
    fn with_open<T>(&self, f: impl FnOnce(&Open) -> PyResult<T>) -> PyResult<T> {
        let guard = self
            .open
            .lock()
            .map_err(|_| errors::Error::new_err("the database's lock is poisoned"))?;
        match guard.as_ref() {
            Some(open) => f(open),
            None => Err(errors::Error::new_err(format!(
                "{}: the database is closed",
                self.path.display()
            ))),
        }
    }

    fn session(&self) -> PyResult<Arc<JetSession>> {
        self.with_open(|o| Ok(o.session.clone()))
    }

    /// The storage table `name` (exact spelling first, then ignoring case)
    /// of the database as it is now.
    fn table(&self, name: &str) -> PyResult<(jet_storage::Database, jet_storage::Table)> {
        self.with_open(|o| {
            let db = o.handle.database().map_err(|e| from_df(&e))?;
            let names = db.table_names();
            let real = names
                .iter()
                .find(|n| *n == name)
                .or_else(|| {
                    let l = name.to_lowercase();
                    names.iter().find(|n| n.to_lowercase() == l)
                })
                .cloned()
                .ok_or_else(|| {
                    errors::Error::new_err(format!(
                        "{}: no table named {name:?}",
                        self.path.display()
                    ))
                })?;
            let t = db.table(&real).map_err(|e| from_storage(&e))?;
            Ok((db, t))
        })
    }

    /// Runs a statement to completion, returning its last result.
    fn run_sql(&self, py: Python<'_>, sql: String) -> PyResult<Vec<RecordBatch>> {
        let session = self.session()?;
        wait(py, async move { session.sql(&sql).await })?.map_err(|e| from_df(&e))
    }
}

/// Column positions of `columns` in `schema` (exact spelling first, then
/// ignoring case), in the order given.
fn projection(table: &jet_storage::Table, columns: &[String]) -> PyResult<Vec<usize>> {
    let schema = table.schema();
    let mut out = Vec::with_capacity(columns.len());
    for c in columns {
        let found = schema.index_of(c).ok().or_else(|| {
            let l = c.to_lowercase();
            schema
                .fields()
                .iter()
                .position(|f| f.name().to_lowercase() == l)
        });
        let Some(i) = found else {
            return Err(errors::Error::new_err(format!(
                "table {:?} has no column {c:?}",
                table.name()
            )));
        };
        if out.contains(&i) {
            return Err(errors::Error::new_err(format!(
                "column {c:?} is asked for twice"
            )));
        }
        out.push(i);
    }
    Ok(out)
}

#[pymethods]
impl Database {
    /// Opens the Access database at `path` (`.mdb`, `.accdb`), with its
    /// `password` when it has one; writable only with `write=True`.
    /// `dialect` is the SQL `sql` and `execute` read: "access" (the
    /// default) or "datafusion".
    #[new]
    #[pyo3(signature = (path, password=None, write=false, dialect="access"))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        password: Option<String>,
        write: bool,
        dialect: &str,
    ) -> PyResult<Database> {
        let dialect: SqlDialect = dialect
            .parse()
            .map_err(|e: String| pyo3::exceptions::PyValueError::new_err(e))?;
        let p = path.clone();
        let open = py.detach(move || open_file(&p, password.as_deref(), write, dialect))?;
        Ok(Database {
            path,
            writable: write,
            open: Mutex::new(Some(open)),
        })
    }

    /// The path the database was opened from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Whether the database accepts writes (opened with `write=True`).
    #[getter]
    fn writable(&self) -> bool {
        self.writable
    }

    /// The catalog name of the database in SQL (the file's stem,
    /// lower-cased): `nwind.public.orders` names a table too.
    #[getter]
    fn catalog(&self) -> PyResult<String> {
        self.with_open(|o| Ok(o.catalog.clone()))
    }

    /// Whether the database is closed.
    #[getter]
    fn closed(&self) -> PyResult<bool> {
        Ok(self
            .open
            .lock()
            .map_err(|_| errors::Error::new_err("the database's lock is poisoned"))?
            .is_none())
    }

    /// The names of the user tables, in catalog order.
    fn tables(&self) -> PyResult<Vec<String>> {
        self.with_open(|o| Ok(o.handle.database().map_err(|e| from_df(&e))?.table_names()))
    }

    /// The Arrow schema of table `name`, with the Jet metadata of each
    /// column (`jet.type`, `jet.length`, …).
    fn schema(&self, name: &str) -> PyResult<ArrowSchema> {
        let (_, t) = self.table(name)?;
        Ok(ArrowSchema { schema: t.schema() })
    }

    /// Table `name` as a stream of record batches: the `columns` given
    /// (all by default), at most `limit` rows. With `collect` every batch
    /// is read now (GIL released, Ctrl-C checked between batches);
    /// otherwise pages are decoded as the stream is read.
    #[pyo3(signature = (name, columns=None, limit=None, collect=false))]
    fn scan(
        &self,
        py: Python<'_>,
        name: &str,
        columns: Option<Vec<String>>,
        limit: Option<usize>,
        collect: bool,
    ) -> PyResult<Stream> {
        let (db, t) = self.table(name)?;
        let projection = columns.map(|c| projection(&t, &c)).transpose()?;
        let schema = t
            .projected_schema(projection.as_deref())
            .map_err(|e| from_storage(&e))?;
        let options = ScanOptions {
            projection,
            limit,
            ..ScanOptions::default()
        };
        let scan = t.scan(options).map_err(|e| from_storage(&e))?;
        let mut reader = ScanReader {
            scan,
            schema: schema.clone(),
            _db: db,
        };
        if !collect {
            return Ok(Stream::new(Box::new(reader)));
        }
        let mut batches = Vec::new();
        loop {
            let next = py.detach(|| reader.scan.next());
            match next {
                None => break,
                Some(Ok(b)) => batches.push(b),
                Some(Err(e)) => return Err(from_storage(&e)),
            }
            py.check_signals()?;
        }
        Ok(Stream::from_batches(schema, batches))
    }

    /// Runs `query` (SQL in the database's dialect; several statements
    /// run in order and the last one's rows are returned) as a stream.
    /// With `collect` the whole result is computed now (GIL released,
    /// Ctrl-C cancels it); otherwise the query runs as the stream is read.
    #[pyo3(signature = (query, collect=false))]
    fn query(&self, py: Python<'_>, query: String, collect: bool) -> PyResult<Stream> {
        let session = self.session()?;
        let planned = wait(py, async move {
            jet_provider::frontdoor::catch_panic(async {
                let df = session.sql_frame(&query).await?;
                let schema: SchemaRef = Arc::new(df.schema().as_arrow().clone());
                Ok::<_, DataFusionError>(if collect {
                    Rows::Collected(schema, df.collect().await?)
                } else {
                    Rows::Streaming(schema, df.execute_stream().await?)
                })
            })
            .await
        })?
        .map_err(|e| from_df(&e))?;
        Ok(match planned {
            Rows::Collected(schema, batches) => Stream::from_batches(schema, batches),
            Rows::Streaming(schema, stream) => {
                Stream::new(Box::new(QueryReader { stream, schema }))
            }
        })
    }

    /// Runs `statement` (several, separated by `;`, run in order) and
    /// returns the number of rows the last one wrote, or `None` when it
    /// does not count rows (DDL, `BEGIN`, a query). Outside a
    /// transaction each statement that writes is one journaled
    /// transaction.
    fn execute(&self, py: Python<'_>, statement: String) -> PyResult<Option<u64>> {
        Ok(row_count(&self.run_sql(py, statement)?))
    }

    /// Starts a transaction: later statements change the file only at
    /// `commit` (all at once), never after `rollback`.
    fn begin(&self, py: Python<'_>) -> PyResult<()> {
        self.run_sql(py, "BEGIN".into()).map(|_| ())
    }

    /// Commits the open transaction in one journaled write.
    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        self.run_sql(py, "COMMIT".into()).map(|_| ())
    }

    /// Forgets every change of the open transaction.
    fn rollback(&self, py: Python<'_>) -> PyResult<()> {
        self.run_sql(py, "ROLLBACK".into()).map(|_| ())
    }

    /// Whether a transaction is open.
    #[getter]
    fn in_transaction(&self) -> PyResult<bool> {
        self.with_open(|o| Ok(o.handle.in_transaction()))
    }

    /// Table `name` as a DataFusion table provider for datafusion-python
    /// (`SessionContext.register_table`), with filter pushdown: indexed
    /// predicates become index seeks.
    fn table_provider(&self, name: &str) -> PyResult<crate::provider::TableProvider> {
        let handle = self.with_open(|o| Ok(o.handle.clone()))?;
        let schema = JetSchemaProvider::with_handle(handle);
        let table = schema
            .jet_table(name)
            .map_err(|e| from_df(&e))?
            .ok_or_else(|| {
                errors::Error::new_err(format!("{}: no table named {name:?}", self.path.display()))
            })?;
        Ok(crate::provider::TableProvider::new(table))
    }

    /// Closes the database: the session and the file's lock are released
    /// (streams and table providers taken from it keep the file open until
    /// they are gone). Closing twice is allowed.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let open = self
            .open
            .lock()
            .map_err(|_| errors::Error::new_err("the database's lock is poisoned"))?
            .take();
        // an open transaction is forgotten, as on ROLLBACK
        py.detach(move || drop(open));
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "jetsql.Database({:?}{})",
            self.path.display().to_string(),
            if self.writable { ", write=True" } else { "" }
        )
    }
}
