//! The encryption headers of page 0 (through `jet-storage`): any bytes,
//! read as a whole page 0 and as an EncryptionInfo placed where ACCDB
//! files hold it, give a parsed header or a typed refusal, never a panic.
//! A parsed Agile descriptor keeps its documented bounds: a spin count at
//! most `MAX_SPIN_COUNT`, salts of 1 to 64 bytes, encrypted values of whole
//! AES blocks at least as long as what they hold. No key is derived, so
//! every input is cheap.
#![no_main]
use jet_storage::page::crypt::agile::Descriptor;
use jet_storage::page::crypt::info::{self, InfoError, OfficeInfo};
use libfuzzer_sys::fuzz_target;

fn check(page: &[u8]) {
    match info::parse(page) {
        Ok(OfficeInfo::Agile { xml, offset }) => {
            assert!(offset + xml.len() <= page.len());
            if let Ok(d) = Descriptor::parse(xml, offset) {
                let p = &d.password;
                assert!(p.spin_count <= info::MAX_SPIN_COUNT);
                for salt in [&d.key_data.salt, &p.params.salt] {
                    assert!((1..=64).contains(&salt.len()));
                }
                for v in [&p.verifier_input, &p.verifier_value, &p.key_value] {
                    assert!(!v.is_empty() && v.len() % 16 == 0);
                }
                assert!(p.verifier_input.len() >= p.params.salt.len());
                assert!(p.verifier_value.len() >= p.params.hash.digest_len());
                assert!(p.key_value.len() * 8 >= d.key_data.key_bits as usize);
            }
        }
        Ok(OfficeInfo::Binary(b)) => {
            assert!((1..=20).contains(&b.verifier_hash_size));
            assert!(b.verifier_hash.len() == 20 || b.verifier_hash.len() == 32);
        }
        Ok(OfficeInfo::BinaryRc4 { .. }) => {}
        Err(InfoError::Damaged { offset, .. }) => {
            assert!(offset <= page.len().max(info::INFO_OFFSET))
        }
        Err(InfoError::Unsupported(_)) => {}
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    // the input as the EncryptionInfo of a 4096-byte page 0
    let mut page = vec![0u8; 4096];
    let len = data.len().min(4096 - info::INFO_OFFSET);
    page[info::INFO_LEN_OFFSET..info::INFO_OFFSET].copy_from_slice(&(len as u16).to_le_bytes());
    page[info::INFO_OFFSET..info::INFO_OFFSET + len].copy_from_slice(&data[..len]);
    check(&page);
    // and as a bare Agile descriptor
    let _ = Descriptor::parse(data, 0);
});
