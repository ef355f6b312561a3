//! Jet4 / ACE "compressed unicode" text: splitting a value into runs.
//!
//! A text value that starts with the marker `FF FE` is compressed. The bytes
//! after the marker are read from the start, one *character* at a time, in
//! one of two modes; the reader starts in one-byte mode:
//!
//! * at every character boundary, a `00` byte is not a character: it toggles
//!   the mode and is skipped;
//! * in one-byte mode a character is one byte, the code unit `0x00XX`;
//! * in two-byte mode a character is two bytes, a UTF-16LE code unit. A `00`
//!   that is the *second* byte of a character is part of it, not a toggle;
//! * a single byte left over in two-byte mode is not a character and is
//!   dropped.
//!
//! This is the rule of mdbtools' `mdb_unicode2ascii` and mdb-reader's
//! `uncompressText` (both check for a `00` only where a character starts).
//! It is why a value written as `FF FE` followed by *plain* UTF-16LE (as
//! some migration tools write long text) reads correctly: the first
//! character's low byte is read in one-byte mode, its `00` high byte toggles
//! to two-byte mode, and the rest is read as UTF-16LE, two bytes at a time.
//!
//! [`Runs`] yields the value as maximal runs of one mode, borrowed from the
//! input, so a caller can convert a whole run at once. It is total: it
//! never panics, never allocates, and consumes at least one byte per step.

/// The mode a run of compressed text is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Each byte is one code unit `0x0000..=0x00FF` (Latin-1).
    OneByte,
    /// Each two bytes are one UTF-16LE code unit.
    TwoByte,
}

impl Mode {
    fn toggled(self) -> Mode {
        match self {
            Mode::OneByte => Mode::TwoByte,
            Mode::TwoByte => Mode::OneByte,
        }
    }
}

/// The marker that opens a compressed value.
pub const MARKER: [u8; 2] = [0xFF, 0xFE];

/// The body of a compressed value (the bytes after its `FF FE` marker), or
/// `None` when `value` does not start with the marker (it is then plain
/// UTF-16LE).
#[must_use]
pub fn compressed_body(value: &[u8]) -> Option<&[u8]> {
    value.strip_prefix(&MARKER)
}

/// The runs of a compressed body (see the module docs), in order.
///
/// Each item is a mode and the bytes of whole characters in that mode: a
/// [`Mode::TwoByte`] run always has an even length. Toggle bytes and a
/// dropped trailing byte belong to no run. A run may be empty (two toggles
/// in a row). The concatenation of the runs' code units is the text.
#[derive(Debug, Clone)]
pub struct Runs<'a> {
    rest: &'a [u8],
    mode: Mode,
}

impl<'a> Runs<'a> {
    /// The runs of `body`, the bytes after the `FF FE` marker (see
    /// [`compressed_body`]), starting in one-byte mode.
    #[must_use]
    pub fn new(body: &'a [u8]) -> Self {
        Runs {
            rest: body,
            mode: Mode::OneByte,
        }
    }
}

/// The number of leading bytes of `rest` that are whole characters in
/// `mode` before the next character boundary holding `00` (or the end).
fn run_len(rest: &[u8], mode: Mode) -> usize {
    match mode {
        Mode::OneByte => rest.iter().position(|&b| b == 0).unwrap_or(rest.len()),
        Mode::TwoByte => {
            let chars = rest
                .chunks_exact(2)
                .position(|c| c.first() == Some(&0))
                .unwrap_or(rest.len() / 2);
            chars.saturating_mul(2)
        }
    }
}

impl<'a> Iterator for Runs<'a> {
    type Item = (Mode, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let mode = self.mode;
        let n = run_len(self.rest, mode);
        let (run, tail) = self.rest.split_at_checked(n)?;
        match tail.split_first() {
            // a toggle at a character boundary
            Some((0, after)) => {
                self.rest = after;
                self.mode = mode.toggled();
            }
            // one byte left in two-byte mode: not a character, dropped
            Some(_) => self.rest = &[],
            None => self.rest = tail,
        }
        Some((mode, run))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// The naive decoder, one byte at a time, as the module docs state it.
    fn naive(body: &[u8]) -> Vec<u16> {
        let mut out = Vec::new();
        let mut one_byte = true;
        let mut i = 0;
        while i < body.len() {
            if body[i] == 0 {
                one_byte = !one_byte;
                i += 1;
            } else if one_byte {
                out.push(u16::from(body[i]));
                i += 1;
            } else if i + 1 < body.len() {
                out.push(u16::from_le_bytes([body[i], body[i + 1]]));
                i += 2;
            } else {
                break;
            }
        }
        out
    }

    fn via_runs(body: &[u8]) -> Vec<u16> {
        let mut out = Vec::new();
        let mut steps = 0;
        for (mode, run) in Runs::new(body) {
            steps += 1;
            assert!(steps <= body.len(), "more runs than bytes");
            match mode {
                Mode::OneByte => {
                    assert!(!run.contains(&0));
                    out.extend(run.iter().map(|&b| u16::from(b)));
                }
                Mode::TwoByte => {
                    assert_eq!(run.len() % 2, 0);
                    for c in run.chunks_exact(2) {
                        assert_ne!(c[0], 0, "a toggle inside a two-byte run");
                        out.push(u16::from_le_bytes([c[0], c[1]]));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_body_up_to_six_bytes_over_a_small_alphabet() {
        // 0 (toggle), 0x41, 0xE9, 0xFF: every toggle position and parity
        let alphabet = [0u8, 0x41, 0xE9, 0xFF];
        for len in 0..=6u32 {
            for code in 0..4usize.pow(len) {
                let mut c = code;
                let body: Vec<u8> = (0..len)
                    .map(|_| {
                        let b = alphabet[c % 4];
                        c /= 4;
                        b
                    })
                    .collect();
                assert_eq!(via_runs(&body), naive(&body), "body {body:02X?}");
            }
        }
    }

    #[test]
    fn every_body_up_to_two_bytes() {
        for a in 0..=255u8 {
            assert_eq!(via_runs(&[a]), naive(&[a]));
            for b in 0..=255u8 {
                assert_eq!(via_runs(&[a, b]), naive(&[a, b]), "body {a:02X} {b:02X}");
            }
        }
    }

    #[test]
    fn marker_then_plain_utf16_reads_whole() {
        // "<a>€" as plain UTF-16LE behind the marker
        let text: Vec<u16> = "<a>x\u{e9}\u{20ac}".encode_utf16().collect();
        let mut value = Vec::from(MARKER);
        for u in &text {
            value.extend_from_slice(&u.to_le_bytes());
        }
        let body = compressed_body(&value).unwrap();
        assert_eq!(via_runs(body), text);
        // the `00` high byte of 'x' (0x78 0x00) is not a toggle in two-byte mode
        assert_eq!(
            Runs::new(body)
                .map(|(m, r)| (m, r.len()))
                .collect::<Vec<_>>(),
            [(Mode::OneByte, 1), (Mode::TwoByte, 10)]
        );
    }

    #[test]
    fn marker_detection() {
        assert_eq!(compressed_body(&[0xFF, 0xFE, 1]), Some(&[1u8][..]));
        assert_eq!(compressed_body(&[0xFF, 0xFE]), Some(&[][..]));
        assert_eq!(compressed_body(&[0xFE, 0xFF, 1]), None);
        assert_eq!(compressed_body(&[0xFF]), None);
        assert_eq!(compressed_body(&[]), None);
    }

    #[test]
    fn trailing_odd_byte_in_two_byte_mode_is_dropped() {
        assert_eq!(via_runs(&[b'a', 0, 0x41, 0x20, 0x42]), [0x61, 0x2041]);
        assert_eq!(naive(&[b'a', 0, 0x41, 0x20, 0x42]), [0x61, 0x2041]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        #[test]
        fn runs_equal_the_naive_decoder(body in proptest::collection::vec(
            prop_oneof![Just(0u8), any::<u8>()], 0..300)) {
            prop_assert_eq!(via_runs(&body), naive(&body));
        }

        #[test]
        fn plain_utf16_whose_first_unit_is_latin1_reads_whole(
            units in proptest::collection::vec(any::<u16>(), 1..200),
            first in 1u8..=0xFF,
        ) {
            // readers agree on this layout when no later unit starts with a 00 byte
            let mut units = units;
            units[0] = u16::from(first);
            units.iter_mut().skip(1).for_each(|u| if *u & 0xFF == 0 { *u |= 1 });
            let mut body = Vec::new();
            for u in &units {
                body.extend_from_slice(&u.to_le_bytes());
            }
            prop_assert_eq!(via_runs(&body), units);
        }
    }
}
