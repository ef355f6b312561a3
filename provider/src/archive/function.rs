//! The table function `jet_files(files, table [, options])`:
//!
//! ```sql
//! SELECT Site, sum(Amount) FROM jet_files('archive/**/*.mdb', 'Orders')
//! WHERE _file LIKE '%2019%' GROUP BY Site;
//! SELECT * FROM jet_files(['a.mdb', 'b.mdb'], 'Orders', 'skip_errors, max_open=16');
//! ```
//!
//! `files` is a glob or an array of paths; `options` as
//! [`JetFilesOptions::parse`] reads them, over the function's own
//! defaults (the password the session was opened with).

use super::discover::SchemaCache;
use super::files::FileSource;
use super::options::JetFilesOptions;
use super::stats::ArchiveStats;
use super::table::JetFilesTable;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::Expr;
use std::path::PathBuf;
use std::sync::Arc;

/// The `jet_files` table function. Every table it makes counts into one
/// [`ArchiveStats`] (read the files skipped with
/// [`ArchiveStats::take_warnings`] after a query), and files' columns are
/// remembered between calls while the files are unchanged.
#[derive(Debug, Default)]
pub struct JetFilesFunction {
    defaults: JetFilesOptions,
    stats: Arc<ArchiveStats>,
    cache: SchemaCache,
}

impl JetFilesFunction {
    /// A function whose tables start from `defaults` (e.g. the password
    /// given on the command line).
    pub fn new(defaults: JetFilesOptions) -> Self {
        JetFilesFunction {
            defaults,
            ..JetFilesFunction::default()
        }
    }

    /// The counters and warnings of every table this function made.
    pub fn stats(&self) -> &Arc<ArchiveStats> {
        &self.stats
    }
}

/// The text of a string literal.
fn text(e: &Expr) -> Option<String> {
    match e {
        Expr::Literal(v, _) => v.try_as_str().flatten().map(str::to_string),
        _ => None,
    }
}

/// The paths of a literal array (`['a.mdb', 'b.mdb']`, planned as
/// `make_array(…)` or as a list value).
fn paths(e: &Expr) -> Option<Vec<PathBuf>> {
    match e {
        Expr::ScalarFunction(f) if f.name() == "make_array" => {
            f.args.iter().map(|a| text(a).map(PathBuf::from)).collect()
        }
        Expr::Literal(ScalarValue::List(l), _)
            if datafusion::arrow::array::Array::len(l.as_ref()) == 1 =>
        {
            let values = l.value(0);
            let strings = datafusion::arrow::compute::cast(
                &values,
                &datafusion::arrow::datatypes::DataType::Utf8,
            )
            .ok()?;
            let strings = strings
                .as_any()
                .downcast_ref::<datafusion::arrow::array::StringArray>()?;
            strings
                .iter()
                .map(|s| s.map(PathBuf::from))
                .collect::<Option<Vec<_>>>()
        }
        _ => None,
    }
}

const USAGE: &str = "jet_files takes a file pattern or an array of paths, a table name, and optionally options: jet_files('archive/**/*.mdb', 'Orders', 'skip_errors')";

impl TableFunctionImpl for JetFilesFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let exprs = args.exprs();
        if !(2..=3).contains(&exprs.len()) {
            return Err(DataFusionError::Plan(USAGE.into()));
        }
        let source = match (text(&exprs[0]), paths(&exprs[0])) {
            (Some(s), _) => FileSource::Glob(s),
            (None, Some(list)) => FileSource::List(list),
            (None, None) => return Err(DataFusionError::Plan(USAGE.into())),
        };
        let table = text(&exprs[1]).ok_or_else(|| DataFusionError::Plan(USAGE.into()))?;
        let options = match exprs.get(2) {
            None => self.defaults.clone(),
            Some(e) => {
                let t = text(e).ok_or_else(|| DataFusionError::Plan(USAGE.into()))?;
                self.defaults.clone().parse(&t)?
            }
        };
        Ok(Arc::new(JetFilesTable::with_shared(
            &source,
            &table,
            options,
            self.stats.clone(),
            &self.cache,
        )?))
    }
}
