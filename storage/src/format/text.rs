//! Text decoding: Jet4/ACE UCS-2 (plain or "compressed"), Jet3 code pages.

use encoding_rs::Encoding;

use jet_kernels::compressed_text::{MARKER as COMPRESSION_HEADER, Mode, Runs, compressed_body};

/// Appends the text of a Jet4/ACE value to `out`.
///
/// A value starting with `FF FE` is compressed (see
/// [`jet_kernels::compressed_text`]): it starts in one-byte mode (each byte
/// is a code point U+0000–U+00FF), a `00` byte at a character boundary
/// toggles between one-byte and two-byte (UTF-16LE) mode, and in two-byte
/// mode a `00` that is a character's second byte belongs to the character.
/// So `FF FE` followed by plain UTF-16LE reads whole. Otherwise the value
/// is UTF-16LE. Unpaired surrogates become U+FFFD; a trailing odd byte is
/// dropped. Never fails.
pub fn decode_ucs2(bytes: &[u8], out: &mut String) {
    let Some(body) = compressed_body(bytes) else {
        push_utf16le(bytes, out);
        return;
    };
    let mut runs = Runs::new(body).peekable();
    while let Some((mode, run)) = runs.next() {
        match mode {
            Mode::OneByte => push_latin1(run, out),
            Mode::TwoByte => {
                // a surrogate pair may straddle two two-byte runs only if an
                // empty one-byte run (two toggles) separates them: join such
                // runs so the pair survives
                if runs
                    .peek()
                    .is_some_and(|(m, r)| *m == Mode::OneByte && r.is_empty())
                {
                    push_utf16le_joined(run, &mut runs, out);
                } else {
                    push_utf16le(run, out);
                }
            }
        }
    }
}

/// Decodes `first` and the two-byte runs that follow it across empty
/// one-byte runs as one UTF-16 sequence.
fn push_utf16le_joined<'a>(
    first: &'a [u8],
    runs: &mut std::iter::Peekable<Runs<'a>>,
    out: &mut String,
) {
    let mut units: Vec<u16> = first
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    while runs
        .peek()
        .is_some_and(|(m, r)| *m == Mode::OneByte && r.is_empty())
    {
        runs.next();
        match runs.peek() {
            Some((Mode::TwoByte, r)) => {
                units.extend(r.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])));
                runs.next();
            }
            _ => break,
        }
    }
    out.extend(char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)));
}

/// The text of a Jet4/ACE value that is compressed and pure ASCII (no mode
/// switch, no byte above 0x7F), borrowed from `bytes`: what
/// [`decode_ucs2`] would produce, without copying. `None` for any other
/// value.
pub fn compressed_ascii(bytes: &[u8]) -> Option<&str> {
    let rest = bytes.strip_prefix(&COMPRESSION_HEADER)?;
    // one pass without early exit (values are short; it vectorises): every
    // byte in 0x01..=0x7F
    let outside = rest
        .iter()
        .fold(0u8, |acc, &b| acc | u8::from(b.wrapping_sub(1) >= 0x7F));
    if outside != 0 {
        return None;
    }
    Some(ascii_str(rest))
}

/// The text of Jet3 code-page bytes that are pure ASCII, borrowed from
/// `bytes`: what [`decode_codepage`] would produce for any ASCII-compatible
/// code page, without copying. `None` for any other value.
pub fn codepage_ascii(bytes: &[u8]) -> Option<&str> {
    if !bytes.is_ascii() {
        return None;
    }
    Some(ascii_str(bytes))
}

/// `bytes`, already checked to be ASCII, as text, without validating
/// them a second time.
fn ascii_str(bytes: &[u8]) -> &str {
    debug_assert!(bytes.is_ascii());
    // SAFETY: both callers return early unless every byte is below 0x80,
    // and a sequence of ASCII bytes is valid UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// Appends Latin-1 bytes (Jet4 compressed text: each byte is the code
/// point U+0000..U+00FF) as UTF-8: ASCII runs are copied, the other bytes
/// become two-byte sequences, in chunks through a stack buffer (no
/// per-character push, no second UTF-8 validation).
fn push_latin1(bytes: &[u8], out: &mut String) {
    if bytes.is_ascii() {
        out.push_str(ascii_str(bytes));
        return;
    }
    out.reserve(bytes.len() * 2);
    let mut buf = [0u8; 128];
    for chunk in bytes.chunks(64) {
        let mut n = 0;
        for &b in chunk {
            if b < 0x80 {
                buf[n] = b;
                n += 1;
            } else {
                buf[n] = 0xC0 | (b >> 6);
                buf[n + 1] = 0x80 | (b & 0x3F);
                n += 2;
            }
        }
        debug_assert!(std::str::from_utf8(&buf[..n]).is_ok());
        // SAFETY: `buf[..n]` is a sequence of whole UTF-8 encodings: each
        // byte below 0x80 was copied as itself (one-byte form), each other
        // byte b (U+0080..U+00FF) became the two-byte form
        // 0xC0|b>>6 (0xC2 or 0xC3), 0x80|b&0x3F.
        out.push_str(unsafe { std::str::from_utf8_unchecked(&buf[..n]) });
    }
}

fn push_utf16le(bytes: &[u8], out: &mut String) {
    out.reserve(bytes.len() / 2);
    // fast path: every code unit below 0x80 (ASCII) is one UTF-8 byte
    if bytes.chunks_exact(2).all(|c| c[1] == 0 && c[0] < 0x80) {
        out.extend(bytes.chunks_exact(2).map(|c| char::from(c[0])));
        return;
    }
    let units = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]));
    for ch in char::decode_utf16(units) {
        out.push(ch.unwrap_or(char::REPLACEMENT_CHARACTER));
    }
}

/// Appends the text of a Jet3 value in `encoding` to `out`; malformed
/// sequences become U+FFFD. Never fails.
pub fn decode_codepage(bytes: &[u8], encoding: &'static Encoding, out: &mut String) {
    if bytes.is_ascii() {
        // SAFETY-free fast path: ASCII is valid UTF-8
        out.push_str(std::str::from_utf8(bytes).unwrap_or_default());
        return;
    }
    let (s, _) = encoding.decode_without_bom_handling(bytes);
    out.push_str(&s);
}

/// The encoding of a Windows code page number; Windows-1252 for 0 and for
/// code pages `encoding_rs` does not know.
pub fn encoding_for_code_page(cp: u16) -> &'static Encoding {
    codepage::to_encoding(cp).unwrap_or(encoding_rs::WINDOWS_1252)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ucs2(b: &[u8]) -> String {
        let mut s = String::new();
        decode_ucs2(b, &mut s);
        s
    }

    #[test]
    fn plain_and_compressed() {
        assert_eq!(ucs2(&[b'a', 0, b'b', 0]), "ab");
        assert_eq!(ucs2(&[0xFF, 0xFE, b'a', b'b']), "ab");
        // compressed "a", switch to two-byte for U+20AC, back to one-byte "b"
        assert_eq!(ucs2(&[0xFF, 0xFE, b'a', 0, 0xAC, 0x20, 0, b'b']), "a€b");
        // surrogate pair (emoji) and a lone surrogate
        assert_eq!(ucs2(&[0x3D, 0xD8, 0x00, 0xDE]), "😀");
        assert_eq!(ucs2(&[0x3D, 0xD8]), "\u{FFFD}");
        assert_eq!(ucs2(&[b'x', 0, b'y']), "x");
        // the ASCII fast paths give way to full decoding for anything else
        assert_eq!(ucs2(&[0xFF, 0xFE, b'c', 0xE9]), "c\u{e9}");
        assert_eq!(ucs2(&[b'c', 0, 0xE9, 0]), "c\u{e9}");
        assert_eq!(ucs2(&[b'c', 0, 0x7F, 0, b'd', 0x01]), "c\u{7f}\u{164}");
        assert_eq!(ucs2(&[0xFF, 0xFE]), "");
        assert_eq!(ucs2(&[]), "");
    }

    #[test]
    fn marker_followed_by_plain_utf16() {
        // issue 16: FF FE then plain UTF-16LE, as a migration tool wrote it;
        // the 00 high bytes after the first character are not toggles
        // (U+1F601: the low surrogate DE01 has a non-zero low byte; U+1F600's
        // DE00 would read as a mode switch, in every reader)
        let text = "<?xml version=\"1.0\"?><r a=\"\u{e9}\u{20ac}\u{1F601}\"/>";
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(ucs2(&bytes), text);
        // a surrogate pair split by two toggles (an empty one-byte run) is
        // still a pair: the readers decode the code units as one sequence
        assert_eq!(
            ucs2(&[0xFF, 0xFE, 0, 0x3D, 0xD8, 0, 0, 0x01, 0xDE]),
            "\u{1F601}"
        );
        assert_eq!(
            ucs2(&[0xFF, 0xFE, 0, 0x3D, 0xD8, 0, b'A', 0, 0x01, 0xDE]),
            "\u{FFFD}A\u{FFFD}"
        );
    }

    #[test]
    fn borrowed_ascii_agrees_with_decoding() {
        let cases: &[&[u8]] = &[
            &[0xFF, 0xFE, b'a', b'b'],
            &[0xFF, 0xFE],
            &[0xFF, 0xFE, b'a', 0, 0xAC, 0x20],
            &[0xFF, 0xFE, b'c', 0xE9],
            &[b'a', 0, b'b', 0],
            &[0xFF],
            &[],
        ];
        for &b in cases {
            if let Some(s) = compressed_ascii(b) {
                assert_eq!(s, ucs2(b), "{b:?}");
            }
        }
        assert_eq!(compressed_ascii(&[0xFF, 0xFE, b'a', b'b']), Some("ab"));
        assert_eq!(compressed_ascii(&[0xFF, 0xFE, b'a', 0, b'b']), None);
        assert_eq!(compressed_ascii(&[0xFF, 0xFE, 0xE9]), None);
        assert_eq!(compressed_ascii(&[b'a', 0]), None);
        let enc = encoding_for_code_page(1252);
        for b in [&b"plain"[..], &[b'U', 0xE4], &[]] {
            let mut s = String::new();
            decode_codepage(b, enc, &mut s);
            if let Some(a) = codepage_ascii(b) {
                assert_eq!(a, s);
            }
        }
        assert_eq!(codepage_ascii(b"plain"), Some("plain"));
        assert_eq!(codepage_ascii(&[b'U', 0xE4]), None);
    }

    /// Compressed (Latin-1) text: every byte value, at every position of
    /// values shorter and longer than one 64-byte chunk, decodes to the
    /// code point of the byte; the borrowed ASCII path answers exactly for
    /// bytes 0x01..=0x7F.
    #[test]
    fn latin1_and_ascii_every_byte() {
        for len in [1usize, 2, 63, 64, 65, 130] {
            for b in 1..=255u8 {
                for at in [0, len / 2, len - 1] {
                    let mut v = vec![b'a'; len];
                    v[at] = b;
                    let mut bytes = vec![0xFF, 0xFE];
                    bytes.extend(&v);
                    let want: String = v.iter().map(|&x| char::from(x)).collect();
                    assert_eq!(ucs2(&bytes), want, "{len} {b:#x} at {at}");
                    let borrowed = compressed_ascii(&bytes);
                    assert_eq!(borrowed.is_some(), b < 0x80, "{b:#x}");
                    if let Some(a) = borrowed {
                        assert_eq!(a, want);
                    }
                }
            }
        }
    }

    #[test]
    fn codepages() {
        let mut s = String::new();
        decode_codepage(
            &[b'U', b'm', b's', 0xE4, b't', b'z', b'e'],
            encoding_for_code_page(1252),
            &mut s,
        );
        assert_eq!(s, "Umsätze");
        assert_eq!(encoding_for_code_page(1251).name(), "windows-1251");
        assert_eq!(encoding_for_code_page(0).name(), "windows-1252");
    }
}
