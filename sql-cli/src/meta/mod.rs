//! Meta-commands that describe the open databases: `\d`, `\d NAME`
//! (tables: [`tables`]) and `\dv` (saved queries: [`queries`]).

mod indexes;
mod properties;
mod queries;
mod tables;

pub use indexes::{list_indexes, list_relationships};
pub use queries::{describe_query, list_queries};
pub use tables::{describe, list_tables};

use crate::session::OpenDb;
use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::util::pretty::pretty_format_batches;
use std::sync::Arc;

/// The text `\?` prints.
pub const HELP: &str = "\
SQL statements end with ';' and may span lines. Meta-commands:
  \\d               list the tables of every open database
  \\d NAME          columns (Jet and Arrow types, NOT NULL, defaults),
                   indexes, keys, descriptions, validation rules and
                   lookups of a table (NAME or db.NAME; quotes optional)
  \\dv [NAME]       saved queries (\\dv+ also the hidden ones), or one query
  \\di [TABLE]      indexes of every table, or of one
  \\dr              relationships (foreign keys and their actions)
  \\i FILE          run the statements of a script file
  \\timing [on|off] show the time each statement takes
  \\format FMT      output format: table, csv, json or ndjson
  \\x [on|off|auto] expanded display: one block per row (auto: when the
                   table is wider than the terminal; the default)
  \\null TEXT       what NULL shows as (default NULL; csv too)
  \\pset pager on|off  long results through $PAGER (or less)
  \\set VERBOSITY verbose|default  errors with every cause, or the innermost
  \\dialect [D]     SQL dialect: access (the default) or datafusion
  \\param N VALUE   bind parameter [N] of Access SQL (\\param lists, \\param clear)
  \\g  \\p  \\r       run, print or drop the unfinished statement (other
                   meta-commands typed inside one run at once; it waits)
  \\q               quit (also Ctrl-D, exit, quit)
  \\?               this help
Ctrl-C cancels a running query and keeps the session.
Export: COPY (SELECT ...) TO 'out.parquet' (or .arrow, .csv).
";

/// A pretty table of string columns.
pub(crate) fn table(headers: &[&str], rows: &[Vec<String>]) -> Result<String, String> {
    let fields: Vec<Field> = headers
        .iter()
        .map(|h| Field::new(*h, DataType::Utf8, false))
        .collect();
    let columns: Vec<ArrayRef> = (0..headers.len())
        .map(|i| {
            Arc::new(StringArray::from_iter_values(
                rows.iter().map(|r| r.get(i).map_or("", String::as_str)),
            )) as ArrayRef
        })
        .collect();
    let batch =
        RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(|e| e.to_string())?;
    pretty_format_batches(&[batch])
        .map(|t| format!("{t}\n"))
        .map_err(|e| e.to_string())
}

/// Strips one level of `'…'` or `"…"` quoting from a text argument.
pub(crate) fn unquote_text(s: &str) -> &str {
    let s = s.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

/// Strips one level of `"…"`, `[…]` or `` `…` `` quoting.
pub(crate) fn unquote(s: &str) -> &str {
    let s = s.trim();
    for (a, b) in [('"', '"'), ('[', ']'), ('`', '`')] {
        if let Some(inner) = s.strip_prefix(a).and_then(|r| r.strip_suffix(b)) {
            return inner;
        }
    }
    s
}

/// Finds `name` (`NAME` or `db.NAME`, quotes optional) among the items
/// `items_of` lists for each open database, named by `name_of`: under the
/// named database first, then in every database as written; an exact match
/// before one ignoring case. Each database's items are listed once.
pub(crate) fn find_named<T>(
    dbs: &[OpenDb],
    name: &str,
    items_of: impl Fn(&OpenDb) -> Result<Vec<T>, String>,
    name_of: impl Fn(&T) -> &str,
) -> Result<Option<(usize, T)>, String> {
    let mut candidates: Vec<(usize, &str)> = (0..dbs.len()).map(|i| (i, unquote(name))).collect();
    if let Some((db, rest)) = name.split_once('.')
        && let Some(i) = dbs
            .iter()
            .position(|d| d.name.eq_ignore_ascii_case(unquote(db)))
    {
        candidates.insert(0, (i, unquote(rest)));
    }
    let mut listed: Vec<Option<Vec<T>>> = dbs.iter().map(|_| None).collect();
    for exact in [true, false] {
        for &(i, wanted) in &candidates {
            if listed[i].is_none() {
                listed[i] = Some(items_of(&dbs[i])?);
            }
            let Some(items) = listed[i].as_mut() else {
                continue;
            };
            let hit = items.iter().position(|item| {
                let n = name_of(item);
                if exact {
                    n == wanted
                } else {
                    n.eq_ignore_ascii_case(wanted)
                }
            });
            if let Some(pos) = hit {
                return Ok(Some((i, items.swap_remove(pos))));
            }
        }
    }
    Ok(None)
}
