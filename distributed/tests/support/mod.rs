//! Helpers shared by the distributed tests.

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;

/// A runtime of two worker threads (the machine's cores).
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The rows of `batches` as a printed table, one line each.
pub fn lines(batches: &[RecordBatch]) -> Vec<String> {
    pretty_format_batches(batches)
        .unwrap()
        .to_string()
        .lines()
        .map(str::to_string)
        .collect()
}
