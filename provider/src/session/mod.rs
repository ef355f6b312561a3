//! The session: building it, and [`JetSession`], the statement entry point with its DDL.
//!
//! Exports: [`JetSession`], [`session_context`], [`jet_session_state_builder`],
//! [`new_session`] and [`catalog_name`].

mod alter;
mod alter_constraint;
mod build;
mod columns;
mod execute;
mod index_ddl;
mod kind;
mod statement;

pub use build::{catalog_name, jet_session_state_builder, new_session, session_context};
pub use statement::JetSession;
