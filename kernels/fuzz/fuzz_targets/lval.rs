//! Descriptors round-trip; the chain budget never delivers more than the
//! declared length and always stops.
#![no_main]
use jet_kernels::lval::{ChainBudget, decode_descriptor, encode_descriptor};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(d) = decode_descriptor(data) {
        let e = encode_descriptor(&d).unwrap();
        assert_eq!(decode_descriptor(&e), Ok(d));
        let mut b = ChainBudget::new(d.length, 64);
        let mut total: u64 = 0;
        let mut steps = 0u32;
        for (i, c) in data[12..].chunks(2).enumerate() {
            let seg = usize::from(c[0]) * 17;
            match b.step(seg, i as u32 + 1, u32::from(*c.last().unwrap())) {
                Ok(t) => {
                    total += u64::from(t);
                    steps += 1;
                }
                Err(_) => break,
            }
        }
        assert!(total <= u64::from(d.length));
        assert!(steps <= 64 * 256);
    }
});
