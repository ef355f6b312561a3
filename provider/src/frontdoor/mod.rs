//! # The front door: what a statement must pass before it runs
//!
//! [`JetSession`](crate::JetSession) runs every statement through these
//! checks, so hostile or mistaken input fails with a message instead of
//! crashing, hanging or destroying a file:
//!
//! - [`shape`]: nesting depth, operator chain length and query blocks are
//!   bounded before parsing (documented limits);
//! - `copy`: `COPY … TO` never writes over an open database or its
//!   journal, replaces an existing file only when told to, knows its
//!   formats, and refuses targets it cannot write;
//! - [`strings`]: text functions that allocate their whole result check
//!   its size against the memory limit first;
//! - [`aggregates`]: `string_agg` and `array_agg` check each batch
//!   before their value grows;
//! - [`constants`]: a large constant repeated over the rows of a batch
//!   is refused while planning;
//! - [`limits`]: the memory limit itself comes from the process's own
//!   limits (`ulimit -v`/`-d`, the cgroup's), not only the machine's;
//! - [`catch_panic`]: a panic while planning or running a statement is an
//!   error, not the end of the process.
//!
//! Exports: modules [`aggregates`], [`constants`], [`limits`], [`shape`] and [`strings`]; [`catch_panic`], [`panic_text`],
//! [`panic_error`], [`default_memory_limit`] and [`parse_memory_size`]. The
//! `COPY` checks (`copy.rs`) are the crate's own.

pub mod aggregates;
pub mod constants;
pub(crate) mod copy;
pub mod limits;
pub mod shape;
pub mod strings;

use datafusion::error::{DataFusionError, Result};
use futures::FutureExt;
use std::future::Future;

/// The default memory limit of a jetsql session: half the machine's
/// memory (`MemTotal` in `/proc/meminfo`, 4 GiB where that cannot be
/// read), lowered to half the process's own limits (`ulimit -v`,
/// `ulimit -d`, the cgroup's memory limit; see [`limits`]).
pub fn default_memory_limit() -> u64 {
    limits::ProcessLimits::read().default_limit()
}

/// The memory limit for a size asked for (`--memory-limit`), or the
/// default ([`default_memory_limit`]) for `None`. A size larger than half
/// the process's own limits (`ulimit -v`, `ulimit -d`, the cgroup's) is
/// lowered to that: past it an allocation aborts the process instead of
/// failing with "resources exhausted" ([`limits`]).
pub fn memory_limit(asked: Option<u64>) -> u64 {
    limits::ProcessLimits::read().limit(asked)
}

/// Parses a memory size: a number of bytes with an optional unit, `K`,
/// `M`, `G`, `T` (or `KiB`, `MiB`, `GiB`, `TiB`, `KB`, `MB`, `GB`, `TB`; all
/// powers of 1024), e.g. `2GiB`, `512M`, `1.5 GB`, `1000000`.
pub fn parse_memory_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let bad = || format!("{text:?} is not a memory size (examples: 2GiB, 512M, 1000000)");
    let n: f64 = num.parse().map_err(|_| bad())?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(bad()),
    };
    let bytes = n * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// The text of a panic payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Runs `fut`, turning a panic inside it into an error (an internal error
/// whose message says it is a bug and what panicked) instead of unwinding
/// through the caller.
pub async fn catch_panic<T>(fut: impl Future<Output = Result<T>>) -> Result<T> {
    match std::panic::AssertUnwindSafe(fut).catch_unwind().await {
        Ok(r) => r,
        Err(payload) => Err(panic_error(&*payload)),
    }
}

/// The error a caught panic becomes.
pub fn panic_error(payload: &(dyn std::any::Any + Send)) -> DataFusionError {
    DataFusionError::Execution(format!(
        "the statement failed inside the engine ({}); this is a bug: please report it with the statement",
        panic_text(payload).replace('\n', " ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes() {
        assert_eq!(parse_memory_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_memory_size("512M"), Ok(512 << 20));
        assert_eq!(parse_memory_size("1.5 GB"), Ok(3 << 29));
        assert_eq!(parse_memory_size("1000"), Ok(1000));
        assert!(parse_memory_size("lots").is_err());
        assert!(parse_memory_size("0").is_err());
        assert!(parse_memory_size("2XB").is_err());
    }

    #[test]
    fn panics_become_errors() {
        let r: Result<()> = futures::executor::block_on(catch_panic(async {
            panic!("boom");
        }));
        let e = r.unwrap_err().to_string();
        assert!(e.contains("boom") && e.contains("bug"), "{e}");
    }
}
