//! MSysObjects rows the writer adds: tables, containers and the database
//! object, with the ids and flags Access uses.

use super::row::Cell;

/// Id of the top-level container row's parent (the root).
pub const ROOT_ID: i32 = 0x0F00_0000;
/// Id of the `Tables` container (parent of every table).
pub const TABLES_ID: i32 = 0x0F00_0001;
/// Id of the `Databases` container.
pub const DATABASES_ID: i32 = 0x0F00_0002;
/// Id of the `Relationships` container.
pub const RELATIONSHIPS_ID: i32 = 0x0F00_0003;
/// Id of the `MSysDb` database object.
pub const MSYSDB_ID: i32 = 0x1000_0000;
/// Object type of containers.
pub const TYPE_CONTAINER: i16 = 3;
/// Object type of the database object.
pub const TYPE_DATABASE: i16 = 2;
/// Flags of system tables and system containers (0x80000000).
pub const FLAG_SYSTEM: i32 = i32::MIN;
/// Flags of hidden system objects such as MSysAccessObjects.
pub const FLAG_HIDDEN_SYSTEM: i32 = 2;

/// One MSysObjects row: (column name, value) pairs; other columns NULL.
pub fn object_row(
    id: i32,
    parent: i32,
    name: &str,
    ty: i16,
    flags: i32,
    when_micros: i64,
) -> Vec<(&'static str, Cell)> {
    vec![
        ("Id", Cell::Int(id.into())),
        ("ParentId", Cell::Int(parent.into())),
        ("Name", Cell::Text(name.to_string())),
        ("Type", Cell::Int(ty.into())),
        ("DateCreate", Cell::Micros(when_micros)),
        ("DateUpdate", Cell::Micros(when_micros)),
        ("Flags", Cell::Int(flags.into())),
    ]
}

/// The container rows of a new database, in the order Access writes them:
/// (id, parent, name, type, flags).
pub const CONTAINERS: &[(i32, i32, &str, i16, i32)] = &[
    (TABLES_ID, ROOT_ID, "Tables", TYPE_CONTAINER, FLAG_SYSTEM),
    (
        DATABASES_ID,
        ROOT_ID,
        "Databases",
        TYPE_CONTAINER,
        FLAG_SYSTEM,
    ),
    (
        RELATIONSHIPS_ID,
        ROOT_ID,
        "Relationships",
        TYPE_CONTAINER,
        FLAG_SYSTEM,
    ),
    (
        MSYSDB_ID,
        DATABASES_ID,
        "MSysDb",
        TYPE_DATABASE,
        FLAG_SYSTEM,
    ),
    (i32::MIN + 2, ROOT_ID, "Forms", TYPE_CONTAINER, 0),
    (i32::MIN + 3, ROOT_ID, "Reports", TYPE_CONTAINER, 0),
    (i32::MIN + 4, ROOT_ID, "Scripts", TYPE_CONTAINER, 0),
    (i32::MIN + 5, ROOT_ID, "Modules", TYPE_CONTAINER, 0),
    (i32::MIN + 6, ROOT_ID, "SysRel", TYPE_CONTAINER, 0),
];
