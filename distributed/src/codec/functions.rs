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

/// Writes the marker for `f` when it is Access's, else lets `other` (the
/// wrapped codec) write what it writes.
pub fn encode_scalar(
    f: &ScalarUDF,
    buf: &mut Vec<u8>,
    other: impl FnOnce(&mut Vec<u8>) -> Result<()>,
) -> Result<()> {
    if access::is_access_scalar(f) {
        buf.extend_from_slice(ACCESS);
        Ok(())
    } else {
        other(buf)
    }
}

/// The Access function `name` (size-checked against `limit`) when `buf`
/// is the marker, else what `other` (the wrapped codec) decodes.
pub fn decode_scalar(
    name: &str,
    buf: &[u8],
    limit: u64,
    other: impl FnOnce() -> Result<Arc<ScalarUDF>>,
) -> Result<Arc<ScalarUDF>> {
    if buf == ACCESS {
        access::access_scalar(name, limit).ok_or_else(|| unknown("function", name))
    } else {
        other()
    }
}

/// As [`encode_scalar`] for aggregates.
pub fn encode_aggregate(
    f: &AggregateUDF,
    buf: &mut Vec<u8>,
    other: impl FnOnce(&mut Vec<u8>) -> Result<()>,
) -> Result<()> {
    if access::is_access_aggregate(f) {
        buf.extend_from_slice(ACCESS);
        Ok(())
    } else {
        other(buf)
    }
}

/// As [`decode_scalar`] for aggregates.
pub fn decode_aggregate(
    name: &str,
    buf: &[u8],
    other: impl FnOnce() -> Result<Arc<AggregateUDF>>,
) -> Result<Arc<AggregateUDF>> {
    if buf == ACCESS {
        access::access_aggregate(name).ok_or_else(|| unknown("aggregate", name))
    } else {
        other()
    }
}

fn unknown(what: &str, name: &str) -> DataFusionError {
    DataFusionError::Plan(format!(
        "the plan calls Access {what} {name:?}, which this jetsql node does not have (are client and cluster the same jetsql version?)"
    ))
}
