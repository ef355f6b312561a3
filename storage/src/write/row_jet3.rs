//! Jet3 (Access 97) specifics of row encoding: text in the column's code
//! page, and the row trailer with one-byte variable-column offsets and the
//! jump table.
//!
//! A Jet3 row is `num_cols` (one byte), the fixed area, the variable data,
//! then — from the end backwards — the null mask, the variable-column count
//! (one byte), the jump table, and the offset table (one byte per entry,
//! entry 0 highest, the end-of-data entry `eod` lowest). An offset is its
//! stored low byte plus 256 × the number of jump-table entries at or before
//! it: jump entry `k` (1-based, stored just below the count, then downwards)
//! holds the index of the first offset-table entry that is at least
//! `256 × k`. The table has `(row_len - 1) / 256` entries; when the offset
//! table itself lies below the last 256-byte boundary no entry reaches it and
//! that last entry is a dummy `0xFF` (mdbtools' HACKING notes; the reader's
//! `jet3_layout` kernel applies the same rule).

use encoding_rs::Encoding;

/// Encodes `text` in `encoding` (a Jet3 column's code page), or `Err`
/// naming the first character the code page does not hold. Never replaces
/// a character: the result decodes (as the reader decodes it) to exactly
/// `text`.
pub fn encode_codepage(text: &str, encoding: &'static Encoding) -> Result<Vec<u8>, String> {
    if text.is_ascii() && encoding.is_ascii_compatible() {
        return Ok(text.as_bytes().to_vec());
    }
    if encoding.output_encoding() != encoding {
        return Err(format!(
            "Access 97 text in code page {} cannot be written",
            encoding.name()
        ));
    }
    let (bytes, _, had_errors) = encoding.encode(text);
    if had_errors {
        let bad = text
            .chars()
            .find(|c| {
                let mut b = [0u8; 4];
                encoding.encode(c.encode_utf8(&mut b)).2
            })
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        return Err(format!(
            "the character U+{:04X} is not in the column's code page ({}); Access 97 files store \
             text in the code page, so it cannot be stored",
            u32::from(bad),
            encoding.name()
        ));
    }
    let mut back = String::new();
    crate::format::text::decode_codepage(&bytes, encoding, &mut back);
    if back != text {
        return Err(format!(
            "the text does not read back unchanged from code page {}",
            encoding.name()
        ));
    }
    Ok(bytes.into_owned())
}

/// Appends the Jet3 trailer of a row whose variable data ends at
/// `row.len()`: the offset table (`offsets`, one per variable column in
/// `var_index` order, then `eod` = `row.len()` is added), the jump table
/// and the variable-column count. The null mask (`mask_len` bytes) is
/// appended by the caller; it counts toward the row length that sizes the
/// jump table. At most [`MAX_COLUMNS`] offsets (the writer refuses Jet3
/// tables with more columns, see [`check_table`]).
pub fn push_trailer(row: &mut Vec<u8>, offsets: &[usize], mask_len: usize) {
    debug_assert!(offsets.len() <= MAX_COLUMNS);
    let eod = row.len();
    let entries: Vec<usize> = offsets.iter().copied().chain([eod]).collect();
    let var_count = offsets.len() as u8;
    // the row's length fixes the number of jump entries, which is part of
    // it: iterate to the fixed point (non-decreasing, bounded)
    let base = eod + entries.len() + 1 + mask_len;
    let mut jumps = 0usize;
    loop {
        let need = (base + jumps - 1) / 256;
        if need <= jumps {
            break;
        }
        jumps = need;
    }
    for &o in entries.iter().rev() {
        row.push((o % 256) as u8);
    }
    for k in (1..=jumps).rev() {
        let first = entries.iter().position(|&o| o >= 256 * k);
        // an entry index is at most `offsets.len()`, at most 255
        row.push(first.map_or(0xFF, |i| i as u8));
    }
    row.push(var_count);
}

/// Most columns a Jet3 row records (its column count is one byte).
pub const MAX_COLUMNS: usize = 255;

/// Refuses a Jet3 table whose rows this writer cannot lay out: more than
/// [`MAX_COLUMNS`] columns or variable columns (only a damaged definition
/// has them).
pub fn check_table(def: &crate::schema::tdef::TableDef, table: &str) -> crate::error::WResult<()> {
    let most = def
        .columns
        .iter()
        .map(|c| usize::from(c.col_num).max(usize::from(c.var_index)) + 1)
        .chain([usize::from(def.max_cols)])
        .max()
        .unwrap_or(0);
    if most > MAX_COLUMNS {
        return Err(crate::error::WriteError::BadDefinition {
            table: table.to_string(),
            why: format!(
                "its definition numbers {most} columns; an Access 97 row records at most {MAX_COLUMNS}"
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use jet_kernels::var_cols::{jet3_layout, var_interval, var_offsets};

    #[test]
    fn code_page_text_round_trips_or_is_refused() {
        let cp1252 = encoding_rs::WINDOWS_1252;
        assert_eq!(encode_codepage("abc", cp1252).unwrap(), b"abc");
        assert_eq!(
            encode_codepage("Café €5", cp1252).unwrap(),
            vec![b'C', b'a', b'f', 0xE9, b' ', 0x80, b'5']
        );
        let e = encode_codepage("a中b", cp1252).unwrap_err();
        assert!(e.contains("U+4E2D"), "{e}");
        let cp1251 = encoding_rs::WINDOWS_1251;
        assert_eq!(encode_codepage("Жж", cp1251).unwrap(), vec![0xC6, 0xE6]);
        assert!(encode_codepage("é", cp1251).is_err());
    }

    /// Rows of every length around the 256-byte boundaries read back
    /// through the reader's kernel with the intervals they were built from.
    #[test]
    fn trailer_reads_back_through_the_kernel() {
        for fixed in [0usize, 3, 250] {
            for a in (0..800).step_by(13) {
                for b in [0usize, 1, 255, 256, 257, 600] {
                    let vals = [vec![1u8; a], vec![], vec![2u8; b], vec![3u8; 4]];
                    let mut row = vec![9u8];
                    row.extend(std::iter::repeat_n(7u8, fixed));
                    let mut offs = Vec::new();
                    let mut iv = Vec::new();
                    for v in &vals {
                        offs.push(row.len());
                        row.extend_from_slice(v);
                        iv.push(offs[offs.len() - 1]..row.len());
                    }
                    push_trailer(&mut row, &offs, 2);
                    row.extend_from_slice(&[0xFF, 0x01]);
                    let l = jet3_layout(&row, true).unwrap();
                    let mut out = [0u16; 8];
                    var_offsets(&row, &l, &mut out).unwrap();
                    for (v, want) in iv.iter().enumerate() {
                        assert_eq!(
                            var_interval(&out, &l, v).unwrap(),
                            want.clone(),
                            "fixed {fixed} a {a} b {b} var {v}"
                        );
                    }
                }
            }
        }
    }
}
