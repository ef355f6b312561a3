//! Row extents: both decisions agree, and every admitted extent lies after
//! the slot table, inside the page, and is never empty.
#![no_main]
use jet_kernels::row_slot::SlotTable;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let count = usize::from(data[0]);
    let start = usize::from(data[1] % 32);
    let page = &data[2..];
    let Some(t) = SlotTable::admit(start, count, page.len()) else { return };
    let mut sorted = vec![0u16; count];
    t.sort_slots(page, &mut sorted).unwrap();
    for i in 0..=count {
        let a = t.row_bounds(page, i);
        let b = t.row_bounds_sorted(page, &sorted, i);
        assert_eq!(a, b);
        if let Ok((s, e)) = a {
            assert!(s >= t.header_end() && s < e && e <= page.len());
        }
    }
});
