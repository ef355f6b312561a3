//! The Access pass over expressions: names resolved (see [`super::names`]),
//! then what Access means by the names that resolve to nothing, by `Like`
//! and by the domain aggregates.
//!
//! - A double-quoted word that names no column is a string (`WHERE City =
//!   "London"`), as in Access; one that names a column stays the column,
//!   so DataFusion-style quoting keeps working.
//! - `Yes`, `No`, `On`, `Off` (unquoted) are True and False.
//! - Any other name that resolves to nothing is a parameter (`[Enter a
//!   date]`): its bound value, or an error naming every unbound one.
//!
//! These three apply only when every table of the statement is known
//! (not for files or table functions, whose columns are not).
//!
//! - `x Between a And b` takes its bounds in either order, as Access does
//!   (see [`either_order`]).
//! - `Not x` of a number inverts its bits, as Access's `Not` does (see
//!   [`Exprs::not_of_numbers`]).
//! - `-x` of anything but a number literal keeps Access's types and
//!   reports overflow (see [`negation`]).

use super::ast;
use super::like::{LikePlan, translate};
use super::names::{Columns, resolve_expr};
use super::params::Params;
use datafusion::arrow::datatypes::DataType;
use datafusion::error::{DataFusionError, Result};
use datafusion::sql::sqlparser::ast::helpers::attached_token::AttachedToken;
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, CaseWhen, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments,
    Ident, UnaryOperator, Value, ValueWithSpan, VisitorMut,
};
use std::ops::ControlFlow;

/// Pass 2 for expressions, in Access mode or not.
pub(crate) struct Exprs<'a> {
    /// The names in scope.
    pub columns: &'a Columns,
    /// Access meanings (strings, booleans, parameters, `Like`).
    pub access: bool,
    /// Whether unresolved names may be read as Access would.
    pub all_known: bool,
    /// Bound parameter values.
    pub params: &'a Params,
    /// Parameters referenced without a value, as written.
    pub missing: Vec<Ident>,
    /// The first error met.
    pub error: Option<DataFusionError>,
}

impl Exprs<'_> {
    fn unresolved(&mut self, e: &mut Expr) {
        // `Forms![Dialog]!Control` (and Reports!…) outside Access is a
        // parameter of that name, as Access prompts for it
        if let Expr::CompoundIdentifier(parts) = e
            && parts.first().is_some_and(|p| {
                p.value.eq_ignore_ascii_case("forms") || p.value.eq_ignore_ascii_case("reports")
            })
        {
            let name = parts
                .iter()
                .map(|p| {
                    if p.value.chars().all(|c| c.is_alphanumeric() || c == '_') {
                        p.value.clone()
                    } else {
                        format!("[{}]", p.value)
                    }
                })
                .collect::<Vec<_>>()
                .join("!");
            *e = Expr::Identifier(Ident::with_quote('[', name));
        }
        let Expr::Identifier(i) = e else {
            return;
        };
        if i.quote_style == Some('"') {
            *e = ast::string(&i.value);
            return;
        }
        if i.quote_style.is_none() {
            match i.value.to_ascii_lowercase().as_str() {
                "yes" | "on" => {
                    *e = ast::boolean(true);
                    return;
                }
                "no" | "off" => {
                    *e = ast::boolean(false);
                    return;
                }
                _ => {}
            }
        }
        match self.params.get(&i.value) {
            Some(v) => match v.to_expr() {
                Ok(x) => *e = x,
                Err(err) => self.error = Some(err),
            },
            None => {
                if !self.missing.iter().any(|m| m.value == i.value) {
                    self.missing.push(i.clone());
                }
            }
        }
    }

    fn like(&mut self, e: &mut Expr) {
        let Expr::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char: None,
        } = e
        else {
            return;
        };
        let negated = *negated;
        let target = std::mem::replace(expr.as_mut(), ast::null());
        let new = match pattern.as_ref() {
            Expr::Value(ValueWithSpan {
                value: Value::SingleQuotedString(p),
                ..
            }) => match translate(p) {
                Some(LikePlan::ILike(p)) => Expr::ILike {
                    negated,
                    any: false,
                    expr: Box::new(target),
                    pattern: Box::new(ast::string(&p)),
                    escape_char: None,
                },
                Some(LikePlan::Regex(r)) => {
                    let m = Expr::BinaryOp {
                        left: Box::new(target),
                        op: BinaryOperator::PGRegexIMatch,
                        right: Box::new(ast::string(&r)),
                    };
                    if negated { not(m) } else { m }
                }
                None => {
                    self.error = Some(DataFusionError::Plan(format!(
                        "Like pattern '{p}' has a '[' without its closing ']'"
                    )));
                    return;
                }
            },
            other => {
                let m = ast::call("access_like", vec![target, other.clone()]);
                if negated { not(m) } else { m }
            }
        };
        *e = new;
    }
}

impl Exprs<'_> {
    /// The type of the column `e` names, when it names one.
    fn column_type(&self, e: &Expr) -> Option<&DataType> {
        let name = match e {
            Expr::Identifier(i) => &i.value,
            Expr::CompoundIdentifier(p) => &p.last()?.value,
            _ => return None,
        };
        self.columns.column_type(name)
    }

    /// Whether `e` names a text column.
    fn is_text_column(&self, e: &Expr) -> bool {
        matches!(
            self.column_type(e),
            Some(DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        )
    }

    /// `Not x` of a number inverts its bits (`Not 5` is -6, "Not
    /// operator",
    /// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/not-operator>);
    /// of a Yes/No it is SQL's three-valued NOT, which Access's is too. An
    /// operand that is certainly Yes/No ([`Exprs::is_yes_no`]) keeps
    /// `NOT`, which the optimizer simplifies and pushes into scans; any
    /// other becomes `access_not(x)`, which answers both ways by the
    /// operand's type.
    fn not_of_numbers(&self, e: &mut Expr) {
        let Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } = e
        else {
            return;
        };
        if self.is_yes_no(expr) {
            return;
        }
        let x = std::mem::replace(expr.as_mut(), ast::null());
        *e = ast::call("access_not", vec![x]);
    }

    /// Whether `e` is certainly Yes/No or Null: a comparison, `Like`,
    /// `In`, `Between`, `Is Null`, `Exists`, True, False, Null, a Yes/No
    /// column, a name of unknown type (left to SQL's NOT, as before), the
    /// Is… functions, and `Not`, `And`, `Or`, `Xor`, `Eqv`, `Imp` or a
    /// `Case` of such.
    fn is_yes_no(&self, e: &Expr) -> bool {
        match e {
            Expr::Nested(x) => self.is_yes_no(x),
            Expr::Value(v) => matches!(v.value, Value::Boolean(_) | Value::Null),
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => {
                matches!(self.column_type(e), None | Some(DataType::Boolean))
            }
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } => self.is_yes_no(expr),
            Expr::BinaryOp { left, op, right } => match op {
                BinaryOperator::Eq
                | BinaryOperator::NotEq
                | BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq
                | BinaryOperator::PGRegexMatch
                | BinaryOperator::PGRegexIMatch
                | BinaryOperator::PGRegexNotMatch
                | BinaryOperator::PGRegexNotIMatch => true,
                BinaryOperator::And | BinaryOperator::Or | BinaryOperator::Xor => {
                    self.is_yes_no(left) && self.is_yes_no(right)
                }
                BinaryOperator::Custom(c)
                    if c == super::dialect::EQV || c == super::dialect::IMP =>
                {
                    self.is_yes_no(left) && self.is_yes_no(right)
                }
                _ => false,
            },
            Expr::IsNull(_)
            | Expr::IsNotNull(_)
            | Expr::IsTrue(_)
            | Expr::IsNotTrue(_)
            | Expr::IsFalse(_)
            | Expr::IsNotFalse(_)
            | Expr::IsUnknown(_)
            | Expr::IsNotUnknown(_)
            | Expr::IsDistinctFrom(..)
            | Expr::IsNotDistinctFrom(..)
            | Expr::InList { .. }
            | Expr::InSubquery { .. }
            | Expr::Between { .. }
            | Expr::Like { .. }
            | Expr::ILike { .. }
            | Expr::SimilarTo { .. }
            | Expr::RLike { .. }
            | Expr::Exists { .. } => true,
            Expr::Case {
                conditions,
                else_result,
                ..
            } => {
                conditions.iter().all(|w| self.is_yes_no(&w.result))
                    && else_result.as_ref().is_none_or(|x| self.is_yes_no(x))
            }
            Expr::Function(f) => {
                let name = f.name.to_string().to_ascii_lowercase();
                matches!(
                    name.trim_matches(|c| c == '"' || c == '[' || c == ']' || c == '`'),
                    "isnull" | "isnumeric" | "isdate" | "isempty" | "iserror" | "access_like"
                )
            }
            _ => false,
        }
    }

    /// `col IN ('a', 'b')` and `col BETWEEN 'a' AND 'b'` on a text column
    /// compare as Access compares text (the operator planner folds binary
    /// comparisons; these are no binary operators).
    fn fold_text_lists(&mut self, e: &mut Expr) {
        let fold = |x: Expr| ast::call(crate::scan::pushdown::TEXT_FOLD, vec![x]);
        match e {
            Expr::InList { expr, list, .. }
                if self.is_text_column(expr) && list.iter().all(is_string) =>
            {
                let col = std::mem::replace(expr.as_mut(), ast::null());
                **expr = fold(col);
                for item in list.iter_mut() {
                    let v = std::mem::replace(item, ast::null());
                    *item = fold(v);
                }
            }
            Expr::Between {
                expr, low, high, ..
            } if self.is_text_column(expr) && is_string(low) && is_string(high) => {
                for x in [expr, low, high] {
                    let v = std::mem::replace(x.as_mut(), ast::null());
                    **x = fold(v);
                }
            }
            _ => {}
        }
    }
}

/// `x [Not] Between a And b` with the bounds in either order: Access
/// answers True for `5 Between 10 And 1`, and Null when `x`, `a` or `b`
/// is Null ("Between...And operator",
/// <https://learn.microsoft.com/office/vba/access/concepts/miscellaneous/between-and-operator>).
/// Written as `CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE x [NOT]
/// BETWEEN least(a, b) AND greatest(a, b) END`; constant bounds fold
/// back to a plain range, so an index seek on `x` stays. The bounds are
/// copied, so only small ones are ([`small_bound`]); a Between whose
/// bounds are subqueries or hold another Between keeps its order.
fn either_order(e: &mut Expr) {
    let Expr::Between {
        expr,
        negated,
        low,
        high,
    } = e
    else {
        return;
    };
    if !small_bound(low, 0) || !small_bound(high, 0) {
        return;
    }
    let (a, b) = ((**low).clone(), (**high).clone());
    let null_bound = Expr::BinaryOp {
        left: Box::new(Expr::IsNull(Box::new(a.clone()))),
        op: BinaryOperator::Or,
        right: Box::new(Expr::IsNull(Box::new(b.clone()))),
    };
    let between = Expr::Between {
        expr: Box::new(std::mem::replace(expr.as_mut(), ast::null())),
        negated: *negated,
        low: Box::new(ast::call("least", vec![a.clone(), b.clone()])),
        high: Box::new(ast::call("greatest", vec![a, b])),
    };
    *e = Expr::Case {
        case_token: AttachedToken::empty(),
        end_token: AttachedToken::empty(),
        operand: None,
        conditions: vec![CaseWhen {
            condition: null_bound,
            result: ast::null(),
        }],
        else_result: Some(Box::new(between)),
    };
}

/// A bound [`either_order`] may copy: literals, names, and operators,
/// casts and plain calls over them, a few levels deep (no subqueries, no
/// CASE, so no rewritten Between).
/// `-x` becomes `access_neg(x)` unless `x` is a number literal (which
/// DataFusion folds into a negative literal): Access's negation keeps the
/// operand's type (a Byte or Yes/No gives an Integer, text a Double, a
/// Date stays a Date) and an Integer, Long or Currency at the bottom of
/// its range overflows ("- operator",
/// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/operator-minus>),
/// where SQL's negation would wrap `-(-32768)` to -32768. An interval
/// (no Access type) keeps SQL's negation.
fn negation(e: &mut Expr) {
    let Expr::UnaryOp {
        op: UnaryOperator::Minus,
        expr,
    } = e
    else {
        return;
    };
    if is_number_literal(expr) || matches!(expr.as_ref(), Expr::Interval(_)) {
        return;
    }
    let x = std::mem::replace(expr.as_mut(), ast::null());
    *e = ast::call("access_neg", vec![x]);
}

/// Whether `e` is a number literal, possibly in parentheses or signed.
fn is_number_literal(e: &Expr) -> bool {
    match e {
        Expr::Value(ValueWithSpan {
            value: Value::Number(..),
            ..
        }) => true,
        Expr::Nested(x)
        | Expr::UnaryOp {
            op: UnaryOperator::Minus | UnaryOperator::Plus,
            expr: x,
        } => is_number_literal(x),
        _ => false,
    }
}

fn small_bound(e: &Expr, depth: usize) -> bool {
    if depth > 6 {
        return false;
    }
    match e {
        Expr::Value(_) | Expr::Identifier(_) | Expr::CompoundIdentifier(_) => true,
        Expr::Nested(x) | Expr::UnaryOp { expr: x, .. } | Expr::Cast { expr: x, .. } => {
            small_bound(x, depth + 1)
        }
        Expr::BinaryOp { left, right, .. } => {
            small_bound(left, depth + 1) && small_bound(right, depth + 1)
        }
        Expr::Function(f) => match &f.args {
            FunctionArguments::None => true,
            FunctionArguments::List(list) => {
                f.over.is_none()
                    && f.filter.is_none()
                    && list.args.iter().all(|a| {
                        matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Expr(x))
                            if small_bound(x, depth + 1))
                    })
            }
            FunctionArguments::Subquery(_) => false,
        },
        _ => false,
    }
}

fn is_string(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Value(ValueWithSpan {
            value: Value::SingleQuotedString(_),
            ..
        })
    )
}

fn not(e: Expr) -> Expr {
    Expr::UnaryOp {
        op: UnaryOperator::Not,
        expr: Box::new(Expr::Nested(Box::new(e))),
    }
}

impl VisitorMut for Exprs<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        match resolve_expr(self.columns, e) {
            Some(false) if self.access && self.all_known => self.unresolved(e),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        // after the operands (a double-quoted pattern is a string by now)
        if self.access {
            self.not_of_numbers(e);
            negation(e);
            self.like(e);
            self.fold_text_lists(e);
            either_order(e);
        }
        ControlFlow::Continue(())
    }
}

/// The domain aggregates, the aggregate each stands for, and whether the
/// result is Null when fewer than two records are in the domain: DStDev,
/// DStDevP, DVar and DVarP are Access's StDev, StDevP, Var and VarP over
/// the domain, and Microsoft's pages of them say they return Null when
/// the domain, or the part of it that meets the criteria, has fewer than
/// two records
/// (<https://learn.microsoft.com/office/vba/api/access.application.dstdevp>,
/// <https://learn.microsoft.com/office/vba/api/access.application.dvarp>;
/// StDev and Var give Null below two values already; StDevP and VarP of
/// one value are 0 as SQL aggregates, so those two are checked).
const DOMAIN: [(&str, &str, bool); 12] = [
    ("dlookup", "first_value", false),
    ("dfirst", "first_value", false),
    ("dlast", "last_value", false),
    ("dcount", "count", false),
    ("dsum", "sum", false),
    ("dmin", "min", false),
    ("dmax", "max", false),
    ("davg", "avg", false),
    ("dstdev", "stdev", false),
    ("dstdevp", "stdevp", true),
    ("dvar", "var", false),
    ("dvarp", "varp", true),
];

/// Pass 0: `DLookup("expr", "domain", "criteria")` and its siblings
/// become scalar subqueries (`(SELECT First(expr) FROM domain WHERE
/// criteria)`), parsed as Access SQL, before names are resolved.
pub(crate) struct DomainAggregates {
    /// The first error met.
    pub error: Option<DataFusionError>,
}

fn literal_arg(a: &FunctionArg) -> Option<String> {
    match a {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(ValueWithSpan {
            value: Value::SingleQuotedString(s) | Value::DoubleQuotedString(s),
            ..
        }))) => Some(s.clone()),
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(i)))
            if i.quote_style == Some('"') =>
        {
            Some(i.value.clone())
        }
        _ => None,
    }
}

impl DomainAggregates {
    fn expand(&mut self, f: &Function) -> Option<Result<Expr>> {
        let name = f.name.to_string().to_ascii_lowercase();
        let (fname, agg, two) = DOMAIN.iter().find(|(d, _, _)| *d == name)?;
        let FunctionArguments::List(list) = &f.args else {
            return None;
        };
        let args: Option<Vec<String>> = list.args.iter().map(literal_arg).collect();
        let Some(args) = args.filter(|a| a.len() == 2 || a.len() == 3) else {
            return Some(Err(DataFusionError::Plan(format!(
                "{fname}: give the expression, the domain and (optionally) the criteria as text \
                 literals, e.g. {fname}(\"[Freight]\", \"Orders\", \"[OrderID] = 10250\")"
            ))));
        };
        let call = format!("{agg}({})", args[0]);
        let value = if *two {
            format!("IIf(Count(*) < 2, Null, {call})")
        } else {
            call
        };
        let mut sql = format!("SELECT {value} FROM {}", args[1]);
        if let Some(c) = args.get(2) {
            sql.push_str(" WHERE ");
            sql.push_str(c);
        }
        Some(
            super::parse_query(&sql)
                .map(|q| Expr::Subquery(Box::new(q)))
                .map_err(|e| {
                    DataFusionError::Plan(format!(
                        "{fname}: its arguments do not form a query: {e}"
                    ))
                }),
        )
    }
}

impl VisitorMut for DomainAggregates {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Expr::Function(f) = e
            && let Some(r) = self.expand(f)
        {
            match r {
                Ok(x) => *e = x,
                Err(err) => {
                    self.error = Some(err);
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::parser::Parser;

    fn either_order_of(sql: &str) -> String {
        let mut e = Parser::new(&crate::access::AccessDialect)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_expr())
            .unwrap();
        either_order(&mut e);
        e.to_string()
    }

    #[test]
    fn between_takes_its_bounds_in_either_order() {
        let s = either_order_of("x BETWEEN 10 AND 1");
        assert!(s.starts_with("CASE"), "{s}");
        assert!(s.contains("10 IS NULL OR 1 IS NULL"), "{s}");
        assert!(
            s.contains("x BETWEEN least(10, 1) AND greatest(10, 1)"),
            "{s}"
        );
        let s = either_order_of("x NOT BETWEEN a AND b");
        assert!(
            s.contains("x NOT BETWEEN least(a, b) AND greatest(a, b)"),
            "{s}"
        );
        // a subquery bound is not copied: the Between keeps its order
        assert_eq!(
            either_order_of("x BETWEEN (SELECT 1) AND 2"),
            "x BETWEEN (SELECT 1) AND 2"
        );
    }
}
