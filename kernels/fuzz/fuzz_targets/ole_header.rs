//! The Access OLE object header: any bytes give the two names' ranges or
//! `None`, never a panic; ranges lie inside the declared header, which lies
//! inside the value, and hold no NUL.
#![no_main]
use jet_kernels::ole::{FIXED_LEN, ole_names};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(n) = ole_names(data) {
        let header = usize::from(u16::from_le_bytes([data[2], data[3]]));
        assert!(header <= data.len() && header >= FIXED_LEN);
        for r in [n.name, n.class] {
            assert!(r.start >= FIXED_LEN && r.start <= r.end && r.end <= header);
            assert!(!data[r].contains(&0));
        }
    }
});
