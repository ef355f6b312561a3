//! Opening a database for writing: [`Database::open_writable_with`], which
//! sits here, above the reader, so the reader never names the writer.

use super::{WriteTarget, Writer};
use crate::error::Result;
use crate::read::database::Database;

impl Database {
    /// Opens a database for writing through `target` (the journaled file
    /// target, or an in-memory [`crate::page::image::MemImage`]); changes happen
    /// only inside [`crate::write::Writer::transaction`].
    pub fn open_writable_with<T: WriteTarget>(target: T) -> Result<Writer<T>> {
        Writer::new(target)
    }
}
