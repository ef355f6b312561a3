//! Helpers shared by several test files.

pub mod slt_output;
