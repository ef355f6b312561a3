//! Index key encoders: a column value, as the row stores it, to the bytes
//! Access writes into index entries.
//!
//! Each key column contributes a flag byte (`7F` ascending / `80`
//! descending for a value; `00` / `FF` for NULL) and then the value:
//! integers big-endian with the sign bit flipped; floating point (and
//! Date/Time) big-endian with the sign bit flipped, or all bits flipped when
//! negative; Byte as is; Boolean as one byte (`00` true, `FF` false);
//! Numeric as a 17-byte big-endian form (Jet3/Jet4 "legacy" and ACE rules
//! differ); GUID and Binary in 8-byte segments each followed by a length
//! byte (9 = more follows); Extended Date/Time in five 8-byte segments, two
//! bytes and a fixed trailer. A descending column's value bytes are
//! inverted (with the segment rules' exceptions). Text keys depend on the
//! sort order's character tables, which this encoder does not yet know: they
//! are refused with [`KeyError::Unsupported`], so a caller falls back to a
//! scan instead of seeking with a wrong key.

use crate::format::JetVersion;
use crate::scan::OwnedField;
use crate::tdef::{Column, Direction};
use crate::types::JetType;

/// Why a value cannot be encoded as an index key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The column's type (or its sort order) has no established encoding.
    #[error("column {column:?}: no established index key encoding for {jet_type} ({reason})")]
    Unsupported {
        /// Column name.
        column: String,
        /// Jet type name.
        jet_type: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// The stored value is too short for its type.
    #[error("column {column:?}: stored value of {len} bytes is too short for {jet_type}")]
    BadValue {
        /// Column name.
        column: String,
        /// Jet type name.
        jet_type: &'static str,
        /// Bytes found.
        len: usize,
    },
}

const ASC_START: u8 = 0x7F;
const ASC_NULL: u8 = 0x00;
const DESC_START: u8 = 0x80;
const DESC_NULL: u8 = 0xFF;
const EXT_DATE_TRAILER: [u8; 7] = [0, 0, 0, 0, 0, 0, 0x02];

fn flip(b: &mut [u8]) {
    for x in b {
        *x = !*x;
    }
}

/// Appends `bytes` in the general binary entry form: 8-byte segments, each
/// followed by 9 when more data follows, the last zero-padded and followed
/// by its length. Descending inverts the data and the final length byte but
/// not the intermediate 9s.
fn general_binary(out: &mut Vec<u8>, bytes: &[u8], asc: bool) {
    let mut chunks = bytes.chunks(8).peekable();
    while let Some(c) = chunks.next() {
        let mut seg = [0u8; 9];
        seg[..c.len()].copy_from_slice(c);
        if chunks.peek().is_some() {
            if !asc {
                flip(&mut seg[..8]);
            }
            seg[8] = 9;
        } else {
            seg[8] = c.len() as u8;
            if !asc {
                flip(&mut seg);
            }
        }
        out.extend_from_slice(&seg);
    }
}

/// Appends the key bytes of one column's stored value to `out`.
pub fn encode_column(
    out: &mut Vec<u8>,
    col: &Column,
    dir: Direction,
    field: &OwnedField,
    version: JetVersion,
) -> Result<(), KeyError> {
    let asc = dir == Direction::Ascending;
    let unsupported = |reason| KeyError::Unsupported {
        column: col.name.clone(),
        jet_type: col.jet_type.name(),
        reason,
    };
    if col.is_calculated() {
        return Err(unsupported("calculated column"));
    }
    let raw = match field {
        OwnedField::Null => {
            out.push(if asc { ASC_NULL } else { DESC_NULL });
            return Ok(());
        }
        OwnedField::Bool(v) => {
            out.push(if asc { ASC_START } else { DESC_START });
            let true_byte = if asc { 0x00 } else { 0xFF };
            out.push(if *v { true_byte } else { !true_byte });
            return Ok(());
        }
        OwnedField::Bytes(b) => b.as_slice(),
    };
    let need = |n: usize| -> Result<&[u8], KeyError> {
        raw.get(..n).ok_or(KeyError::BadValue {
            column: col.name.clone(),
            jet_type: col.jet_type.name(),
            len: raw.len(),
        })
    };
    out.push(if asc { ASC_START } else { DESC_START });
    match col.jet_type {
        JetType::Byte => {
            let mut v = [need(1)?[0]];
            if !asc {
                flip(&mut v);
            }
            out.extend_from_slice(&v);
        }
        JetType::Integer
        | JetType::Long
        | JetType::BigInt
        | JetType::Currency
        | JetType::Complex => {
            let n = col.jet_type.fixed_size().unwrap_or(4);
            let mut v: Vec<u8> = need(n)?.iter().rev().copied().collect();
            v[0] ^= 0x80;
            if !asc {
                flip(&mut v);
            }
            out.extend_from_slice(&v);
        }
        JetType::Single | JetType::Double | JetType::DateTime => {
            let n = col.jet_type.fixed_size().unwrap_or(8);
            let mut v: Vec<u8> = need(n)?.iter().rev().copied().collect();
            let negative = v[0] & 0x80 != 0;
            if !negative {
                v[0] ^= 0x80;
            }
            if negative == asc {
                flip(&mut v);
            }
            out.extend_from_slice(&v);
        }
        JetType::Numeric => {
            let r = need(17)?;
            let negative = r[0] != 0;
            let mut v = [0u8; 17];
            v[0] = if negative { 0x80 } else { 0 };
            for w in 0..4 {
                for i in 0..4 {
                    v[1 + 4 * w + i] = r[1 + 4 * w + (3 - i)];
                }
            }
            if version.is_ace() {
                v[0] = 0xFF;
                if negative == asc {
                    flip(&mut v);
                }
            } else {
                if negative == asc {
                    flip(&mut v);
                }
                v[0] = if negative { 0x00 } else { 0xFF };
            }
            out.extend_from_slice(&v);
        }
        JetType::Guid => {
            let r = need(16)?;
            let mut v = [0u8; 16];
            v[..4].copy_from_slice(&[r[3], r[2], r[1], r[0]]);
            v[4..6].copy_from_slice(&[r[5], r[4]]);
            v[6..8].copy_from_slice(&[r[7], r[6]]);
            v[8..].copy_from_slice(&r[8..16]);
            general_binary(out, &v, asc);
        }
        JetType::Binary => general_binary(out, raw, asc),
        JetType::ExtDateTime => {
            let mut v = need(42)?.to_vec();
            let mut trailer = EXT_DATE_TRAILER;
            if !asc {
                flip(&mut v);
                flip(&mut trailer);
            }
            for seg in v[..40].chunks(8) {
                out.extend_from_slice(seg);
                out.push(0x09);
            }
            out.extend_from_slice(&v[40..42]);
            out.extend_from_slice(&trailer);
        }
        JetType::Text | JetType::Memo => {
            // undo the start flag pushed above
            out.pop();
            return Err(unsupported(
                "text keys follow the sort order's character tables, not yet established",
            ));
        }
        JetType::Boolean | JetType::Ole | JetType::Unknown(_) => {
            out.pop();
            return Err(unsupported("type is not indexable"));
        }
    }
    Ok(())
}

/// Encodes a whole key: each key column of `key` in order, taking its value
/// from `row` (indexed like the table's columns, matched by column number).
pub fn encode_key(
    columns: &[Column],
    key: &[(u16, Direction)],
    row: &[OwnedField],
    version: JetVersion,
) -> Result<Vec<u8>, KeyError> {
    let mut out = Vec::new();
    for (num, dir) in key {
        let Some(pos) = columns.iter().position(|c| c.col_num == *num) else {
            return Err(KeyError::Unsupported {
                column: format!("#{num}"),
                jet_type: "?",
                reason: "key column not in table",
            });
        };
        encode_column(&mut out, &columns[pos], *dir, &row[pos], version)?;
    }
    Ok(out)
}
