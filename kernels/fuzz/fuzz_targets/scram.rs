//! SCRAM messages and verifiers: any bytes give parts or a refusal, never
//! a panic; every part returned lies inside the input.
#![no_main]
use jet_kernels::scram::{client_final, client_first, initial_response, verifier};
use libfuzzer_sys::fuzz_target;

fn inside(whole: &[u8], part: &[u8]) -> bool {
    let (w, p) = (whole.as_ptr() as usize, part.as_ptr() as usize);
    part.is_empty() || (p >= w && p + part.len() <= w + whole.len())
}

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = client_first(data) {
        assert!(inside(data, f.bare) && inside(data, f.nonce) && inside(data, f.gs2_header));
        assert_eq!(f.gs2_header.len() + f.bare.len(), data.len());
    }
    if let Ok(c) = client_final(data) {
        assert!(inside(data, c.without_proof) && inside(data, c.proof));
        assert!(!c.nonce.is_empty());
    }
    if let Ok(r) = initial_response(data) {
        assert_eq!(r.mechanism.len() + 5 + r.data.map_or(0, <[u8]>::len), data.len());
    }
    if let Ok(v) = verifier(data) {
        assert!(v.iterations > 0);
    }
});
