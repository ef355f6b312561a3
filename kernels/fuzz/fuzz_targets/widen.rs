//! Widening only grows: the interval always contains the literal.
#![no_main]
use jet_kernels::widen::{widen_f64, widen_scale, widen_to_f32};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 10 {
        return;
    }
    let v = f64::from_le_bytes(data[..8].try_into().unwrap());
    match widen_to_f32(v) {
        Some((lo, hi)) => assert!(f64::from(lo) <= v && v <= f64::from(hi)),
        None => assert!(v.is_nan()),
    }
    match widen_f64(v) {
        Some((lo, hi)) => assert!(lo <= v && v <= hi),
        None => assert!(v.is_nan()),
    }
    let i = i64::from_le_bytes(data[..8].try_into().unwrap());
    let (from, to) = (data[8] % 20, data[9] % 20);
    if let Some((lo, hi)) = widen_scale(i128::from(i), from, to) {
        let p = |e: u8| 10i128.pow(u32::from(e));
        assert!(lo * p(from) <= i128::from(i) * p(to) && i128::from(i) * p(to) <= hi * p(from));
    }
});
