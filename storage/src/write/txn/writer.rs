//! The writer: a database open for writing through a [`WriteTarget`]
//! ([`Writer`]), how it opens (password, Money files refused), the clock it
//! stamps catalog rows with ([`DEFAULT_CLOCK`], [`Writer::set_now`]), and
//! [`Writer::transaction`], which builds a [`Transaction`] over the
//! committed image and commits or discards its pages.

use super::Transaction;
use crate::error::{WResult, WriteError};
use crate::format::JetVersion;
use crate::page::crypt::{CipherPageSource, Unlocked};
use crate::page::image::{CommitTarget, MemImage};
use crate::page::{MemPageSource, PageSource};
use crate::read::database::Database;
use crate::write::overlay::PageOverlay;
use crate::write::{IndexMaintainer, row};
use std::collections::HashMap;
use std::sync::Arc;

/// A [`CommitTarget`] the writer can also read the committed image from.
pub trait WriteTarget: CommitTarget {
    /// The committed image as pages (after the last successful commit).
    fn source(&self) -> crate::Result<Arc<dyn PageSource>>;
}

impl WriteTarget for MemImage {
    fn source(&self) -> crate::Result<Arc<dyn PageSource>> {
        let ps = crate::read::database::read_header(&self.bytes[..self.bytes.len().min(4096)])?
            .version
            .layout()
            .page_size;
        Ok(Arc::new(MemPageSource::new(self.bytes.clone(), ps)))
    }
}

/// A database open for writing through a [`WriteTarget`].
pub struct Writer<T: WriteTarget> {
    target: T,
    /// The unlocked protection of page 0: the page cipher of an encrypted
    /// file (pages are decrypted when read, encrypted when committed).
    unlocked: Unlocked,
    version: JetVersion,
    maintainer: Option<Box<dyn IndexMaintainer>>,
    clock: i64,
    now: Option<i64>,
    text_layout: row::TextLayout,
}

/// 2000-01-01T00:00:00 in microseconds since 1970, the default time stamp
/// of catalog rows (fixed so that generated files are deterministic).
pub const DEFAULT_CLOCK: i64 = 946_684_800_000_000;

impl<T: WriteTarget> Writer<T> {
    /// Opens the committed image of `target` for writing. Refuses
    /// Microsoft Money files and files that need a password (see
    /// [`Writer::with_password`]). Jet3 (Access 97) files take row inserts,
    /// updates and deletes; their schema changes are refused by name.
    pub fn new(target: T) -> crate::Result<Writer<T>> {
        Writer::with_password(target, None)
    }

    /// Opens the committed image of `target` for writing, with the password
    /// of an encrypted file (checked before any page is decoded). The
    /// writer and its journal work on pages as stored: every page a
    /// transaction changes is encrypted with its page key before it is
    /// committed, so a crash leaves the exact old or new encrypted image.
    /// Refuses Microsoft Money files; on Jet3 (Access 97) files, refuses
    /// schema changes (see [`Transaction::create_table`]).
    pub fn with_password(
        target: T,
        password: Option<&crate::page::crypt::Password>,
    ) -> crate::Result<Writer<T>> {
        let src = target.source()?;
        let page0 = src.read_page(0)?;
        let h = crate::read::database::read_header(&page0)?;
        if h.msisam {
            return Err(crate::error::FormatError::Encrypted(
                "writing Microsoft Money (MSISAM) files",
            )
            .into());
        }
        let unlocked = crate::read::database::unlock_page0(&page0, &h, password)?;
        Ok(Writer {
            target,
            unlocked,
            version: h.version,
            maintainer: Some(Box::new(crate::write::maintain::BTreeMaintainer::new(
                h.version,
            ))),
            clock: DEFAULT_CLOCK,
            now: None,
            text_layout: row::TextLayout::Standard,
        })
    }

    /// Installs the index maintainer used for tables with real indexes.
    pub fn set_index_maintainer(&mut self, m: Box<dyn IndexMaintainer>) {
        self.maintainer = Some(m);
    }

    /// Sets the time stamp written into catalog rows (µs since 1970).
    pub fn set_clock(&mut self, micros: i64) {
        self.clock = micros;
    }

    /// Sets how text is stored in columns that allow unicode compression
    /// (default [`row::TextLayout::Standard`], as Access stores it).
    pub fn set_text_layout(&mut self, layout: row::TextLayout) {
        self.text_layout = layout;
    }

    /// Fixes the time `Now()` and `Date()` defaults evaluate to (µs since
    /// 1970, zone-less wall-clock time, as Access stores dates; pass the
    /// local time to get Access's stamps). `None` (the default) uses the
    /// system clock in UTC at the start of each transaction.
    pub fn set_now(&mut self, micros: Option<i64>) {
        self.now = micros;
    }

    /// Format version of the database.
    pub fn version(&self) -> JetVersion {
        self.version
    }

    /// A read-only view of the committed image.
    pub fn database(&self) -> crate::Result<Database> {
        Database::from_page_source_unlocked(self.target.source()?, self.unlocked.clone())
    }

    /// The committed image `raw` (pages as stored) as the transaction reads
    /// it: decrypted when the file is encrypted.
    fn decoded(&self, raw: Arc<dyn PageSource>) -> Arc<dyn PageSource> {
        match &self.unlocked.cipher {
            Some(c) => Arc::new(CipherPageSource::new(raw, c.clone())),
            None => raw,
        }
    }

    /// The target (for a memory target, the committed image).
    pub fn target(&self) -> &T {
        &self.target
    }

    /// Consumes the writer, returning its target.
    pub fn into_target(self) -> T {
        self.target
    }

    /// Runs `f` in a transaction. When `f` returns `Ok`, all its changes are
    /// committed at once; when it returns `Err` (or committing fails) the
    /// committed image is unchanged.
    pub fn transaction<R>(
        &mut self,
        f: impl FnOnce(&mut Transaction<'_>) -> WResult<R>,
    ) -> crate::Result<R> {
        let raw = self.target.source()?;
        let db = Database::from_page_source_unlocked(raw.clone(), self.unlocked.clone())?;
        let base = self.decoded(raw);
        if let Some(m) = self.maintainer.as_deref_mut() {
            m.discard();
        }
        let encoding = crate::format::text::encoding_for_code_page(db.header().code_page);
        let mut tx = Transaction {
            ov: PageOverlay::new(base),
            version: self.version,
            encoding,
            catalog: db.catalog().to_vec(),
            tables: HashMap::new(),
            maintainer: self.maintainer.as_deref_mut(),
            clock: self.clock,
            now: self.now.unwrap_or_else(system_now_micros),
            text_layout: self.text_layout,
            cascading: Vec::new(),
        };
        // `finish` writes the index pages the maintainer holds; an
        // abandoned transaction's are dropped with the discard below
        let result = f(&mut tx).and_then(|out| Ok((out, tx.finish()?)));
        if let Some(m) = self.maintainer.as_deref_mut() {
            m.discard();
        }
        let (out, mut changes) = result.map_err(write_err)?;
        if let Some(c) = &self.unlocked.cipher {
            // pages are committed (and journaled) as they are stored
            for (&n, page) in changes.pages.iter_mut() {
                c.encrypt(n, page)?;
            }
        }
        if !changes.is_empty() {
            self.target.commit(&changes)?;
        }
        Ok(out)
    }
}

/// The system clock as µs since 1970 (UTC; callers that want Access's
/// local wall-clock stamps pass the local time to [`Writer::set_now`]).
fn system_now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

fn write_err(e: WriteError) -> crate::Error {
    crate::Error::Write(Box::new(e))
}
