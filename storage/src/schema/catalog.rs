//! The catalog: MSysObjects (TDEF page 2) read into typed entries.

/// MSysObjects object type: local table.
pub const TYPE_TABLE: i16 = 1;
/// MSysObjects object type: saved query.
pub const TYPE_QUERY: i16 = 5;
/// MSysObjects object type: table linked to another Access database.
pub const TYPE_LINKED: i16 = 6;
/// MSysObjects object type: table linked through ODBC.
pub const TYPE_LINKED_ODBC: i16 = 4;
/// Flags that mark a system object (as Access and mdbtools test them).
pub const SYSTEM_FLAGS: u32 = 0x8000_0002;

/// What a catalog entry describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectKind {
    /// A table whose rows are in this file.
    Table,
    /// A table linked to another Access database.
    Linked {
        /// Path of the other database as stored.
        database: String,
        /// Table name there.
        foreign_name: String,
    },
    /// A table linked through ODBC.
    LinkedOdbc {
        /// ODBC connect string.
        connect: String,
        /// Table name at the source.
        foreign_name: String,
    },
    /// A saved query.
    Query,
    /// Another object type (forms, reports, containers…).
    Other(i16),
}

/// One row of MSysObjects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    /// Object name.
    pub name: String,
    /// Object id (for tables, the low 24 bits are the TDEF page).
    pub id: i32,
    /// Parent container id.
    pub parent_id: i32,
    /// Kind.
    pub kind: ObjectKind,
    /// Flags.
    pub flags: u32,
    /// The object's property blob (`LvProp`), empty when it has none.
    pub props: Vec<u8>,
}

impl CatalogEntry {
    /// First TDEF page of a local table.
    pub fn tdef_page(&self) -> u32 {
        (self.id as u32) & 0x00FF_FFFF
    }

    /// Whether this is a system object (flag bits, as Access marks them).
    pub fn is_system(&self) -> bool {
        self.flags & SYSTEM_FLAGS != 0
    }

    /// Whether this is a table (local or linked).
    pub fn is_table(&self) -> bool {
        matches!(
            self.kind,
            ObjectKind::Table | ObjectKind::Linked { .. } | ObjectKind::LinkedOdbc { .. }
        )
    }
}
