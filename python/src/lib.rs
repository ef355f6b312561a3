//! # jetsql-python
//!
//! The native module `jetsql._jetsql` of the `jetsql` Python package
//! (built by maturin from `python/pyproject.toml`): Access databases read
//! and written through jet-storage and the jetsql DataFusion session, with
//! results as Arrow C streams and tables as datafusion-ffi table
//! providers. The public Python API (`jetsql.open`, `Database.read`,
//! `to_pandas`, …) is `python/jetsql/__init__.py` over these classes.

mod database;
mod errors;
mod provider;
mod runtime;
mod stream;

use pyo3::prelude::*;

/// The native part of the `jetsql` package.
#[pymodule]
fn _jetsql(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<database::Database>()?;
    m.add_class::<database::ArrowSchema>()?;
    m.add_class::<stream::Stream>()?;
    m.add_class::<provider::TableProvider>()?;
    m.add("Error", py.get_type::<errors::Error>())?;
    m.add("WrongPassword", py.get_type::<errors::WrongPassword>())?;
    m.add("CorruptFile", py.get_type::<errors::CorruptFile>())?;
    m.add(
        "ConstraintViolation",
        py.get_type::<errors::ConstraintViolation>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
