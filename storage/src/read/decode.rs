//! Column decoders: each appends one column's values straight into an Arrow
//! builder, from the bytes the row geometry admits.

use crate::error::{FormatError, corrupt};
use crate::format::types::JetType;
use crate::format::{Layout, RawField, text, values};
use crate::page::PageSource;
use crate::read::data_page::DataPage;
use crate::read::row::{FieldPlan, PageRun, fixed_cell, var_cell};
use crate::schema::tdef::Column;
use arrow_array::ArrayRef;
use arrow_array::builder::*;
use arrow_schema::DataType;
use encoding_rs::Encoding;
use std::sync::Arc;

/// Context a decoder needs beyond the value bytes.
pub struct DecodeCtx<'a> {
    /// Page source, for long values.
    pub src: &'a dyn PageSource,
    /// Format layout.
    pub layout: &'a Layout,
    /// Whether text is UCS-2 (Jet4+) rather than code-page bytes (Jet3).
    pub unicode: bool,
    /// Page of the row being decoded (for errors).
    pub page: u32,
    /// Offset of the row in its page (for errors).
    pub row_offset: usize,
}

enum Builder {
    Bool(BooleanBuilder),
    U8(UInt8Builder),
    I16(Int16Builder),
    I32(Int32Builder),
    I64(Int64Builder),
    F32(Float32Builder),
    F64(Float64Builder),
    Dec(Decimal128Builder),
    Dec256(Decimal256Builder),
    Ts(TimestampMicrosecondBuilder),
    Str(StringBuilder),
    Bin(BinaryBuilder),
}

/// Values of a fixed-width column gathered before one append to the
/// builder ([`ColumnDecoder::append_run`]).
const BLOCK: usize = 64;

/// The text of `bytes`: UCS-2 (Jet4+) or code-page bytes (Jet3). Pure
/// ASCII values are borrowed straight from the row; others are decoded
/// into `out`.
fn decode_text<'a>(
    out: &'a mut String,
    bytes: &'a [u8],
    unicode: bool,
    encoding: &'static Encoding,
) -> &'a str {
    let borrowed = if unicode {
        text::compressed_ascii(bytes)
    } else {
        text::codepage_ascii(bytes)
    };
    if let Some(s) = borrowed {
        return s;
    }
    out.clear();
    if unicode {
        text::decode_ucs2(bytes, out);
    } else {
        text::decode_codepage(bytes, encoding, out);
    }
    out
}

/// Decoder of one column into an Arrow array.
pub struct ColumnDecoder {
    col: Column,
    builder: Builder,
    encoding: &'static Encoding,
    scratch: String,
    bytes: Vec<u8>,
    data_type: DataType,
    /// The column is calculated (its values are wrapped).
    calculated: bool,
}

impl ColumnDecoder {
    /// A decoder for `col` with room for `capacity` values; `encoding` decodes
    /// Jet3 text.
    pub fn new(col: &Column, capacity: usize, encoding: &'static Encoding) -> ColumnDecoder {
        let data_type = col.arrow_type();
        let builder = match &data_type {
            DataType::Boolean => Builder::Bool(BooleanBuilder::with_capacity(capacity)),
            DataType::UInt8 => Builder::U8(UInt8Builder::with_capacity(capacity)),
            DataType::Int16 => Builder::I16(Int16Builder::with_capacity(capacity)),
            DataType::Int32 => Builder::I32(Int32Builder::with_capacity(capacity)),
            DataType::Int64 => Builder::I64(Int64Builder::with_capacity(capacity)),
            DataType::Float32 => Builder::F32(Float32Builder::with_capacity(capacity)),
            DataType::Float64 => Builder::F64(Float64Builder::with_capacity(capacity)),
            DataType::Decimal128(..) => Builder::Dec(Decimal128Builder::with_capacity(capacity)),
            DataType::Decimal256(..) => Builder::Dec256(Decimal256Builder::with_capacity(capacity)),
            DataType::Timestamp(..) => {
                Builder::Ts(TimestampMicrosecondBuilder::with_capacity(capacity))
            }
            DataType::Utf8 => Builder::Str(StringBuilder::with_capacity(capacity, capacity * 16)),
            _ => Builder::Bin(BinaryBuilder::with_capacity(capacity, capacity * 16)),
        };
        let encoding = if col.code_page != 0 {
            text::encoding_for_code_page(col.code_page)
        } else {
            encoding
        };
        ColumnDecoder {
            col: col.clone(),
            builder,
            encoding,
            scratch: String::new(),
            bytes: Vec::new(),
            data_type,
            calculated: col.is_calculated(),
        }
    }

    /// The column decoded.
    pub fn column(&self) -> &Column {
        &self.col
    }

    /// Appends a null.
    pub fn append_null(&mut self) {
        match &mut self.builder {
            Builder::Bool(b) => b.append_null(),
            Builder::U8(b) => b.append_null(),
            Builder::I16(b) => b.append_null(),
            Builder::I32(b) => b.append_null(),
            Builder::I64(b) => b.append_null(),
            Builder::F32(b) => b.append_null(),
            Builder::F64(b) => b.append_null(),
            Builder::Dec(b) => b.append_null(),
            Builder::Dec256(b) => b.append_null(),
            Builder::Ts(b) => b.append_null(),
            Builder::Str(b) => b.append_null(),
            Builder::Bin(b) => b.append_null(),
        }
    }

    /// Appends a Boolean stored in the null mask.
    pub fn append_mask_bool(&mut self, v: bool) {
        if let Builder::Bool(b) = &mut self.builder {
            b.append_value(v)
        }
    }

    /// Appends the value stored in `raw` (the column's bytes in the row).
    #[inline]
    pub fn append(&mut self, ctx: &DecodeCtx<'_>, raw: &[u8]) -> Result<(), FormatError> {
        if !self.calculated {
            return self.append_stored(ctx, raw);
        }
        // A calculated value is wrapped (header, length, data); for long
        // values the wrapper is inside the LVAL bytes, so it is removed after
        // reading them.
        let raw = if self.col.jet_type.is_long_value() {
            raw
        } else {
            values::unwrap_calculated(raw)
        };
        if raw.is_empty() {
            self.append_null();
            return Ok(());
        }
        // Access may store a calculated integer result narrower than its
        // declared type (a Yes/No expression in an Integer column is one
        // byte, 0xFF for True): widen it with sign extension.
        let mut widened = [0u8; 8];
        let raw = match self.col.jet_type.fixed_size() {
            Some(n @ (1 | 2 | 4 | 8))
                if raw.len() < n
                    && matches!(
                        self.col.jet_type,
                        JetType::Byte | JetType::Integer | JetType::Long | JetType::BigInt
                    ) =>
            {
                let fill = if raw.last().is_some_and(|&b| b & 0x80 != 0) {
                    0xFF
                } else {
                    0
                };
                widened[..n].fill(fill);
                widened[..raw.len()].copy_from_slice(raw);
                &widened[..n]
            }
            _ => raw,
        };
        self.append_stored(ctx, raw)
    }

    /// Appends a value from its stored bytes (a calculated value already
    /// unwrapped, except long values, whose wrapper is in the LVAL bytes).
    fn append_stored(&mut self, ctx: &DecodeCtx<'_>, raw: &[u8]) -> Result<(), FormatError> {
        let name = &self.col.name;
        let short = |what| FormatError::BadValue {
            page: ctx.page,
            offset: ctx.row_offset,
            column: name.clone(),
            what,
        };
        macro_rules! fixed {
            ($n:expr, $what:expr) => {{
                let a: [u8; $n] = raw
                    .get(..$n)
                    .and_then(|s| s.try_into().ok())
                    .ok_or_else(|| short($what))?;
                a
            }};
        }
        match (&mut self.builder, self.col.jet_type) {
            (Builder::Bool(b), _) => b.append_value(raw.first().is_some_and(|&v| v != 0)),
            (Builder::U8(b), _) => b.append_value(fixed!(1, "Byte value shorter than 1 byte")[0]),
            (Builder::I16(b), _) => b.append_value(i16::from_le_bytes(fixed!(
                2,
                "Integer value shorter than 2 bytes"
            ))),
            (Builder::I32(b), _) => b.append_value(i32::from_le_bytes(fixed!(
                4,
                "Long value shorter than 4 bytes"
            ))),
            (Builder::I64(b), _) => b.append_value(i64::from_le_bytes(fixed!(
                8,
                "BigInt value shorter than 8 bytes"
            ))),
            (Builder::F32(b), _) => b.append_value(f32::from_le_bytes(fixed!(
                4,
                "Single value shorter than 4 bytes"
            ))),
            (Builder::F64(b), _) => b.append_value(f64::from_le_bytes(fixed!(
                8,
                "Double value shorter than 8 bytes"
            ))),
            (Builder::Dec(b), JetType::Currency) => b.append_value(i128::from(i64::from_le_bytes(
                fixed!(8, "Currency value shorter than 8 bytes"),
            ))),
            (Builder::Dec(b), _) => match values::numeric_to_i128(raw) {
                Some(v) => b.append_value(v),
                None => return Err(short("Numeric value malformed or wider than 128 bits")),
            },
            (Builder::Dec256(b), _) => match values::calculated_numeric(raw) {
                Some(v) => b.append_value(v),
                None => return Err(short("calculated Numeric value malformed")),
            },
            (Builder::Ts(b), JetType::ExtDateTime) => match values::ext_datetime_to_micros(raw) {
                Some(v) => b.append_value(v),
                None => b.append_null(),
            },
            (Builder::Ts(b), _) => match values::access_date_to_micros(f64::from_le_bytes(fixed!(
                8,
                "DateTime value shorter than 8 bytes"
            ))) {
                Some(v) => b.append_value(v),
                None => b.append_null(),
            },
            (Builder::Str(b), JetType::Guid) => {
                fixed!(16, "GUID value shorter than 16 bytes");
                self.scratch.clear();
                values::format_guid(raw, &mut self.scratch);
                b.append_value(&self.scratch);
            }
            (Builder::Str(b), JetType::Memo) => {
                self.bytes.clear();
                crate::read::lval::read_long_value(
                    ctx.src,
                    ctx.layout,
                    raw,
                    ctx.page,
                    ctx.row_offset,
                    &mut self.bytes,
                )?;
                let value: &[u8] = if self.col.is_calculated() {
                    values::unwrap_calculated(&self.bytes)
                } else {
                    &self.bytes
                };
                b.append_value(decode_text(
                    &mut self.scratch,
                    value,
                    ctx.unicode,
                    self.encoding,
                ));
            }
            (Builder::Str(b), _) => b.append_value(decode_text(
                &mut self.scratch,
                raw,
                ctx.unicode,
                self.encoding,
            )),
            (Builder::Bin(b), JetType::Ole) => {
                self.bytes.clear();
                crate::read::lval::read_long_value(
                    ctx.src,
                    ctx.layout,
                    raw,
                    ctx.page,
                    ctx.row_offset,
                    &mut self.bytes,
                )?;
                b.append_value(&self.bytes);
            }
            (Builder::Bin(b), _) => b.append_value(raw),
        }
        Ok(())
    }

    /// Appends the column `plan` locates for every row of `run` (rows of
    /// `page`), in order.
    /// The value type is matched once for the whole run, then each plain
    /// type is a tight loop; anything else (calculated, long, GUID, Numeric
    /// values) goes through [`ColumnDecoder::append`] row by row. The values
    /// appended are exactly those `append`, `append_null` and
    /// `append_mask_bool` would append.
    pub(crate) fn append_run(
        &mut self,
        ctx: &DecodeCtx<'_>,
        run: &PageRun,
        page: &DataPage,
        plan: &FieldPlan,
    ) -> Result<(), FormatError> {
        let n = run.len();
        // row `i`'s raw content and offset, expanded in place in every loop
        // below (a closure called from ten loops is not inlined into them)
        macro_rules! field {
            ($i:expr) => {
                (run.field(page, $i, plan)?, run.start($i))
            };
        }
        let name = &self.col.name;
        let short = |at: usize, what: &'static str| FormatError::BadValue {
            page: ctx.page,
            offset: at,
            column: name.clone(),
            what,
        };
        // each row's cell of a column that is NULL or bytes (not a mask
        // Boolean): `$cell` an `Option<&[u8]>`, `$at` the row's offset.
        // A fixed column's bytes are found from the row's layout alone
        // (rows and layouts walked together); any other column goes
        // through the row's variable offsets.
        macro_rules! each_cell {
            (|$cell:ident, $at:ident| $body:block) => {
                if let Some(fixed) = plan.fixed() {
                    for (range, rl) in run.rows.iter().zip(&run.layouts) {
                        let row = page.bytes.get(range.clone()).unwrap_or_default();
                        let $cell: Option<&[u8]> = fixed_cell(row, rl, fixed);
                        let $at = range.start;
                        $body
                    }
                } else if let Some(var) = plan.var() {
                    let rows = run.rows.iter().zip(&run.layouts).zip(&run.offsets_at);
                    for ((range, rl), &at) in rows {
                        let row = page.bytes.get(range.clone()).unwrap_or_default();
                        let offsets = run.offsets.get(at..).unwrap_or(&[]);
                        let $cell: Option<&[u8]> = var_cell(row, rl, offsets, var)
                            .map_err(|(what, r)| corrupt(page.number, range.start, what, r))?;
                        let $at = range.start;
                        $body
                    }
                } else {
                    for i in 0..n {
                        let ($cell, $at): (Option<&[u8]>, usize) = match field!(i) {
                            (RawField::Bytes(raw), at) => (Some(raw), at),
                            // a mask Boolean reaches only Boolean columns
                            (RawField::Null | RawField::Bool(_), at) => (None, at),
                        };
                        $body
                    }
                }
            };
        }
        // fixed-width little-endian values: `$n` bytes, converted by `$conv`;
        // values gathered in a block and appended a block at a time (the
        // builder's one-value append is a call a value)
        macro_rules! fixed_run {
            ($b:expr, $n:literal, $what:expr, |$a:ident| $conv:expr) => {{
                let mut block = [Default::default(); BLOCK];
                let mut filled = 0;
                each_cell!(|cell, at| {
                    match cell {
                        Some(raw) => {
                            let Some($a) = raw.get(..$n).and_then(|s| <[u8; $n]>::try_from(s).ok())
                            else {
                                return Err(short(at, $what));
                            };
                            block[filled] = $conv;
                            filled += 1;
                            if filled == BLOCK {
                                $b.append_slice(&block);
                                filled = 0;
                            }
                        }
                        None => {
                            $b.append_slice(&block[..filled]);
                            filled = 0;
                            $b.append_null();
                        }
                    }
                });
                $b.append_slice(&block[..filled]);
                return Ok(());
            }};
        }
        if !self.calculated {
            match (&mut self.builder, self.col.jet_type) {
                (Builder::Bool(b), _) => {
                    for i in 0..n {
                        match field!(i).0 {
                            RawField::Bool(v) => b.append_value(v),
                            RawField::Null => b.append_null(),
                            RawField::Bytes(raw) => {
                                b.append_value(raw.first().is_some_and(|&v| v != 0))
                            }
                        }
                    }
                    return Ok(());
                }
                (Builder::U8(b), _) => fixed_run!(b, 1, "Byte value shorter than 1 byte", |a| a[0]),
                (Builder::I16(b), _) => {
                    fixed_run!(b, 2, "Integer value shorter than 2 bytes", |a| {
                        i16::from_le_bytes(a)
                    })
                }
                (Builder::I32(b), _) => fixed_run!(b, 4, "Long value shorter than 4 bytes", |a| {
                    i32::from_le_bytes(a)
                }),
                (Builder::I64(b), _) => {
                    fixed_run!(b, 8, "BigInt value shorter than 8 bytes", |a| {
                        i64::from_le_bytes(a)
                    })
                }
                (Builder::F32(b), _) => {
                    fixed_run!(b, 4, "Single value shorter than 4 bytes", |a| {
                        f32::from_le_bytes(a)
                    })
                }
                (Builder::F64(b), _) => {
                    fixed_run!(b, 8, "Double value shorter than 8 bytes", |a| {
                        f64::from_le_bytes(a)
                    })
                }
                (Builder::Dec(b), JetType::Currency) => {
                    fixed_run!(b, 8, "Currency value shorter than 8 bytes", |a| i128::from(
                        i64::from_le_bytes(a)
                    ))
                }
                (Builder::Ts(b), JetType::DateTime) => {
                    // as fixed_run!, but a date out of range is NULL too
                    let mut block = [0i64; BLOCK];
                    let mut filled = 0;
                    each_cell!(|cell, at| {
                        let micros = match cell {
                            Some(raw) => {
                                let Some(a) =
                                    raw.get(..8).and_then(|s| <[u8; 8]>::try_from(s).ok())
                                else {
                                    return Err(short(at, "DateTime value shorter than 8 bytes"));
                                };
                                values::access_date_to_micros(f64::from_le_bytes(a))
                            }
                            None => None,
                        };
                        match micros {
                            Some(v) => {
                                block[filled] = v;
                                filled += 1;
                                if filled == BLOCK {
                                    b.append_slice(&block);
                                    filled = 0;
                                }
                            }
                            None => {
                                b.append_slice(&block[..filled]);
                                filled = 0;
                                b.append_null();
                            }
                        }
                    });
                    b.append_slice(&block[..filled]);
                    return Ok(());
                }
                (Builder::Str(b), JetType::Text) => {
                    each_cell!(|cell, _at| {
                        match cell {
                            Some(raw) => b.append_value(decode_text(
                                &mut self.scratch,
                                raw,
                                ctx.unicode,
                                self.encoding,
                            )),
                            None => b.append_null(),
                        }
                    });
                    return Ok(());
                }
                _ => {}
            }
        }
        for i in 0..n {
            match field!(i) {
                (RawField::Null, _) => self.append_null(),
                (RawField::Bool(v), _) => self.append_mask_bool(v),
                (RawField::Bytes(raw), at) => {
                    let row_ctx = DecodeCtx {
                        src: ctx.src,
                        layout: ctx.layout,
                        unicode: ctx.unicode,
                        page: ctx.page,
                        row_offset: at,
                    };
                    self.append(&row_ctx, raw)?;
                }
            }
        }
        Ok(())
    }

    /// Finishes the values appended so far into an array and starts afresh.
    pub fn finish(&mut self) -> ArrayRef {
        match &mut self.builder {
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::U8(b) => Arc::new(b.finish()),
            Builder::I16(b) => Arc::new(b.finish()),
            Builder::I32(b) => Arc::new(b.finish()),
            Builder::I64(b) => Arc::new(b.finish()),
            Builder::F32(b) => Arc::new(b.finish()),
            Builder::F64(b) => Arc::new(b.finish()),
            Builder::Dec(b) => Arc::new(b.finish().with_data_type(self.data_type.clone())),
            Builder::Dec256(b) => Arc::new(b.finish().with_data_type(self.data_type.clone())),
            Builder::Ts(b) => Arc::new(b.finish()),
            Builder::Str(b) => Arc::new(b.finish()),
            Builder::Bin(b) => Arc::new(b.finish()),
        }
    }
}
