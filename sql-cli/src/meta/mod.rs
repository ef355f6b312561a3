//! Meta-commands that describe the open databases: `\d`, `\d NAME`
//! (tables: [`tables`]) and `\dv` (saved queries: [`queries`]).

mod queries;
mod tables;

pub use queries::{describe_query, list_queries};
pub use tables::{describe, list_tables};

use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::util::pretty::pretty_format_batches;
use std::sync::Arc;

/// The text `\?` prints.
pub const HELP: &str = "\
SQL statements end with ';' and may span lines. Meta-commands:
  \\d               list the tables of every open database
  \\d NAME          columns (Jet and Arrow types), indexes and keys of a table
                   (NAME or db.NAME; quotes optional)
  \\i FILE          run the statements of a script file
  \\timing [on|off] show the time each statement takes
  \\format FMT      output format: table, csv, json or ndjson
  \\dialect [D]     SQL dialect: access (the default) or datafusion
  \\param N VALUE   bind parameter [N] of Access SQL (\\param lists, \\param clear)
  \\q               quit (also Ctrl-D)
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
