//! Compaction: a database rewritten into a new image without free space,
//! deleted rows, overflow pointers or fragmented long values, reading
//! identically.
//!
//! # How
//!
//! A table's object id in `MSysObjects` is its TDEF page number, and ids
//! are referenced from rows (`MSysObjects.Id`, `MSysComplexColumns`,
//! `MSysACEs`, `MSysNavPaneObjectIDs`, …) and from relationship index
//! descriptors. So every table keeps the number of its first TDEF page,
//! and every other page is rebuilt around them:
//!
//! 1. the new image starts as the header page and page 1 (the global usage
//!    map page) byte for byte, and each table's first TDEF page number
//!    reserved; every other page number below the last of those is free
//!    and is used first (lowest first) before the image grows;
//! 2. per table, in TDEF page order (system tables included, `MSysObjects`
//!    first): its TDEF chain is copied byte for byte with only its page
//!    pointers changed (continuation pages, usage maps, index roots, the
//!    long-value column maps) and the row count set to the rows copied;
//!    every live row is copied as its stored fields (overflowed rows
//!    followed, long values read whole and stored anew, inline when the
//!    row fits); every real index is rebuilt bottom-up from the entries
//!    the old index holds (the exact key bytes Access wrote, each pointing
//!    at the row's new place), in index order;
//! 3. the new image is read back and compared, row by row and index by
//!    index, with the original before it is returned.
//!
//! # Kept and not kept
//!
//! Kept exactly: every table (user, system, hidden complex-column tables)
//! with its TDEF bytes (columns, indexes, relationship descriptors,
//! auto-number counter, unknown bytes), object ids, every live row's
//! stored field bytes (so saved queries, relationships, properties,
//! forms/reports blobs, attachments — all rows — read identically), every
//! index's entries and their order, the header page and page 1.
//!
//! Not kept: deleted rows, free space, overflow pointers, old index and
//! long-value page layouts, pages no table references (dropped tables and
//! indexes), and the TDEF row count when it was wrong (it becomes the
//! number of live rows). A long value stored out of row may become inline
//! (it reads the same).
//!
//! Refused by name, nothing written: Money and encoded files; a
//! real index whose entries do not match the table's live rows (an entry
//! for a row that is not live, a row listed twice, or fewer or more entries
//! than rows); a long-value column holding out-of-row data without column
//! usage maps in its TDEF; a TDEF whose pointers cannot be located.
//!
//! The file form ([`compact_file`]) writes the new image to a temporary
//! file beside its destination (`.<name>.jetcompact-<pid>`), flushes it,
//! and renames it over the destination, then flushes the directory: a
//! failure or a kill before the rename leaves the original file as it was
//! (at worst a stray temporary file).

use super::alloc;
use super::replace::{Destination, rewrite_file};
use super::txn::{MapPages, copy};
use crate::error::{FormatError, WResult, WriteError};
use crate::format::{JetVersion, OwnedField, page_type};
use crate::index::write::build_index;
use crate::index::{Bookmark, Direction};
use crate::page::{MemPageSource, PageSource};
use crate::read::database::{Database, read_header};
use crate::schema::tdef::{self, TableDef};
use crate::write::overlay::PageOverlay;
use crate::write::tdef::splice::pointer_offsets;
use crate::write::tdef::{INDEX_IGNORE_NULLS, TdefExtra};
use jet_kernels::index_entry::compare_entries;
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// What a compaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactReport {
    /// Format of the database.
    pub version: JetVersion,
    /// Bytes of the original image.
    pub bytes_before: u64,
    /// Bytes of the compacted image.
    pub bytes_after: u64,
    /// Tables copied (system tables included).
    pub tables: usize,
    /// Live rows copied.
    pub rows: u64,
    /// Real indexes rebuilt.
    pub indexes: usize,
    /// Pages below the last table definition that nothing needed: they
    /// stay in the file as zero pages (table definitions keep their page
    /// numbers, which are the tables' object ids).
    pub unused_pages: usize,
}

fn refuse(why: String) -> crate::Error {
    crate::Error::Write(Box::new(WriteError::Unsupported(why)))
}

fn werr(e: WriteError) -> crate::Error {
    crate::Error::Write(Box::new(e))
}

/// Compacts the database image `image` (see the module documentation for
/// what is kept, what is not, and what is refused). Returns the new image,
/// already read back and compared with the original table by table, row
/// by row and index by index, and the report. Never changes `image`.
pub fn compact_image(image: &[u8]) -> crate::Result<(Vec<u8>, CompactReport)> {
    let r = rebuild(image)?;
    verify_all(&r.old, &r.base, &*r.src, &r.copied)?;
    Ok((r.base, r.report))
}

/// A rebuilt image, not yet verified, with what verifying needs.
struct Rebuilt {
    old: Database,
    src: Arc<dyn PageSource>,
    base: Vec<u8>,
    copied: Vec<Copied>,
    report: CompactReport,
}

/// Builds the compacted image of `image` (see [`compact_image`]).
fn rebuild(image: &[u8]) -> crate::Result<Rebuilt> {
    let header = read_header(&image[..image.len().min(4096)])?;
    let version = header.version;
    if header.db_key != 0 {
        return Err(FormatError::Encrypted("compacting encoded databases").into());
    }
    if header.msisam {
        return Err(refuse(
            "compacting a Microsoft Money (MSISAM) file: the writer does not write them".into(),
        ));
    }
    let l = version.layout();
    let ps = l.page_size;
    if !image.len().is_multiple_of(ps) || image.len() < 3 * ps {
        return Err(FormatError::NotJet(format!(
            "{} bytes is not a whole number of {ps}-byte pages of a database",
            image.len()
        ))
        .into());
    }
    let src: Arc<dyn PageSource> = Arc::new(MemPageSource::new(image.to_vec(), ps));
    let old = Database::from_page_source(src.clone())?;
    let tables = table_list(&old)?;
    let reserved: BTreeSet<u32> = [0, 1]
        .into_iter()
        .chain(tables.iter().map(|t| t.1))
        .collect();
    let top = reserved.last().copied().unwrap_or(1) + 1;
    let mut base = vec![0u8; top as usize * ps];
    base[..2 * ps].copy_from_slice(&image[..2 * ps]);
    let free: Vec<u32> = (2..top).filter(|p| !reserved.contains(p)).collect();
    let ov = PageOverlay::with_free_pages(Arc::new(MemPageSource::new(base.clone(), ps)), &free);
    let mut tx = copy::over(ov, version);
    let mut maps = MapPages::default();
    let mut copied = Vec::with_capacity(tables.len());
    let mut rows = 0u64;
    let mut indexes = 0;
    for (name, page) in &tables {
        let c = copy_table(&old, &*src, &mut tx, &mut maps, name, *page)
            .map_err(|e| werr(e).in_table(name))?;
        rows += c.moved.len() as u64;
        indexes += c.index_entries.len();
        copied.push(c);
    }
    let ov = tx.into_overlay();
    let unused_pages = ov.unused_free_pages();
    let changes = ov.into_changes()?;
    changes.apply_to(&mut base)?;
    let report = CompactReport {
        version,
        bytes_before: image.len() as u64,
        bytes_after: base.len() as u64,
        tables: tables.len(),
        rows,
        indexes,
        unused_pages,
    };
    Ok(Rebuilt {
        old,
        src,
        base,
        copied,
        report,
    })
}

/// The local tables of the catalog as (name, first TDEF page), in page
/// order; refuses two entries naming one page or one name, a page outside
/// the image, and a catalog without `MSysObjects` at page 2.
fn table_list(db: &Database) -> crate::Result<Vec<(String, u32)>> {
    let pages = db.page_source().page_count();
    let mut out: Vec<(String, u32)> = db
        .catalog()
        .iter()
        .filter(|e| e.kind == crate::schema::catalog::ObjectKind::Table)
        .map(|e| (e.name.clone(), e.tdef_page()))
        .collect();
    out.sort_by_key(|t| t.1);
    let mut names = HashSet::new();
    for w in out.windows(2) {
        if w[0].1 == w[1].1 {
            return Err(refuse(format!(
                "compacting: tables {:?} and {:?} name the same definition page {}",
                w[0].0, w[1].0, w[0].1
            )));
        }
    }
    for (n, p) in &out {
        if !names.insert(n.to_lowercase()) {
            return Err(refuse(format!("compacting: two tables are named {n:?}")));
        }
        if *p < 2 || *p >= pages {
            return Err(refuse(format!(
                "compacting: table {n:?} names definition page {p}, outside the file"
            )));
        }
    }
    if out.first().map(|t| t.1) != Some(crate::read::objects::MSYS_OBJECTS_PAGE) {
        return Err(refuse(
            "compacting: the catalog does not list MSysObjects at page 2".into(),
        ));
    }
    Ok(out)
}

/// One copied table: where its rows went, and the entries of each real
/// index as built.
struct Copied {
    name: String,
    moved: Vec<(Bookmark, Bookmark)>,
    index_entries: Vec<Vec<(Vec<u8>, Bookmark)>>,
}

/// The pages of the TDEF chain starting at `first`.
fn chain_pages(src: &dyn PageSource, first: u32) -> WResult<Vec<u32>> {
    let mut out = vec![first];
    let mut seen: HashSet<u32> = out.iter().copied().collect();
    let mut p = first;
    loop {
        let b = src.read_page(p)?;
        if b[0] != page_type::TDEF {
            return Err(FormatError::PageType {
                page: p,
                expected: "table definition",
                found: b[0],
            }
            .into());
        }
        let next = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        if next == 0 {
            return Ok(out);
        }
        if !seen.insert(next) {
            return Err(crate::error::corrupt(
                p,
                4,
                "TDEF chain loops",
                jet_kernels::Refusal::Budget,
            )
            .into());
        }
        out.push(next);
        p = next;
    }
}

/// Writes `value` at offset `o` of the chain bytes laid over `pages`
/// (the first page whole, each following one after its 8-byte header).
fn patch_chain(pages: &mut [Vec<u8>], ps: usize, o: usize, value: u32) -> WResult<()> {
    for (i, b) in value.to_le_bytes().into_iter().enumerate() {
        let at = o + i;
        let (k, off) = if at < ps {
            (0, at)
        } else {
            (1 + (at - ps) / (ps - 8), 8 + (at - ps) % (ps - 8))
        };
        let page = pages.get_mut(k).ok_or_else(|| {
            WriteError::Unsupported(format!("a TDEF pointer at offset {o} past its chain"))
        })?;
        page[off] = b;
    }
    Ok(())
}

/// Copies one table into `tx`: its chain with new pointers, its rows,
/// its indexes rebuilt.
fn copy_table(
    old: &Database,
    src: &dyn PageSource,
    tx: &mut crate::write::Transaction<'_>,
    maps: &mut MapPages,
    name: &str,
    first: u32,
) -> WResult<Copied> {
    let version = old.version();
    let l = version.layout();
    let ps = l.page_size;
    let t = old.table(name)?;
    let def: TableDef = t.def().clone();
    let chain = tdef::read_chain(src, first)?;
    let ptrs = pointer_offsets(&def, &chain, version).ok_or_else(|| {
        WriteError::Unsupported(format!(
            "compacting table {name:?}: the page pointers of its definition cannot be located"
        ))
    })?;
    let old_pages = chain_pages(src, first)?;
    let mut new_pages = vec![first];
    for _ in 1..old_pages.len() {
        new_pages.push(alloc::append_page(tx.overlay_mut())?);
    }
    let mut chain_bytes: Vec<Vec<u8>> = Vec::with_capacity(old_pages.len());
    for (k, &p) in old_pages.iter().enumerate() {
        let mut b = src.read_page(p)?.to_vec();
        let next = new_pages.get(k + 1).copied().unwrap_or(0);
        b[4..8].copy_from_slice(&next.to_le_bytes());
        chain_bytes.push(b);
    }
    // new usage maps
    let mut nd = def.clone();
    nd.usage_map = tx.map_row(maps, &alloc::empty_inline(l, 0))?;
    nd.free_map = tx.map_row(maps, &alloc::empty_inline(l, 0))?;
    let mut extra = TdefExtra::default();
    for &(c, _, _, _) in &ptrs.lval_maps {
        let owned = tx.map_row(maps, &alloc::empty_inline(l, 0))?;
        let free = tx.map_row(maps, &alloc::empty_inline(l, 0))?;
        extra.lval_maps.push((c, owned, free));
    }
    tx.adopt_table(name, nd.clone(), extra.clone());
    // rows
    let mut moved = Vec::new();
    let mut at: HashMap<Bookmark, Bookmark> = HashMap::new();
    let key_cols: Vec<Vec<usize>> = def
        .real_indexes
        .iter()
        .map(|ri| {
            ri.key
                .iter()
                .filter_map(|(n, _)| def.columns.iter().position(|c| c.col_num == *n))
                .collect()
        })
        .collect();
    let mut null_keys: Vec<HashSet<Bookmark>> = vec![HashSet::new(); def.real_indexes.len()];
    // rows, streamed page by page; a write error is kept as it is
    let mut failed: Option<WriteError> = None;
    let streamed = t.each_raw_row(|bm, mut fields| {
        let step = (|| -> WResult<()> {
            resolve_long_values(&def, src, l, bm, &mut fields)?;
            for (i, cols) in key_cols.iter().enumerate() {
                if cols.iter().all(|&p| matches!(fields[p], OwnedField::Null)) {
                    null_keys[i].insert(bm);
                }
            }
            let nb = tx.copy_row(name, &nd, fields)?;
            moved.push((bm, nb));
            at.insert(bm, nb);
            Ok(())
        })();
        step.map_err(|e| {
            failed = Some(e);
            crate::Error::from(FormatError::NotJet("row copy stopped".into()))
        })
    });
    if let Some(e) = failed {
        return Err(e);
    }
    streamed?;
    // indexes, from the old entries
    let mut index_entries = Vec::with_capacity(def.real_indexes.len());
    for (i, ri) in def.real_indexes.iter().enumerate() {
        let label = index_label(&def, i);
        let bad = |why: String| WriteError::Index {
            table: name.to_string(),
            why: format!("{label}: {why}; compacting would change the index, nothing was written"),
        };
        let mut entries = Vec::new();
        let mut seen = HashSet::new();
        for e in t.index(i)?.walk(Direction::Forward)? {
            let e = e?;
            let nb = *at.get(&e.bookmark).ok_or_else(|| {
                bad(format!(
                    "an entry points at page {}, row {}, which holds no live row",
                    e.bookmark.page, e.bookmark.row
                ))
            })?;
            if !seen.insert(e.bookmark) {
                return Err(bad(format!(
                    "the row at page {}, row {} has two entries",
                    e.bookmark.page, e.bookmark.row
                )));
            }
            entries.push((e.key, nb));
        }
        let want = if ri.flags & INDEX_IGNORE_NULLS != 0 {
            moved.len() - null_keys[i].len()
        } else {
            moved.len()
        };
        if entries.len() != want {
            return Err(bad(format!(
                "it holds {} entries for {want} rows",
                entries.len()
            )));
        }
        entries.sort_by(|a, b| compare_entries(&a.0, a.1.page, a.1.row, &b.0, b.1.page, b.1.row));
        let (root, pages) = build_index(tx.overlay_mut(), l, first, &entries)
            .map_err(|e| bad(format!("rebuilding: {e}")))?;
        let map = tx.map_row(maps, &alloc::empty_inline(l, 0))?;
        for &p in &pages.allocated {
            alloc::set_member(tx.overlay_mut(), l, map, p, true)?;
        }
        patch_chain(&mut chain_bytes, ps, ptrs.real_indexes[i].0, map)?;
        patch_chain(&mut chain_bytes, ps, ptrs.real_indexes[i].1, root)?;
        index_entries.push(entries);
    }
    // the chain, re-pointed
    patch_chain(&mut chain_bytes, ps, ptrs.usage_map, nd.usage_map)?;
    patch_chain(&mut chain_bytes, ps, ptrs.free_map, nd.free_map)?;
    let rows = u32::try_from(moved.len()).unwrap_or(u32::MAX);
    patch_chain(&mut chain_bytes, ps, ptrs.rows, rows)?;
    for (&(_, _, _, o), &(_, owned, free)) in ptrs.lval_maps.iter().zip(&extra.lval_maps) {
        patch_chain(&mut chain_bytes, ps, o, owned)?;
        patch_chain(&mut chain_bytes, ps, o + 4, free)?;
    }
    for (k, b) in chain_bytes.iter().enumerate() {
        crate::page::image::PageStore::write(tx.overlay_mut(), new_pages[k], b)?;
    }
    Ok(Copied {
        name: name.to_string(),
        moved,
        index_entries,
    })
}

/// The names of the logical indexes backed by real index `i`, for errors.
fn index_label(def: &TableDef, i: usize) -> String {
    let names: Vec<&str> = def
        .indexes
        .iter()
        .filter(|l| l.real_index as usize == i)
        .map(|l| l.name.as_str())
        .collect();
    if names.is_empty() {
        format!("real index {i}")
    } else {
        format!("index {}", names.join(" / "))
    }
}

/// Replaces the long-value descriptors among `fields` (a row of `def` at
/// `bm`) by the values' whole data.
fn resolve_long_values(
    def: &TableDef,
    src: &dyn PageSource,
    layout: &crate::format::Layout,
    bm: Bookmark,
    fields: &mut [OwnedField],
) -> WResult<()> {
    for (c, f) in def.columns.iter().zip(fields.iter_mut()) {
        if !c.jet_type.is_long_value() {
            continue;
        }
        if let OwnedField::Bytes(d) = f {
            let mut out = Vec::new();
            crate::read::lval::read_long_value(src, layout, d, bm.page, 0, &mut out)?;
            *f = OwnedField::Bytes(out);
        }
    }
    Ok(())
}

/// [`verify`] of every copied table against the new image `base`.
fn verify_all(
    old: &Database,
    base: &[u8],
    old_src: &dyn PageSource,
    copied: &[Copied],
) -> crate::Result<()> {
    let new = Database::from_bytes(base.to_vec())?;
    for c in copied {
        verify(old, &new, old_src, c).map_err(|e| e.in_table(&c.name))?;
    }
    Ok(())
}

/// Reads table `c.name` back from the new image: every row's fields (long
/// values whole) equal the original's, no other row is live, and every
/// real index walks exactly the entries built.
fn verify(
    old: &Database,
    new: &Database,
    old_src: &dyn PageSource,
    c: &Copied,
) -> crate::Result<()> {
    let differs = |what: String| refuse(format!("compacting: the copy differs: {what}"));
    let ot = old.table(&c.name)?;
    let nt = new.table(&c.name)?;
    let new_src = &**new.page_source();
    let l = old.version().layout();
    // every row, in order, with its place in the copy: one digest over the
    // original's rows (at the places they were copied to) and one over the
    // copy's; only when they differ are rows compared one by one to name
    // the first difference
    let mut a = Sha256::new();
    let mut k = 0usize;
    let mut out_of_order = false;
    ot.each_raw_row(|bm, mut fields| {
        match c.moved.get(k) {
            Some(&(ob, nb)) if ob == bm => {
                resolve_long_values(ot.def(), old_src, l, bm, &mut fields).map_err(werr)?;
                digest_row(&mut a, nb, &fields);
            }
            _ => out_of_order = true,
        }
        k += 1;
        Ok(())
    })?;
    let mut b = Sha256::new();
    let mut live = 0usize;
    nt.each_raw_row(|bm, mut fields| {
        resolve_long_values(nt.def(), new_src, l, bm, &mut fields).map_err(werr)?;
        digest_row(&mut b, bm, &fields);
        live += 1;
        Ok(())
    })?;
    if out_of_order || k != c.moved.len() {
        return Err(differs("the original's rows changed while copying".into()));
    }
    if live != c.moved.len() {
        return Err(differs(format!(
            "{} rows copied, {live} live in the copy",
            c.moved.len()
        )));
    }
    if a.finalize() != b.finalize() {
        for &(ob, nb) in &c.moved {
            let row = |t: &crate::Table, src: &dyn PageSource, bm: Bookmark| {
                let mut f = t.raw_row(bm)?.unwrap_or_default();
                resolve_long_values(t.def(), src, l, bm, &mut f).map_err(werr)?;
                Ok::<_, crate::Error>(f)
            };
            let (a, b) = (row(&ot, old_src, ob)?, row(&nt, new_src, nb)?);
            if let Some(col) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
                let name = ot.def().columns.get(col).map_or("?", |c| c.name.as_str());
                return Err(differs(format!(
                    "column {name:?} of the row at page {}, row {} reads differently at page {}, row {} ({:?} vs {:?})",
                    ob.page,
                    ob.row,
                    nb.page,
                    nb.row,
                    short(a.get(col)),
                    short(b.get(col))
                )));
            }
        }
        return Err(differs(
            "the rows are not at the places they were copied to".into(),
        ));
    }
    for (i, want) in c.index_entries.iter().enumerate() {
        let got: Vec<(Vec<u8>, Bookmark)> = nt
            .index(i)?
            .walk(Direction::Forward)?
            .map(|e| e.map(|e| (e.key, e.bookmark)))
            .collect::<Result<_, _>>()?;
        if &got != want {
            return Err(differs(format!(
                "{} walks differently",
                index_label(nt.def(), i)
            )));
        }
    }
    Ok(())
}

/// Feeds a row (its place and fields) into a digest, unambiguously.
fn digest_row(h: &mut Sha256, bm: Bookmark, fields: &[OwnedField]) {
    h.update(bm.page.to_le_bytes());
    h.update([bm.row]);
    for f in fields {
        match f {
            OwnedField::Null => h.update([0u8]),
            OwnedField::Bool(v) => h.update([1u8, u8::from(*v)]),
            OwnedField::Bytes(b) => {
                h.update([2u8]);
                h.update((b.len() as u64).to_le_bytes());
                h.update(b);
            }
        }
    }
}

/// A field shortened for an error message.
fn short(f: Option<&OwnedField>) -> String {
    match f {
        Some(OwnedField::Bytes(b)) if b.len() > 16 => {
            format!("{} bytes {:02X?}…", b.len(), &b[..16])
        }
        f => format!("{f:?}"),
    }
}

/// Compacts the database file at `path`. With `output` `None` the file is
/// replaced, else the compacted copy is written to `output`, which must
/// not exist; either way through [`rewrite_file`] (the writer's lock held,
/// a crash journal recovered first, the new image built beside and renamed
/// over, so a crash leaves the original or the compacted file). Any error
/// leaves the original (and `output`) as they were.
pub fn compact_file(path: &Path, output: Option<&Path>) -> crate::Result<CompactReport> {
    let to = output.map_or(Destination::InPlace, Destination::NewFile);
    rewrite_file(path, to, compact_image)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The read-back comparison notices rows that are not where the copy
    /// says they went, and names the column that differs.
    #[test]
    fn verification_names_a_misplaced_row() {
        use crate::write::{ColumnSpec, TableSpec, Writer};
        let bytes = crate::write::new_database(JetVersion::Jet4, 0).unwrap();
        let mut w = Writer::new(crate::page::image::MemImage { bytes }).unwrap();
        w.transaction(|tx| {
            tx.create_table(&TableSpec::new(
                "T",
                vec![ColumnSpec::new("n", crate::format::types::JetType::Long)],
            ))?;
            for i in 0..10 {
                tx.insert_named("T", vec![("n", crate::write::Cell::Int(i))])?;
            }
            Ok(())
        })
        .unwrap();
        let image = w.into_target().bytes;
        let mut r = rebuild(&image).unwrap();
        verify_all(&r.old, &r.base, &*r.src, &r.copied).unwrap();
        let c = r.copied.iter_mut().find(|c| c.name == "T").unwrap();
        let (a, b) = (c.moved[0].1, c.moved[1].1);
        c.moved[0].1 = b;
        c.moved[1].1 = a;
        let e = verify_all(&r.old, &r.base, &*r.src, &r.copied).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("column \"n\"") && msg.contains("\"T\""),
            "{msg}"
        );
    }

    #[test]
    fn compact_file_in_place_equals_compact_to_a_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.accdb");
        let bytes = crate::write::new_database(JetVersion::Ace12, 0).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let out = dir.path().join("y.accdb");
        let r = compact_file(&path, Some(&out)).unwrap();
        assert_eq!(r.bytes_after, std::fs::metadata(&out).unwrap().len());
        let r2 = compact_file(&path, None).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&out).unwrap());
        assert_eq!(r, r2);
    }
}
