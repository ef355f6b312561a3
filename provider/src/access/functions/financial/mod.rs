//! Financial functions: the annuity functions Pmt, IPmt, PPmt, PV, FV,
//! NPer and Rate; the cash-flow functions NPV, IRR and MIRR; the
//! depreciation functions DDB, SLN and SYD; and VBA's `Array`, which
//! builds the list of amounts the cash-flow functions take
//! (`IRR(Array(-1000, 300, 400, 500))`).
//!
//! Semantics are those of Microsoft's VBA reference page of each function
//! (<https://learn.microsoft.com/office/vba/language/reference/user-interface-help/pmt-function>
//! and its siblings): every result is a Double; a Null argument gives
//! Null; cash paid out is negative and cash received positive; `type` 0
//! (or omitted) means payments due at the end of each period and any
//! other number at the beginning (VBA tests `type <> 0`). Where a page
//! states a limit (`per` from 1 to `nper`, a positive `life`) an argument
//! outside it is an error naming the function and the argument.
//!
//! The annuity functions solve one relation between their five values
//! (Microsoft's PV page) for one of them:
//!
//! ```text
//! pv·(1 + rate)^nper + pmt·(1 + rate·type)·((1 + rate)^nper − 1)/rate + fv = 0
//! pv + pmt·nper + fv = 0                                  (rate = 0)
//! ```
//!
//! Rate and IRR find their rate by iteration from `guess` (0.1 when
//! omitted), as the pages say: Newton's method, falling back to
//! bisection once two rates bracket the answer, "until the result is
//! accurate to within 0.00001 percent"; after 20 tries without that, the
//! call fails.
//!
//! NPV, IRR and MIRR take VBA's `values()` array as a list of numbers (a
//! DataFusion List: `Array(…)`, `make_array(…)`, `array_agg(amount ORDER
//! BY period)`); a Null list, or a Null amount in it, gives Null.
//! Unlike numpy-financial's `npv`, VBA's NPV discounts the first amount
//! by one period: "The NPV investment begins one period before the date
//! of the first cash flow value".
//!
//! Files: `math.rs` holds the relations and the iteration (plain numbers,
//! no SQL); this file the row functions over them; `lists.rs` the
//! functions over lists (NPV, IRR, MIRR, Array); `tests.rs` their tests
//! against Microsoft's examples and numpy-financial.
//!
//! Exports: [`functions`], [`list_functions`] and their types
//! [`CashFlows`] and [`ArrayOf`].

mod lists;
mod math;
#[cfg(test)]
mod tests;

pub use lists::{ArrayOf, CashFlows, list_functions};

use super::types;
use super::udf::{AccessScalar, Call};
use super::value::{Value, fn_err};
use datafusion::error::Result;
use math::{
    NO_CONVERGENCE, Terms, annuity_gap, declining_balance, future_value, interest, payment,
    periods, present_value, solve, sum_of_years,
};
// ---------------------------------------------------------------------
// The row functions
// ---------------------------------------------------------------------

/// Optional number argument `i`, `default` when not given.
fn num_or(c: &Call, i: usize, label: &str, default: f64) -> Result<f64> {
    if c.has(i) {
        c.num(i, label)
    } else {
        Ok(default)
    }
}

/// Whether payments fall due at the start of each period: the optional
/// `type` argument `i` is given and not 0.
fn at_start(c: &Call, i: usize) -> Result<bool> {
    Ok(num_or(c, i, "Type", 0.0)? != 0.0)
}

/// A finite result as a Double; otherwise Access's overflow error (or,
/// for an undefined result, an error saying so).
fn double(name: &str, x: f64) -> Result<f64> {
    if x.is_finite() {
        Ok(x)
    } else if x.is_nan() {
        Err(fn_err(name, "the result is undefined for these arguments"))
    } else {
        Err(fn_err(name, "overflow"))
    }
}

/// `Pmt(rate, nper, pv[, fv[, type]])`.
fn pmt(c: &Call) -> Result<Value> {
    let t = Terms {
        rate: c.num(0, "Rate")?,
        nper: c.num(1, "NPer")?,
        start: at_start(c, 4)?,
    };
    let (pv, fv) = (c.num(2, "PV")?, num_or(c, 3, "FV", 0.0)?);
    if t.nper == 0.0 {
        return Err(c.err("argument NPer must not be 0"));
    }
    double(c.name, payment(t, pv, fv)).map(Value::Double)
}

/// The arguments of IPmt and PPmt, `(rate, per, nper, pv[, fv[, type]])`:
/// the terms, `per`, `pv` and `fv`. `per` must lie "in the range 1
/// through nper", as the pages say.
fn period_args(c: &Call) -> Result<(Terms, f64, f64, f64)> {
    let t = Terms {
        rate: c.num(0, "Rate")?,
        nper: c.num(2, "NPer")?,
        start: at_start(c, 5)?,
    };
    let per = c.num(1, "Per")?;
    if !(1.0..=t.nper).contains(&per) {
        return Err(c.err(format!(
            "argument Per must be in the range 1 through NPer ({}), not {per}",
            t.nper
        )));
    }
    Ok((t, per, c.num(3, "PV")?, num_or(c, 4, "FV", 0.0)?))
}

/// `IPmt(rate, per, nper, pv[, fv[, type]])`.
fn ipmt(c: &Call) -> Result<Value> {
    let (t, per, pv, fv) = period_args(c)?;
    double(c.name, interest(t, per, pv, fv)).map(Value::Double)
}

/// `PPmt(rate, per, nper, pv[, fv[, type]])`: the payment less its
/// interest part.
fn ppmt(c: &Call) -> Result<Value> {
    let (t, per, pv, fv) = period_args(c)?;
    double(c.name, payment(t, pv, fv) - interest(t, per, pv, fv)).map(Value::Double)
}

/// `PV(rate, nper, pmt[, fv[, type]])`.
fn pv(c: &Call) -> Result<Value> {
    let t = Terms {
        rate: c.num(0, "Rate")?,
        nper: c.num(1, "NPer")?,
        start: at_start(c, 4)?,
    };
    let (pmt, fv) = (c.num(2, "Pmt")?, num_or(c, 3, "FV", 0.0)?);
    double(c.name, present_value(t, pmt, fv)).map(Value::Double)
}

/// `FV(rate, nper, pmt[, pv[, type]])`.
fn fv(c: &Call) -> Result<Value> {
    let t = Terms {
        rate: c.num(0, "Rate")?,
        nper: c.num(1, "NPer")?,
        start: at_start(c, 4)?,
    };
    let (pmt, pv) = (c.num(2, "Pmt")?, num_or(c, 3, "PV", 0.0)?);
    double(c.name, future_value(t, pmt, pv)).map(Value::Double)
}

/// `NPer(rate, pmt, pv[, fv[, type]])`.
fn nper(c: &Call) -> Result<Value> {
    let rate = c.num(0, "Rate")?;
    if rate <= -1.0 {
        return Err(c.err("argument Rate must be greater than -1"));
    }
    let (pmt, pv) = (c.num(1, "Pmt")?, c.num(2, "PV")?);
    let (fv, start) = (num_or(c, 3, "FV", 0.0)?, at_start(c, 4)?);
    let n = periods(rate, pmt, pv, fv, start).map_err(|e| c.err(e))?;
    double(c.name, n).map(Value::Double)
}

/// `Rate(nper, pmt, pv[, fv[, type[, guess]]])`.
fn rate(c: &Call) -> Result<Value> {
    let nper = c.num(0, "NPer")?;
    if nper <= 0.0 {
        return Err(c.err("argument NPer must be greater than 0"));
    }
    let (pmt, pv) = (c.num(1, "Pmt")?, c.num(2, "PV")?);
    let (fv, start) = (num_or(c, 3, "FV", 0.0)?, at_start(c, 4)?);
    let guess = num_or(c, 5, "Guess", 0.1)?;
    if guess <= -1.0 || guess.is_nan() {
        return Err(c.err("argument Guess must be greater than -1"));
    }
    solve(|r| annuity_gap(r, nper, pmt, pv, fv, start), guess)
        .map(Value::Double)
        .ok_or_else(|| c.err(NO_CONVERGENCE))
}

/// The arguments every depreciation function checks: `life` > 0,
/// `salvage` ≥ 0 and (when given) 0 < `period` ≤ `life`.
fn check_asset(c: &Call, salvage: f64, life: f64, period: Option<f64>) -> Result<()> {
    if life <= 0.0 || life.is_nan() {
        return Err(c.err("argument Life must be greater than 0"));
    }
    if salvage < 0.0 {
        return Err(c.err("argument Salvage must not be negative"));
    }
    match period {
        Some(p) if p <= 0.0 || p.is_nan() => Err(c.err("argument Period must be greater than 0")),
        Some(p) if p > life => Err(c.err(format!(
            "argument Period ({p}) must not be greater than Life ({life})"
        ))),
        _ => Ok(()),
    }
}

/// `DDB(cost, salvage, life, period[, factor])`.
fn ddb(c: &Call) -> Result<Value> {
    let (cost, salvage) = (c.num(0, "Cost")?, c.num(1, "Salvage")?);
    let (life, period) = (c.num(2, "Life")?, c.num(3, "Period")?);
    let factor = num_or(c, 4, "Factor", 2.0)?;
    check_asset(c, salvage, life, Some(period))?;
    if factor <= 0.0 || factor.is_nan() {
        return Err(c.err("argument Factor must be greater than 0"));
    }
    double(
        c.name,
        declining_balance(cost, salvage, life, period, factor),
    )
    .map(Value::Double)
}

/// `SLN(cost, salvage, life)`: (cost − salvage)/life.
fn sln(c: &Call) -> Result<Value> {
    let (cost, salvage, life) = (c.num(0, "Cost")?, c.num(1, "Salvage")?, c.num(2, "Life")?);
    check_asset(c, salvage, life, None)?;
    double(c.name, (cost - salvage) / life).map(Value::Double)
}

/// `SYD(cost, salvage, life, period)`.
fn syd(c: &Call) -> Result<Value> {
    let (cost, salvage) = (c.num(0, "Cost")?, c.num(1, "Salvage")?);
    let (life, period) = (c.num(2, "Life")?, c.num(3, "Period")?);
    check_asset(c, salvage, life, Some(period))?;
    double(c.name, sum_of_years(cost, salvage, life, period)).map(Value::Double)
}

/// The financial functions over numbers (Pmt, IPmt, PPmt, PV, FV, NPer,
/// Rate, DDB, SLN, SYD); [`list_functions`] has the ones over lists.
pub fn functions() -> Vec<AccessScalar> {
    use types::float64;
    vec![
        AccessScalar::new("Pmt", 3, 5, float64, pmt),
        AccessScalar::new("IPmt", 4, 6, float64, ipmt),
        AccessScalar::new("PPmt", 4, 6, float64, ppmt),
        AccessScalar::new("PV", 3, 5, float64, pv),
        AccessScalar::new("FV", 3, 5, float64, fv),
        AccessScalar::new("NPer", 3, 5, float64, nper),
        AccessScalar::new("Rate", 3, 6, float64, rate),
        AccessScalar::new("DDB", 4, 5, float64, ddb),
        AccessScalar::new("SLN", 3, 3, float64, sln),
        AccessScalar::new("SYD", 4, 4, float64, syd),
    ]
}
