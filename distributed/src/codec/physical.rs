//! The physical codec: Jet plans in the tasks a scheduler sends its
//! executors. A scan travels as its file, table, columns, page ranges and
//! limit; a seek as its index and encoded key ranges with its re-check
//! filter; a multi-file scan as its files, partitions and filters. The
//! executor opens the files itself, with its own passwords.

use super::functions;
use super::logical::JetLogicalCodec;
use super::tables;
use crate::node::Node;
use crate::slice::TaskSliceExec;
use crate::wire::{self, JetNode, jet_node::Kind};
use ballista_core::serde::BallistaPhysicalExtensionCodec;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::{from_proto::parse_exprs, to_proto::serialize_exprs};
use datafusion_proto::physical_plan::{
    PhysicalExtensionCodec, PhysicalPlanDecodeContext, PhysicalProtoConverterExtension,
};
use jet_provider::archive::JetFilesExec;
use jet_provider::archive::{JetFilesPlan, PlanFile, Unit};
use jet_provider::{IndexSeekExec, JetScanExec, JetTable, Recheck};
use std::ops::Bound;
use std::path::PathBuf;
use std::sync::Arc;

/// Ballista's physical codec plus Jet plans (`JetScanExec`,
/// `IndexSeekExec`, `JetFilesExec`) and Access's functions. Install it in
/// the scheduler and every executor.
#[derive(Debug)]
pub struct JetPhysicalCodec {
    inner: BallistaPhysicalExtensionCodec,
    logical: JetLogicalCodec,
    node: Arc<Node>,
}

impl JetPhysicalCodec {
    /// The codec of a process configured as `node`.
    pub fn new(node: Arc<Node>) -> Self {
        JetPhysicalCodec {
            inner: BallistaPhysicalExtensionCodec::default(),
            logical: JetLogicalCodec::new(node.clone()),
            node,
        }
    }
}

fn invalid(what: &str, why: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Plan(format!("the {what} sent to this node is not valid: {why}"))
}

fn columns(c: Option<&wire::Columns>) -> Option<Vec<usize>> {
    c.map(|c| c.columns.iter().map(|&i| i as usize).collect())
}

fn columns_message(c: Option<&Vec<usize>>) -> Option<wire::Columns> {
    c.map(|c| wire::Columns {
        columns: c.iter().map(|&i| i as u64).collect(),
    })
}

/// Fails unless every column number is one of the table's.
fn check_columns(what: &str, t: &JetTable, cols: Option<&Vec<usize>>) -> Result<()> {
    let n = t.table().def().columns.len();
    match cols.and_then(|c| c.iter().find(|&&i| i >= n)) {
        Some(i) => Err(invalid(what, format!("column {i} of a table of {n}"))),
        None => Ok(()),
    }
}

fn bound_message(b: &Bound<Vec<u8>>) -> wire::KeyBound {
    match b {
        Bound::Unbounded => wire::KeyBound {
            kind: 0,
            key: Vec::new(),
        },
        Bound::Included(k) => wire::KeyBound {
            kind: 1,
            key: k.clone(),
        },
        Bound::Excluded(k) => wire::KeyBound {
            kind: 2,
            key: k.clone(),
        },
    }
}

fn bound_of(b: Option<&wire::KeyBound>) -> Result<Bound<Vec<u8>>> {
    match b {
        None => Ok(Bound::Unbounded),
        Some(b) => match b.kind {
            0 => Ok(Bound::Unbounded),
            1 => Ok(Bound::Included(b.key.clone())),
            2 => Ok(Bound::Excluded(b.key.clone())),
            k => Err(invalid("index seek", format!("key bound kind {k}"))),
        },
    }
}

impl JetPhysicalCodec {
    fn scan_message(&self, s: &JetScanExec) -> Result<wire::Scan> {
        let table = tables::table_message_of(s.db(), s.table().name(), true, s.batch_size())?;
        Ok(wire::Scan {
            table: Some(table),
            projection: columns_message(s.projection()),
            limit: s.limit().map(|l| l as u64),
            ranges: s
                .page_ranges()
                .iter()
                .map(|r| wire::PageRange {
                    start: r.start,
                    end: r.end,
                })
                .collect(),
        })
    }

    fn scan_of(&self, m: &wire::Scan) -> Result<JetScanExec> {
        let table = m
            .table
            .as_ref()
            .ok_or_else(|| invalid("scan", "no table"))?;
        let t = tables::open_table(&self.node, table)?;
        let projection = columns(m.projection.as_ref());
        check_columns("scan", &t, projection.as_ref())?;
        let ranges = m.ranges.iter().map(|r| r.start..r.end).collect();
        Ok(JetScanExec::try_new(
            t.table().clone(),
            t.db().clone(),
            t.complex_lists().clone(),
            projection,
            m.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX)),
            1,
            tables::batch_size(table.batch_size),
        )?
        .with_page_ranges(ranges))
    }

    fn seek_message(
        &self,
        s: &IndexSeekExec,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<wire::Seek> {
        let table = tables::table_message_of(s.db(), s.table().name(), true, s.batch_size())?;
        let recheck = match s.recheck() {
            None => None,
            Some(r) => Some(wire::Recheck {
                predicate: Some(converter.physical_expr_to_proto(&r.predicate, self)?),
                output: r.output.iter().map(|&i| i as u64).collect(),
            }),
        };
        Ok(wire::Seek {
            table: Some(table),
            index: s.index() as u64,
            index_name: s.index_name().to_string(),
            range_label: s.range_label().to_string(),
            ranges: s
                .ranges()
                .iter()
                .map(|(l, u)| wire::KeyRange {
                    lower: Some(bound_message(l)),
                    upper: Some(bound_message(u)),
                })
                .collect(),
            projection: columns_message(s.projection()),
            recheck,
        })
    }

    fn seek_of(
        &self,
        m: &wire::Seek,
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<IndexSeekExec> {
        let table = m
            .table
            .as_ref()
            .ok_or_else(|| invalid("index seek", "no table"))?;
        let t = tables::open_table(&self.node, table)?;
        let projection = columns(m.projection.as_ref());
        check_columns("index seek", &t, projection.as_ref())?;
        let index = usize::try_from(m.index).unwrap_or(usize::MAX);
        if t.table().index(index).is_err() {
            return Err(invalid(
                "index seek",
                format!("table {:?} has no index {}", table.table, m.index),
            ));
        }
        let ranges = m
            .ranges
            .iter()
            .map(|r| Ok((bound_of(r.lower.as_ref())?, bound_of(r.upper.as_ref())?)))
            .collect::<Result<Vec<_>>>()?;
        let seek = IndexSeekExec::try_new(
            t.table().clone(),
            t.db().clone(),
            t.complex_lists().clone(),
            index,
            m.index_name.clone(),
            m.range_label.clone(),
            ranges,
            projection,
            tables::batch_size(table.batch_size),
        )?;
        let Some(r) = &m.recheck else {
            return Ok(seek);
        };
        let predicate = r
            .predicate
            .as_ref()
            .ok_or_else(|| invalid("index seek", "a re-check without a predicate"))?;
        let decoded = seek.schema();
        let predicate = converter.proto_to_physical_expr(
            predicate,
            &decoded,
            &PhysicalPlanDecodeContext::new(ctx, self),
        )?;
        let output: Vec<usize> = r.output.iter().map(|&i| i as usize).collect();
        if let Some(i) = output.iter().find(|&&i| i >= decoded.fields().len()) {
            return Err(invalid(
                "index seek",
                format!("output column {i} of {}", decoded.fields().len()),
            ));
        }
        seek.with_recheck(Recheck { predicate, output })
    }

    fn files_message(&self, s: &JetFilesExec) -> Result<wire::FilesScan> {
        let plan = s.plan();
        let files = plan
            .files
            .iter()
            .map(|f| {
                Ok(wire::File {
                    path: tables::absolute(&f.path)?,
                    shown: f.shown.clone(),
                    size: f.size,
                    schema: 0,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let union =
            datafusion_proto::protobuf::Schema::try_from(plan.union.as_ref()).map_err(|e| {
                DataFusionError::Plan(format!("the table's columns cannot be sent: {e}"))
            })?;
        Ok(wire::FilesScan {
            table: plan.table.clone(),
            files,
            options: Some(tables::options_message(&plan.options)),
            union: Some(union),
            projection: plan.projection.iter().map(|&i| i as u64).collect(),
            filters: serialize_exprs(&plan.filters, &self.logical)?,
            limit: plan.limit.map(|l| l as u64),
            groups: plan
                .groups
                .iter()
                .map(|g| wire::Group {
                    units: g
                        .iter()
                        .flat_map(|u| [u.member as u64, u.part as u64, u.parts as u64])
                        .collect(),
                })
                .collect(),
        })
    }

    fn files_of(&self, m: &wire::FilesScan, ctx: &TaskContext) -> Result<JetFilesExec> {
        let union = m
            .union
            .as_ref()
            .ok_or_else(|| invalid("multi-file scan", "no columns"))?;
        let groups = m
            .groups
            .iter()
            .map(|g| {
                if g.units.len() % 3 != 0 {
                    return Err(invalid(
                        "multi-file scan",
                        "a partition's parts are cut short",
                    ));
                }
                Ok(g.units
                    .chunks_exact(3)
                    .map(|u| Unit {
                        member: usize::try_from(u[0]).unwrap_or(usize::MAX),
                        part: usize::try_from(u[1]).unwrap_or(usize::MAX),
                        parts: usize::try_from(u[2]).unwrap_or(usize::MAX),
                    })
                    .collect())
            })
            .collect::<Result<Vec<Vec<Unit>>>>()?;
        let plan = JetFilesPlan {
            table: m.table.clone(),
            files: m
                .files
                .iter()
                .map(|f| PlanFile {
                    path: PathBuf::from(&f.path),
                    shown: f.shown.clone(),
                    size: f.size,
                })
                .collect(),
            options: tables::options_of(m.options.as_ref()),
            union: tables::schema_of(union)?,
            projection: m.projection.iter().map(|&i| i as usize).collect(),
            filters: parse_exprs(&m.filters, ctx, &self.logical)?,
            limit: m.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX)),
            groups,
        };
        let node = self.node.clone();
        JetFilesExec::from_plan(plan, Arc::new(move |p| node.password_for(p)), ctx)
    }
}

impl JetPhysicalCodec {
    /// The message of a Jet scan; `None` when `node` is not one.
    fn encode_scan(
        &self,
        node: &dyn ExecutionPlan,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Option<Kind>> {
        Ok(Some(if let Some(s) = node.downcast_ref::<JetScanExec>() {
            Kind::Scan(self.scan_message(s)?)
        } else if let Some(s) = node.downcast_ref::<IndexSeekExec>() {
            Kind::Seek(Box::new(self.seek_message(s, converter)?))
        } else if let Some(s) = node.downcast_ref::<JetFilesExec>() {
            Kind::FilesScan(self.files_message(s)?)
        } else {
            return Ok(None);
        }))
    }

    /// The Jet scan a message describes.
    fn decode_scan(
        &self,
        kind: Option<Kind>,
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(match kind {
            Some(Kind::Scan(s)) => Arc::new(self.scan_of(&s)?),
            Some(Kind::Seek(s)) => Arc::new(self.seek_of(&s, ctx, converter)?),
            Some(Kind::FilesScan(s)) => Arc::new(self.files_of(&s, ctx)?),
            _ => return Err(invalid("plan", "not a Jet scan")),
        })
    }
}

impl PhysicalExtensionCodec for JetPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(node) = wire::decode(buf) else {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        };
        let node = node.map_err(|e| invalid("plan", e))?;
        match node.kind {
            Some(Kind::Slice(s)) => {
                use prost::Message;
                let [numbers] = inputs else {
                    return Err(invalid("plan", "a sliced scan has one input"));
                };
                let scan = JetNode::decode(s.scan.as_slice()).map_err(|e| invalid("plan", e))?;
                let scan = self.decode_scan(scan.kind, ctx, proto_converter)?;
                Ok(Arc::new(TaskSliceExec::try_new(scan, numbers.clone())?))
            }
            kind => {
                if !inputs.is_empty() {
                    return Err(invalid("plan", "a Jet scan has no inputs"));
                }
                self.decode_scan(kind, ctx, proto_converter)
            }
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let kind = if let Some(s) = node.downcast_ref::<TaskSliceExec>() {
            use prost::Message;
            let scan = self
                .encode_scan(s.scan().as_ref(), proto_converter)?
                .ok_or_else(|| {
                    DataFusionError::Internal(format!("{} is not a Jet scan", s.scan().name()))
                })?;
            Kind::Slice(wire::Slice {
                scan: JetNode { kind: Some(scan) }.encode_to_vec(),
            })
        } else if let Some(kind) = self.encode_scan(node.as_ref(), proto_converter)? {
            kind
        } else if node.name().starts_with("Jet") || node.name().starts_with("Index") {
            return Err(DataFusionError::NotImplemented(format!(
                "{} runs only on a single machine, not on a cluster",
                node.name()
            )));
        } else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        wire::encode(&JetNode { kind: Some(kind) }, buf);
        Ok(())
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
