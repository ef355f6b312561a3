//! The stored form of an ACCDB attachment's `FileData` (an OLE column of an
//! attachment column's hidden flat table).
//!
//! Layout (all integers little-endian `u32`), as Jackcess
//! (`AttachmentColumnInfoImpl.decodeData`/`encodeData`) and mdb-reader
//! (`data/complex/attachment.js`) read it:
//!
//! ```text
//! wrapper  0..4   encoding: 0 raw, 1 zlib (deflate with zlib header)
//!          4..8   content length: header + file bytes, once decoded
//! content  8..    raw, or a zlib stream that inflates to the content
//! content header (inside the decoded content)
//!          0..4   header length (counts these 4 bytes and the extension)
//!          4..8   unknown (Access and Jackcess write 1)
//!          8..12  extension length in UTF-16 units, its NUL included
//!          12..   the file extension, UTF-16LE, NUL-terminated
//! file bytes: content[header length .. content length]
//! ```
//!
//! The decisions here are total: [`wrapper`] bounds how large the decoded
//! content may claim to be (raw: the bytes present; zlib: at most
//! [`MAX_INFLATE_RATIO`] times the compressed bytes, deflate's own limit), so
//! a caller that allocates at most [`Wrapper::content_len`] bytes never
//! allocates more than a fixed multiple of the blob.

use crate::Refusal;
use crate::bytes::u32_at;
use core::ops::Range;

/// Length of the wrapper (encoding, content length) before the content.
pub const WRAPPER_LEN: usize = 8;

/// The most bytes one byte of a deflate stream can inflate to (a
/// 258-byte match coded in about two bits gives a ratio just under
/// 1032:1; zlib documents 1032:1 as the limit).
pub const MAX_INFLATE_RATIO: u64 = 1032;

/// How the content after the wrapper is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// The content as is.
    Raw,
    /// A zlib stream (RFC 1950) of the content.
    Zlib,
}

/// A decoded wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wrapper {
    /// How the content is stored.
    pub encoding: Encoding,
    /// Length of the decoded content (content header and file bytes).
    /// For [`Encoding::Raw`] at most the bytes after the wrapper; for
    /// [`Encoding::Zlib`] at most [`MAX_INFLATE_RATIO`] times them.
    pub content_len: u32,
}

/// Reads the wrapper of a stored `FileData` blob. Refuses a blob shorter
/// than [`WRAPPER_LEN`] ([`Refusal::OutOfBounds`]), an encoding other than
/// 0 or 1 ([`Refusal::BadRecord`]), and a content length the stored bytes
/// cannot hold ([`Refusal::BadCount`]): raw content longer than the bytes
/// present, or zlib content longer than [`MAX_INFLATE_RATIO`] times them.
pub fn wrapper(blob: &[u8]) -> Result<Wrapper, Refusal> {
    let flag = u32_at(blob, 0).ok_or(Refusal::OutOfBounds)?;
    let content_len = u32_at(blob, 4).ok_or(Refusal::OutOfBounds)?;
    let stored = u64::try_from(blob.len().saturating_sub(WRAPPER_LEN)).unwrap_or(u64::MAX);
    let encoding = match flag {
        0 => Encoding::Raw,
        1 => Encoding::Zlib,
        _ => return Err(Refusal::BadRecord),
    };
    let limit = match encoding {
        Encoding::Raw => stored,
        Encoding::Zlib => stored.saturating_mul(MAX_INFLATE_RATIO),
    };
    if u64::from(content_len) > limit {
        return Err(Refusal::BadCount);
    }
    Ok(Wrapper {
        encoding,
        content_len,
    })
}

/// Where the parts of a decoded content lie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    /// The file bytes: `header length .. content length`.
    pub data: Range<usize>,
    /// The extension's UTF-16LE bytes without its NUL, when the header
    /// holds a consistent one (`None` for a short header or an extension
    /// length that does not fit the header).
    pub extension: Option<Range<usize>>,
}

/// Splits a decoded `content` whose wrapper stated `content_len` into its
/// header and file bytes. Refuses content shorter than `content_len`
/// ([`Refusal::Torn`]) and a header length below 4 or past `content_len`
/// ([`Refusal::BadCount`]). Bytes past `content_len` are ignored (Jackcess
/// reads exactly `content_len`). An empty file (header length equal to
/// `content_len`) is accepted.
pub fn content(content: &[u8], content_len: u32) -> Result<Content, Refusal> {
    let end = usize::try_from(content_len).map_err(|_| Refusal::BadCount)?;
    if content.len() < end {
        return Err(Refusal::Torn);
    }
    let header = u32_at(content, 0).ok_or(Refusal::Torn)?;
    let header = usize::try_from(header).map_err(|_| Refusal::BadCount)?;
    if header < 4 || header > end {
        return Err(Refusal::BadCount);
    }
    Ok(Content {
        data: header..end,
        extension: extension(content, header),
    })
}

/// The extension's bytes (NUL dropped) inside a header of `header` bytes.
fn extension(content: &[u8], header: usize) -> Option<Range<usize>> {
    let units = usize::try_from(u32_at(content, 8)?).ok()?;
    let bytes = units.checked_mul(2)?;
    let end = 12usize.checked_add(bytes)?;
    if end > header || end > content.len() {
        return None;
    }
    // drop the terminating NUL unit when there is one
    let mut stop = end;
    if units > 0 && content.get(end.checked_sub(2)?..end)? == [0, 0] {
        stop = end.checked_sub(2)?;
    }
    Some(12..stop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    extern crate std;
    use std::vec::Vec;

    /// Naive oracle of [`wrapper`].
    fn wrapper_oracle(blob: &[u8]) -> Result<Wrapper, Refusal> {
        if blob.len() < 8 {
            return Err(Refusal::OutOfBounds);
        }
        let flag = u32::from_le_bytes(blob[0..4].try_into().unwrap());
        let len = u32::from_le_bytes(blob[4..8].try_into().unwrap());
        let encoding = match flag {
            0 => Encoding::Raw,
            1 => Encoding::Zlib,
            _ => return Err(Refusal::BadRecord),
        };
        let stored = (blob.len() - 8) as u128;
        let ok = match encoding {
            Encoding::Raw => (len as u128) <= stored,
            Encoding::Zlib => (len as u128) <= stored * 1032,
        };
        if !ok {
            return Err(Refusal::BadCount);
        }
        Ok(Wrapper {
            encoding,
            content_len: len,
        })
    }

    /// Naive oracle of [`content`].
    fn content_oracle(c: &[u8], len: u32) -> Result<Content, Refusal> {
        let end = len as usize;
        if c.len() < end || c.len() < 4 {
            return Err(Refusal::Torn);
        }
        let header = u32::from_le_bytes(c[0..4].try_into().unwrap()) as usize;
        if header < 4 || header > end {
            return Err(Refusal::BadCount);
        }
        let mut extension = None;
        if c.len() >= 12 {
            let units = u32::from_le_bytes(c[8..12].try_into().unwrap()) as u128;
            let ext_end = 12 + 2 * units;
            if ext_end <= header as u128 && ext_end <= c.len() as u128 {
                let ext_end = ext_end as usize;
                let nul = units > 0 && c[ext_end - 2..ext_end] == [0, 0];
                extension = Some(12..if nul { ext_end - 2 } else { ext_end });
            }
        }
        Ok(Content {
            data: header..end,
            extension,
        })
    }

    /// The content Jackcess's `encodeData` writes for `ext` and `data`.
    fn encode(ext: &str, data: &[u8]) -> Vec<u8> {
        let mut ext16: Vec<u8> = ext.encode_utf16().flat_map(u16::to_le_bytes).collect();
        ext16.extend_from_slice(&[0, 0]);
        let header = 12 + ext16.len();
        let mut out = Vec::new();
        out.extend_from_slice(&(header as u32).to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&((ext.encode_utf16().count() + 1) as u32).to_le_bytes());
        out.extend_from_slice(&ext16);
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn jackcess_layout_splits() {
        let c = encode("txt", b"hello");
        let len = c.len() as u32;
        let mut blob = Vec::new();
        blob.extend_from_slice(&0u32.to_le_bytes());
        blob.extend_from_slice(&len.to_le_bytes());
        blob.extend_from_slice(&c);
        let w = wrapper(&blob).unwrap();
        assert_eq!(w.encoding, Encoding::Raw);
        assert_eq!(w.content_len, len);
        let parts = content(&blob[8..], len).unwrap();
        assert_eq!(&blob[8..][parts.data], b"hello");
        let ext = parts.extension.unwrap();
        assert_eq!(&blob[8..][ext], &[b't', 0, b'x', 0, b't', 0]);
    }

    /// The header of Jackcess's ComplexColumnTest TEST_ENC_BYTES: zlib,
    /// content length 0x3A.
    #[test]
    fn jackcess_test_bytes_header() {
        let blob = [1, 0, 0, 0, 0x3A, 0, 0, 0, 0x78, 0x5E];
        assert_eq!(
            wrapper(&blob),
            Ok(Wrapper {
                encoding: Encoding::Zlib,
                content_len: 0x3A
            })
        );
    }

    #[test]
    fn refusals() {
        assert_eq!(wrapper(&[0; 7]), Err(Refusal::OutOfBounds));
        assert_eq!(wrapper(&[2, 0, 0, 0, 0, 0, 0, 0]), Err(Refusal::BadRecord));
        assert_eq!(wrapper(&[0, 0, 0, 0, 1, 0, 0, 0]), Err(Refusal::BadCount));
        assert_eq!(
            wrapper(&[1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0]),
            Err(Refusal::BadCount)
        );
        assert_eq!(content(&[12, 0, 0], 3), Err(Refusal::Torn));
        assert_eq!(content(&[3, 0, 0, 0], 4), Err(Refusal::BadCount));
        assert_eq!(content(&[9, 0, 0, 0, 0], 5), Err(Refusal::BadCount));
        // empty file
        assert_eq!(content(&[4, 0, 0, 0], 4).unwrap().data, 4..4);
    }

    /// Every blob of up to 9 bytes over a small alphabet agrees with the
    /// oracle.
    #[test]
    fn exhaustive_small() {
        let alphabet = [0u8, 1, 2, 4, 12, 0xFF];
        for n in 0..=9usize {
            let mut idx = std::vec![0usize; n];
            loop {
                let blob: Vec<u8> = idx.iter().map(|&i| alphabet[i]).collect();
                assert_eq!(wrapper(&blob), wrapper_oracle(&blob), "{blob:?}");
                for len in [0u32, 4, 8, 9, 12] {
                    assert_eq!(
                        content(&blob, len),
                        content_oracle(&blob, len),
                        "{blob:?} {len}"
                    );
                }
                // next combination
                let mut k = 0;
                loop {
                    if k == n {
                        break;
                    }
                    idx[k] += 1;
                    if idx[k] < alphabet.len() {
                        break;
                    }
                    idx[k] = 0;
                    k += 1;
                }
                if k == n {
                    break;
                }
            }
        }
    }

    proptest! {
        #[test]
        fn agrees_with_oracle(blob in proptest::collection::vec(any::<u8>(), 0..64), len in 0u32..80) {
            prop_assert_eq!(wrapper(&blob), wrapper_oracle(&blob));
            prop_assert_eq!(content(&blob, len), content_oracle(&blob, len));
        }

        #[test]
        fn encoded_roundtrip(ext in "[a-z]{0,5}", data in proptest::collection::vec(any::<u8>(), 0..40)) {
            let c = encode(&ext, &data);
            let parts = content(&c, c.len() as u32).unwrap();
            prop_assert_eq!(&c[parts.data], &data[..]);
            let e = parts.extension.unwrap();
            let want: Vec<u8> = ext.encode_utf16().flat_map(u16::to_le_bytes).collect();
            prop_assert_eq!(&c[e], &want[..]);
        }

        #[test]
        fn ranges_in_bounds(blob in proptest::collection::vec(any::<u8>(), 0..64), len in any::<u32>()) {
            if let Ok(c) = content(&blob, len) {
                prop_assert!(c.data.start <= c.data.end && c.data.end <= blob.len());
                if let Some(e) = c.extension {
                    prop_assert!(e.start <= e.end && e.end <= c.data.start);
                }
            }
            if let Ok(w) = wrapper(&blob) {
                prop_assert!(u64::from(w.content_len) <= (blob.len() as u64).saturating_sub(8) * MAX_INFLATE_RATIO);
            }
        }
    }
}
