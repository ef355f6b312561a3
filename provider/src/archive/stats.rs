//! What a multi-file table did: files opened (for reading rows and for
//! reading schemas), the most open at once, and the files skipped with
//! `skip_errors`, with the reason.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counters and the warning list of a multi-file table; shared by every
/// scan of it (and, for the `jet_files` function, every table it made).
#[derive(Debug, Default)]
pub struct ArchiveStats {
    scan_opens: AtomicUsize,
    schema_opens: AtomicUsize,
    open_now: AtomicUsize,
    open_max: AtomicUsize,
    warnings: Mutex<Vec<String>>,
}

impl ArchiveStats {
    /// Files opened to read rows (one per file and part scanned).
    pub fn scan_opens(&self) -> usize {
        self.scan_opens.load(Ordering::SeqCst)
    }

    /// Files opened to read their table's columns (once per file when the
    /// table is made; a file's columns are remembered while it is unchanged).
    pub fn schema_opens(&self) -> usize {
        self.schema_opens.load(Ordering::SeqCst)
    }

    /// The most files a scan of this table had open at one time.
    pub fn max_open_at_once(&self) -> usize {
        self.open_max.load(Ordering::SeqCst)
    }

    /// Files open by scans right now.
    pub fn open_now(&self) -> usize {
        self.open_now.load(Ordering::SeqCst)
    }

    /// The files skipped so far (`skip_errors`), each "path: reason",
    /// removed from the list.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *self.warnings.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The files skipped so far, left in the list.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(crate) fn warn(&self, text: String) {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(text);
    }

    pub(crate) fn schema_opened(&self) {
        self.schema_opens.fetch_add(1, Ordering::SeqCst);
    }

    /// Counts a scan's open; the guard counts the close when dropped.
    pub(crate) fn scan_opened(self: &std::sync::Arc<Self>) -> OpenGuard {
        self.scan_opens.fetch_add(1, Ordering::SeqCst);
        let now = self.open_now.fetch_add(1, Ordering::SeqCst) + 1;
        self.open_max.fetch_max(now, Ordering::SeqCst);
        OpenGuard(self.clone())
    }
}

/// One file open for a scan; counted closed when dropped.
#[derive(Debug)]
pub(crate) struct OpenGuard(std::sync::Arc<ArchiveStats>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.open_now.fetch_sub(1, Ordering::SeqCst);
    }
}
