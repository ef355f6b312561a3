//! Math functions: Abs, Int, Fix, Round, Sgn, Sqr, Exp, Log, Atn, Sin,
//! Cos, Tan, Rnd. `Round` rounds half to even (banker's rounding) on the
//! value scaled by 10^digits, as Access does (so `Round(1.005, 2)` = 1,
//! 1.005 being just below half-way in binary); `Log` is the natural
//! logarithm.

use super::types;
use super::udf::{AccessScalar, Call, rescale};
use super::value::{Value, to_f64};
use datafusion::error::Result;
use std::sync::atomic::{AtomicU32, Ordering};

/// Applies `f` to a number keeping its kind: whole numbers stay whole,
/// Single stays Single, Decimal stays exact through `dec`.
fn keep_kind(
    c: &Call,
    f: fn(f64) -> f64,
    int: fn(i64) -> Option<i64>,
    dec: fn(i128, i8) -> Option<i128>,
) -> Result<Value> {
    Ok(match c.arg(0) {
        Value::Int(i) => Value::Int(int(*i).ok_or_else(|| c.err("overflow"))?),
        Value::Bool(b) => {
            Value::Int(int(if *b { -1 } else { 0 }).ok_or_else(|| c.err("overflow"))?)
        }
        Value::Single(x) => Value::Single(f(*x as f64) as f32),
        Value::Decimal(u, s) => Value::Decimal(dec(*u, *s).ok_or_else(|| c.err("overflow"))?, *s),
        other => Value::Double(f(c.num_of(other)?)),
    })
}

impl Call<'_> {
    fn num_of(&self, v: &Value) -> Result<f64> {
        Ok(to_f64(self.name, v)?.unwrap_or(0.0))
    }
}

fn abs(c: &Call) -> Result<Value> {
    keep_kind(c, f64::abs, i64::checked_abs, |u, _| u.checked_abs())
}

fn dec_floor(u: i128, s: i8) -> Option<i128> {
    let d = 10i128.checked_pow(s.max(0) as u32)?;
    Some(u.div_euclid(d) * d)
}
fn dec_trunc(u: i128, s: i8) -> Option<i128> {
    let d = 10i128.checked_pow(s.max(0) as u32)?;
    Some(u / d * d)
}

/// `Int`: the greatest whole number ≤ the argument (`Int(-8.4)` = -9).
fn int(c: &Call) -> Result<Value> {
    keep_kind(c, f64::floor, Some, dec_floor)
}
/// `Fix`: the argument without its fraction (`Fix(-8.4)` = -8).
fn fix(c: &Call) -> Result<Value> {
    keep_kind(c, f64::trunc, Some, dec_trunc)
}

/// `Round(number[, digits])`.
pub(crate) fn round(c: &Call) -> Result<Value> {
    let digits = c.int_or(1, "NumDigitsAfterDecimal", 0)?;
    if digits < 0 {
        return Err(c.err("argument NumDigitsAfterDecimal must be ≥ 0"));
    }
    if digits > 22 {
        return Err(c.err("argument NumDigitsAfterDecimal must be ≤ 22"));
    }
    let scale = |x: f64| {
        let p = 10f64.powi(digits as i32);
        let r = (x * p).round_ties_even() / p;
        if r.is_finite() { r } else { x }
    };
    Ok(match c.arg(0) {
        Value::Int(i) => Value::Int(*i),
        Value::Bool(b) => Value::Int(if *b { -1 } else { 0 }),
        Value::Single(x) => Value::Single(scale(*x as f64) as f32),
        Value::Decimal(u, s) => {
            if (digits as i8) >= *s {
                Value::Decimal(*u, *s)
            } else {
                let r = rescale(*u, *s, digits as i8).ok_or_else(|| c.err("overflow"))?;
                Value::Decimal(
                    rescale(r, digits as i8, *s).ok_or_else(|| c.err("overflow"))?,
                    *s,
                )
            }
        }
        other => Value::Double(scale(c.num_of(other)?)),
    })
}

fn sgn(c: &Call) -> Result<Value> {
    let x = c.num(0, "Number")?;
    Ok(Value::Int(if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }))
}

fn sqr(c: &Call) -> Result<Value> {
    let x = c.num(0, "Number")?;
    if x < 0.0 {
        return Err(c.err("argument Number must be ≥ 0"));
    }
    Ok(Value::Double(x.sqrt()))
}

fn exp(c: &Call) -> Result<Value> {
    let r = c.num(0, "Number")?.exp();
    if !r.is_finite() {
        return Err(c.err("overflow"));
    }
    Ok(Value::Double(r))
}

fn log(c: &Call) -> Result<Value> {
    let x = c.num(0, "Number")?;
    if x <= 0.0 {
        return Err(c.err("argument Number must be > 0"));
    }
    Ok(Value::Double(x.ln()))
}

fn unary(c: &Call, f: fn(f64) -> f64) -> Result<Value> {
    Ok(Value::Double(f(c.num(0, "Number")?)))
}
fn atn(c: &Call) -> Result<Value> {
    unary(c, f64::atan)
}
fn sin(c: &Call) -> Result<Value> {
    unary(c, f64::sin)
}
fn cos(c: &Call) -> Result<Value> {
    unary(c, f64::cos)
}
fn tan(c: &Call) -> Result<Value> {
    unary(c, f64::tan)
}

/// The generator's 24-bit state; Access starts every session from the
/// same seed (0x50000), so a session's sequence repeats without
/// `Randomize`.
static RND_STATE: AtomicU32 = AtomicU32::new(0x50000);

/// One step of Access's (Visual Basic's) linear congruential generator.
pub fn rnd_step(x: u32) -> u32 {
    (x.wrapping_mul(0x43FD_43FD).wrapping_add(0x00C3_9EC3)) & 0x00FF_FFFF
}

/// `Rnd([number])`: < 0 the same value for the same number (the seed is
/// taken from the number's Single bits), 0 the last value, > 0 or
/// omitted the next value. A query calls `Rnd()` once (Access does the
/// same unless a field is passed).
fn rnd(c: &Call) -> Result<Value> {
    let n = if c.has(0) { c.num(0, "Number")? } else { 1.0 };
    let next = if n < 0.0 {
        let bits = (n as f32).to_bits();
        let seed = bits.wrapping_add(bits >> 24) & 0x00FF_FFFF;
        let v = rnd_step(seed);
        RND_STATE.store(v, Ordering::Relaxed);
        v
    } else if n == 0.0 {
        RND_STATE.load(Ordering::Relaxed)
    } else {
        let mut cur = RND_STATE.load(Ordering::Relaxed);
        loop {
            let v = rnd_step(cur);
            match RND_STATE.compare_exchange(cur, v, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break v,
                Err(now) => cur = now,
            }
        }
    };
    Ok(Value::Single(next as f32 / 16_777_216.0))
}

/// The math functions.
pub fn functions() -> Vec<AccessScalar> {
    use types::*;
    vec![
        AccessScalar::new("Abs", 1, 1, numeric_first, abs),
        AccessScalar::new("Int", 1, 1, numeric_first, int),
        AccessScalar::new("Fix", 1, 1, numeric_first, fix),
        AccessScalar::new("Round", 1, 2, numeric_first, round),
        AccessScalar::new("Sgn", 1, 1, int16, sgn),
        AccessScalar::new("Sqr", 1, 1, float64, sqr),
        AccessScalar::new("Exp", 1, 1, float64, exp),
        AccessScalar::new("Log", 1, 1, float64, log),
        AccessScalar::new("Atn", 1, 1, float64, atn),
        AccessScalar::new("Sin", 1, 1, float64, sin),
        AccessScalar::new("Cos", 1, 1, float64, cos),
        AccessScalar::new("Tan", 1, 1, float64, tan),
        AccessScalar::new("Rnd", 0, 1, float32, rnd).volatile(),
    ]
}
