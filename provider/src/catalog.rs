//! Catalog and schema providers: a database as a DataFusion catalog with
//! one schema, `public`, holding its tables.

use crate::dml::JetHandle;
use crate::table::{JetOptions, JetTable};
use crate::to_df;
use async_trait::async_trait;
use datafusion::catalog::{CatalogProvider, SchemaProvider, TableProvider};
use datafusion::error::Result;
use datafusion::prelude::SessionContext;
use jet_storage::{Database, OpenOptions};
use std::path::Path;
use std::sync::Arc;

/// The tables of one database. Names keep Access spelling; lookup is
/// case-insensitive, as in Access. The tables are read from the handle's
/// current database at each lookup, so after a write the next statement
/// sees the new rows (and tables).
#[derive(Debug)]
pub struct JetSchemaProvider {
    handle: Arc<JetHandle>,
}

impl JetSchemaProvider {
    /// The schema of `db`: user tables, and system tables when
    /// `options.system_tables` is set.
    pub fn new(db: Database, options: JetOptions) -> Self {
        JetSchemaProvider::with_handle(Arc::new(JetHandle::new(db, options)))
    }

    /// The schema of the database behind `handle` (writes go through it).
    pub fn with_handle(handle: Arc<JetHandle>) -> Self {
        JetSchemaProvider { handle }
    }

    /// The handle the tables read and write through.
    pub fn handle(&self) -> &Arc<JetHandle> {
        &self.handle
    }

    fn names(&self) -> Vec<String> {
        let Ok(db) = self.handle.database() else {
            return Vec::new();
        };
        let mut names = db.table_names();
        if self.handle.options().system_tables {
            names.extend(db.system_table_names());
        }
        names
    }

    fn resolve(&self, name: &str) -> Option<String> {
        let names = self.names();
        names.iter().find(|n| *n == name).cloned().or_else(|| {
            let l = name.to_lowercase();
            names.into_iter().find(|n| n.to_lowercase() == l)
        })
    }

    /// The table `name` as a provider.
    pub fn jet_table(&self, name: &str) -> Result<Option<Arc<JetTable>>> {
        let Some(real) = self.resolve(name) else {
            return Ok(None);
        };
        let db = self.handle.database()?;
        let t = db.table(&real).map_err(to_df)?;
        Ok(Some(Arc::new(JetTable::with_handle(
            t,
            db,
            self.handle.clone(),
        ))))
    }
}

#[async_trait]
impl SchemaProvider for JetSchemaProvider {
    fn table_names(&self) -> Vec<String> {
        self.names()
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        Ok(self.jet_table(name)?.map(|t| t as Arc<dyn TableProvider>))
    }

    fn table_exist(&self, name: &str) -> bool {
        self.resolve(name).is_some()
    }
}

/// A database as a catalog with one schema, `public`.
#[derive(Debug)]
pub struct JetCatalogProvider {
    schema: Arc<JetSchemaProvider>,
}

impl JetCatalogProvider {
    /// The catalog of `db`.
    pub fn new(db: Database, options: JetOptions) -> Self {
        JetCatalogProvider {
            schema: Arc::new(JetSchemaProvider::new(db, options)),
        }
    }

    /// The catalog of the database behind `handle`.
    pub fn with_handle(handle: Arc<JetHandle>) -> Self {
        JetCatalogProvider {
            schema: Arc::new(JetSchemaProvider::with_handle(handle)),
        }
    }
}

impl CatalogProvider for JetCatalogProvider {
    fn schema_names(&self) -> Vec<String> {
        vec!["public".to_string()]
    }

    fn schema(&self, name: &str) -> Option<Arc<dyn SchemaProvider>> {
        name.eq_ignore_ascii_case("public")
            .then(|| self.schema.clone() as Arc<dyn SchemaProvider>)
    }
}

fn open(path: &Path) -> Result<Database> {
    Database::open(path, OpenOptions::default()).map_err(to_df)
}

/// Registers the database at `path` as catalog `name`: its tables are
/// `name.public."Table"`.
pub fn register_jet(
    ctx: &SessionContext,
    name: &str,
    path: impl AsRef<Path>,
    options: JetOptions,
) -> Result<Database> {
    let db = open(path.as_ref())?;
    ctx.register_catalog(name, Arc::new(JetCatalogProvider::new(db.clone(), options)));
    Ok(db)
}

/// Registers every table of `db` in the session's default schema, so plain
/// table names work (for a single database).
pub fn register_jet_tables(ctx: &SessionContext, db: &Database, options: JetOptions) -> Result<()> {
    let schema = JetSchemaProvider::new(db.clone(), options);
    for name in schema.table_names() {
        if let Some(t) = schema.jet_table(&name)? {
            ctx.register_table(datafusion::common::TableReference::bare(name.clone()), t)?;
        }
    }
    Ok(())
}
