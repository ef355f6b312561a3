//! PostgreSQL's binary COPY form of the migrated values: each value in
//! its column type's binary wire form (`bool`, `int2`/`int4`/`int8`,
//! `float4`/`float8`, `numeric`, `timestamp`, `varchar`/`text`, `uuid`,
//! `bytea`), which the server stores without parsing text. The column
//! types are those `types::sql_type` declares for PostgreSQL; a value
//! the column cannot take is an error naming the table and row.

use super::super::data::{Problem, TargetRows, Value, table_cells};
use super::super::schema::TableModel;
use super::T;
use bytes::{BufMut, BytesMut};
use datafusion::arrow::array::RecordBatch;
use jet_storage::JetType;
use std::error::Error;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};

/// The PostgreSQL type `types::sql_type` gives an Access column type.
pub fn column_type(jet: JetType) -> Type {
    use JetType as J;
    match jet {
        J::Boolean => Type::BOOL,
        J::Byte | J::Integer => Type::INT2,
        J::Long => Type::INT4,
        J::BigInt => Type::INT8,
        J::Currency | J::Numeric => Type::NUMERIC,
        J::Single => Type::FLOAT4,
        J::Double => Type::FLOAT8,
        J::DateTime | J::ExtDateTime => Type::TIMESTAMP,
        J::Text => Type::VARCHAR,
        J::Memo => Type::TEXT,
        J::Guid => Type::UUID,
        J::Binary | J::Ole | J::Unknown(_) | J::Complex => Type::BYTEA,
    }
}

/// The start of a binary COPY stream: the signature `PGCOPY\n\xff\r\n\0`,
/// no flags, no header extension.
pub const COPY_HEADER: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";

/// The end of a binary COPY stream: a row of -1 fields.
pub const COPY_TRAILER: i16 = -1;

/// Appends the rows of one batch (rows `first_row + 1 …` of `t`) to `out`
/// in the binary COPY form: per row its field count, then each field's
/// length (-1 for NULL) and bytes. `types` are the columns' PostgreSQL
/// types, in the model's order. Values PostgreSQL cannot hold are
/// reported and written as NULL; a value its column's type refuses is an
/// error naming the table and row.
pub fn encode_batch(
    out: &mut BytesMut,
    t: &TableModel,
    types: &[Type],
    b: &RecordBatch,
    first_row: u64,
    problems: &mut Vec<Problem>,
) -> Result<(), String> {
    let rows = TargetRows {
        target: T,
        table: t,
        first_row,
    };
    let cells = table_cells(t, b);
    let fields = i16::try_from(t.columns.len())
        .map_err(|_| format!("{}: more columns than a COPY row holds", t.name))?;
    for r in 0..b.num_rows() {
        out.put_i16(fields);
        for ((c, cells), ty) in t.columns.iter().zip(&cells).zip(types) {
            let v = rows.check(c, r, cells.value(r), problems);
            let at = out.len();
            out.put_i32(0);
            let wrote = v.to_sql(ty, out).and_then(|null| match null {
                IsNull::Yes => Ok(None),
                IsNull::No => Ok(Some(i32::try_from(out.len() - at - 4)?)),
            });
            match wrote {
                Ok(Some(len)) => out[at..at + 4].copy_from_slice(&len.to_be_bytes()),
                Ok(None) => {
                    out.truncate(at);
                    out.put_i32(-1);
                }
                Err(e) => {
                    return Err(format!(
                        "{} row {}: PostgreSQL: {e}",
                        t.name,
                        first_row + r as u64 + 1
                    ));
                }
            }
        }
    }
    Ok(())
}

/// µs from 1970-01-01 to 2000-01-01, PostgreSQL's epoch of timestamps.
pub const PG_EPOCH_MICROS: i64 = 946_684_800_000_000;

impl ToSql for Value<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match (*self, ty) {
            (Value::Null, _) => return Ok(IsNull::Yes),
            (Value::Bool(b), &Type::BOOL) => out.put_u8(u8::from(b)),
            (Value::Int(i), &Type::INT2) => out.put_i16(i16::try_from(i)?),
            (Value::Int(i), &Type::INT4) => out.put_i32(i32::try_from(i)?),
            (Value::Int(i), &Type::INT8) => out.put_i64(i),
            (Value::F32(x), &Type::FLOAT4) => out.put_f32(x),
            (Value::F64(x), &Type::FLOAT8) => out.put_f64(x),
            (Value::Dec(v, scale), &Type::NUMERIC) => put_numeric(out, v, scale),
            (Value::Micros(m), &Type::TIMESTAMP) => out.put_i64(
                m.checked_sub(PG_EPOCH_MICROS)
                    .ok_or("a date out of PostgreSQL's range")?,
            ),
            (Value::Text(s), &Type::VARCHAR | &Type::TEXT) => out.put_slice(s.as_bytes()),
            (Value::Text(s), &Type::UUID) => out.put_slice(&guid_bytes(s)?),
            (Value::Bytes(b), &Type::BYTEA) => out.put_slice(b),
            (_, ty) => return Err(format!("a value of another type for a {ty} column").into()),
        }
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        [
            Type::BOOL,
            Type::INT2,
            Type::INT4,
            Type::INT8,
            Type::NUMERIC,
            Type::FLOAT4,
            Type::FLOAT8,
            Type::TIMESTAMP,
            Type::VARCHAR,
            Type::TEXT,
            Type::UUID,
            Type::BYTEA,
        ]
        .contains(ty)
    }

    to_sql_checked!();
}

/// The 16 bytes of a GUID written `{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}`
/// (braces and hyphens optional, as PostgreSQL's `uuid` input takes it).
pub fn guid_bytes(s: &str) -> Result<[u8; 16], String> {
    let bad = || format!("{s:?} is not a GUID");
    let inner = s
        .strip_prefix('{')
        .and_then(|x| x.strip_suffix('}'))
        .unwrap_or(s);
    let mut out = [0u8; 16];
    let mut n = 0;
    for ch in inner.chars().filter(|&c| c != '-') {
        let d = ch.to_digit(16).ok_or_else(bad)? as u8;
        let byte = out.get_mut(n / 2).ok_or_else(bad)?;
        *byte = (*byte << 4) | d;
        n += 1;
    }
    if n == 32 { Ok(out) } else { Err(bad()) }
}

/// Appends PostgreSQL's binary `numeric` of `v × 10^-scale`: the count
/// of base-10000 digits, the weight (power of 10000) of the first, the
/// sign, the display scale, then the digits, each group aligned on the
/// decimal point; leading and trailing zero groups are left out.
pub fn put_numeric(out: &mut BytesMut, v: i128, scale: i8) {
    // the decimal digits of |v|, most significant first, in digits[at..]
    let mut digits = [0u8; 40];
    let mut at = digits.len();
    let mut u = v.unsigned_abs();
    while u != 0 {
        at -= 1;
        digits[at] = (u % 10) as u8;
        u /= 10;
    }
    let digits = &digits[at..];
    // base-10000 groups, the first of weight `weight`
    let mut groups = [0i16; 12];
    let mut count = 0usize;
    let mut weight = 0i32;
    let mut current: Option<i32> = None;
    for (i, &d) in digits.iter().enumerate() {
        // the power of ten of this digit
        let p = (digits.len() - 1 - i) as i32 - i32::from(scale);
        let g = p.div_euclid(4);
        if current != Some(g) {
            if current.is_none() {
                weight = g;
            }
            current = Some(g);
            count += 1;
        }
        groups[count - 1] += i16::from(d) * 10i16.pow(p.rem_euclid(4) as u32);
    }
    while count > 0 && groups[count - 1] == 0 {
        count -= 1;
    }
    if count == 0 {
        weight = 0;
    }
    out.put_i16(count as i16);
    out.put_i16(weight as i16);
    out.put_u16(if v < 0 && count > 0 { 0x4000 } else { 0 });
    out.put_i16(i16::from(scale.max(0)));
    for g in &groups[..count] {
        out.put_i16(*g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(v: i128, scale: i8) -> Vec<i16> {
        let mut b = BytesMut::new();
        put_numeric(&mut b, v, scale);
        b.chunks(2)
            .map(|c| i16::from_be_bytes([c[0], c[1]]))
            .collect()
    }

    /// The layouts of PostgreSQL's `numeric_send` (src/backend/utils/adt/
    /// numeric.c): ndigits, weight, sign, dscale, digits.
    #[test]
    fn numerics_in_postgresqls_layout() {
        assert_eq!(numeric(123_400, 4), [2, 0, 0, 4, 12, 3400]);
        assert_eq!(numeric(5, 2), [1, -1, 0, 2, 500]);
        assert_eq!(numeric(7, -2), [1, 0, 0, 0, 700]);
        assert_eq!(numeric(10_000, 0), [1, 1, 0, 0, 1]);
        assert_eq!(numeric(0, 4), [0, 0, 0, 4]);
        assert_eq!(numeric(-12_345_678, 4), [2, 0, 0x4000, 4, 1234, 5678]);
        assert_eq!(numeric(100_000_001, 4), [3, 1, 0, 4, 1, 0, 1]);
        // Currency's bounds
        assert_eq!(
            numeric(i128::from(i64::MAX), 4),
            [5, 3, 0, 4, 922, 3372, 368, 5477, 5807]
        );
        assert_eq!(numeric(i128::MAX, 0).len(), 4 + 10);
    }

    #[test]
    fn guids_in_either_spelling() {
        let g = guid_bytes("{01234567-89ab-CDEF-0123-456789abcdef}").unwrap();
        assert_eq!(g[0], 0x01);
        assert_eq!(g[15], 0xef);
        assert_eq!(guid_bytes("0123456789abcdef0123456789abcdef").unwrap(), g);
        assert!(guid_bytes("{0123}").is_err());
        assert!(guid_bytes("{01234567-89ab-cdef-0123-456789abcdefaa}").is_err());
        assert!(guid_bytes("{01234567-89ab-cdef-0123-456789abcdeg}").is_err());
    }

    /// Every Access type's column type here is the one the DDL declares.
    #[test]
    fn column_types_match_the_ddl() {
        use super::super::super::types::{TypeInfo, sql_type};
        use JetType as J;
        for jet in [
            J::Boolean,
            J::Byte,
            J::Integer,
            J::Long,
            J::BigInt,
            J::Currency,
            J::Numeric,
            J::Single,
            J::Double,
            J::DateTime,
            J::ExtDateTime,
            J::Text,
            J::Memo,
            J::Guid,
            J::Binary,
            J::Ole,
        ] {
            let ddl = sql_type(
                T,
                TypeInfo {
                    jet,
                    length: 10,
                    precision: 10,
                    scale: 2,
                },
            )
            .unwrap();
            let expected = match column_type(jet) {
                Type::BOOL => "BOOLEAN",
                Type::INT2 => "SMALLINT",
                Type::INT4 => "INTEGER",
                Type::INT8 => "BIGINT",
                Type::NUMERIC => "NUMERIC(",
                Type::FLOAT4 => "REAL",
                Type::FLOAT8 => "DOUBLE PRECISION",
                Type::TIMESTAMP => "TIMESTAMP",
                Type::VARCHAR => "VARCHAR(",
                Type::TEXT => "TEXT",
                Type::UUID => "UUID",
                Type::BYTEA => "BYTEA",
                other => panic!("{other}"),
            };
            assert!(ddl.starts_with(expected), "{jet:?}: {ddl} vs {expected}");
        }
    }
}
