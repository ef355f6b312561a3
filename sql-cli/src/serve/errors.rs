//! Errors as PostgreSQL clients read them: a SQLSTATE code by kind
//! (syntax 42601, unknown table 42P01, unknown column 42703, a feature
//! not supported 0A000, out of memory 53200, read-only 25006, bad data
//! 22000), and the people-facing message the shell prints.

use datafusion::error::DataFusionError;
use pgwire::error::{ErrorInfo, PgWireError};

/// An `ERROR` with `code` and `message`.
pub fn error(code: &str, message: impl Into<String>) -> PgWireError {
    PgWireError::UserError(Box::new(info(code, message)))
}

/// The `ErrorInfo` of an `ERROR` with `code` and `message`.
pub fn info(code: &str, message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new("ERROR".to_string(), code.to_string(), message.into())
}

/// The SQLSTATE and message of an engine error.
pub fn from_engine(e: &DataFusionError) -> ErrorInfo {
    let message = jet_provider::messages::plain(&e.to_string());
    info(sqlstate(e, &message), message)
}

fn sqlstate(e: &DataFusionError, message: &str) -> &'static str {
    let inner = e.find_root();
    let lower = message.to_ascii_lowercase();
    match inner {
        DataFusionError::SQL(..) => "42601",
        _ if lower.starts_with("syntax error") || lower.contains("sql parser error") => "42601",
        DataFusionError::ResourcesExhausted(_) => "53200",
        DataFusionError::NotImplemented(_) => "0A000",
        DataFusionError::SchemaError(..) if lower.contains("field") || lower.contains("column") => {
            "42703"
        }
        _ if lower.contains("read-only") || lower.contains("--write") => "25006",
        _ if lower.contains("no table or column") || lower.contains("no column") => "42703",
        _ if lower.contains("table")
            && (lower.contains("not found") || lower.contains("no table")) =>
        {
            "42P01"
        }
        _ if lower.contains("not supported") => "0A000",
        DataFusionError::Plan(_) => "42000",
        DataFusionError::ArrowError(..) | DataFusionError::Execution(_) => "22000",
        _ => "XX000",
    }
}
