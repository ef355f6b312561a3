//! A saved query that cannot be run: it answers to its name like any view,
//! and any use of it is an error naming the query and what stopped it.

use async_trait::async_trait;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::{Session, TableProvider};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_plan::ExecutionPlan;
use jet_storage::SavedQuery;
use std::sync::Arc;

/// A saved query that cannot be run: listed like any view (with its SQL
/// text), but any use of it is an error naming the query and the reason.
#[derive(Debug)]
pub struct UnrunnableQuery {
    name: String,
    sql: Option<String>,
    message: String,
    schema: SchemaRef,
}

impl UnrunnableQuery {
    /// The stand-in for `query`, which planning refused with `e`.
    pub(super) fn new(query: &SavedQuery, e: &DataFusionError) -> Self {
        let reason = reason_of(e);
        UnrunnableQuery {
            name: query.name.clone(),
            sql: (!query.sql.is_empty()).then(|| query.sql.clone()),
            message: format!("saved query \"{}\" cannot be run: {reason}", query.name),
            schema: Arc::new(Schema::empty()),
        }
    }

    /// The query's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The error any use of the query gives.
    pub fn error(&self) -> DataFusionError {
        DataFusionError::Plan(self.message.clone())
    }
}

#[async_trait]
impl TableProvider for UnrunnableQuery {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn table_type(&self) -> TableType {
        TableType::View
    }
    fn get_table_definition(&self) -> Option<&str> {
        self.sql.as_deref()
    }
    async fn scan(
        &self,
        _state: &dyn Session,
        _projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Err(self.error())
    }
}

/// A planning error's own words, without DataFusion's "Error during
/// planning: " prefix (the message is wrapped in another).
pub(crate) fn reason_of(e: &DataFusionError) -> String {
    match e {
        DataFusionError::Plan(m) => m.clone(),
        DataFusionError::Context(_, inner) => reason_of(inner),
        other => {
            let text = other.to_string();
            text.strip_prefix("Error during planning: ")
                .unwrap_or(&text)
                .to_string()
        }
    }
}
