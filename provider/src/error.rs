//! Errors as DataFusion reports them: storage errors wrapped whole, and the
//! one way a statement is refused.

use datafusion::error::DataFusionError;

/// Converts a storage error into a DataFusion error; the message keeps the
/// table, page and offset the storage error names.
pub fn to_df(e: jet_storage::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// A statement refused while it is planned or checked: `msg` is the whole
/// message the user reads (DataFusion prefixes "Error during planning: ").
pub(crate) fn refuse(msg: impl Into<String>) -> DataFusionError {
    DataFusionError::Plan(msg.into())
}
