//! Writing tables: the INSERT sink and DELETE / UPDATE plans, their guard, and CREATE TABLE specs.

pub(crate) mod ddl;
pub(crate) mod defaults;
pub(crate) mod dml;
pub(crate) mod guard;

pub use dml::{DmlKind, JetDmlExec, JetSink};
pub use guard::DmlGuard;
