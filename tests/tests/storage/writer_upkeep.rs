//! Bookkeeping a demanding user hits first, checked after deletes, updates
//! and reopening: usage maps stay exact (the owned map lists exactly the
//! table's data pages, the free-space map exactly those with room, and the
//! long-value maps exactly the LVAL pages), the TDEF row count equals the
//! live rows, and auto-numbers continue after a reopen without reusing the
//! numbers of deleted rows.

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use jet_storage::page::{MemPageSource, PageSource};
use jet_storage::write::data_page::LVAL_OWNER;
use jet_storage::write::lval::has_room;
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec, Writer, new_database};
use jet_storage::{Database, JetType, JetVersion, MemImage, ScanOptions};
use std::collections::BTreeSet;
use std::sync::Arc;

const CLOCK: i64 = 946_684_800_000_000;

fn batch(from: usize, n: usize) -> RecordBatch {
    RecordBatch::try_from_iter(vec![
        (
            "name",
            Arc::new(StringArray::from(
                (from..from + n)
                    .map(|i| format!("name {i}"))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "memo",
            Arc::new(StringArray::from(
                (from..from + n)
                    .map(|i| "long value ".repeat(i % 400))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .unwrap()
}

/// The usage maps of `T` (and of its memo column) against the pages.
fn maps_are_exact(bytes: &[u8], v: JetVersion) {
    let l = v.layout();
    let src = MemPageSource::new(bytes.to_vec(), l.page_size);
    let db = Database::from_page_source(Arc::new(MemPageSource::new(bytes.to_vec(), l.page_size)))
        .unwrap();
    let t = db.table("T").unwrap();
    let def = t.def();
    let mut data = BTreeSet::new();
    let mut lval = BTreeSet::new();
    for p in 0..src.page_count() {
        let page = src.read_page(p).unwrap();
        if page[0] != 0x01 {
            continue;
        }
        let owner = u32::from_le_bytes(page[4..8].try_into().unwrap());
        if owner == def.page {
            data.insert(p);
        } else if owner == LVAL_OWNER {
            lval.insert(p);
        }
    }
    let read = |ptr: u32| -> BTreeSet<u32> {
        jet_storage::read::usage_map::read_pages(&src, l, ptr)
            .unwrap()
            .into_iter()
            .collect()
    };
    let with_room = |pages: &BTreeSet<u32>| -> BTreeSet<u32> {
        pages
            .iter()
            .copied()
            .filter(|&p| has_room(l, &src.read_page(p).unwrap()))
            .collect()
    };
    assert_eq!(read(def.usage_map), data, "{v:?}: owned map");
    assert_eq!(
        read(def.free_map),
        with_room(&data),
        "{v:?}: free-space map"
    );
    assert!(!lval.is_empty(), "{v:?}: the memo column has LVAL pages");
    let chain = jet_storage::schema::tdef::read_chain(&src, def.page).unwrap();
    let extra = jet_storage::write::tdef::parse_extra(def, &chain, v);
    let [(_, owned, free)] = extra.lval_maps.as_slice() else {
        panic!("{v:?}: one long-value column, {:?}", extra.lval_maps)
    };
    assert_eq!(read(*owned), lval, "{v:?}: LVAL owned map");
    assert_eq!(read(*free), with_room(&lval), "{v:?}: LVAL free-space map");
    assert_eq!(
        def.stated_rows as usize,
        t.bookmarks().unwrap().len(),
        "{v:?}: TDEF row count"
    );
}

fn ids(w: &Writer<MemImage>) -> Vec<i32> {
    let db = w.database().unwrap();
    let t = db.table("T").unwrap();
    let mut out = Vec::new();
    for b in t.scan(ScanOptions::default()).unwrap() {
        let b = b.unwrap();
        out.extend(b.column(0).as_primitive::<Int32Type>().values().iter());
    }
    out.sort();
    out
}

#[test]
fn usage_maps_row_counts_and_auto_numbers_survive_deletes_and_reopen() {
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let mut w = Writer::new(MemImage {
            bytes: new_database(v, CLOCK).unwrap(),
        })
        .unwrap();
        w.transaction(|tx| {
            tx.create_table(
                &TableSpec::new(
                    "T",
                    vec![
                        ColumnSpec::new("id", JetType::Long).auto_number(),
                        ColumnSpec::text("name", 30),
                        ColumnSpec::new("memo", JetType::Memo),
                    ],
                )
                .index(IndexSpec::primary("PrimaryKey", &["id"])),
            )?;
            tx.insert("T", &batch(0, 1500))
        })
        .unwrap();
        maps_are_exact(&w.target().bytes, v);
        // delete the newest 200 rows and every third of the rest, grow some
        // memos (rows move to other pages), shrink others
        w.transaction(|tx| {
            let bms = tx.bookmarks("T")?;
            let mut dead: Vec<_> = bms[1300..].to_vec();
            dead.extend(bms[..1300].iter().copied().step_by(3));
            tx.delete("T", &dead)?;
            let keep: Vec<_> = tx.bookmarks("T")?.into_iter().step_by(4).collect();
            let n = keep.len();
            let memos = RecordBatch::try_from_iter(vec![(
                "memo",
                Arc::new(StringArray::from(
                    (0..n)
                        .map(|i| (i % 2 == 0).then(|| "grown ".repeat(300 + i)))
                        .collect::<Vec<_>>(),
                )) as ArrayRef,
            )])
            .unwrap();
            tx.update("T", &keep, &memos)?;
            Ok(())
        })
        .unwrap();
        maps_are_exact(&w.target().bytes, v);
        let before = ids(&w);
        assert_eq!(before.len(), 1300 - 1300usize.div_ceil(3));
        assert!(*before.last().unwrap() < 1300);

        // a new writer over the committed image continues the counter
        // after the highest number ever given (1500), not the highest live
        let mut w = Writer::new(w.into_target()).unwrap();
        w.transaction(|tx| tx.insert("T", &batch(5000, 10)))
            .unwrap();
        let after = ids(&w);
        assert_eq!(
            after[after.len() - 10..],
            (1501..=1510).collect::<Vec<_>>()[..]
        );
        maps_are_exact(&w.target().bytes, v);
    }
}
