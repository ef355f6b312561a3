//! The header Access puts before an object stored in an "OLE Object"
//! field: the signature `15 1C`, the header's length (u16), the object
//! type (u32), then the lengths (u16 at 8 and 10) and offsets (u16 at 12
//! and 14) of two NUL-terminated ANSI strings, the object's display name
//! ("Bitmap Image") and its class ("Paint.Picture"). nwind.mdb's
//! Employees.Photo starts `15 1C 2F 00 02 00 00 00 0D 00 0E 00 14 00 21
//! 00 FF FF FF FF "Bitmap Image\0" "Paint.Picture\0"` (read with
//! `mdb-export -b hex`).
//!
//! [`ole_names`] finds both strings; it only admits them inside the
//! header, and the header inside the value.

use crate::bytes::u16_at;
use core::ops::Range;

/// The two bytes an Access OLE header starts with.
pub const SIGNATURE: [u8; 2] = [0x15, 0x1C];

/// Bytes before the strings: signature, header length, object type, two
/// lengths and two offsets.
pub const FIXED_LEN: usize = 16;

/// Where the names of an OLE header are, as ranges of the value (without
/// their terminating NUL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OleNames {
    /// The object's display name ("Bitmap Image").
    pub name: Range<usize>,
    /// The object's class ("Paint.Picture").
    pub class: Range<usize>,
}

/// The string of `len` bytes at `pos`, inside `header_len`, without the
/// NUL that ends it (or its first NUL).
fn string_at(value: &[u8], pos: usize, len: usize, header_len: usize) -> Option<Range<usize>> {
    let end = pos.checked_add(len)?;
    if pos < FIXED_LEN || end > header_len {
        return None;
    }
    let bytes = value.get(pos..end)?;
    let text = bytes.iter().position(|&b| b == 0).unwrap_or(len);
    Some(pos..pos.checked_add(text)?)
}

/// The names of the Access OLE header `value` starts with, or `None` when
/// it does not start with one (wrong signature, a header longer than the
/// value or shorter than its fixed part, a string outside the header).
/// Ranges returned lie inside the header, hence inside `value`.
#[must_use]
pub fn ole_names(value: &[u8]) -> Option<OleNames> {
    if value.get(..2)? != SIGNATURE {
        return None;
    }
    let header_len = usize::from(u16_at(value, 2)?);
    if header_len < FIXED_LEN || header_len > value.len() {
        return None;
    }
    let field = |at: usize| u16_at(value, at).map(usize::from);
    let name = string_at(value, field(12)?, field(8)?, header_len)?;
    let class = string_at(value, field(14)?, field(10)?, header_len)?;
    Some(OleNames { name, class })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// nwind.mdb Employees.Photo, first 48 bytes (mdb-export -b hex).
    const NWIND_PHOTO: &str = "151c2f00020000000d000e0014002100ffffffff4269746d617020496d616765005061696e742e5069637475726500010500000200000007000000";

    fn unhex(s: &str) -> std::vec::Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    extern crate std;

    #[test]
    fn nwind_photo_names() {
        let v = unhex(NWIND_PHOTO);
        let n = ole_names(&v).unwrap();
        assert_eq!(&v[n.name], b"Bitmap Image");
        assert_eq!(&v[n.class], b"Paint.Picture");
        // cut inside the header: no longer a header
        assert_eq!(ole_names(&v[..40]), None);
        let mut bad = v.clone();
        bad[0] = 0x16;
        assert_eq!(ole_names(&bad), None);
    }

    /// The naive reading: every field by plain indexing, every bound in
    /// `u64`.
    fn naive(v: &[u8]) -> Option<(Range<usize>, Range<usize>)> {
        if v.len() < FIXED_LEN || v[0] != 0x15 || v[1] != 0x1C {
            return None;
        }
        let rd = |i: usize| u64::from(v[i]) | (u64::from(v[i + 1]) << 8);
        let hl = rd(2);
        if hl < FIXED_LEN as u64 || hl > v.len() as u64 {
            return None;
        }
        let one = |pos: u64, len: u64| -> Option<Range<usize>> {
            if pos < FIXED_LEN as u64 || pos + len > hl {
                return None;
            }
            let (p, l) = (pos as usize, len as usize);
            let t = v[p..p + l].iter().position(|&b| b == 0).unwrap_or(l);
            Some(p..p + t)
        };
        let name = one(rd(12), rd(8))?;
        let class = one(rd(14), rd(10))?;
        Some((name, class))
    }

    proptest! {
        #[test]
        fn agrees_with_the_naive_reading(
            mut v in proptest::collection::vec(any::<u8>(), 0..64),
            header in any::<bool>(),
            hl in 0u16..70, nl in 0u16..40, cl in 0u16..40, np in 0u16..70, cp in 0u16..70,
        ) {
            if header && v.len() >= FIXED_LEN {
                v[0] = 0x15;
                v[1] = 0x1C;
                v[2..4].copy_from_slice(&hl.to_le_bytes());
                v[8..10].copy_from_slice(&nl.to_le_bytes());
                v[10..12].copy_from_slice(&cl.to_le_bytes());
                v[12..14].copy_from_slice(&np.to_le_bytes());
                v[14..16].copy_from_slice(&cp.to_le_bytes());
            }
            let got = ole_names(&v).map(|n| (n.name, n.class));
            prop_assert_eq!(got.clone(), naive(&v));
            if let Some((a, b)) = got {
                prop_assert!(a.end <= v.len() && b.end <= v.len());
            }
        }
    }
}
