//! Results as Arrow C streams: the `RecordBatchStream` class implements
//! the Arrow PyCapsule interface (`__arrow_c_stream__`,
//! `__arrow_c_schema__`), so pyarrow, Polars, DuckDB and pandas read its
//! batches one at a time, without copies.
//!
//! Three readers feed it: batches already collected (`Database.read`,
//! `Database.sql`), a table scan decoding pages as it is read, and a
//! DataFusion query stream run on the module's runtime.

use datafusion::arrow::array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::ffi::FFI_ArrowSchema;
use datafusion::arrow::ffi_stream::FFI_ArrowArrayStream;
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::sync::Mutex;

/// An error carried through the C stream interface to the consumer. Its
/// text never holds a NUL byte (the interface passes a C string).
#[derive(Debug)]
struct StreamError(String);

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StreamError {}

/// An Arrow error for the consumer of a stream, with `message`.
fn stream_error(message: &str) -> ArrowError {
    ArrowError::ExternalError(Box::new(StreamError(message.replace('\0', "\\0"))))
}

/// A table scan as a batch reader: pages are decoded as batches are asked
/// for. It keeps its database (and so the file's lock) alive.
pub struct ScanReader {
    /// The storage scan.
    pub scan: jet_storage::TableScan,
    /// The columns it yields.
    pub schema: SchemaRef,
    /// Held until the reader is dropped.
    pub _db: jet_storage::Database,
}

impl Iterator for ScanReader {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.scan
            .next()
            .map(|b| b.map_err(|e| stream_error(&e.to_string())))
    }
}

impl RecordBatchReader for ScanReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// A DataFusion query's stream as a batch reader: each batch is computed
/// on the module's runtime when asked for.
pub struct QueryReader {
    /// The running plan's output.
    pub stream: SendableRecordBatchStream,
    /// Its schema.
    pub schema: SchemaRef,
}

impl Iterator for QueryReader {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        let rt = match crate::runtime::runtime() {
            Ok(rt) => rt,
            Err(_) => return Some(Err(stream_error("the query runtime is not available"))),
        };
        // the plan's partitions run as tasks on the runtime; this thread
        // only waits for the next batch
        let _entered = rt.enter();
        futures::executor::block_on(self.stream.next()).map(|b| {
            b.map_err(|e| stream_error(&jet_provider::messages::plain(&e.find_root().to_string())))
        })
    }
}

impl RecordBatchReader for QueryReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// A one-shot stream of record batches, for any Arrow consumer:
/// `pyarrow.RecordBatchReader.from_stream(s)`, `polars.from_arrow(s)`,
/// `duckdb.sql("SELECT … FROM s")`. It can be read once.
#[pyclass(frozen, module = "jetsql._jetsql", name = "RecordBatchStream")]
pub struct Stream {
    schema: SchemaRef,
    reader: Mutex<Option<Box<dyn RecordBatchReader + Send>>>,
}

impl Stream {
    /// A stream over `reader`.
    pub fn new(reader: Box<dyn RecordBatchReader + Send>) -> Stream {
        Stream {
            schema: reader.schema(),
            reader: Mutex::new(Some(reader)),
        }
    }

    /// A stream over batches already computed.
    pub fn from_batches(schema: SchemaRef, batches: Vec<RecordBatch>) -> Stream {
        let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
        Stream::new(Box::new(reader))
    }
}

/// The Arrow C schema of `schema` in a capsule named "arrow_schema".
pub fn schema_capsule<'py>(
    py: Python<'py>,
    schema: &datafusion::arrow::datatypes::Schema,
) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema)
        .map_err(|e| crate::errors::Error::new_err(format!("cannot export the schema: {e}")))?;
    PyCapsule::new_with_value(py, ffi, c"arrow_schema")
}

#[pymethods]
impl Stream {
    /// The Arrow C schema of the stream's batches (Arrow PyCapsule
    /// interface).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }

    /// The Arrow C stream of the batches (Arrow PyCapsule interface); the
    /// stream is handed over once. `requested_schema` is accepted and
    /// ignored: the batches keep the database's types.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = self
            .reader
            .lock()
            .map_err(|_| crate::errors::Error::new_err("the stream's lock is poisoned"))?
            .take()
            .ok_or_else(|| {
                crate::errors::Error::new_err(
                    "this stream was read already (a stream can be read once; run the query again)",
                )
            })?;
        PyCapsule::new_with_value(py, FFI_ArrowArrayStream::new(reader), c"arrow_array_stream")
    }

    /// Whether the stream was handed to a consumer already.
    #[getter]
    fn consumed(&self) -> PyResult<bool> {
        Ok(self
            .reader
            .lock()
            .map_err(|_| crate::errors::Error::new_err("the stream's lock is poisoned"))?
            .is_none())
    }
}
