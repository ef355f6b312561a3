//! Workspace tests of the storage layer without SQL, one binary: corpus
//! conformance against mdbtools and mdb-reader, the writer, indexes, the
//! journal and crash recovery. A module per former test file
//! (`cargo test -p jet-tests --test storage writer_jet3::` runs one).
//! Nothing here links DataFusion; the `sql` suite holds what does.

/// Helpers shared with the `sql` suite (`tests/tests/support`).
#[path = "../support"]
#[allow(dead_code)] // each suite uses a part of them
mod support {
    pub mod jet3_oracles;
    pub mod oracle_values;
}

mod auto_number;
mod corpus_conformance;
mod crash_journal;
mod crash_kill;
mod damaged_pages;
mod date_encoding;
mod ddl_jet3;
mod format_values;
mod index_write;
mod indexes;
mod journal_damaged;
mod long_text;
mod oracle_mdb_reader;
mod writer_corpus;
mod writer_indexed;
mod writer_jet3;
mod writer_mdbtools;
mod writer_refusals;
mod writer_roundtrip;
mod writer_rules;
mod writer_upkeep;
