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

use super::types;
use super::udf::{AccessScalar, Call, canonical, cell};
use super::value::{Value, fn_err, to_f64};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Builder, ListBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::ScalarValue;
use datafusion::error::Result;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use std::sync::Arc;

/// How close Rate and IRR get: "accurate to within 0.00001 percent".
const TOLERANCE: f64 = 1e-7;
/// How many steps Rate and IRR take before failing: "If Rate can't find a
/// result after 20 tries, it fails."
const TRIES: usize = 20;

// ---------------------------------------------------------------------
// The annuity relation
// ---------------------------------------------------------------------

/// The terms of an annuity: the rate per period, the number of periods
/// and whether payments fall due at the start of each period.
#[derive(Debug, Clone, Copy)]
struct Terms {
    rate: f64,
    nper: f64,
    start: bool,
}

impl Terms {
    /// (1 + rate)^nper − 1, through `ln_1p` and `exp_m1` so that small
    /// rates keep their digits.
    fn growth_m1(self) -> f64 {
        if self.rate > -1.0 {
            (self.nper * self.rate.ln_1p()).exp_m1()
        } else {
            (1.0 + self.rate).powf(self.nper) - 1.0
        }
    }

    /// 1 + rate when payments fall due at the start of each period, else 1.
    fn timing(self) -> f64 {
        if self.start { 1.0 + self.rate } else { 1.0 }
    }
}

/// The payment per period that takes `pv` to `fv` (Pmt). `nper` ≠ 0.
fn payment(t: Terms, pv: f64, fv: f64) -> f64 {
    if t.rate == 0.0 {
        return -(pv + fv) / t.nper;
    }
    let gm1 = t.growth_m1();
    // divided before multiplied by the rate, so a large growth stays finite
    (-(fv + pv * (gm1 + 1.0)) / (t.timing() * gm1)) * t.rate
}

/// The balance after the terms, from `pv` with payment `pmt` (FV).
fn future_value(t: Terms, pmt: f64, pv: f64) -> f64 {
    if t.rate == 0.0 {
        return -(pv + pmt * t.nper);
    }
    let gm1 = t.growth_m1();
    -(pv * (gm1 + 1.0) + pmt / t.rate * t.timing() * gm1)
}

/// The value now of payments `pmt` and a final `fv` (PV).
fn present_value(t: Terms, pmt: f64, fv: f64) -> f64 {
    if t.rate == 0.0 {
        return -(fv + pmt * t.nper);
    }
    let gm1 = t.growth_m1();
    -(fv + pmt * t.timing() * (gm1 / t.rate)) / (gm1 + 1.0)
}

/// The interest part of payment `per` (IPmt): the rate times the balance
/// the period starts from. With payments at the start of each period the
/// first payment is all principal (no interest has accrued yet).
fn interest(t: Terms, per: f64, pv: f64, fv: f64) -> f64 {
    if t.start && per == 1.0 {
        return 0.0;
    }
    let pmt = payment(t, pv, fv);
    let balance = if t.start {
        // the first payment, made at once, then per − 2 ordinary periods
        let before = Terms {
            nper: per - 2.0,
            start: false,
            ..t
        };
        future_value(before, pmt, pv + pmt)
    } else {
        future_value(
            Terms {
                nper: per - 1.0,
                ..t
            },
            pmt,
            pv,
        )
    };
    balance * t.rate
}

/// The number of periods that takes `pv` to `fv` with payment `pmt`
/// (NPer), or why there is none. `rate` > −1.
fn periods(rate: f64, pmt: f64, pv: f64, fv: f64, start: bool) -> Result<f64, &'static str> {
    if rate == 0.0 {
        if pmt == 0.0 {
            return Err("argument Pmt must not be 0 when Rate is 0");
        }
        return Ok(-(pv + fv) / pmt);
    }
    // (1 + rate)^nper = (z − fv) / (z + pv), z = pmt·(1 + rate·type)/rate
    let timing = if start { 1.0 + rate } else { 1.0 };
    let z = pmt * timing / rate;
    let (mut num, mut den) = (z - fv, z + pv);
    if num < 0.0 && den < 0.0 {
        (num, den) = (-num, -den);
    }
    if num <= 0.0 || den <= 0.0 {
        return Err("no number of periods takes PV to FV with this payment and rate");
    }
    Ok((num.ln() - den.ln()) / rate.ln_1p())
}

/// The annuity relation at `rate` in present-value form,
/// pv + pmt·(1 + rate·type)·(1 − (1 + rate)^−nper)/rate + fv·(1 + rate)^−nper,
/// and its derivative in the rate: zero at the rate Rate looks for.
fn annuity_gap(rate: f64, nper: f64, pmt: f64, pv: f64, fv: f64, start: bool) -> (f64, f64) {
    // q = (1 + rate)^−nper; a = (1 − q)/rate, the annuity factor
    let (q, dq, a, da) = if rate == 0.0 {
        (1.0, -nper, nper, -nper * (nper + 1.0) / 2.0)
    } else {
        let q_m1 = (-nper * rate.ln_1p()).exp_m1();
        let q = q_m1 + 1.0;
        let dq = -nper * q / (1.0 + rate);
        let a = -q_m1 / rate;
        (q, dq, a, (-dq - a) / rate)
    };
    let (k, dk) = if start { (1.0 + rate, 1.0) } else { (1.0, 0.0) };
    (pv + pmt * k * a + fv * q, pmt * (dk * a + k * da) + fv * dq)
}

// ---------------------------------------------------------------------
// Cash flows
// ---------------------------------------------------------------------

/// VBA's NPV: Σ valueᵢ / (1 + rate)^(i+1), the first amount discounted
/// by one period (numpy-financial's `npv` would be this times 1 + rate).
fn net_present_value(rate: f64, values: &[f64]) -> f64 {
    values
        .iter()
        .rev()
        .fold(0.0, |acc, v| (acc + v) / (1.0 + rate))
}

/// The amounts' value at `rate` discounted to the first amount,
/// Σ valueᵢ·(1 + rate)^−i, and its derivative in the rate: zero at the
/// internal rate of return.
fn flows_gap(rate: f64, values: &[f64]) -> (f64, f64) {
    let x = 1.0 / (1.0 + rate);
    // Horner's rule in x for the sum and its derivative in x
    let (mut sum, mut d_sum) = (0.0f64, 0.0f64);
    for v in values.iter().rev() {
        d_sum = d_sum * x + sum;
        sum = sum * x + v;
    }
    (sum, -d_sum * x * x)
}

/// Whether the amounts hold a payment (< 0) and a receipt (> 0), which
/// IRR and MIRR require.
fn has_both_signs(values: &[f64]) -> bool {
    values.iter().any(|v| *v < 0.0) && values.iter().any(|v| *v > 0.0)
}

/// VBA's MIRR: the payments' value at the start (discounted at
/// `finance`) and the receipts' value at the end (compounded at
/// `reinvest`), the rate that grows the one into the other over
/// len − 1 periods. Needs both signs and rates other than −1.
fn modified_irr(values: &[f64], finance: f64, reinvest: f64) -> f64 {
    let n = values.len();
    let (mut paid, mut received) = (0.0f64, 0.0f64);
    for (i, v) in values.iter().enumerate() {
        if *v < 0.0 {
            paid += v / (1.0 + finance).powi(i as i32);
        } else {
            received += v * (1.0 + reinvest).powi((n - 1 - i) as i32);
        }
    }
    (-received / paid).powf(1.0 / (n as f64 - 1.0)) - 1.0
}

/// Newton's method from `guess` on `f` (a function of the rate returning
/// its value and derivative), with fallbacks: a step that leaves the
/// rates above −1 goes half way to −1 instead; once two rates give
/// values of opposite signs, a step that leaves the interval between
/// them (or does not halve the step before it) bisects it; a rate where
/// `f` overflows is pulled half way back. Stops when a step is under
/// [`TOLERANCE`] (then takes one more Newton step to polish the last
/// digits), or fails after [`TRIES`] steps.
fn solve(f: impl Fn(f64) -> (f64, f64), guess: f64) -> Option<f64> {
    let mut r = guess;
    let (mut y, mut dy) = f(r);
    if !y.is_finite() {
        return None;
    }
    // the latest rates where f is below and above zero
    let (mut below, mut above): (Option<f64>, Option<f64>) = (None, None);
    let mut last_step = f64::INFINITY;
    for _ in 0..TRIES {
        if y == 0.0 {
            return Some(r);
        }
        if y < 0.0 {
            below = Some(r);
        } else {
            above = Some(r);
        }
        let mut next = r - y / dy;
        if let (Some(a), Some(b)) = (below, above) {
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            if !(next > lo && next < hi) || (next - r).abs() > last_step / 2.0 {
                next = lo.midpoint(hi);
            }
        } else if !(next > -1.0 && next.is_finite()) {
            next = r.midpoint(-1.0);
        }
        let (mut next_y, mut next_dy) = f(next);
        let mut pulls = 0;
        while !next_y.is_finite() && pulls < 60 {
            next = next.midpoint(r);
            (next_y, next_dy) = f(next);
            pulls += 1;
        }
        if !next_y.is_finite() {
            return None;
        }
        let step = (next - r).abs();
        if step < TOLERANCE {
            let polish = next_y / next_dy;
            let polished = next - polish;
            return Some(if polish.abs() < TOLERANCE && polished > -1.0 {
                polished
            } else {
                next
            });
        }
        last_step = step;
        (r, y, dy) = (next, next_y, next_dy);
    }
    None
}

/// The error of a Rate or IRR that did not converge.
const NO_CONVERGENCE: &str =
    "the iteration did not converge to within 0.00001 percent in 20 tries (try another Guess)";

// ---------------------------------------------------------------------
// Depreciation
// ---------------------------------------------------------------------

/// VBA's DDB: the declining-balance depreciation of period `period`,
/// never taking the book value below `salvage` (Microsoft's formula:
/// Min((cost − prior depreciation)·factor/life, cost − salvage − prior
/// depreciation), and 0 once the salvage is reached). VBA's special
/// cases: no depreciation of an asset costing nothing; an asset of a
/// life under two periods (or of two, in its first period) is written
/// down to its salvage at once; a fraction of a first period counts as
/// the first period. Arguments are checked by the caller.
fn declining_balance(cost: f64, salvage: f64, life: f64, period: f64, factor: f64) -> f64 {
    if cost <= 0.0 {
        return 0.0;
    }
    if life < 2.0 || (life == 2.0 && period <= 1.0) {
        return cost - salvage;
    }
    if life == 2.0 {
        return 0.0;
    }
    let rate = factor / life;
    if period <= 1.0 {
        return (cost * rate).min(cost - salvage);
    }
    // the book value this period starts from, had no earlier period
    // reached the salvage (when one has, book − salvage is ≤ 0)
    let book = cost * (1.0 - rate).powf(period - 1.0);
    (book * rate).min(book - salvage).max(0.0)
}

/// VBA's SYD: period `period`'s share of cost − salvage, the shares
/// falling by one each period (life, life − 1, …, 1 over their sum).
fn sum_of_years(cost: f64, salvage: f64, life: f64, period: f64) -> f64 {
    (cost - salvage) / (life * (life + 1.0)) * (life + 1.0 - period) * 2.0
}

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
enum Flows {
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
    fn eval(self, values: &[f64], nums: &[f64]) -> Result<f64> {
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
/// [`AccessScalar`]'s.
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
fn argument(
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `f` of the Access function over `args` (Doubles), as a query calls it.
    fn call(f: fn(&Call) -> Result<Value>, name: &'static str, args: &[f64]) -> Result<f64> {
        let vals: Vec<Value> = args.iter().map(|x| Value::Double(*x)).collect();
        let c = Call {
            name,
            args: &vals,
            ret: &DataType::Float64,
        };
        match f(&c)? {
            Value::Double(x) => Ok(x),
            other => panic!("{name}: {other:?} is no Double"),
        }
    }

    fn ok(f: fn(&Call) -> Result<Value>, name: &'static str, args: &[f64]) -> f64 {
        call(f, name, args).unwrap_or_else(|e| panic!("{name}{args:?}: {e}"))
    }

    fn error(f: fn(&Call) -> Result<Value>, name: &'static str, args: &[f64]) -> String {
        match call(f, name, args) {
            Ok(x) => panic!("{name}{args:?}: no error, answered {x}"),
            Err(e) => e.to_string(),
        }
    }

    /// `x` rounded to cents (the pages print money so).
    fn cents(x: f64) -> f64 {
        (x * 100.0).round() / 100.0
    }

    fn close(a: f64, b: f64, tol: f64, what: &str) {
        assert!((a - b).abs() <= tol, "{what}: {a} is not {b} (±{tol})");
    }

    /// Excel's PMT page examples (<https://support.microsoft.com/en-US/excel/functions/pmt-function>; the same function
    /// as VBA's Pmt, <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/pmt-function>): 10 monthly payments of a 10,000
    /// loan at 8% a year, at the end and at the start of each month, and
    /// saving 50,000 in 18 years at 6%.
    #[test]
    fn pmt_matches_microsofts_examples() {
        assert_eq!(
            cents(ok(pmt, "Pmt", &[0.08 / 12.0, 10.0, 10000.0])),
            -1037.03
        );
        assert_eq!(
            cents(ok(pmt, "Pmt", &[0.08 / 12.0, 10.0, 10000.0, 0.0, 1.0])),
            -1030.16
        );
        assert_eq!(
            cents(ok(pmt, "Pmt", &[0.06 / 12.0, 216.0, 0.0, 50000.0])),
            -129.08
        );
        // rate 0: the amount spread evenly
        assert_eq!(ok(pmt, "Pmt", &[0.0, 10.0, 1000.0, 500.0]), -150.0);
        assert!(
            error(pmt, "Pmt", &[0.1, 0.0, 1000.0]).contains("Pmt: argument NPer must not be 0")
        );
    }

    /// Excel's IPMT and PPMT page examples (<https://support.microsoft.com/en-US/excel/functions/ipmt-function>,
    /// <https://support.microsoft.com/en-US/excel/functions/ppmt-function>; VBA's <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/ipmt-function>, <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/ppmt-function>):
    /// the first month's interest on 8,000 over 3 years at 10% is -66.67,
    /// the last year's on yearly payments -292.45; the first month's
    /// principal of 2,000 over 2 years at 10% is -75.62, the 10th year's
    /// of 200,000 at 8% -27,598.05.
    #[test]
    fn ipmt_and_ppmt_match_microsofts_examples() {
        assert_eq!(
            cents(ok(ipmt, "IPmt", &[0.1 / 12.0, 1.0, 36.0, 8000.0])),
            -66.67
        );
        assert_eq!(cents(ok(ipmt, "IPmt", &[0.1, 3.0, 3.0, 8000.0])), -292.45);
        assert_eq!(
            cents(ok(ppmt, "PPmt", &[0.1 / 12.0, 1.0, 24.0, 2000.0])),
            -75.62
        );
        assert_eq!(
            cents(ok(ppmt, "PPmt", &[0.08, 10.0, 10.0, 200000.0])),
            -27598.05
        );
        // payments at the start: the first is all principal
        assert_eq!(ok(ipmt, "IPmt", &[0.1, 1.0, 10.0, 1000.0, 0.0, 1.0]), 0.0);
        let p = ok(pmt, "Pmt", &[0.1, 10.0, 1000.0, 0.0, 1.0]);
        assert_eq!(ok(ppmt, "PPmt", &[0.1, 1.0, 10.0, 1000.0, 0.0, 1.0]), p);
        // interest plus principal is the payment, every period
        let p = ok(pmt, "Pmt", &[0.01, 24.0, 5000.0, -1000.0]);
        for per in 1..=24 {
            let args = [0.01, per as f64, 24.0, 5000.0, -1000.0];
            let sum = ok(ipmt, "IPmt", &args) + ok(ppmt, "PPmt", &args);
            close(sum, p, 1e-9, "IPmt + PPmt");
        }
        for bad in [0.0, 25.5] {
            let e = error(ipmt, "IPmt", &[0.01, bad, 24.0, 5000.0]);
            assert!(
                e.contains("IPmt: argument Per must be in the range 1 through NPer"),
                "{e}"
            );
        }
    }

    /// Excel's PV and FV page examples (<https://support.microsoft.com/en-US/excel/functions/pv-function>,
    /// <https://support.microsoft.com/en-US/excel/functions/fv-function>; VBA's <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/pv-function>, <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/fv-function>): 500 a
    /// month for 20 years at 8% is worth -59,777.15 now; 200 a month for
    /// 10 months at 6% on top of 500, paid at the start, grows to
    /// 2,581.40; 1,000 a month for 12 months at 12% to 12,682.50.
    #[test]
    fn pv_and_fv_match_microsofts_examples() {
        assert_eq!(cents(ok(pv, "PV", &[0.08 / 12.0, 240.0, 500.0])), -59777.15);
        assert_eq!(
            cents(ok(fv, "FV", &[0.06 / 12.0, 10.0, -200.0, -500.0, 1.0])),
            2581.40
        );
        assert_eq!(cents(ok(fv, "FV", &[0.12 / 12.0, 12.0, -1000.0])), 12682.50);
        // rate 0: plain sums
        assert_eq!(ok(pv, "PV", &[0.0, 10.0, -100.0, 50.0]), 950.0);
        assert_eq!(ok(fv, "FV", &[0.0, 10.0, -100.0, -50.0]), 1050.0);
        // PV and FV are each other's inverse
        let start = -1234.5;
        let end = ok(fv, "FV", &[0.004, 37.5, -20.0, start, 1.0]);
        close(
            ok(pv, "PV", &[0.004, 37.5, -20.0, end, 1.0]),
            start,
            1e-9,
            "PV(FV)",
        );
    }

    /// Excel's NPER page examples (<https://support.microsoft.com/en-US/excel/functions/nper-function>; VBA's
    /// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/nper-function>): 100 a month at 12% a year from -1,000 to
    /// 10,000 takes 59.67 months paid at the start, 60.08 at the end; to
    /// 0, -9.58 (a negative number of periods).
    #[test]
    fn nper_matches_microsofts_examples() {
        let n = |args: &[f64]| ok(nper, "NPer", args);
        assert_eq!(cents(n(&[0.01, -100.0, -1000.0, 10000.0, 1.0])), 59.67);
        assert_eq!(cents(n(&[0.01, -100.0, -1000.0, 10000.0])), 60.08);
        assert_eq!(cents(n(&[0.01, -100.0, -1000.0])), -9.58);
        // rate 0: (pv + fv) over the payment
        assert_eq!(n(&[0.0, -100.0, 1000.0, -200.0]), 8.0);
        // the payment of the terms gives the terms back
        let p = ok(pmt, "Pmt", &[0.005, 123.0, 20000.0, -3000.0, 1.0]);
        close(
            n(&[0.005, p, 20000.0, -3000.0, 1.0]),
            123.0,
            1e-9,
            "NPer(Pmt)",
        );
        // 50 a period never pays off 1,000 at 10% (the interest is 100)
        let e = error(nper, "NPer", &[0.1, -50.0, 1000.0]);
        assert!(
            e.contains("NPer: no number of periods takes PV to FV"),
            "{e}"
        );
        let e = error(nper, "NPer", &[0.0, 0.0, 1000.0]);
        assert!(
            e.contains("NPer: argument Pmt must not be 0 when Rate is 0"),
            "{e}"
        );
        assert!(error(nper, "NPer", &[-1.0, -50.0, 1000.0]).contains("greater than -1"));
    }

    /// Excel's RATE page example (<https://support.microsoft.com/en-US/excel/functions/rate-function>; VBA's
    /// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/rate-function>): 200 a month for 4 years repays 8,000 at 0.77%
    /// a month (9.24% a year); Rate inverts Pmt, also for payments at the
    /// start and a balloon, and from another guess.
    #[test]
    fn rate_matches_microsofts_example_and_inverts_pmt() {
        let r = ok(rate, "Rate", &[48.0, -200.0, 8000.0]);
        assert_eq!((r * 10000.0).round() / 100.0, 0.77);
        assert_eq!((r * 12.0 * 10000.0).round() / 100.0, 9.24);
        for (r0, n, pv0, fv0, ty) in [
            (0.005, 360.0, 250000.0, 0.0, 0.0),
            (0.08, 10.0, -5000.0, 20000.0, 1.0),
            (0.0125, 47.5, 18000.0, -4000.0, 0.0),
            (0.0, 12.0, 1200.0, 0.0, 0.0),
        ] {
            let p = ok(pmt, "Pmt", &[r0, n, pv0, fv0, ty]);
            for guess in [0.1, r0 + 0.02] {
                let got = ok(rate, "Rate", &[n, p, pv0, fv0, ty, guess]);
                close(got, r0, 1e-12, "Rate(Pmt)");
            }
        }
        // no rate makes receipts alone worth a receipt
        let e = error(rate, "Rate", &[10.0, 100.0, 1000.0]);
        assert!(e.contains("Rate: the iteration did not converge"), "{e}");
        assert!(
            error(rate, "Rate", &[0.0, -100.0, 1000.0]).contains("NPer must be greater than 0")
        );
        assert!(
            error(rate, "Rate", &[10.0, -100.0, 1000.0, 0.0, 0.0, -1.0])
                .contains("Guess must be greater than -1")
        );
    }

    fn flows(kind: Flows, values: &[f64], nums: &[f64]) -> Result<f64> {
        kind.eval(values, nums)
    }

    /// Excel's NPV page example (<https://support.microsoft.com/en-US/excel/functions/npv-function>; VBA's
    /// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/npv-function>): -10,000 a year from now, then 3,000, 4,200 and
    /// 6,800, at 10% are worth 1,188.44 — VBA discounts the first amount
    /// by one period too, unlike numpy-financial's npv.
    #[test]
    fn npv_discounts_the_first_amount_one_period() {
        let v = [-10000.0, 3000.0, 4200.0, 6800.0];
        assert_eq!(cents(flows(Flows::Npv, &v, &[0.1]).unwrap()), 1188.44);
        // by the definition, Σ vᵢ / 1.1^(i+1)
        let by_hand: f64 = v
            .iter()
            .enumerate()
            .map(|(i, x)| x / 1.1f64.powi(i as i32 + 1))
            .sum();
        close(flows(Flows::Npv, &v, &[0.1]).unwrap(), by_hand, 1e-9, "NPV");
        assert_eq!(flows(Flows::Npv, &[100.0, 100.0], &[0.0]).unwrap(), 200.0);
        let e = flows(Flows::Npv, &[], &[0.1]).unwrap_err().to_string();
        assert!(
            e.contains("NPV: argument Values must hold at least one amount"),
            "{e}"
        );
        let e = flows(Flows::Npv, &v, &[-1.0]).unwrap_err().to_string();
        assert!(e.contains("NPV: argument Rate must not be -1"), "{e}");
    }

    /// Excel's IRR page examples (<https://support.microsoft.com/en-US/excel/functions/irr-function>; VBA's
    /// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/irr-function>): -70,000 then 12,000, 15,000, 18,000, 21,000
    /// return -2.1%; with 26,000 more, 8.7%; the first three from a guess
    /// of -10%, -44.4%. NPV at the IRR of the VBA page's flows is 0.
    #[test]
    fn irr_matches_microsofts_examples() {
        let irr = |v: &[f64], guess: &[f64]| flows(Flows::Irr, v, guess).unwrap();
        let pct = |x: f64| (x * 1000.0).round() / 10.0;
        let four = [-70000.0, 12000.0, 15000.0, 18000.0, 21000.0];
        assert_eq!(pct(irr(&four, &[])), -2.1);
        let five = [-70000.0, 12000.0, 15000.0, 18000.0, 21000.0, 26000.0];
        assert_eq!(pct(irr(&five, &[])), 8.7);
        assert_eq!(pct(irr(&five[..3], &[-0.1])), -44.4);
        // the VBA page's own flows: NPV at the result is 0
        let vba = [-70000.0, 22000.0, 25000.0, 28000.0, 31000.0];
        let r = irr(&vba, &[0.1]);
        close(net_present_value(r, &vba), 0.0, 1e-6, "NPV(IRR)");
        // Microsoft: "at least one negative value … and one positive value"
        let e = flows(Flows::Irr, &[100.0, 200.0], &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("IRR: argument Values must hold at least one negative"),
            "{e}"
        );
        // -100 + 300x − 300x² has no real root: no rate to converge to
        let e = flows(Flows::Irr, &[-100.0, 300.0, -300.0], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("IRR: the iteration did not converge"), "{e}");
    }

    /// Excel's MIRR page examples (<https://support.microsoft.com/en-US/excel/functions/mirr-function>; VBA's
    /// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/mirr-function>): -120,000 then 39,000, 30,000, 21,000, 37,000,
    /// 46,000 at 10% financing and 12% reinvestment give 12.6%; after
    /// three years -4.8%; at 14% reinvestment 13.5%.
    #[test]
    fn mirr_matches_microsofts_examples() {
        let v = [-120000.0, 39000.0, 30000.0, 21000.0, 37000.0, 46000.0];
        let pct = |x: f64| (x * 1000.0).round() / 10.0;
        let mirr = |v: &[f64], f: f64, r: f64| flows(Flows::Mirr, v, &[f, r]).unwrap();
        assert_eq!(pct(mirr(&v, 0.1, 0.12)), 12.6);
        assert_eq!(pct(mirr(&v[..4], 0.1, 0.12)), -4.8);
        assert_eq!(pct(mirr(&v, 0.1, 0.14)), 13.5);
        let e = flows(Flows::Mirr, &[-1.0, -2.0], &[0.1, 0.1])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("MIRR: argument Values must hold at least one negative"),
            "{e}"
        );
    }

    /// Excel's DDB page examples (<https://support.microsoft.com/en-US/excel/functions/ddb-function>; VBA's
    /// <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/ddb-function>): an asset of 2,400 with a salvage of 300 over 10
    /// years depreciates 1.32 on its first day, 40.00 in its first month,
    /// 480.00 in its first year, 306.00 in its second at a factor of 1.5,
    /// 22.12 in its tenth.
    #[test]
    fn ddb_matches_microsofts_examples() {
        let d = |args: &[f64]| cents(ok(ddb, "DDB", args));
        assert_eq!(d(&[2400.0, 300.0, 3650.0, 1.0]), 1.32);
        assert_eq!(d(&[2400.0, 300.0, 120.0, 1.0, 2.0]), 40.0);
        assert_eq!(d(&[2400.0, 300.0, 10.0, 1.0, 2.0]), 480.0);
        assert_eq!(d(&[2400.0, 300.0, 10.0, 2.0, 1.5]), 306.0);
        assert_eq!(d(&[2400.0, 300.0, 10.0, 10.0]), 22.12);
    }

    /// DDB against the Excel page's formula (<https://support.microsoft.com/en-US/excel/functions/ddb-function>) taken one
    /// period at a time (Min((cost − total so far)·factor/life, cost −
    /// salvage − total so far)): equal every period, and the total never
    /// passes cost − salvage (the book value never falls below the
    /// salvage).
    #[test]
    fn ddb_follows_the_period_formula_and_stops_at_the_salvage() {
        for (cost, salvage, life, factor) in [
            (2400.0, 300.0, 10.0, 2.0),
            (10000.0, 2500.0, 5.0, 2.0),
            (10000.0, 4000.0, 8.0, 3.0),
            (5000.0, 0.0, 7.0, 1.5),
            (800.0, 700.0, 12.0, 2.0),
            (1e6, 1.0, 40.0, 2.5),
        ] {
            let mut total: f64 = 0.0;
            for p in 1..=(life as i32) {
                let expected = ((cost - total) * (factor / life))
                    .min(cost - salvage - total)
                    .max(0.0);
                let got = ok(ddb, "DDB", &[cost, salvage, life, p as f64, factor]);
                close(
                    got,
                    expected,
                    1e-6,
                    &format!("DDB({cost}, {salvage}, {life}, {p}, {factor})"),
                );
                total += got;
                assert!(
                    total <= cost - salvage + 1e-6,
                    "past the salvage at period {p}"
                );
            }
        }
        for (args, msg) in [
            (
                &[2400.0, 300.0, 0.0, 1.0][..],
                "DDB: argument Life must be greater than 0",
            ),
            (
                &[2400.0, 300.0, 10.0, 11.0][..],
                "DDB: argument Period (11) must not be greater than Life (10)",
            ),
            (
                &[2400.0, 300.0, 10.0, 0.0][..],
                "DDB: argument Period must be greater than 0",
            ),
            (
                &[2400.0, -1.0, 10.0, 1.0][..],
                "DDB: argument Salvage must not be negative",
            ),
            (
                &[2400.0, 300.0, 10.0, 1.0, 0.0][..],
                "DDB: argument Factor must be greater than 0",
            ),
        ] {
            let e = error(ddb, "DDB", args);
            assert!(e.contains(msg), "{e}");
        }
    }

    /// Excel's SLN and SYD page examples (<https://support.microsoft.com/en-US/excel/functions/sln-function>,
    /// <https://support.microsoft.com/en-US/excel/functions/syd-function>; VBA's <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/sln-function>, <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/syd-function>):
    /// 30,000 with a salvage of 7,500 over 10 years depreciates 2,250 a
    /// year by SLN, 4,090.91 in the first year and 409.09 in the tenth by
    /// SYD. By hand: SYD's shares are life, life − 1, … over their sum,
    /// and add up to cost − salvage, as SLN's do.
    #[test]
    fn sln_and_syd_match_microsofts_examples_and_the_formula() {
        assert_eq!(ok(sln, "SLN", &[30000.0, 7500.0, 10.0]), 2250.0);
        assert_eq!(
            cents(ok(syd, "SYD", &[30000.0, 7500.0, 10.0, 1.0])),
            4090.91
        );
        assert_eq!(
            cents(ok(syd, "SYD", &[30000.0, 7500.0, 10.0, 10.0])),
            409.09
        );
        for (cost, salvage, life) in [
            (30000.0, 7500.0, 10.0),
            (999.0, 0.0, 3.0),
            (5e5, 1234.0, 25.0),
        ] {
            let digits = life * (life + 1.0) / 2.0;
            let mut total = 0.0;
            for p in 1..=(life as i32) {
                let got = ok(syd, "SYD", &[cost, salvage, life, p as f64]);
                let share = (life - p as f64 + 1.0) / digits;
                close(got, (cost - salvage) * share, 1e-6, "SYD share");
                total += got;
            }
            close(total, cost - salvage, 1e-6, "SYD total");
            let line = ok(sln, "SLN", &[cost, salvage, life]);
            close(line * life, cost - salvage, 1e-6, "SLN total");
        }
        assert!(
            error(sln, "SLN", &[100.0, 10.0, 0.0])
                .contains("SLN: argument Life must be greater than 0")
        );
        assert!(
            error(syd, "SYD", &[100.0, 10.0, 5.0, 6.0]).contains("must not be greater than Life")
        );
        assert!(
            error(syd, "SYD", &[100.0, 10.0, 5.0, 0.0]).contains("Period must be greater than 0")
        );
    }

    /// The solver itself (Rate's and IRR's, <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/rate-function>): a root
    /// from either side, and giving up where there is none.
    #[test]
    fn solve_converges_or_gives_up() {
        // (1 + r)² = 1.21 → r = 0.1 from far on either side
        let f = |r: f64| ((1.0 + r) * (1.0 + r) - 1.21, 2.0 * (1.0 + r));
        close(solve(f, 5.0).unwrap(), 0.1, 1e-12, "from above");
        close(solve(f, -0.9).unwrap(), 0.1, 1e-12, "from below");
        // no root: gives up
        assert!(solve(|r: f64| (r * r + 1.0, 2.0 * r), 0.5).is_none());
    }
}
