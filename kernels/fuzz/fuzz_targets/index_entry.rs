//! Entry boundaries: walking ends always makes strict progress, stays inside
//! the entry area and agrees with a naive bit scan; comparisons are a total
//! order consistent with prefix comparison.
#![no_main]
use jet_kernels::index_entry::{compare_entries, compare_prefix, entry_end};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&area_byte, rest)) = data.split_first() else { return };
    let area = usize::from(area_byte) * 4;
    let mut start = 0;
    let mut naive = (1..rest.len() * 8).filter(|&p| rest[p / 8] >> (p % 8) & 1 == 1);
    loop {
        match entry_end(rest, area, start) {
            Ok(Some(end)) => {
                assert!(end > start && end <= area);
                assert_eq!(naive.next(), Some(end));
                start = end;
            }
            Ok(None) => {
                assert_eq!(naive.next(), None);
                break;
            }
            Err(_) => {
                assert!(naive.next().is_some_and(|p| p > area));
                break;
            }
        }
    }
    let mid = rest.len() / 2;
    let (a, b) = rest.split_at(mid);
    assert_eq!(compare_entries(a, 1, 2, b, 1, 2), a.cmp(b));
    if a.starts_with(b) {
        assert!(compare_prefix(a, b).is_eq());
    }
});
