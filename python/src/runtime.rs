//! The async runtime queries run on, and waiting for them from Python
//! without holding the GIL while staying interruptible by Ctrl-C.

use pyo3::prelude::*;
use std::future::Future;
use std::sync::OnceLock;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

/// How often a waiting call wakes to look for Ctrl-C (Python runs signal
/// handlers only on the main thread, when asked).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// The module's multi-threaded tokio runtime, started on first use and
/// shared by every database (DataFusion plans spawn their partitions on
/// it).
pub fn runtime() -> PyResult<&'static tokio::runtime::Runtime> {
    static RT: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .thread_name("jetsql")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the query runtime: {e}"))
    })
    .as_ref()
    .map_err(|e| crate::errors::Error::new_err(e.clone()))
}

/// Runs `fut` on the runtime to completion with the GIL released. Every
/// [`SIGNAL_POLL`] the caller's thread takes the GIL back to run Python's
/// signal handlers: when one raises (Ctrl-C: `KeyboardInterrupt`), the
/// task is aborted, which drops the query and its streams (their tasks
/// stop at their next yield), and that exception is returned at once.
/// The wait is on a channel, not on the runtime's timer, so it wakes on
/// time even while every worker thread is busy.
pub fn wait<T, F>(py: Python<'_>, fut: F) -> PyResult<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let rt = runtime()?;
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let task = rt.spawn(async move {
        // the receiver is gone only when the caller gave up (Ctrl-C)
        let _ = tx.send(fut.await);
    });
    let mut rx = rx;
    loop {
        // the receiver goes into the GIL-free closure and comes back
        // (it is Send, not Sync)
        let (got, back) = py.detach(move || (rx.recv_timeout(SIGNAL_POLL), rx));
        rx = back;
        match got {
            Ok(value) => return Ok(value),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    task.abort();
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(crate::errors::Error::new_err(
                    "the query failed inside the engine (a panic); this is a bug: please report it",
                ));
            }
        }
    }
}
