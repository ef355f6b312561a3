//! Access's `Like` patterns: `*` any run of characters, `?` one
//! character, `#` one digit, `[a-c]` one character of a set, `[!a-c]` one
//! character outside it; matching ignores case. `[*]`, `[?]`, `[#]` and
//! `[[]` match the character itself.

/// A compiled pattern element.
#[derive(Debug, Clone, PartialEq)]
enum Elem {
    Any,
    One,
    Digit,
    Lit(char),
    Set {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// A compiled `Like` pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct LikePattern {
    elems: Vec<Elem>,
}

fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

impl LikePattern {
    /// Compiles a pattern; an unclosed `[` is an error naming its
    /// position (1-based).
    pub fn new(pattern: &str) -> Result<LikePattern, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut elems = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '*' => {
                    if elems.last() != Some(&Elem::Any) {
                        elems.push(Elem::Any);
                    }
                }
                '?' => elems.push(Elem::One),
                '#' => elems.push(Elem::Digit),
                '[' => {
                    let close = chars[i + 1..]
                        .iter()
                        .position(|c| *c == ']')
                        .map(|p| p + i + 1)
                        .ok_or_else(|| format!("the [ at position {} has no closing ]", i + 1))?;
                    let body = &chars[i + 1..close];
                    let (negated, body) = match body.first() {
                        Some('!') if body.len() > 1 => (true, &body[1..]),
                        _ => (false, body),
                    };
                    let mut ranges = Vec::new();
                    let mut k = 0;
                    while k < body.len() {
                        if k + 2 < body.len() && body[k + 1] == '-' {
                            let (a, b) = (fold(body[k]), fold(body[k + 2]));
                            if a > b {
                                return Err(format!(
                                    "the range {}-{} at position {} is backwards",
                                    body[k],
                                    body[k + 2],
                                    i + 2 + k
                                ));
                            }
                            ranges.push((a, b));
                            k += 3;
                        } else {
                            let c = fold(body[k]);
                            ranges.push((c, c));
                            k += 1;
                        }
                    }
                    // "[]" matches the empty string: no element.
                    if !ranges.is_empty() {
                        elems.push(Elem::Set { negated, ranges });
                    }
                    i = close;
                }
                c => elems.push(Elem::Lit(fold(c))),
            }
            i += 1;
        }
        Ok(LikePattern { elems })
    }

    fn one(e: &Elem, c: char) -> bool {
        match e {
            Elem::Any => true,
            Elem::One => true,
            Elem::Digit => c.is_ascii_digit(),
            Elem::Lit(l) => *l == c,
            Elem::Set { negated, ranges } => {
                ranges.iter().any(|(a, b)| *a <= c && c <= *b) != *negated
            }
        }
    }

    /// True when the whole text matches. Runs in O(text × pattern).
    pub fn matches(&self, text: &str) -> bool {
        let t: Vec<char> = text.chars().map(fold).collect();
        let p = &self.elems;
        let (mut ti, mut pi) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while ti < t.len() {
            if pi < p.len() && p[pi] != Elem::Any && Self::one(&p[pi], t[ti]) {
                ti += 1;
                pi += 1;
            } else if pi < p.len() && p[pi] == Elem::Any {
                star = Some((pi, ti));
                pi += 1;
            } else if let Some((sp, st)) = star {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            } else {
                return false;
            }
        }
        p[pi..].iter().all(|e| *e == Elem::Any)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, p: &str) -> bool {
        LikePattern::new(p).unwrap().matches(t)
    }

    #[test]
    fn documented_examples() {
        // https://learn.microsoft.com/office/vba/language/reference/user-interface-help/like-operator
        assert!(m("aBBBa", "a*a"));
        assert!(m("F", "[A-Z]"));
        assert!(!m("F", "[!A-Z]"));
        assert!(m("a2a", "a#a"));
        assert!(m("aM5b", "a[L-P]#[!c-e]"));
        assert!(m("BAT123khg", "B?T*"));
        assert!(!m("CAT123khg", "B?T*"));
        assert!(m("ab", "a*b"));
        assert!(m("a*b", "a[*]b"));
        assert!(!m("axxxb", "a[*]b"));
        assert!(m("abc", "ABC"));
        assert!(m("a-b", "a[-]b"));
    }

    #[test]
    fn bad_patterns() {
        assert!(LikePattern::new("a[bc").is_err());
        assert!(LikePattern::new("[z-a]").is_err());
    }
}
