//! Access's operators, planned with the operands' types known (a
//! DataFusion `ExprPlanner`, installed only in the state that plans
//! Access-dialect statements). The result type of each operator for
//! each pair of Access types, with the Microsoft page every line comes
//! from and where jetsql differs, is tabled in `docs/access-operators.md`.
//!
//! - `+`, `-` and `*` of numbers, dates, Yes/No and text are Access's
//!   arithmetic (`access_add`, `access_sub`, `access_mul`, see
//!   [`crate::access::functions::arith`]): the result has the more
//!   precise operand's type (Integer + Integer is an Integer, Currency
//!   stays exact to four places), overflow is an error rather than a
//!   wrapped value, a decimal literal is a Double, Yes/No is -1 or 0, a
//!   text must spell a number (`"25" + 12` is 37), Date ± number moves
//!   days and Date - Date is a Double number of days.
//! - `+` of two texts concatenates (Null propagates, as Access's `+`);
//!   `a & b` concatenates as text, Null & 'x' is 'x' (only Null & Null is
//!   Null).
//! - `a / b` divides as Access does (see `AccessPlanner::divide`): a
//!   Double quotient (`7/2` is 3.5, not DataFusion's integer 3), Single
//!   for two Byte/Integer/Single operands, Decimal for a Decimal operand;
//!   a zero divisor is an error.
//! - `a ^ b` is exponentiation (a Double); `a Mod b` and `a \ b` round
//!   their operands half to even to Byte, Integer or Long first and
//!   answer in the wider of those types.
//! - Comparisons: text with text ignores ASCII case and trailing spaces
//!   (see [`TextFold`](super::functions::fold::TextFold)); a text compared
//!   with a number is read as a number ("type mismatch" when it spells
//!   none), with a date as a date; Yes/No compares as -1 or 0; a date with
//!   a number as its serial number; a Single with a Double at the Single's
//!   precision.
//! - `Xor`, `Eqv` and `Imp` of Yes/No follow Access's three-valued
//!   tables; `And`, `Or`, `Xor`, `Eqv` and `Imp` with a number operand
//!   compare bits (`5 And 3` is 1; True is -1; a fraction is rounded to a
//!   Long first). `Not` of a number is rewritten before planning (see
//!   `access::rewrite`).

use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::{BinaryExpr, Cast, Expr, ExprSchemable, Operator, ScalarUDF};
use datafusion::prelude::SessionContext;
use datafusion::sql::sqlparser::ast::BinaryOperator;
use std::collections::HashMap;
use std::sync::Arc;

use super::functions::fold::text_fold_udf;

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

    /// `a + b`, `a - b`, `a * b` (`name` is the Access function): the
    /// operands as Access types them ([`access_operand`]), the result
    /// type and value by Access's tables (see
    /// [`crate::access::functions::arith`]).
    fn arithmetic(
        &self,
        name: &str,
        left: Expr,
        lt: &DataType,
        right: Expr,
        rt: &DataType,
    ) -> Result<Expr> {
        let (left, _) = access_operand(left, lt);
        let (right, _) = access_operand(right, rt);
        self.call(name, vec![left, right])
    }

    /// `a / b` as Microsoft's "/ operator" page
    /// (<https://learn.microsoft.com/office/vba/language/reference/user-interface-help/forwardslash-operator>)
    /// has it: Null when either operand is Null; Decimal when either is a
    /// Decimal ([`decimal_role`]); Single when both are Byte, Integer
    /// (Yes/No counts as one) or Single; otherwise Double (a literal with
    /// a decimal point is a Double in Access, a Currency, a date (its
    /// serial number) or a text (the number it spells) divides as
    /// Double); a zero divisor is an error. A non-zero constant divisor
    /// divides with DataFusion's own operator on Doubles (the same IEEE
    /// quotient, vectorized, folded when both sides are constants); any
    /// other goes through `access_div`, which refuses a zero divisor.
    fn divide(&self, left: Expr, lt: &DataType, right: Expr, rt: &DataType) -> Result<Expr> {
        let constant_divisor = is_nonzero_constant(&right);
        let (left, lt) = number_operand(left, lt);
        let (right, rt) = number_operand(right, rt);
        let (left, lt) = access_operand(left, &lt);
        let (right, rt) = access_operand(right, &rt);
        if is_decimal(&lt) || is_decimal(&rt) {
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
        // text and dates stay as they are: access_div reads them as the
        // numbers they stand for, as Access does
        let double = |e: Expr, t: &DataType| {
            if is_text(t) || is_date(t) {
                e
            } else {
                cast_to(e, t, DataType::Float64)
            }
        };
        let fast = constant_divisor && !is_text(&lt) && !is_date(&lt);
        let (l, r) = (double(left, &lt), double(right, &rt));
        if fast {
            return Ok(binary(l, Operator::Divide, r));
        }
        self.call("access_div", vec![l, r])
    }

    /// `a And b`, `Or`, `Xor`, `Eqv`, `Imp` with a number operand, bit by
    /// bit (Microsoft's pages of each operator, e.g.
    /// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/imp-operator>:
    /// `Eqv` is the complement of `Xor`, `Imp` is `(Not a) Or b`), on the
    /// wider of the operands' whole-number types ([`bitwise_type`]):
    /// `Xor` and `Eqv` with DataFusion's vectorized bitwise operators,
    /// `And`, `Or` and `Imp` with Access functions that also answer a
    /// Null operand the logical tables decide (`access_and` & co. in
    /// `functions/arith.rs`).
    fn bitwise(
        &self,
        op: &BinaryOperator,
        left: Expr,
        lt: &DataType,
        right: Expr,
        rt: &DataType,
    ) -> Result<Expr> {
        let t = bitwise_type(lt, rt);
        let l = self.whole_operand(left, lt, &t)?;
        let r = self.whole_operand(right, rt, &t)?;
        let ones = all_ones(&t);
        let not = |e: Expr| binary(e, Operator::BitwiseXor, Expr::Literal(ones.clone(), None));
        // And, Or and Imp decide some Null operands (`Null And 0` is 0):
        // Access functions of their own; Xor and Eqv of a Null are Null,
        // as DataFusion's vectorized operators give
        Ok(match op {
            BinaryOperator::And => self.call("access_and", vec![l, r])?,
            BinaryOperator::Or => self.call("access_or", vec![l, r])?,
            BinaryOperator::Custom(c) if c == super::dialect::EQV => {
                not(binary(l, Operator::BitwiseXor, r))
            }
            BinaryOperator::Custom(c) if c == super::dialect::IMP => {
                self.call("access_imp", vec![l, r])?
            }
            _ => binary(l, Operator::BitwiseXor, r),
        })
    }

    /// An operand of a bitwise operator as the whole-number type `to`:
    /// Yes/No as -1 or 0, a whole number as it is, anything else rounded
    /// half to even to a Long (`CLng`, which reports a text that spells
    /// no number and a value beyond a Long).
    fn whole_operand(&self, e: Expr, t: &DataType, to: &DataType) -> Result<Expr> {
        let (e, t) = match t {
            DataType::Boolean => (yes_no_number(e), DataType::Int16),
            t if t.is_integer() || *t == DataType::Null => (e, t.clone()),
            _ => (self.call("clng", vec![e])?, DataType::Int32),
        };
        Ok(cast_to(e, &t, to.clone()))
    }

    /// Both sides of a comparison as Access compares them (Microsoft's
    /// "Comparison operators" page,
    /// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/comparison-operators>),
    /// unchanged where DataFusion's comparison already is Access's:
    ///
    /// - Yes/No is a number (-1 or 0), so True < False;
    /// - a text with a number compares as numbers: the text must spell one
    ///   ("type mismatch" otherwise);
    /// - a date with a text compares as dates (the text read by `CDate`);
    /// - a date with a number compares its serial number;
    /// - a Single with a Double rounds the Double to Single.
    ///
    /// Text with text is folded by the caller.
    fn comparison(
        &self,
        op: &BinaryOperator,
        left: Expr,
        lt: &DataType,
        right: Expr,
        rt: &DataType,
    ) -> Result<(Expr, Expr)> {
        use Compared::*;
        let ordering = !matches!(op, BinaryOperator::Eq | BinaryOperator::NotEq);
        let (lk, rk) = (compared(lt), compared(rt));
        let number = |e: Expr, k: Compared| -> Result<Expr> {
            Ok(match k {
                YesNo => yes_no_number(e),
                Text | Date => self.call("access_number", vec![e])?,
                _ => e,
            })
        };
        Ok(match (lk, rk) {
            (YesNo, YesNo) if ordering => (yes_no_number(left), yes_no_number(right)),
            (YesNo, Number | Single) | (Number | Single, YesNo) => {
                (number(left, lk)?, number(right, rk)?)
            }
            (Text, Number | Single | YesNo) | (Number | Single | YesNo, Text) => {
                (number(left, lk)?, number(right, rk)?)
            }
            (Date, Text) => (left, self.call("cdate", vec![right])?),
            (Text, Date) => (self.call("cdate", vec![left])?, right),
            (Date, Number | Single | YesNo) | (Number | Single | YesNo, Date) => {
                (number(left, lk)?, number(right, rk)?)
            }
            (Single, Number) if double_like(&right, rt) => {
                let (r, t) = access_operand(right, rt);
                (left, cast_to(r, &t, DataType::Float32))
            }
            (Number, Single) if double_like(&left, lt) => {
                let (l, t) = access_operand(left, lt);
                (cast_to(l, &t, DataType::Float32), right)
            }
            _ => (left, right),
        })
    }
}

/// How a comparison operand is read ([`AccessPlanner::comparison`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Compared {
    YesNo,
    /// A Single.
    Single,
    /// Any other number.
    Number,
    Text,
    Date,
    /// Null and the types Access has no operators for.
    Other,
}

fn compared(t: &DataType) -> Compared {
    match t {
        DataType::Boolean => Compared::YesNo,
        DataType::Float32 | DataType::Float16 => Compared::Single,
        t if t.is_numeric() => Compared::Number,
        t if is_text(t) => Compared::Text,
        t if is_date(t) => Compared::Date,
        _ => Compared::Other,
    }
}

/// A Double in Access: a Double, or a decimal literal (see
/// [`decimal_role`]).
fn double_like(e: &Expr, t: &DataType) -> bool {
    *t == DataType::Float64 || decimal_role(e, t) == Some(DecimalRole::Double)
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

/// Yes/No as Access's number: −1 for True, 0 for False, NULL stays NULL;
/// an Integer, as Yes/No counts in Access's arithmetic.
fn yes_no_number(e: Expr) -> Expr {
    Expr::Negative(Box::new(Expr::Cast(Cast::new(
        Box::new(e),
        DataType::Int16,
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

/// An operand of Access's arithmetic: a number, Yes/No, a date, a text
/// (a number spelt out) or Null.
fn is_arithmetic(t: &DataType) -> bool {
    t.is_numeric() || is_text(t) || is_date(t) || is_yes_no(t)
}

/// Operands the logical operators compare bit by bit: Access values of
/// which at least one is not Yes/No or Null (two of those follow the
/// three-valued tables).
fn bitwise_operands(lt: &DataType, rt: &DataType) -> bool {
    is_arithmetic(lt) && is_arithmetic(rt) && !(is_yes_no(lt) && is_yes_no(rt))
}

/// The whole-number type a bitwise operand is read as: a Byte, Integer
/// (Yes/No counts as one), Long or BigInt stays, anything else is
/// rounded to a Long.
fn whole_number_type(t: &DataType) -> Option<DataType> {
    Some(match t {
        DataType::Null => return None,
        DataType::UInt8 => DataType::UInt8,
        DataType::Boolean | DataType::Int8 | DataType::Int16 => DataType::Int16,
        DataType::UInt16 | DataType::Int32 => DataType::Int32,
        DataType::UInt32 | DataType::UInt64 | DataType::Int64 => DataType::Int64,
        _ => DataType::Int32,
    })
}

/// The type two bitwise operands are compared in: the wider of their
/// whole-number types (Byte, Integer, Long, BigInt).
fn bitwise_type(lt: &DataType, rt: &DataType) -> DataType {
    let rank = |t: &DataType| match t {
        DataType::UInt8 => 0,
        DataType::Int16 => 1,
        DataType::Int32 => 2,
        _ => 3,
    };
    match (whole_number_type(lt), whole_number_type(rt)) {
        (Some(a), Some(b)) => {
            if rank(&a) >= rank(&b) {
                a
            } else {
                b
            }
        }
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => DataType::Int64,
    }
}

/// Every bit set in `t` (what `Xor` with it inverts): 255 for a Byte, -1
/// otherwise.
fn all_ones(t: &DataType) -> ScalarValue {
    match t {
        DataType::UInt8 => ScalarValue::UInt8(Some(u8::MAX)),
        DataType::Int16 => ScalarValue::Int16(Some(-1)),
        DataType::Int32 => ScalarValue::Int32(Some(-1)),
        _ => ScalarValue::Int64(Some(-1)),
    }
}

/// The operands `/` divides as Access does: numbers, Yes/No, text (a
/// number spelt out), dates (their serial numbers) and Null.
fn divisible(t: &DataType) -> bool {
    is_arithmetic(t)
}

/// An operand of `/` with Yes/No read as Access's number.
fn number_operand(e: Expr, t: &DataType) -> (Expr, DataType) {
    if *t == DataType::Boolean {
        (yes_no_number(e), DataType::Int16)
    } else {
        (e, t.clone())
    }
}

/// Byte, Integer and Single: two of them divide as Single.
fn is_single_operand(t: &DataType) -> bool {
    matches!(t, DataType::UInt8 | DataType::Int16 | DataType::Float32)
}

/// Currency's Arrow type.
const CURRENCY: DataType = DataType::Decimal128(19, 4);

/// A Decimal in Access: a Decimal128 other than Currency's (after
/// [`access_operand`]).
fn is_decimal(t: &DataType) -> bool {
    matches!(t, DataType::Decimal128(..)) && *t != CURRENCY
}

/// The Access type a decimal-typed operand has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DecimalRole {
    Double,
    Currency,
    Decimal,
}

/// How Access types an operand of Arrow type Decimal128 (`None` for
/// other types). Jet sessions parse a decimal literal (`1.5`) as DECIMAL
/// so it compares exactly with Currency and Numeric columns, but Access
/// types it as a Double, and so does its arithmetic here. A column, or a
/// call of an Access function or operator (`CCur`, `CDec`, `+`), is a
/// Currency when it has Currency's type, Decimal(19, 4), and a Decimal
/// otherwise (a Numeric(19, 4) column is taken for Currency: nothing
/// else tells them apart). A decimal DataFusion computed (a Sum of
/// Currency, a CAST) is a Currency when it has Currency's four places and
/// a Decimal otherwise.
fn decimal_role(e: &Expr, t: &DataType) -> Option<DecimalRole> {
    let DataType::Decimal128(_, s) = t else {
        return None;
    };
    let own = if *t == CURRENCY {
        DecimalRole::Currency
    } else {
        DecimalRole::Decimal
    };
    Some(match e {
        Expr::Literal(..) => DecimalRole::Double,
        Expr::Negative(x) if matches!(x.as_ref(), Expr::Literal(..)) => DecimalRole::Double,
        Expr::Alias(a) => return decimal_role(&a.expr, t),
        Expr::Column(_) => own,
        Expr::ScalarFunction(f) if super::functions::is_access_scalar(&f.func) => own,
        _ if *s == 4 => DecimalRole::Currency,
        _ => DecimalRole::Decimal,
    })
}

/// An arithmetic operand as the type Access gives it ([`decimal_role`]):
/// a decimal literal as a Double, a computed decimal of four places as a
/// Currency; anything else as it is.
fn access_operand(e: Expr, t: &DataType) -> (Expr, DataType) {
    match decimal_role(&e, t) {
        Some(DecimalRole::Double) => (cast_to(e, t, DataType::Float64), DataType::Float64),
        Some(DecimalRole::Currency) => (cast_to(e, t, CURRENCY), CURRENCY),
        _ => (e, t.clone()),
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

/// DataFusion's comparison operator for a SQL one.
fn comparison_operator(op: &BinaryOperator) -> Option<Operator> {
    Some(match op {
        BinaryOperator::Eq => Operator::Eq,
        BinaryOperator::NotEq => Operator::NotEq,
        BinaryOperator::Lt => Operator::Lt,
        BinaryOperator::LtEq => Operator::LtEq,
        BinaryOperator::Gt => Operator::Gt,
        BinaryOperator::GtEq => Operator::GtEq,
        _ => return None,
    })
}

impl ExprPlanner for AccessPlanner {
    fn plan_binary_op(
        &self,
        expr: RawBinaryExpr,
        schema: &DFSchema,
    ) -> Result<PlannerResult<RawBinaryExpr>> {
        // the operators whose meaning does not depend on their operands'
        // types are planned without asking for them: asking walks the whole
        // operand, and a chain of n operators would cost n² walks (`Mod`
        // and `\` take their result types from their arguments' types)
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
        if let Some(cmp) = comparison_operator(&op) {
            // text comparisons ignore case and trailing spaces
            if is_text(&lt) && is_text(&rt) {
                return Ok(PlannerResult::Planned(binary(
                    self.folded(left),
                    cmp,
                    self.folded(right),
                )));
            }
            // other comparisons of Access values, as Access compares them
            let (left, right) = self.comparison(&op, left, &lt, right, &rt)?;
            return Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }));
        }
        let planned = match &op {
            BinaryOperator::Divide if divisible(&lt) && divisible(&rt) => {
                self.divide(left, &lt, right, &rt)?
            }
            // And, Or, Xor, Eqv, Imp with a number compare bits
            BinaryOperator::And
            | BinaryOperator::Or
            | BinaryOperator::Xor
            | BinaryOperator::Custom(_)
                if is_logic_op(&op) && bitwise_operands(&lt, &rt) =>
            {
                self.bitwise(&op, left, &lt, right, &rt)?
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
            // two texts concatenate; text + Null is Null, as in Access
            BinaryOperator::Plus
                if (is_text(&lt) || lt == DataType::Null)
                    && (is_text(&rt) || rt == DataType::Null)
                    && (is_text(&lt) || is_text(&rt)) =>
            {
                binary(left, Operator::StringConcat, right)
            }
            // Access's arithmetic (Null with Null stays DataFusion's Null)
            BinaryOperator::Plus | BinaryOperator::Minus | BinaryOperator::Multiply
                if is_arithmetic(&lt)
                    && is_arithmetic(&rt)
                    && !(lt == DataType::Null && rt == DataType::Null) =>
            {
                let name = match &op {
                    BinaryOperator::Plus => "access_add",
                    BinaryOperator::Minus => "access_sub",
                    _ => "access_mul",
                };
                self.arithmetic(name, left, &lt, right, &rt)?
            }
            _ => return Ok(PlannerResult::Original(RawBinaryExpr { op, left, right })),
        };
        Ok(PlannerResult::Planned(planned))
    }
}

/// The session state that plans Access statements: the context's state
/// plus the Access operator planner and function library.
pub(crate) fn access_state(ctx: &SessionContext) -> Result<SessionState> {
    let base = ctx.state();
    // Access's Replace, String, Space and `&` build their whole result
    // too: size-checked like DataFusion's (frontdoor::strings), also
    // where the operator planner calls them
    let limit = crate::frontdoor::strings::session_limit(ctx);
    let scalars: Vec<Arc<ScalarUDF>> = super::functions::scalar_functions()
        .into_iter()
        .map(|f| crate::frontdoor::strings::size_checked(f, limit))
        .collect();
    let fold = text_fold_udf();
    let mut planners: Vec<Arc<dyn datafusion::logical_expr::planner::ExprPlanner>> =
        vec![Arc::new(AccessPlanner::new(fold.clone(), &scalars))];
    planners.extend(base.expr_planners().iter().cloned());
    let mut state = SessionStateBuilder::new_from_existing(base)
        .with_expr_planners(planners)
        .build();
    use datafusion::execution::FunctionRegistry;
    state.register_udf(fold)?;
    for f in scalars {
        state.register_udf(f)?;
    }
    for f in super::functions::aggregate_functions() {
        state.register_udaf(f)?;
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use crate::access::functions::fold::fold;

    #[test]
    fn fold_ignores_ascii_case_and_trailing_spaces_only() {
        assert_eq!(fold("ALFKI  "), "alfki");
        assert_eq!(fold("  x "), "  x");
        assert_eq!(fold("Äb"), "Äb");
    }
}
