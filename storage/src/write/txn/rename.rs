//! `ALTER TABLE … RENAME TO …`: a table's name lives in its `MSysObjects`
//! row (and in `MSysNavPaneObjectIDs`, the navigation pane's list, where
//! one exists); its TDEF and every id stay as they are.
//!
//! Other objects name tables in text: relationships (`MSysRelationships`
//! rows name both tables) and saved queries (`MSysQueries` rows name their
//! tables and hold expressions that may name them). Access's own rename
//! leaves queries to "Name AutoCorrect"; this writer never leaves a
//! dangling name behind, so a table named by any relationship row or any
//! query row (table names, expressions — matched case-insensitively as a
//! whole word) is refused by name, before anything is written.

use super::Transaction;
use crate::error::{WResult, WriteError};
use crate::format::OwnedField;
use crate::format::types::JetType;
use crate::schema::catalog::ObjectKind;
use crate::schema::tdef::TableDef;
use crate::write::row::Cell;
use crate::write::tdef as wtdef;

impl Transaction<'_> {
    /// Renames user table `old` to `new` (`ALTER TABLE old RENAME TO
    /// new`). The `MSysObjects` row's `Name` (and `DateUpdate`, set to
    /// the writer's catalog clock, [`crate::write::Writer::set_clock`]) and the table's `MSysNavPaneObjectIDs` row change;
    /// nothing else. Refused before anything is written:
    /// [`WriteError::NoSuchTable`], [`WriteError::TableExists`] when
    /// another table or query has the name (case-insensitively),
    /// [`WriteError::BadDefinition`] for an invalid name,
    /// [`WriteError::Unsupported`] for a system table or a table that a
    /// relationship or a saved query names (the message names them).
    pub fn rename_table(&mut self, old: &str, new: &str) -> WResult<()> {
        self.refuse_jet3_schema(&format!("renaming table {old:?}"))?;
        self.flush_indexes()?;
        let entry = self
            .entry(old)
            .cloned()
            .ok_or_else(|| WriteError::NoSuchTable(old.to_string()))?;
        if entry.is_system() {
            return Err(WriteError::Unsupported(format!(
                "renaming system table {:?}",
                entry.name
            )));
        }
        wtdef::check_name(new, "table", new)?;
        if self.catalog.iter().any(|e| {
            (e.is_table() || e.kind == ObjectKind::Query)
                && e.name.eq_ignore_ascii_case(new)
                && e != &entry
        }) {
            return Err(WriteError::TableExists(new.to_string()));
        }
        if let Some(why) = self.named_by_relationship(&entry.name)? {
            return Err(WriteError::Unsupported(format!(
                "renaming table {:?}: {why} names it (delete the relationship first)",
                entry.name
            )));
        }
        if let Some(query) = self.named_by_query(&entry.name)? {
            return Err(WriteError::Unsupported(format!(
                "renaming table {:?}: saved query {query:?} names it",
                entry.name
            )));
        }
        let page = entry.tdef_page();
        let bm = self.find_catalog_row(&entry.name, page)?;
        let cat = self.state("MSysObjects")?.def.clone();
        let mut cells = vec![None; cat.columns.len()];
        for (i, c) in cat.columns.iter().enumerate() {
            if c.name.eq_ignore_ascii_case("Name") {
                cells[i] = Some(Cell::Text(new.to_string()));
            } else if c.name.eq_ignore_ascii_case("DateUpdate") {
                // the writer's catalog time stamp (Writer::set_clock), whole ms
                cells[i] = Some(Cell::Micros(self.clock - self.clock.rem_euclid(1000)));
            }
        }
        self.update_row("MSysObjects", "MSysObjects", &cat, bm, &cells)?;
        self.rename_in_nav_pane(entry.id, new)?;
        for e in &mut self.catalog {
            if *e == entry {
                e.name = new.to_string();
            }
        }
        if let Some(mut st) = self.tables.remove(&entry.name.to_lowercase()) {
            st.name = new.to_string();
            self.tables.insert(new.to_lowercase(), st);
        }
        Ok(())
    }

    /// Text of the Text or Memo fields of every live row of system table
    /// `table` (absent: no rows), one `Vec` per row, `None` for other
    /// columns and NULLs.
    pub(super) fn text_rows(
        &mut self,
        table: &str,
    ) -> WResult<Vec<(TableDef, Vec<Option<String>>)>> {
        if !self
            .catalog
            .iter()
            .any(|e| e.kind == ObjectKind::Table && e.name.eq_ignore_ascii_case(table))
        {
            return Ok(Vec::new());
        }
        let def = self.state(table)?.def.clone();
        let l = self.layout();
        let mut rows = Vec::new();
        self.each_live_row(&def, |bm, fields| {
            let mut texts = Vec::with_capacity(fields.len());
            for (c, f) in def.columns.iter().zip(&fields) {
                let OwnedField::Bytes(b) = f else {
                    texts.push(None);
                    continue;
                };
                let raw = match c.jet_type {
                    JetType::Text => b.clone(),
                    JetType::Memo => {
                        let mut out = Vec::new();
                        crate::read::lval::read_long_value(&self.ov, l, b, bm.page, 0, &mut out)?;
                        out
                    }
                    _ => {
                        texts.push(None);
                        continue;
                    }
                };
                let mut s = String::new();
                crate::format::text::decode_ucs2(&raw, &mut s);
                texts.push(Some(s));
            }
            rows.push(texts);
            Ok(())
        })?;
        Ok(rows.into_iter().map(|r| (def.clone(), r)).collect())
    }

    /// The relationship (by name) whose `MSysRelationships` row names
    /// table `name` as either side.
    fn named_by_relationship(&mut self, name: &str) -> WResult<Option<String>> {
        for (def, row) in self.text_rows("MSysRelationships")? {
            let col = |n: &str| {
                def.columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(n))
                    .and_then(|i| row[i].clone())
            };
            let names = [col("szObject"), col("szReferencedObject")];
            if names.iter().flatten().any(|t| t.eq_ignore_ascii_case(name)) {
                let rel = col("szRelationship").unwrap_or_default();
                return Ok(Some(format!("relationship {rel:?}")));
            }
        }
        Ok(None)
    }

    /// The saved query (by name, or by object id when it has no catalog
    /// row) with an `MSysQueries` row whose text names `name` as a word.
    fn named_by_query(&mut self, name: &str) -> WResult<Option<String>> {
        let rows = self.text_rows("MSysQueries")?;
        if rows.is_empty() {
            return Ok(None);
        }
        let def = self.state("MSysQueries")?.def.clone();
        let id_col = def
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case("ObjectId"));
        let mut ids = Vec::new();
        if let Some(i) = id_col {
            self.each_live_row(&def, |_, fields| {
                ids.push(match &fields[i] {
                    OwnedField::Bytes(b) if b.len() == 4 => {
                        Some(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    }
                    _ => None,
                });
                Ok(())
            })?;
        }
        for (k, (_, row)) in rows.iter().enumerate() {
            if row.iter().flatten().any(|t| names_word(t, name)) {
                let id = ids.get(k).copied().flatten();
                let query = id
                    .and_then(|id| self.catalog.iter().find(|e| e.id == id))
                    .map_or_else(|| format!("with object id {id:?}"), |e| e.name.clone());
                return Ok(Some(query));
            }
        }
        Ok(None)
    }

    /// Sets `Name` of the `MSysNavPaneObjectIDs` rows whose `Id` is `id`.
    fn rename_in_nav_pane(&mut self, id: i32, new: &str) -> WResult<()> {
        const NAV: &str = "MSysNavPaneObjectIDs";
        if !self
            .catalog
            .iter()
            .any(|e| e.kind == ObjectKind::Table && e.name.eq_ignore_ascii_case(NAV))
        {
            return Ok(());
        }
        let def = self.state(NAV)?.def.clone();
        let (Some(id_col), Some(name_col)) = (
            def.columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case("Id")),
            def.columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case("Name")),
        ) else {
            return Ok(());
        };
        let mut hits = Vec::new();
        self.each_live_row(&def, |bm, fields| {
            if matches!(&fields[id_col], OwnedField::Bytes(b) if b.len() == 4 && i32::from_le_bytes([b[0], b[1], b[2], b[3]]) == id)
            {
                hits.push(bm);
            }
            Ok(())
        })?;
        let real = self.state(NAV)?.name.clone();
        for bm in hits {
            let mut cells = vec![None; def.columns.len()];
            cells[name_col] = Some(Cell::Text(new.to_string()));
            self.update_row(NAV, &real, &def, bm, &cells)?;
        }
        Ok(())
    }
}

/// Whether `text` holds `name` as a whole word (case-insensitively; a word
/// boundary is any character that cannot be part of an unbracketed name,
/// or a bracket).
pub(super) fn names_word(text: &str, name: &str) -> bool {
    let t = text.to_lowercase();
    let n = name.to_lowercase();
    if n.is_empty() {
        return false;
    }
    let inner = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = t[from..].find(&n) {
        let s = from + i;
        let e = s + n.len();
        let before = t[..s].chars().next_back();
        let after = t[e..].chars().next();
        if !before.is_some_and(inner) && !after.is_some_and(inner) {
            return true;
        }
        from = s + t[s..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::names_word;

    #[test]
    fn whole_words_only() {
        assert!(names_word("SELECT * FROM [Order Details]", "order details"));
        assert!(names_word("Orders.ID = 1", "Orders"));
        assert!(names_word("orders", "ORDERS"));
        assert!(!names_word("OrdersArchive", "Orders"));
        assert!(!names_word("MyOrders", "Orders"));
        assert!(names_word("x, Orders", "Orders"));
        assert!(!names_word("", "Orders"));
        assert!(!names_word("Orders", ""));
    }
}
