//! The schema: table definitions ([`tdef`]), properties ([`props`]), catalog entries (`catalog.rs`).
//!
//! Exports: modules [`tdef`] and [`props`]; catalog entries are at the crate
//! root ([`CatalogEntry`](crate::CatalogEntry),
//! [`ObjectKind`](crate::ObjectKind)).

pub(crate) mod catalog;
pub mod props;
pub mod tdef;
