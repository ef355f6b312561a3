//! The maths of the financial functions: the annuity relation solved for
//! each of its terms, cash-flow values, depreciation, and the iteration
//! Rate and IRR share. Plain numbers; no SQL.

/// How close Rate and IRR get: "accurate to within 0.00001 percent".
pub(super) const TOLERANCE: f64 = 1e-7;
/// How many steps Rate and IRR take before failing: "If Rate can't find a
/// result after 20 tries, it fails."
pub(super) const TRIES: usize = 20;

// ---------------------------------------------------------------------
// The annuity relation
// ---------------------------------------------------------------------

/// The terms of an annuity: the rate per period, the number of periods
/// and whether payments fall due at the start of each period.
#[derive(Debug, Clone, Copy)]
pub(super) struct Terms {
    pub(super) rate: f64,
    pub(super) nper: f64,
    pub(super) start: bool,
}

impl Terms {
    /// (1 + rate)^nper − 1, through `ln_1p` and `exp_m1` so that small
    /// rates keep their digits.
    pub(super) fn growth_m1(self) -> f64 {
        if self.rate > -1.0 {
            (self.nper * self.rate.ln_1p()).exp_m1()
        } else {
            (1.0 + self.rate).powf(self.nper) - 1.0
        }
    }

    /// 1 + rate when payments fall due at the start of each period, else 1.
    pub(super) fn timing(self) -> f64 {
        if self.start { 1.0 + self.rate } else { 1.0 }
    }
}

/// The payment per period that takes `pv` to `fv` (Pmt). `nper` ≠ 0.
pub(super) fn payment(t: Terms, pv: f64, fv: f64) -> f64 {
    if t.rate == 0.0 {
        return -(pv + fv) / t.nper;
    }
    let gm1 = t.growth_m1();
    // divided before multiplied by the rate, so a large growth stays finite
    (-(fv + pv * (gm1 + 1.0)) / (t.timing() * gm1)) * t.rate
}

/// The balance after the terms, from `pv` with payment `pmt` (FV).
pub(super) fn future_value(t: Terms, pmt: f64, pv: f64) -> f64 {
    if t.rate == 0.0 {
        return -(pv + pmt * t.nper);
    }
    let gm1 = t.growth_m1();
    -(pv * (gm1 + 1.0) + pmt / t.rate * t.timing() * gm1)
}

/// The value now of payments `pmt` and a final `fv` (PV).
pub(super) fn present_value(t: Terms, pmt: f64, fv: f64) -> f64 {
    if t.rate == 0.0 {
        return -(fv + pmt * t.nper);
    }
    let gm1 = t.growth_m1();
    -(fv + pmt * t.timing() * (gm1 / t.rate)) / (gm1 + 1.0)
}

/// The interest part of payment `per` (IPmt): the rate times the balance
/// the period starts from. With payments at the start of each period the
/// first payment is all principal (no interest has accrued yet).
pub(super) fn interest(t: Terms, per: f64, pv: f64, fv: f64) -> f64 {
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
pub(super) fn periods(
    rate: f64,
    pmt: f64,
    pv: f64,
    fv: f64,
    start: bool,
) -> Result<f64, &'static str> {
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
pub(super) fn annuity_gap(
    rate: f64,
    nper: f64,
    pmt: f64,
    pv: f64,
    fv: f64,
    start: bool,
) -> (f64, f64) {
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
pub(super) fn net_present_value(rate: f64, values: &[f64]) -> f64 {
    values
        .iter()
        .rev()
        .fold(0.0, |acc, v| (acc + v) / (1.0 + rate))
}

/// The amounts' value at `rate` discounted to the first amount,
/// Σ valueᵢ·(1 + rate)^−i, and its derivative in the rate: zero at the
/// internal rate of return.
pub(super) fn flows_gap(rate: f64, values: &[f64]) -> (f64, f64) {
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
pub(super) fn has_both_signs(values: &[f64]) -> bool {
    values.iter().any(|v| *v < 0.0) && values.iter().any(|v| *v > 0.0)
}

/// VBA's MIRR: the payments' value at the start (discounted at
/// `finance`) and the receipts' value at the end (compounded at
/// `reinvest`), the rate that grows the one into the other over
/// len − 1 periods. Needs both signs and rates other than −1.
pub(super) fn modified_irr(values: &[f64], finance: f64, reinvest: f64) -> f64 {
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
pub(super) fn solve(f: impl Fn(f64) -> (f64, f64), guess: f64) -> Option<f64> {
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
pub(super) const NO_CONVERGENCE: &str =
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
pub(super) fn declining_balance(
    cost: f64,
    salvage: f64,
    life: f64,
    period: f64,
    factor: f64,
) -> f64 {
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
pub(super) fn sum_of_years(cost: f64, salvage: f64, life: f64, period: f64) -> f64 {
    (cost - salvage) / (life * (life + 1.0)) * (life + 1.0 - period) * 2.0
}
