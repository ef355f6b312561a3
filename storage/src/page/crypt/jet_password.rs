//! The database password of Jet3/Jet4 files (and of old-scheme Microsoft
//! Money files): not a cipher but a field of page 0's masked header that
//! Access compares with what the user types. Jet3 stores 20 bytes of
//! code-page text at 0x42; Jet4 stores 40 bytes of UTF-16LE text there,
//! additionally XOR-ed with the four little-endian bytes of the whole days
//! of the creation date (the double at 0x72).

use crate::format::JetVersion;

/// Offset of the password in page 0 (inside the masked header).
pub const PASSWORD_OFFSET: usize = 0x42;
/// Offset of the creation date (a double) in a Jet4 page 0.
pub const CREATION_DATE_OFFSET: usize = 0x72;

/// The password stored in `header` (page 0 with its masked region already
/// decoded), or `None` when the file has none (the field is all zeros) or
/// page 0 is too short to hold it. Jet3 text is decoded with `encoding`.
pub fn stored_password(
    header: &[u8],
    version: JetVersion,
    encoding: &'static encoding_rs::Encoding,
) -> Option<String> {
    let len = if version.is_jet3() { 20 } else { 40 };
    let mut field = header.get(PASSWORD_OFFSET..PASSWORD_OFFSET + len)?.to_vec();
    if !version.is_jet3() {
        let date = header.get(CREATION_DATE_OFFSET..CREATION_DATE_OFFSET + 8)?;
        let mask = date_mask(date);
        for (i, b) in field.iter_mut().enumerate() {
            *b ^= mask[i % 4];
        }
    }
    if field.iter().all(|&b| b == 0) {
        return None;
    }
    let text = if version.is_jet3() {
        let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
        encoding
            .decode_without_bom_handling(&field[..end])
            .0
            .into_owned()
    } else {
        let units: Vec<u16> = field
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        String::from_utf16_lossy(&units)
    };
    Some(text)
}

/// The 4-byte mask of a Jet4 header: the creation date's whole days
/// (truncated toward zero, saturating), little-endian.
pub fn date_mask(date: &[u8]) -> [u8; 4] {
    let mut d = [0u8; 8];
    let n = date.len().min(8);
    d[..n].copy_from_slice(&date[..n]);
    // `as` truncates toward zero and saturates, NaN giving 0
    (f64::from_le_bytes(d) as i32).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jet4_header(password: &str, date: f64) -> Vec<u8> {
        let mut h = vec![0u8; 4096];
        h[CREATION_DATE_OFFSET..CREATION_DATE_OFFSET + 8].copy_from_slice(&date.to_le_bytes());
        let mask = date_mask(&date.to_le_bytes());
        for (i, u) in password.encode_utf16().enumerate() {
            let [a, b] = u.to_le_bytes();
            h[PASSWORD_OFFSET + 2 * i] = a ^ mask[(2 * i) % 4];
            h[PASSWORD_OFFSET + 2 * i + 1] = b ^ mask[(2 * i + 1) % 4];
        }
        for i in 2 * password.encode_utf16().count()..40 {
            h[PASSWORD_OFFSET + i] = mask[i % 4];
        }
        h
    }

    #[test]
    fn jet4_password_is_unmasked_with_the_creation_date() {
        let h = jet4_header("Secret pw", 41171.72);
        assert_eq!(
            stored_password(&h, JetVersion::Jet4, encoding_rs::WINDOWS_1252).as_deref(),
            Some("Secret pw")
        );
        let none = jet4_header("", 41171.72);
        assert_eq!(
            stored_password(&none, JetVersion::Jet4, encoding_rs::WINDOWS_1252),
            None
        );
        assert_eq!(
            stored_password(&[0u8; 10], JetVersion::Jet4, encoding_rs::WINDOWS_1252),
            None
        );
    }

    #[test]
    fn jet3_password_is_code_page_text() {
        let mut h = vec![0u8; 2048];
        h[PASSWORD_OFFSET..PASSWORD_OFFSET + 3].copy_from_slice(b"p\xe9w");
        assert_eq!(
            stored_password(&h, JetVersion::Jet3, encoding_rs::WINDOWS_1252).as_deref(),
            Some("péw")
        );
    }

    #[test]
    fn odd_dates_give_a_mask() {
        assert_eq!(date_mask(&f64::NAN.to_le_bytes()), [0; 4]);
        assert_eq!(date_mask(&1e300f64.to_le_bytes()), i32::MAX.to_le_bytes());
        assert_eq!(date_mask(&(-1.5f64).to_le_bytes()), (-1i32).to_le_bytes());
    }
}
