//! Row encoding (Jet4/ACE layout) and value conversion: Arrow values to
//! the bytes a column stores, refusing every value outside the column's
//! range or width (never clipped, wrapped or rounded).

use crate::error::{WResult, WriteError};
use crate::format::types::JetType;
use crate::format::{JetVersion, OwnedField};
use crate::schema::tdef::{Column, TableDef};
use arrow_array::Array;
use arrow_schema::{DataType, TimeUnit};

/// One input value, as taken from an Arrow array.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// NULL.
    Null,
    /// A Boolean.
    Bool(bool),
    /// Any integer.
    Int(i128),
    /// A float (f16/f32 are widened exactly).
    Float(f64),
    /// A decimal `value × 10^-scale`.
    Decimal {
        /// Unscaled value.
        value: i128,
        /// Scale.
        scale: i8,
    },
    /// Microseconds since 1970-01-01 (zone-less).
    Micros(i64),
    /// Text.
    Text(String),
    /// Bytes.
    Bytes(Vec<u8>),
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cell::Null => f.write_str("NULL"),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::Float(x) => write!(f, "{x:?}"),
            Cell::Decimal { value, scale } => write!(f, "{value}e-{scale}"),
            Cell::Micros(m) => write!(f, "timestamp {m} µs"),
            Cell::Text(s) => {
                let short: String = s.chars().take(40).collect();
                if short.len() < s.len() {
                    write!(f, "{short:?}… ({} characters)", s.chars().count())
                } else {
                    write!(f, "{s:?}")
                }
            }
            Cell::Bytes(b) => write!(f, "{} bytes", b.len()),
        }
    }
}

/// The value at `row` of `a`, or `None` when the Arrow type is not one the
/// writer takes (the caller reports [`WriteError::TypeMismatch`]).
pub fn cell_from_array(a: &dyn Array, row: usize) -> Option<Cell> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    if a.is_null(row) {
        return Some(Cell::Null);
    }
    Some(match a.data_type() {
        DataType::Boolean => Cell::Bool(a.as_boolean().value(row)),
        DataType::Int8 => Cell::Int(a.as_primitive::<Int8Type>().value(row).into()),
        DataType::Int16 => Cell::Int(a.as_primitive::<Int16Type>().value(row).into()),
        DataType::Int32 => Cell::Int(a.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => Cell::Int(a.as_primitive::<Int64Type>().value(row).into()),
        DataType::UInt8 => Cell::Int(a.as_primitive::<UInt8Type>().value(row).into()),
        DataType::UInt16 => Cell::Int(a.as_primitive::<UInt16Type>().value(row).into()),
        DataType::UInt32 => Cell::Int(a.as_primitive::<UInt32Type>().value(row).into()),
        DataType::UInt64 => Cell::Int(a.as_primitive::<UInt64Type>().value(row).into()),
        DataType::Float16 => Cell::Float(a.as_primitive::<Float16Type>().value(row).to_f64()),
        DataType::Float32 => Cell::Float(a.as_primitive::<Float32Type>().value(row).into()),
        DataType::Float64 => Cell::Float(a.as_primitive::<Float64Type>().value(row)),
        DataType::Decimal128(_, s) => Cell::Decimal {
            value: a.as_primitive::<Decimal128Type>().value(row),
            scale: *s,
        },
        DataType::Timestamp(unit, _) => {
            let v = match unit {
                TimeUnit::Second => a
                    .as_primitive::<TimestampSecondType>()
                    .value(row)
                    .checked_mul(1_000_000)?,
                TimeUnit::Millisecond => a
                    .as_primitive::<TimestampMillisecondType>()
                    .value(row)
                    .checked_mul(1000)?,
                TimeUnit::Microsecond => a.as_primitive::<TimestampMicrosecondType>().value(row),
                TimeUnit::Nanosecond => {
                    let n = a.as_primitive::<TimestampNanosecondType>().value(row);
                    if n % 1000 != 0 {
                        // sub-microsecond: keep it visible to the range check
                        return Some(Cell::Decimal {
                            value: n.into(),
                            scale: 9,
                        });
                    }
                    n / 1000
                }
            };
            Cell::Micros(v)
        }
        DataType::Date32 => {
            Cell::Micros(i64::from(a.as_primitive::<Date32Type>().value(row)) * 86_400_000_000)
        }
        DataType::Date64 => Cell::Micros(
            a.as_primitive::<Date64Type>()
                .value(row)
                .checked_mul(1000)?,
        ),
        DataType::Utf8 => Cell::Text(a.as_string::<i32>().value(row).to_string()),
        DataType::LargeUtf8 => Cell::Text(a.as_string::<i64>().value(row).to_string()),
        DataType::Utf8View => Cell::Text(a.as_string_view().value(row).to_string()),
        DataType::Binary => Cell::Bytes(a.as_binary::<i32>().value(row).to_vec()),
        DataType::LargeBinary => Cell::Bytes(a.as_binary::<i64>().value(row).to_vec()),
        DataType::BinaryView => Cell::Bytes(a.as_binary_view().value(row).to_vec()),
        DataType::FixedSizeBinary(_) => Cell::Bytes(a.as_fixed_size_binary().value(row).to_vec()),
        _ => return None,
    })
}

/// Days from 1899-12-30 to 1970-01-01.
const EPOCH_DAYS: i64 = 25_569;
const MS_PER_DAY: i64 = 86_400_000;
/// Access's first day, 0100-01-01, in days from 1899-12-30.
pub const MIN_ACCESS_DAY: i64 = -657_434;
/// Access's last day, 9999-12-31, in days from 1899-12-30.
pub const MAX_ACCESS_DAY: i64 = 2_958_465;

/// Encodes microseconds since 1970 as an Access date (f64 days since
/// 1899-12-30; before it, the negative day with a positive time fraction),
/// rounded to the nearest millisecond (half up) as Access keeps it: a
/// `CURRENT_TIMESTAMP` or a Parquet timestamp with microseconds is stored,
/// not refused. The double is the one Access stores for that date and time
/// (bit for bit, checked against every Date/Time in the corpus). `Err`
/// names why the value is outside Access's range.
pub fn micros_to_access_date(micros: i64) -> Result<f64, String> {
    let ms = micros
        .checked_add(500)
        .ok_or("outside Access's date range 0100-01-01 to 9999-12-31")?
        .div_euclid(1000)
        + EPOCH_DAYS * MS_PER_DAY;
    let day = ms.div_euclid(MS_PER_DAY);
    let frac = ms.rem_euclid(MS_PER_DAY);
    if !(MIN_ACCESS_DAY..=MAX_ACCESS_DAY).contains(&day) {
        return Err("outside Access's date range 0100-01-01 to 9999-12-31".into());
    }
    // Access takes the time of day as seconds times the double nearest
    // 1/86400 (every date-time with a time of day in the corpus is that
    // product); dividing milliseconds by 86 400 000 is one unit in the last
    // place away for some times (00:00:30, 05:15:07)
    let f = (frac as f64 / 1000.0) * (1.0 / 86_400.0);
    Ok(if day >= 0 {
        day as f64 + f
    } else {
        day as f64 - f
    })
}

/// How the writer stores text in Jet4/ACE columns that allow unicode
/// compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextLayout {
    /// As Access does: "compressed" (`FF FE` then one byte per character)
    /// when every character is in U+0001–U+00FF, else plain UTF-16LE.
    #[default]
    Standard,
    /// `FF FE` followed by plain UTF-16LE, as some migration tools write
    /// long text. Readers take the first character's low byte in one-byte
    /// mode, its `00` high byte as the switch to two-byte mode and the rest
    /// as UTF-16LE, so the value reads back whole only when the first
    /// character is in U+0001–U+00FF and no later character's low byte is
    /// `00`; other values are stored as [`TextLayout::Standard`] stores them.
    MarkedUtf16,
}

/// Encodes `text` as Jet4 stores it: "compressed" (`FF FE` then one byte
/// per character) when `compress` is set, every character is in
/// U+0001–U+00FF and that is shorter than UTF-16LE (three characters or
/// more: the two-byte marker makes a shorter text no smaller, and one
/// character compressed would not fit a one-character column), else
/// UTF-16LE. The result is never longer than UTF-16LE.
pub fn encode_text(text: &str, compress: bool) -> Vec<u8> {
    if compress
        && text.chars().nth(2).is_some()
        && text.chars().all(|c| ('\u{1}'..='\u{FF}').contains(&c))
    {
        let mut out = Vec::with_capacity(text.len() + 2);
        out.extend_from_slice(&[0xFF, 0xFE]);
        out.extend(text.chars().map(|c| c as u32 as u8));
        return out;
    }
    let mut out = Vec::with_capacity(text.len() * 2);
    for u in text.encode_utf16() {
        out.extend_from_slice(&u.to_le_bytes());
    }
    out
}

/// Encodes `text` in `layout` (see [`TextLayout`]); `compress` is whether
/// the column allows unicode compression (without it, UTF-16LE).
///
/// Plain UTF-16LE of a text that starts with U+FEFF begins with the bytes
/// `FF FE`, which every reader takes for the compression marker; such a
/// text is stored marked instead: `FF FE`, a `00` switching to two-byte
/// mode, then UTF-16LE (one-byte characters stay two bytes). That is only
/// possible when no character's low byte is `00` (it would read as a mode
/// switch): `None` for the other texts starting with U+FEFF, which no
/// layout stores so that they read back.
pub fn encode_text_checked(text: &str, compress: bool, layout: TextLayout) -> Option<Vec<u8>> {
    if text.encode_utf16().next() != Some(0xFEFF) {
        return Some(encode_text_in(text, compress, layout));
    }
    if text.encode_utf16().any(|u| u & 0xFF == 0) {
        return None;
    }
    let mut out = vec![0xFF, 0xFE, 0x00];
    out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    Some(out)
}

/// Encodes `text` in `layout` (see [`TextLayout`]); `compress` is whether
/// the column allows unicode compression (without it, always UTF-16LE).
/// A text starting with U+FEFF needs [`encode_text_checked`].
pub fn encode_text_in(text: &str, compress: bool, layout: TextLayout) -> Vec<u8> {
    if layout == TextLayout::MarkedUtf16 && compress {
        let mut units = text.encode_utf16();
        let first_ok = units.next().is_some_and(|u| (1..=0xFF).contains(&u));
        if first_ok && units.all(|u| u & 0xFF != 0) {
            let mut out = Vec::with_capacity(2 + text.len() * 2);
            out.extend_from_slice(&[0xFF, 0xFE]);
            out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
            return out;
        }
    }
    encode_text(text, compress)
}

/// Why a text starting with U+FEFF may be refused (see
/// [`encode_text_checked`]).
const BOM_TEXT: &str = "it starts with U+FEFF (a byte-order mark) and holds a character whose \
     low byte is 00 (such as U+0000 or U+0100); readers would take its first two bytes for the \
     compression marker and that character for a mode switch, so it cannot be stored to read \
     back as written";

/// Parses `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}` (braces optional) into the
/// 16 stored bytes (first three groups little-endian).
pub fn parse_guid(s: &str) -> Option<[u8; 16]> {
    let t = s.trim();
    let t = t
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(t);
    let groups: Vec<&str> = t.split('-').collect();
    if groups.len() != 5
        || [8, 4, 4, 4, 12]
            != [
                groups[0].len(),
                groups[1].len(),
                groups[2].len(),
                groups[3].len(),
                groups[4].len(),
            ]
    {
        return None;
    }
    let hex: String = groups.concat();
    let mut b = [0u8; 16];
    for (i, byte) in b.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    b[0..4].reverse();
    b[4..6].reverse();
    b[6..8].reverse();
    Some(b)
}

fn rescale(value: i128, from: i8, to: i8) -> Option<i128> {
    if from == to {
        return Some(value);
    }
    if from < to {
        let k = 10i128.checked_pow(u32::try_from(to - from).ok()?)?;
        value.checked_mul(k)
    } else {
        let k = 10i128.checked_pow(u32::try_from(from - to).ok()?)?;
        if value % k != 0 {
            return None;
        }
        Some(value / k)
    }
}

/// The stored content of `cell` for column `col`: a field as the row holds
/// it (for long-value columns, the raw value bytes before the long-value
/// writer turns them into a descriptor). Jet3 text goes into the column's
/// code page, Windows-1252 when the column records none (see
/// [`encode_value_in`] for the database's own).
pub fn encode_value(
    version: JetVersion,
    table: &str,
    col: &Column,
    cell: &Cell,
) -> WResult<OwnedField> {
    encode_value_in(
        version,
        table,
        col,
        cell,
        TextLayout::Standard,
        encoding_rs::WINDOWS_1252,
    )
}

/// [`encode_value`] with Jet4/ACE text stored in `layout`, and Jet3 text in
/// the column's code page or, when the column records none, `db_encoding`
/// (the database's code page, as the reader decodes it). A character the
/// code page does not hold is refused, never replaced.
pub fn encode_value_in(
    version: JetVersion,
    table: &str,
    col: &Column,
    cell: &Cell,
    layout: TextLayout,
    db_encoding: &'static encoding_rs::Encoding,
) -> WResult<OwnedField> {
    let refuse = |why: &str| WriteError::ValueOutOfRange {
        table: table.to_string(),
        column: col.name.clone(),
        value: cell.to_string(),
        why: why.to_string(),
    };
    let mismatch = || WriteError::TypeMismatch {
        table: table.to_string(),
        column: col.name.clone(),
        arrow: match cell {
            Cell::Null => "null",
            Cell::Bool(_) => "Boolean",
            Cell::Int(_) => "integer",
            Cell::Float(_) => "float",
            Cell::Decimal { .. } => "decimal",
            Cell::Micros(_) => "timestamp",
            Cell::Text(_) => "text",
            Cell::Bytes(_) => "binary",
        }
        .to_string(),
        jet: col.jet_type.name(),
    };
    if *cell == Cell::Null {
        return Ok(if col.jet_type == JetType::Boolean {
            OwnedField::Bool(false)
        } else {
            OwnedField::Null
        });
    }
    let int_in = |lo: i128, hi: i128| -> WResult<i128> {
        match cell {
            Cell::Int(v) if (lo..=hi).contains(v) => Ok(*v),
            Cell::Int(_) => Err(refuse(&format!("outside {lo}..={hi}"))),
            Cell::Decimal { value, scale } => match rescale(*value, *scale, 0) {
                Some(v) if (lo..=hi).contains(&v) => Ok(v),
                Some(_) => Err(refuse(&format!("outside {lo}..={hi}"))),
                None => Err(refuse("has a fraction")),
            },
            _ => Err(mismatch()),
        }
    };
    let bytes = match col.jet_type {
        JetType::Boolean => match cell {
            Cell::Bool(b) => return Ok(OwnedField::Bool(*b)),
            Cell::Int(0) => return Ok(OwnedField::Bool(false)),
            Cell::Int(1) | Cell::Int(-1) => return Ok(OwnedField::Bool(true)),
            Cell::Int(_) => return Err(refuse("a Yes/No column takes 0, 1 or -1")),
            _ => return Err(mismatch()),
        },
        JetType::Byte => vec![int_in(0, 255)? as u8],
        JetType::Integer => (int_in(i16::MIN.into(), i16::MAX.into())? as i16)
            .to_le_bytes()
            .to_vec(),
        // a complex column stores its row's complex id (the values live
        // in hidden tables, see `crate::read::complex`)
        JetType::Complex => (int_in(1, i32::MAX.into())? as i32).to_le_bytes().to_vec(),
        JetType::Long => (int_in(i32::MIN.into(), i32::MAX.into())? as i32)
            .to_le_bytes()
            .to_vec(),
        JetType::BigInt => (int_in(i64::MIN.into(), i64::MAX.into())? as i64)
            .to_le_bytes()
            .to_vec(),
        JetType::Currency => {
            let v = match cell {
                Cell::Int(v) => v.checked_mul(10_000),
                Cell::Decimal { value, scale } => match rescale(*value, *scale, 4) {
                    Some(v) => Some(v),
                    None => {
                        return Err(refuse(
                            "Currency holds 4 decimal places; the value has more",
                        ));
                    }
                },
                _ => return Err(mismatch()),
            };
            match v.and_then(|v| i64::try_from(v).ok()) {
                Some(v) => v.to_le_bytes().to_vec(),
                None => return Err(refuse("outside Currency's range (±922337203685477.5807)")),
            }
        }
        JetType::Single => {
            let v = match cell {
                Cell::Float(f) => *f,
                Cell::Int(i) => *i as f64,
                _ => return Err(mismatch()),
            };
            let s = v as f32;
            if !(v.is_nan() || f64::from(s) == v)
                || matches!(cell, Cell::Int(i) if (s as f64) as i128 != *i)
            {
                return Err(refuse("not exactly representable as a 32-bit float"));
            }
            s.to_le_bytes().to_vec()
        }
        JetType::Double => {
            let v = match cell {
                Cell::Float(f) => *f,
                Cell::Int(i) => {
                    let f = *i as f64;
                    if f as i128 != *i {
                        return Err(refuse("not exactly representable as a 64-bit float"));
                    }
                    f
                }
                _ => return Err(mismatch()),
            };
            v.to_le_bytes().to_vec()
        }
        JetType::DateTime => match cell {
            Cell::Micros(m) => micros_to_access_date(*m)
                .map_err(|w| refuse(&w))?
                .to_le_bytes()
                .to_vec(),
            // nanoseconds: rounded to the millisecond like microseconds
            Cell::Decimal { scale: 9, value } => {
                // whole microseconds (floor), then the millisecond rounding:
                // the same as rounding the nanoseconds to the millisecond
                let micros = i64::try_from(value.div_euclid(1000))
                    .map_err(|_| refuse("outside Access's date range 0100-01-01 to 9999-12-31"))?;
                micros_to_access_date(micros)
                    .map_err(|w| refuse(&w))?
                    .to_le_bytes()
                    .to_vec()
            }
            _ => return Err(mismatch()),
        },
        JetType::Guid => match cell {
            Cell::Text(s) => parse_guid(s)
                .ok_or_else(|| {
                    refuse("not a GUID of the form {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}")
                })?
                .to_vec(),
            Cell::Bytes(b) if b.len() == 16 => b.clone(),
            Cell::Bytes(_) => return Err(refuse("a GUID has 16 bytes")),
            _ => return Err(mismatch()),
        },
        JetType::Numeric => {
            let (value, scale) = match cell {
                Cell::Int(v) => (*v, 0i8),
                Cell::Decimal { value, scale } => (*value, *scale),
                _ => return Err(mismatch()),
            };
            let v = rescale(value, scale, col.scale as i8)
                .ok_or_else(|| refuse(&format!("more than {} decimal places", col.scale)))?;
            let limit = 10i128.pow(u32::from(col.precision));
            if v.unsigned_abs() >= limit as u128 {
                return Err(refuse(&format!(
                    "more than {} digits (precision {}, scale {})",
                    col.precision, col.precision, col.scale
                )));
            }
            let mag = v.unsigned_abs();
            let mut b = vec![u8::from(v < 0)];
            for w in (0..4).rev() {
                let word = (mag >> (32 * w)) as u32;
                b.extend_from_slice(&word.to_le_bytes());
            }
            b
        }
        JetType::Text | JetType::Memo if version.is_jet3() => match cell {
            Cell::Text(s) => {
                let enc = if col.code_page != 0 {
                    crate::format::text::encoding_for_code_page(col.code_page)
                } else {
                    db_encoding
                };
                let b = super::row_jet3::encode_codepage(s, enc).map_err(|w| refuse(&w))?;
                if col.jet_type == JetType::Text && b.len() > usize::from(col.length) {
                    return Err(refuse(&format!(
                        "{} bytes in code page {}, the column holds {}",
                        b.len(),
                        enc.name(),
                        col.length
                    )));
                }
                b
            }
            _ => return Err(mismatch()),
        },
        JetType::Text => match cell {
            Cell::Text(s) => {
                let units = s.encode_utf16().count();
                let max = usize::from(col.length / 2);
                if units > max {
                    return Err(refuse(&format!(
                        "{units} UTF-16 code units, the column holds {max}"
                    )));
                }
                // the marked layout takes two bytes more than the column's
                // declared size allows for a full-length value
                let layout = if 2 + 2 * units > usize::from(col.length) {
                    TextLayout::Standard
                } else {
                    layout
                };
                let b = encode_text_checked(
                    s,
                    col.ext_flags & crate::schema::tdef::EXT_COMPRESSED_UNICODE != 0,
                    layout,
                )
                .ok_or_else(|| refuse(BOM_TEXT))?;
                if b.len() > usize::from(col.length) {
                    // a text starting with U+FEFF is stored marked, 3 bytes longer
                    return Err(refuse(&format!(
                        "stored as {} bytes (it starts with U+FEFF), the column holds {}",
                        b.len(),
                        col.length
                    )));
                }
                b
            }
            _ => return Err(mismatch()),
        },
        JetType::Memo => match cell {
            Cell::Text(s) => encode_text_checked(
                s,
                col.ext_flags & crate::schema::tdef::EXT_COMPRESSED_UNICODE != 0,
                layout,
            )
            .ok_or_else(|| refuse(BOM_TEXT))?,
            _ => return Err(mismatch()),
        },
        JetType::Binary => match cell {
            Cell::Bytes(b) if b.len() <= usize::from(col.length) => b.clone(),
            Cell::Bytes(b) => {
                return Err(refuse(&format!(
                    "{} bytes, the column holds {}",
                    b.len(),
                    col.length
                )));
            }
            _ => return Err(mismatch()),
        },
        JetType::Ole => match cell {
            Cell::Bytes(b) => b.clone(),
            _ => return Err(mismatch()),
        },
        _ => {
            return Err(WriteError::Unsupported(format!(
                "values of {} columns ({table:?}.{:?}, {version})",
                col.jet_type.name(),
                col.name
            )));
        }
    };
    if col.jet_type.is_long_value() && bytes.len() > super::lval::MAX_LONG_VALUE {
        return Err(refuse(&format!(
            "longer than {} bytes",
            super::lval::MAX_LONG_VALUE
        )));
    }
    Ok(OwnedField::Bytes(bytes))
}

/// Whether the column's value is the null-mask bit (a plain Yes/No column).
fn is_mask_bool(c: &crate::schema::tdef::Column) -> bool {
    c.jet_type == JetType::Boolean && !c.is_calculated()
}

/// Assembles a row of `version`'s layout from one field per column of
/// `def.columns` (long-value fields already as descriptors). A `Null` or
/// short fixed field is stored as zeros with its null-mask bit clear.
/// Jet4/ACE rows hold two-byte counts and offsets; Jet3 rows one-byte ones
/// and a jump table (see [`super::row_jet3`]).
pub fn assemble(version: JetVersion, def: &TableDef, fields: &[OwnedField]) -> Vec<u8> {
    let jet3 = version.is_jet3();
    let head = if jet3 { 1 } else { 2 };
    let max_col = def
        .columns
        .iter()
        .map(|c| usize::from(c.col_num) + 1)
        .max()
        .unwrap_or(0);
    let num_cols = max_col.max(usize::from(def.max_cols));
    let fixed_len = def
        .columns
        .iter()
        .filter(|c| c.is_fixed() && !is_mask_bool(c))
        .map(|c| usize::from(c.fixed_offset) + crate::read::row::fixed_len(c))
        .max()
        .unwrap_or(0);
    let mut row = Vec::with_capacity(64);
    if jet3 {
        row.push(num_cols as u8);
    } else {
        row.extend_from_slice(&(num_cols as u16).to_le_bytes());
    }
    row.resize(head + fixed_len, 0);
    let mut mask = vec![0u8; num_cols.div_ceil(8)];
    let set = |mask: &mut Vec<u8>, n: u16| mask[usize::from(n) / 8] |= 1 << (n % 8);
    let mut var: Vec<(u16, &[u8])> = Vec::new();
    for (c, f) in def.columns.iter().zip(fields) {
        match f {
            OwnedField::Bool(b) => {
                if *b {
                    set(&mut mask, c.col_num);
                }
            }
            OwnedField::Null => {}
            OwnedField::Bytes(b) => {
                set(&mut mask, c.col_num);
                if c.is_fixed() {
                    let start = head + usize::from(c.fixed_offset);
                    let n = b.len().min(crate::read::row::fixed_len(c));
                    row[start..start + n].copy_from_slice(&b[..n]);
                } else {
                    var.push((c.var_index, b));
                }
            }
        }
    }
    if def.num_var_cols > 0 {
        let var_count = def
            .columns
            .iter()
            .filter(|c| !c.is_fixed())
            .map(|c| usize::from(c.var_index) + 1)
            .max()
            .unwrap_or(0);
        let mut offsets = vec![0usize; var_count];
        var.sort_by_key(|(i, _)| *i);
        let mut next = var.iter().peekable();
        for (i, off) in offsets.iter_mut().enumerate() {
            *off = row.len();
            while let Some((vi, bytes)) = next.peek() {
                if usize::from(*vi) == i {
                    row.extend_from_slice(bytes);
                    next.next();
                } else {
                    break;
                }
            }
        }
        if jet3 {
            // at most 255 columns: `row_jet3::check_table` admitted the table
            super::row_jet3::push_trailer(&mut row, &offsets, mask.len());
        } else {
            row.extend_from_slice(&(row.len() as u16).to_le_bytes()); // eod
            for off in offsets.iter().rev() {
                row.extend_from_slice(&(*off as u16).to_le_bytes());
            }
            row.extend_from_slice(&(var_count as u16).to_le_bytes());
        }
    }
    row.extend_from_slice(&mask);
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_never_lengthens_a_text() {
        // "b" compressed would be FF FE 62: three bytes where UTF-16 takes
        // two, too long for a one-character column (found by the writer
        // round-trip property test)
        assert_eq!(encode_text("b", true), vec![0x62, 0x00]);
        assert_eq!(encode_text("ab", true), vec![0x61, 0x00, 0x62, 0x00]);
        assert_eq!(encode_text("abc", true), vec![0xFF, 0xFE, 0x61, 0x62, 0x63]);
        for t in ["", "x", "xy", "xyz", "é", "éé", "ééé", "\u{100}"] {
            let utf16 = t.encode_utf16().count() * 2;
            assert!(encode_text(t, true).len() <= utf16, "{t:?}");
        }
    }

    #[test]
    fn dates_match_the_reader() {
        for ms in [
            0i64,
            1,
            -1,
            86_399_999,
            -86_400_000 * 25_569 - 1,
            -86_400_000 * 30_000 + 21_600_000,
            253_402_300_799_000,
        ] {
            let d = micros_to_access_date(ms * 1000).unwrap();
            assert_eq!(
                crate::format::values::access_date_to_micros(d),
                Some(ms * 1000),
                "{ms}"
            );
        }
        // finer than a millisecond: rounded to the nearest one, half up
        for (micros, ms) in [(1, 0), (499, 0), (500, 1), (1_499, 1), (-1, 0), (-501, -1)] {
            assert_eq!(
                micros_to_access_date(micros),
                micros_to_access_date(ms * 1000),
                "{micros}"
            );
        }
        // the doubles Access 97 stored for 00:00:30 and 05:15:07 on
        // 1899-12-30 (testIndexCodesV1997.mdb, Table6)
        assert_eq!(
            micros_to_access_date(-25_569 * 86_400_000_000 + 30_000_000)
                .unwrap()
                .to_bits(),
            0x3f36_c16c_16c1_6c16
        );
        assert_eq!(
            micros_to_access_date(-25_569 * 86_400_000_000 + 18_907_000_000)
                .unwrap()
                .to_bits(),
            0x3fcc_02a7_a1f1_9690
        );
        assert!(micros_to_access_date(253_402_300_800_000_000).is_err());
        assert!(micros_to_access_date(i64::MAX).is_err());
    }

    #[test]
    fn guid_and_numeric_round_trip() {
        let g = "{01234567-89AB-CDEF-0123-456789ABCDEF}";
        let b = parse_guid(g).unwrap();
        let mut s = String::new();
        crate::format::values::format_guid(&b, &mut s);
        assert_eq!(s, g);
        let col = Column {
            name: "n".into(),
            jet_type: JetType::Numeric,
            col_num: 0,
            var_index: 0,
            fixed_offset: 0,
            length: 17,
            flags: 1,
            ext_flags: 0,
            precision: 10,
            scale: 2,
            sort_order: 0,
            code_page: 0,
            sort_order_version: 0,
            required: false,
            default_value: None,
            complex_id: None,
        };
        let f = encode_value(
            JetVersion::Jet4,
            "t",
            &col,
            &Cell::Decimal {
                value: -12345,
                scale: 3,
            },
        );
        assert!(f.is_err(), "three decimals into scale 2 is refused");
        let OwnedField::Bytes(b) = encode_value(
            JetVersion::Jet4,
            "t",
            &col,
            &Cell::Decimal {
                value: -12340,
                scale: 3,
            },
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(crate::format::values::numeric_to_i128(&b), Some(-1234));
        assert!(encode_value(JetVersion::Jet4, "t", &col, &Cell::Int(100_000_000)).is_err());
        assert!(encode_value(JetVersion::Jet4, "t", &col, &Cell::Int(99_999_999)).is_ok());
    }
}
