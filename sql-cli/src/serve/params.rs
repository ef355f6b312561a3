//! Bind parameters as engine values: a value sent as text is handed to
//! the plan as text and read as the parameter's type there (as PostgreSQL
//! reads an untyped parameter: `'12'` for an integer is 12); a value sent
//! in binary is decoded by the type the client declared for it.

use super::errors::error;
use super::types::arrow_of;
use crate::migrate::postgres::binary::PG_EPOCH_MICROS;
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::ScalarValue;
use pgwire::api::Type;
use pgwire::error::PgWireResult;

/// Parameter `n` (1-based) of PostgreSQL type `ty`, `bytes` (`None`:
/// NULL) in binary form when `binary`.
pub fn value(n: usize, ty: &Type, bytes: Option<&[u8]>, binary: bool) -> PgWireResult<ScalarValue> {
    let Some(b) = bytes else {
        return Ok(match arrow_of(ty) {
            Some(t) => ScalarValue::try_from(&t).unwrap_or(ScalarValue::Null),
            None => ScalarValue::Null,
        });
    };
    if !binary {
        let text = std::str::from_utf8(b)
            .map_err(|_| error("22021", format!("parameter ${n}: text that is not UTF-8")))?;
        return Ok(ScalarValue::Utf8(Some(text.to_string())));
    }
    let bad = || {
        error(
            "22P03",
            format!("parameter ${n}: a binary {ty} of {} bytes", b.len()),
        )
    };
    let fixed =
        |len: usize| -> PgWireResult<&[u8]> { if b.len() == len { Ok(b) } else { Err(bad()) } };
    Ok(match *ty {
        Type::BOOL => ScalarValue::Boolean(Some(fixed(1)?[0] != 0)),
        Type::INT2 => ScalarValue::Int16(Some(i16::from_be_bytes(
            fixed(2)?.try_into().map_err(|_| bad())?,
        ))),
        Type::INT4 => ScalarValue::Int32(Some(i32::from_be_bytes(
            fixed(4)?.try_into().map_err(|_| bad())?,
        ))),
        Type::INT8 => ScalarValue::Int64(Some(i64::from_be_bytes(
            fixed(8)?.try_into().map_err(|_| bad())?,
        ))),
        Type::FLOAT4 => ScalarValue::Float32(Some(f32::from_be_bytes(
            fixed(4)?.try_into().map_err(|_| bad())?,
        ))),
        Type::FLOAT8 => ScalarValue::Float64(Some(f64::from_be_bytes(
            fixed(8)?.try_into().map_err(|_| bad())?,
        ))),
        Type::TIMESTAMP => {
            let pg = i64::from_be_bytes(fixed(8)?.try_into().map_err(|_| bad())?);
            let micros = pg.checked_add(PG_EPOCH_MICROS).ok_or_else(bad)?;
            ScalarValue::TimestampMicrosecond(Some(micros), None)
        }
        Type::DATE => {
            let pg = i32::from_be_bytes(fixed(4)?.try_into().map_err(|_| bad())?);
            ScalarValue::Date32(Some(pg.checked_add(10_957).ok_or_else(bad)?))
        }
        Type::BYTEA => ScalarValue::Binary(Some(b.to_vec())),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
            ScalarValue::Utf8(Some(
                std::str::from_utf8(b)
                    .map_err(|_| error("22021", format!("parameter ${n}: text that is not UTF-8")))?
                    .to_string(),
            ))
        }
        Type::UUID => {
            let u = fixed(16)?;
            let hex: String = u.iter().map(|x| format!("{x:02X}")).collect();
            ScalarValue::Utf8(Some(format!(
                "{{{}-{}-{}-{}-{}}}",
                &hex[0..8],
                &hex[8..12],
                &hex[12..16],
                &hex[16..20],
                &hex[20..32]
            )))
        }
        Type::NUMERIC => ScalarValue::Utf8(Some(numeric_text(b).ok_or_else(bad)?)),
        _ => {
            return Err(error(
                "0A000",
                format!(
                    "parameter ${n}: binary values of type {ty} are not supported; send it as text"
                ),
            ));
        }
    })
}

/// The decimal text of PostgreSQL's binary `numeric`: digit count,
/// weight, sign, display scale, then base-10000 digits.
fn numeric_text(b: &[u8]) -> Option<String> {
    let word = |i: usize| -> Option<i16> {
        Some(i16::from_be_bytes([*b.get(2 * i)?, *b.get(2 * i + 1)?]))
    };
    let ndigits = usize::try_from(word(0)?).ok()?;
    let weight = i32::from(word(1)?);
    let sign = word(2)? as u16;
    let dscale = usize::try_from(word(3)?).ok()?;
    if b.len() != 8 + 2 * ndigits {
        return None;
    }
    match sign {
        0xC000 => return Some("NaN".into()),
        0x0000 | 0x4000 => {}
        _ => return None,
    }
    let digits: Vec<i16> = (0..ndigits).map(|i| word(4 + i)).collect::<Option<_>>()?;
    if digits.iter().any(|d| !(0..10000).contains(d)) {
        return None;
    }
    let mut int = String::new();
    for g in 0..=weight.max(-1) {
        let d = usize::try_from(g)
            .ok()
            .and_then(|g| digits.get(g))
            .copied()
            .unwrap_or(0);
        if int.is_empty() {
            if d != 0 {
                int = d.to_string();
            }
        } else {
            int.push_str(&format!("{d:04}"));
        }
    }
    if int.is_empty() {
        int.push('0');
    }
    let mut frac = String::new();
    let mut g = weight + 1;
    while frac.len() < dscale {
        let d = if g < 0 {
            0
        } else {
            usize::try_from(g)
                .ok()
                .and_then(|g| digits.get(g))
                .copied()
                .unwrap_or(0)
        };
        frac.push_str(&format!("{d:04}"));
        g += 1;
    }
    frac.truncate(dscale);
    let sign = if sign == 0x4000 { "-" } else { "" };
    Some(if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    })
}

/// The PostgreSQL type a parameter of Arrow type `t` is described as.
pub fn described(t: Option<&DataType>) -> Type {
    match t {
        None => Type::TEXT,
        Some(DataType::Timestamp(
            TimeUnit::Microsecond | TimeUnit::Millisecond | TimeUnit::Second | TimeUnit::Nanosecond,
            None,
        )) => Type::TIMESTAMP,
        Some(t) => super::types::of_arrow(t).0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::migrate::postgres::binary::put_numeric;
    use bytes::BytesMut;

    #[test]
    fn numerics_read_back_what_migrate_writes() {
        for (v, s, text) in [
            (33656300i128, 4i8, "3365.6300"),
            (-5, 2, "-0.05"),
            (7, 0, "7"),
            (0, 4, "0.0000"),
            (1_000_000_000_000, 4, "100000000.0000"),
            (-123456789012345678, 6, "-123456789012.345678"),
        ] {
            let mut b = BytesMut::new();
            put_numeric(&mut b, v, s);
            assert_eq!(numeric_text(&b).as_deref(), Some(text), "{v} {s}");
        }
        assert_eq!(numeric_text(&[0, 1]), None);
    }

    #[test]
    fn binary_values_by_declared_type() {
        assert_eq!(
            value(1, &Type::INT4, Some(&7i32.to_be_bytes()), true).unwrap(),
            ScalarValue::Int32(Some(7))
        );
        assert!(value(1, &Type::INT4, Some(&[0, 1]), true).is_err());
        assert_eq!(
            value(2, &Type::INT8, Some(b"42"), false).unwrap(),
            ScalarValue::Utf8(Some("42".into()))
        );
        assert_eq!(
            value(3, &Type::INT4, None, true).unwrap(),
            ScalarValue::Int32(None)
        );
        let u = [0xABu8; 16];
        assert_eq!(
            value(1, &Type::UUID, Some(&u), true).unwrap(),
            ScalarValue::Utf8(Some("{ABABABAB-ABAB-ABAB-ABAB-ABABABABABAB}".into()))
        );
    }
}
