//! `jetsql recover FILE`: finishes what a crashed writer left (rolls its
//! transaction back, or keeps it when it had committed); with
//! `--discard-journal`, removes a journal that recovery refused, keeping
//! the database exactly as it is on disk.

use jet_storage::journal::{self, RecoveryOutcome};
use std::path::Path;

/// Runs `jetsql recover`; returns the line to print.
pub fn run(file: &Path, discard_journal: bool) -> Result<String, String> {
    let name = file.display();
    if discard_journal {
        let d = journal::discard_journal(file).map_err(|e| e.to_string())?;
        return Ok(match (d.journal, d.partial) {
            (false, false) => format!("{name}: no journal; nothing was changed"),
            (true, _) => format!(
                "{name}: journal {} removed without applying it; the database was kept exactly as it was \
                 (if a transaction was half-written it stays so: check the data, or restore your copy)",
                journal::journal_path(file).display()
            ),
            (false, true) => {
                format!("{name}: an unfinished journal (never used) was removed")
            }
        });
    }
    let outcome = journal::recover(file).map_err(|e| e.to_string())?;
    Ok(match outcome {
        RecoveryOutcome::NoJournal => format!("{name}: no journal; nothing to recover"),
        RecoveryOutcome::Discarded => format!(
            "{name}: an unfinished journal was removed (the crash came before the database was written)"
        ),
        RecoveryOutcome::RolledBack { pages, len } => format!(
            "{name}: the interrupted transaction was rolled back ({pages} pages restored, {len} bytes)"
        ),
        RecoveryOutcome::KeptCommitted { len } => format!(
            "{name}: the transaction had committed; it was kept ({len} bytes) and its journal removed"
        ),
    })
}
