//! Table definitions on the write side: the schema a caller asks for
//! ([`TableSpec`]), its layout into a [`TableDef`] (column numbers, fixed
//! offsets, variable indexes, real and logical indexes), the TDEF chain
//! written and its counters patched.
//!
//! Exports: the specs ([`TableSpec`], [`ColumnSpec`], [`IndexSpec`],
//! [`TdefExtra`]) and flag constants ([`INDEX_UNIQUE`], [`INDEX_IGNORE_NULLS`],
//! [`INDEX_REQUIRED`], …), [`layout`], [`encode()`], [`TdefFormat`],
//! [`parse_extra`], [`write_chain`], [`patch_counters`] and [`check_name`].
//!
//! The parts, whose imports point one way (what several of them need is in
//! `spec.rs`: the specs, constants and name rules): `encode.rs` (a whole
//! definition's bytes), `index_def.rs` (index declarations checked and
//! added), `splice.rs` (index descriptors added to and cut from a stored
//! definition, and where its page pointers are) and `columns.rs` (column
//! descriptors of a stored definition changed in place).

pub(crate) mod columns;
mod encode;
pub(crate) mod index_def;
mod spec;
pub(crate) mod splice;

pub use encode::{TdefFormat, encode, logical_index_entry, name_bytes, real_index_entry};
pub use spec::{
    COL_UPDATABLE, ColumnSpec, INDEX_IGNORE_NULLS, INDEX_REQUIRED, INDEX_UNIQUE, IndexSpec,
    MAGIC_INDEX, MAGIC_TABLE, MAX_INDEX_COLUMNS, SORT_GENERAL, TABLE_SYSTEM, TABLE_USER, TableSpec,
    TdefExtra, check_name,
};

use crate::error::{WResult, WriteError};
use crate::format::types::JetType;
use crate::format::{JetVersion, page_type};
use crate::page::image::PageStore;
use crate::schema::tdef::{
    COL_AUTO_GUID, COL_AUTO_LONG, COL_FIXED, COL_HYPERLINK, Column, EXT_COMPRESSED_UNICODE,
    TableDef,
};
use crate::write::overlay::PageOverlay;
use spec::bad;

/// Checks one column spec against what `version` can store and returns its
/// stored length, flags and extended flags.
pub fn column_shape(version: JetVersion, table: &str, c: &ColumnSpec) -> WResult<(u16, u8, u8)> {
    check_name(table, "column", &c.name)?;
    let t = c.jet_type;
    let mut flags = COL_UPDATABLE;
    let mut ext = 0u8;
    let len = match t {
        JetType::Text => {
            if c.size == 0 || c.size > 255 {
                return Err(bad(
                    table,
                    format!(
                        "Text column {:?}: size {} (1 to 255 characters)",
                        c.name, c.size
                    ),
                ));
            }
            if version.is_jet3() {
                // one byte per character in the code page
                c.size
            } else {
                ext |= EXT_COMPRESSED_UNICODE;
                c.size * 2
            }
        }
        JetType::Binary => {
            if c.size == 0 || c.size > 255 {
                return Err(bad(
                    table,
                    format!(
                        "Binary column {:?}: size {} (1 to 255 bytes)",
                        c.name, c.size
                    ),
                ));
            }
            c.size
        }
        JetType::Memo => {
            if !version.is_jet3() {
                ext |= EXT_COMPRESSED_UNICODE;
            }
            0
        }
        JetType::Numeric | JetType::BigInt if version.is_jet3() => {
            return Err(bad(
                table,
                format!(
                    "column {:?}: Access 97 (Jet3) files have no {} type",
                    c.name,
                    t.name()
                ),
            ));
        }
        JetType::Ole => 0,
        JetType::Numeric => {
            if c.precision == 0 || c.precision > 28 || c.scale > c.precision {
                return Err(bad(
                    table,
                    format!(
                        "Numeric column {:?}: precision {} scale {} (1 ≤ precision ≤ 28, scale ≤ precision)",
                        c.name, c.precision, c.scale
                    ),
                ));
            }
            17
        }
        JetType::BigInt if version < JetVersion::Ace16 => {
            return Err(bad(
                table,
                format!(
                    "column {:?}: Large Number needs ACE16 (Access 2016) or later",
                    c.name
                ),
            ));
        }
        JetType::Boolean
        | JetType::Byte
        | JetType::Integer
        | JetType::Long
        | JetType::Currency
        | JetType::Single
        | JetType::Double
        | JetType::DateTime
        | JetType::Guid
        | JetType::BigInt => t.fixed_size().map(|s| s.max(1) as u16).unwrap_or(0),
        other => {
            return Err(WriteError::Unsupported(format!(
                "column {:?} of type {} (table {table:?})",
                c.name,
                other.name()
            )));
        }
    };
    if t.fixed_size().is_some() {
        flags |= COL_FIXED;
    }
    if c.auto_number {
        match t {
            JetType::Long => flags |= COL_AUTO_LONG,
            JetType::Guid => flags |= COL_AUTO_GUID,
            _ => {
                return Err(bad(
                    table,
                    format!("column {:?}: auto-number needs Long or GUID", c.name),
                ));
            }
        }
    }
    if c.hyperlink {
        if t != JetType::Memo {
            return Err(bad(
                table,
                format!("column {:?}: hyperlink needs Memo", c.name),
            ));
        }
        flags |= COL_HYPERLINK;
    }
    Ok((len, flags, ext))
}

/// Lays out `spec` as a table definition whose first TDEF page is `page`.
/// Usage-map pointers and index roots are left 0 for the caller to fill.
pub fn layout(version: JetVersion, spec: &TableSpec, page: u32, system: bool) -> WResult<TableDef> {
    let table = spec.name.as_str();
    check_name(table, "table", table)?;
    if spec.columns.is_empty() {
        return Err(bad(table, "a table needs at least one column"));
    }
    if spec.columns.len() > 255 {
        return Err(bad(table, "more than 255 columns"));
    }
    let mut seen = std::collections::HashSet::new();
    for c in &spec.columns {
        if !seen.insert(c.name.to_lowercase()) {
            return Err(bad(table, format!("duplicate column name {:?}", c.name)));
        }
    }
    let mut columns = Vec::new();
    for (i, c) in spec.columns.iter().enumerate() {
        let (length, flags, ext_flags) = column_shape(version, table, c)?;
        columns.push(Column {
            name: c.name.clone(),
            jet_type: c.jet_type,
            col_num: i as u16,
            var_index: 0,
            fixed_offset: 0,
            length,
            flags,
            ext_flags,
            precision: 0,
            scale: 0,
            sort_order: 0,
            code_page: 0,
            sort_order_version: 0,
            required: c.not_null,
            default_value: c.default_value.clone(),
            complex_id: None,
        });
        if let Some(col) = columns.last_mut() {
            set_sort_or_precision(col, c.precision, c.scale);
        }
    }
    assign_offsets(&mut columns);
    let mut def = TableDef {
        page,
        stated_rows: 0,
        autonumber: 0,
        complex_autonumber: 0,
        table_type: if system { TABLE_SYSTEM } else { TABLE_USER },
        max_cols: columns.len() as u16,
        num_var_cols: columns.iter().filter(|c| !c.is_fixed()).count() as u16,
        columns,
        real_indexes: Vec::new(),
        indexes: Vec::new(),
        usage_map: 0,
        free_map: 0,
    };
    for idx in &spec.indexes {
        index_def::add_index(&mut def, table, idx)?;
    }
    Ok(def)
}

/// Sets the sort order, code page, precision and scale of every column of
/// a Jet3 definition to what its descriptors hold once encoded: Access 97
/// stores sort order 1033 and the database's code page in every column's
/// descriptor, and the parser reads the code page's bytes as precision and
/// scale. Leaves Jet4/ACE definitions alone.
pub fn set_jet3_descriptor_fields(def: &mut TableDef, f: TdefFormat) {
    if !f.version.is_jet3() {
        return;
    }
    let cp = codepage::from_encoding(f.encoding).unwrap_or(0);
    let [lo, hi] = cp.to_le_bytes();
    for c in &mut def.columns {
        c.sort_order = SORT_GENERAL;
        c.code_page = cp;
        c.precision = lo;
        c.scale = hi;
    }
}

/// Sets the four bytes a column descriptor shares between the text sort
/// order and the numeric precision/scale, as the parser reads them back.
pub fn set_sort_or_precision(col: &mut Column, precision: u8, scale: u8) {
    let [lo, hi] = SORT_GENERAL.to_le_bytes();
    match col.jet_type {
        JetType::Text | JetType::Memo => {
            col.sort_order = SORT_GENERAL;
            col.precision = lo;
            col.scale = hi;
        }
        JetType::Numeric => {
            col.precision = precision;
            col.scale = scale;
            col.sort_order = u16::from_le_bytes([precision, scale]);
        }
        _ => {
            col.precision = 0;
            col.scale = 0;
            col.sort_order = 0;
        }
    }
}

/// Assigns fixed offsets (in column order; Booleans take no fixed bytes)
/// and variable indexes (non-long variable columns first, then long
/// values, as Access does).
pub fn assign_offsets(columns: &mut [Column]) {
    let mut fixed = 0u16;
    for c in columns.iter_mut().filter(|c| c.is_fixed()) {
        c.fixed_offset = fixed;
        fixed += c.jet_type.fixed_size().unwrap_or(0) as u16;
    }
    let mut var = 0u16;
    for long in [false, true] {
        for c in columns
            .iter_mut()
            .filter(|c| !c.is_fixed() && c.jet_type.is_long_value() == long)
        {
            c.var_index = var;
            var += 1;
        }
    }
}

/// Reads the long-value column usage-map list that follows the logical
/// index names of a TDEF (ends with `FF FF`); empty when absent.
pub fn parse_extra(def: &TableDef, chain: &[u8], version: JetVersion) -> TdefExtra {
    let mut out = TdefExtra::default();
    if let Some(p) = splice::pointer_offsets(def, chain, version) {
        out.lval_maps = p.lval_maps.iter().map(|&(c, o, f, _)| (c, o, f)).collect();
    }
    out
}

/// Writes definition bytes `def` as the TDEF chain starting at `first`,
/// reusing the pages of the existing chain (when `existing` is true) and
/// appending more when the definition grew. Returns the chain's pages.
pub fn write_chain(
    ov: &mut PageOverlay,
    first: u32,
    def: &[u8],
    existing: bool,
) -> WResult<Vec<u32>> {
    let ps = ov.page_size();
    let mut old_pages = Vec::new();
    if existing {
        let mut p = first;
        let mut guard = 0;
        while p != 0 && guard < 1024 {
            old_pages.push(p);
            let bytes = ov.read_vec(p)?;
            p = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
            guard += 1;
        }
    } else {
        old_pages.push(first);
    }
    // Jet3 pages carry `VC` where Jet4/ACE pages keep their free space
    let jet3 = def.get(2..4) == Some(&encode::JET3_TDEF_TAG[..]);
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let (head, mut rest) = def.split_at(def.len().min(ps));
    chunks.push(head.to_vec());
    while !rest.is_empty() {
        let (c, r) = rest.split_at(rest.len().min(ps - 8));
        let mut page = vec![page_type::TDEF, 0x01, 0, 0, 0, 0, 0, 0];
        page.extend_from_slice(c);
        chunks.push(page);
        rest = r;
    }
    let mut pages = Vec::new();
    for k in 0..chunks.len() {
        let p = match old_pages.get(k) {
            Some(&p) => p,
            None => crate::write::alloc::append_page(ov)?,
        };
        pages.push(p);
    }
    for (k, mut c) in chunks.into_iter().enumerate() {
        let used = c.len();
        c.resize(ps, 0);
        let next = pages.get(k + 1).copied().unwrap_or(0);
        c[4..8].copy_from_slice(&next.to_le_bytes());
        if jet3 {
            c[2..4].copy_from_slice(&encode::JET3_TDEF_TAG);
        } else {
            let free = u16::try_from(ps.saturating_sub(used + 8)).unwrap_or(0);
            c[2..4].copy_from_slice(&free.to_le_bytes());
        }
        ov.write(pages[k], &c)?;
    }
    // pages of a chain that shrank are left as empty TDEF continuation
    // pages no chain points at
    for &p in old_pages.iter().skip(pages.len()) {
        let mut c = vec![0u8; ps];
        c[0] = page_type::TDEF;
        c[1] = 0x01;
        if jet3 {
            c[2..4].copy_from_slice(&encode::JET3_TDEF_TAG);
        }
        ov.write(p, &c)?;
    }
    Ok(pages)
}

/// Patches the row count and auto-number counters of the TDEF at
/// `page` (the complex-id counter only in ACE files).
pub fn patch_counters(
    ov: &mut PageOverlay,
    version: JetVersion,
    page: u32,
    rows: u32,
    autonumber: u32,
    complex_autonumber: u32,
) -> WResult<()> {
    let l = version.layout();
    let mut b = ov.read_vec(page)?;
    if b[0] != page_type::TDEF {
        return Err(crate::error::FormatError::PageType {
            page,
            expected: "table definition",
            found: b[0],
        }
        .into());
    }
    b[l.tdef_num_rows..l.tdef_num_rows + 4].copy_from_slice(&rows.to_le_bytes());
    b[l.tdef_autonumber..l.tdef_autonumber + 4].copy_from_slice(&autonumber.to_le_bytes());
    if version.is_ace() {
        let at = l.tdef_complex_autonumber;
        b[at..at + 4].copy_from_slice(&complex_autonumber.to_le_bytes());
    }
    ov.write(page, &b)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::tdef::Direction;

    /// A Complex column's id (all four bytes at descriptor offset 11)
    /// survives encode and parse, as compaction needs.
    #[test]
    fn complex_id_round_trips() {
        let spec = TableSpec::new("T", vec![ColumnSpec::new("c", JetType::Long)]);
        let mut def = layout(JetVersion::Jet4, &spec, 9, false).unwrap();
        def.columns[0].jet_type = JetType::Complex;
        def.columns[0].complex_id = Some(0x0102_0304);
        let bytes = encode(
            TdefFormat::unicode(JetVersion::Jet4),
            &def,
            &TdefExtra::default(),
        )
        .unwrap();
        let back =
            crate::schema::tdef::parse(JetVersion::Jet4, 9, &bytes, "T", encoding_rs::WINDOWS_1252)
                .unwrap();
        assert_eq!(back.columns[0].complex_id, Some(0x0102_0304));
        assert_eq!(back.columns[0].jet_type, JetType::Complex);
    }

    #[test]
    fn layout_then_encode_parses_back() {
        let spec = TableSpec::new(
            "T",
            vec![
                ColumnSpec::new("id", JetType::Long).auto_number(),
                ColumnSpec::text("name", 50),
                ColumnSpec::new("flag", JetType::Boolean),
                ColumnSpec::new("memo", JetType::Memo),
                ColumnSpec::numeric("amount", 12, 2),
                ColumnSpec::new("when", JetType::DateTime),
            ],
        )
        .index(IndexSpec::primary("PrimaryKey", &["id"]))
        .index(IndexSpec {
            columns: vec![
                ("name".into(), Direction::Descending),
                ("when".into(), Direction::Ascending),
            ],
            ..IndexSpec::new("by_name", &[])
        });
        let mut def = layout(JetVersion::Jet4, &spec, 9, false).unwrap();
        def.usage_map = 10 << 8;
        def.free_map = (10 << 8) | 1;
        def.real_indexes[0].root_page = 11;
        let extra = TdefExtra {
            lval_maps: vec![(3, (10 << 8) | 4, (10 << 8) | 5)],
        };
        let bytes = encode(TdefFormat::unicode(JetVersion::Jet4), &def, &extra).unwrap();
        let back =
            crate::schema::tdef::parse(JetVersion::Jet4, 9, &bytes, "T", encoding_rs::WINDOWS_1252)
                .unwrap();
        assert_eq!(back.columns, def.columns);
        assert_eq!(back.real_indexes, def.real_indexes);
        assert_eq!(back.indexes, def.indexes);
        assert_eq!(
            (back.usage_map, back.free_map),
            (def.usage_map, def.free_map)
        );
        assert_eq!(parse_extra(&back, &bytes, JetVersion::Jet4), extra);
        // every pointer is where the encoder put it
        let p = splice::pointer_offsets(&back, &bytes, JetVersion::Jet4).unwrap();
        let at =
            |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        assert_eq!(
            (at(p.usage_map), at(p.free_map)),
            (def.usage_map, def.free_map)
        );
        assert_eq!(
            p.real_indexes
                .iter()
                .map(|&(m, r)| (at(m), at(r)))
                .collect::<Vec<_>>(),
            def.real_indexes
                .iter()
                .map(|r| (r.usage_map, r.root_page))
                .collect::<Vec<_>>()
        );
        assert_eq!(p.lval_maps.len(), 1);
        let (_, _, _, o) = p.lval_maps[0];
        assert_eq!((at(o), at(o + 4)), ((10 << 8) | 4, (10 << 8) | 5));
        assert_eq!(
            back.columns[3].var_index, 1,
            "long values after other variable columns"
        );
        assert!(
            layout(
                JetVersion::Jet4,
                &TableSpec::new("x", vec![ColumnSpec::text("a", 300)]),
                9,
                false
            )
            .is_err()
        );
        assert!(
            layout(
                JetVersion::Jet4,
                &TableSpec::new("x", vec![ColumnSpec::new("b", JetType::BigInt)]),
                9,
                false
            )
            .is_err()
        );
    }
}
