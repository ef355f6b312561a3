//! The page parsers end to end: any byte image opens to a typed error or a
//! database whose every table scans to the end or to a typed error.
//! Seed it with corpus files: see storage/fuzz/README.md.
#![no_main]
use jet_storage::{Database, ScanOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(db) = Database::from_bytes(data.to_vec()) else {
        return;
    };
    for name in db.table_names() {
        let Ok(t) = db.table(&name) else { continue };
        let Ok(scan) = t.scan(ScanOptions {
            batch_size: 64,
            ..Default::default()
        }) else {
            continue;
        };
        for b in scan {
            if b.is_err() {
                break;
            }
        }
    }
});
