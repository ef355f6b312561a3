//! New empty databases, generated entirely in code: the header page (with
//! its RC4-masked area), the global usage-map page, and the system tables
//! MSysObjects (TDEF page 2), MSysACEs, MSysQueries and MSysRelationships
//! with the catalog rows Access creates (containers, MSysDb, the system
//! tables), all written by the same TDEF and row encoders as user tables.
//!
//! Known gaps, documented rather than faked: the system tables carry no
//! indexes (Access builds them with indexes on Id and ParentId/Name; index
//! maintenance lives in another module), and the database has no property
//! objects (SummaryInfo, UserDefined) and no MSysAccessObjects.

use super::catalog::{self, CONTAINERS, FLAG_SYSTEM, TABLES_ID};
use super::row::{Cell, micros_to_access_date};
use super::tdef::{ColumnSpec, TableSpec};
use super::txn::bootstrap;
use super::{alloc, data_page};
use crate::error::{WResult, WriteError};
use crate::format::types::JetType;
use crate::format::{JetVersion, header};
use crate::page::{MemPageSource, PageSource, rc4_apply};
use crate::schema::catalog::{CatalogEntry, ObjectKind, TYPE_TABLE};
use std::sync::Arc;

/// Windows code page of new databases (Western European).
pub const CODE_PAGE: u16 = 1252;
/// Database sort order "General" (locale 1033).
pub const SORT_ORDER: u32 = 1033;

/// Offset of the password area in the masked header (Jet4/ACE, 40 bytes).
const PASSWORD: usize = 0x42;
const PASSWORD_LEN: usize = 40;
/// Offset of the creation date (f64) in the masked header.
const CREATION_DATE: usize = 0x72;

/// The header page of a new database.
pub fn header_page(version: JetVersion, created_micros: i64) -> WResult<Vec<u8>> {
    let l = version.layout();
    let vb: u8 = match version {
        JetVersion::Jet4 => 1,
        JetVersion::Ace12 => 2,
        JetVersion::Ace14 => 3,
        JetVersion::Ace15 => 4,
        JetVersion::Ace16 => 5,
        JetVersion::Ace17 => 6,
        JetVersion::Jet3 => return Err(WriteError::Unsupported("new Jet3 databases".into())),
    };
    let mut p = vec![0u8; l.page_size];
    p[0..4].copy_from_slice(&[0x00, 0x01, 0x00, 0x00]);
    let sig = if version.is_ace() {
        header::ACE_SIGNATURE
    } else {
        header::JET_SIGNATURE
    };
    p[4..4 + sig.len()].copy_from_slice(sig);
    p[header::VERSION] = vb;
    // plaintext of the masked area
    // (0x18..0x30: the sequence Access-written headers carry)
    let seq: [u32; 6] = [0x100, 0x101, 2, 3, 4, 5];
    for (i, v) in seq.iter().enumerate() {
        let o = header::MASK_START + 4 * i;
        p[o..o + 4].copy_from_slice(&v.to_le_bytes());
    }
    p[header::CODE_PAGE..header::CODE_PAGE + 2].copy_from_slice(&CODE_PAGE.to_le_bytes());
    p[header::DB_KEY..header::DB_KEY + 4].copy_from_slice(&0u32.to_le_bytes());
    let date = micros_to_access_date(created_micros - created_micros.rem_euclid(1000))
        .map_err(WriteError::Unsupported)?;
    // the empty password is stored XOR-ed with the creation day
    let mask = (date as i32).to_le_bytes();
    for i in 0..PASSWORD_LEN {
        p[PASSWORD + i] = mask[i % 4];
    }
    p[header::SORT_ORDER_JET4..header::SORT_ORDER_JET4 + 4]
        .copy_from_slice(&SORT_ORDER.to_le_bytes());
    p[CREATION_DATE..CREATION_DATE + 8].copy_from_slice(&date.to_le_bytes());
    rc4_apply(
        &header::MASK_KEY,
        &mut p[header::MASK_START..header::MASK_START + l.header_mask_len],
    );
    Ok(p)
}

/// Page 1: a data page whose row 0 is the database's global usage map
/// (inline, every page but the header page marked, as Access writes it).
fn global_map_page(version: JetVersion) -> Vec<u8> {
    let l = version.layout();
    let mut p = data_page::new_page(l, 1);
    let mut m = alloc::empty_inline(l, 0);
    for b in &mut m[5..] {
        *b = 0xFF;
    }
    m[5] = 0xFE;
    let _ = data_page::insert(l, &mut p, &m, 0);
    p
}

fn text(name: &str) -> ColumnSpec {
    ColumnSpec::text(name, 255)
}
fn col(name: &str, t: JetType) -> ColumnSpec {
    ColumnSpec::new(name, t)
}

/// The system tables of a new database, in TDEF page order.
pub fn system_tables() -> Vec<TableSpec> {
    vec![
        TableSpec::new(
            "MSysObjects",
            vec![
                col("Id", JetType::Long),
                col("ParentId", JetType::Long),
                text("Name"),
                col("Type", JetType::Integer),
                col("DateCreate", JetType::DateTime),
                col("DateUpdate", JetType::DateTime),
                col("Owner", JetType::Binary),
                col("Flags", JetType::Long),
                col("Database", JetType::Memo),
                col("Connect", JetType::Memo),
                text("ForeignName"),
                col("RmtInfoShort", JetType::Binary),
                col("RmtInfoLong", JetType::Ole),
                col("Lv", JetType::Ole),
                col("LvProp", JetType::Ole),
                col("LvModule", JetType::Ole),
                col("LvExtra", JetType::Ole),
            ],
        ),
        TableSpec::new(
            "MSysACEs",
            vec![
                col("ObjectId", JetType::Long),
                col("SID", JetType::Binary),
                col("ACM", JetType::Long),
                col("FInheritable", JetType::Boolean),
            ],
        ),
        TableSpec::new(
            "MSysQueries",
            vec![
                col("ObjectId", JetType::Long),
                col("Attribute", JetType::Byte),
                col("Order", JetType::Binary),
                text("Name1"),
                text("Name2"),
                col("Expression", JetType::Memo),
                col("Flag", JetType::Integer),
                col("LvExtra", JetType::Long),
            ],
        ),
        TableSpec::new(
            "MSysRelationships",
            vec![
                text("szRelationship"),
                col("grbit", JetType::Long),
                col("ccolumn", JetType::Long),
                col("icolumn", JetType::Long),
                text("szObject"),
                text("szColumn"),
                text("szReferencedObject"),
                text("szReferencedColumn"),
            ],
        ),
    ]
}

/// The image of a new, empty database of `version` (Jet4 or ACE), created
/// at `created_micros` (µs since 1970; also the time stamp of its catalog
/// rows). Deterministic: the same arguments give the same bytes.
pub fn new_database(version: JetVersion, created_micros: i64) -> WResult<Vec<u8>> {
    let mut image = header_page(version, created_micros)?;
    image.extend_from_slice(&global_map_page(version));
    let ps = version.layout().page_size;
    let base: Arc<dyn PageSource> = Arc::new(MemPageSource::new(image.clone(), ps));
    let mut tx = bootstrap(base, version, created_micros);
    let mut pages = Vec::new();
    for spec in system_tables() {
        let page = tx.create_table_inner(&spec, true)?;
        tx.note_catalog(CatalogEntry {
            name: spec.name.clone(),
            id: page as i32,
            parent_id: TABLES_ID,
            kind: ObjectKind::Table,
            flags: FLAG_SYSTEM as u32,
            props: Vec::new(),
        });
        pages.push((spec.name, page));
    }
    if pages.first().map(|p| p.1) != Some(crate::read::objects::MSYS_OBJECTS_PAGE) {
        return Err(WriteError::Unsupported(
            "MSysObjects did not land on page 2".into(),
        ));
    }
    for &(id, parent, name, ty, flags) in CONTAINERS {
        tx.insert_named(
            "MSysObjects",
            catalog::object_row(id, parent, name, ty, flags, created_micros),
        )?;
    }
    for (name, page) in &pages {
        tx.insert_named(
            "MSysObjects",
            catalog::object_row(
                *page as i32,
                TABLES_ID,
                name,
                TYPE_TABLE,
                FLAG_SYSTEM,
                created_micros,
            ),
        )?;
    }
    let changes = tx.finish()?;
    changes.apply_to(&mut image)?;
    let _ = Cell::Null;
    Ok(image)
}
