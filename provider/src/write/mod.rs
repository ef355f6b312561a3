//! Writing tables: the INSERT sink and DELETE / UPDATE plans, their guard, and CREATE TABLE specs.
//!
//! Exports (at the crate root): [`JetSink`], [`JetDmlExec`], [`DmlKind`] and
//! [`DmlGuard`].

pub(crate) mod ddl;
pub(crate) mod defaults;
pub(crate) mod dml;
pub(crate) mod guard;

pub use dml::{DmlKind, JetDmlExec, JetSink};
pub use guard::DmlGuard;
