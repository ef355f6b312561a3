//! `jetsql export --views`: the saved select, union and crosstab queries of
//! a database, each run through the Access dialect (as `SELECT * FROM
//! [Query]` would) and written like a table, one file each.
//!
//! A query that cannot run as it stands (it needs parameters, or names a
//! construct the Access front end does not translate) is skipped and
//! reported with its reason; the tables and the other views are still
//! written.

use crate::export::{ExportFormat, Exported, Item, Writer, file_name};
use crate::session::OpenRequest;
use futures::StreamExt;
use std::fs::File;
use std::path::Path;

/// A view that was not exported, and why.
#[derive(Debug, Clone)]
pub struct Skipped {
    /// The query's name.
    pub view: String,
    /// Why it could not be run.
    pub reason: String,
}

/// SQL's double-quoted form of a name.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Whether `name` is selected by `only` (every view when `only` is empty;
/// names match ignoring case).
fn selected(name: &str, only: &[String]) -> bool {
    only.is_empty() || only.iter().any(|o| o.eq_ignore_ascii_case(name))
}

/// Exports the non-hidden select-like saved queries of `file` (those named
/// in `only`, when it is not empty) into `dir`: each written to
/// `NAME.ext.partial` and renamed when complete. Returns what was written
/// and what was skipped.
pub fn export_views(
    file: &Path,
    dir: &Path,
    format: ExportFormat,
    only: &[String],
    req: &OpenRequest,
) -> Result<(Vec<Exported>, Vec<Skipped>), String> {
    let session = crate::session::new_session(jet_provider::frontdoor::default_memory_limit())
        .map_err(|e| e.to_string())?;
    session.set_dialect(jet_provider::SqlDialect::Access);
    let dbs = crate::session::register_files(&session, &[file.to_path_buf()], req, false)?;
    let db = dbs
        .first()
        .ok_or_else(|| format!("{}: not opened", file.display()))?;
    let queries = db
        .db()?
        .queries()
        .map_err(|e| format!("{}: {e}", file.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let mut done = Vec::new();
    let mut skipped = Vec::new();
    for q in queries
        .iter()
        .filter(|q| q.kind.is_select_like() && !q.hidden && selected(&q.name, only))
    {
        let sql = format!(
            "SELECT * FROM {}.public.{}",
            quoted(&db.name),
            quoted(&q.name)
        );
        let path = dir.join(file_name(&q.name, format));
        let partial = path.with_extension(format!("{}.partial", format.extension()));
        let written = runtime.block_on(async {
            let df = session.sql_frame(&sql).await.map_err(|e| e.to_string())?;
            let schema = std::sync::Arc::new(df.schema().as_arrow().clone());
            let mut stream = df.execute_stream().await.map_err(|e| e.to_string())?;
            let f = File::create(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
            let mut w = Writer::new(format, f, &schema)?;
            let mut rows = 0usize;
            while let Some(b) = stream.next().await {
                let b = b.map_err(|e| e.to_string())?;
                rows += b.num_rows();
                w.write(&Item::Batch(b))?;
            }
            w.finish()?;
            Ok::<_, String>(rows)
        });
        match written {
            Ok(rows) => {
                std::fs::rename(&partial, &path).map_err(|e| format!("{}: {e}", path.display()))?;
                done.push(Exported {
                    table: q.name.clone(),
                    rows,
                    path,
                });
            }
            Err(reason) => {
                let _ = std::fs::remove_file(&partial);
                skipped.push(Skipped {
                    view: q.name.clone(),
                    reason: reason
                        .trim_start_matches("Error during planning: ")
                        .to_string(),
                });
            }
        }
    }
    for name in only {
        let known = queries
            .iter()
            .any(|q| q.kind.is_select_like() && q.name.eq_ignore_ascii_case(name));
        if !known {
            return Err(format!("no table or select query {name:?} in the database"));
        }
    }
    Ok((done, skipped))
}

/// `--table` names split into the database's tables and the rest (views,
/// or names that match nothing: [`export_views`] refuses those).
pub fn split_names(
    file: &Path,
    names: &[String],
    req: &OpenRequest,
) -> Result<(Vec<String>, Vec<String>), String> {
    let db = crate::session::open_database(file, req)?;
    let tables = db.table_names();
    Ok(names
        .iter()
        .cloned()
        .partition(|n| tables.iter().any(|t| t.eq_ignore_ascii_case(n))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_for_sql() {
        assert_eq!(quoted("Order Subtotals"), "\"Order Subtotals\"");
        assert_eq!(quoted("ab\"x"), "\"ab\"\"x\"");
        assert!(selected("Invoices", &[]));
        assert!(selected("Invoices", &["invoices".into()]));
        assert!(!selected("Invoices", &["Orders".into()]));
    }
}
