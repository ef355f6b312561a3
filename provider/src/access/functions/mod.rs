//! (placeholder until the function library lands)
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use std::sync::Arc;
/// The Access scalar functions.
pub fn scalar_functions() -> Vec<Arc<ScalarUDF>> {
    Vec::new()
}
/// The Access aggregate functions.
pub fn aggregate_functions() -> Vec<Arc<AggregateUDF>> {
    Vec::new()
}
