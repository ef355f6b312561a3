//! Usage maps over arbitrary bitmaps: member enumeration with
//! `next_set_bit` is strictly increasing, visits exactly the bits
//! `test_bit` reports set, and agrees with a naive search from any start;
//! `set_bit` changes exactly one bit; inline and reference positions
//! round-trip with their pages.
#![no_main]

use jet_kernels::usage_map::{
    bits_per_map_page, inline_bit, inline_page, next_set_bit, reference_page, reference_position,
    set_bit, test_bit,
};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

fn naive_bit(bitmap: &[u8], i: usize) -> bool {
    i / 8 < bitmap.len() && (bitmap[i / 8] >> (i % 8)) & 1 == 1
}

fn check_enumeration(bitmap: &[u8]) {
    let nbits = bitmap.len() * 8;
    let mut members = Vec::new();
    let mut from = 0usize;
    while let Some(b) = next_set_bit(bitmap, from) {
        assert!(b >= from && b < nbits, "bit {b} from {from} of {nbits}");
        assert!(test_bit(bitmap, b));
        // nothing set was skipped
        assert!((from..b).all(|k| !test_bit(bitmap, k)));
        if let Some(&last) = members.last() {
            assert!(b > last, "not increasing: {last} then {b}");
        }
        members.push(b);
        from = b + 1;
    }
    let want: Vec<usize> = (0..nbits).filter(|&i| naive_bit(bitmap, i)).collect();
    assert_eq!(members, want);
    for i in 0..nbits + 16 {
        assert_eq!(test_bit(bitmap, i), naive_bit(bitmap, i), "bit {i}");
    }
    for far in [nbits, nbits + 7, usize::MAX - 8, usize::MAX] {
        assert_eq!(next_set_bit(bitmap, far), None);
        assert!(!test_bit(bitmap, far));
    }
}

fn check_from(u: &mut Unstructured<'_>, bitmap: &[u8]) -> Result<()> {
    let nbits = bitmap.len() * 8;
    let from = u.int_in_range(0..=nbits + 16)?;
    let want = (from..nbits).find(|&i| naive_bit(bitmap, i));
    assert_eq!(next_set_bit(bitmap, from), want, "from {from}");
    Ok(())
}

fn check_set(u: &mut Unstructured<'_>, bitmap: &[u8]) -> Result<()> {
    let nbits = bitmap.len() * 8;
    let i = u.int_in_range(0..=nbits + 16)?;
    let value: bool = u.arbitrary()?;
    let mut m = bitmap.to_vec();
    let inside = set_bit(&mut m, i, value);
    assert_eq!(inside, i < nbits);
    if inside {
        assert_eq!(test_bit(&m, i), value);
        for k in (0..nbits).filter(|&k| k != i) {
            assert_eq!(naive_bit(&m, k), naive_bit(bitmap, k), "bit {k} changed");
        }
    } else {
        assert_eq!(m, bitmap, "a refused set_bit changed the map");
    }
    Ok(())
}

fn check_inline(u: &mut Unstructured<'_>) -> Result<()> {
    let start: u32 = u.arbitrary()?;
    let len = usize::from(u.arbitrary::<u16>()?);
    let page: u32 = if u.arbitrary()? {
        start.wrapping_add(u32::from(u.arbitrary::<u16>()?))
    } else {
        u.arbitrary()?
    };
    let want = page
        .checked_sub(start)
        .map(|d| usize::try_from(d).unwrap())
        .filter(|&d| d < len * 8);
    assert_eq!(inline_bit(start, page, len), want);
    if let Some(b) = want {
        assert_eq!(inline_page(start, b), Some(page));
    }
    let bit = usize::try_from(u.arbitrary::<u32>()?).unwrap();
    match inline_page(start, bit) {
        Some(p) => {
            assert_eq!(u64::from(p), u64::from(start) + u64::try_from(bit).unwrap());
            if bit < len * 8 {
                assert_eq!(inline_bit(start, p, len), Some(bit));
            }
        }
        None => assert!(u64::from(start) + u64::try_from(bit).unwrap() > u64::from(u32::MAX)),
    }
    assert_eq!(inline_page(start, usize::MAX), None);
    Ok(())
}

fn check_reference(u: &mut Unstructured<'_>) -> Result<()> {
    let page_size = match u.int_in_range(0u8..=3)? {
        0 => usize::from(u.arbitrary::<u8>()? % 8),
        1 => *u.choose(&[2048usize, 4096])?,
        2 => usize::from(u.arbitrary::<u16>()?),
        _ => u.arbitrary::<usize>()?,
    };
    let per = bits_per_map_page(page_size);
    match page_size.checked_sub(4) {
        Some(d) if d > 0 => assert_eq!(per, d.checked_mul(8)),
        _ => assert_eq!(per, None),
    }
    let page: u32 = u.arbitrary()?;
    let pos = reference_position(page, page_size);
    match per {
        None => assert_eq!(pos, None),
        Some(per) => {
            let (k, b) = pos.expect("a usable map page size places every page");
            assert!(b < per);
            assert_eq!(reference_page(k, b, page_size), Some(page));
        }
    }
    let k = usize::from(u.arbitrary::<u16>()?);
    let b = usize::from(u.arbitrary::<u16>()?);
    match reference_page(k, b, page_size) {
        Some(p) => assert_eq!(reference_position(p, page_size), Some((k, b))),
        None => {
            let fits = per.is_some_and(|per| {
                b < per
                    && k.checked_mul(per)
                        .and_then(|x| x.checked_add(b))
                        .is_some_and(|x| u32::try_from(x).is_ok())
            });
            assert!(!fits, "refused ({k}, {b}) at page size {page_size}");
        }
    }
    Ok(())
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let n = u.int_in_range(0usize..=512)?.min(u.len());
    let bitmap = u.bytes(n)?;
    check_enumeration(bitmap);
    check_from(&mut u, bitmap)?;
    check_set(&mut u, bitmap)?;
    check_inline(&mut u)?;
    check_reference(&mut u)
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
