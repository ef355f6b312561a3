//! # jet-kernels
//!
//! The small, pure, total decisions that guard the Jet reader and writer.
//! Every function here is total over its whole input domain: it never panics,
//! never allocates, never performs I/O and never loops without a bound. A
//! decision that would read out of bounds, loop forever or corrupt a page
//! returns `None` or a [`Refusal`] instead.
//!
//! Each kernel is checked against an independent, naive oracle in its test
//! module (exhaustively on small domains, by proptest on large ones) and has a
//! fuzz target under `kernels/fuzz/`.
#![no_std]
#![forbid(unsafe_code)]
// Oracles in test modules are deliberately naive: they may index and cast.
#![cfg_attr(
    test,
    allow(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::as_conversions,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic
    )
)]

pub mod attachment;
pub mod bytes;
pub mod compressed_text;
pub mod index_entry;
pub mod index_page;
pub mod journal;
pub mod lval;
pub mod ole;
pub mod pg_frame;
pub mod range;
pub mod row_slot;
pub mod scram;
pub mod usage_map;
pub mod var_cols;
pub mod widen;

/// Why a kernel refused its input. Carries no context of its own: callers
/// attach page numbers and tables when converting it into their errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// A range ends past its limit or its end overflows.
    OutOfBounds,
    /// A row slot points into the page header or slot table.
    SlotInHeader,
    /// Two row slots claim the same bytes.
    Overlap,
    /// A row has no bytes (start equals end).
    EmptyRow,
    /// Offsets that must not decrease do.
    Disorder,
    /// A count or length field is larger than the structure holding it.
    BadCount,
    /// A long-value descriptor has an unknown kind.
    BadDescriptor,
    /// A chain made no progress or exhausted its budget.
    Budget,
    /// A record ends before its declared end (a torn write).
    Torn,
    /// A record's magic, kind or reserved bytes are wrong.
    BadRecord,
    /// A record's checksum does not match its bytes.
    Checksum,
}

impl core::fmt::Display for Refusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = match self {
            Refusal::OutOfBounds => "range out of bounds",
            Refusal::SlotInHeader => "row slot points into the page header",
            Refusal::Overlap => "row slots overlap",
            Refusal::EmptyRow => "row has no bytes",
            Refusal::Disorder => "offsets out of order",
            Refusal::BadCount => "count larger than its container",
            Refusal::BadDescriptor => "unknown long-value descriptor kind",
            Refusal::Budget => "chain budget exhausted or no progress",
            Refusal::Torn => "record is torn",
            Refusal::BadRecord => "record has a bad magic, kind or reserved field",
            Refusal::Checksum => "record checksum mismatch",
        };
        f.write_str(s)
    }
}
