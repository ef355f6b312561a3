//! Catalog and schema providers: a database as a DataFusion catalog with
//! one schema, `public`, holding its tables.

use super::ViewSource;
use super::table::JetTable;
use crate::error::to_df;
use crate::handle::{JetHandle, JetOptions};
use async_trait::async_trait;
use datafusion::catalog::{CatalogProvider, SchemaProvider, TableProvider};
use datafusion::error::Result;
use datafusion::logical_expr::TableType;
use datafusion::prelude::SessionContext;
use jet_storage::{Database, OpenOptions, SavedQuery};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// The tables of one database. Names keep Access spelling; lookup is
/// case-insensitive, as in Access. The tables are read from the handle's
/// current database at each lookup, so after a write the next statement
/// sees the new rows (and tables).
///
/// Saved select, union and crosstab queries answer to their names too, as
/// views, once a session has given the schema a [`ViewSource`] (the ones
/// Access hides are listed too: hiding is for its navigation pane).
#[derive(Debug)]
pub struct JetSchemaProvider {
    handle: Arc<JetHandle>,
    views: OnceLock<Arc<dyn ViewSource>>,
    /// The saved queries of the database last read, and that database.
    queries: Mutex<Option<(Database, Arc<Vec<SavedQuery>>)>>,
}

impl JetSchemaProvider {
    /// The schema of `db`: user tables, and system tables when
    /// `options.system_tables` is set.
    pub fn new(db: Database, options: JetOptions) -> Self {
        JetSchemaProvider::with_handle(Arc::new(JetHandle::new(db, options)))
    }

    /// The schema of the database behind `handle` (writes go through it).
    pub fn with_handle(handle: Arc<JetHandle>) -> Self {
        JetSchemaProvider {
            handle,
            views: OnceLock::new(),
            queries: Mutex::new(None),
        }
    }

    /// Makes the database's saved SELECT-type queries answer as views,
    /// planned by `planner`; the first planner set stays.
    pub fn set_view_planner(&self, planner: Arc<dyn ViewSource>) {
        let _ = self.views.set(planner);
    }

    /// The database's saved queries (all kinds, hidden ones included), read
    /// once per database image. A database whose `MSysQueries` cannot be
    /// read has none.
    pub fn saved_queries(&self) -> Arc<Vec<SavedQuery>> {
        let Ok(db) = self.handle.database() else {
            return Arc::new(Vec::new());
        };
        let Ok(mut cache) = self.queries.lock() else {
            return Arc::new(Vec::new());
        };
        if let Some((seen, qs)) = cache.as_ref()
            && seen.same_image(&db)
        {
            return qs.clone();
        }
        let qs = Arc::new(db.queries().unwrap_or_default());
        *cache = Some((db, qs.clone()));
        qs
    }

    /// The saved SELECT-type query answering to `name` (exact spelling
    /// first, then ignoring case), when views are on.
    fn view_query(&self, name: &str) -> Option<SavedQuery> {
        self.views.get()?;
        let qs = self.saved_queries();
        let l = name.to_lowercase();
        qs.iter()
            .filter(|q| q.kind.is_select_like())
            .find(|q| q.name == name)
            .or_else(|| {
                qs.iter()
                    .filter(|q| q.kind.is_select_like())
                    .find(|q| q.name.to_lowercase() == l)
            })
            .cloned()
    }

    fn view_names(&self) -> Vec<String> {
        if self.views.get().is_none() {
            return Vec::new();
        }
        self.saved_queries()
            .iter()
            // hidden ones too: Access hides them from its navigation pane,
            // not from SQL, and names in statements resolve against this list
            .filter(|q| q.kind.is_select_like())
            .map(|q| q.name.clone())
            .collect()
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
        names.extend(super::linked::access_links(&db).into_iter().map(|l| l.0));
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
        if let Some((local, database, foreign)) = super::linked::access_links(&db)
            .into_iter()
            .find(|l| l.0 == real)
        {
            let options = self.handle.options();
            return super::linked::open_link(&db, &local, &database, &foreign, options)
                .map(|t| Some(Arc::new(t)));
        }
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
        let mut names = self.names();
        names.extend(self.view_names());
        names
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        if let Some(t) = self.jet_table(name)? {
            return Ok(Some(t as Arc<dyn TableProvider>));
        }
        match (self.view_query(name), self.views.get()) {
            (Some(q), Some(planner)) => Ok(Some(planner.view(&q).await)),
            _ => Ok(None),
        }
    }

    async fn table_type(&self, name: &str) -> Result<Option<TableType>> {
        if self.resolve(name).is_some() {
            return Ok(Some(TableType::Base));
        }
        Ok(self.view_query(name).map(|_| TableType::View))
    }

    fn table_exist(&self, name: &str) -> bool {
        self.resolve(name).is_some() || self.view_query(name).is_some()
    }
}

/// A database as a catalog with one schema, `public`.
#[derive(Debug)]
pub struct JetCatalogProvider {
    schema: Arc<JetSchemaProvider>,
}

impl JetCatalogProvider {
    /// The catalog's one schema.
    pub fn jet_schema(&self) -> &Arc<JetSchemaProvider> {
        &self.schema
    }

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

/// Registers every local table of `db` in the session's default schema, so
/// plain table names work (for a single database). Linked tables are left
/// out (registering them eagerly would open their targets now); a catalog
/// from [`register_jet`] or a `JetSession` resolves them when named.
pub fn register_jet_tables(ctx: &SessionContext, db: &Database, options: JetOptions) -> Result<()> {
    let linked: Vec<String> = super::linked::access_links(db)
        .into_iter()
        .map(|l| l.0)
        .collect();
    let schema = JetSchemaProvider::new(db.clone(), options);
    for name in schema
        .table_names()
        .into_iter()
        .filter(|n| !linked.contains(n))
    {
        if let Some(t) = schema.jet_table(&name)? {
            ctx.register_table(datafusion::common::TableReference::bare(name.clone()), t)?;
        }
    }
    Ok(())
}
