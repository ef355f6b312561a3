//! The logical codec: Jet tables in the plans a client sends a scheduler.
//! A table travels as its file, table name and reading options; the
//! scheduler opens the file itself (with its own password for it) to plan.
//! A multi-file table travels with every file's columns, so the scheduler
//! plans without opening the archive.

use super::functions;
use super::tables;
use crate::node::Node;
use crate::slice::ClusterTable;
use crate::wire::{self, JetNode, jet_node::Kind};
use ballista_core::serde::BallistaLogicalExtensionCodec;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, Extension, LogicalPlan, ScalarUDF};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use jet_provider::{JetFilesTable, JetTable};
use std::sync::Arc;

/// Ballista's logical codec plus Jet tables (`JetTable`, `JetFilesTable`)
/// and Access's functions. Install it in the client's session config and
/// in the scheduler.
#[derive(Debug)]
pub struct JetLogicalCodec {
    inner: BallistaLogicalExtensionCodec,
    node: Arc<Node>,
}

impl JetLogicalCodec {
    /// The codec of a process configured as `node`.
    pub fn new(node: Arc<Node>) -> Self {
        JetLogicalCodec {
            inner: BallistaLogicalExtensionCodec::default(),
            node,
        }
    }
}

impl LogicalExtensionCodec for JetLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let Some(node) = wire::decode(buf) else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let node = node.map_err(|e| bad(table_ref, e))?;
        let provider: Arc<dyn TableProvider> = match node.kind {
            Some(Kind::Table(t)) => Arc::new(tables::open_table(&self.node, &t)?),
            Some(Kind::Files(f)) => Arc::new(tables::files_table(&f)?),
            _ => return Err(bad(table_ref, "not a table")),
        };
        tables::same_columns(table_ref, &schema, &provider.schema())?;
        Ok(Arc::new(ClusterTable::new(provider)))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let node = match (node.as_ref() as &dyn std::any::Any).downcast_ref::<ClusterTable>() {
            Some(c) => c.inner().clone(),
            None => node,
        };
        let any = node.as_ref() as &dyn std::any::Any;
        let kind = if let Some(t) = any.downcast_ref::<JetTable>() {
            Kind::Table(tables::table_message(t)?)
        } else if let Some(t) = any.downcast_ref::<JetFilesTable>() {
            Kind::Files(tables::files_message(t)?)
        } else {
            return self.inner.try_encode_table_provider(table_ref, node, buf);
        };
        wire::encode(&JetNode { kind: Some(kind) }, buf);
        Ok(())
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        functions::decode_scalar(name, buf, self.node.memory_limit, || {
            self.inner.try_decode_udf(name, buf)
        })
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        functions::encode_scalar(node, buf, |buf| self.inner.try_encode_udf(node, buf))
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        functions::decode_aggregate(name, buf, || self.inner.try_decode_udaf(name, buf))
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        functions::encode_aggregate(node, buf, |buf| self.inner.try_encode_udaf(node, buf))
    }
}

fn bad(table: &TableReference, why: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Plan(format!(
        "the description of table {table} sent to this node is not valid: {why}"
    ))
}
