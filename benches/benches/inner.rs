//! Inner loops of the read path, one at a time:
//! - page decode: every row of one data page into Arrow builders (a scan
//!   restricted to that page, batch sized to it), Jet3 fixed-width rows and
//!   Jet4 text rows;
//! - text decode: Jet4 compressed and plain UCS-2, Jet3 code-page bytes;
//! - key encode: index keys of Long, Double, Currency and Date/Time values;
//! - seek: `IndexReader::seek` of one primary-key value down the B-tree.

use criterion::{BatchSize, Criterion, Throughput, black_box, criterion_main};
use jet_benches::{DATASETS, shared_dir};
use jet_storage::format::OwnedField;
use jet_storage::index::KeyMatch;
use jet_storage::index::key::{KeyValue, encode_column, first_column_bounds};
use jet_storage::read::data_page::DataPage;
use jet_storage::schema::tdef::Direction;
use jet_storage::{Database, OpenOptions, ScanOptions, Table};
use std::ops::Bound;

/// The data page of `t` holding the most rows, and that row count.
fn fullest_page(db: &Database, t: &Table) -> (u32, usize) {
    let layout = db.version().layout();
    let src = db.page_source();
    t.data_pages()
        .unwrap()
        .into_iter()
        .filter_map(|n| {
            let p = DataPage::read(&**src, layout, n).ok()?;
            (p.owner() == t.def().page).then_some((n, p.row_count()))
        })
        .max_by_key(|&(_, rows)| rows)
        .unwrap()
}

fn page_decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("inner/page_decode");
    let nwind = shared_dir().join("corpus/mdbtools/nwind.mdb");
    // the corpus file itself: a small usage map, so the figure is the page
    let jet4 = shared_dir().join("corpus").join(DATASETS[1].source);
    for (label, path, table) in [
        ("jet3_order_details", nwind, "Order Details"),
        ("jet4_text_rows", jet4, DATASETS[1].table),
    ] {
        let db = Database::open(&path, OpenOptions::default()).unwrap();
        let t = db.table(table).unwrap();
        let (page, slots) = fullest_page(&db, &t);
        // builders sized for the page, so the figure is decoding, not the
        // allocation of an 8192-row batch
        let opts = ScanOptions {
            page_range: Some(page..page + 1),
            batch_size: slots,
            ..Default::default()
        };
        let rows: usize = t
            .scan(opts.clone())
            .unwrap()
            .map(|b| b.unwrap().num_rows())
            .sum();
        g.throughput(Throughput::Elements(rows as u64));
        g.bench_function(label, |b| {
            b.iter(|| {
                t.scan(opts.clone())
                    .unwrap()
                    .map(|b| b.unwrap().num_rows())
                    .sum::<usize>()
            })
        });
    }
    g.finish();
}

fn text_decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("inner/text_decode");
    let words = "The quick brown fox jumps over the lazy dog 0123456789";
    let mut compressed = vec![0xFF, 0xFE];
    compressed.extend_from_slice(words.as_bytes());
    let plain: Vec<u8> = words.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    let accented = "Größe Übermaß café naïve ÆØÅ — Ελληνικά";
    let wide: Vec<u8> = accented
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    let cp1252: Vec<u8> = b"Ums\xe4tze f\xfcr Stra\xdfe".to_vec();
    let enc = jet_storage::format::text::encoding_for_code_page(1252);
    g.throughput(Throughput::Elements(1));
    let mut out = String::new();
    g.bench_function("ucs2_compressed_ascii", |b| {
        b.iter(|| {
            out.clear();
            jet_storage::format::text::decode_ucs2(black_box(&compressed), &mut out);
            out.len()
        })
    });
    // compressed text with Latin-1 letters (gen_1m's Label/City columns)
    let mut latin1 = vec![0xFF, 0xFE];
    latin1.extend(
        "Größe Übermaß café naïve ÆØÅ Zürich São Paulo"
            .chars()
            .map(|ch| u8::try_from(u32::from(ch)).expect("a Latin-1 letter")),
    );
    g.bench_function("ucs2_compressed_latin1", |b| {
        b.iter(|| {
            out.clear();
            jet_storage::format::text::decode_ucs2(black_box(&latin1), &mut out);
            out.len()
        })
    });
    // the borrowed path the scan takes first for every Jet4 text value
    g.bench_function("compressed_ascii_borrow", |b| {
        b.iter(|| jet_storage::format::text::compressed_ascii(black_box(&compressed)).map(str::len))
    });
    g.bench_function("ucs2_plain_ascii", |b| {
        b.iter(|| {
            out.clear();
            jet_storage::format::text::decode_ucs2(black_box(&plain), &mut out);
            out.len()
        })
    });
    g.bench_function("ucs2_plain_non_ascii", |b| {
        b.iter(|| {
            out.clear();
            jet_storage::format::text::decode_ucs2(black_box(&wide), &mut out);
            out.len()
        })
    });
    g.bench_function("codepage_1252", |b| {
        b.iter(|| {
            out.clear();
            jet_storage::format::text::decode_codepage(black_box(&cp1252), enc, &mut out);
            out.len()
        })
    });
    g.finish();
}

fn key_encode(c: &mut Criterion) {
    let mut g = c.benchmark_group("inner/key_encode");
    let nwind = shared_dir().join("corpus/mdbtools/nwind.mdb");
    let db = Database::open(&nwind, OpenOptions::default()).unwrap();
    let version = db.version();
    let orders = db.table("Orders").unwrap();
    let details = db.table("Order Details").unwrap();
    let col = |t: &Table, name: &str| {
        t.def()
            .columns
            .iter()
            .find(|c| c.name == name)
            .unwrap()
            .clone()
    };
    let cases = [
        (
            "long",
            col(&orders, "OrderID"),
            10500i32.to_le_bytes().to_vec(),
        ),
        (
            "datetime",
            col(&orders, "OrderDate"),
            35000.25f64.to_le_bytes().to_vec(),
        ),
        (
            "currency",
            col(&details, "UnitPrice"),
            123_4500i64.to_le_bytes().to_vec(),
        ),
        (
            "single",
            col(&details, "Discount"),
            0.15f32.to_le_bytes().to_vec(),
        ),
    ];
    g.throughput(Throughput::Elements(1));
    for (label, column, bytes) in cases {
        let field = OwnedField::Bytes(bytes);
        let mut out = Vec::with_capacity(32);
        g.bench_function(label, |b| {
            b.iter(|| {
                out.clear();
                encode_column(
                    &mut out,
                    &column,
                    Direction::Ascending,
                    black_box(&field),
                    version,
                )
                .unwrap();
                out.len()
            })
        });
    }
    g.finish();
}

fn seek(c: &mut Criterion) {
    let mut g = c.benchmark_group("inner/seek");
    let nwind = shared_dir().join("corpus/mdbtools/nwind.mdb");
    for (label, table, column) in [
        ("orders_pk", "Orders", "OrderID"),
        ("order_details_order_id", "Order Details", "OrderID"),
    ] {
        let db = Database::open(&nwind, OpenOptions::default()).unwrap();
        let t = db.table(table).unwrap();
        let col = t
            .def()
            .columns
            .iter()
            .find(|c| c.name == column)
            .unwrap()
            .clone();
        let (n, ri) = t
            .def()
            .real_indexes
            .iter()
            .enumerate()
            .find(|(_, r)| r.key.first().map(|k| k.0) == Some(col.col_num))
            .unwrap();
        let v = KeyValue::Int(10500);
        let (lo, hi) = first_column_bounds(
            &col,
            ri.key[0].1,
            Bound::Included(&v),
            Bound::Included(&v),
            db.version(),
        )
        .unwrap()
        .unwrap();
        let as_ref = |b: &Bound<Vec<u8>>| match b {
            Bound::Included(k) => Bound::Included(k.clone()),
            Bound::Excluded(k) => Bound::Excluded(k.clone()),
            Bound::Unbounded => Bound::Unbounded,
        };
        g.bench_function(label, |b| {
            b.iter_batched(
                || (as_ref(&lo), as_ref(&hi)),
                |(lo, hi)| {
                    let idx = t.index(n).unwrap();
                    let found = idx
                        .seek(
                            lo.as_ref().map(|k| k.as_slice()),
                            hi.as_ref().map(|k| k.as_slice()),
                            KeyMatch::Prefix,
                        )
                        .unwrap();
                    assert!(!found.is_empty());
                    found.len()
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(
        benches,
        super::page_decode,
        super::text_decode,
        super::key_encode,
        super::seek
    );
}
criterion_main!(group::benches);
