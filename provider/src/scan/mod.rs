//! Reading tables: scans, seeks, index walks, MIN/MAX, complex columns and the planner rules.
//!
//! Exports (at the crate root): [`JetScanExec`], [`IndexSeekExec`],
//! [`IndexOrderExec`], [`IndexMinMaxExec`], [`KeyRange`], [`Recheck`],
//! [`ComplexLists`], the rules ([`JetIndexOrder`], [`JetMinMax`],
//! [`physical_optimizer_rules`], [`analyzer_rules`]) and
//! [`FloatDecimalComparison`].

pub(crate) mod complex;
pub(crate) mod exec;
pub(crate) mod literals;
pub(crate) mod minmax;
pub(crate) mod order;
pub(crate) mod pushdown;
pub(crate) mod rules;
pub(crate) mod seek;
pub(crate) mod walk;

pub use complex::ComplexLists;
pub use exec::{IndexSeekExec, JetScanExec, KeyRange, KeyRangeRef, Recheck};
pub use literals::{FloatDecimalComparison, analyzer_rules};
pub use minmax::IndexMinMaxExec;
pub use order::IndexOrderExec;
pub use rules::{JetIndexOrder, JetMinMax, physical_optimizer_rules};
