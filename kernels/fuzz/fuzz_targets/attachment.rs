//! Attachment `FileData` headers: any bytes give a wrapper or a refusal,
//! never a panic; an accepted wrapper's content length is bounded by the
//! stored bytes (raw) or `MAX_INFLATE_RATIO` times them (zlib), and an
//! accepted content split lies inside the content.
#![no_main]
use jet_kernels::attachment::{Encoding, MAX_INFLATE_RATIO, WRAPPER_LEN, content, wrapper};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(w) = wrapper(data) {
        let stored = (data.len() - WRAPPER_LEN) as u64;
        match w.encoding {
            Encoding::Raw => assert!(u64::from(w.content_len) <= stored),
            Encoding::Zlib => assert!(u64::from(w.content_len) <= stored * MAX_INFLATE_RATIO),
        }
        if w.encoding == Encoding::Raw {
            let body = &data[WRAPPER_LEN..];
            if let Ok(c) = content(body, w.content_len) {
                assert!(c.data.start <= c.data.end && c.data.end <= body.len());
                if let Some(e) = c.extension {
                    assert!(e.start <= e.end && e.end <= c.data.start);
                }
            }
        }
    }
    if data.len() >= 4 {
        let len = u32::from_le_bytes(data[..4].try_into().unwrap());
        if let Ok(c) = content(&data[4..], len) {
            assert!(c.data.end <= data.len() - 4);
        }
    }
});
