//! A Jet table as a datafusion-python table provider: the object
//! `Database.table_provider` returns implements
//! `__datafusion_table_provider__(session)`, the protocol of
//! datafusion-python 52 and later, returning a capsule named
//! "datafusion_table_provider" over datafusion-ffi's `FFI_TableProvider`.
//! Filters are offered to the table (pushdown on), so indexed predicates
//! become index seeks in the other library's plans.

use datafusion::catalog::TableProvider as DfTableProvider;
use datafusion_ffi::proto::logical_extension_codec::FFI_LogicalExtensionCodec;
use datafusion_ffi::table_provider::FFI_TableProvider;
use jet_provider::JetTable;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::sync::Arc;

/// The name datafusion-python looks for on a session object to get its
/// logical extension codec.
const CODEC_METHOD: &str = "__datafusion_logical_extension_codec__";

/// One table of a database for datafusion-python:
/// `ctx.register_table("orders", db.table_provider("Orders"))`.
#[pyclass(frozen, module = "jetsql._jetsql", name = "TableProvider")]
pub struct TableProvider {
    table: Arc<JetTable>,
}

impl TableProvider {
    /// A provider over `table`.
    pub fn new(table: Arc<JetTable>) -> TableProvider {
        TableProvider { table }
    }
}

/// The logical extension codec of a datafusion-python session: the
/// session's `__datafusion_logical_extension_codec__()` capsule, or the
/// capsule itself.
fn session_codec(session: &Bound<'_, PyAny>) -> PyResult<FFI_LogicalExtensionCodec> {
    let capsule = if session.hasattr(CODEC_METHOD)? {
        session.getattr(CODEC_METHOD)?.call0()?
    } else {
        session.clone()
    };
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| {
        crate::errors::Error::new_err(
            "__datafusion_table_provider__ needs a datafusion-python session (datafusion 52 or later)",
        )
    })?;
    let data = capsule.pointer_checked(Some(c"datafusion_logical_extension_codec"))?;
    // SAFETY: the capsule's name was checked above: it was made by
    // datafusion-python around an `FFI_LogicalExtensionCodec`, which it
    // keeps alive as long as the capsule (borrowed here); the struct is
    // `repr(C)` and cloning it goes through its own `clone` callback.
    let codec = unsafe { data.cast::<FFI_LogicalExtensionCodec>().as_ref() };
    Ok(codec.clone())
}

#[pymethods]
impl TableProvider {
    /// The table as a datafusion-ffi `FFI_TableProvider` in a capsule
    /// named "datafusion_table_provider", for the datafusion-python
    /// `session` registering it.
    fn __datafusion_table_provider__<'py>(
        &self,
        py: Python<'py>,
        session: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let codec = session_codec(&session)?;
        let runtime = crate::runtime::runtime()?.handle().clone();
        let provider: Arc<dyn DfTableProvider> = self.table.clone();
        let ffi = FFI_TableProvider::new_with_ffi_codec(provider, true, Some(runtime), codec);
        PyCapsule::new_with_value(py, ffi, c"datafusion_table_provider")
    }

    /// The table's name.
    #[getter]
    fn name(&self) -> String {
        self.table.table().name().to_string()
    }

    fn __repr__(&self) -> String {
        format!("jetsql.TableProvider({:?})", self.table.table().name())
    }
}
