//! Range admission, panic-free slicing, little-endian field reads and
//! exact-read progress, each checked against arithmetic done in `u128`
//! (which cannot overflow for `usize` operands).
#![no_main]

use jet_kernels::bytes::{u8_at, u16_at, u24_at, u32_at, u64_at};
use jet_kernels::range::{admit, admit_interval, exact_read_progress, slice};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

/// A `usize` biased towards the edges that matter: small values, values
/// close to `near`, values close to `usize::MAX`, and anything at all.
fn num(u: &mut Unstructured<'_>, near: usize) -> Result<usize> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => usize::from(u.arbitrary::<u8>()?),
        1 => near
            .wrapping_add(usize::from(u.arbitrary::<u8>()?))
            .wrapping_sub(128),
        2 => usize::MAX - usize::from(u.arbitrary::<u8>()?),
        _ => u.arbitrary::<usize>()?,
    })
}

fn wide(v: usize) -> u128 {
    u128::try_from(v).expect("usize fits in u128")
}

/// `offset + len <= limit`, computed without overflow.
fn fits(offset: usize, len: usize, limit: usize) -> bool {
    wide(offset) + wide(len) <= wide(limit)
}

/// Naive little-endian read of `width` bytes at `offset`.
fn naive_le(buf: &[u8], offset: usize, width: usize) -> Option<u64> {
    if !fits(offset, width, buf.len()) {
        return None;
    }
    let mut v = 0u64;
    for k in (0..width).rev() {
        v = (v << 8) | u64::from(buf[offset + k]);
    }
    Some(v)
}

fn check_admit(u: &mut Unstructured<'_>) -> Result<()> {
    let limit = num(u, 0)?;
    let offset = num(u, limit)?;
    let len = num(u, limit.wrapping_sub(offset))?;
    match admit(offset, len, limit) {
        Some(r) => {
            assert!(
                fits(offset, len, limit),
                "admitted {offset}+{len} > {limit}"
            );
            assert_eq!(r.start, offset);
            assert_eq!(wide(r.end), wide(offset) + wide(len));
            assert!(r.end <= limit);
        }
        None => assert!(
            !fits(offset, len, limit),
            "refused {offset}+{len} <= {limit}"
        ),
    }

    let start = num(u, limit)?;
    let end = num(u, start)?;
    let want = (start <= end && end <= limit).then_some(start..end);
    assert_eq!(admit_interval(start, end, limit), want);
    Ok(())
}

fn check_slice_and_reads(u: &mut Unstructured<'_>) -> Result<()> {
    let n = u.int_in_range(0usize..=64)?.min(u.len());
    let buf = u.bytes(n)?;
    let offset = num(u, buf.len())?;
    let len = num(u, buf.len().wrapping_sub(offset))?;
    match slice(buf, offset, len) {
        Some(s) => {
            assert!(fits(offset, len, buf.len()));
            assert_eq!(s.len(), len);
            assert_eq!(s, &buf[offset..offset + len]);
            // the very bytes of `buf`, not a copy
            assert_eq!(s.as_ptr() as usize - buf.as_ptr() as usize, offset);
        }
        None => assert!(!fits(offset, len, buf.len())),
    }

    let at = num(u, buf.len())?;
    assert_eq!(u8_at(buf, at).map(u64::from), naive_le(buf, at, 1));
    assert_eq!(u16_at(buf, at).map(u64::from), naive_le(buf, at, 2));
    assert_eq!(u24_at(buf, at).map(u64::from), naive_le(buf, at, 3));
    assert_eq!(u32_at(buf, at).map(u64::from), naive_le(buf, at, 4));
    assert_eq!(u64_at(buf, at), naive_le(buf, at, 8));
    Ok(())
}

fn check_progress(u: &mut Unstructured<'_>) -> Result<()> {
    // one decision on arbitrary operands
    let wanted = num(u, 0)?;
    let done = num(u, wanted)?;
    let got = num(u, wanted.wrapping_sub(done))?;
    let want = (got > 0 && fits(done, got, wanted)).then(|| done + got);
    assert_eq!(exact_read_progress(done, got, wanted), want);

    // a whole exact-read loop driven by the kernel: `done` rises strictly,
    // never passes `wanted`, and the loop stops on the first refusal
    let wanted = usize::from(u.arbitrary::<u16>()?);
    let mut done = 0usize;
    let mut reads = 0usize;
    while !u.is_empty() {
        let got = match u.int_in_range(0u8..=2)? {
            0 => 0,
            1 => usize::from(u.arbitrary::<u8>()?),
            _ => num(u, wanted - done)?,
        };
        match exact_read_progress(done, got, wanted) {
            Some(next) => {
                assert!(next > done && next <= wanted);
                assert_eq!(next - done, got);
                done = next;
                reads += 1;
                assert!(reads <= wanted, "more successful reads than bytes wanted");
            }
            None => {
                assert!(got == 0 || !fits(done, got, wanted));
                break;
            }
        }
    }
    Ok(())
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    check_admit(&mut u)?;
    check_slice_and_reads(&mut u)?;
    check_progress(&mut u)
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
