//! Filter pushdown: conjuncts that constrain the first key column of an
//! index become seek ranges.
//!
//! Recognised: `col op literal` and `literal op col` for `=`, `<`, `<=`,
//! `>`, `>=`; `col BETWEEN a AND b`; `col IN (…)`; `col IS NULL`. A column
//! wrapped in a value-preserving cast (integer widening, to a wide enough
//! decimal, Single to Double) counts as the column. A literal of any
//! numeric kind or range may bound a numeric column: the key encoder moves
//! it to the nearest storable value inside the range or finds that no row
//! can match (`jet_storage::index::key::first_column_bounds`). Text, GUID
//! and Yes/No columns seek only for equality.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Between, BinaryExpr, Expr, Operator};
use jet_storage::index::key::KeyValue;
use jet_storage::{JetType, Table};
use std::ops::Bound;

/// Name of Access's text comparison fold in plans
/// ([`crate::access::functions::fold::TextFold`]): a conjunct comparing the folded
/// column seeks the column's index (Jet text keys ignore case and trailing
/// spaces too).
pub const TEXT_FOLD: &str = "access_text_fold";

/// What one conjunct says about one column.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Constraint {
    /// `col = v` (or `col IS NULL` with [`KeyValue::Null`]).
    Eq(KeyValue),
    /// `col IN (…)`.
    In(Vec<KeyValue>),
    /// A range; bounds are value bounds.
    Range(Bound<KeyValue>, Bound<KeyValue>),
}

/// Converts a literal to a seekable value; `None` when it has no key form.
pub(crate) fn key_value(v: &ScalarValue, column_type: JetType) -> Option<KeyValue> {
    use ScalarValue as S;
    Some(match v {
        S::Boolean(Some(b)) => KeyValue::Bool(*b),
        S::Int8(Some(i)) => KeyValue::Int(i64::from(*i)),
        S::Int16(Some(i)) => KeyValue::Int(i64::from(*i)),
        S::Int32(Some(i)) => KeyValue::Int(i64::from(*i)),
        S::Int64(Some(i)) => KeyValue::Int(*i),
        S::UInt8(Some(i)) => KeyValue::Int(i64::from(*i)),
        S::UInt16(Some(i)) => KeyValue::Int(i64::from(*i)),
        S::UInt32(Some(i)) => KeyValue::Int(i64::from(*i)),
        S::UInt64(Some(i)) => KeyValue::Int(i64::try_from(*i).ok()?),
        S::Float32(Some(f)) => KeyValue::Float(f64::from(*f)),
        S::Float64(Some(f)) => KeyValue::Float(*f),
        S::Decimal128(Some(v), _, s) if *s >= 0 => KeyValue::Decimal {
            value: *v,
            scale: *s as u8,
        },
        S::TimestampSecond(Some(v), None) => KeyValue::TimestampMicros(v.checked_mul(1_000_000)?),
        S::TimestampMillisecond(Some(v), None) => KeyValue::TimestampMicros(v.checked_mul(1_000)?),
        S::TimestampMicrosecond(Some(v), None) => KeyValue::TimestampMicros(*v),
        S::TimestampNanosecond(Some(v), None) => KeyValue::TimestampMicros(v.div_euclid(1_000)),
        S::Date32(Some(d)) => KeyValue::TimestampMicros(i64::from(*d).checked_mul(86_400_000_000)?),
        S::Utf8(Some(s)) | S::LargeUtf8(Some(s)) | S::Utf8View(Some(s))
            if column_type == JetType::Guid =>
        {
            KeyValue::Guid(s.clone())
        }
        S::Utf8(Some(s)) | S::LargeUtf8(Some(s)) | S::Utf8View(Some(s))
            if column_type == JetType::Text =>
        {
            KeyValue::Text(s.clone())
        }
        S::Binary(Some(b)) | S::LargeBinary(Some(b)) => KeyValue::Bytes(b.clone()),
        _ => return None,
    })
}

/// The values of an integer type: `(min, max)`.
fn int_range(t: &DataType) -> Option<(i128, i128)> {
    use DataType as D;
    Some(match t {
        D::Int8 => (i8::MIN.into(), i8::MAX.into()),
        D::Int16 => (i16::MIN.into(), i16::MAX.into()),
        D::Int32 => (i32::MIN.into(), i32::MAX.into()),
        D::Int64 => (i64::MIN.into(), i64::MAX.into()),
        D::UInt8 => (0, u8::MAX.into()),
        D::UInt16 => (0, u16::MAX.into()),
        D::UInt32 => (0, u32::MAX.into()),
        D::UInt64 => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// Decimal digits left of the point an integer type needs.
fn int_digits(t: &DataType) -> Option<i16> {
    let (min, max) = int_range(t)?;
    Some(max.max(-min).to_string().len() as i16)
}

/// Whether a cast from `from` to `to` maps every value to an equal value
/// and keeps order, so a comparison of the cast column with a literal is a
/// comparison of the column's own values: integer widening, an integer to
/// a decimal with room for all its digits, a decimal to one with at least
/// its scale and integer digits, an integer of at most 32 bits or a Single
/// to a Double. (A BigInt to a Double rounds, and a narrow decimal
/// overflows: those comparisons stay with DataFusion.)
fn value_preserving_cast(from: &DataType, to: &DataType) -> bool {
    use DataType as D;
    if from == to {
        return false;
    }
    match (from, to) {
        (D::Decimal128(p1, s1), D::Decimal128(p2, s2)) => {
            s2 >= s1 && i16::from(*p2) - i16::from(*s2) >= i16::from(*p1) - i16::from(*s1)
        }
        (f, D::Decimal128(p, s)) => {
            int_digits(f).is_some_and(|d| *s >= 0 && i16::from(*p) - i16::from(*s) >= d)
        }
        (f, D::Float64) => matches!(
            f,
            D::Int8 | D::Int16 | D::Int32 | D::UInt8 | D::UInt16 | D::UInt32 | D::Float32
        ),
        (f, t) => match (int_range(f), int_range(t)) {
            (Some((a, b)), Some((c, d))) => c <= a && b <= d,
            _ => false,
        },
    }
}

/// The table column index an expression reads, unwrapping
/// value-preserving casts.
fn column_of(e: &Expr, table: &Table) -> Option<usize> {
    match e {
        Expr::Column(c) => table
            .def()
            .columns
            .iter()
            .position(|col| col.name == c.name),
        // Access text comparison (case and trailing spaces ignored): Jet
        // text keys ignore both, so the seek reads a superset
        Expr::ScalarFunction(f) if f.name() == TEXT_FOLD && f.args.len() == 1 => {
            let i = column_of(&f.args[0], table)?;
            (table.def().columns[i].jet_type == JetType::Text).then_some(i)
        }
        Expr::Cast(c) => {
            let i = column_of(&c.expr, table)?;
            let from = table.schema().field(i).data_type().clone();
            value_preserving_cast(&from, c.field.data_type()).then_some(i)
        }
        _ => None,
    }
}

fn literal_of(e: &Expr) -> Option<&ScalarValue> {
    match e {
        Expr::Literal(v, _) => Some(v),
        _ => None,
    }
}

/// What a single conjunct constrains: `(column, constraint)`, or `None`.
pub(crate) fn analyze(e: &Expr, table: &Table) -> Option<(usize, Constraint)> {
    let ty = |i: usize| table.def().columns[i].jet_type;
    match e {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
            let (col, lit, op) = match (
                column_of(left, table),
                literal_of(right),
                column_of(right, table),
                literal_of(left),
            ) {
                (Some(c), Some(l), _, _) => (c, l, *op),
                (_, _, Some(c), Some(l)) => (c, l, op.swap()?),
                _ => return None,
            };
            let v = key_value(lit, ty(col))?;
            let c = match op {
                Operator::Eq => Constraint::Eq(v),
                Operator::Lt => Constraint::Range(Bound::Unbounded, Bound::Excluded(v)),
                Operator::LtEq => Constraint::Range(Bound::Unbounded, Bound::Included(v)),
                Operator::Gt => Constraint::Range(Bound::Excluded(v), Bound::Unbounded),
                Operator::GtEq => Constraint::Range(Bound::Included(v), Bound::Unbounded),
                _ => return None,
            };
            Some((col, c))
        }
        Expr::Between(Between {
            expr,
            negated: false,
            low,
            high,
        }) => {
            let col = column_of(expr, table)?;
            let lo = key_value(literal_of(low)?, ty(col))?;
            let hi = key_value(literal_of(high)?, ty(col))?;
            Some((
                col,
                Constraint::Range(Bound::Included(lo), Bound::Included(hi)),
            ))
        }
        Expr::InList(l) if !l.negated => {
            let col = column_of(&l.expr, table)?;
            let vs: Option<Vec<KeyValue>> = l
                .list
                .iter()
                .map(|x| literal_of(x).and_then(|v| key_value(v, ty(col))))
                .collect();
            Some((col, Constraint::In(vs?)))
        }
        Expr::IsNull(inner) => Some((column_of(inner, table)?, Constraint::Eq(KeyValue::Null))),
        _ => None,
    }
}

/// The real index to seek for column `col`: one whose first key column it
/// is, of a type with established key encodings (text only for equality,
/// checked by the caller). Prefers unique indexes.
pub(crate) fn index_for(table: &Table, col: usize) -> Option<usize> {
    let c = &table.def().columns[col];
    if matches!(
        c.jet_type,
        JetType::Memo | JetType::Ole | JetType::Unknown(_)
    ) || c.is_calculated()
    {
        return None;
    }
    let mut best: Option<usize> = None;
    for (i, r) in table.def().real_indexes.iter().enumerate() {
        if r.key.first().map(|k| k.0) == Some(c.col_num) {
            let unique = r.flags & 0x01 != 0;
            match best {
                Some(b) if table.def().real_indexes[b].flags & 0x01 != 0 || !unique => {}
                _ => best = Some(i),
            }
        }
    }
    best
}
