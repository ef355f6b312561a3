//! The Access SQL dialect for sqlparser: what Access's tokens and operators
//! mean, decided while parsing so error positions stay those of the text
//! the user typed.
//!
//! - `[Order Details]` is a delimited name (as are `"…"` and `` `…` ``;
//!   whether a double-quoted word is a name or a string is decided later,
//!   against the catalog, in [`super::rewrite`]).
//! - `#1/1/1998#`, `#1998-01-01 10:30#`, `#10:30 PM#` are Date/Time
//!   literals (a time alone is on 1899-12-30, as Access stores it).
//! - `a \ b` (integer division) and `a Mod b` parse as custom operators
//!   with Access's precedence: `^` binds tighter than unary minus, then
//!   `*` `/`, then `\`, then `Mod`, then `+` `-`, then `&`, then the
//!   comparisons.
//! - `Xor`, `Eqv` and `Imp` bind loosest, in that order, below `Or`
//!   (Access's precedence: `Not`, `And`, `Or`, `Xor`, `Eqv`, `Imp`);
//!   `Eqv` and `Imp` parse as custom operators.
//! - `Orders!OrderID` is `Orders.OrderID`.
//! - A backslash in a string is an ordinary character.
//! - `--` is two minus signs (`30--7` is 37: Access SQL has no comments),
//!   except before whitespace: `-- note` stays a comment to the end of
//!   the line, as jetsql's scripts (and `jetsql dump`) write them.
//! - `/*` is no comment either: sqlparser's tokenizer would read one
//!   whatever the dialect, so the front end refuses the pair before
//!   parsing ([`super::prelex::slash_star`]).
//! - `ALTER TABLE t ALTER [COLUMN] c LONG` (a type without `TYPE`) is
//!   `ALTER TABLE t ALTER COLUMN c TYPE LONG`.
//! - `Array(1, 2, 3)` is a call of VBA's Array function (sqlparser
//!   reads `ARRAY(` as the start of `ARRAY(SELECT …)`, which stays so).

use super::datelit::{AccessDateTime, parse_date_literal};
use datafusion::sql::sqlparser::ast::helpers::attached_token::AttachedToken;
use datafusion::sql::sqlparser::ast::{
    AlterColumnOperation, AlterTable, AlterTableOperation, BinaryOperator, Expr, Ident, ObjectName,
    Query, Statement,
};
use datafusion::sql::sqlparser::dialect::{Dialect, Precedence};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::{Parser, ParserError};
use datafusion::sql::sqlparser::tokenizer::{Token, Word};

/// Operator name of Access's integer division (`\`) in the parsed tree.
pub(crate) const INT_DIV: &str = "\\";
/// Operator name of Access's `Mod` in the parsed tree.
pub(crate) const MOD: &str = "MOD";
/// Operator name of Access's `Eqv` (logical equivalence) in the parsed tree.
pub(crate) const EQV: &str = "EQV";
/// Operator name of Access's `Imp` (logical implication) in the parsed tree.
pub(crate) const IMP: &str = "IMP";

/// Precedences on sqlparser's scale (`*` is 40, `+` is 30, `&` 23, `=` 20).
const PREC_POW: u8 = 50;
const PREC_INT_DIV: u8 = 36;
const PREC_MOD: u8 = 34;
/// `Xor`, `Eqv`, `Imp`: below `Or` (5), above nothing (0).
const PREC_XOR: u8 = 4;
const PREC_EQV: u8 = 3;
const PREC_IMP: u8 = 2;

/// Access SQL as sqlparser reads it.
#[derive(Debug, Default, Clone, Copy)]
pub struct AccessDialect;

impl Dialect for AccessDialect {
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        ch == '"' || ch == '[' || ch == '`'
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        ch.is_alphabetic() || ch == '_'
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        // `Left$`, `Format$`: the string-returning variants of functions
        ch.is_alphanumeric() || ch == '_' || ch == '$'
    }

    fn supports_string_literal_backslash_escape(&self) -> bool {
        false
    }

    fn requires_single_line_comment_whitespace(&self) -> bool {
        // `30--7` is 30 - (-7); only `-- ` (a script's comment) comments
        true
    }

    fn supports_filter_during_aggregation(&self) -> bool {
        true
    }

    fn supports_group_by_expr(&self) -> bool {
        true
    }

    fn supports_named_fn_args_with_rarrow_operator(&self) -> bool {
        true
    }

    fn supports_window_function_null_treatment_arg(&self) -> bool {
        true
    }

    fn supports_select_wildcard_exclude(&self) -> bool {
        true
    }

    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        alter_column_type(parser)
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        if parser.peek_token_ref().token == Token::Sharp {
            return Some(date_literal(parser));
        }
        array_call(parser)
    }

    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        match &parser.peek_token_ref().token {
            Token::Caret => Some(Ok(PREC_POW)),
            Token::Backslash => Some(Ok(PREC_INT_DIV)),
            Token::Word(w) if w.keyword == Keyword::MOD && w.quote_style.is_none() => {
                Some(Ok(PREC_MOD))
            }
            // sqlparser reads `Xor` itself, at this precedence
            Token::Word(w) if w.keyword == Keyword::XOR && w.quote_style.is_none() => {
                Some(Ok(PREC_XOR))
            }
            Token::Word(w) if is_word(w, EQV) => Some(Ok(PREC_EQV)),
            Token::Word(w) if is_word(w, IMP) => Some(Ok(PREC_IMP)),
            Token::ExclamationMark => Some(Ok(self.prec_value(Precedence::Period))),
            _ => None,
        }
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        _precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        let op = match &parser.peek_token_ref().token {
            Token::Backslash => (INT_DIV, PREC_INT_DIV),
            Token::Word(w) if w.keyword == Keyword::MOD && w.quote_style.is_none() => {
                (MOD, PREC_MOD)
            }
            Token::Word(w) if is_word(w, EQV) => (EQV, PREC_EQV),
            Token::Word(w) if is_word(w, IMP) => (IMP, PREC_IMP),
            Token::ExclamationMark => return Some(bang_qualifier(parser, expr)),
            _ => return None,
        };
        parser.next_token();
        Some(parser.parse_subexpr(op.1).map(|right| Expr::BinaryOp {
            left: Box::new(expr.clone()),
            op: BinaryOperator::Custom(op.0.to_string()),
            right: Box::new(right),
        }))
    }
}

/// Whether `w` is the unquoted word `name` (any case).
fn is_word(w: &Word, name: &str) -> bool {
    w.quote_style.is_none() && w.value.eq_ignore_ascii_case(name)
}

/// `Table!Column`: the bang qualifier of Access, the same as a dot.
fn bang_qualifier(parser: &mut Parser, left: &Expr) -> Result<Expr, ParserError> {
    let bang = parser.next_token();
    let mut parts: Vec<Ident> = match left {
        Expr::Identifier(i) => vec![i.clone()],
        Expr::CompoundIdentifier(v) => v.clone(),
        _ => {
            return Err(ParserError::ParserError(format!(
                "'!' must follow a table name (Table!Column) at {}",
                bang.span.start
            )));
        }
    };
    parts.push(parser.parse_identifier()?);
    Ok(Expr::CompoundIdentifier(parts))
}

/// `Array(…)` (the word unquoted, an opening parenthesis next, no
/// `SELECT` or `WITH` after it) as a call of the function `Array`;
/// `None` (nothing consumed) for anything else.
fn array_call(parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
    let first = parser.peek_token_ref();
    let name = match &first.token {
        Token::Word(w) if w.keyword == Keyword::ARRAY && w.quote_style.is_none() => {
            w.to_ident(first.span)
        }
        _ => return None,
    };
    if parser.peek_nth_token_ref(1).token != Token::LParen {
        return None;
    }
    if let Token::Word(w) = &parser.peek_nth_token_ref(2).token
        && w.quote_style.is_none()
        && matches!(w.keyword, Keyword::SELECT | Keyword::WITH)
    {
        return None;
    }
    parser.next_token();
    Some(parser.parse_function(ObjectName::from(vec![name])))
}

/// Access's `ALTER TABLE t ALTER [COLUMN] c <type>` (the type without
/// the `TYPE` keyword sqlparser requires), parsed as `ALTER COLUMN c TYPE
/// <type>`; `None` (nothing consumed) for any other statement.
fn alter_column_type(parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
    let word = |n: usize| match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) => Some((w.keyword, w.quote_style.is_none())),
        _ => None,
    };
    let kw = |n: usize, k: Keyword| word(n) == Some((k, true));
    if !(kw(0, Keyword::ALTER) && kw(1, Keyword::TABLE)) {
        return None;
    }
    // the table name: words joined by periods
    let mut n = 2;
    loop {
        word(n)?;
        n += 1;
        if parser.peek_nth_token_ref(n).token != Token::Period {
            break;
        }
        n += 1;
    }
    if !kw(n, Keyword::ALTER) {
        return None;
    }
    n += 1;
    if kw(n, Keyword::COLUMN) {
        n += 1;
    }
    word(n)?;
    match word(n + 1) {
        Some((k, true))
            if !matches!(
                k,
                Keyword::SET | Keyword::DROP | Keyword::TYPE | Keyword::ADD
            ) => {}
        _ => return None,
    }
    Some(alter_column_type_statement(parser))
}

fn alter_column_type_statement(parser: &mut Parser) -> Result<Statement, ParserError> {
    parser.expect_keyword_is(Keyword::ALTER)?;
    parser.expect_keyword_is(Keyword::TABLE)?;
    let name = parser.parse_object_name(false)?;
    parser.expect_keyword_is(Keyword::ALTER)?;
    let _ = parser.parse_keyword(Keyword::COLUMN);
    let column_name = parser.parse_identifier()?;
    let data_type = parser.parse_data_type()?;
    Ok(Statement::AlterTable(AlterTable {
        name,
        if_exists: false,
        only: false,
        operations: vec![AlterTableOperation::AlterColumn {
            column_name,
            op: AlterColumnOperation::SetDataType {
                data_type,
                using: None,
                had_set: false,
            },
        }],
        location: None,
        on_cluster: None,
        table_type: None,
        end_token: AttachedToken::empty(),
    }))
}

/// `#…#`: reads the raw text up to the closing `#` and parses it as an
/// Access date/time literal.
fn date_literal(parser: &mut Parser) -> Result<Expr, ParserError> {
    let open = parser.next_token();
    let mut text = String::new();
    loop {
        let Some(t) = parser.next_token_no_skip() else {
            return Err(unterminated(&open));
        };
        match &t.token {
            Token::Sharp => break,
            Token::EOF => return Err(unterminated(&open)),
            // `#` immediately followed by `-` or `>` tokenizes as one
            // operator; the literal cannot contain it either way
            Token::HashMinus | Token::HashArrow | Token::HashLongArrow | Token::DoubleSharp => {
                return Err(ParserError::ParserError(format!(
                    "date literal starting at {}: put a space after its closing '#'",
                    open.span.start
                )));
            }
            other => text.push_str(&other.to_string()),
        }
    }
    let value = parse_date_literal(text.trim()).ok_or_else(|| {
        ParserError::ParserError(format!(
            "#{}#{} is not a date Access understands (use #m/d/yyyy#, #yyyy-mm-dd#, \
             optionally with a time such as 10:30:00 PM)",
            text.trim(),
            open.span.start
        ))
    })?;
    Ok(timestamp_expr(&value))
}

fn unterminated(open: &datafusion::sql::sqlparser::tokenizer::TokenWithSpan) -> ParserError {
    ParserError::ParserError(format!(
        "date literal starting at {} has no closing '#'",
        open.span.start
    ))
}

/// A Date/Time constant of the Arrow type Access dates have
/// (`Timestamp(Microsecond)`), so comparisons with Date/Time columns need
/// no cast on the column side and still seek indexes.
pub(crate) fn timestamp_expr(v: &AccessDateTime) -> Expr {
    super::ast::call(
        "arrow_cast",
        vec![
            super::ast::string(&v.iso()),
            super::ast::string("Timestamp(Microsecond, None)"),
        ],
    )
}

/// Deepest recursion sqlparser may enter for text the front end parses
/// itself (subqueries it builds, crosstab expressions); statements use the
/// session's `sql_parser.recursion_limit` (DataFusion's default is also
/// 50). Text past the statement-shape check
/// ([`crate::frontdoor::shape`]) stays well inside it.
pub(crate) const PARSER_RECURSION_LIMIT: usize = 50;

/// Parses one Access SQL query (for subqueries the front end builds).
pub(crate) fn parse_query(sql: &str) -> datafusion::error::Result<Query> {
    let mut p = Parser::new(&AccessDialect)
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .try_with_sql(sql)
        .map_err(|e| datafusion::error::DataFusionError::Plan(e.to_string()))?;
    p.parse_query()
        .map(|q| *q)
        .map_err(|e| datafusion::error::DataFusionError::Plan(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(sql: &str) -> String {
        Parser::parse_sql(&AccessDialect, sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .remove(0)
            .to_string()
    }

    #[test]
    fn alter_column_takes_a_type_without_the_type_keyword() {
        assert_eq!(
            parse("ALTER TABLE [My Table] ALTER COLUMN [c] TEXT(50)"),
            "ALTER TABLE [My Table] ALTER COLUMN [c] TYPE TEXT(50)"
        );
        assert_eq!(
            parse("alter table db.t alter c long"),
            "ALTER TABLE db.t ALTER COLUMN c TYPE long"
        );
        // the other ALTER COLUMN forms and other statements as before
        for sql in [
            "ALTER TABLE t ALTER COLUMN c TYPE DOUBLE",
            "ALTER TABLE t ALTER COLUMN c SET NOT NULL",
            "ALTER TABLE t ALTER COLUMN c DROP DEFAULT",
            "ALTER TABLE t ADD COLUMN c LONG",
            "ALTER TABLE t DROP COLUMN c",
        ] {
            assert_eq!(parse(sql), sql);
        }
        assert!(Parser::parse_sql(&AccessDialect, "ALTER TABLE t ALTER COLUMN c").is_err());
        assert!(Parser::parse_sql(&AccessDialect, "ALTER TABLE t ALTER COLUMN c LONG x").is_err());
    }

    #[test]
    fn xor_eqv_imp_bind_below_or() {
        assert_eq!(parse("SELECT a > b Xor b > c"), "SELECT a > b XOR b > c");
        let e = |sql: &str| match Parser::parse_sql(&AccessDialect, sql).unwrap().remove(0) {
            Statement::Query(q) => match *q.body {
                datafusion::sql::sqlparser::ast::SetExpr::Select(s) => match &s.projection[0] {
                    datafusion::sql::sqlparser::ast::SelectItem::UnnamedExpr(e) => e.clone(),
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        };
        // a Or b Xor c Eqv d Imp e = (((a Or b) Xor c) Eqv d) Imp e
        let Expr::BinaryOp { left, op, .. } = e("SELECT a Or b Xor c eqv d IMP e") else {
            panic!()
        };
        assert_eq!(op, BinaryOperator::Custom(IMP.into()));
        let Expr::BinaryOp { left, op, .. } = *left else {
            panic!()
        };
        assert_eq!(op, BinaryOperator::Custom(EQV.into()));
        let Expr::BinaryOp { left, op, .. } = *left else {
            panic!()
        };
        assert_eq!(op, BinaryOperator::Xor);
        assert!(matches!(
            *left,
            Expr::BinaryOp {
                op: BinaryOperator::Or,
                ..
            }
        ));
        // a name spelt Imp in brackets is a name
        assert_eq!(parse("SELECT [Imp] FROM t"), "SELECT [Imp] FROM t");
    }

    #[test]
    fn array_of_values_is_a_function_call() {
        // sqlparser alone would read a subquery after `ARRAY(`
        assert_eq!(
            parse("SELECT Array(1, -2.5, x)"),
            "SELECT Array(1, -2.5, x)"
        );
        assert_eq!(parse("SELECT array()"), "SELECT array()");
        assert_eq!(
            parse("SELECT NPV(0.1, Array(-100, 60, 60))"),
            "SELECT NPV(0.1, Array(-100, 60, 60))"
        );
        // the subquery form as before; a bracketed name is a name
        assert_eq!(parse("SELECT ARRAY(SELECT 1)"), "SELECT ARRAY(SELECT 1)");
        assert_eq!(parse("SELECT [Array] FROM t"), "SELECT [Array] FROM t");
    }

    #[test]
    fn double_minus_is_two_minus_signs_unless_a_comment_follows() {
        assert_eq!(parse("SELECT 30--7"), "SELECT 30 - -7");
        assert_eq!(parse("SELECT 30---7"), "SELECT 30 - --7");
        assert_eq!(parse("SELECT 30 -- note\n- 7"), "SELECT 30 - 7");
        assert_eq!(parse("-- a script\nSELECT 2"), "SELECT 2");
    }
}
