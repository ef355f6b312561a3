//! `JetFilesTable`: one table over many files, as a DataFusion
//! `TableProvider`.

use super::discover::{Member, SchemaCache, discover};
use super::exec::{JetFilesExec, ScanSpec, Unit};
use super::files::{FileSource, expand};
use super::options::JetFilesOptions;
use super::prune::{file_only, keep};
use super::stats::ArchiveStats;
use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::datasource::TableType;
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// One table (`table`, matched ignoring case) of every file of an
/// archive, as one table: the union of the files' columns (see
/// [`super::union_schema`]) and `_file`, the path of each row's file.
///
/// The files' columns are read when the table is made; rows are read
/// when a query runs, a bounded number of files open at once
/// ([`JetFilesOptions::max_open`]), only the files a filter on `_file`
/// keeps. Filters on other columns go to each file's scan (index seeks)
/// and are applied again above the scan.
pub struct JetFilesTable {
    table: String,
    members: Arc<Vec<Member>>,
    schema: SchemaRef,
    options: JetFilesOptions,
    stats: Arc<ArchiveStats>,
    semaphore: Arc<Semaphore>,
}

impl std::fmt::Debug for JetFilesTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JetFilesTable")
            .field("table", &self.table)
            .field("files", &self.members.len())
            .field("options", &self.options)
            .finish()
    }
}

impl JetFilesTable {
    /// The table `table` over the files of `source`. Fails when no file
    /// matches, when a file cannot be read (naming it; with
    /// `skip_errors` it is left out and reported in [`Self::stats`]), or
    /// when a column's types in two files do not widen to one.
    pub fn try_new(source: &FileSource, table: &str, options: JetFilesOptions) -> Result<Self> {
        Self::with_shared(
            source,
            table,
            options,
            Arc::default(),
            &SchemaCache::default(),
        )
    }

    /// [`Self::try_new`] counting into `stats` and remembering files'
    /// columns in `cache`.
    pub(crate) fn with_shared(
        source: &FileSource,
        table: &str,
        options: JetFilesOptions,
        stats: Arc<ArchiveStats>,
        cache: &SchemaCache,
    ) -> Result<Self> {
        let files = expand(source)?;
        let members = discover(&files, table, &options, &stats, cache)?;
        Ok(JetFilesTable {
            stats,
            ..Self::from_members(table, members, options)?
        })
    }

    /// The table `table` over files already discovered (`members`, each
    /// with its columns), opening none of them: how a table described in
    /// a plan is made again in another process. Fails when a column's
    /// types in two files do not widen to one.
    pub fn from_members(
        table: &str,
        members: Vec<Member>,
        options: JetFilesOptions,
    ) -> Result<Self> {
        let schemas: Vec<&datafusion::arrow::datatypes::Schema> =
            members.iter().map(|m| m.schema.as_ref()).collect();
        let names: Vec<&str> = members.iter().map(|m| m.shown.as_str()).collect();
        let schema = super::schema::union_schema(&schemas, &names)?;
        Ok(JetFilesTable {
            table: table.to_string(),
            members: Arc::new(members),
            schema,
            semaphore: Arc::new(Semaphore::new(options.max_open.max(1))),
            options,
            stats: Arc::default(),
        })
    }

    /// The table read in every file, as given.
    pub fn table_name(&self) -> &str {
        &self.table
    }

    /// The files of the table with their columns (after files skipped at
    /// discovery).
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// How the table reads its files (its password included: never send
    /// it anywhere).
    pub fn options(&self) -> &JetFilesOptions {
        &self.options
    }

    /// Opens, the most open at once, and the files skipped.
    pub fn stats(&self) -> &Arc<ArchiveStats> {
        &self.stats
    }

    /// Every file of the table (after files skipped at discovery), as
    /// `_file` shows them.
    pub fn files(&self) -> Vec<&str> {
        self.members.iter().map(|m| m.shown.as_str()).collect()
    }
}

/// `e` with every column unqualified (the provider's schemas have no
/// qualifiers).
fn unqualified(e: &Expr) -> Result<Expr> {
    Ok(e.clone()
        .transform(|e| match e {
            Expr::Column(c) if c.relation.is_some() => Ok(Transformed::yes(Expr::Column(
                datafusion::common::Column::new_unqualified(c.name),
            ))),
            e => Ok(Transformed::no(e)),
        })?
        .data)
}

#[async_trait]
impl TableProvider for JetFilesTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        // `_file` filters are answered from the file list exactly; others
        // reach the files that have their columns and are checked again
        Ok(filters
            .iter()
            .map(|f| {
                if file_only(f) {
                    TableProviderFilterPushDown::Exact
                } else {
                    TableProviderFilterPushDown::Inexact
                }
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let mut on_file = Vec::new();
        let mut others = Vec::new();
        for f in filters {
            let f = unqualified(f)?;
            if file_only(&f) {
                on_file.push(f);
            } else {
                others.push(f);
            }
        }
        let shown: Vec<&str> = self.members.iter().map(|m| m.shown.as_str()).collect();
        let kept = keep(state, &shown, &on_file.iter().collect::<Vec<_>>())?;
        let projection: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..self.schema.fields().len()).collect(),
        };
        let output = Arc::new(self.schema.project(&projection)?);
        if kept.is_empty() {
            return Ok(Arc::new(datafusion::physical_plan::empty::EmptyExec::new(
                output,
            )));
        }
        let partitions = state.config().target_partitions().max(1);
        let mut units = Vec::new();
        let mut states = HashMap::new();
        for m in kept {
            let parts = if limit.is_some() {
                1
            } else {
                usize::try_from(
                    self.members[m]
                        .size
                        .div_ceil(self.options.split_bytes.max(1)),
                )
                .unwrap_or(usize::MAX)
                .clamp(1, partitions)
            };
            states.entry(parts).or_insert_with(|| {
                let mut config = state.config().clone();
                config.options_mut().execution.target_partitions = parts;
                Arc::new(
                    SessionStateBuilder::new()
                        .with_config(config)
                        .with_runtime_env(state.runtime_env().clone())
                        .build(),
                )
            });
            units.extend((0..parts).map(|part| Unit {
                member: m,
                part,
                parts,
            }));
        }
        let spec = ScanSpec {
            members: self.members.clone(),
            table: self.table.clone(),
            options: self.options.clone(),
            stats: self.stats.clone(),
            semaphore: self.semaphore.clone(),
            union: self.schema.clone(),
            projection,
            output,
            filters: others,
            limit,
            states,
            echo_warnings: false,
            passwords: None,
        };
        Ok(Arc::new(JetFilesExec::new(spec, units, partitions)))
    }
}
