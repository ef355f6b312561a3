//! The `jetsql` binary's integration tests, one binary: a module per
//! concern (`cargo test -p jetsql --test cli batch::` runs one), the shared
//! helpers in `common` (the binary, nwind) and `migrate_support` (the
//! migration targets and their oracles).

mod common;
mod migrate_support;

mod archive;
mod batch;
mod complex;
mod describe;
mod export;
mod file_names;
mod frontdoor;
mod hostile_input;
mod io_faults;
mod kill;
mod migrate_postgres;
mod migrate_sqlite;
mod race;
mod repl;
mod serve;
mod serve_auth;
mod serve_hostile;
mod serve_limits;
mod serve_tls;
mod serve_write;
mod write;
