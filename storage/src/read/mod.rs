//! The reader: pages of rows and long values to Arrow batches, the open database, queries.

pub mod complex;
pub mod data_page;
pub mod database;
pub mod decode;
pub mod lval;
pub mod objects;
pub mod parallel;
pub mod queries;
pub mod row;
pub mod scan;
pub mod table;
pub mod usage_map;
