//! The Access function library as DataFusion functions: every VBA/Jet
//! expression function an Access query may call (text, conversion,
//! math, date, Format, choice, inspection, financial and miscellaneous
//! functions, and `Array` for the financial functions that take a list),
//! Access's own aggregates (First, Last, StDev, StDevP, Var, VarP) and
//! the functions Access operators are rewritten to (`access_concat`,
//! `access_like`, `access_pow`, `access_div`, and in [`arith`]
//! `access_add`, `access_sub`, `access_mul`, `access_intdiv`,
//! `access_mod`, `access_not`, `access_number`; the result types are
//! tabled in `docs/access-operators.md`). `docs/access-functions.md`
//! holds Microsoft's list of Access functions by category and what
//! jetsql does with each.
//!
//! Exports: one module per family ([`text`], [`convert`], [`math`], [`date`],
//! [`format`](mod@format), [`financial`], …) and [`register`], [`scalar_functions`],
//! [`aggregate_functions`], [`access_scalar`], [`access_aggregate`],
//! [`is_access_scalar`] and [`is_access_aggregate`].
//!
//! Each function is registered under its Access name in lower case
//! (`iif`, `mid`, `datediff`), `$` variants as aliases (`left$`). They
//! are meant for the session that runs Access-dialect statements, where
//! they replace DataFusion's functions of the same name (`round` is
//! banker's rounding, `log` the natural logarithm, `left`, `trim`,
//! `replace`, `instr`, `now` behave as in Access).
//!
//! Semantics follow Microsoft's documentation of each function in the
//! en-US locale (`m/d/yyyy` dates, `$`, `.` decimal point, `,` thousands
//! separator, English day and month names, Sunday the first day of the
//! week, the week of January 1 the first week). Date/Time values are
//! `Timestamp(Microsecond, None)`; a time alone is on 1899-12-30.
//! Functions are immutable (so constant calls fold and an index seek
//! survives `WHERE d > DateSerial(1998, 1, 1)`) except Date, Time, Now,
//! Timer and Rnd; Space and String run with the rows rather than being
//! folded while planning (their size check says they are volatile:
//! [`crate::frontdoor::strings::UNFOLDED_FUNCTIONS`]).

pub mod aggregate;
pub mod arith;
pub mod calendar;
pub mod convert;
pub mod date;
pub mod datefmt;
pub mod financial;
pub mod fold;
pub mod format;
pub mod inspect;
pub mod like;
pub mod logic;
pub mod math;
pub mod misc;
pub mod numfmt;
pub mod operators;
pub mod parse;
pub mod serial;
pub mod text;
pub mod types;
pub mod udf;
pub mod value;

#[cfg(test)]
mod proptests;

use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use std::sync::Arc;

/// Every Access scalar function and operator helper.
pub fn scalar_functions() -> Vec<Arc<ScalarUDF>> {
    let groups = [
        text::functions(),
        logic::functions(),
        convert::functions(),
        math::functions(),
        date::functions(),
        format::functions(),
        misc::functions(),
        financial::functions(),
        operators::functions(),
        arith::functions(),
    ];
    let mut out: Vec<Arc<ScalarUDF>> = groups
        .into_iter()
        .flatten()
        .map(|f| Arc::new(ScalarUDF::new_from_impl(f)))
        .collect();
    // VarType, TypeName and the Is functions that inspect a value's type
    out.extend(
        inspect::TypeInspect::all()
            .into_iter()
            .map(|f| Arc::new(ScalarUDF::new_from_impl(f))),
    );
    // NPV, IRR, MIRR and Array take or make lists, which `Value` has not
    out.extend(financial::list_functions());
    out
}

/// Access's aggregates: First, Last, StDev, StDevP, Var, VarP.
pub fn aggregate_functions() -> Vec<Arc<AggregateUDF>> {
    let mut out = vec![
        Arc::new(AggregateUDF::new_from_impl(aggregate::FirstLast::first())),
        Arc::new(AggregateUDF::new_from_impl(aggregate::FirstLast::last())),
    ];
    out.extend(
        aggregate::Spread::all()
            .into_iter()
            .map(|s| Arc::new(AggregateUDF::new_from_impl(s))),
    );
    out
}

/// Whether `f` is one of Access's scalar functions or the Access
/// planner's text fold, also when size-checked. Access functions share
/// names with DataFusion functions of other meanings (`log` is the natural
/// logarithm in Access, `round` rounds half to even, …), so a plan sent to
/// another process must say which of the two it calls.
pub fn is_access_scalar(f: &ScalarUDF) -> bool {
    let inner = crate::frontdoor::strings::unchecked(f).inner();
    inner.is::<udf::AccessScalar>()
        || inner.is::<inspect::TypeInspect>()
        || inner.is::<financial::CashFlows>()
        || inner.is::<financial::ArrayOf>()
        || inner.is::<fold::TextFold>()
}

/// Access's scalar function `name` (or the text fold), size-checked
/// against `limit` bytes like the shell's: the function
/// [`is_access_scalar`] named in a plan.
pub fn access_scalar(name: &str, limit: u64) -> Option<Arc<ScalarUDF>> {
    if name == crate::scan::pushdown::TEXT_FOLD {
        return Some(fold::text_fold_udf());
    }
    scalar_functions()
        .into_iter()
        .find(|f| f.name() == name)
        .map(|f| crate::frontdoor::strings::size_checked(f, limit))
}

/// Whether `f` is one of Access's aggregates ([`aggregate_functions`]).
pub fn is_access_aggregate(f: &AggregateUDF) -> bool {
    let inner = f.inner();
    inner.is::<aggregate::FirstLast>() || inner.is::<aggregate::Spread>()
}

/// Access's aggregate `name`: the function [`is_access_aggregate`]
/// named in a plan.
pub fn access_aggregate(name: &str) -> Option<Arc<AggregateUDF>> {
    aggregate_functions().into_iter().find(|f| f.name() == name)
}

/// Registers every Access function on a session context, replacing
/// DataFusion's functions of the same names.
pub fn register(ctx: &datafusion::prelude::SessionContext) {
    for f in scalar_functions() {
        ctx.register_udf(f.as_ref().clone());
    }
    for f in aggregate_functions() {
        ctx.register_udaf(f.as_ref().clone());
    }
}

#[cfg(test)]
mod registry_tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_function_is_registered_once_in_lower_case() {
        let mut names = HashSet::new();
        for f in scalar_functions() {
            assert_eq!(f.name(), f.name().to_lowercase());
            assert!(names.insert(f.name().to_string()), "{} twice", f.name());
            for a in f.aliases() {
                assert!(names.insert(a.clone()), "{a} twice");
            }
        }
        for f in aggregate_functions() {
            assert!(names.insert(f.name().to_string()), "{} twice", f.name());
        }
        let wanted = "iif nz switch choose isnull isnumeric isdate isempty len left right mid \
            instr instrrev ucase lcase trim ltrim rtrim space string replace strcomp strreverse \
            strconv asc ascw chr chrw hex oct val str format formatnumber formatcurrency \
            formatpercent formatdatetime cbool cbyte ccur cdate cdbl cdec cint clng csng cstr \
            cvar abs int fix round sgn sqr exp log atn sin cos tan rnd date time now timer year \
            month day hour minute second weekday weekdayname monthname dateadd datediff datepart \
            dateserial timeserial datevalue timevalue first last stdev stdevp var varp \
            vartype typename isarray iserror ismissing isobject partition qbcolor rgb \
            access_concat access_like access_mod access_intdiv access_pow access_div access_add \
            access_sub access_mul access_not access_number pmt ipmt ppmt pv fv nper rate npv \
            irr mirr ddb sln syd array \
            left$ right$ mid$ format$ ucase$ lcase$ trim$ chr$ str$";
        for w in wanted.split_whitespace() {
            assert!(names.contains(w), "{w} is missing");
        }
    }

    #[test]
    fn access_functions_are_told_from_datafusions() {
        for f in scalar_functions() {
            assert!(is_access_scalar(&f), "{}", f.name());
            let again = access_scalar(f.name(), 1 << 30).unwrap();
            assert!(is_access_scalar(&again), "{} size-checked", f.name());
            assert_eq!(again.name(), f.name());
        }
        for f in aggregate_functions() {
            assert!(is_access_aggregate(&f));
            assert_eq!(access_aggregate(f.name()).unwrap().name(), f.name());
        }
        // DataFusion's functions of the same names are not Access's
        for f in datafusion::functions::all_default_functions() {
            assert!(!is_access_scalar(&f), "{}", f.name());
        }
        for f in datafusion::functions_aggregate::all_default_aggregate_functions() {
            assert!(!is_access_aggregate(&f), "{}", f.name());
        }
        let fold = access_scalar(crate::scan::pushdown::TEXT_FOLD, 1).unwrap();
        assert!(is_access_scalar(&fold));
        assert!(access_scalar("no_such_function", 1).is_none());
    }
}
