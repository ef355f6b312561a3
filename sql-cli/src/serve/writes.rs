//! Writes from the clients of a `--write` server: one writer at a time,
//! and no client reads a change that is not committed.
//!
//! Every connection shares one [`Gate`] per server, a read-write lock over
//! the databases' images:
//! - a statement that reads holds it shared from planning to its last row
//!   (the pages it reads cannot change under it);
//! - a statement that writes outside `BEGIN` … `COMMIT` holds it
//!   exclusively until its commit through the journal is done;
//! - inside `BEGIN` … `COMMIT`, the first statement that writes takes it
//!   exclusively and the connection keeps it until `COMMIT` or `ROLLBACK`
//!   (or its end, which rolls back), its own reads going on under it.
//!
//! So writers are serialised, a client sees its own commit at its next
//! statement, and the others see it whole or not at all. A statement that
//! waits longer than `--lock-wait` for the gate fails with SQLSTATE 55P03
//! and changes nothing. An open write transaction holds up every other
//! client's statements: keep transactions short.

use super::errors::error;
use jet_provider::JetHandle;
use pgwire::error::PgWireResult;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock};

/// The lock every connection of one `--write` server shares.
pub struct Gate {
    lock: Arc<RwLock<()>>,
    /// Longest a statement waits for the lock.
    wait: Duration,
    /// The writable handles, begun and committed together.
    handles: Vec<Arc<JetHandle>>,
}

impl Gate {
    /// The gate over `handles`, waiting at most `wait`.
    pub fn new(handles: Vec<Arc<JetHandle>>, wait: Duration) -> Gate {
        Gate {
            lock: Arc::new(RwLock::new(())),
            wait,
            handles,
        }
    }

    fn busy(&self) -> pgwire::error::PgWireError {
        error(
            "55P03",
            format!(
                "could not obtain lock: another client's write held the database for more than {} s (--lock-wait); nothing changed",
                self.wait.as_secs()
            ),
        )
    }

    /// The lock shared, for one reading statement.
    pub async fn read(&self) -> PgWireResult<OwnedRwLockReadGuard<()>> {
        tokio::time::timeout(self.wait, self.lock.clone().read_owned())
            .await
            .map_err(|_| self.busy())
    }

    /// The lock exclusive, for one writing statement.
    pub async fn write(&self) -> PgWireResult<OwnedRwLockWriteGuard<()>> {
        tokio::time::timeout(self.wait, self.lock.clone().write_owned())
            .await
            .map_err(|_| self.busy())
    }
}

/// A write transaction a connection holds: the gate, exclusive, and every
/// writable database begun. Dropped without [`Held::commit`], it rolls
/// back (a client that goes away leaves nothing).
pub struct Held {
    handles: Vec<Arc<JetHandle>>,
    _lock: OwnedRwLockWriteGuard<()>,
}

impl Held {
    /// Takes the gate and begins a transaction on every database.
    pub async fn begin(gate: &Gate) -> PgWireResult<Held> {
        let mut held = Held {
            handles: Vec::new(),
            _lock: gate.write().await?,
        };
        for h in &gate.handles {
            h.begin()
                .map_err(|e| error("55000", super::errors::from_engine(&e).message))?;
            held.handles.push(h.clone());
        }
        Ok(held)
    }

    /// Commits every database's changes (each in one journaled commit)
    /// and lets the gate go.
    pub fn commit(mut self) -> PgWireResult<()> {
        let handles = std::mem::take(&mut self.handles);
        let mut first_error = None;
        for (i, h) in handles.iter().enumerate() {
            if let Err(e) = h.commit() {
                first_error = Some(error(
                    "40001",
                    format!(
                        "COMMIT failed, the transaction is rolled back{}: {}",
                        if i > 0 {
                            " (databases committed before it keep their changes)"
                        } else {
                            ""
                        },
                        super::errors::from_engine(&e).message
                    ),
                ));
                for rest in &handles[i..] {
                    if rest.in_transaction() {
                        let _ = rest.rollback();
                    }
                }
                break;
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        for h in &self.handles {
            if h.in_transaction() {
                let _ = h.rollback();
            }
        }
    }
}

/// Where one connection stands with transactions.
#[derive(Default)]
pub struct Tx {
    /// Inside `BEGIN` … `COMMIT`.
    pub in_block: bool,
    /// The write transaction it holds (taken at its block's first write).
    pub held: Option<Held>,
}
