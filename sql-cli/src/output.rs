//! Result output: pretty tables, CSV, a JSON array or JSON lines, written
//! batch by batch so that piped output streams.

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::{DataFusionError, Result};
use std::io::Write;

use crate::render::View;
use crate::render::table::{Omitted, render};

/// How query results are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table fitted to the terminal, values as Access shows them
    /// (see `render`).
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON array of objects per result.
    Json,
    /// One JSON object per line.
    Ndjson,
}

impl Format {
    /// Parses a `\format` argument.
    pub fn parse(s: &str) -> Option<Format> {
        match s.to_ascii_lowercase().as_str() {
            "table" => Some(Format::Table),
            "csv" => Some(Format::Csv),
            "json" => Some(Format::Json),
            "ndjson" | "jsonl" => Some(Format::Ndjson),
            _ => None,
        }
    }

    /// The name `\format` accepts.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Ndjson => "ndjson",
        }
    }
}

/// A JSON-lines writer that keeps NULL fields as `null` (a missing key
/// would read back as a different row shape).
fn json_lines<W: Write>(
    out: W,
) -> datafusion::arrow::json::Writer<W, datafusion::arrow::json::writer::LineDelimited> {
    datafusion::arrow::json::WriterBuilder::new()
        .with_explicit_nulls(true)
        .build(out)
}

fn arrow_err(e: datafusion::arrow::error::ArrowError) -> DataFusionError {
    DataFusionError::ArrowError(Box::new(e), None)
}

/// Writes one result, batch by batch. `Table` keeps at most `max_rows`
/// rows (all rows when `None`) and prints them at `finish`; the other
/// formats write each batch as it arrives and never drop rows.
pub struct Sink<W: Write> {
    out: W,
    format: Format,
    schema: SchemaRef,
    max_rows: Option<usize>,
    kept: Vec<RecordBatch>,
    kept_rows: usize,
    rows: usize,
    started: bool,
    view: View,
    csv_null: String,
}

impl<W: Write> Sink<W> {
    /// A sink for results of `schema`; tables are shown with `view`.
    pub fn new(
        out: W,
        format: Format,
        schema: SchemaRef,
        max_rows: Option<usize>,
        view: View,
    ) -> Self {
        Sink {
            out,
            format,
            schema,
            max_rows,
            kept: Vec::new(),
            kept_rows: 0,
            rows: 0,
            started: false,
            view,
            csv_null: String::new(),
        }
    }

    /// CSV writes NULL as `null` (empty by default).
    pub fn with_csv_null(mut self, null: &str) -> Self {
        self.csv_null = null.to_string();
        self
    }

    /// Adds one batch.
    pub fn push(&mut self, batch: RecordBatch) -> Result<()> {
        self.rows += batch.num_rows();
        match self.format {
            Format::Table => {
                let room = self
                    .max_rows
                    .map_or(usize::MAX, |m| m - self.kept_rows.min(m));
                if room > 0 && batch.num_rows() > 0 {
                    let take = batch.num_rows().min(room);
                    self.kept_rows += take;
                    self.kept.push(batch.slice(0, take));
                }
            }
            Format::Csv => self.write_csv(&batch)?,
            Format::Json => {
                let mut buf = Vec::new();
                {
                    let mut w = json_lines(&mut buf);
                    w.write(&batch).map_err(arrow_err)?;
                    w.finish().map_err(arrow_err)?;
                }
                for line in buf.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                    self.out
                        .write_all(if self.started { b",\n" } else { b"[\n" })?;
                    self.started = true;
                    self.out.write_all(line)?;
                }
            }
            Format::Ndjson => {
                let mut w = json_lines(&mut self.out);
                w.write(&batch).map_err(arrow_err)?;
                w.finish().map_err(arrow_err)?;
            }
        }
        Ok(())
    }

    /// Writes what is pending (the table, the JSON array's end) and
    /// returns the output, the total row count and what the table view
    /// left out.
    pub fn finish(mut self) -> Result<(W, usize, Omitted)> {
        let mut omitted = Omitted::default();
        if self.schema.fields().is_empty() {
            // A statement without a result (CREATE TABLE, SET) prints nothing.
            self.out.flush()?;
            return Ok((self.out, self.rows, omitted));
        }
        match self.format {
            Format::Table => {
                let (table, o) = render(&self.schema, &self.kept, &self.view);
                omitted = o;
                self.out.write_all(table.as_bytes())?;
            }
            Format::Csv => {
                if !self.started {
                    self.write_csv(&RecordBatch::new_empty(self.schema.clone()))?;
                }
            }
            Format::Json => {
                self.out
                    .write_all(if self.started { b"\n]\n" } else { b"[]\n" })?;
            }
            Format::Ndjson => {}
        }
        self.out.flush()?;
        Ok((self.out, self.rows, omitted))
    }

    /// Writes `batch` as CSV, with the header before the first batch;
    /// list columns as text (see [`crate::lists_text`]).
    fn write_csv(&mut self, batch: &RecordBatch) -> Result<()> {
        let batch = &crate::lists_text::lists_as_text(batch).map_err(arrow_err)?;
        let mut w = datafusion::arrow::csv::WriterBuilder::new()
            .with_header(!self.started)
            .with_null(self.csv_null.clone())
            .build(&mut self.out);
        w.write(batch).map_err(arrow_err)?;
        self.started = true;
        Ok(())
    }

    /// Whether rows were dropped by the row cap.
    pub fn truncated(&self) -> bool {
        self.format == Format::Table && self.rows > self.kept_rows
    }
}
