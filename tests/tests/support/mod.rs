//! Helpers shared by several test files.

// each test binary compiles this module and uses a part of it
#![allow(dead_code)]

pub mod slt_output;
