//! Size-checked aggregates: `string_agg` and `array_agg` build one value
//! from every row of a group, and DataFusion charges their growth to the
//! memory pool only after a whole batch went in (a batch of 8,192 rows of
//! 1 MB each grows the value by 8 GB before any check). Wrapped by
//! [`size_checked_aggregate`], each accumulator first bounds what the
//! batch adds: its state and the batch's bytes, twice (the result is a
//! copy of the state: the accumulated text is cloned, the lists are
//! concatenated), must stay within the memory limit and within what the
//! process may still use ([`super::strings::check_need`]); else the
//! statement fails with "resources exhausted" before the value grows.

use super::strings::{array_bytes, check_need};
use datafusion::arrow::array::{Array, ArrayRef, BooleanArray};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::ScalarValue;
use datafusion::error::Result;
use datafusion::logical_expr::expr::{
    AggregateFunction, AggregateFunctionParams, WindowFunctionParams,
};
use datafusion::logical_expr::function::{
    AccumulatorArgs, AggregateFunctionSimplification, StateFieldsArgs,
};
use datafusion::logical_expr::utils::AggregateOrderSensitivity;
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Documentation, EmitTo, Expr, GroupsAccumulator,
    Operator, ReversedUDAF, SetMonotonicity, Signature, StatisticsArgs,
};
use std::sync::Arc;

/// The aggregates [`size_checked_aggregate`] wraps (by name, ignoring case).
pub const CHECKED_AGGREGATES: &[&str] = &["string_agg", "array_agg"];

/// What the check says the memory is for.
const PURPOSE: &str = " for its value (held twice while its result is made)";

/// Bytes the arrays of a batch hold: the values of strings and binaries,
/// the memory of the slice for other types.
fn batch_bytes(values: &[ArrayRef]) -> u128 {
    values
        .iter()
        .map(|a| {
            array_bytes(a.as_ref()).unwrap_or_else(|| {
                let slice = a.to_data().get_slice_memory_size();
                slice.unwrap_or_else(|_| a.get_array_memory_size()) as u128
            })
        })
        .sum()
}

/// An aggregate of [`CHECKED_AGGREGATES`] whose accumulators refuse to
/// grow past the memory limit.
#[derive(Debug, PartialEq, Eq, Hash)]
struct SizeCheckedAggregate {
    inner: AggregateUDF,
    limit: u64,
}

/// `inner` (one of [`CHECKED_AGGREGATES`], by name ignoring case) wrapped
/// so that its accumulators check each batch against `limit` bytes before
/// taking it in; other aggregates (and one already wrapped) come back
/// unchanged.
pub fn size_checked_aggregate(inner: Arc<AggregateUDF>, limit: u64) -> Arc<AggregateUDF> {
    let name = inner.name().to_ascii_lowercase();
    if !CHECKED_AGGREGATES.contains(&name.as_str()) || inner.inner().is::<SizeCheckedAggregate>() {
        return inner;
    }
    Arc::new(AggregateUDF::new_from_impl(SizeCheckedAggregate {
        inner: inner.as_ref().clone(),
        limit,
    }))
}

impl SizeCheckedAggregate {
    /// `acc` checked against this aggregate's limit.
    fn checked(&self, acc: Box<dyn Accumulator>) -> Box<dyn Accumulator> {
        Box::new(CheckedAccumulator {
            inner: acc,
            name: self.inner.name().to_string(),
            limit: self.limit,
            taken: 0,
        })
    }
}

impl AggregateUDFImpl for SizeCheckedAggregate {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }
    fn schema_name(&self, params: &AggregateFunctionParams) -> Result<String> {
        self.inner.inner().schema_name(params)
    }
    fn human_display(&self, params: &AggregateFunctionParams) -> Result<String> {
        self.inner.inner().human_display(params)
    }
    fn window_function_schema_name(&self, params: &WindowFunctionParams) -> Result<String> {
        self.inner.inner().window_function_schema_name(params)
    }
    fn display_name(&self, params: &AggregateFunctionParams) -> Result<String> {
        self.inner.inner().display_name(params)
    }
    fn window_function_display_name(&self, params: &WindowFunctionParams) -> Result<String> {
        self.inner.inner().window_function_display_name(params)
    }
    fn signature(&self) -> &Signature {
        self.inner.inner().signature()
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.inner().return_type(arg_types)
    }
    fn return_field(&self, arg_fields: &[FieldRef]) -> Result<FieldRef> {
        self.inner.inner().return_field(arg_fields)
    }
    fn is_nullable(&self) -> bool {
        self.inner.inner().is_nullable()
    }
    fn accumulator(&self, acc_args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(self.checked(self.inner.inner().accumulator(acc_args)?))
    }
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        self.inner.inner().state_fields(args)
    }
    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        self.inner.inner().groups_accumulator_supported(args)
    }
    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(CheckedGroups {
            inner: self.inner.inner().create_groups_accumulator(args)?,
            name: self.inner.name().to_string(),
            limit: self.limit,
            taken: 0,
        }))
    }
    fn create_sliding_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(self.checked(self.inner.inner().create_sliding_accumulator(args)?))
    }
    fn with_beneficial_ordering(
        self: Arc<Self>,
        beneficial_ordering: bool,
    ) -> Result<Option<Arc<dyn AggregateUDFImpl>>> {
        let inner = Arc::clone(self.inner.inner()).with_beneficial_ordering(beneficial_ordering)?;
        Ok(inner.map(|i| {
            Arc::new(SizeCheckedAggregate {
                inner: AggregateUDF::new_from_shared_impl(i),
                limit: self.limit,
            }) as Arc<dyn AggregateUDFImpl>
        }))
    }
    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        self.inner.inner().order_sensitivity()
    }
    fn simplify(&self) -> Option<AggregateFunctionSimplification> {
        self.inner.inner().simplify()
    }
    fn simplify_expr_op_literal(
        &self,
        agg_function: &AggregateFunction,
        arg: &Expr,
        op: Operator,
        lit: &Expr,
        arg_is_left: bool,
    ) -> Result<Option<Expr>> {
        self.inner
            .inner()
            .simplify_expr_op_literal(agg_function, arg, op, lit, arg_is_left)
    }
    fn reverse_expr(&self) -> ReversedUDAF {
        match self.inner.inner().reverse_expr() {
            ReversedUDAF::Reversed(f) => {
                ReversedUDAF::Reversed(size_checked_aggregate(f, self.limit))
            }
            other => other,
        }
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        self.inner.inner().coerce_types(arg_types)
    }
    fn is_descending(&self) -> Option<bool> {
        self.inner.inner().is_descending()
    }
    fn value_from_stats(&self, statistics_args: &StatisticsArgs) -> Option<ScalarValue> {
        self.inner.inner().value_from_stats(statistics_args)
    }
    fn default_value(&self, data_type: &DataType) -> Result<ScalarValue> {
        self.inner.inner().default_value(data_type)
    }
    fn supports_null_handling_clause(&self) -> bool {
        self.inner.inner().supports_null_handling_clause()
    }
    fn supports_within_group_clause(&self) -> bool {
        self.inner.inner().supports_within_group_clause()
    }
    fn documentation(&self) -> Option<&Documentation> {
        self.inner.inner().documentation()
    }
    fn set_monotonicity(&self, data_type: &DataType) -> SetMonotonicity {
        self.inner.inner().set_monotonicity(data_type)
    }
}

/// Admits `arrays` into an accumulator of aggregate `name` whose own
/// estimate is `size` bytes and which has taken `taken` bytes so far:
/// refuses them when twice what it holds plus their bytes passes `limit`,
/// else counts them in `taken`. What it holds is the larger of its estimate
/// and what it was given (DataFusion's `array_agg` counts a string view
/// array by its 16-byte views and not the text they point at, so 10,000
/// values of 1 KB looked like 160 KB).
fn admit(name: &str, limit: u64, size: usize, taken: &mut u128, arrays: &[ArrayRef]) -> Result<()> {
    let incoming = batch_bytes(arrays);
    let need = ((size as u128).max(*taken) + incoming).saturating_mul(2);
    check_need(format_args!("{name}()"), PURPOSE, need, limit)?;
    *taken = taken.saturating_add(incoming);
    Ok(())
}

/// An accumulator that checks each batch before its inner one takes it.
#[derive(Debug)]
struct CheckedAccumulator {
    inner: Box<dyn Accumulator>,
    name: String,
    limit: u64,
    /// Bytes of the batches taken in (less those retracted).
    taken: u128,
}

impl Accumulator for CheckedAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        admit(
            &self.name,
            self.limit,
            self.inner.size(),
            &mut self.taken,
            values,
        )?;
        self.inner.update_batch(values)
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        self.inner.evaluate()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        self.inner.state()
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        admit(
            &self.name,
            self.limit,
            self.inner.size(),
            &mut self.taken,
            states,
        )?;
        self.inner.merge_batch(states)
    }
    fn retract_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.taken = self.taken.saturating_sub(batch_bytes(values));
        self.inner.retract_batch(values)
    }
    fn supports_retract_batch(&self) -> bool {
        self.inner.supports_retract_batch()
    }
}

/// A groups accumulator that checks each batch before its inner one
/// takes it.
struct CheckedGroups {
    inner: Box<dyn GroupsAccumulator>,
    name: String,
    limit: u64,
    /// Bytes of the batches taken in since the last emission.
    taken: u128,
}

impl CheckedGroups {
    /// After groups were emitted, what is held is what the inner
    /// accumulator says (the bytes taken in went out with them, all or in
    /// part).
    fn emitted(&mut self) {
        self.taken = self.inner.size() as u128;
    }
}

impl GroupsAccumulator for CheckedGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        admit(
            &self.name,
            self.limit,
            self.inner.size(),
            &mut self.taken,
            values,
        )?;
        self.inner
            .update_batch(values, group_indices, opt_filter, total_num_groups)
    }
    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let out = self.inner.evaluate(emit_to);
        self.emitted();
        out
    }
    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let out = self.inner.state(emit_to);
        self.emitted();
        out
    }
    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        admit(
            &self.name,
            self.limit,
            self.inner.size(),
            &mut self.taken,
            values,
        )?;
        self.inner
            .merge_batch(values, group_indices, total_num_groups)
    }
    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        self.inner.convert_to_state(values, opt_filter)
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
}
