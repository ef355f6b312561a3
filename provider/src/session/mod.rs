//! The session: building it, and [`JetSession`], the statement entry point with its DDL.
//!
//! Exports: [`JetSession`], [`session_context`], [`jet_session_state_builder`],
//! [`new_session`], [`server_session`], [`catalog_name`], and for statements
//! prepared once and run with parameters [`StatementKind`] and [`Described`].

mod alter;
mod alter_constraint;
mod build;
mod columns;
mod execute;
mod index_ddl;
mod kind;
mod parameters;
mod prepared;
mod statement;

pub use build::{
    catalog_name, jet_session_state_builder, new_session, server_session, session_context,
};
pub use prepared::{Described, PlannedQuery, StatementKind};
pub use statement::JetSession;
