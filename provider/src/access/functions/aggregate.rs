//! Access's own aggregates: First, Last (the value of the first / last
//! row the aggregate sees, Null included), StDev and Var (sample, Null
//! for fewer than two values), StDevP and VarP (population, Null for no
//! values). Nulls are skipped by the statistical aggregates. Count, Sum,
//! Avg, Min and Max stay DataFusion's.
//!
//! First and Last depend on the order rows reach the aggregate: the scan
//! order of a single partition, as in Access where they follow the
//! table's record order; across partitions the order is not defined.

use super::udf::{canonical, cell, variant_type};
use super::value::{Value, fn_err, to_f64};
use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type, UInt64Type};
use datafusion::common::ScalarValue;
use datafusion::error::Result;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};
use std::sync::Arc;

/// Which end First/Last keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum End {
    First,
    Last,
}

/// `First(expr)` / `Last(expr)`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct FirstLast {
    name: &'static str,
    end: End,
    signature: Signature,
}

impl FirstLast {
    /// `First`.
    pub fn first() -> Self {
        FirstLast {
            name: "first",
            end: End::First,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
    /// `Last`.
    pub fn last() -> Self {
        FirstLast {
            name: "last",
            end: End::Last,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

fn one_arg(func: &str, types: &[DataType]) -> Result<Vec<DataType>> {
    if types.len() != 1 {
        return Err(fn_err(
            func,
            format!("takes 1 argument, {} given", types.len()),
        ));
    }
    Ok(types.to_vec())
}

impl AggregateUDFImpl for FirstLast {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        one_arg(self.name, arg_types)
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types[0].clone())
    }
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![
            Arc::new(Field::new(
                format!("{}_value", args.name),
                args.return_type().clone(),
                true,
            )),
            Arc::new(Field::new(
                format!("{}_seen", args.name),
                DataType::Boolean,
                true,
            )),
        ])
    }
    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let ty = args.return_field.data_type().clone();
        Ok(Box::new(FirstLastAcc {
            end: self.end,
            value: ScalarValue::try_from(&ty)?,
            seen: false,
        }))
    }
}

#[derive(Debug)]
struct FirstLastAcc {
    end: End,
    value: ScalarValue,
    seen: bool,
}

impl FirstLastAcc {
    fn take(&mut self, arr: &dyn Array, seen: Option<&dyn Array>) -> Result<()> {
        let rows: Vec<usize> = (0..arr.len())
            .filter(|&r| seen.is_none_or(|s| s.as_boolean().value(r)))
            .collect();
        let pick = match self.end {
            End::First if self.seen => None,
            End::First => rows.first().copied(),
            End::Last => rows.last().copied(),
        };
        if let Some(r) = pick {
            self.value = ScalarValue::try_from_array(arr, r)?;
            self.seen = true;
        }
        Ok(())
    }
}

impl Accumulator for FirstLastAcc {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.take(values[0].as_ref(), None)
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.take(states[0].as_ref(), Some(states[1].as_ref()))
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![
            self.value.clone(),
            ScalarValue::Boolean(Some(self.seen)),
        ])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(self.value.clone())
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.value.size()
    }
}

/// Which statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Stat {
    StDev,
    StDevP,
    Var,
    VarP,
}

/// `StDev`, `StDevP`, `Var`, `VarP` over Double values.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Spread {
    name: &'static str,
    title: &'static str,
    stat: Stat,
    signature: Signature,
}

impl Spread {
    fn new(title: &'static str, name: &'static str, stat: Stat) -> Self {
        Spread {
            name,
            title,
            stat,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
    /// The four spread aggregates.
    pub fn all() -> Vec<Spread> {
        vec![
            Spread::new("StDev", "stdev", Stat::StDev),
            Spread::new("StDevP", "stdevp", Stat::StDevP),
            Spread::new("Var", "var", Stat::Var),
            Spread::new("VarP", "varp", Stat::VarP),
        ]
    }
}

impl AggregateUDFImpl for Spread {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        one_arg(self.title, arg_types)?
            .iter()
            .map(|t| {
                canonical(t).map(|c| variant_type(&c)).ok_or_else(|| {
                    fn_err(
                        self.title,
                        format!("argument has type {t}, which is not a number"),
                    )
                })
            })
            .collect()
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![
            Arc::new(Field::new(
                format!("{}_count", args.name),
                DataType::UInt64,
                true,
            )),
            Arc::new(Field::new(
                format!("{}_mean", args.name),
                DataType::Float64,
                true,
            )),
            Arc::new(Field::new(
                format!("{}_m2", args.name),
                DataType::Float64,
                true,
            )),
        ])
    }
    fn accumulator(&self, _: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(SpreadAcc {
            title: self.title,
            stat: self.stat,
            n: 0,
            mean: 0.0,
            m2: 0.0,
        }))
    }
}

/// Welford's running mean and sum of squared deviations.
#[derive(Debug)]
struct SpreadAcc {
    title: &'static str,
    stat: Stat,
    n: u64,
    mean: f64,
    m2: f64,
}

impl SpreadAcc {
    fn combine(&mut self, n: u64, mean: f64, m2: f64) {
        if n == 0 {
            return;
        }
        let total = self.n + n;
        let delta = mean - self.mean;
        self.mean += delta * n as f64 / total as f64;
        self.m2 += m2 + delta * delta * self.n as f64 * n as f64 / total as f64;
        self.n = total;
    }
}

impl Accumulator for SpreadAcc {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let arr = &values[0];
        let to = canonical(arr.data_type()).unwrap_or(DataType::Float64);
        let arr = if *arr.data_type() == to {
            Arc::clone(arr)
        } else {
            cast(arr, &to)?
        };
        for r in 0..arr.len() {
            let v = cell(arr.as_ref(), r);
            if let Value::Null = v {
                continue;
            }
            if let Some(x) = to_f64(self.title, &v)? {
                self.combine(1, x, 0.0);
            }
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let n = states[0].as_primitive::<UInt64Type>();
        let mean = states[1].as_primitive::<Float64Type>();
        let m2 = states[2].as_primitive::<Float64Type>();
        for r in 0..n.len() {
            if n.is_valid(r) {
                self.combine(n.value(r), mean.value(r), m2.value(r));
            }
        }
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![
            ScalarValue::UInt64(Some(self.n)),
            ScalarValue::Float64(Some(self.mean)),
            ScalarValue::Float64(Some(self.m2)),
        ])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        let sample = matches!(self.stat, Stat::StDev | Stat::Var);
        let need = if sample { 2 } else { 1 };
        if self.n < need {
            return Ok(ScalarValue::Float64(None));
        }
        let var = self.m2 / (if sample { self.n - 1 } else { self.n }) as f64;
        let var = var.max(0.0);
        Ok(ScalarValue::Float64(Some(match self.stat {
            Stat::StDev | Stat::StDevP => var.sqrt(),
            Stat::Var | Stat::VarP => var,
        })))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}
