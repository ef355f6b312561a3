//! Helpers shared by the storage tests: the index/scan consistency check
//! (`check`), the mdbtools and mdb-reader oracles (`oracle`) and the saved
//! queries' fixtures (`queries`). Each test module uses a part of them.

pub mod check;
pub mod oracle;
pub mod queries;
