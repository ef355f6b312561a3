//! Number patterns of `Format`: sections split by `;` (positive;
//! negative; zero; Null), digit placeholders `0` and `#`, the decimal
//! point, `,` as thousands separator (between digit placeholders) or as
//! a ÷1000 scale (right before the point or at the end), `%`, `E+ E- e+
//! e-` scientific notation, literal text in quotes or after `\`.
//!
//! The symbols every Access format may hold ("Format property",
//! <https://learn.microsoft.com/office/vba/api/access.textbox.format>)
//! are read too: a `[Color]` section colour (Black, Blue, Green, Cyan,
//! Red, Magenta, Yellow, White) is removed by [`strip_colors`], since
//! text has no colour; `*` followed by a character fills "available
//! space" with it, and a `Format` result is exactly as wide as its text,
//! so both are dropped; `!` (left alignment) is dropped too.
//!
//! Every pattern is accepted: characters without a meaning are shown
//! as they are, and nothing here can panic or allocate more than a small
//! multiple of the pattern and the number's length.

/// The colours a format section may name in brackets, in lower case.
pub const COLORS: [&str; 8] = [
    "black", "blue", "green", "cyan", "red", "magenta", "yellow", "white",
];

/// `pattern` without its `[Color]` names (`[Red]`, `[blue]`: any case,
/// outside quotes, not after `\`): the colour a section is shown in, which
/// text output has no place for. Brackets around anything else stay.
pub fn strip_colors(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut quoted = false;
    let mut rest = pattern;
    while let Some(c) = rest.chars().next() {
        let width = c.len_utf8();
        if quoted {
            quoted = c != '"';
        } else if c == '"' {
            quoted = true;
        } else if c == '\\' {
            // the escaped character goes out as it is
            out.push(c);
            rest = &rest[width..];
            if let Some(e) = rest.chars().next() {
                out.push(e);
                rest = &rest[e.len_utf8()..];
            }
            continue;
        } else if c == '['
            && let Some(close) = rest.find(']')
            && COLORS
                .iter()
                .any(|k| rest[1..close].eq_ignore_ascii_case(k))
        {
            rest = &rest[close + 1..];
            continue;
        }
        out.push(c);
        rest = &rest[width..];
    }
    out
}

/// Splits a pattern into its `;` sections (quotes and `\` escapes
/// respected).
pub fn sections(pattern: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = pattern.chars();
    let mut quoted = false;
    while let Some(ch) = chars.next() {
        let cur = out.last_mut().expect("sections starts non-empty");
        match ch {
            '"' => {
                quoted = !quoted;
                cur.push(ch);
            }
            '\\' if !quoted => {
                cur.push(ch);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            ';' if !quoted => out.push(String::new()),
            _ => cur.push(ch),
        }
    }
    out
}

/// A token of a number pattern section.
#[derive(Debug, Clone, PartialEq)]
pub enum NumTok {
    /// `0`: a digit, 0 when there is none.
    Zero,
    /// `#`: a digit, nothing when there is none.
    Hash,
    /// The first `.`.
    Point,
    /// `,`.
    Comma,
    /// `%`.
    Percent,
    /// `E+`, `E-`, `e+`, `e-`.
    Exp {
        /// Upper-case `E`.
        upper: bool,
        /// Show `+` for positive exponents.
        plus: bool,
    },
    /// Literal text.
    Lit(String),
}

/// The tokens of one number pattern section.
pub fn lex(section: &str) -> Vec<NumTok> {
    let mut out = Vec::new();
    let mut chars = section.chars().peekable();
    let mut point = false;
    while let Some(ch) = chars.next() {
        match ch {
            '0' => out.push(NumTok::Zero),
            '#' => out.push(NumTok::Hash),
            '.' if !point => {
                point = true;
                out.push(NumTok::Point);
            }
            ',' => out.push(NumTok::Comma),
            '%' => out.push(NumTok::Percent),
            'E' | 'e' if matches!(chars.peek(), Some('+') | Some('-')) => {
                let plus = chars.next() == Some('+');
                out.push(NumTok::Exp {
                    upper: ch == 'E',
                    plus,
                });
            }
            '"' => {
                let lit: String = chars.by_ref().take_while(|c| *c != '"').collect();
                out.push(NumTok::Lit(lit));
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(NumTok::Lit(n.to_string()));
                }
            }
            // `*x` fills available space with `x`: a result has none
            '*' => {
                chars.next();
            }
            '!' | '_' => {}
            other => out.push(NumTok::Lit(other.to_string())),
        }
    }
    out
}

/// `x` (≥ 0) rounded half away from zero to `k` decimals, after reducing
/// it to the 15 significant digits a Double shows: the integer digits
/// (empty for 0) and exactly `k` fraction digits.
pub fn round_fixed(x: f64, k: usize) -> (String, String) {
    let x = x.abs();
    if x == 0.0 || !x.is_finite() {
        return (String::new(), "0".repeat(k));
    }
    let sci = format!("{x:.14e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    // value = digits × 10^(exp − 14); scaled by 10^k:
    let shift = exp - 14 + k as i64;
    let mut n: Vec<u8> = if shift >= 0 {
        let mut v = digits.clone();
        v.extend(std::iter::repeat_n(b'0', shift as usize));
        v
    } else {
        let cut = (-shift) as usize;
        if cut > digits.len() {
            Vec::new()
        } else {
            let keep = digits.len() - cut;
            let mut v = digits[..keep].to_vec();
            if digits[keep] >= b'5' {
                increment(&mut v);
            }
            v
        }
    };
    while n.len() > 1 && n[0] == b'0' {
        n.remove(0);
    }
    if n.is_empty() || n == b"0" {
        return (String::new(), "0".repeat(k));
    }
    if n.len() <= k {
        let mut pad = vec![b'0'; k - n.len()];
        pad.extend(n);
        return (String::new(), String::from_utf8(pad).unwrap_or_default());
    }
    let (int, frac) = n.split_at(n.len() - k);
    (
        String::from_utf8(int.to_vec()).unwrap_or_default(),
        String::from_utf8(frac.to_vec()).unwrap_or_default(),
    )
}

fn increment(v: &mut Vec<u8>) {
    for d in v.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return;
        }
    }
    v.insert(0, b'1');
}

/// Inserts `,` every three digits from the right.
pub fn group(int: &str) -> String {
    let b = int.as_bytes();
    let mut out = String::with_capacity(b.len() + b.len() / 3);
    for (i, ch) in b.iter().enumerate() {
        if i > 0 && (b.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(*ch as char);
    }
    out
}

fn is_digit(t: &NumTok) -> bool {
    matches!(t, NumTok::Zero | NumTok::Hash)
}

/// Formats `x` (the sign already handled by the caller: it is shown as
/// its absolute value) with one section's tokens.
pub fn format_section(x: f64, toks: &[NumTok]) -> String {
    let mut x = x.abs();
    let exp_at = toks.iter().position(|t| matches!(t, NumTok::Exp { .. }));
    let mant = &toks[..exp_at.unwrap_or(toks.len())];
    let point_at = mant.iter().position(|t| *t == NumTok::Point);
    let int_end = point_at.unwrap_or(mant.len());
    let last_int_digit = mant[..int_end].iter().rposition(is_digit);
    let first_int_digit = mant[..int_end].iter().position(is_digit);
    // Commas: scaling when right after the last integer digit
    // placeholder (before the point or the end), grouping when between
    // digit placeholders.
    let mut grouping = false;
    let mut scale_commas = 0;
    for (i, t) in mant[..int_end].iter().enumerate() {
        if *t != NumTok::Comma {
            continue;
        }
        let digit_before = first_int_digit.is_some_and(|f| f < i);
        let digit_after = mant[i + 1..int_end].iter().any(is_digit);
        if digit_before && digit_after {
            grouping = true;
        } else if digit_before && !digit_after && last_int_digit.is_some_and(|l| l < i) {
            scale_commas += 1;
        }
    }
    for _ in 0..scale_commas {
        x /= 1000.0;
    }
    for _ in toks.iter().filter(|t| **t == NumTok::Percent) {
        x *= 100.0;
    }
    let dec_places: Vec<&NumTok> = mant[int_end..].iter().filter(|t| is_digit(t)).collect();
    let k = dec_places.len();
    let min_dec = dec_places
        .iter()
        .rposition(|t| **t == NumTok::Zero)
        .map_or(0, |p| p + 1);
    let int_places = mant[..int_end].iter().filter(|t| is_digit(t)).count();
    let int_zeros = mant[..int_end]
        .iter()
        .skip_while(|t| **t != NumTok::Zero)
        .filter(|t| is_digit(t))
        .count();

    let mut exponent: Option<i64> = None;
    let (mut int, mut frac) = if exp_at.is_some() {
        let n_int = int_places.max(1) as i64;
        let mut e = if x == 0.0 || !x.is_finite() {
            0
        } else {
            x.log10().floor() as i64 - (n_int - 1)
        };
        let mut parts = round_fixed(x / 10f64.powi(e as i32), k);
        if parts.0.len() as i64 > n_int {
            e += 1;
            parts = round_fixed(x / 10f64.powi(e as i32), k);
        }
        exponent = Some(e);
        parts
    } else {
        round_fixed(x, k)
    };
    // Fraction: trailing zeros past the last `0` placeholder are dropped.
    while frac.len() > min_dec && frac.ends_with('0') {
        frac.pop();
    }
    if int.len() < int_zeros {
        int = format!("{}{int}", "0".repeat(int_zeros - int.len()));
    }
    let int_text = if grouping { group(&int) } else { int.clone() };

    let mut out = String::new();
    // Integer digits, placeholder by placeholder from the right (all at
    // the first placeholder when grouping).
    let mut int_digits: Vec<char> = int_text.chars().collect();
    let int_slots: Vec<usize> = (0..int_end).filter(|&i| is_digit(&mant[i])).collect();
    let mut slot_text: Vec<String> = vec![String::new(); int_slots.len()];
    if grouping {
        if let Some(first) = slot_text.first_mut() {
            *first = int_text.clone();
        }
        int_digits.clear();
    } else {
        for (s, &slot) in int_slots.iter().enumerate().rev() {
            if s == 0 {
                slot_text[s] = int_digits.iter().collect();
                int_digits.clear();
            } else if let Some(d) = int_digits.pop() {
                slot_text[s] = d.to_string();
            } else if mant[slot] == NumTok::Zero {
                slot_text[s] = "0".into();
            }
        }
    }
    let mut frac_digits = frac.chars();
    for (i, t) in mant.iter().enumerate() {
        match t {
            NumTok::Zero | NumTok::Hash if i < int_end => {
                if let Some(s) = int_slots.iter().position(|&p| p == i) {
                    out.push_str(&slot_text[s]);
                }
            }
            NumTok::Zero | NumTok::Hash => {
                if let Some(d) = frac_digits.next() {
                    out.push(d);
                }
            }
            NumTok::Point => {
                if int_slots.is_empty() {
                    out.push_str(&int_digits.iter().collect::<String>());
                    int_digits.clear();
                }
                out.push('.');
            }
            NumTok::Comma => {}
            NumTok::Percent => out.push('%'),
            NumTok::Lit(s) => out.push_str(s),
            NumTok::Exp { .. } => {}
        }
    }
    if let (Some(at), Some(e)) = (exp_at, exponent)
        && let NumTok::Exp { upper, plus } = &toks[at]
    {
        out.push(if *upper { 'E' } else { 'e' });
        if e < 0 {
            out.push('-');
        } else if *plus {
            out.push('+');
        }
        let rest = &toks[at + 1..];
        let min_digits = rest.iter().filter(|t| **t == NumTok::Zero).count().max(1);
        let digits = e.unsigned_abs().to_string();
        let mut exp_text = format!("{digits:0>min_digits$}");
        for t in rest {
            match t {
                NumTok::Zero | NumTok::Hash => out.push_str(&std::mem::take(&mut exp_text)),
                NumTok::Lit(s) => out.push_str(s),
                NumTok::Percent => out.push('%'),
                NumTok::Point => out.push('.'),
                _ => {}
            }
        }
        out.push_str(&exp_text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64, p: &str) -> String {
        format_section(x, &lex(p))
    }

    #[test]
    fn digit_placeholders() {
        // https://learn.microsoft.com/office/vba/language/reference/user-interface-help/format-function-visual-basic-for-applications
        assert_eq!(f(5459.4, "##,##0.00"), "5,459.40");
        assert_eq!(f(334.9, "###0.00"), "334.90");
        assert_eq!(f(5.0, "0.00%"), "500.00%");
        assert_eq!(f(0.5, "#.##"), ".5");
        assert_eq!(f(5.0, "#.##"), "5.");
        assert_eq!(f(5_551_234_567.0, "(###) ###-####"), "(555) 123-4567");
        assert_eq!(f(1_234_567.0, "#,##0,"), "1,235");
        assert_eq!(f(1.005, "0.00"), "1.01");
        assert_eq!(f(2.5, "0"), "3");
        assert_eq!(f(7.0, "000"), "007");
    }

    #[test]
    fn scientific() {
        assert_eq!(f(5459.4, "0.00E+00"), "5.46E+03");
        assert_eq!(f(0.000123, "0.00E+00"), "1.23E-04");
        assert_eq!(f(0.000123, "0.00E-00"), "1.23E-04");
        assert_eq!(f(5459.4, "0.00E-00"), "5.46E03");
        assert_eq!(f(9.999, "0.00E+00"), "1.00E+01");
        assert_eq!(f(0.0, "0.00E+00"), "0.00E+00");
    }

    #[test]
    fn rounding_helper() {
        assert_eq!(round_fixed(0.125, 2), ("".into(), "13".into()));
        assert_eq!(round_fixed(99.995, 2), ("100".into(), "00".into()));
        assert_eq!(
            round_fixed(1e20, 0),
            ("100000000000000000000".into(), "".into())
        );
        assert_eq!(round_fixed(0.0004, 2), ("".into(), "00".into()));
    }

    #[test]
    fn colors_and_fill_characters() {
        // "Format property - Number and Currency data types"
        // (https://learn.microsoft.com/office/vba/api/access.format.propertynumber.and.currency):
        // $#,##0.00[Green];($#,##0.00)[Red];"Zero";"Null"
        assert_eq!(
            strip_colors("$#,##0.00[Green];($#,##0.00)[Red];\"Zero\";\"Null\""),
            "$#,##0.00;($#,##0.00);\"Zero\";\"Null\""
        );
        assert_eq!(strip_colors("[RED]0;[blue]-0"), "0;-0");
        // quoted or escaped brackets, and other names, are text
        assert_eq!(strip_colors("\"[Red]\"0"), "\"[Red]\"0");
        assert_eq!(strip_colors("\\[Red]0"), "\\[Red]0");
        assert_eq!(strip_colors("[Orange]0["), "[Orange]0[");
        // `*` and the fill character after it leave nothing
        assert_eq!(f(5.0, "0*-"), "5");
        assert_eq!(f(5.0, "*x0.0"), "5.0");
        assert_eq!(f(5.0, "!0"), "5");
    }

    #[test]
    fn sections_split() {
        assert_eq!(
            sections("0;(0);\"zero\";\"n;a\""),
            vec!["0", "(0)", "\"zero\"", "\"n;a\""]
        );
        assert_eq!(sections("\\;0"), vec!["\\;0"]);
    }
}
