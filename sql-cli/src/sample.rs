//! The sample database `jetsql` opens when no FILE is given.

use std::path::PathBuf;

/// Where the sample lives in a checkout: `fixtures/sample.accdb` at the
/// workspace root, fixed at compile time.
pub const BUILT_IN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/sample.accdb");

/// The sample: `$JETSQL_SAMPLE` when set, else [`BUILT_IN`] when it
/// exists; otherwise an error saying how to get one.
pub fn sample_path() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("JETSQL_SAMPLE") {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "JETSQL_SAMPLE names {}, which is not a file",
                p.display()
            ))
        };
    }
    let p = PathBuf::from(BUILT_IN);
    if p.is_file() {
        return Ok(p);
    }
    Err(format!(
        "no FILE given and the sample database is missing: expected {} \
         (generated into fixtures/ by the project's writer; see fixtures/ in \
         the repository), or set JETSQL_SAMPLE to a database file",
        p.display()
    ))
}
