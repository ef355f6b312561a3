//! Row slots on arbitrary pages: slot decoding, table admission, and row
//! extents. `row_bounds`, `row_bounds_sorted` and `row_bounds_all` must all equal a naive
//! oracle, and every admitted extent must lie inside the page, after the
//! slot table, and be non-empty. Row pointers round-trip.
#![no_main]

use jet_kernels::Refusal;
use jet_kernels::row_slot::{
    DELETED_FLAG, OFFSET_MASK, OVERFLOW_FLAG, SlotTable, decode_slot, pack_row_pointer,
    unpack_row_pointer,
};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

fn offset_of(raw: u16) -> usize {
    usize::from(raw & OFFSET_MASK)
}

fn live(raw: u16) -> bool {
    raw & DELETED_FLAG == 0
}

/// The documented decision, computed the slow way over the slot values.
fn oracle(
    raws: &[u16],
    index: usize,
    header_end: usize,
    limit: usize,
) -> std::result::Result<(usize, usize), Refusal> {
    let Some(&me) = raws.get(index) else {
        return Err(Refusal::BadCount);
    };
    let start = offset_of(me);
    if start < header_end {
        return Err(Refusal::SlotInHeader);
    }
    if start >= limit {
        return Err(Refusal::OutOfBounds);
    }
    let shared_with_live = raws
        .iter()
        .enumerate()
        .any(|(j, &r)| j != index && offset_of(r) == start && live(r));
    if live(me) && shared_with_live {
        return Err(Refusal::Overlap);
    }
    let end = raws
        .iter()
        .map(|&r| offset_of(r))
        .filter(|&o| o > start)
        .min()
        .map_or(limit, |o| o.min(limit));
    Ok((start, end))
}

/// The contract every admitted extent meets, whatever the page says.
fn assert_extent(t: &SlotTable, page: &[u8], index: usize, got: (usize, usize)) {
    let (s, e) = got;
    assert!(
        s >= t.header_end(),
        "row {index} starts in the slot table: {got:?}"
    );
    assert!(s < e, "row {index} is empty: {got:?}");
    assert!(
        e <= page.len() && e <= t.page_size,
        "row {index} runs past the page: {got:?}"
    );
    let raw = t.raw(page, index).expect("an admitted row has a slot");
    assert_eq!(s, offset_of(raw));
}

/// A slot value: any flags, and an offset that is usually near the page
/// (sometimes a copy of an earlier slot's, to exercise shared offsets).
fn slot_value(u: &mut Unstructured<'_>, page_len: usize, earlier: &[u16]) -> Result<u16> {
    let flags = u.arbitrary::<u16>()? & !OFFSET_MASK;
    let off = match u.int_in_range(0u8..=3)? {
        0 => u.arbitrary::<u16>()? & OFFSET_MASK,
        1 if !earlier.is_empty() => *u.choose(earlier)? & OFFSET_MASK,
        _ => {
            let hi = u16::try_from(page_len + 4)
                .unwrap_or(OFFSET_MASK)
                .min(OFFSET_MASK);
            u.int_in_range(0..=hi)?
        }
    };
    Ok(flags | off)
}

fn check_table(t: &SlotTable, page: &[u8], raws: &[u16]) {
    let slots_readable = t.header_end() <= page.len();
    let limit = t.page_size.min(page.len());
    let mut sorted = vec![0u16; t.count];
    let sorted_ok = t.sort_slots(page, &mut sorted);
    if slots_readable {
        assert_eq!(sorted_ok, Ok(()));
        // a permutation of the slots, ordered by offset
        assert!(
            sorted
                .windows(2)
                .all(|w| offset_of(w[0]) <= offset_of(w[1]))
        );
        let mut a = sorted.clone();
        let mut b = raws.to_vec();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        if t.count > 0 {
            let mut short = vec![0u16; t.count - 1];
            assert_eq!(t.sort_slots(page, &mut short), Err(Refusal::BadCount));
        }
    }
    let mut order = vec![0u32; t.count];
    let mut all = vec![Ok((0, 0)); t.count];
    let all_ok = t.row_bounds_all(page, &mut order, &mut all);
    assert_eq!(all_ok.is_ok(), slots_readable);
    for i in 0..t.count + 2 {
        let got = t.row_bounds(page, i);
        if all_ok.is_ok()
            && let Some(a) = all.get(i)
        {
            assert_eq!(*a, got, "all-at-once row {i}");
        }
        if let Ok(ext) = got {
            assert_extent(t, page, i, ext);
        }
        if slots_readable {
            assert_eq!(got, oracle(raws, i, t.header_end(), limit), "row {i}");
            assert_eq!(t.row_bounds_sorted(page, &sorted, i), got, "sorted row {i}");
        }
        if i >= t.count {
            assert_eq!(got, Err(Refusal::BadCount));
        }
    }
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);

    // slot decoding and row pointers
    let raw: u16 = u.arbitrary()?;
    let s = decode_slot(raw);
    assert_eq!(usize::from(s.offset), offset_of(raw));
    assert_eq!(s.deleted, raw & DELETED_FLAG != 0);
    assert_eq!(s.overflow, raw & OVERFLOW_FLAG != 0);
    let v: u32 = u.arbitrary()?;
    let (page_no, row) = unpack_row_pointer(v);
    assert!(page_no <= 0x00FF_FFFF);
    assert_eq!(pack_row_pointer(page_no, row), Some(v));
    let (page_no, row): (u32, u8) = (u.arbitrary()?, u.arbitrary()?);
    match pack_row_pointer(page_no, row) {
        Some(p) => assert_eq!(unpack_row_pointer(p), (page_no, row)),
        None => assert!(page_no > 0x00FF_FFFF),
    }

    // a page holding a slot table
    let page_len = u.int_in_range(0usize..=4096)?;
    let table_start = u.int_in_range(0usize..=64)?;
    let count = u.int_in_range(0usize..=96)?;
    let fill: u8 = u.arbitrary()?;
    let mut raws = Vec::with_capacity(count);
    for _ in 0..count {
        let r = slot_value(&mut u, page_len, &raws)?;
        raws.push(r);
    }
    // half the tables laid out as Access writes pages, starts falling from
    // slot to slot (row_bounds_all's one-pass path; equal starts break the
    // fall and send it to the sorting path part way)
    if u.arbitrary::<bool>()? {
        raws.sort_by_key(|&r| std::cmp::Reverse(offset_of(r)));
    }
    let mut page = vec![fill; page_len];
    for (i, r) in raws.iter().enumerate() {
        let o = table_start + 2 * i;
        if o + 2 <= page_len {
            page[o..o + 2].copy_from_slice(&r.to_le_bytes());
        }
    }

    let admitted = SlotTable::admit(table_start, count, page_len);
    assert_eq!(admitted.is_some(), table_start + 2 * count <= page_len);
    if let Some(t) = admitted {
        assert_eq!(t.header_end(), table_start + 2 * count);
        for i in 0..count + 2 {
            assert_eq!(t.raw(&page, i), raws.get(i).copied());
            assert_eq!(t.slot(&page, i), raws.get(i).map(|&r| decode_slot(r)));
        }
        check_table(&t, &page, &raws);

        // the same table over a page buffer cut short of its stated size
        let cut = u.int_in_range(0..=page_len)?;
        check_table(&t, &page[..cut], &raws);
    }

    // a table stated directly, with a page size smaller than the buffer
    let t = SlotTable {
        table_start,
        count,
        page_size: u.int_in_range(0..=page_len)?,
    };
    check_table(&t, &page, &raws);
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
