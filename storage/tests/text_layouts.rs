//! Random text through every layout the writer can store it in, read back
//! by the text decoder: the result must be the input.
//!
//! Layouts: Access's compressed form (one byte a character), plain
//! UTF-16LE, `FF FE` + UTF-16LE (`TextLayout::MarkedUtf16`), the marked
//! two-byte form the writer uses for a text starting with U+FEFF, each in a
//! Text column and in a Memo column whose value is inline, on one
//! long-value page or chained; and Jet3 code-page bytes (Windows-1252)
//! where the text is representable. The only text the writer may refuse is
//! one starting with U+FEFF that holds a character whose low byte is `00`
//! (no layout reads it back); the refusal itself is checked.

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};
use jet_storage::format::text::{decode_codepage, decode_ucs2};
use jet_storage::page::image::MemImage;
use jet_storage::write::{ColumnSpec, TableSpec, TextLayout, Writer, new_database};
use jet_storage::{Database, JetType, JetVersion, ScanOptions};
use proptest::prelude::*;
use std::sync::Arc;

/// One character from a mix that exercises every decoder branch.
fn any_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::char::range('a', 'z'),
        2 => proptest::char::range('\u{1}', '\u{ff}'),
        1 => Just('\0'),
        1 => Just('\u{feff}'),
        1 => prop::sample::select(vec!['\u{100}', '\u{2000}', '\u{4e00}', '\u{ff00}', '\u{fffe}']),
        2 => proptest::char::range('\u{100}', '\u{d7ff}'),
        1 => proptest::char::range('\u{e000}', '\u{ffff}'),
        1 => proptest::char::range('\u{10000}', '\u{10ffff}'),
    ]
}

/// Texts of every size class: inline (≤ 64 bytes), one page, chained.
fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::collection::vec(any_char(), 0..30),
        2 => proptest::collection::vec(any_char(), 30..1500),
        1 => proptest::collection::vec(any_char(), 1500..5000),
        1 => proptest::collection::vec(proptest::char::range('a', 'z'), 4000..9000),
    ]
    .prop_map(|v| v.into_iter().collect())
}

/// Whether no layout can store `text` (see the module docs): the
/// independent statement of the writer's one refusal.
fn unstorable(text: &str) -> bool {
    text.starts_with('\u{feff}') && text.encode_utf16().any(|u| u & 0xFF == 0)
}

/// Writes each text into a Jet4 table (`T` Text(255) where it fits, `M`
/// Memo) in `layout` and reads it back through a scan.
fn round_trip(
    texts: &[String],
    layout: TextLayout,
) -> Result<Vec<(String, Option<String>)>, String> {
    let bytes = new_database(JetVersion::Jet4, 0).map_err(|e| e.to_string())?;
    let mut w = Writer::new(MemImage { bytes }).map_err(|e| e.to_string())?;
    w.set_text_layout(layout);
    let spec = TableSpec::new(
        "Texts",
        vec![
            ColumnSpec::new("ID", JetType::Long),
            ColumnSpec::text("T", 255),
            ColumnSpec::new("M", JetType::Memo),
        ],
    );
    w.transaction(|tx| tx.create_table(&spec).map(|_| ()))
        .map_err(|e| e.to_string())?;
    for (i, t) in texts.iter().enumerate() {
        let fits = t.encode_utf16().count() <= 120;
        let schema = Arc::new(Schema::new(vec![
            Field::new("ID", arrow_schema::DataType::Int32, false),
            Field::new("T", arrow_schema::DataType::Utf8, true),
            Field::new("M", arrow_schema::DataType::Utf8, true),
        ]));
        let b = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int32Array::from(vec![i32::try_from(i).unwrap()])) as ArrayRef,
                Arc::new(StringArray::from(vec![fits.then_some(t.as_str())])),
                Arc::new(StringArray::from(vec![Some(t.as_str())])),
            ],
        )
        .unwrap();
        let res = w.transaction(|tx| tx.insert("Texts", &b).map(|_| ()));
        match (res, unstorable(t)) {
            (Ok(()), false) => {}
            (Err(e), true) => assert!(e.to_string().contains("U+FEFF"), "{e}"),
            (Ok(()), true) => return Err(format!("stored an unstorable text {t:?}")),
            (Err(e), false) => return Err(format!("refused {t:?}: {e}")),
        }
    }
    let db = Database::from_bytes(w.into_target().bytes).map_err(|e| e.to_string())?;
    let mut out = vec![(String::new(), None); texts.len()];
    for b in db
        .table("Texts")
        .unwrap()
        .scan(ScanOptions::default())
        .unwrap()
    {
        let b = b.unwrap();
        let ids = b.column(0).as_primitive::<Int32Type>();
        let (t, m) = (
            b.column(1).as_string::<i32>(),
            b.column(2).as_string::<i32>(),
        );
        for r in 0..b.num_rows() {
            let i = usize::try_from(ids.value(r)).unwrap();
            out[i] = (
                m.value(r).to_string(),
                (!arrow_array::Array::is_null(t, r)).then(|| t.value(r).to_string()),
            );
        }
    }
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn writer_layouts_read_back(texts in proptest::collection::vec(any_text(), 1..6)) {
        for layout in [TextLayout::Standard, TextLayout::MarkedUtf16] {
            let got = round_trip(&texts, layout).map_err(TestCaseError::fail)?;
            for (t, (m, short)) in texts.iter().zip(&got) {
                if unstorable(t) {
                    continue;
                }
                prop_assert_eq!(m, t, "memo, {:?}", layout);
                if let Some(s) = short {
                    prop_assert_eq!(s, t, "text, {:?}", layout);
                }
            }
        }
    }

    #[test]
    fn decoder_reads_every_encoding(text in any_text()) {
        let units: Vec<u16> = text.encode_utf16().collect();
        let utf16: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
        let decode = |b: &[u8]| {
            let mut s = String::new();
            decode_ucs2(b, &mut s);
            s
        };
        // plain UTF-16LE (readers take a leading U+FEFF for the marker)
        if units.first() != Some(&0xFEFF) {
            prop_assert_eq!(decode(&utf16), text.clone());
        }
        // Access's compressed form with mode switches, built here as
        // mdbtools' writer builds it: one byte where the unit is in
        // 01..FF, else a switch to two bytes; impossible for units whose
        // low byte is 00 in two-byte mode and for U+0000
        let mut comp = vec![0xFF, 0xFE];
        let mut one_byte = true;
        let mut ok = true;
        for &u in &units {
            let narrow = (1..=0xFF).contains(&u);
            if narrow != one_byte {
                comp.push(0);
                one_byte = narrow;
            }
            if narrow {
                comp.push(u8::try_from(u).unwrap());
            } else if u & 0xFF == 0 {
                ok = false;
                break;
            } else {
                comp.extend(u.to_le_bytes());
            }
        }
        if ok {
            prop_assert_eq!(decode(&comp), text.clone());
        }
        // FF FE + plain UTF-16LE, the layout of issue 16
        if units.first().is_some_and(|u| (1..=0xFF).contains(u))
            && units.iter().skip(1).all(|u| u & 0xFF != 0)
        {
            let mut marked = vec![0xFF, 0xFE];
            marked.extend(&utf16);
            prop_assert_eq!(decode(&marked), text.clone());
        }
        // Jet3: Windows-1252 bytes, where the text is representable
        let (bytes, _, unmappable) = encoding_rs::WINDOWS_1252.encode(&text);
        if !unmappable {
            let mut s = String::new();
            decode_codepage(&bytes, encoding_rs::WINDOWS_1252, &mut s);
            prop_assert_eq!(s, text.clone());
        }
    }
}
