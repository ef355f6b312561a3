//! Index key encoders: a column value, as the row stores it, to the bytes
//! Access writes into index entries.
//!
//! Exports: module [`text`] (text keys); [`encode_key`], [`encode_column`],
//! [`KeyValue`], [`first_column_bounds`], [`seek_fidelity`], [`SeekFidelity`]
//! and [`text_collation`].
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
//! inverted (with the segment rules' exceptions). Text keys follow the
//! column's sort order (module [`text`]): Access 97 "General", "General
//! Legacy" (Jet4, ACE 12) and "General" (ACE 14+); a character those tables
//! do not know is refused with [`KeyError::UnknownChar`] and any other sort
//! order with [`KeyError::Unsupported`], so a caller falls back to a scan
//! instead of seeking with a wrong key.

mod seek_bounds;
pub mod text;

use crate::error::KeyError;
use crate::format::types::JetType;
use crate::format::{JetVersion, OwnedField, TextCollation};
use crate::schema::tdef::{Column, Direction};

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
        JetType::Text => {
            let collation = match text_collation(col, version) {
                Ok(c) => c,
                Err(e) => {
                    out.pop();
                    return Err(e);
                }
            };
            let units = text_units(raw, version);
            if let Err(unit) = text::encode_text(out, collation, &units, asc) {
                out.pop();
                return Err(KeyError::UnknownChar {
                    column: col.name.clone(),
                    unit,
                    collation,
                });
            }
        }
        JetType::Memo => {
            // the row holds a long-value descriptor, not the text
            out.pop();
            return Err(unsupported(
                "memo keys need the long value, which the row does not hold",
            ));
        }
        JetType::Boolean | JetType::Ole | JetType::Unknown(_) => {
            out.pop();
            return Err(unsupported("type is not indexable"));
        }
    }
    Ok(())
}

/// The sort order of a text column's index keys: sort order 1033
/// ("General", or 0 = the format's default) in the version the column
/// records. Refuses other sort orders, and Jet3 columns in a code page other
/// than Windows-1252 (the Access 97 tables are per code page).
pub fn text_collation(col: &Column, version: JetVersion) -> Result<TextCollation, KeyError> {
    let unsupported = |reason| KeyError::Unsupported {
        column: col.name.clone(),
        jet_type: col.jet_type.name(),
        reason,
    };
    if col.sort_order != text::GENERAL_SORT_ORDER && col.sort_order != 0 {
        return Err(unsupported("sort order other than General (1033)"));
    }
    if version.is_jet3() {
        if col.code_page != 1252 {
            return Err(unsupported(
                "Access 97 text keys in a code page other than 1252",
            ));
        }
        return Ok(TextCollation::General97);
    }
    let sort_version = if col.sort_order == 0 {
        // no sort order recorded: the format's default
        u8::from(version >= JetVersion::Ace14)
    } else {
        col.sort_order_version
    };
    match sort_version {
        0 => Ok(TextCollation::GeneralLegacy),
        1 => Ok(TextCollation::General),
        _ => Err(unsupported("unknown version of the General sort order")),
    }
}

/// A stored text value as the key encoder reads it: UTF-16 code units
/// (Jet4/ACE, compressed or not) or the code-page bytes (Jet3).
fn text_units(raw: &[u8], version: JetVersion) -> Vec<u16> {
    if version.is_jet3() {
        raw.iter().map(|&b| u16::from(b)).collect()
    } else {
        let mut s = String::new();
        crate::format::text::decode_ucs2(raw, &mut s);
        s.encode_utf16().collect()
    }
}

/// How an index seek on a column relates to SQL comparison of the values
/// Arrow holds for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeekFidelity {
    /// An equality seek returns exactly the rows whose value equals the
    /// literal; `false`: it returns a superset (for text: other case,
    /// trailing spaces) and the caller must re-check every row.
    pub equality_exact: bool,
    /// Key order equals Arrow's order of the values, so a range of values
    /// is a range of keys and a walk yields Arrow order. `false` for text:
    /// the collation orders letters case-insensitively and punctuation
    /// differently from binary UTF-8 order, so text ranges cannot seek.
    pub order_matches_arrow: bool,
}

/// What an index seek on `col` guarantees (see [`SeekFidelity`]). For text
/// columns whose sort order this encoder does not know, use
/// [`text_collation`] first: their keys cannot be built at all.
pub fn seek_fidelity(col: &Column) -> SeekFidelity {
    match col.jet_type {
        JetType::Text | JetType::Memo => SeekFidelity {
            equality_exact: false,
            order_matches_arrow: false,
        },
        // Yes/No keys put true first (Arrow orders false first); GUID keys
        // reorder the bytes of the first three groups, so their order is not
        // the order of the strings Arrow holds (nor does string equality
        // ignore case as the key does)
        JetType::Boolean | JetType::Guid => SeekFidelity {
            equality_exact: col.jet_type == JetType::Boolean,
            order_matches_arrow: false,
        },
        JetType::Single | JetType::Double | JetType::DateTime | JetType::Numeric => {
            // bounds are widened outward where a literal converts inexactly
            SeekFidelity {
                equality_exact: false,
                order_matches_arrow: true,
            }
        }
        _ => SeekFidelity {
            equality_exact: true,
            order_matches_arrow: true,
        },
    }
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

/// A literal to seek for, as SQL or Arrow hands it over.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyValue {
    /// NULL.
    Null,
    /// A Boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A decimal `value / 10^scale`.
    Decimal {
        /// Unscaled value.
        value: i128,
        /// Scale.
        scale: u8,
    },
    /// A zone-less timestamp in microseconds since 1970-01-01.
    TimestampMicros(i64),
    /// Bytes (Binary).
    Bytes(Vec<u8>),
    /// A GUID in `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}` form (braces optional).
    Guid(String),
    /// A text value (Text columns; equality seeks only, see [`seek_fidelity`]).
    Text(String),
}

impl KeyValue {
    /// The value at `row` of an Arrow array of a type [`crate::format::types::JetType::arrow_type`] produces;
    /// `None` for types that have no key form here.
    pub fn from_array(a: &dyn arrow_array::Array, row: usize) -> Option<KeyValue> {
        use arrow_array::cast::AsArray;
        use arrow_array::types::*;
        use arrow_schema::DataType as D;
        if a.is_null(row) {
            return Some(KeyValue::Null);
        }
        Some(match a.data_type() {
            D::Boolean => KeyValue::Bool(a.as_boolean().value(row)),
            D::UInt8 => KeyValue::Int(i64::from(a.as_primitive::<UInt8Type>().value(row))),
            D::Int16 => KeyValue::Int(i64::from(a.as_primitive::<Int16Type>().value(row))),
            D::Int32 => KeyValue::Int(i64::from(a.as_primitive::<Int32Type>().value(row))),
            D::Int64 => KeyValue::Int(a.as_primitive::<Int64Type>().value(row)),
            D::Float32 => KeyValue::Float(f64::from(a.as_primitive::<Float32Type>().value(row))),
            D::Float64 => KeyValue::Float(a.as_primitive::<Float64Type>().value(row)),
            D::Decimal128(_, s) => KeyValue::Decimal {
                value: a.as_primitive::<Decimal128Type>().value(row),
                scale: (*s).max(0) as u8,
            },
            D::Timestamp(_, _) => {
                KeyValue::TimestampMicros(a.as_primitive::<TimestampMicrosecondType>().value(row))
            }
            D::Binary => KeyValue::Bytes(a.as_binary::<i32>().value(row).to_vec()),
            D::Utf8 => KeyValue::Text(a.as_string::<i32>().value(row).to_string()),
            _ => return None,
        })
    }
}

pub use seek_bounds::first_column_bounds;
