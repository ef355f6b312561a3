//! Workspace tests through SQL (the DataFusion provider and the Access
//! dialect), one binary: pushdown against the plain scan, DML and DDL,
//! saved queries, complex columns, sqllogictest scripts. A module per
//! former test file (`cargo test -p jet-tests --test sql pushdown::` runs
//! one).

/// Helpers shared with the `storage` suite (`tests/tests/support`).
#[path = "../support"]
#[allow(dead_code)] // each suite uses a part of them
mod support {
    pub mod slt_output;
}

mod access_arith;
mod access_financial;
mod access_functions;
mod access_library;
mod access_sql;
mod access_support;
mod access_types;
mod action_queries;
mod alter_table;
mod archive;
mod complex_sql;
mod complex_write_sql;
mod dml;
mod front_door;
mod index_ddl;
mod linked_tables;
mod prepared;
mod pushdown;
mod pushdown_literals;
mod pushdown_property;
mod saved_queries;
mod scan_partitions;
mod sql_fuzz;
mod sqllogic;
