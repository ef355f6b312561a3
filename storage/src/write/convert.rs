//! Whole-image conversions: encrypting a plain ACCDB image with Agile
//! encryption (AES-256-CBC, SHA-512, as Office 2013 and later write it)
//! and decrypting an encrypted or encoded image to a plain one. Both work
//! on an image held in memory and return a new image; the original is
//! never changed.

use crate::error::{CryptError, Result};
use crate::format::header;
use crate::page::crypt::info::{INFO_LEN_OFFSET, INFO_OFFSET};
use crate::page::crypt::{Password, agile};
use crate::page::rc4_apply;
use crate::read::database::{read_header, unlock_page0, unmasked_header};

/// Spin count of the files [`encrypt_agile`] writes (what Office writes).
pub const AGILE_SPIN_COUNT: u32 = 100_000;

fn refuse(why: &'static str) -> crate::Error {
    CryptError::NotConvertible { why }.into()
}

/// Applies `edit` to the header of `page0` unmasked, and stores the result
/// masked again as Access keeps it.
fn edit_header(page0: &mut [u8], version: crate::JetVersion, edit: impl FnOnce(&mut [u8])) {
    let mut h = unmasked_header(page0, version);
    edit(&mut h);
    let end = (header::MASK_START + version.layout().header_mask_len).min(h.len());
    rc4_apply(&header::MASK_KEY, &mut h[header::MASK_START..end]);
    page0[header::MASK_START..end].copy_from_slice(&h[header::MASK_START..end]);
}

/// Rewrites the masked database key of `page0` (with its header region
/// masked as stored) to `key`.
fn set_db_key(page0: &mut [u8], version: crate::JetVersion, key: u32) {
    edit_header(page0, version, |h| {
        h[header::DB_KEY..header::DB_KEY + 4].copy_from_slice(&key.to_le_bytes());
    });
}

/// Clears the Jet3/Jet4 database password of `page0`: Jet3 keeps 20 zero
/// bytes, Jet4 40 bytes that unmask to zeros (the creation date's mask).
fn clear_jet_password(page0: &mut [u8], version: crate::JetVersion) {
    use crate::page::crypt::jet_password::{CREATION_DATE_OFFSET, PASSWORD_OFFSET, date_mask};
    edit_header(page0, version, |h| {
        let len = if version.is_jet3() { 20 } else { 40 };
        let mask = if version.is_jet3() {
            [0; 4]
        } else {
            date_mask(&h[CREATION_DATE_OFFSET..CREATION_DATE_OFFSET + 8])
        };
        for (i, b) in h[PASSWORD_OFFSET..PASSWORD_OFFSET + len]
            .iter_mut()
            .enumerate()
        {
            *b = mask[i % 4];
        }
    });
}

/// The plain ACCDB image `plain` encrypted with Agile encryption under
/// `password`, with fresh random salts and keys. Refuses an image that is
/// not a plain ACCDB of whole pages, and an empty password.
pub fn encrypt_agile(plain: &[u8], password: &Password) -> Result<Vec<u8>> {
    let h = read_header(&plain[..plain.len().min(4096)])?;
    if !h.version.is_ace() || h.msisam {
        return Err(refuse("only ACCDB files can be encrypted with a password"));
    }
    if h.db_key != 0 {
        return Err(refuse("the file is already encrypted"));
    }
    let ps = h.version.layout().page_size;
    if plain.is_empty() || !plain.len().is_multiple_of(ps) {
        return Err(refuse("the file is not a whole number of pages"));
    }
    if password.reveal().is_empty() {
        return Err(refuse("an empty password cannot protect a file"));
    }
    let mut random = [0u8; 16 * 3 + 32 + 4];
    getrandom::fill(&mut random).map_err(|_| refuse("the system has no random numbers"))?;
    let take16 = |at: usize| -> [u8; 16] {
        let mut a = [0u8; 16];
        a.copy_from_slice(&random[at..at + 16]);
        a
    };
    let mut key = [0u8; 32];
    key.copy_from_slice(&random[48..80]);
    let new = agile::NewKeys {
        key_salt: take16(0),
        password_salt: take16(16),
        verifier: take16(32),
        key,
    };
    // a zero database key would mean "not encrypted"
    let encoding_key = u32::from_le_bytes([random[80], random[81], random[82], random[83]]).max(1);
    let pw = crate::page::crypt::office_password_bytes(password.reveal());
    let (cipher, xml) = agile::create(&new, &pw, AGILE_SPIN_COUNT, encoding_key);
    let mut info = vec![4, 0, 4, 0, 0x40, 0, 0, 0];
    info.extend_from_slice(xml.as_bytes());
    if INFO_OFFSET + info.len() > ps {
        return Err(refuse("the encryption header does not fit in page 0"));
    }
    let mut out = plain.to_vec();
    let (page0, rest) = out.split_at_mut(ps);
    set_db_key(page0, h.version, encoding_key);
    page0[INFO_LEN_OFFSET..INFO_OFFSET].copy_from_slice(&(info.len() as u16).to_le_bytes());
    page0[INFO_OFFSET..INFO_OFFSET + info.len()].copy_from_slice(&info);
    for (i, page) in rest.chunks_exact_mut(ps).enumerate() {
        let n = u32::try_from(i + 1).map_err(|_| refuse("the file has too many pages"))?;
        if !cipher.encrypt(n, page) {
            return Err(refuse("a page is not a whole number of AES blocks"));
        }
    }
    Ok(out)
}

/// The encrypted or encoded image `image` decrypted with `password` (none
/// for Jet RC4-encoded files) into a plain image: pages decrypted, the
/// database key cleared and the encryption header removed. A Jet3/Jet4
/// database password is removed too, and must then be given (as Access
/// asks for it before unsetting it). A plain image without a password is
/// returned as it is. Refuses Microsoft Money files.
pub fn decrypt(image: &[u8], password: Option<&Password>) -> Result<Vec<u8>> {
    let h = read_header(&image[..image.len().min(4096)])?;
    if h.msisam {
        return Err(refuse("Microsoft Money files are not converted"));
    }
    let ps = h.version.layout().page_size;
    if image.len() < ps {
        return Err(refuse("the file is shorter than one page"));
    }
    let unlocked = unlock_page0(&image[..ps], &h, password)?;
    let jet_password = !h.version.is_ace() && unlocked.protection.password;
    if jet_password && password.is_none() {
        return Err(CryptError::PasswordRequired {
            protection: unlocked.protection,
        }
        .into());
    }
    let mut out = image.to_vec();
    if jet_password {
        clear_jet_password(&mut out[..ps], h.version);
    }
    let Some(cipher) = unlocked.cipher else {
        return Ok(out);
    };
    let (page0, rest) = out.split_at_mut(ps);
    for (i, page) in rest.chunks_exact_mut(ps).enumerate() {
        let n = u32::try_from(i + 1).map_err(|_| refuse("the file has too many pages"))?;
        cipher.decrypt(n, page)?;
    }
    set_db_key(page0, h.version, 0);
    if h.version.is_ace() {
        let len = usize::from(u16::from_le_bytes([
            page0[INFO_LEN_OFFSET],
            page0[INFO_LEN_OFFSET + 1],
        ]));
        let end = (INFO_OFFSET + len).min(ps);
        page0[INFO_LEN_OFFSET..end].fill(0);
    }
    Ok(out)
}
