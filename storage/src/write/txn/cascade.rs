//! Referential actions of enforced relationships, performed inside the
//! transaction that changes the primary row.
//!
//! When a referenced row is deleted, a relationship with cascade delete
//! deletes the referencing rows (whose own relationships then act in
//! turn: chains cascade), one with set NULL on delete sets their
//! referencing columns to NULL (refused when such a column is required).
//! When a referenced key changes, a relationship with cascade update
//! writes the new key into the referencing rows, after the primary row is
//! written (so their own reference checks see the new key). Referencing
//! rows are found by a scan of their table that compares index keys (the
//! relationship's equality: text compares as the index collates it).
//!
//! A cascade that reaches a table whose rows an outer cascade of the same
//! change is already changing (a cycle, including a table related to
//! itself) is refused; the caller's error abandons the transaction, so
//! nothing of it reaches the file.
//!
//! Key values in the messages of these actions and of the relationship
//! checks (`relations`) are shown by [`show`].

use super::Transaction;
use crate::error::{WResult, WriteError};
use crate::format::OwnedField;
use crate::format::types::JetType;
use crate::index::Bookmark;
use crate::index::key::encode_key;
use crate::schema::tdef::{RealIndex, TableDef};

/// What a referential action does to the referencing rows.
#[derive(Debug, Clone)]
pub(crate) enum CascadeKind {
    /// Delete them.
    Delete,
    /// Set these columns (positions in the referencing table) to NULL.
    SetNull(Vec<usize>),
    /// Store these fields (position, new value) in them.
    Rekey(Vec<(usize, OwnedField)>),
}

/// One referential action: `kind` applied to `rows` of `table`.
#[derive(Debug, Clone)]
pub(crate) struct Cascade {
    /// The referencing table.
    pub(crate) table: String,
    /// Its foreign-key index (the relationship), for messages.
    pub(crate) relationship: String,
    /// The referencing rows.
    pub(crate) rows: Vec<Bookmark>,
    /// The action.
    pub(crate) kind: CascadeKind,
}

impl Transaction<'_> {
    /// The live rows of `def`'s table whose key in real index `ri` is
    /// `key`.
    pub(super) fn rows_with_key(
        &mut self,
        def: &TableDef,
        ri: &RealIndex,
        key: &[u8],
    ) -> WResult<Vec<Bookmark>> {
        let version = self.version;
        let mut out = Vec::new();
        self.each_live_row(def, |bm, fields| {
            let k = encode_key(&def.columns, &ri.key, &fields, version).map_err(|source| {
                WriteError::IndexKey {
                    table: format!("TDEF page {}", def.page),
                    source,
                }
            })?;
            if k == key {
                out.push(bm);
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Runs the referential actions a change of a row of table `from`
    /// requires (see the module documentation).
    pub(super) fn run_cascades(&mut self, from: &str, cascades: Vec<Cascade>) -> WResult<()> {
        if cascades.is_empty() {
            return Ok(());
        }
        self.cascading.push(from.to_lowercase());
        let result = self.run_each(from, cascades);
        self.cascading.pop();
        result
    }

    fn run_each(&mut self, from: &str, cascades: Vec<Cascade>) -> WResult<()> {
        for c in cascades {
            if self.cascading.contains(&c.table.to_lowercase()) {
                return Err(WriteError::Unsupported(format!(
                    "referential actions in a cycle: relationship {:?} of table {:?} would change table {:?} again (changing {from:?})",
                    c.relationship, c.table, c.table
                )));
            }
            match c.kind {
                CascadeKind::Delete => {
                    // a row an earlier action of this change removed is gone
                    let def = self.state(&c.table)?.def.clone();
                    let mut live = Vec::with_capacity(c.rows.len());
                    for bm in c.rows {
                        if self.read_fields(&def, bm)?.is_some() {
                            live.push(bm);
                        }
                    }
                    self.delete_rows(&c.table, &live)?;
                }
                CascadeKind::SetNull(cols) => {
                    let st = self.state(&c.table)?;
                    let (def, tname) = (st.def.clone(), st.name.clone());
                    // a required column, or a key column of a required
                    // (primary-key) index, refuses NULL
                    let probe: Vec<crate::write::row::Cell> = (0..def.columns.len())
                        .map(|i| {
                            if cols.contains(&i) {
                                crate::write::row::Cell::Null
                            } else {
                                crate::write::row::Cell::Int(0)
                            }
                        })
                        .collect();
                    self.check_required(&tname, &def, &probe)?;
                    let values: Vec<(usize, OwnedField)> =
                        cols.into_iter().map(|p| (p, OwnedField::Null)).collect();
                    self.set_fields(&c.table, &tname, &def, &c.rows, &values)?;
                }
                CascadeKind::Rekey(values) => {
                    let st = self.state(&c.table)?;
                    let (def, tname) = (st.def.clone(), st.name.clone());
                    self.set_fields(&c.table, &tname, &def, &c.rows, &values)?;
                }
            }
        }
        Ok(())
    }

    /// Stores `values` (position, field) in the rows `rows` of `table`.
    fn set_fields(
        &mut self,
        table: &str,
        tname: &str,
        def: &TableDef,
        rows: &[Bookmark],
        values: &[(usize, OwnedField)],
    ) -> WResult<()> {
        for &bm in rows {
            let Some(old) = self.read_fields(def, bm)? else {
                continue;
            };
            let mut fields = old.clone();
            let mut changed = vec![false; def.columns.len()];
            let mut shown = vec!["(unchanged)".to_string(); def.columns.len()];
            for (p, v) in values {
                fields[*p] = v.clone();
                changed[*p] = true;
                shown[*p] = show(def, *p, v, self.text_codec());
            }
            self.update_row_fields(table, tname, def, bm, old, fields, &changed, &shown)?;
        }
        Ok(())
    }
}

/// A key value for an error message; `jet3` is the code page of an
/// Access 97 database's text (`None`: Jet4/ACE UCS-2 text).
pub(super) fn show(
    def: &TableDef,
    p: usize,
    f: &OwnedField,
    jet3: Option<&'static encoding_rs::Encoding>,
) -> String {
    let OwnedField::Bytes(b) = f else {
        return match f {
            OwnedField::Bool(v) => v.to_string(),
            _ => "NULL".into(),
        };
    };
    let int = |n: usize| {
        (b.len() == n).then(|| {
            let mut v = [0u8; 8];
            v[..n].copy_from_slice(b);
            i64::from_le_bytes(v)
        })
    };
    let text = match def.columns[p].jet_type {
        JetType::Byte => int(1).map(|v| v.to_string()),
        JetType::Integer => (b.len() == 2).then(|| i16::from_le_bytes([b[0], b[1]]).to_string()),
        JetType::Long => {
            (b.len() == 4).then(|| i32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string())
        }
        JetType::BigInt => int(8).map(|v| v.to_string()),
        JetType::Text | JetType::Memo => {
            let mut s = String::new();
            match jet3 {
                Some(enc) => crate::format::text::decode_codepage(b, enc, &mut s),
                None => crate::format::text::decode_ucs2(b, &mut s),
            }
            Some(format!("{s:?}"))
        }
        _ => None,
    };
    text.unwrap_or_else(|| b.iter().map(|x| format!("{x:02X}")).collect::<String>())
}
