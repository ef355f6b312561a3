//! Jet tables as messages and back: what a table message names, and how
//! a node opens the table it names.

use crate::node::Node;
use crate::wire;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::common::TableReference;
use datafusion::error::{DataFusionError, Result};
use jet_provider::archive::Member;
use jet_provider::{JetFilesOptions, JetFilesTable, JetOptions, JetTable};
use jet_storage::Database;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most rows per batch a message may ask for.
const MAX_BATCH: u64 = 1 << 20;

/// `path` made absolute (against this process's working directory), as
/// every node must name the same file.
pub fn absolute(path: &Path) -> Result<String> {
    let p = std::path::absolute(path)
        .map_err(|e| DataFusionError::Plan(format!("{}: {e}", path.display())))?;
    p.into_os_string().into_string().map_err(|p| {
        DataFusionError::Plan(format!(
            "{}: a cluster needs file names that are valid Unicode",
            PathBuf::from(p).display()
        ))
    })
}

/// The message naming table `t` and how it is read (never its password).
pub fn table_message(t: &JetTable) -> Result<wire::DatabaseTable> {
    table_message_of(
        t.db(),
        t.table().name(),
        t.options().pushdown,
        t.options().batch_size,
    )
}

/// The message naming table `table` of `db`, read with index seeks when
/// `pushdown`, `batch_size` rows per batch.
pub fn table_message_of(
    db: &Database,
    table: &str,
    pushdown: bool,
    batch_size: usize,
) -> Result<wire::DatabaseTable> {
    let path = db.path().ok_or_else(|| {
        DataFusionError::Plan(format!(
            "table {table:?} is in a database held in memory: a cluster reads only files it can open"
        ))
    })?;
    Ok(wire::DatabaseTable {
        path: absolute(path)?,
        table: table.to_string(),
        pushdown,
        batch_size: batch_size as u64,
    })
}

/// Rows per batch from a message, at least 1 and at most [`MAX_BATCH`].
pub fn batch_size(n: u64) -> usize {
    n.clamp(1, MAX_BATCH) as usize
}

/// Opens the table `m` names, read-only, with this node's password for
/// its file.
pub fn open_table(node: &Node, m: &wire::DatabaseTable) -> Result<JetTable> {
    let path = Path::new(&m.path);
    let db = node.open(path)?;
    let t = db.table(&m.table).map_err(|_| {
        DataFusionError::Plan(format!(
            "{}: the database has no table {:?}",
            m.path, m.table
        ))
    })?;
    let options = JetOptions {
        pushdown: m.pushdown,
        batch_size: batch_size(m.batch_size),
        password: node.password_for(path),
        ..JetOptions::default()
    };
    Ok(JetTable::new(t, db, options))
}

/// The options of a multi-file table as a message (no password).
pub fn options_message(o: &JetFilesOptions) -> wire::FilesOptions {
    wire::FilesOptions {
        skip_errors: o.skip_errors,
        max_open: o.max_open as u64,
        split_bytes: o.split_bytes,
        pushdown: o.pushdown,
        batch_size: o.batch_size as u64,
    }
}

/// The options a message gives (no password: each node has its own),
/// bounded: at least one file open and one row per batch.
pub fn options_of(m: Option<&wire::FilesOptions>) -> JetFilesOptions {
    let d = JetFilesOptions::default();
    match m {
        None => d,
        Some(m) => JetFilesOptions {
            skip_errors: m.skip_errors,
            max_open: usize::try_from(m.max_open.max(1)).unwrap_or(d.max_open),
            split_bytes: m.split_bytes.max(1),
            pushdown: m.pushdown,
            batch_size: batch_size(m.batch_size),
            password: None,
        },
    }
}

/// The message of multi-file table `t`: its files with their columns (a
/// list of distinct column lists, each file naming its own), its options.
pub fn files_message(t: &JetFilesTable) -> Result<wire::FilesTable> {
    let mut distinct: Vec<&SchemaRef> = Vec::new();
    let mut files = Vec::with_capacity(t.members().len());
    for m in t.members() {
        let at = match distinct.iter().position(|s| **s == m.schema) {
            Some(i) => i,
            None => {
                distinct.push(&m.schema);
                distinct.len() - 1
            }
        };
        files.push(wire::File {
            path: absolute(&m.path)?,
            shown: m.shown.clone(),
            size: m.size,
            schema: at as u64,
        });
    }
    let schemas = distinct
        .into_iter()
        .map(|s| datafusion_proto::protobuf::Schema::try_from(s.as_ref()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| DataFusionError::Plan(format!("a file's columns cannot be sent: {e}")))?;
    Ok(wire::FilesTable {
        table: t.table_name().to_string(),
        schemas,
        files,
        options: Some(options_message(t.options())),
    })
}

/// A schema from a message.
pub fn schema_of(s: &datafusion_proto::protobuf::Schema) -> Result<SchemaRef> {
    Schema::try_from(s)
        .map(Arc::new)
        .map_err(|e| DataFusionError::Plan(format!("columns that cannot be read: {e}")))
}

/// The multi-file table message `m` describes (no file is opened).
pub fn files_table(m: &wire::FilesTable) -> Result<JetFilesTable> {
    let schemas = m
        .schemas
        .iter()
        .map(schema_of)
        .collect::<Result<Vec<_>>>()?;
    let members = m
        .files
        .iter()
        .map(|f| {
            let schema = usize::try_from(f.schema)
                .ok()
                .and_then(|i| schemas.get(i))
                .ok_or_else(|| {
                    DataFusionError::Plan(format!(
                        "{}: its columns are list {} of {}",
                        f.path,
                        f.schema,
                        schemas.len()
                    ))
                })?;
            Ok(Member {
                path: PathBuf::from(&f.path),
                shown: f.shown.clone(),
                size: f.size,
                schema: schema.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    JetFilesTable::from_members(&m.table, members, options_of(m.options.as_ref()))
}

/// Fails unless `got` has the columns (names and types, in order) the
/// client planned with: the file changed, or the cluster sees another
/// file at that path.
pub fn same_columns(table: &TableReference, planned: &Schema, got: &Schema) -> Result<()> {
    let shape = |s: &Schema| {
        s.fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect::<Vec<_>>()
    };
    if shape(planned) == shape(got) {
        Ok(())
    } else {
        Err(DataFusionError::Plan(format!(
            "table {table} has other columns on this node than where the query was planned: \
             the client and the cluster must see the same files"
        )))
    }
}
