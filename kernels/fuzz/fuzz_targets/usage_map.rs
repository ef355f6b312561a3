//! Member enumeration is strictly increasing and agrees with `test_bit`;
//! positions round-trip.
#![no_main]
use jet_kernels::usage_map::{next_set_bit, reference_page, reference_position, test_bit};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut from = 0;
    let mut last = None;
    let mut count = 0;
    while let Some(b) = next_set_bit(data, from) {
        assert!(test_bit(data, b));
        if let Some(l) = last {
            assert!(b > l);
            for k in l + 1..b {
                assert!(!test_bit(data, k));
            }
        }
        last = Some(b);
        from = b + 1;
        count += 1;
    }
    assert_eq!(count, data.iter().map(|b| b.count_ones() as usize).sum::<usize>());
    if data.len() >= 4 {
        let page = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
        for ps in [2048usize, 4096] {
            let (k, b) = reference_position(page, ps).unwrap();
            assert_eq!(reference_page(k, b, ps), Some(page));
        }
    }
});
