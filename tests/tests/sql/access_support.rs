//! What the Access-dialect test modules (`access_arith`, `access_types`,
//! `access_financial`, `access_library`) share: a session in either
//! dialect, Northwind from the corpus, the first value of an answer, the
//! error of a statement that must fail.

use datafusion::common::ScalarValue;
use datafusion::prelude::SessionConfig;
use jet_provider::{JetOptions, JetSession, SqlDialect};

/// A session in `dialect` with one target partition (First, Last and the
/// spread aggregates see rows in table order).
pub fn session(dialect: SqlDialect) -> JetSession {
    let s = JetSession::new(jet_provider::session_context(
        SessionConfig::new()
            .with_target_partitions(1)
            .with_default_catalog_and_schema("datafusion", "public"),
    ));
    s.set_dialect(dialect);
    s
}

/// An Access-dialect session with Northwind (`mdbtools/nwind.mdb`) as the
/// default schema, when the corpus is there.
pub fn nwind() -> Option<JetSession> {
    let corpus = jet_tests::corpus()?;
    let s = session(SqlDialect::Access);
    s.register(
        "nw",
        corpus.join("mdbtools/nwind.mdb"),
        JetOptions::default(),
        true,
    )
    .unwrap();
    Some(s)
}

/// The first column of the first row `sql` answers.
pub async fn value(s: &JetSession, sql: &str) -> ScalarValue {
    let batches = s.sql(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    let b = batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .unwrap_or_else(|| panic!("{sql}: no row"));
    ScalarValue::try_from_array(b.column(0), 0).unwrap()
}

/// The error `sql` fails with (a panic when it answers).
pub async fn error(s: &JetSession, sql: &str) -> String {
    match s.sql(sql).await {
        Ok(b) => panic!("{sql}: no error, answered {b:?}"),
        Err(e) => e.to_string(),
    }
}
