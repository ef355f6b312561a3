//! `ALTER TABLE … ALTER COLUMN … type`: the widenings that keep every
//! value exactly.
//!
//! - Text(n) to Text(m), m ≥ n: only the definition's length changes; no
//!   row is rewritten (a stored text is never longer than its column) and
//!   index keys do not depend on the declared length.
//! - Byte → Integer → Long → Double, Byte/Integer/Long → Large Number
//!   (BigInt, ACE16 and later only), Single → Double: every value has an
//!   exact image in the new type. The column keeps its number (so index
//!   definitions, property maps and null-mask bits stay), gets a fixed
//!   offset of the new width past the other fixed columns, and every live
//!   row is rewritten in place through the row writer (a row that no longer
//!   fits its page moves and leaves an overflow pointer, so bookmarks stay
//!   valid). Each real index over the column is re-keyed: all its entries
//!   are removed under the old key, then added under the new one.
//!
//! Everything else is refused before anything is written, naming the two
//! types: narrowing, changes between unrelated types, auto-number and
//! complex columns, a column a relationship (enforced or not) names, and
//! Text to Memo (not done yet: it needs the column's long-value usage maps
//! added to the definition).

use super::columns::Located;
use super::{Entry, Transaction};
use crate::error::{WResult, WriteError};
use crate::format::types::JetType;
use crate::format::{JetVersion, OwnedField};
use crate::index::Bookmark;
use crate::schema::tdef::TableDef;
use crate::write::{data_page, row, tdef as wtdef};

/// Whether `from` widens to `to` without changing any value.
fn numeric_widening(version: JetVersion, from: JetType, to: JetType) -> bool {
    use JetType::*;
    let big = version >= JetVersion::Ace16;
    matches!(
        (from, to),
        (Byte, Integer | Long | Double)
            | (Integer, Long | Double)
            | (Long, Double)
            | (Single, Double)
    ) || (big && matches!((from, to), (Byte | Integer | Long, BigInt)))
}

/// The stored bytes of a `from` value as a `to` value (`numeric_widening`
/// holds).
fn widen(from: JetType, to: JetType, b: &[u8]) -> Option<Vec<u8>> {
    let int = match from {
        JetType::Byte => Some(i64::from(*b.first()?)),
        JetType::Integer => Some(i64::from(i16::from_le_bytes(b.get(..2)?.try_into().ok()?))),
        JetType::Long => Some(i64::from(i32::from_le_bytes(b.get(..4)?.try_into().ok()?))),
        _ => None,
    };
    Some(match (int, to) {
        (Some(v), JetType::Integer) => i16::try_from(v).ok()?.to_le_bytes().to_vec(),
        (Some(v), JetType::Long) => i32::try_from(v).ok()?.to_le_bytes().to_vec(),
        (Some(v), JetType::BigInt) => v.to_le_bytes().to_vec(),
        // |v| < 2^31: exact in a double
        (Some(v), JetType::Double) => (v as f64).to_le_bytes().to_vec(),
        (None, JetType::Double) if from == JetType::Single => {
            f64::from(f32::from_le_bytes(b.get(..4)?.try_into().ok()?))
                .to_le_bytes()
                .to_vec()
        }
        _ => return None,
    })
}

fn type_name(t: JetType, chars: Option<u16>) -> String {
    match (t, chars) {
        (JetType::Text, Some(n)) => format!("Text({n})"),
        _ => t.name().to_string(),
    }
}

impl Transaction<'_> {
    /// Changes the type of column `column` of user table `table` to `to`
    /// (`text_chars`: the new length of a Text column, in characters,
    /// 1–255; ignored for other types). Only widenings that keep every
    /// value exactly are done (see the module documentation); afterwards
    /// every row reads the same values in the new type and every index
    /// holds exactly the keys of the rows. Refused before anything is
    /// written: [`WriteError::NoSuchTable`], [`WriteError::NoSuchColumn`],
    /// [`WriteError::Unsupported`] for a system table, and
    /// [`WriteError::BadDefinition`] naming both types for any other
    /// change, or naming the relationship that names the column.
    pub fn alter_column_type(
        &mut self,
        table: &str,
        column: &str,
        to: JetType,
        text_chars: Option<u16>,
    ) -> WResult<()> {
        self.refuse_jet3_schema(&format!("ALTER COLUMN {column:?} of table {table:?}"))?;
        let Located { table, def, pos } = self.locate_column(table, column, "altering")?;
        let col = def.columns[pos].clone();
        let version = self.version;
        let from_chars = (col.jet_type == JetType::Text).then_some(col.length / 2);
        let refuse = |why: &str| WriteError::BadDefinition {
            table: table.clone(),
            why: format!(
                "changing column {:?} from {} to {}: {why}",
                col.name,
                type_name(col.jet_type, from_chars),
                type_name(to, text_chars.or(Some(255)))
            ),
        };
        if col.is_auto_number() {
            return Err(refuse("an auto-number column keeps its type"));
        }
        let text = col.jet_type == JetType::Text && to == JetType::Text;
        if !text && !numeric_widening(version, col.jet_type, to) {
            return Err(refuse(
                "only widenings that keep every value are done (Byte → Integer → Long → Double, Single → Double, Text(n) → Text(m ≥ n), and → Large Number on ACE16+)",
            ));
        }
        if let Some(rel) = self.relationship_naming(&table, &col.name)? {
            return Err(refuse(&format!(
                "relationship {rel:?} names it; delete the relationship first"
            )));
        }
        let mut new = def.clone();
        if text {
            let chars = text_chars.unwrap_or(255);
            if chars == 0 || chars > 255 || chars * 2 < col.length {
                return Err(refuse(
                    "a Text column keeps or grows its length (at most 255)",
                ));
            }
            new.columns[pos].length = chars * 2;
        } else {
            self.refuse_related_index(&table, &def, col.col_num)
                .map_err(|why| refuse(&why))?;
            let c = &mut new.columns[pos];
            c.jet_type = to;
            c.length = to.fixed_size().unwrap_or(0) as u16;
            c.fixed_offset = def
                .columns
                .iter()
                .filter(|o| o.col_num != col.col_num && o.is_fixed())
                .map(|o| o.fixed_offset + crate::read::row::fixed_len(o) as u16)
                .max()
                .unwrap_or(0);
            wtdef::set_sort_or_precision(c, 0, 0);
        }
        let chain = crate::schema::tdef::read_chain(&self.ov, def.page)?;
        let bytes = wtdef::columns::with_changed_column(
            self.tdef_format(),
            &table,
            &def,
            &chain,
            &new,
            col.col_num,
        )?;
        if text {
            wtdef::write_chain(&mut self.ov, def.page, &bytes, true)?;
            self.state(&table)?.def = new;
            return self.change_table_props(&table, def.page, |_| false);
        }
        // the rows, re-encoded; every check that can fail on a value runs
        // before the first page is written
        let mut rows: Vec<(Bookmark, Vec<OwnedField>, Vec<u8>)> = Vec::new();
        let l = self.layout();
        let max = data_page::max_row_len(l);
        let mut failed = None;
        let version = self.version;
        self.each_live_row(&def, |bm, mut fields| {
            let old = fields.clone();
            if let OwnedField::Bytes(b) = &fields[pos] {
                match widen(col.jet_type, to, b) {
                    Some(v) => fields[pos] = OwnedField::Bytes(v),
                    None => {
                        failed.get_or_insert(bm);
                        return Ok(());
                    }
                }
            }
            let row_bytes = super::pad_row(version, row::assemble(version, &new, &fields));
            if row_bytes.len() > max {
                failed.get_or_insert(bm);
            }
            rows.push((bm, old, row_bytes));
            Ok(())
        })?;
        if let Some(bm) = failed {
            return Err(refuse(&format!(
                "the row at page {}, row {} cannot be re-encoded",
                bm.page, bm.row
            )));
        }
        let keyed: Vec<_> = def
            .real_indexes
            .iter()
            .filter(|ri| ri.key.iter().any(|(k, _)| *k == col.col_num))
            .cloned()
            .collect();
        let mut keys = Vec::with_capacity(rows.len());
        for (_, old, _) in &rows {
            let mut fresh = old.clone();
            if let OwnedField::Bytes(b) = &old[pos] {
                fresh[pos] = OwnedField::Bytes(widen(col.jet_type, to, b).unwrap_or_default());
            }
            let mut per = Vec::with_capacity(keyed.len());
            for ri in &keyed {
                per.push((
                    self.index_key(&table, &def, ri, old)?,
                    self.index_key(&table, &new, ri, &fresh)?,
                ));
            }
            keys.push(per);
        }
        // from here on pages are written
        wtdef::write_chain(&mut self.ov, def.page, &bytes, true)?;
        self.state(&table)?.def = new.clone();
        for ((bm, _, _), per) in rows.iter().zip(&keys) {
            for (ri, (was, _)) in keyed.iter().zip(per) {
                self.index_entry(&table, &def, ri, was, *bm, Entry::Delete)?;
            }
        }
        let shown = vec![String::from("(re-keyed)"); new.columns.len()];
        for ((bm, _, _), per) in rows.iter().zip(&keys) {
            for (ri, (_, now)) in keyed.iter().zip(per) {
                self.index_entry(&table, &new, ri, now, *bm, Entry::Insert(&shown))?;
            }
        }
        for (bm, _, row_bytes) in &rows {
            self.rewrite_row(&table, &new, *bm, row_bytes)?;
        }
        self.change_table_props(&table, def.page, |_| false)
    }

    /// Refuses (with the reason) changing a column that is a key column of
    /// an index a relationship uses (this table's foreign-key index, or an
    /// index another table's relationship references).
    fn refuse_related_index(
        &mut self,
        table: &str,
        def: &TableDef,
        col_num: u16,
    ) -> Result<(), String> {
        for li in &def.indexes {
            let Some(ri) = def.real_indexes.get(li.real_index as usize) else {
                continue;
            };
            if !ri.key.iter().any(|(k, _)| *k == col_num) {
                continue;
            }
            if li.kind == crate::schema::tdef::IndexKind::ForeignKey {
                return Err(format!("index {:?} belongs to a relationship", li.name));
            }
            match self.referencing_table(def.page, li.number) {
                Ok(Some(other)) => {
                    return Err(format!(
                        "index {:?} is referenced by a relationship of table {other:?}",
                        li.name
                    ));
                }
                Ok(None) => {}
                Err(e) => return Err(format!("reading the other tables: {e} ({table})")),
            }
        }
        Ok(())
    }
}
