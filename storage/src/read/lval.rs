//! Long values (MEMO, OLE): inline, in one LVAL row, or in a chain of LVAL
//! rows, walked under the kernel's chain budget.

use crate::error::{FormatError, corrupt};
use crate::format::Layout;
use crate::page::PageSource;
use crate::read::data_page::DataPage;
use jet_kernels::Refusal;
use jet_kernels::bytes::u32_at;
use jet_kernels::lval::{ChainBudget, DESCRIPTOR_LEN, LvalKind, decode_descriptor};
use jet_kernels::row_slot::{pack_row_pointer, unpack_row_pointer};

/// Appends the bytes of the long value whose descriptor (and, for inline
/// values, data) is `field` to `out`. `page` and `offset` locate the field
/// for error messages.
///
/// Never collects more than the descriptor's length, never allocates more
/// than the file could hold, and stops on cycles through the chain budget.
pub fn read_long_value(
    src: &dyn PageSource,
    layout: &Layout,
    field: &[u8],
    page: u32,
    offset: usize,
    out: &mut Vec<u8>,
) -> Result<(), FormatError> {
    let d =
        decode_descriptor(field).map_err(|r| corrupt(page, offset, "long value descriptor", r))?;
    let file_bytes = (src.page_count() as u64).saturating_mul(src.page_size() as u64);
    let len = d.length as usize;
    match d.kind {
        LvalKind::Inline => {
            let data = &field[DESCRIPTOR_LEN..];
            out.extend_from_slice(&data[..len.min(data.len())]);
        }
        LvalKind::SinglePage => {
            let dp = DataPage::read(src, layout, d.page)?;
            let row = dp.row(usize::from(d.row))?;
            out.extend_from_slice(&row[..len.min(row.len())]);
        }
        LvalKind::Chained => {
            out.reserve(len.min(file_bytes as usize));
            let mut budget = ChainBudget::new(d.length, src.page_count());
            let (mut p, mut r) = (d.page, d.row);
            loop {
                let dp = DataPage::read(src, layout, p)?;
                let row = dp.row(usize::from(r))?;
                let next = u32_at(row, 0)
                    .ok_or_else(|| corrupt(p, 0, "LVAL chain pointer", Refusal::OutOfBounds))?;
                let here = pack_row_pointer(p, r).unwrap_or(0);
                let data = &row[4..];
                let take = budget
                    .step(data.len(), here, next)
                    .map_err(|r| corrupt(p, 0, "LVAL chain", r))?;
                out.extend_from_slice(&data[..take as usize]);
                if next == 0 || budget.remaining_bytes() == 0 {
                    break;
                }
                (p, r) = unpack_row_pointer(next);
            }
        }
    }
    Ok(())
}
