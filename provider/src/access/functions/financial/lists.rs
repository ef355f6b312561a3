//! NPV, IRR, MIRR and Array: the financial functions over lists (VBA's
//! `values()` arrays as DataFusion lists).

use super::double;
use super::math::{
    NO_CONVERGENCE, flows_gap, has_both_signs, modified_irr, net_present_value, solve,
};
use crate::access::functions::udf::{canonical, cell};
use crate::access::functions::value::{fn_err, to_f64};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Builder, ListBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::ScalarValue;
use datafusion::error::Result;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use std::sync::Arc;

// ---------------------------------------------------------------------
// NPV, IRR, MIRR and Array: functions over lists
// ---------------------------------------------------------------------

/// NPV, IRR, MIRR and Array as DataFusion functions (Access's `Value`
/// has no array, so these four are UDFs of their own).
pub fn list_functions() -> Vec<Arc<ScalarUDF>> {
    let mut out: Vec<Arc<ScalarUDF>> = [Flows::Npv, Flows::Irr, Flows::Mirr]
        .into_iter()
        .map(|kind| Arc::new(ScalarUDF::new_from_impl(CashFlows::new(kind))))
        .collect();
    out.push(Arc::new(ScalarUDF::new_from_impl(ArrayOf::new())));
    out
}

/// Which cash-flow function a [`CashFlows`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Flows {
    /// `NPV(rate, values())`.
    Npv,
    /// `IRR(values()[, guess])`.
    Irr,
    /// `MIRR(values(), finance_rate, reinvest_rate)`.
    Mirr,
}

impl Flows {
    fn title(self) -> &'static str {
        match self {
            Flows::Npv => "NPV",
            Flows::Irr => "IRR",
            Flows::Mirr => "MIRR",
        }
    }

    /// The position of the `values()` argument.
    fn values_at(self) -> usize {
        match self {
            Flows::Npv => 1,
            Flows::Irr | Flows::Mirr => 0,
        }
    }

    /// Fewest and most arguments.
    fn arity(self) -> (usize, usize) {
        match self {
            Flows::Npv => (2, 2),
            Flows::Irr => (1, 2),
            Flows::Mirr => (3, 3),
        }
    }

    /// One row's result from its amounts and its other arguments (in
    /// order, the values argument left out).
    pub(super) fn eval(self, values: &[f64], nums: &[f64]) -> Result<f64> {
        let name = self.title();
        let err = |msg: &str| fn_err(name, msg);
        // the other arguments, in order (their count is checked in planning)
        let arg = |i: usize| nums.get(i).copied();
        let both = "argument Values must hold at least one negative amount (a payment) \
                    and one positive amount (a receipt)";
        match self {
            Flows::Npv => {
                let rate = arg(0).unwrap_or(0.0);
                if values.is_empty() {
                    return Err(err("argument Values must hold at least one amount"));
                }
                if rate == -1.0 {
                    return Err(err("argument Rate must not be -1"));
                }
                double(name, net_present_value(rate, values))
            }
            Flows::Irr => {
                let guess = arg(0).unwrap_or(0.1);
                if !has_both_signs(values) {
                    return Err(err(both));
                }
                if guess <= -1.0 || guess.is_nan() {
                    return Err(err("argument Guess must be greater than -1"));
                }
                solve(|r| flows_gap(r, values), guess).ok_or_else(|| err(NO_CONVERGENCE))
            }
            Flows::Mirr => {
                let (finance, reinvest) = (arg(0).unwrap_or(0.0), arg(1).unwrap_or(0.0));
                if !has_both_signs(values) {
                    return Err(err(both));
                }
                if finance == -1.0 {
                    return Err(err("argument Finance_rate must not be -1"));
                }
                if reinvest == -1.0 {
                    return Err(err("argument Reinvest_rate must not be -1"));
                }
                double(name, modified_irr(values, finance, reinvest))
            }
        }
    }
}

/// NPV, IRR or MIRR as a DataFusion function: the `values()` argument a
/// list of numbers (List, LargeList or FixedSizeList of integers,
/// floating-point numbers or decimals, read as Doubles), the others
/// numbers as Access converts them; the result a Double, Null when an
/// argument, or an amount in the list, is Null.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CashFlows {
    kind: Flows,
    name: String,
    signature: Signature,
}

impl CashFlows {
    fn new(kind: Flows) -> Self {
        CashFlows {
            kind,
            name: kind.title().to_ascii_lowercase(),
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

/// The type a `values()` argument is read as: a list of numbers as a
/// List of Doubles, Null as Null; `None` for anything else.
fn values_type(dt: &DataType) -> Option<DataType> {
    match dt {
        DataType::Null => Some(DataType::Null),
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _)
            if f.data_type().is_numeric() || f.data_type() == &DataType::Null =>
        {
            Some(DataType::new_list(DataType::Float64, true))
        }
        _ => None,
    }
}

/// The argument count check every list function makes, worded as
/// [`AccessScalar`](crate::access::functions::udf::AccessScalar)'s.
fn check_arity(title: &str, n: usize, (min, max): (usize, usize)) -> Result<()> {
    if (min..=max).contains(&n) {
        return Ok(());
    }
    let want = if min == max {
        format!("{min}")
    } else {
        format!("{min} to {max}")
    };
    Err(fn_err(title, format!("takes {want} arguments, {n} given")))
}

/// An argument as an array of the type `to` reads it as (cast when it is
/// another), and whether it is one value for every row.
pub(super) fn argument(
    title: &str,
    a: &ColumnarValue,
    to: fn(&DataType) -> Option<DataType>,
) -> Result<(ArrayRef, bool)> {
    let arr = match a {
        ColumnarValue::Scalar(s) => s.to_array_of_size(1)?,
        ColumnarValue::Array(a) => Arc::clone(a),
    };
    let want = to(arr.data_type()).ok_or_else(|| {
        fn_err(
            title,
            format!("unsupported argument type {}", arr.data_type()),
        )
    })?;
    let arr = if arr.data_type() == &want {
        arr
    } else {
        cast(&arr, &want)?
    };
    Ok((arr, matches!(a, ColumnarValue::Scalar(_))))
}

/// Row `r` of a values argument (a List of Doubles, or Null) as amounts;
/// `None` when the list or an amount in it is Null.
fn amounts(arr: &dyn Array, r: usize) -> Option<Vec<f64>> {
    if arr.data_type() == &DataType::Null || arr.is_null(r) {
        return None;
    }
    let items = arr.as_list::<i32>().value(r);
    let items = items.as_primitive::<Float64Type>();
    if items.null_count() > 0 {
        return None;
    }
    Some(items.values().to_vec())
}

/// A function's output: one value when every argument was one value.
fn output(arr: ArrayRef, scalar: bool) -> Result<ColumnarValue> {
    if scalar {
        Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&arr, 0)?))
    } else {
        Ok(ColumnarValue::Array(arr))
    }
}

impl ScalarUDFImpl for CashFlows {
    fn name(&self) -> &str {
        &self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let title = self.kind.title();
        check_arity(title, arg_types.len(), self.kind.arity())?;
        arg_types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if i == self.kind.values_at() {
                    values_type(t).ok_or_else(|| {
                        fn_err(
                            title,
                            format!(
                                "argument {} (Values) must be a list of numbers, such as \
                                 Array(-1000, 300, 400) or array_agg(amount ORDER BY period), \
                                 not {t}",
                                i + 1
                            ),
                        )
                    })
                } else {
                    canonical(t).ok_or_else(|| {
                        fn_err(
                            title,
                            format!("argument {} has type {t}, which has no Access value", i + 1),
                        )
                    })
                }
            })
            .collect()
    }
    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let title = self.kind.title();
        let at = self.kind.values_at();
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = if scalar { 1 } else { args.number_rows };
        let cols = args
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let to: fn(&DataType) -> Option<DataType> =
                    if i == at { values_type } else { canonical };
                argument(title, a, to)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut out = Float64Builder::with_capacity(rows);
        let mut nums = Vec::with_capacity(cols.len());
        'rows: for r in 0..rows {
            nums.clear();
            let mut values = None;
            for (i, (arr, one)) in cols.iter().enumerate() {
                let row = if *one { 0 } else { r };
                if i == at {
                    values = amounts(arr.as_ref(), row);
                    if values.is_none() {
                        out.append_null();
                        continue 'rows;
                    }
                } else {
                    match to_f64(title, &cell(arr.as_ref(), row))? {
                        Some(x) => nums.push(x),
                        None => {
                            out.append_null();
                            continue 'rows;
                        }
                    }
                }
            }
            let values = values.unwrap_or_default();
            out.append_value(self.kind.eval(&values, &nums)?);
        }
        output(Arc::new(out.finish()), scalar)
    }
}

/// VBA's `Array(arglist)`: its arguments as a list of Doubles (each
/// converted by CDbl's rules; a Null stays a Null item), the `values()`
/// NPV, IRR and MIRR take. `Array()` is the empty list.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArrayOf {
    signature: Signature,
}

impl ArrayOf {
    fn new() -> Self {
        ArrayOf {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for ArrayOf {
    fn name(&self) -> &str {
        "array"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        arg_types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                canonical(t).ok_or_else(|| {
                    fn_err(
                        "Array",
                        format!("argument {} has type {t}, which has no Access value", i + 1),
                    )
                })
            })
            .collect()
    }
    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::new_list(DataType::Float64, true))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = if scalar { 1 } else { args.number_rows };
        let cols = args
            .args
            .iter()
            .map(|a| argument("Array", a, canonical))
            .collect::<Result<Vec<_>>>()?;
        let items = Float64Builder::with_capacity(rows * cols.len());
        let mut out = ListBuilder::with_capacity(items, rows);
        for r in 0..rows {
            for (arr, one) in &cols {
                let v = cell(arr.as_ref(), if *one { 0 } else { r });
                out.values().append_option(to_f64("Array", &v)?);
            }
            out.append(true);
        }
        output(Arc::new(out.finish()), scalar)
    }
}
