//! The schema of a multi-file table: the union of the files' columns by
//! name (case-insensitive, as Access compares names; the first file's
//! spelling kept), each column's type widened over every file that has
//! it, every column nullable (a file without a column gives NULL), and a
//! last column `_file` holding each row's file path.

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::error::{DataFusionError, Result};
use std::sync::Arc;

/// The name of the column holding each row's file path.
pub const FILE_COLUMN: &str = "_file";

/// The type a column takes when files type it `a` and `b`, or `None`
/// when no widening keeps every value (lists of different types).
///
/// The decisions, in order: equal types stay; NULL takes the other;
/// integers widen to the smallest signed integer holding both (Byte
/// with Integer is Integer, Yes/No with a number is that number);
/// floats and integers meet in Double (Single only with Single);
/// decimals keep the larger scale and the larger integer part (integers
/// count as decimals of their digit count), beyond 38 digits Double;
/// a decimal with a float is Double; lists only match themselves; any
/// other mix (text with a number, a date with a number, bytes with text)
/// is text.
pub fn widen(a: &DataType, b: &DataType) -> Option<DataType> {
    use DataType::*;
    if a == b {
        return Some(a.clone());
    }
    match (a, b) {
        (Null, t) | (t, Null) => return Some(t.clone()),
        (List(_) | LargeList(_), _) | (_, List(_) | LargeList(_)) => return None,
        (Boolean, UInt8) | (UInt8, Boolean) => return Some(UInt8),
        _ => {}
    }
    if let (Some(x), Some(y)) = (int_bits(a), int_bits(b)) {
        return Some(match x.max(y) {
            0..=16 => Int16,
            17..=32 => Int32,
            _ => Int64,
        });
    }
    let float = |t: &DataType| matches!(t, Float32 | Float64);
    if (float(a) || int_bits(a).is_some()) && (float(b) || int_bits(b).is_some()) {
        return Some(if *a == Float32 && *b == Float32 {
            Float32
        } else {
            Float64
        });
    }
    if let (Some((p1, s1)), Some((p2, s2))) = (decimal_digits(a), decimal_digits(b)) {
        let scale = s1.max(s2);
        let int = (p1 - s1).max(p2 - s2);
        return Some(if int + scale <= 38 {
            Decimal128((int + scale) as u8, scale as i8)
        } else {
            Float64
        });
    }
    if (float(a) && decimal_digits(b).is_some()) || (float(b) && decimal_digits(a).is_some()) {
        return Some(Float64);
    }
    Some(Utf8)
}

/// Signed bits an integer type (or Yes/No) needs: Byte needs 16 beside a
/// signed type.
fn int_bits(t: &DataType) -> Option<u32> {
    use DataType::*;
    Some(match t {
        Boolean | Int8 => 8,
        UInt8 | Int16 => 16,
        UInt16 | Int32 => 32,
        UInt32 | Int64 => 64,
        _ => return None,
    })
}

/// (precision, scale) of a decimal, or of an integer seen as a decimal.
fn decimal_digits(t: &DataType) -> Option<(i32, i32)> {
    use DataType::*;
    Some(match t {
        Decimal128(p, s) if *s >= 0 => (i32::from(*p), i32::from(*s)),
        Boolean | Int8 | UInt8 => (3, 0),
        Int16 => (5, 0),
        Int32 => (10, 0),
        Int64 => (19, 0),
        _ => return None,
    })
}

/// The union of the files' schemas (see the module docs): `Ok(schema)`
/// whose last field is `_file`, or an error naming the column and the
/// two files whose types do not meet. `files[i]` is shown as `names[i]`.
pub fn union_schema(files: &[&Schema], names: &[&str]) -> Result<SchemaRef> {
    let mut fields: Vec<Field> = Vec::new();
    // the file that set each field's type, for messages
    let mut origin: Vec<usize> = Vec::new();
    for (i, schema) in files.iter().enumerate() {
        for f in schema.fields() {
            if f.name().eq_ignore_ascii_case(FILE_COLUMN) {
                return Err(DataFusionError::Plan(format!(
                    "{}: the table has a column named {FILE_COLUMN:?}, which a multi-file table uses for the file path",
                    names[i]
                )));
            }
            match fields
                .iter()
                .position(|u| u.name().eq_ignore_ascii_case(f.name()))
            {
                None => {
                    fields.push(f.as_ref().clone().with_nullable(true));
                    origin.push(i);
                }
                Some(at) => {
                    let have = fields[at].data_type().clone();
                    let Some(t) = widen(&have, f.data_type()) else {
                        return Err(DataFusionError::Plan(format!(
                            "column {:?} is {have} in {} but {} in {}; the two do not widen to one type",
                            fields[at].name(),
                            names[origin[at]],
                            f.data_type(),
                            names[i]
                        )));
                    };
                    if t != have {
                        // a widened column's metadata described another type
                        let name = fields[at].name().clone();
                        fields[at] = Field::new(name, t, true);
                    }
                }
            }
        }
    }
    fields.push(Field::new(FILE_COLUMN, DataType::Utf8, false));
    Ok(Arc::new(Schema::new(fields)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    #[test]
    fn integers_floats_and_decimals_widen() {
        assert_eq!(widen(&Int16, &Int32), Some(Int32));
        assert_eq!(widen(&Int32, &Int64), Some(Int64));
        assert_eq!(widen(&UInt8, &Int16), Some(Int16));
        assert_eq!(widen(&UInt8, &Boolean), Some(UInt8));
        assert_eq!(widen(&Int64, &Float32), Some(Float64));
        assert_eq!(widen(&Float32, &Float32), Some(Float32));
        assert_eq!(widen(&Float32, &Float64), Some(Float64));
        assert_eq!(
            widen(&Decimal128(19, 4), &Decimal128(12, 2)),
            Some(Decimal128(19, 4))
        );
        assert_eq!(widen(&Decimal128(12, 2), &Int32), Some(Decimal128(12, 2)));
        assert_eq!(
            widen(&Decimal128(18, 0), &Decimal128(28, 20)),
            Some(Decimal128(38, 20))
        );
        assert_eq!(
            widen(&Decimal128(19, 0), &Decimal128(28, 20)),
            Some(Float64)
        );
        assert_eq!(widen(&Decimal128(19, 4), &Float64), Some(Float64));
    }

    #[test]
    fn text_wins_and_lists_refuse() {
        assert_eq!(widen(&Utf8, &Int32), Some(Utf8));
        assert_eq!(
            widen(
                &Timestamp(datafusion::arrow::datatypes::TimeUnit::Microsecond, None),
                &Int32
            ),
            Some(Utf8)
        );
        assert_eq!(widen(&Null, &Binary), Some(Binary));
        let list = List(Arc::new(Field::new("item", Int32, true)));
        assert_eq!(widen(&list, &Int32), None);
        assert_eq!(widen(&list, &list), Some(list.clone()));
    }

    #[test]
    fn union_keeps_first_spelling_and_appends_file() {
        let a = Schema::new(vec![
            Field::new("ID", Int32, false),
            Field::new("Qty", Int16, true),
        ]);
        let b = Schema::new(vec![
            Field::new("id", Int32, false),
            Field::new("QTY", Int32, true),
            Field::new("Extra", Utf8, true),
        ]);
        let u = union_schema(&[&a, &b], &["a", "b"]).unwrap();
        let names: Vec<&str> = u.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["ID", "Qty", "Extra", "_file"]);
        assert_eq!(u.field(1).data_type(), &Int32);
        assert!(u.field(0).is_nullable());
        let list = Schema::new(vec![Field::new(
            "ID",
            List(Arc::new(Field::new("item", Int32, true))),
            true,
        )]);
        let e = union_schema(&[&a, &list], &["a.mdb", "l.mdb"]).unwrap_err();
        assert!(e.to_string().contains("a.mdb") && e.to_string().contains("l.mdb"));
    }
}
