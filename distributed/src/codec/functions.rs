//! Access's functions in plans. DataFusion names a function in a plan by
//! its name alone and looks it up in the receiving process; Access's
//! `Log`, `Round`, `Replace`, … share names with DataFusion functions of
//! other meanings. So an Access function is sent with a marker, and
//! decoded as Access's whatever the receiver has registered under its
//! name; a function without the marker is DataFusion's.

use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use jet_provider::access::functions as access;
use std::sync::Arc;

/// The marker of an Access function.
const ACCESS: &[u8] = b"jetsql:access";

/// Writes the marker for `f` when it is Access's; `Ok(false)` when it is
/// not (another codec's turn).
pub fn encode_scalar(f: &ScalarUDF, buf: &mut Vec<u8>) -> bool {
    if access::is_access_scalar(f) {
        buf.extend_from_slice(ACCESS);
        true
    } else {
        false
    }
}

/// The Access function `name` when `buf` is the marker; `None` when it is
/// not (another codec's bytes).
pub fn decode_scalar(name: &str, buf: &[u8], limit: u64) -> Option<Result<Arc<ScalarUDF>>> {
    (buf == ACCESS)
        .then(|| access::access_scalar(name, limit).ok_or_else(|| unknown("function", name)))
}

/// As [`encode_scalar`] for aggregates.
pub fn encode_aggregate(f: &AggregateUDF, buf: &mut Vec<u8>) -> bool {
    if access::is_access_aggregate(f) {
        buf.extend_from_slice(ACCESS);
        true
    } else {
        false
    }
}

/// As [`decode_scalar`] for aggregates.
pub fn decode_aggregate(name: &str, buf: &[u8]) -> Option<Result<Arc<AggregateUDF>>> {
    (buf == ACCESS)
        .then(|| access::access_aggregate(name).ok_or_else(|| unknown("aggregate", name)))
}

fn unknown(what: &str, name: &str) -> DataFusionError {
    DataFusionError::Plan(format!(
        "the plan calls Access {what} {name:?}, which this jetsql node does not have (are client and cluster the same jetsql version?)"
    ))
}
