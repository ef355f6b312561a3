//! Why a saved query could not be rebuilt: [`QueryError`].

use super::printable;

/// Why a saved query could not be rebuilt: the query's name and what is
/// wrong with its rows, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("saved query \"{}\": {what}", printable(query))]
pub struct QueryError {
    /// The query's name.
    pub query: String,
    /// What is wrong.
    pub what: String,
}
