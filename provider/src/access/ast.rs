//! Small builders for the sqlparser trees the Access front end produces.

use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
    ObjectName, Value,
};

/// `name(args…)`, a plain function call.
pub(crate) fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new(name)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
                .collect(),
            clauses: Vec::new(),
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    })
}

/// A string literal.
pub(crate) fn string(s: &str) -> Expr {
    Expr::Value(Value::SingleQuotedString(s.to_string()).with_empty_span())
}

/// A boolean literal.
pub(crate) fn boolean(b: bool) -> Expr {
    Expr::Value(Value::Boolean(b).with_empty_span())
}

/// A number literal (its text as written).
pub(crate) fn number(text: &str) -> Expr {
    Expr::Value(Value::Number(text.to_string(), false).with_empty_span())
}

/// NULL.
pub(crate) fn null() -> Expr {
    Expr::Value(Value::Null.with_empty_span())
}

/// A name kept exactly as spelt (quoted, so no case folding applies).
pub(crate) fn exact(name: &str) -> Ident {
    Ident::with_quote('"', name)
}
