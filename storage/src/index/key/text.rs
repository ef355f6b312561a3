//! Text index keys: the character codes of Access's "General" sort orders.
//!
//! Three collations share sort order 1033 ("General"):
//!
//! * [`TextCollation::General97`] — Jet3 (Access 97). The text is the
//!   column's code-page bytes (Windows-1252 here); every byte maps to one
//!   inline code byte, diacritics go to a trailing nibble stream.
//! * [`TextCollation::GeneralLegacy`] — Jet4 and ACE 12 (sort order
//!   version 0). UTF-16 code units; one-byte inline codes for letters,
//!   digits and punctuation, a trailing "extra code" stream for diacritics
//!   and a trailing "unprintable" stream for characters ignored in the
//!   primary order (apostrophe, hyphen, control characters).
//! * [`TextCollation::General`] — ACE 14+ (sort order version 1): the same
//!   shape with two-byte inline codes.
//!
//! The codes were established from the rules Jackcess documents and checked
//! against the key bytes Access wrote in the corpus (see
//! `tests/tests/storage/indexes.rs`): every Access 97 byte value that occurs there
//! (218 distinct characters: printable ASCII, tab / LF / CR, Latin-1
//! U+00A1–U+00FF and the Windows-1252 specials) and, for Legacy / General,
//! 42 ASCII characters and 80 supplementary characters (surrogate pairs)
//! re-encode byte for byte. The Legacy / General rows for the remaining
//! ASCII punctuation and the Latin-1 letters follow the same documented
//! rules but have no corpus key to confirm them. Characters outside the
//! tables below (Latin-1 symbols in Legacy / General, everything above
//! U+00FF there except surrogates) are refused
//! ([`KeyError::UnknownChar`](crate::error::KeyError::UnknownChar)); no key is ever guessed.
//!
//! All three collations are case-insensitive in their primary codes (upper
//! and lower case letters share a code and no case information is kept), and
//! trailing spaces are not part of a key: an equality seek on a text key
//! therefore finds a *superset* of the rows whose value equals the literal
//! byte for byte, and key order is not Arrow's (binary) order.

use crate::format::TextCollation;

/// The sort order id of "General" (US English locale id).
pub const GENERAL_SORT_ORDER: u16 = 1033;

/// Characters of a value that take part in a key (Access indexes at most
/// this many UTF-16 code units of a text value).
pub const MAX_KEY_CHARS: usize = 255;

/// Terminates the inline codes (Legacy / General).
const END_TEXT: u8 = 0x01;
/// Terminates a text value's key bytes.
const END_EXTRA: u8 = 0x00;
/// Extra-code placeholder for a character without diacritic.
const EXTRA_PLACEHOLDER: u8 = 0x02;
/// Separator between an unprintable character's position and its code.
const UNPRINTABLE_MIDFIX: u8 = 0x06;
/// Extra code of a UTF-16 surrogate.
const SURROGATE_EXTRA: u8 = 0x3F;

/// Up to four inline code bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Inline {
    bytes: [u8; 4],
    len: u8,
}

impl Inline {
    const fn one(a: u8) -> Self {
        Inline {
            bytes: [a, 0, 0, 0],
            len: 1,
        }
    }
    const fn two(a: u8, b: u8) -> Self {
        Inline {
            bytes: [a, b, 0, 0],
            len: 2,
        }
    }
    const fn four(a: u8, b: u8, c: u8, d: u8) -> Self {
        Inline {
            bytes: [a, b, c, d],
            len: 4,
        }
    }
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// What one character contributes to a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Code {
    /// Inline bytes only.
    Simple(Inline),
    /// Inline bytes and one extra (diacritic) code.
    Intl(Inline, u8),
    /// No inline bytes; an entry in the unprintable stream.
    Unprintable(u8),
    /// Nothing at all.
    Ignored,
    /// Access 97: an inline byte that counts toward the diacritic
    /// placeholders (a base letter that has accented forms).
    Significant(u8),
    /// Access 97: ß, spelled "ss": two significant letters (the corpus shows
    /// Access counting both when an accented letter follows).
    SharpS(Inline),
    /// Access 97: the ligatures Æ Œ (a e, o e). Whether Access counts their
    /// letters as significant is not established, so a later accented
    /// letter (whose placeholders would depend on it) is refused.
    Ligature(Inline),
}

/// Diacritics of the Latin-1 letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Grave,
    Acute,
    Circumflex,
    Tilde,
    Diaeresis,
    Ring,
    Cedilla,
    Stroke,
    Eth,
}

/// The Latin-1 letters U+00C0–U+00FF (upper and lower case share an entry)
/// as a base ASCII letter and a diacritic. `None` for the ligatures and
/// special letters each collation treats on its own (Æ, Þ, ß) and the two
/// operators × ÷.
fn latin1_letter(c: u8) -> Option<(u8, Mark)> {
    use Mark::*;
    // fold the lower-case half onto the upper-case one (ß and ÿ excepted)
    let u = match c {
        0xE0..=0xFE if c != 0xF7 => c - 0x20,
        _ => c,
    };
    Some(match u {
        0xC0 => (b'a', Grave),
        0xC1 => (b'a', Acute),
        0xC2 => (b'a', Circumflex),
        0xC3 => (b'a', Tilde),
        0xC4 => (b'a', Diaeresis),
        0xC5 => (b'a', Ring),
        0xC7 => (b'c', Cedilla),
        0xC8 => (b'e', Grave),
        0xC9 => (b'e', Acute),
        0xCA => (b'e', Circumflex),
        0xCB => (b'e', Diaeresis),
        0xCC => (b'i', Grave),
        0xCD => (b'i', Acute),
        0xCE => (b'i', Circumflex),
        0xCF => (b'i', Diaeresis),
        0xD0 => (b'd', Eth),
        0xD1 => (b'n', Tilde),
        0xD2 => (b'o', Grave),
        0xD3 => (b'o', Acute),
        0xD4 => (b'o', Circumflex),
        0xD5 => (b'o', Tilde),
        0xD6 => (b'o', Diaeresis),
        0xD8 => (b'o', Stroke),
        0xD9 => (b'u', Grave),
        0xDA => (b'u', Acute),
        0xDB => (b'u', Circumflex),
        0xDC => (b'u', Diaeresis),
        0xDD => (b'y', Acute),
        0xFF => (b'y', Diaeresis),
        _ => return None,
    })
}

/// Extra code of a diacritic in the Legacy and General orders.
fn mark_code(m: Mark) -> u8 {
    match m {
        Mark::Grave => 0x0F,
        Mark::Acute => 0x0E,
        Mark::Circumflex => 0x12,
        Mark::Tilde => 0x19,
        Mark::Diaeresis => 0x13,
        Mark::Ring => 0x1A,
        Mark::Cedilla => 0x1C,
        Mark::Stroke => 0x21,
        Mark::Eth => 0x68,
    }
}

/// Extra code (one nibble) of a diacritic in the Access 97 order. Stroke
/// and eth are separate letters there.
fn mark_code_97(m: Mark) -> Option<u8> {
    Some(match m {
        Mark::Grave => 0x03,
        Mark::Acute => 0x04,
        Mark::Circumflex => 0x05,
        Mark::Diaeresis => 0x06,
        Mark::Tilde => 0x07,
        Mark::Ring => 0x08,
        Mark::Cedilla => 0x09,
        Mark::Stroke | Mark::Eth => return None,
    })
}

/// Extra code of the feminine/masculine ordinals ª º (a, o with a mark).
const ORDINAL_MARK: u8 = 0x03;

/// Primary codes of the letters a–z in the Legacy order.
const LEGACY_LETTERS: [u8; 26] = [
    0x4A, 0x4C, 0x4D, 0x4F, 0x51, 0x53, 0x55, 0x57, 0x59, 0x5B, 0x5C, 0x5E, 0x60, 0x62, 0x64, 0x66,
    0x68, 0x69, 0x6B, 0x6D, 0x6F, 0x71, 0x73, 0x75, 0x76, 0x78,
];

/// Second bytes of the primary codes of a–z in the General order (the
/// first byte is 0x0E).
const GENERAL_LETTERS: [u8; 26] = [
    0x02, 0x09, 0x0A, 0x1A, 0x21, 0x23, 0x25, 0x2C, 0x32, 0x35, 0x36, 0x48, 0x51, 0x70, 0x7C, 0x7E,
    0x89, 0x8A, 0x91, 0x99, 0x9F, 0xA2, 0xA4, 0xA6, 0xA7, 0xA9,
];

/// Primary codes of a–z in the Access 97 order.
const G97_LETTERS: [u8; 26] = [
    0x60, 0x61, 0x62, 0x64, 0x66, 0x67, 0x68, 0x69, 0x6A, 0x6B, 0x6C, 0x6D, 0x6F, 0x70, 0x72, 0x73,
    0x74, 0x75, 0x76, 0x77, 0x78, 0x7A, 0x7B, 0x7C, 0x7D, 0x7E,
];

fn letter_index(c: u8) -> Option<usize> {
    let l = c.to_ascii_lowercase();
    l.is_ascii_lowercase().then(|| usize::from(l - b'a'))
}

fn legacy_letter(c: u8) -> u8 {
    letter_index(c).map_or(0, |i| LEGACY_LETTERS[i])
}

fn general_letter(c: u8) -> Inline {
    Inline::two(0x0E, letter_index(c).map_or(0, |i| GENERAL_LETTERS[i]))
}

/// ASCII punctuation and symbols in the Legacy order (apostrophe and hyphen
/// are unprintable there, see [`legacy_code`]).
fn legacy_punct(c: u8) -> Option<Inline> {
    Some(match c {
        b' ' => Inline::one(0x07),
        b'!' => Inline::one(0x09),
        b'"' => Inline::one(0x0A),
        b'#' => Inline::one(0x0C),
        b'$' => Inline::one(0x0E),
        b'%' => Inline::one(0x10),
        b'&' => Inline::one(0x12),
        b'(' => Inline::one(0x14),
        b')' => Inline::one(0x16),
        b'*' => Inline::one(0x18),
        b',' => Inline::one(0x1A),
        b'.' => Inline::one(0x1C),
        b'/' => Inline::one(0x1E),
        b':' => Inline::one(0x20),
        b';' => Inline::one(0x22),
        b'?' => Inline::one(0x24),
        b'@' => Inline::one(0x26),
        b'[' => Inline::one(0x27),
        b'\\' => Inline::one(0x29),
        b']' => Inline::one(0x2A),
        b'+' => Inline::one(0x2C),
        b'<' => Inline::one(0x2E),
        b'=' => Inline::one(0x30),
        b'>' => Inline::one(0x32),
        b'^' => Inline::two(0x2B, 0x02),
        b'_' => Inline::two(0x2B, 0x03),
        b'`' => Inline::two(0x2B, 0x07),
        b'{' => Inline::two(0x2B, 0x09),
        b'|' => Inline::two(0x2B, 0x0B),
        b'}' => Inline::two(0x2B, 0x0D),
        b'~' => Inline::two(0x2B, 0x0F),
        _ => return None,
    })
}

/// ASCII punctuation and symbols in the General order (second byte after
/// 0x07, or after 0x08 for + < = >).
fn general_punct(c: u8) -> Option<Inline> {
    let (a, b) = match c {
        b' ' => (0x07, 0x02),
        b'!' => (0x07, 0x1C),
        b'"' => (0x07, 0x1D),
        b'#' => (0x07, 0x1F),
        b'$' => (0x07, 0x21),
        b'%' => (0x07, 0x23),
        b'&' => (0x07, 0x25),
        b'(' => (0x07, 0x27),
        b')' => (0x07, 0x2A),
        b'*' => (0x07, 0x2D),
        b',' => (0x07, 0x2F),
        b'.' => (0x07, 0x33),
        b'/' => (0x07, 0x35),
        b':' => (0x07, 0x37),
        b';' => (0x07, 0x3A),
        b'?' => (0x07, 0x3C),
        b'@' => (0x07, 0x3E),
        b'[' => (0x07, 0x3F),
        b'\\' => (0x07, 0x41),
        b']' => (0x07, 0x42),
        b'^' => (0x07, 0x43),
        b'_' => (0x07, 0x44),
        b'`' => (0x07, 0x48),
        b'{' => (0x07, 0x4A),
        b'|' => (0x07, 0x4C),
        b'}' => (0x07, 0x4E),
        b'~' => (0x07, 0x50),
        b'+' => (0x08, 0x03),
        b'<' => (0x08, 0x0E),
        b'=' => (0x08, 0x12),
        b'>' => (0x08, 0x14),
        _ => return None,
    };
    Some(Inline::two(a, b))
}

/// The unprintable code of a C0/C1 control character or DEL (the same in
/// the Legacy and General orders, which differ only for C1 controls).
fn control_unprintable(c: u16) -> Option<u8> {
    let b = u8::try_from(c).ok()?;
    match b {
        0x01..=0x08 => Some(b + 2),
        0x0E..=0x1F => Some(b - 3),
        0x7F => Some(0x1D),
        _ => None,
    }
}

/// The code of UTF-16 unit `c` in the Legacy order.
fn legacy_code(c: u16) -> Option<Code> {
    if let Some(u) = control_unprintable(c) {
        return Some(Code::Unprintable(u));
    }
    if (0xD800..0xE000).contains(&c) {
        return surrogate(c);
    }
    let b = u8::try_from(c).ok()?;
    Some(match b {
        0x00 => Code::Ignored,
        0x09..=0x0D => Code::Simple(Inline::two(0x08, b - 0x09 + 0x03)),
        0x80..=0x9F => Code::Unprintable(b - 0x80 + 0x1E),
        b'\'' => Code::Unprintable(0x80),
        b'-' => Code::Unprintable(0x82),
        0xAD => Code::Unprintable(0x83),
        b'0'..=b'9' => Code::Simple(Inline::one(0x36 + 2 * (b - b'0'))),
        b'a'..=b'z' | b'A'..=b'Z' => Code::Simple(Inline::one(legacy_letter(b))),
        0x20..=0x7E => Code::Simple(legacy_punct(b)?),
        0xA0 => Code::Simple(Inline::two(0x08, 0x02)),
        0xAA => Code::Intl(Inline::one(legacy_letter(b'a')), ORDINAL_MARK),
        0xBA => Code::Intl(Inline::one(legacy_letter(b'o')), ORDINAL_MARK),
        0xB2 => Code::Simple(Inline::one(0x3A)),
        0xB3 => Code::Simple(Inline::one(0x3C)),
        0xB9 => Code::Simple(Inline::one(0x38)),
        0xC6 | 0xE6 => Code::Simple(Inline::two(legacy_letter(b'a'), legacy_letter(b'e'))),
        0xDE | 0xFE => Code::Simple(Inline::two(legacy_letter(b't'), legacy_letter(b'h'))),
        0xDF => Code::Simple(Inline::two(legacy_letter(b's'), legacy_letter(b's'))),
        0xC0..=0xFF => match latin1_letter(b) {
            Some((base, m)) => Code::Intl(Inline::one(legacy_letter(base)), mark_code(m)),
            None => return None,
        },
        _ => return None,
    })
}

/// The code of UTF-16 unit `c` in the General (2010+) order.
fn general_code(c: u16) -> Option<Code> {
    if let Some(u) = control_unprintable(c) {
        return Some(Code::Unprintable(u));
    }
    if (0xD800..0xE000).contains(&c) {
        return surrogate(c);
    }
    let b = u8::try_from(c).ok()?;
    let l = general_letter;
    Some(match b {
        0x00 | 0xAD => Code::Ignored,
        0x09..=0x0D => Code::Simple(Inline::two(0x07, b - 0x09 + 0x05)),
        0x80..=0x9F => Code::Intl(Inline::two(0x0C, 0xFA), b - 0x80 + 0x1D),
        b'\'' => Code::Unprintable(0x80),
        b'-' => Code::Unprintable(0x82),
        b'0' => Code::Simple(Inline::two(0x0D, 0x17)),
        b'1'..=b'9' => Code::Simple(Inline::two(0x0D, 0x18 + (b - b'0'))),
        b'a'..=b'z' | b'A'..=b'Z' => Code::Simple(l(b)),
        0x20..=0x7E => Code::Simple(general_punct(b)?),
        0xA0 => Code::Simple(Inline::two(0x07, 0x04)),
        0xAA => Code::Intl(l(b'a'), ORDINAL_MARK),
        0xBA => Code::Intl(l(b'o'), ORDINAL_MARK),
        0xB2 => Code::Simple(Inline::two(0x0D, 0x1A)),
        0xB3 => Code::Simple(Inline::two(0x0D, 0x1B)),
        0xB9 => Code::Simple(Inline::two(0x0D, 0x19)),
        0xC6 | 0xE6 => Code::Simple(pair(l(b'a'), l(b'e'))),
        0xDE | 0xFE => Code::Simple(pair(l(b't'), l(b'h'))),
        0xDF => Code::Simple(pair(l(b's'), l(b's'))),
        // the General order spells Ü / ü as "ue"
        0xDC | 0xFC => Code::Simple(pair(l(b'u'), l(b'e'))),
        0xC0..=0xFF => match latin1_letter(b) {
            Some((base, m)) => Code::Intl(l(base), mark_code(m)),
            None => return None,
        },
        _ => return None,
    })
}

fn pair(a: Inline, b: Inline) -> Inline {
    Inline::four(a.bytes[0], a.bytes[1], b.bytes[0], b.bytes[1])
}

/// UTF-16 surrogates (Legacy and General): the inline code is computed
/// from the unit, the extra code is fixed.
fn surrogate(c: u16) -> Option<Code> {
    let v = u32::from(c);
    let idx = if v < 0xDC00 {
        v.checked_sub(10238)?
    } else {
        let off = (v - 0xDC00) % 1024;
        let sub = match off {
            0..8 => 9992,
            8..262 => 9990,
            262..516 => 9988,
            516..770 => 9986,
            _ => 9984,
        };
        v.checked_sub(sub)?
    };
    let [_, _, hi, lo] = idx.to_be_bytes();
    Some(Code::Intl(Inline::two(hi, lo), SURROGATE_EXTRA))
}

/// The code of Windows-1252 byte `b` in the Access 97 order.
fn g97_code(b: u8) -> Option<Code> {
    let significant = |c: u8| b"aceinosuy".contains(&c.to_ascii_lowercase());
    let letter = |c: u8| letter_index(c).map_or(0, |i| G97_LETTERS[i]);
    Some(match b {
        0x00 => Code::Ignored,
        0x09 | 0x20 | 0xA0 => Code::Simple(Inline::one(0x11)),
        0x01..=0x1F | 0x7F => Code::Simple(Inline::one(0x10)),
        // bytes Windows-1252 leaves undefined, and € Ž ž, which Access 97
        // predates
        0x80 | 0x81 | 0x8D | 0x8E | 0x8F | 0x90 | 0x9D | 0x9E => Code::Simple(Inline::one(0x10)),
        b'!'..=b'/' => Code::Simple(Inline::one(b - b'!' + 0x12)),
        b'0'..=b'9' => Code::Simple(Inline::one(b - b'0' + 0x56)),
        b':'..=b'@' => Code::Simple(Inline::one(b - b':' + 0x21)),
        b'['..=b'`' => Code::Simple(Inline::one(b - b'[' + 0x28)),
        b'{'..=b'~' => Code::Simple(Inline::one(b - b'{' + 0x2E)),
        b'a'..=b'z' | b'A'..=b'Z' if significant(b) => Code::Significant(letter(b)),
        b'a'..=b'z' | b'A'..=b'Z' => Code::Simple(Inline::one(letter(b))),
        // ‚ ‹ ‘ ’ › sort as the apostrophe; „ “ ” « » as the quotation
        // mark; – — and the soft hyphen as the hyphen
        0x82 | 0x8B | 0x91 | 0x92 | 0x9B => Code::Simple(Inline::one(0x18)),
        0x84 | 0x93 | 0x94 | 0xAB | 0xBB => Code::Simple(Inline::one(0x13)),
        0x96 | 0x97 | 0xAD => Code::Simple(Inline::one(0x1E)),
        0x83 => Code::Simple(Inline::one(0x32)),
        0x85..=0x89 => Code::Simple(Inline::one(b - 0x85 + 0x33)),
        0x95 => Code::Simple(Inline::one(0x38)),
        0x98 | 0x99 => Code::Simple(Inline::one(b - 0x98 + 0x39)),
        0x8A | 0x9A => Code::Intl(Inline::one(letter(b's')), 0x0A),
        0x8C | 0x9C => Code::Ligature(Inline::two(letter(b'o'), letter(b'e'))),
        0x9F => Code::Intl(Inline::one(letter(b'y')), 0x06),
        0xA1..=0xAA => Code::Simple(Inline::one(b - 0xA1 + 0x3B)),
        0xAC => Code::Simple(Inline::one(0x45)),
        0xAE..=0xB1 => Code::Simple(Inline::one(b - 0xAE + 0x46)),
        0xB2 | 0xB3 => Code::Simple(Inline::one(b - 0xB2 + 0x58)),
        0xB4..=0xB8 => Code::Simple(Inline::one(b - 0xB4 + 0x4A)),
        0xB9 => Code::Simple(Inline::one(0x57)),
        0xBA => Code::Simple(Inline::one(0x4F)),
        0xBC..=0xBF => Code::Simple(Inline::one(b - 0xBC + 0x50)),
        0xD7 => Code::Simple(Inline::one(0x54)),
        0xF7 => Code::Simple(Inline::one(0x55)),
        0xC6 | 0xE6 => Code::Ligature(Inline::two(letter(b'a'), letter(b'e'))),
        0xD0 | 0xF0 => Code::Simple(Inline::one(0x65)),
        0xD8 | 0xF8 => Code::Simple(Inline::one(0x81)),
        0xDE | 0xFE => Code::Simple(Inline::one(0x7F)),
        0xDF => Code::SharpS(Inline::two(letter(b's'), letter(b's'))),
        0xC0..=0xFF => {
            let (base, m) = latin1_letter(b)?;
            Code::Intl(Inline::one(letter(base)), mark_code_97(m)?)
        }
    })
}

/// Appends the key bytes of a non-null text value (after the column's flag
/// byte) to `out`. `units` are the value's UTF-16 code units (Legacy,
/// General) or its Windows-1252 bytes widened (Access 97). `Err(c)`: the
/// unit `c` has no known code; `out` is then left as it was.
pub fn encode_text(
    out: &mut Vec<u8>,
    collation: TextCollation,
    units: &[u16],
    ascending: bool,
) -> Result<(), u16> {
    let units = trim(units);
    let start = out.len();
    let r = match collation {
        TextCollation::General97 => encode_97(out, units),
        TextCollation::GeneralLegacy => encode_general(out, units, legacy_code),
        TextCollation::General => encode_general(out, units, general_code),
    };
    if let Err(c) = r {
        out.truncate(start);
        return Err(c);
    }
    match collation {
        TextCollation::General97 => {
            if !ascending {
                flip(&mut out[start..]);
            }
        }
        _ => {
            if !ascending {
                out.push(END_EXTRA);
                flip(&mut out[start..]);
            }
            out.push(END_EXTRA);
        }
    }
    Ok(())
}

/// The indexed part of a value: at most [`MAX_KEY_CHARS`] units, trailing
/// spaces removed.
fn trim(units: &[u16]) -> &[u16] {
    let mut u = &units[..units.len().min(MAX_KEY_CHARS)];
    while let [rest @ .., 0x20] = u {
        u = rest;
    }
    u
}

fn flip(b: &mut [u8]) {
    for x in b {
        *x = !*x;
    }
}

/// The Legacy / General shape: inline codes, `01`, extra codes (trailing
/// placeholders trimmed), then `01 01 01` and the unprintable codes when
/// there are any. The caller appends the end bytes.
fn encode_general(
    out: &mut Vec<u8>,
    units: &[u16],
    table: fn(u16) -> Option<Code>,
) -> Result<(), u16> {
    // extra codes: `None` until the first character that has one
    let mut extra: Option<Vec<u8>> = None;
    // characters the extra stream accounts for so far
    let mut extra_chars = 0usize;
    let mut unprintable: Vec<u8> = Vec::new();
    let mut char_offset = 0usize;
    for &c in units {
        let code = table(c).ok_or(c)?;
        let cur = char_offset;
        match code {
            Code::Simple(i) => {
                out.extend_from_slice(i.as_slice());
                char_offset += 1;
            }
            Code::Significant(b) => {
                out.push(b);
                char_offset += 1;
            }
            Code::SharpS(i) | Code::Ligature(i) => {
                out.extend_from_slice(i.as_slice());
                char_offset += 1;
            }
            Code::Intl(i, x) => {
                out.extend_from_slice(i.as_slice());
                char_offset += 1;
                let e = extra.get_or_insert_with(Vec::new);
                if extra_chars < cur {
                    e.resize(e.len() + (cur - extra_chars), EXTRA_PLACEHOLDER);
                    extra_chars = cur;
                }
                e.push(x);
                extra_chars += 1;
            }
            Code::Unprintable(u) => {
                // the position counts the extra-code bytes (written or
                // still to be written) before this character
                let pos = match &extra {
                    Some(e) => e.len() + (cur - extra_chars),
                    None => cur,
                };
                let offset = (7 + 4 * pos) | 0x8000;
                let [_, _, hi, lo] = u32::try_from(offset).unwrap_or(u32::MAX).to_be_bytes();
                unprintable.extend_from_slice(&[hi, lo, UNPRINTABLE_MIDFIX, u]);
            }
            Code::Ignored => {}
        }
    }
    out.push(END_TEXT);
    if let Some(mut e) = extra {
        while e.last().is_some_and(|&b| b <= EXTRA_PLACEHOLDER) {
            e.pop();
        }
        out.extend_from_slice(&e);
    }
    if !unprintable.is_empty() {
        out.extend_from_slice(&[END_TEXT, END_TEXT, END_TEXT]);
        out.extend_from_slice(&unprintable);
    }
    Ok(())
}

/// The Access 97 shape: inline codes, then either `00` or a nibble stream
/// (`0`, placeholders `2` for significant letters before each accented
/// one, the accent's nibble, …, `0`).
fn encode_97(out: &mut Vec<u8>, units: &[u16]) -> Result<(), u16> {
    let mut nibbles: Option<Vec<u8>> = None;
    let mut significant = 0usize;
    // a ligature since the last accented letter (see [`Code::Ligature`])
    let mut ligature: Option<u16> = None;
    for &c in units {
        let b = u8::try_from(c).map_err(|_| c)?;
        match g97_code(b).ok_or(c)? {
            Code::Simple(i) => out.extend_from_slice(i.as_slice()),
            Code::Significant(x) => {
                out.push(x);
                significant += 1;
            }
            Code::SharpS(i) => {
                out.extend_from_slice(i.as_slice());
                significant += 2;
            }
            Code::Ligature(i) => {
                out.extend_from_slice(i.as_slice());
                ligature = Some(c);
            }
            Code::Intl(i, x) => {
                if let Some(l) = ligature {
                    return Err(l);
                }
                out.extend_from_slice(i.as_slice());
                let n = nibbles.get_or_insert_with(|| vec![0]);
                n.resize(n.len() + significant, EXTRA_PLACEHOLDER);
                n.push(x & 0x0F);
                significant = 0;
            }
            Code::Ignored => {}
            Code::Unprintable(_) => return Err(c),
        }
    }
    match nibbles {
        None => out.push(END_EXTRA),
        Some(mut n) => {
            n.push(0);
            for pair in n.chunks(2) {
                let hi = pair.first().copied().unwrap_or(0);
                let lo = pair.get(1).copied().unwrap_or(0);
                out.push((hi << 4) | lo);
            }
        }
    }
    Ok(())
}

/// Every UTF-16 unit (Legacy, General) or byte (Access 97) below 0x100 the
/// collation has a code for; for reports and tests.
pub fn known_latin1(collation: TextCollation) -> Vec<u16> {
    (0u16..0x100)
        .filter(|&c| match collation {
            TextCollation::General97 => u8::try_from(c).ok().and_then(g97_code).is_some(),
            TextCollation::GeneralLegacy => legacy_code(c).is_some(),
            TextCollation::General => general_code(c).is_some(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: TextCollation, s: &str, asc: bool) -> Vec<u8> {
        let units: Vec<u16> = s.encode_utf16().collect();
        let mut out = Vec::new();
        encode_text(&mut out, c, &units, asc).unwrap();
        out
    }

    fn key97(bytes: &[u8], asc: bool) -> Vec<u8> {
        let units: Vec<u16> = bytes.iter().map(|&b| u16::from(b)).collect();
        let mut out = Vec::new();
        encode_text(&mut out, TextCollation::General97, &units, asc).unwrap();
        out
    }

    #[test]
    fn legacy_samples_from_access() {
        use TextCollation::GeneralLegacy as L;
        assert_eq!(key(L, "row1", true), [0x69, 0x64, 0x73, 0x38, 0x01, 0x00]);
        assert_eq!(
            key(L, "Admin User", true),
            [
                0x4A, 0x4F, 0x60, 0x59, 0x62, 0x07, 0x6F, 0x6B, 0x51, 0x69, 0x01, 0x00
            ]
        );
        // trailing spaces and case do not matter
        assert_eq!(key(L, "ROW1  ", true), key(L, "row1", true));
        // descending: flipped, with an extra end byte before the flip
        assert_eq!(key(L, "a", false), [!0x4A, !0x01, !0x00, 0x00]);
    }

    #[test]
    fn general_samples_from_access() {
        use TextCollation::General as G;
        assert_eq!(
            key(G, "admin", true),
            [
                0x0E, 0x02, 0x0E, 0x1A, 0x0E, 0x51, 0x0E, 0x32, 0x0E, 0x70, 0x01, 0x00
            ]
        );
        // an emoji: two surrogates with computed codes and extra codes 3F
        assert_eq!(
            key(G, "a😣a", true),
            [
                0x0E, 0x02, 0xB0, 0x3F, 0xB7, 0x21, 0x0E, 0x02, 0x01, 0x02, 0x3F, 0x3F, 0x00
            ]
        );
    }

    #[test]
    fn accents_and_unprintables() {
        use TextCollation::GeneralLegacy as L;
        // é after one plain letter: a placeholder, then the acute code
        assert_eq!(key(L, "eé", true), [0x51, 0x51, 0x01, 0x02, 0x0E, 0x00]);
        // a trailing placeholder run is trimmed
        assert_eq!(key(L, "éa", true), [0x51, 0x4A, 0x01, 0x0E, 0x00]);
        // the hyphen is out of the primary order: position 7 + 4·1
        assert_eq!(
            key(L, "a-b", true),
            [
                0x4A, 0x4C, 0x01, 0x01, 0x01, 0x01, 0x80, 0x0B, 0x06, 0x82, 0x00
            ]
        );
    }

    #[test]
    fn access97_samples() {
        assert_eq!(key97(b"AAvAA", true), [0x60, 0x60, 0x7A, 0x60, 0x60, 0x00]);
        assert_eq!(key97(b"a\xB2a", false), [0x9F, 0xA7, 0x9F, 0xFF]);
        // à: nibbles 0, grave 3, 0
        assert_eq!(key97(b"\xE0", true), [0x60, 0x03, 0x00]);
        // ß counts as two significant letters before an accented one
        assert_eq!(
            key97(b"\xDF\xE4", true),
            [0x76, 0x76, 0x60, 0x02, 0x26, 0x00]
        );
        // a ligature before an accented letter is refused, not guessed
        let mut out = Vec::new();
        assert_eq!(
            encode_text(&mut out, TextCollation::General97, &[0xE6, 0xE4], true),
            Err(0xE6)
        );
        assert_eq!(key97(b"\xE6", true), [0x60, 0x66, 0x00]);
        // "aà": one placeholder for the significant a
        assert_eq!(key97(b"a\xE0", true), [0x60, 0x60, 0x02, 0x30]);
    }

    #[test]
    fn unknown_characters_are_refused_and_leave_out_untouched() {
        let mut out = vec![0x7F];
        let units: Vec<u16> = "a€".encode_utf16().collect();
        assert_eq!(
            encode_text(&mut out, TextCollation::GeneralLegacy, &units, true),
            Err(0x20AC)
        );
        assert_eq!(out, [0x7F]);
        assert!(known_latin1(TextCollation::GeneralLegacy).len() > 200);
        assert_eq!(known_latin1(TextCollation::General97).len(), 256);
    }

    #[test]
    fn case_folds_for_every_latin1_letter() {
        for coll in [
            TextCollation::General97,
            TextCollation::GeneralLegacy,
            TextCollation::General,
        ] {
            for c in 0xC0u16..0xDF {
                if c == 0xD7 {
                    continue;
                }
                let mut a = Vec::new();
                let mut b = Vec::new();
                encode_text(&mut a, coll, &[c], true).unwrap();
                encode_text(&mut b, coll, &[c + 0x20], true).unwrap();
                assert_eq!(a, b, "{coll:?} {c:#x}");
            }
        }
    }
}
