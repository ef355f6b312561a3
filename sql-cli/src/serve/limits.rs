//! How a statement is stopped early: a client's cancel request (the
//! protocol's CancelRequest, sent on a new connection with the key the
//! server gave at startup: psql's Ctrl-C, JDBC's `Statement.cancel`) or
//! the statement timeout (`SET statement_timeout`, bounded by the
//! server's `--statement-timeout`). Either ends the statement with
//! SQLSTATE 57014, as in PostgreSQL, whether it is still being planned,
//! writing, or sending rows; the connection goes on.

use super::errors::error;
use futures::{Stream, StreamExt};
use pgwire::api::ConnectionHandle;
use pgwire::api::results::{QueryResponse, Response};
use pgwire::error::{PgWireError, PgWireResult};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// Why a statement stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// A cancel request.
    Cancel,
    /// The statement timeout.
    Timeout,
}

impl Why {
    /// PostgreSQL's error for it.
    pub fn error(self) -> PgWireError {
        match self {
            Why::Cancel => error("57014", "canceling statement due to user request"),
            Why::Timeout => error("57014", "canceling statement due to statement timeout"),
        }
    }
}

/// Resolves when the running statement must stop.
pub type Stop = Pin<Box<dyn Future<Output = Why> + Send>>;

/// The stop signal of a statement starting now: `cancel`'s next cancel
/// request, or `limit` after now.
pub async fn stop(cancel: &ConnectionHandle, limit: Option<Duration>) -> Stop {
    let rx = cancel.start_query().await;
    Box::pin(async move {
        let cancelled = async move {
            // the sender is dropped when the next statement starts: this
            // one is over then, and no cancel can reach it
            if rx.await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        match limit {
            Some(d) => tokio::select! {
                () = cancelled => Why::Cancel,
                () = tokio::time::sleep(d) => Why::Timeout,
            },
            None => {
                cancelled.await;
                Why::Cancel
            }
        }
    })
}

/// Runs `work` unless `stop` comes first.
pub async fn unless<T>(
    stop: &mut Stop,
    work: impl Future<Output = PgWireResult<T>>,
) -> PgWireResult<T> {
    tokio::select! {
        biased;
        why = stop.as_mut() => Err(why.error()),
        r = work => r,
    }
}

/// `response` with its rows cut short by `stop`: the rows before it, then
/// its error.
pub fn until(response: Response, stop: Stop) -> Response {
    match response {
        Response::Query(q) => {
            let (command_tag, row_schema) = (q.command_tag().to_string(), q.row_schema());
            let rows = cut(q.data_rows, stop);
            let mut out = QueryResponse::new(row_schema, rows);
            out.set_command_tag(&command_tag);
            Response::Query(out)
        }
        other => other,
    }
}

fn cut<S, T>(rows: S, stop: Stop) -> impl Stream<Item = PgWireResult<T>> + Send
where
    S: Stream<Item = PgWireResult<T>> + Send + Unpin,
    T: Send,
{
    futures::stream::unfold(Some((rows, stop)), |state| async move {
        let (mut rows, mut stop) = state?;
        tokio::select! {
            biased;
            why = stop.as_mut() => Some((Err(why.error()), None)),
            item = rows.next() => item.map(|i| (i, Some((rows, stop)))),
        }
    })
}

/// A statement timeout's text (`SET statement_timeout`): milliseconds, or
/// a number with a unit (`ms`, `s`, `min`, `h`, `d`); 0 for none.
pub fn parse_timeout(text: &str) -> Result<Option<Duration>, String> {
    let t = text.trim().trim_matches('\'').trim().to_ascii_lowercase();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: f64 = number
        .parse()
        .map_err(|_| format!("invalid value for statement_timeout: {text:?}"))?;
    let ms = match unit.trim() {
        "" | "ms" => n,
        "s" => n * 1e3,
        "min" => n * 60e3,
        "h" => n * 3600e3,
        "d" => n * 86_400e3,
        u => {
            return Err(format!(
                "invalid unit {u:?} for statement_timeout (ms, s, min, h, d)"
            ));
        }
    };
    if !ms.is_finite() || !(0.0..=2_147_483_647.0).contains(&ms) {
        return Err(format!("statement_timeout {text:?} is out of range"));
    }
    Ok((ms >= 1.0).then(|| Duration::from_millis(ms as u64)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_read_as_postgresql_reads_them() {
        // PostgreSQL's units for time settings (the manual, 20.1.1
        // Parameter Names and Values): an integer without a unit is ms
        for (text, ms) in [
            ("0", 0),
            ("1500", 1500),
            ("'250ms'", 250),
            ("5s", 5000),
            ("2 min", 120_000),
            ("1h", 3_600_000),
            ("1.5s", 1500),
        ] {
            assert_eq!(
                parse_timeout(text).unwrap(),
                (ms > 0).then(|| Duration::from_millis(ms)),
                "{text}"
            );
        }
        for bad in ["", "x", "5 weeks", "-1", "1e99"] {
            assert!(parse_timeout(bad).is_err(), "{bad}");
        }
    }
}
