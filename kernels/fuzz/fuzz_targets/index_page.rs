//! Index page packing: the shared prefix is a prefix of both keys, stored
//! lengths never underflow, admitted areas fit the page and the bitmap, and
//! mask positions name exactly the bit of the end.
#![no_main]
use jet_kernels::index_page::{
    admit_entry_area, common_prefix_len, mask_position, max_entry_area, stored_entry_len,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mid = data.len() / 2;
    let (a, b) = data.split_at(mid);
    let n = common_prefix_len(a, b);
    assert!(n <= a.len() && n <= b.len() && a[..n] == b[..n]);
    assert!(n == a.len() || n == b.len() || a[n] != b[n]);
    let word = |i: usize| -> usize {
        usize::from(u16::from_le_bytes([
            data.get(i).copied().unwrap_or(0),
            data.get(i + 1).copied().unwrap_or(0),
        ]))
    };
    let (page, start, mask, used) = (word(0) * 2, word(2) % 1024, word(4) % 1024, word(6) * 2);
    match admit_entry_area(page, start, mask, used) {
        Ok(free) => {
            assert!(start + used <= page && used < mask * 8);
            assert_eq!(usize::from(free), page - start - used);
        }
        Err(_) => assert!(
            start > page
                || used > page - start
                || used >= mask * 8
                || page - start - used > usize::from(u16::MAX)
        ),
    }
    let max = max_entry_area(page, start, mask);
    if mask > 0 && start <= page && page - start - max <= usize::from(u16::MAX) {
        assert!(admit_entry_area(page, start, mask, max).is_ok());
        assert!(admit_entry_area(page, start, mask, max + 1).is_err());
    }
    if let Ok((byte, bit)) = mask_position(mask, used) {
        assert_eq!(byte * 8 + bit.trailing_zeros() as usize, used);
        assert!(byte < mask && bit.count_ones() == 1);
    }
    if let Ok(len) = stored_entry_len(word(8), word(10) % 9, n, data.first() == Some(&0)) {
        assert!(len >= word(10) % 9);
    }
});
