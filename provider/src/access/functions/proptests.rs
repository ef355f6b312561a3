//! Property tests with independent oracles: `Mid` against
//! `chars().skip().take()`, `Round` against exact half-even rounding of
//! halves and of decimals, and `Format`/`Like` against arbitrary
//! patterns (no panic, bounded output).

use super::format::format_value;
use super::like::LikePattern;
use super::udf::Call;
use super::value::Value;
use datafusion::arrow::datatypes::DataType;
use proptest::prelude::*;

fn call(
    f: fn(&Call) -> datafusion::error::Result<Value>,
    name: &'static str,
    args: &[Value],
) -> datafusion::error::Result<Value> {
    let ret = DataType::Utf8;
    f(&Call {
        name,
        args,
        ret: &ret,
    })
}

proptest! {
    #[test]
    fn mid_is_skip_take(s in "\\PC{0,30}", start in 1i64..40, len in 0i64..40) {
        let got = call(super::text::mid, "Mid", &[Value::Text(s.clone()), Value::Int(start), Value::Int(len)]).unwrap();
        let want: String = s.chars().skip(start as usize - 1).take(len as usize).collect();
        prop_assert_eq!(got, Value::Text(want));
    }

    #[test]
    fn round_halves_to_even(n in -2_000_000i64..2_000_000) {
        // n / 2 is exact in binary; the oracle rounds the rational n/2.
        let x = n as f64 / 2.0;
        let want = if n % 2 == 0 {
            n / 2
        } else {
            let lo = (n - 1).div_euclid(2);
            if lo % 2 == 0 { lo } else { lo + 1 }
        };
        let got = call(super::math::round, "Round", &[Value::Double(x)]).unwrap();
        prop_assert_eq!(got, Value::Double(want as f64));
    }

    #[test]
    fn round_decimals_exactly(u in -10_000_000_000i128..10_000_000_000, digits in 0i64..4) {
        // Currency (scale 4) rounded to `digits`: the oracle works on the
        // decimal digits as text.
        let got = call(super::math::round, "Round", &[Value::Decimal(u, 4), Value::Int(digits)]).unwrap();
        let drop = 4 - digits as u32;
        let unit = 10i128.pow(drop);
        let q = u / unit; // truncated toward zero
        let r = (u % unit).abs();
        let up = 2 * r > unit || (2 * r == unit && q % 2 != 0);
        let q = if up { q + u.signum() } else { q };
        prop_assert_eq!(got, Value::Decimal(q * unit, 4));
    }

    #[test]
    fn format_never_panics(
        pattern in "[0#.,%Ee+\\-;\"\\\\@&<>!dmyhnswqctAMPap/: xX]{0,24}",
        x in proptest::num::f64::ANY,
        day in -600_000i64..2_900_000,
    ) {
        for v in [
            Value::Double(x),
            Value::Int(x as i64),
            Value::Date(day * 86_400_000_000 / 100),
            Value::Text(format!("{x}")),
            Value::Null,
        ] {
            if let Ok(Some(s)) = format_value(&v, &pattern) {
                prop_assert!(s.len() < 4_000, "{} chars for {:?}", s.len(), pattern);
            }
        }
    }

    #[test]
    fn like_never_panics(pattern in "[a-c*?#\\[\\]!\\-]{0,12}", text in "[a-c0-9*\\-]{0,12}") {
        if let Ok(p) = LikePattern::new(&pattern) {
            let _ = p.matches(&text);
        }
    }

    #[test]
    fn like_literal_star_oracle(pattern in "[ab*]{0,8}", text in "[ab]{0,8}") {
        // Oracle: a straightforward recursive matcher for `*` and letters.
        fn rec(p: &[char], t: &[char]) -> bool {
            match p.split_first() {
                None => t.is_empty(),
                Some(('*', rest)) => (0..=t.len()).any(|k| rec(rest, &t[k..])),
                Some((c, rest)) => t.first() == Some(c) && rec(rest, &t[1..]),
            }
        }
        let p: Vec<char> = pattern.chars().collect();
        let t: Vec<char> = text.chars().collect();
        prop_assert_eq!(LikePattern::new(&pattern).unwrap().matches(&text), rec(&p, &t));
    }
}
