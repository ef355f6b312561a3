//! Parallel scans that keep page order: a table's data pages are cut into
//! runs of consecutive pages, worker threads decode the runs (and map their
//! batches, e.g. into CSV bytes), and one consumer receives the results run
//! by run in page order — the same rows, in the same order, as one
//! [`Table::scan`](crate::Table::scan), on every core.
//!
//! Memory is bounded: at most `2 × threads` runs are decoded ahead of the
//! consumer, each run at most [`PAGES_PER_RUN`] pages.

use crate::error::Error;
use crate::read::scan::ScanOptions;
use crate::read::table::Table;
use arrow_array::RecordBatch;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

/// Data pages per unit of work (about 6,000 rows of a typical table).
pub const PAGES_PER_RUN: usize = 64;

/// How to spread a scan over threads.
#[derive(Debug, Clone, Copy, Default)]
pub struct Parallel {
    /// Worker threads; 0 = one per core.
    pub threads: usize,
    /// Data pages per unit of work; 0 = [`PAGES_PER_RUN`].
    pub pages_per_run: usize,
}

impl Parallel {
    /// The worker threads this asks for (0 resolved to the core count).
    pub fn worker_count(&self) -> usize {
        if self.threads > 0 {
            return self.threads;
        }
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// Runs of at most `per` (at least 1) consecutive entries of a page list
/// of `n` pages, as index ranges into it.
fn runs_of(n: usize, per: usize) -> Vec<Range<usize>> {
    let per = per.max(1);
    (0..n)
        .step_by(per)
        .map(|start| start..n.min(start.saturating_add(per)))
        .collect()
}

/// What a worker hands back for one run: its mapped batches, the first
/// error, or the payload of a panic.
type Decoded<T, E> = std::thread::Result<Result<Vec<T>, E>>;

/// Scans `table` as `opts` says on the worker threads `par` asks for,
/// applies `map` to every batch on the worker that decoded it, and
/// calls `sink` on the calling thread once per run, in page order, with the
/// run's mapped batches and the number of data pages the run covered (the
/// counts sum to the pages scanned; memory holds at most `2 × threads` runs).
///
/// The rows `sink` receives, concatenated, are exactly those of
/// `table.scan(opts)` in the same order. With a row limit, or one thread,
/// the scan runs on the calling thread (a limit counts rows in page order)
/// and `sink` gets one batch at a time, then the page count alone.
/// The first error — from decoding, `map` or `sink` — stops the scan and is
/// returned; workers finish at most the run they are decoding. A panic in
/// `map` is re-raised on the calling thread.
pub fn scan_ordered<T, E, M, S>(
    table: &Table,
    opts: &ScanOptions,
    par: Parallel,
    map: M,
    mut sink: S,
) -> Result<(), E>
where
    T: Send,
    E: From<Error> + Send,
    M: Fn(RecordBatch) -> Result<T, E> + Sync,
    S: FnMut(Vec<T>, usize) -> Result<(), E>,
{
    let mut pages = table.data_pages()?;
    if let Some(r) = &opts.page_range {
        pages.retain(|p| r.contains(p));
    }
    let per = match par.pages_per_run {
        0 => PAGES_PER_RUN,
        n => n,
    };
    let runs = runs_of(pages.len(), per);
    let threads = par.worker_count();
    if threads <= 1 || opts.limit.is_some() || runs.len() <= 1 {
        let n = pages.len();
        for b in table.scan_pages(pages, opts)? {
            sink(vec![map(b?)?], 0)?;
        }
        return sink(Vec::new(), n);
    }
    let decode_run = |i: usize| -> Result<Vec<T>, E> {
        let Some(run) = runs.get(i).and_then(|r| pages.get(r.clone())) else {
            return Ok(Vec::new());
        };
        table
            .scan_pages(run.to_vec(), opts)?
            .map(|b| map(b?))
            .collect()
    };
    let window = 2 * threads;
    std::thread::scope(|s| {
        // Tickets name the runs workers may decode: the consumer hands out
        // `window` at first and one more per run it consumes, which bounds
        // the runs in flight. Closing the ticket channel stops the workers
        // after their current run.
        let (ticket_tx, ticket_rx) = mpsc::channel::<usize>();
        let ticket_rx = Arc::new(Mutex::new(ticket_rx));
        let (done_tx, done_rx) = mpsc::channel::<(usize, Decoded<T, E>)>();
        for _ in 0..threads {
            let tickets = ticket_rx.clone();
            let done = done_tx.clone();
            let decode_run = &decode_run;
            s.spawn(move || {
                loop {
                    // the lock is held only while waiting for a ticket
                    let next = tickets.lock().map(|rx| rx.recv());
                    let Ok(Ok(i)) = next else { break };
                    // a panic is handed to the consumer, which re-raises it
                    // (the run it owed would otherwise never arrive)
                    let r =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decode_run(i)));
                    if done.send((i, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let mut tickets = Some(ticket_tx);
        let mut issued = 0;
        let mut issue = |tickets: &Option<mpsc::Sender<usize>>| {
            if issued < runs.len()
                && let Some(tx) = tickets
            {
                // the workers hold the receiver until the channel closes
                let _ = tx.send(issued);
                issued += 1;
            }
        };
        for _ in 0..window {
            issue(&tickets);
        }
        let mut pending = BTreeMap::new();
        for next in 0..runs.len() {
            let decoded = loop {
                if let Some(r) = pending.remove(&next) {
                    break r;
                }
                match done_rx.recv() {
                    Ok((i, r)) => {
                        pending.insert(i, r);
                    }
                    // workers stop only once the tickets are closed, and
                    // every issued run is answered before that
                    Err(_) => unreachable!("scan workers stopped with run {next} owed"),
                }
            };
            let run = match decoded {
                Ok(Ok(run)) => run,
                Ok(Err(e)) => return Err(e),
                Err(panic) => {
                    drop(tickets.take());
                    std::panic::resume_unwind(panic)
                }
            };
            issue(&tickets);
            sink(run, runs.get(next).map_or(0, |r| r.len()))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cover_the_pages_in_order() {
        for per in [0, 1, 3, 64] {
            for n in [0, 1, 63, 64, 65, 200] {
                let runs = runs_of(n, per);
                let covered: Vec<usize> = runs.iter().flat_map(|r| r.clone()).collect();
                assert_eq!(covered, (0..n).collect::<Vec<_>>(), "{n} pages by {per}");
                assert!(runs.iter().all(|r| !r.is_empty() && r.len() <= per.max(1)));
            }
        }
    }
}
