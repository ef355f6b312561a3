//! The schema: table definitions ([`tdef`]), properties ([`props`]), catalog entries ([`catalog`]).

pub mod catalog;
pub mod props;
pub mod tdef;
