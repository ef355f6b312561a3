//! The Access SQL dialect.

pub mod functions;
