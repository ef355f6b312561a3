//! What `ALTER TABLE` and its constraints both read of a table: its
//! definition as the statement sees it, the stored spelling of a column,
//! and the wording of the statement's refusals.

use crate::error::refuse;
use crate::handle::JetHandle;
use datafusion::error::{DataFusionError, Result};
use jet_storage::schema::tdef::TableDef;

/// Builds the refusals of one `ALTER TABLE` statement: `ALTER TABLE
/// "table": what; nothing changed`.
pub(super) struct Refusal<'a>(pub(super) &'a str);

impl Refusal<'_> {
    /// The refusal saying `why`.
    pub(super) fn why(&self, why: impl std::fmt::Display) -> DataFusionError {
        refuse(format!("ALTER TABLE {:?}: {why}; nothing changed", self.0))
    }
}

/// The definition of table `real` as the statement sees it.
pub(super) fn table_def(handle: &JetHandle, real: &str) -> Result<TableDef> {
    let db = handle.database()?;
    let t = db.table(real).map_err(crate::error::to_df)?;
    Ok(t.def().clone())
}

/// The stored spelling of column `name` of `def` (exact first, then
/// ignoring case).
pub(super) fn column_of(def: &TableDef, name: &str) -> Option<String> {
    def.columns
        .iter()
        .find(|c| c.name == name)
        .or_else(|| {
            let l = name.to_lowercase();
            def.columns.iter().find(|c| c.name.to_lowercase() == l)
        })
        .map(|c| c.name.clone())
}
