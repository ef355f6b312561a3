//! Decoding an attachment's stored `FileData` into the file's bytes.
//!
//! The header decisions (encoding, lengths, extension) are the
//! `jet_kernels::attachment` kernel's; this module only inflates zlib
//! content with `flate2`, never producing more than the content length the
//! kernel admitted, and never more than [`MAX_ATTACHMENT_LEN`].

use jet_kernels::attachment::{self, Encoding};
use std::borrow::Cow;
use std::io::Read;

/// The largest decoded attachment content accepted (2 GiB − 1, the largest
/// file an ACCDB can hold). Larger stated lengths are refused before any
/// inflating.
pub const MAX_ATTACHMENT_LEN: u32 = 0x7FFF_FFFF;

/// The file bytes of a stored attachment `blob`: the content after its
/// header, inflated when stored as zlib. Refuses, with a message saying
/// why, a wrapper or header the kernel refuses, a stated content length
/// over [`MAX_ATTACHMENT_LEN`], a damaged zlib stream, and zlib content
/// that inflates to more or fewer bytes than stated. Allocates at most the
/// stated length plus one byte (itself at most 1032 times the blob).
pub fn decode_file_data(blob: &[u8]) -> Result<Vec<u8>, String> {
    let w = attachment::wrapper(blob).map_err(|r| format!("attachment wrapper: {r}"))?;
    if w.content_len > MAX_ATTACHMENT_LEN {
        return Err(format!(
            "states {} bytes of content, over the limit of {MAX_ATTACHMENT_LEN}",
            w.content_len
        ));
    }
    let body = blob.get(attachment::WRAPPER_LEN..).unwrap_or_default();
    let content: Cow<'_, [u8]> = match w.encoding {
        Encoding::Raw => Cow::Borrowed(body),
        Encoding::Zlib => Cow::Owned(inflate(body, w.content_len)?),
    };
    let parts = attachment::content(&content, w.content_len)
        .map_err(|r| format!("attachment content header: {r}"))?;
    content
        .get(parts.data)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| "attachment content header: range out of bounds".to_string())
}

/// File types (extensions, lower case) whose content is stored as is:
/// formats that are already compressed (Jackcess's list, plus `png`,
/// which Access also stores raw). Every other type is stored
/// zlib-compressed.
pub const RAW_FILE_TYPES: [&str; 11] = [
    "jpg", "zip", "gz", "bz2", "z", "7z", "cab", "rar", "mp3", "mpg", "png",
];

/// The stored `FileData` of a file of type `file_type` (its extension,
/// compared case-insensitively) holding `data`, in the format
/// [`decode_file_data`] reads: an 8-byte wrapper (1 = zlib, 0 = raw; the
/// content length) around the content, which is a 12-byte header (its
/// length, the constant 1, the extension's length in UTF-16 units with
/// its terminating NUL), the extension in UTF-16LE with a NUL, then the
/// file's bytes. The content is zlib-compressed (level 3, as Jackcess)
/// unless the type is in [`RAW_FILE_TYPES`]. Refuses content over
/// [`MAX_ATTACHMENT_LEN`] bytes.
pub fn encode_file_data(file_type: &str, data: &[u8]) -> Result<Vec<u8>, String> {
    let ext = file_type.to_lowercase();
    let units: Vec<u16> = ext.encode_utf16().chain([0]).collect();
    let header_len = 12 + 2 * units.len();
    let content_len = header_len + data.len();
    if content_len > MAX_ATTACHMENT_LEN as usize {
        return Err(format!(
            "an attachment of {} bytes is over the limit of {MAX_ATTACHMENT_LEN}",
            data.len()
        ));
    }
    let mut content = Vec::with_capacity(content_len);
    content.extend_from_slice(&(header_len as u32).to_le_bytes());
    content.extend_from_slice(&1u32.to_le_bytes());
    content.extend_from_slice(&(units.len() as u32).to_le_bytes());
    for u in units {
        content.extend_from_slice(&u.to_le_bytes());
    }
    content.extend_from_slice(data);
    let compress = !RAW_FILE_TYPES.contains(&ext.as_str());
    let mut out = Vec::with_capacity(attachment::WRAPPER_LEN + content_len);
    out.extend_from_slice(&u32::from(compress).to_le_bytes());
    out.extend_from_slice(&(content_len as u32).to_le_bytes());
    if compress {
        let mut z = flate2::write::ZlibEncoder::new(out, flate2::Compression::new(3));
        std::io::Write::write_all(&mut z, &content)
            .and_then(|()| z.finish())
            .map_err(|e| format!("compressing the attachment: {e}"))
    } else {
        out.extend_from_slice(&content);
        Ok(out)
    }
}

/// The file type Access records for `file_name`: its extension (after the
/// last dot, lower case), empty when it has none.
pub fn file_type_of(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() || !ext.is_empty() => ext.to_lowercase(),
        _ => String::new(),
    }
}

/// Inflates the zlib stream `body`, which must give exactly `len` bytes.
fn inflate(body: &[u8], len: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let limit = u64::from(len).saturating_add(1);
    flate2::read::ZlibDecoder::new(body)
        .take(limit)
        .read_to_end(&mut out)
        .map_err(|e| format!("damaged zlib content: {e}"))?;
    let got = out.len();
    let want = usize::try_from(len).unwrap_or(usize::MAX);
    if got > want {
        return Err(format!("zlib content inflates past its stated {len} bytes"));
    }
    if got < want {
        return Err(format!(
            "zlib content inflates to {got} bytes, not its stated {len}"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn content(ext: &str, data: &[u8]) -> Vec<u8> {
        let units: Vec<u16> = ext.encode_utf16().chain([0]).collect();
        let header = 12 + 2 * units.len();
        let mut c = Vec::new();
        c.extend_from_slice(&(header as u32).to_le_bytes());
        c.extend_from_slice(&1u32.to_le_bytes());
        c.extend_from_slice(&(units.len() as u32).to_le_bytes());
        for u in units {
            c.extend_from_slice(&u.to_le_bytes());
        }
        c.extend_from_slice(data);
        c
    }

    fn wrap(flag: u32, len: usize, body: &[u8]) -> Vec<u8> {
        let mut b = flag.to_le_bytes().to_vec();
        b.extend_from_slice(&(len as u32).to_le_bytes());
        b.extend_from_slice(body);
        b
    }

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(3));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Jackcess's encoder (level 3, type "txt", the same content header)
    /// gives exactly ComplexColumnTest's `TEST_ENC_BYTES`.
    #[test]
    fn encodes_as_jackcess() {
        let data = b"this is some test data for attachment.";
        let enc = encode_file_data("TXT", data).unwrap();
        assert_eq!(&enc[..8], &[1, 0, 0, 0, 0x3A, 0, 0, 0]);
        assert_eq!(decode_file_data(&enc).unwrap(), data);
        let raw = encode_file_data("png", data).unwrap();
        assert_eq!(&raw[..4], &[0, 0, 0, 0]);
        assert_eq!(decode_file_data(&raw).unwrap(), data);
        assert_eq!(
            decode_file_data(&encode_file_data("", b"").unwrap()).unwrap(),
            b""
        );
        assert_eq!(file_type_of("a/b.Txt"), "txt");
        assert_eq!(file_type_of("noext"), "");
        assert_eq!(file_type_of("x.tar.gz"), "gz");
    }

    /// Jackcess ComplexColumnTest `TEST_ENC_BYTES` decodes to `TEST_BYTES`.
    #[test]
    fn jackcess_encoded_test_bytes() {
        let enc: [u8; 66] = [
            0x01, 0x00, 0x00, 0x00, 0x3A, 0x00, 0x00, 0x00, 0x78, 0x5E, 0x13, 0x61, 0x60, 0x60,
            0x60, 0x04, 0x62, 0x16, 0x20, 0x2E, 0x61, 0xA8, 0x00, 0x62, 0x20, 0x9D, 0x91, 0x59,
            0xAC, 0x00, 0x44, 0xC5, 0xF9, 0xB9, 0xA9, 0x0A, 0x25, 0xA9, 0xC5, 0x25, 0x0A, 0x29,
            0x89, 0x25, 0x89, 0x0A, 0x69, 0xF9, 0x45, 0x0A, 0x89, 0x25, 0x25, 0x89, 0xC9, 0x19,
            0xB9, 0xA9, 0x79, 0x25, 0x7A, 0x00, 0x52, 0xA9, 0x0F, 0x7A,
        ];
        assert_eq!(
            decode_file_data(&enc).unwrap(),
            b"this is some test data for attachment."
        );
    }

    #[test]
    fn raw_and_zlib_round_trip() {
        let c = content("txt", b"hello world");
        assert_eq!(
            decode_file_data(&wrap(0, c.len(), &c)).unwrap(),
            b"hello world"
        );
        assert_eq!(
            decode_file_data(&wrap(1, c.len(), &zlib(&c))).unwrap(),
            b"hello world"
        );
        let empty = content("", b"");
        assert_eq!(
            decode_file_data(&wrap(1, empty.len(), &zlib(&empty))).unwrap(),
            b""
        );
    }

    #[test]
    fn damaged_blobs_are_refused() {
        let c = content("txt", b"hello world");
        let z = zlib(&c);
        // stated shorter or longer than the stream
        assert!(decode_file_data(&wrap(1, c.len() - 1, &z)).is_err());
        assert!(decode_file_data(&wrap(1, c.len() + 1, &z)).is_err());
        // truncated and corrupted streams
        assert!(decode_file_data(&wrap(1, c.len(), &z[..z.len() / 2])).is_err());
        let mut bad = z.clone();
        bad[0] ^= 0xFF;
        assert!(decode_file_data(&wrap(1, c.len(), &bad)).is_err());
        // unknown encoding, short blob, header past the content
        assert!(decode_file_data(&wrap(7, c.len(), &c)).is_err());
        assert!(decode_file_data(&[0, 0, 0]).is_err());
        let mut h = c.clone();
        h[0] = 0xFF;
        assert!(decode_file_data(&wrap(0, c.len(), &h)).is_err());
    }

    proptest::proptest! {
        /// Any bytes decode or are refused, never panic; a decoded file
        /// is never longer than the content its wrapper states. Wrappers
        /// over real zlib streams of arbitrary content are covered too.
        #[test]
        fn total_on_any_bytes(
            blob in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..96),
            body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
            flag in 0u32..3,
            slack in 0usize..3,
        ) {
            if let Ok(d) = decode_file_data(&blob) {
                let stated = u32::from_le_bytes(blob[4..8].try_into().unwrap()) as usize;
                proptest::prop_assert!(d.len() <= stated);
            }
            let z = zlib(&body);
            let stream = if flag == 1 { &z[..] } else { &body[..] };
            let blob = wrap(flag, body.len().saturating_sub(slack), stream);
            if let Ok(d) = decode_file_data(&blob) {
                proptest::prop_assert!(d.len() <= body.len());
            }
        }
    }

    /// A zlib bomb stating 1032 times its size inflates no further than
    /// stated; one stating more is refused before inflating.
    #[test]
    fn bombs_are_bounded() {
        let zeros = vec![0u8; 4 << 20];
        let z = zlib(&zeros);
        let huge = wrap(1, 0, &z);
        let mut over = huge.clone();
        let stated = u32::try_from(z.len() * 1032 + 1).unwrap();
        over[4..8].copy_from_slice(&stated.to_le_bytes());
        assert!(decode_file_data(&over).unwrap_err().contains("wrapper"));
        // stated small: stops after one byte more than stated
        let mut small = huge;
        small[4..8].copy_from_slice(&16u32.to_le_bytes());
        assert!(decode_file_data(&small).unwrap_err().contains("past"));
    }
}
