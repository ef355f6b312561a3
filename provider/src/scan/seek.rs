//! Seek planning: which filter conjuncts an index answers, and the key
//! ranges the read side (and DELETE / UPDATE) walk for them.

use super::exec::KeyRange;
use super::pushdown::{Constraint, analyze, index_for};
use datafusion::error::Result;
use datafusion::logical_expr::Expr;
use jet_storage::index::key::{KeyValue, first_column_bounds};
use jet_storage::{JetVersion, Table};
use std::ops::Bound;

/// What a filter conjunct seeks: (column, constraint, real index), when
/// `pushdown` is on and the conjunct maps onto the first key column of an
/// index whose keys this reader encodes.
pub(crate) fn seekable(
    table: &Table,
    version: JetVersion,
    pushdown: bool,
    e: &Expr,
) -> Option<(usize, Constraint, usize)> {
    if !pushdown {
        return None;
    }
    let (col, c) = analyze(e, table)?;
    // a complex column's stored value is an id, not what SQL compares
    if table.def().columns.get(col)?.jet_type == jet_storage::JetType::Complex {
        return None;
    }
    let idx = index_for(table, col)?;
    // an IgnoreNulls index has no entries for NULL keys
    let ignores_nulls = table.def().real_indexes[idx].flags & 0x02 != 0;
    if ignores_nulls && c == Constraint::Eq(KeyValue::Null) {
        return None;
    }
    // every bound must have a key form (or none can match): a literal the
    // encoder refuses (NaN, another kind of value, a text range, a
    // character the collation tables do not know) is not sought, so the
    // filter stays with DataFusion. Out-of-range literals do encode: they
    // clamp to an unbounded side or an empty range.
    let column = &table.def().columns[col];
    let dir = table.def().real_indexes[idx].key.first()?.1;
    // (a text value no row can hold, such as a character outside a Jet3
    // column's code page, is left to the scan as well)
    let text = column.jet_type == jet_storage::JetType::Text;
    let encodes = |lo: Bound<&KeyValue>, hi: Bound<&KeyValue>| match first_column_bounds(
        column, dir, lo, hi, version,
    ) {
        Ok(Some(_)) => true,
        Ok(None) => !text,
        Err(_) => false,
    };
    let ok = match &c {
        Constraint::Eq(v) => encodes(Bound::Included(v), Bound::Included(v)),
        Constraint::In(vs) => vs
            .iter()
            .all(|v| encodes(Bound::Included(v), Bound::Included(v))),
        Constraint::Range(lo, hi) => encodes(lo.as_ref(), hi.as_ref()),
    };
    if !ok {
        return None;
    }
    Some((col, c, idx))
}

/// How the read side finds the rows of a set of filter conjuncts through
/// one index: the index, its key ranges (together a superset of the
/// matching rows), and the conjuncts the seek answers (to be re-checked
/// exactly).
pub(crate) struct SeekPlan {
    /// Real index number.
    pub index: usize,
    /// The value ranges, as EXPLAIN shows them.
    pub label: String,
    /// Key ranges sorted by lower bound, without duplicates; empty when no
    /// key can match.
    pub ranges: Vec<KeyRange>,
}

/// More values than this in an `IN` list are labelled by their count.
const LISTED_VALUES: usize = 8;

/// The seek the read side would use for `filters` (equality first, then
/// IN, then ranges merged on one column; unique indexes first within
/// each), or `None` when no conjunct maps onto an index.
pub(crate) fn seek_plan(
    table: &Table,
    version: JetVersion,
    pushdown: bool,
    filters: &[Expr],
) -> Result<Option<SeekPlan>> {
    let pushed: Vec<(&Expr, (usize, Constraint, usize))> = filters
        .iter()
        .filter_map(|f| seekable(table, version, pushdown, f).map(|s| (f, s)))
        .collect();
    let rank = |c: &Constraint, idx: usize| {
        let unique = table.def().real_indexes[idx].flags & 0x01 != 0;
        let kind = match c {
            Constraint::Eq(_) => 0,
            Constraint::In(_) => 1,
            Constraint::Range(..) => 2,
        };
        (kind, !unique)
    };
    let Some((_, (col, first, idx))) = pushed
        .iter()
        .min_by_key(|(_, (_, c, i))| rank(c, *i))
        .cloned()
    else {
        return Ok(None);
    };
    let column = &table.def().columns[col];
    let dir = table.def().real_indexes[idx].key[0].1;
    let value_ranges: Vec<(Bound<KeyValue>, Bound<KeyValue>)> = match first {
        Constraint::Eq(v) => vec![(Bound::Included(v.clone()), Bound::Included(v))],
        Constraint::In(vs) => vs
            .into_iter()
            .map(|v| (Bound::Included(v.clone()), Bound::Included(v)))
            .collect(),
        Constraint::Range(lo, hi) => {
            // merge every range on the same column into one
            let (mut lo, mut hi) = (lo, hi);
            for (_, (c2, k, _)) in &pushed {
                if *c2 == col
                    && let Constraint::Range(l2, h2) = k
                {
                    lo = tighter(lo, l2.clone(), true);
                    hi = tighter(hi, h2.clone(), false);
                }
            }
            vec![(lo, hi)]
        }
    };
    let label = if value_ranges.len() > LISTED_VALUES {
        format!("{} in {} values", column.name, value_ranges.len())
    } else {
        format!(
            "{} in {}",
            column.name,
            value_ranges
                .iter()
                .map(|(lo, hi)| describe(lo, hi))
                .collect::<Vec<_>>()
                .join(" ∪ ")
        )
    };
    let mut ranges = Vec::with_capacity(value_ranges.len());
    for (lo, hi) in &value_ranges {
        let bounds = first_column_bounds(column, dir, lo.as_ref(), hi.as_ref(), version)
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        ranges.extend(bounds);
    }
    // key order, so one walk of the leaves visits each range in turn
    ranges.sort_by(|a, b| lower_key_order(&a.0, &b.0));
    ranges.dedup();
    Ok(Some(SeekPlan {
        index: idx,
        label,
        ranges,
    }))
}

/// Orders encoded lower bounds: unbounded first, then by key bytes.
fn lower_key_order(a: &Bound<Vec<u8>>, b: &Bound<Vec<u8>>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Bound::Unbounded, Bound::Unbounded) => Ordering::Equal,
        (Bound::Unbounded, _) => Ordering::Less,
        (_, Bound::Unbounded) => Ordering::Greater,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => {
            x.cmp(y)
        }
    }
}

/// Tightens value bounds: the larger lower bound and the smaller upper bound
/// when comparable, otherwise the first (a wider range is always safe).
fn tighter(a: Bound<KeyValue>, b: Bound<KeyValue>, lower: bool) -> Bound<KeyValue> {
    let v = |x: &Bound<KeyValue>| match x {
        Bound::Included(v) | Bound::Excluded(v) => Some(v.clone()),
        Bound::Unbounded => None,
    };
    let num = |k: &KeyValue| match k {
        KeyValue::Int(i) => Some(*i as f64),
        KeyValue::Float(f) => Some(*f),
        KeyValue::TimestampMicros(m) => Some(*m as f64),
        KeyValue::Decimal { value, scale } => Some(*value as f64 / 10f64.powi(i32::from(*scale))),
        _ => None,
    };
    match (v(&a).as_ref().and_then(num), v(&b).as_ref().and_then(num)) {
        (Some(x), Some(y)) => {
            let pick_b = if lower { y > x } else { y < x };
            if pick_b { b } else { a }
        }
        (None, Some(_)) if matches!(a, Bound::Unbounded) => b,
        _ => a,
    }
}

fn show(v: &KeyValue) -> String {
    match v {
        KeyValue::Null => "NULL".into(),
        KeyValue::Bool(b) => b.to_string(),
        KeyValue::Int(i) => i.to_string(),
        KeyValue::Float(f) => f.to_string(),
        KeyValue::Decimal { value, scale } => {
            datafusion::common::ScalarValue::Decimal128(Some(*value), 38, *scale as i8).to_string()
        }
        KeyValue::TimestampMicros(m) => {
            datafusion::common::ScalarValue::TimestampMicrosecond(Some(*m), None).to_string()
        }
        KeyValue::Bytes(b) => format!(
            "0x{}",
            b.iter().map(|x| format!("{x:02x}")).collect::<String>()
        ),
        KeyValue::Guid(g) => g.clone(),
        KeyValue::Text(t) => format!("{t:?}"),
    }
}

/// A value range in interval notation: `[a, b]`, `(a, +∞)`, `[NULL]`.
fn describe(lo: &Bound<KeyValue>, hi: &Bound<KeyValue>) -> String {
    if let (Bound::Included(a), Bound::Included(b)) = (lo, hi)
        && a == b
    {
        return format!("[{}]", show(a));
    }
    let l = match lo {
        Bound::Included(v) => format!("[{}", show(v)),
        Bound::Excluded(v) => format!("({}", show(v)),
        Bound::Unbounded => "(-∞".into(),
    };
    let h = match hi {
        Bound::Included(v) => format!("{}]", show(v)),
        Bound::Excluded(v) => format!("{})", show(v)),
        Bound::Unbounded => "+∞)".into(),
    };
    format!("{l}, {h}")
}
