//! Row planning: where each column's content lies in a stored row. A
//! [`CrackedRow`] is one row split by the row-geometry kernels; a
//! `PageRun` lays out the rows of one page together and a `FieldPlan`
//! says, once per scan, where a column lies, so the per-row work is only
//! the row's own geometry.

use crate::error::{FormatError, Result, corrupt};
use crate::format::types::JetType;
use crate::format::{JetVersion, RawField};
use crate::read::data_page::DataPage;
use crate::schema::tdef::{Column, TableDef};
use jet_kernels::range::admit;
use jet_kernels::var_cols::{
    RowLayout, jet3_layout, jet4_layout, null_mask_bit, var_interval, var_offsets,
};
use std::ops::Range;

/// A row split into its parts by the row-geometry kernels.
pub struct CrackedRow<'a, 'o> {
    row: &'a [u8],
    layout: RowLayout,
    offsets: &'o [u16],
}

impl<'a, 'o> CrackedRow<'a, 'o> {
    /// Lays out `row` of a table with definition `def`; `offsets` is scratch
    /// space (grown as needed). Errors name what was refused.
    pub fn new(
        row: &'a [u8],
        def: &TableDef,
        version: JetVersion,
        offsets: &'o mut Vec<u16>,
    ) -> Result<CrackedRow<'a, 'o>, (&'static str, jet_kernels::Refusal)> {
        let has_var = def.num_var_cols > 0;
        let layout = if version.is_jet3() {
            jet3_layout(row, has_var)
        } else {
            jet4_layout(row, has_var)
        }
        .map_err(|r| ("row layout", r))?;
        if layout.var_count + 1 > offsets.len() {
            offsets.resize(layout.var_count + 1, 0);
        }
        var_offsets(row, &layout, offsets).map_err(|r| ("variable offsets", r))?;
        Ok(CrackedRow {
            row,
            layout,
            offsets,
        })
    }

    /// The raw content of column `col` in this row.
    pub fn field(
        &self,
        col: &Column,
    ) -> Result<RawField<'a>, (&'static str, jet_kernels::Refusal)> {
        self.planned(&FieldPlan::of(col))
    }

    /// The raw content of the column `plan` locates.
    fn planned(
        &self,
        plan: &FieldPlan,
    ) -> Result<RawField<'a>, (&'static str, jet_kernels::Refusal)> {
        planned_field(self.row, &self.layout, self.offsets, plan)
    }
}

/// The raw content of the column `plan` locates in `row`, laid out as
/// `layout` with variable offsets `offsets` (unused, and may be empty, for
/// fixed and Boolean columns).
#[inline(always)]
fn planned_field<'a>(
    row: &'a [u8],
    rl: &RowLayout,
    offsets: &[u16],
    plan: &FieldPlan,
) -> Result<RawField<'a>, (&'static str, jet_kernels::Refusal)> {
    let present = null_mask_bit(row, rl, plan.col_num);
    match plan.place {
        Place::MaskBool => Ok(RawField::Bool(present)),
        _ if !present => Ok(RawField::Null),
        // a row written before this column existed has no bytes for it
        Place::Fixed { offset, len } => Ok(match fixed_bytes(row, rl, offset, len) {
            Some(bytes) => RawField::Bytes(bytes),
            None => RawField::Null,
        }),
        Place::Var(v) => {
            if v >= rl.var_count {
                return Ok(RawField::Null);
            }
            Ok(RawField::Bytes(var_bytes(row, rl, offsets, v)?))
        }
    }
}

/// The bytes of variable column `v` in `row` (laid out as `rl`, with
/// variable offsets `offsets`), which the row stores (`v` is below its
/// count); a disordered or outlying offset pair is refused.
#[inline(always)]
fn var_bytes<'a>(
    row: &'a [u8],
    rl: &RowLayout,
    offsets: &[u16],
    v: usize,
) -> Result<&'a [u8], (&'static str, jet_kernels::Refusal)> {
    let r = var_interval(offsets, rl, v).map_err(|r| ("variable column", r))?;
    row.get(r)
        .ok_or(("variable column", jet_kernels::Refusal::OutOfBounds))
}

/// The bytes of a variable column in `row` (laid out as `rl`, with
/// variable offsets `offsets`): `None` where the row's mask says NULL or
/// the row stores fewer variable columns (one written before the column
/// was added). Exactly what [`planned_field`] gives for a variable column.
#[inline(always)]
pub(crate) fn var_cell<'a>(
    row: &'a [u8],
    rl: &RowLayout,
    offsets: &[u16],
    var: VarPlace,
) -> Result<Option<&'a [u8]>, (&'static str, jet_kernels::Refusal)> {
    if !null_mask_bit(row, rl, var.col_num) || var.v >= rl.var_count {
        return Ok(None);
    }
    var_bytes(row, rl, offsets, var.v).map(Some)
}

/// Where a variable column lies: its column number (its null-mask bit)
/// and its index among the variable columns.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VarPlace {
    col_num: usize,
    v: usize,
}

/// The bytes of a fixed column in `row` (laid out as `rl`): `None` where
/// the row's mask says NULL or the row ends before the column (a row
/// written before the column was added). Exactly what [`planned_field`]
/// gives for a fixed column, without the variable offsets.
#[inline(always)]
pub(crate) fn fixed_cell<'a>(row: &'a [u8], rl: &RowLayout, fixed: FixedPlace) -> Option<&'a [u8]> {
    if !null_mask_bit(row, rl, fixed.col_num) {
        return None;
    }
    fixed_bytes(row, rl, fixed.offset, fixed.len)
}

/// The `len` bytes at `offset` into the fixed area of `row`, or `None`
/// when they run past its data (a row written before the column existed
/// has no bytes for it).
#[inline(always)]
fn fixed_bytes<'a>(row: &'a [u8], rl: &RowLayout, offset: usize, len: usize) -> Option<&'a [u8]> {
    rl.fixed_start
        .checked_add(offset)
        .and_then(|start| admit(start, len, rl.data_end))
        .and_then(|r| row.get(r))
}

/// Where a fixed column lies: its column number (its null-mask bit), its
/// offset in the fixed area and its length.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FixedPlace {
    col_num: usize,
    offset: usize,
    len: usize,
}

/// The rows of one page laid out together, so each projected column is
/// then appended for all of them in one loop (one dispatch on the column's
/// type per page, not per value). Buffers are reused from page to page.
#[derive(Default)]
pub(crate) struct PageRun {
    /// Extents of the rows in the page.
    pub(crate) rows: Vec<Range<usize>>,
    /// Each row's layout.
    pub(crate) layouts: Vec<RowLayout>,
    /// Variable offsets of every row, back to back (only when a variable
    /// column is decoded).
    pub(crate) offsets: Vec<u16>,
    /// Where each row's offsets start in `offsets`.
    pub(crate) offsets_at: Vec<usize>,
}

impl PageRun {
    /// Empties the run, keeping its buffers.
    pub(crate) fn clear(&mut self) {
        self.rows.clear();
        self.layouts.clear();
        self.offsets.clear();
        self.offsets_at.clear();
    }

    /// Lays out the rows of `run.rows` in `page`; `var` says whether the
    /// variable offsets are needed.
    pub(crate) fn lay_out(
        &mut self,
        page: &DataPage,
        def: &TableDef,
        version: JetVersion,
        var: bool,
    ) -> Result<(), FormatError> {
        let has_var = def.num_var_cols > 0;
        // the layouts first, then every row's offsets into one buffer
        // sized once (sized row by row, its zeroing was a library call a
        // row); errors come in row order as if each row were done whole
        let mut total = self.offsets.len();
        let mut bad_layout = None;
        for range in &self.rows {
            let row = &page.bytes[range.clone()];
            let layout = if version.is_jet3() {
                jet3_layout(row, has_var)
            } else {
                jet4_layout(row, has_var)
            };
            match layout {
                Ok(layout) => {
                    self.offsets_at.push(total);
                    if var {
                        total = total.saturating_add(layout.var_count.saturating_add(1));
                    }
                    self.layouts.push(layout);
                }
                Err(r) => {
                    bad_layout = Some(corrupt(page.number, range.start, "row layout", r));
                    break;
                }
            }
        }
        if var {
            self.offsets.resize(total, 0);
            for ((range, layout), &at) in self.rows.iter().zip(&self.layouts).zip(&self.offsets_at)
            {
                let row = &page.bytes[range.clone()];
                let out = self.offsets.get_mut(at..).unwrap_or_default();
                var_offsets(row, layout, out)
                    .map_err(|r| corrupt(page.number, range.start, "variable offsets", r))?;
            }
        }
        match bad_layout {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Rows in the run.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// Offset of row `i` in its page (for errors); 0 past the run.
    #[inline(always)]
    pub(crate) fn start(&self, i: usize) -> usize {
        self.rows.get(i).map_or(0, |r| r.start)
    }

    /// The raw content of the column `plan` locates in row `i` of the run.
    #[inline(always)]
    pub(crate) fn field<'p>(
        &self,
        page: &'p DataPage,
        i: usize,
        plan: &FieldPlan,
    ) -> Result<RawField<'p>, FormatError> {
        let range = &self.rows[i];
        let at = self.offsets_at[i];
        planned_field(
            &page.bytes[range.clone()],
            &self.layouts[i],
            self.offsets.get(at..).unwrap_or(&[]),
            plan,
        )
        .map_err(|(what, r)| corrupt(page.number, range.start, what, r))
    }
}

/// Where a column's content lies in a row, worked out once per scan from
/// its definition (the per-row work is then only the row's own geometry).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FieldPlan {
    col_num: usize,
    place: Place,
}

#[derive(Debug, Clone, Copy)]
enum Place {
    /// A Boolean stored in the null mask.
    MaskBool,
    /// `len` bytes at `offset` into the fixed area.
    Fixed { offset: usize, len: usize },
    /// Variable column number `v`.
    Var(usize),
}

/// Bytes a fixed column takes in the fixed area of a row: its type's
/// size, or its declared length for a calculated column or a type without
/// a known size (for example type 0x11, the `Data` column of
/// `MSysAccessObjects`). The reader and the row writer both use it.
pub fn fixed_len(col: &Column) -> usize {
    col.jet_type
        .fixed_size()
        .filter(|_| !col.is_calculated())
        .unwrap_or(usize::from(col.length))
}

impl FieldPlan {
    /// The plan of column `col`.
    pub(crate) fn of(col: &Column) -> FieldPlan {
        let place = if col.jet_type == JetType::Boolean && !col.is_calculated() {
            Place::MaskBool
        } else if col.is_fixed() {
            Place::Fixed {
                offset: usize::from(col.fixed_offset),
                len: fixed_len(col),
            }
        } else {
            Place::Var(usize::from(col.var_index))
        };
        FieldPlan {
            col_num: usize::from(col.col_num),
            place,
        }
    }

    /// Where the column lies when it is a fixed column (not a mask
    /// Boolean, not variable).
    pub(crate) fn fixed(&self) -> Option<FixedPlace> {
        match self.place {
            Place::Fixed { offset, len } => Some(FixedPlace {
                col_num: self.col_num,
                offset,
                len,
            }),
            _ => None,
        }
    }

    /// Where the column lies when it is a variable column.
    pub(crate) fn var(&self) -> Option<VarPlace> {
        match self.place {
            Place::Var(v) => Some(VarPlace {
                col_num: self.col_num,
                v,
            }),
            _ => None,
        }
    }

    /// Whether the column is variable (rows need their offset tables).
    pub(crate) fn is_var(&self) -> bool {
        matches!(self.place, Place::Var(_))
    }
}
