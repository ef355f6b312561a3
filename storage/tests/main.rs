//! The storage crate's integration tests, one binary: a module per
//! concern (`cargo test -p jet-storage --test storage compact::` runs one),
//! the shared helpers in `support`. Every test reads and writes through the
//! public API only; corpus files come from `../shared/corpus` or
//! `JET_CORPUS`.

mod support;

mod alter_column;
mod alter_column_type;
mod cascades;
mod compact;
mod complex;
mod complex_write;
mod create_index;
mod encrypted;
mod encrypted_convert;
mod encrypted_write;
mod layers;
mod protect;
mod queries;
mod queries_rows;
mod relationships;
mod rename_table;
mod text_layouts;
