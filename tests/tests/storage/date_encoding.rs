//! The writer's Date/Time encoding against every Date/Time value stored in
//! the corpus: a stored double read as a timestamp and written back must
//! give the 8 bytes the file holds (Access computes the time of day as
//! whole seconds times the double nearest 1/86400; a division of
//! milliseconds by 86 400 000 lands one unit in the last place away for
//! some times, e.g. 00:00:30 and 05:15:07).
//!
//! The values are those of user tables: the engine's own `DateCreate` and
//! `DateUpdate` stamps in MSysObjects and MSysAccessStorage come from its
//! clock with a fraction of a millisecond (their time of day, times
//! 86 400 000, is no whole number of milliseconds), so no millisecond
//! timestamp the writer takes holds them.

use jet_storage::format::OwnedField;
use jet_storage::format::values::access_date_to_micros;
use jet_storage::write::row::micros_to_access_date;
use jet_storage::{Database, JetType, OpenOptions};
use jet_tests::{corpus, list_files};

#[test]
fn every_corpus_date_time_encodes_to_the_stored_bytes() {
    let Some(root) = corpus() else { return };
    let (mut same, mut pre_1899) = (0usize, 0usize);
    let mut wrong = Vec::new();
    for rel in list_files(&root) {
        let Ok(db) = Database::open(root.join(&rel), OpenOptions::default()) else {
            continue;
        };
        for name in db.table_names() {
            let Ok(t) = db.table(&name) else { continue };
            let cols: Vec<usize> = (0..t.def().columns.len())
                .filter(|&i| t.def().columns[i].jet_type == JetType::DateTime)
                .collect();
            if cols.is_empty() {
                continue;
            }
            let Ok(bms) = t.bookmarks() else { continue };
            for bm in bms {
                let Ok(Some(fields)) = t.raw_row(bm) else {
                    continue;
                };
                for &c in &cols {
                    let OwnedField::Bytes(b) = &fields[c] else {
                        continue;
                    };
                    let Ok(bytes) = <[u8; 8]>::try_from(b.as_slice()) else {
                        continue;
                    };
                    let v = f64::from_le_bytes(bytes);
                    let Some(micros) = access_date_to_micros(v) else {
                        continue;
                    };
                    let Ok(ours) = micros_to_access_date(micros) else {
                        continue;
                    };
                    if ours.to_le_bytes() == bytes {
                        same += 1;
                        if v < 0.0 && v.fract() != 0.0 {
                            pre_1899 += 1;
                        }
                    } else {
                        wrong.push(format!(
                            "{rel} {name} {}: stored {v:?}, written {ours:?}",
                            t.def().columns[c].name
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "{same} Date/Time values encode to the stored bytes ({pre_1899} before 1899-12-30 with a time)"
    );
    for w in &wrong {
        eprintln!("{w}");
    }
    assert!(
        wrong.is_empty(),
        "{} values encode differently",
        wrong.len()
    );
    assert!(same > 1000, "{same}");
}
