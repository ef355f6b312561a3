//! Access's operators, planned with the operands' types known (a
//! DataFusion `ExprPlanner`, installed only in the state that plans
//! Access-dialect statements):
//!
//! - `a & b` concatenates as text; NULL & 'x' is 'x' (only NULL & NULL is
//!   NULL).
//! - `a ^ b` is exponentiation; `a Mod b` and `a \ b` round their operands
//!   to integers first (banker's rounding), as Access does.
//! - `+` of two texts concatenates (NULL propagates, as Access's `+`).
//! - Date − Date is a Double number of days; Date ± number adds days.
//! - Text comparisons (`=`, `<>`, `<`, …) ignore ASCII case and trailing
//!   spaces, as Access's do (see [`TextFold`]).
//! - Yes/No in arithmetic is −1 or 0 (True is −1 in Access).
//! - `Xor`, `Eqv` and `Imp` of Yes/No follow Access's three-valued
//!   tables; `And`, `Or`, `Xor`, `Eqv` and `Imp` of whole numbers compare
//!   bits (`5 And 3` is 1; True is −1).
//! - A text and a number add and subtract as numbers (`"25" + 12` is 37).
//! - `a / b` divides as Access does (see `AccessPlanner::divide`): a
//!   Double quotient (`7/2` is 3.5, not DataFusion's integer 3), Single
//!   for two Byte/Integer/Single operands, Decimal for a Decimal operand;
//!   a zero divisor is an error.

use datafusion::arrow::array::{ArrayRef, StringArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DFSchema, ScalarValue, cast::as_string_array};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::{
    BinaryExpr, Cast, ColumnarValue, Expr, ExprSchemable, Operator, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature, TypeSignature, Volatility,
};
use datafusion::sql::sqlparser::ast::BinaryOperator;
use std::collections::HashMap;
use std::sync::Arc;

/// Name of [`TextFold`] in plans.
pub const TEXT_FOLD: &str = "access_text_fold";

/// The comparison key of Access text: ASCII letters lower-cased, trailing
/// spaces removed. Jet's text index keys ignore case and trailing spaces
/// too, so an equality on the folded column still seeks its index (the
/// seek reads a superset and the plan re-checks). Letters beyond ASCII
/// keep their case: that keeps every folded-equal pair key-equal, so a
/// seek can never miss a row the comparison accepts.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TextFold {
    signature: Signature,
}

impl Default for TextFold {
    fn default() -> Self {
        TextFold {
            signature: Signature::one_of(
                vec![
                    TypeSignature::Exact(vec![DataType::Utf8]),
                    TypeSignature::Exact(vec![DataType::LargeUtf8]),
                    TypeSignature::Exact(vec![DataType::Utf8View]),
                ],
                Volatility::Immutable,
            ),
        }
    }
}

/// Folds one value (see [`TextFold`]).
pub fn fold(s: &str) -> String {
    s.trim_end_matches(' ').to_ascii_lowercase()
}

impl ScalarUDFImpl for TextFold {
    fn name(&self) -> &str {
        TEXT_FOLD
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [arg] = args.args.as_slice() else {
            return Err(DataFusionError::Execution(format!(
                "{TEXT_FOLD} takes one argument"
            )));
        };
        match arg {
            ColumnarValue::Scalar(s) => {
                let v = match s {
                    ScalarValue::Utf8(v) | ScalarValue::LargeUtf8(v) | ScalarValue::Utf8View(v) => {
                        v.as_deref().map(fold)
                    }
                    _ => None,
                };
                Ok(ColumnarValue::Scalar(ScalarValue::Utf8(v)))
            }
            ColumnarValue::Array(a) => {
                let a = datafusion::arrow::compute::cast(a, &DataType::Utf8)?;
                let strings = as_string_array(&a)?;
                let out: StringArray = strings.iter().map(|v| v.map(fold)).collect();
                Ok(ColumnarValue::Array(Arc::new(out) as ArrayRef))
            }
        }
    }
}

/// The Access operator planner.
#[derive(Debug)]
pub struct AccessPlanner {
    fold: Arc<ScalarUDF>,
    /// The Access function library by name (access_concat, access_mod, …).
    functions: HashMap<String, Arc<ScalarUDF>>,
}

impl AccessPlanner {
    /// A planner calling `functions` for the operators Access defines.
    pub fn new(fold: Arc<ScalarUDF>, functions: &[Arc<ScalarUDF>]) -> Self {
        AccessPlanner {
            fold,
            functions: functions
                .iter()
                .map(|f| (f.name().to_string(), f.clone()))
                .collect(),
        }
    }

    fn call(&self, name: &str, args: Vec<Expr>) -> Result<Expr> {
        let f = self.functions.get(name).ok_or_else(|| {
            DataFusionError::Plan(format!(
                "this operator needs the Access function {name}, which is not available"
            ))
        })?;
        Ok(Expr::ScalarFunction(ScalarFunction::new_udf(
            f.clone(),
            args,
        )))
    }

    /// `a & b`: the Access library's concatenation (Access's text forms
    /// of numbers and dates) when present, else DataFusion's `concat`,
    /// which also reads NULL as empty; only NULL & NULL is NULL.
    fn concat(&self, left: Expr, right: Expr) -> Result<Expr> {
        if let Some(f) = self.functions.get("access_concat") {
            // `a & b & c` is one call of all three operands, not nested
            // calls: DataFusion names a nested call by writing out every
            // level, which costs the square of the chain's length
            let mut args = Vec::new();
            for side in [left, right] {
                match side {
                    Expr::ScalarFunction(sf)
                        if sf.func.name() == f.name()
                            && args.len() + sf.args.len()
                                < super::functions::operators::CONCAT_MAX_OPERANDS =>
                    {
                        args.extend(sf.args)
                    }
                    other => args.push(other),
                }
            }
            return Ok(Expr::ScalarFunction(ScalarFunction::new_udf(
                f.clone(),
                args,
            )));
        }
        let both_null =
            Expr::IsNull(Box::new(left.clone())).and(Expr::IsNull(Box::new(right.clone())));
        let joined = Expr::ScalarFunction(ScalarFunction::new_udf(
            datafusion::functions::string::concat(),
            vec![left, right],
        ));
        Ok(Expr::Case(datafusion::logical_expr::expr::Case::new(
            None,
            vec![(
                Box::new(both_null),
                Box::new(Expr::Literal(ScalarValue::Utf8(None), None)),
            )],
            Some(Box::new(joined)),
        )))
    }

    fn folded(&self, e: Expr) -> Expr {
        Expr::ScalarFunction(ScalarFunction::new_udf(self.fold.clone(), vec![e]))
    }

    /// `a / b` as Microsoft's "/ operator" page
    /// (<https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator>)
    /// has it: Null when either operand is Null; Decimal when either is a
    /// Decimal ([`is_access_decimal`]); Single when both are Byte,
    /// Integer or Single; otherwise Double (a literal with a decimal point
    /// is a Double in Access, a Currency divides as Double); a zero
    /// divisor is an error. A non-zero constant divisor divides with
    /// DataFusion's own operator on Doubles (the same IEEE quotient,
    /// vectorized, folded when both sides are constants); any other goes
    /// through `access_div`, which refuses a zero divisor.
    fn divide(&self, left: Expr, lt: &DataType, right: Expr, rt: &DataType) -> Result<Expr> {
        let (left, lt) = number_operand(left, lt);
        let (right, rt) = number_operand(right, rt);
        if is_access_decimal(&left, &lt) || is_access_decimal(&right, &rt) {
            return self.call("access_div", vec![left, right]);
        }
        if is_single_operand(&lt) && is_single_operand(&rt) {
            return self.call(
                "access_div",
                vec![
                    cast_to(left, &lt, DataType::Float32),
                    cast_to(right, &rt, DataType::Float32),
                ],
            );
        }
        // text stays text: access_div reads it as a number, as Access does
        let double = |e: Expr, t: &DataType| {
            if is_text(t) {
                e
            } else {
                cast_to(e, t, DataType::Float64)
            }
        };
        let constant_divisor = is_nonzero_constant(&right) && !is_text(&lt);
        let (l, r) = (double(left, &lt), double(right, &rt));
        if constant_divisor {
            return Ok(binary(l, Operator::Divide, r));
        }
        self.call("access_div", vec![l, r])
    }
}

fn is_text(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

fn is_date(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Timestamp(..) | DataType::Date32 | DataType::Date64
    )
}

/// Yes/No as Access's number: −1 for True, 0 for False, NULL stays NULL.
fn yes_no_number(e: Expr) -> Expr {
    Expr::Negative(Box::new(Expr::Cast(Cast::new(
        Box::new(e),
        DataType::Int32,
    ))))
}

/// Access's logical operators that also compare bits: `And`, `Or`,
/// `Xor`, `Eqv`, `Imp`.
fn is_logic_op(op: &BinaryOperator) -> bool {
    match op {
        BinaryOperator::And | BinaryOperator::Or | BinaryOperator::Xor => true,
        BinaryOperator::Custom(c) => c == super::dialect::EQV || c == super::dialect::IMP,
        _ => false,
    }
}

/// Yes/No or Null: an operand of the three-valued tables.
fn is_yes_no(t: &DataType) -> bool {
    matches!(t, DataType::Boolean | DataType::Null)
}

/// Operands the logical operators compare bit by bit: a whole number,
/// with a whole number, Yes/No (True is −1) or Null.
fn bitwise_operands(lt: &DataType, rt: &DataType) -> bool {
    (lt.is_integer() || rt.is_integer())
        && (lt.is_integer() || is_yes_no(lt))
        && (rt.is_integer() || is_yes_no(rt))
}

/// `a And b`, `Or`, `Xor`, `Eqv`, `Imp` of whole numbers, bit by bit
/// (Microsoft's pages of each operator, e.g.
/// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/imp-operator>:
/// `Eqv` is the complement of `Xor`, `Imp` is `(Not a) Or b`), with
/// DataFusion's vectorized bitwise operators.
fn bitwise(op: &BinaryOperator, left: Expr, lt: &DataType, right: Expr, rt: &DataType) -> Expr {
    let (l, _) = number_operand(left, lt);
    let (r, _) = number_operand(right, rt);
    let not = |e: Expr| {
        binary(
            e,
            Operator::BitwiseXor,
            Expr::Literal(ScalarValue::Int64(Some(-1)), None),
        )
    };
    match op {
        BinaryOperator::And => binary(l, Operator::BitwiseAnd, r),
        BinaryOperator::Or => binary(l, Operator::BitwiseOr, r),
        BinaryOperator::Custom(c) if c == super::dialect::EQV => {
            not(binary(l, Operator::BitwiseXor, r))
        }
        BinaryOperator::Custom(c) if c == super::dialect::IMP => {
            binary(not(l), Operator::BitwiseOr, r)
        }
        _ => binary(l, Operator::BitwiseXor, r),
    }
}

/// The operands `/` divides as Access does: numbers, Yes/No, text (a
/// number spelt out) and Null; dates and the rest keep DataFusion's
/// meaning.
fn divisible(t: &DataType) -> bool {
    t.is_numeric() || is_text(t) || matches!(t, DataType::Null | DataType::Boolean)
}

/// An operand of arithmetic with Yes/No read as Access's number.
fn number_operand(e: Expr, t: &DataType) -> (Expr, DataType) {
    if *t == DataType::Boolean {
        (yes_no_number(e), DataType::Int32)
    } else {
        (e, t.clone())
    }
}

/// Byte, Integer and Single: two of them divide as Single.
fn is_single_operand(t: &DataType) -> bool {
    matches!(t, DataType::UInt8 | DataType::Int16 | DataType::Float32)
}

/// Whether `e` (of type `t`) is an Access Decimal: a Numeric column (Jet's
/// Decimal, Arrow Decimal128 of at most 28 digits) or a `CDec` call.
/// Currency columns are Decimal128(19, 4) too, and nothing else tells
/// them apart, so that type is taken for Currency (a Numeric(19, 4)
/// column divides as Double); decimal literals (Doubles in Access) and
/// the decimals DataFusion computes from Currency (sums, products) are
/// not Decimals either.
fn is_access_decimal(e: &Expr, t: &DataType) -> bool {
    let DataType::Decimal128(p, s) = t else {
        return false;
    };
    match e {
        Expr::Column(_) => *p <= 28 && (*p, *s) != (19, 4),
        Expr::ScalarFunction(f) => f.func.name() == "cdec",
        _ => false,
    }
}

/// A numeric constant other than zero (a divisor that cannot fail).
fn is_nonzero_constant(e: &Expr) -> bool {
    match e {
        Expr::Literal(v, _) if v.data_type().is_numeric() => matches!(
            v.cast_to(&DataType::Float64),
            Ok(ScalarValue::Float64(Some(f))) if f != 0.0 && f.is_finite()
        ),
        _ => false,
    }
}

/// `e` (of type `t`) as `to`, cast when it is not already.
fn cast_to(e: Expr, t: &DataType, to: DataType) -> Expr {
    if *t == to {
        e
    } else {
        Expr::Cast(Cast::new(Box::new(e), to))
    }
}

fn binary(l: Expr, op: Operator, r: Expr) -> Expr {
    Expr::BinaryExpr(BinaryExpr::new(Box::new(l), op, Box::new(r)))
}

impl ExprPlanner for AccessPlanner {
    fn plan_binary_op(
        &self,
        expr: RawBinaryExpr,
        schema: &DFSchema,
    ) -> Result<PlannerResult<RawBinaryExpr>> {
        // the operators whose meaning does not depend on their operands'
        // types are planned without asking for them: asking walks the whole
        // operand, and a chain of n operators would cost n² walks
        let RawBinaryExpr { op, left, right } = expr;
        let untyped = match &op {
            BinaryOperator::BitwiseAnd => {
                return Ok(PlannerResult::Planned(self.concat(left, right)?));
            }
            BinaryOperator::BitwiseXor => Some("access_pow"),
            BinaryOperator::Custom(c) if c == super::dialect::MOD => Some("access_mod"),
            BinaryOperator::Custom(c) if c == super::dialect::INT_DIV => Some("access_intdiv"),
            _ => None,
        };
        if let Some(f) = untyped {
            return Ok(PlannerResult::Planned(self.call(f, vec![left, right])?));
        }
        let (Ok(lt), Ok(rt)) = (left.get_type(schema), right.get_type(schema)) else {
            return Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }));
        };
        let planned = match &op {
            BinaryOperator::Divide if divisible(&lt) && divisible(&rt) => {
                self.divide(left, &lt, right, &rt)?
            }
            // And, Or, Xor, Eqv, Imp of whole numbers compare bits
            BinaryOperator::And
            | BinaryOperator::Or
            | BinaryOperator::Xor
            | BinaryOperator::Custom(_)
                if is_logic_op(&op) && bitwise_operands(&lt, &rt) =>
            {
                bitwise(&op, left, &lt, right, &rt)
            }
            // Xor, Eqv, Imp of Yes/No by Access's three-valued tables
            BinaryOperator::Xor if is_yes_no(&lt) && is_yes_no(&rt) => {
                binary(left, Operator::NotEq, right)
            }
            BinaryOperator::Custom(c)
                if c == super::dialect::EQV && is_yes_no(&lt) && is_yes_no(&rt) =>
            {
                binary(left, Operator::Eq, right)
            }
            BinaryOperator::Custom(c)
                if c == super::dialect::IMP && is_yes_no(&lt) && is_yes_no(&rt) =>
            {
                binary(Expr::Not(Box::new(left)), Operator::Or, right)
            }
            // a text and a number add as numbers ("25" + 12 is 37)
            BinaryOperator::Plus
                if (is_text(&lt) && rt.is_numeric()) || (lt.is_numeric() && is_text(&rt)) =>
            {
                self.call("access_add", vec![left, right])?
            }
            BinaryOperator::Minus
                if (is_text(&lt) && rt.is_numeric()) || (lt.is_numeric() && is_text(&rt)) =>
            {
                self.call("access_sub", vec![left, right])?
            }
            // two texts concatenate; text + Null is Null, as in Access
            BinaryOperator::Plus
                if (is_text(&lt) || lt == DataType::Null)
                    && (is_text(&rt) || rt == DataType::Null)
                    && (is_text(&lt) || is_text(&rt)) =>
            {
                binary(left, Operator::StringConcat, right)
            }
            // Yes/No compares with numbers as Access's number (True is −1)
            BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq
                if (lt == DataType::Boolean && rt.is_numeric())
                    || (rt == DataType::Boolean && lt.is_numeric()) =>
            {
                let l = if lt == DataType::Boolean {
                    yes_no_number(left)
                } else {
                    left
                };
                let r = if rt == DataType::Boolean {
                    yes_no_number(right)
                } else {
                    right
                };
                return Ok(PlannerResult::Original(RawBinaryExpr {
                    op,
                    left: l,
                    right: r,
                }));
            }
            BinaryOperator::Plus if is_date(&lt) || is_date(&rt) => {
                self.call("access_add", vec![left, right])?
            }
            BinaryOperator::Minus if is_date(&lt) || is_date(&rt) => {
                self.call("access_sub", vec![left, right])?
            }
            BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq
                if is_text(&lt) && is_text(&rt) =>
            {
                let op = match op {
                    BinaryOperator::Eq => Operator::Eq,
                    BinaryOperator::NotEq => Operator::NotEq,
                    BinaryOperator::Lt => Operator::Lt,
                    BinaryOperator::LtEq => Operator::LtEq,
                    BinaryOperator::Gt => Operator::Gt,
                    _ => Operator::GtEq,
                };
                binary(self.folded(left), op, self.folded(right))
            }
            BinaryOperator::Plus
            | BinaryOperator::Minus
            | BinaryOperator::Multiply
            | BinaryOperator::Divide
                if lt == DataType::Boolean || rt == DataType::Boolean =>
            {
                let l = if lt == DataType::Boolean {
                    yes_no_number(left)
                } else {
                    left
                };
                let r = if rt == DataType::Boolean {
                    yes_no_number(right)
                } else {
                    right
                };
                return Ok(PlannerResult::Original(RawBinaryExpr {
                    op,
                    left: l,
                    right: r,
                }));
            }
            _ => return Ok(PlannerResult::Original(RawBinaryExpr { op, left, right })),
        };
        Ok(PlannerResult::Planned(planned))
    }
}

/// The folding function as a UDF.
pub fn text_fold_udf() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(TextFold::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_ignores_ascii_case_and_trailing_spaces_only() {
        assert_eq!(fold("ALFKI  "), "alfki");
        assert_eq!(fold("  x "), "  x");
        assert_eq!(fold("Äb"), "Äb");
    }
}
