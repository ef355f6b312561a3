//! Long-value descriptors and the chain budget. Decoding matches the
//! documented byte layout, `encode(decode(x))` reproduces every admitted
//! descriptor's meaningful bytes, `decode(encode(d))` is `d`, and a chain
//! walked under a `ChainBudget` never collects more than the declared
//! length, never takes more links than its budget, and always stops.
#![no_main]

use jet_kernels::Refusal;
use jet_kernels::lval::{
    ChainBudget, DESCRIPTOR_LEN, LvalDescriptor, LvalKind, MAX_LEN, decode_descriptor,
    encode_descriptor,
};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

fn check_decode(bytes: &[u8]) {
    let got = decode_descriptor(bytes);
    if bytes.len() < DESCRIPTOR_LEN {
        assert_eq!(got, Err(Refusal::OutOfBounds));
        return;
    }
    let head = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let kind = match head >> 30 {
        0b10 => LvalKind::Inline,
        0b01 => LvalKind::SinglePage,
        0b00 => LvalKind::Chained,
        _ => {
            assert_eq!(got, Err(Refusal::BadDescriptor));
            return;
        }
    };
    let d = got.expect("kinds 00, 01 and 10 decode");
    assert_eq!(d.kind, kind);
    assert_eq!(d.length, head & MAX_LEN);
    assert_eq!(d.row, bytes[4]);
    assert_eq!(
        d.page,
        u32::from_le_bytes([bytes[5], bytes[6], bytes[7], 0])
    );

    // round trip: the length, kind and pointer bytes come back; the four
    // unused bytes are written as zero
    let e = encode_descriptor(&d).expect("a decoded descriptor encodes");
    assert_eq!(e[..8], bytes[..8]);
    assert_eq!(e[8..], [0u8; 4]);
    assert_eq!(decode_descriptor(&e), Ok(d));
}

fn check_encode(u: &mut Unstructured<'_>) -> Result<()> {
    let length = if u.arbitrary()? {
        u.arbitrary::<u32>()?
    } else {
        MAX_LEN
            .wrapping_add(u32::from(u.arbitrary::<u8>()?))
            .wrapping_sub(128)
    };
    let page = if u.arbitrary()? {
        u.arbitrary::<u32>()?
    } else {
        0x00FF_FFFFu32
            .wrapping_add(u32::from(u.arbitrary::<u8>()?))
            .wrapping_sub(128)
    };
    let kind = *u.choose(&[LvalKind::Inline, LvalKind::SinglePage, LvalKind::Chained])?;
    let d = LvalDescriptor {
        length,
        kind,
        page,
        row: u.arbitrary()?,
    };
    match encode_descriptor(&d) {
        Some(e) => {
            assert!(length <= MAX_LEN && page <= 0x00FF_FFFF);
            assert_eq!(decode_descriptor(&e), Ok(d));
        }
        None => assert!(length > MAX_LEN || page > 0x00FF_FFFF),
    }
    Ok(())
}

fn check_budget(u: &mut Unstructured<'_>) -> Result<()> {
    let length = match u.int_in_range(0u8..=2)? {
        0 => u32::from(u.arbitrary::<u16>()?),
        1 => MAX_LEN - u32::from(u.arbitrary::<u8>()?),
        _ => u.arbitrary::<u32>()?,
    };
    let file_pages = match u.int_in_range(0u8..=2)? {
        0 => u32::from(u.arbitrary::<u8>()? % 4),
        1 => u32::from(u.arbitrary::<u16>()?),
        _ => u.arbitrary::<u32>()?,
    };
    // the link count saturates at u32::MAX (files of 2^24 pages and more)
    let link_budget = (u64::from(file_pages) * 256).min(u64::from(u32::MAX));
    let mut b = ChainBudget::new(length, file_pages);
    assert_eq!(b.remaining_bytes(), length);

    let mut collected = 0u64;
    let mut links = 0u64;
    let mut done = false;
    // every iteration consumes input, so the walk is bounded by the input
    while !u.is_empty() {
        let seg = match u.int_in_range(0u8..=3)? {
            0 => 0,
            1 => usize::from(u.arbitrary::<u8>()?),
            2 => usize::from(u.arbitrary::<u16>()?),
            _ => u.arbitrary::<usize>()?,
        };
        let here: u32 = u.arbitrary()?;
        let next = match u.int_in_range(0u8..=2)? {
            0 => 0,
            1 => here,
            _ => u.arbitrary::<u32>()?,
        };
        let owed = b.remaining_bytes();
        let res = b.step(seg, here, next);
        if done {
            assert_eq!(res, Err(Refusal::Budget), "a step after the chain stopped");
            continue;
        }
        let must_refuse =
            seg == 0 || owed == 0 || (next != 0 && next == here) || links >= link_budget;
        match res {
            Ok(take) => {
                assert!(
                    !must_refuse,
                    "admitted seg={seg} here={here} next={next} owed={owed}"
                );
                let seg32 = u32::try_from(seg).unwrap_or(u32::MAX);
                assert_eq!(take, seg32.min(owed));
                assert!(take >= 1);
                assert_eq!(b.remaining_bytes(), owed - take);
                collected += u64::from(take);
                links += 1;
            }
            Err(e) => {
                assert_eq!(e, Refusal::Budget);
                assert!(
                    must_refuse,
                    "refused seg={seg} here={here} next={next} owed={owed}"
                );
                assert_eq!(
                    b.remaining_bytes(),
                    owed,
                    "a refused step changed the budget"
                );
                // a refusal caused by exhaustion is final
                done = owed == 0 || links >= link_budget;
            }
        }
        assert!(
            collected <= u64::from(length),
            "collected more than the length"
        );
        assert_eq!(
            collected + u64::from(b.remaining_bytes()),
            u64::from(length)
        );
        assert!(links <= link_budget, "more links than the budget");
        assert!(links <= u64::from(length), "more links than bytes");
    }
    Ok(())
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let n = u.int_in_range(0usize..=16)?.min(u.len());
    let bytes = u.bytes(n)?;
    check_decode(bytes);
    check_encode(&mut u)?;
    check_budget(&mut u)
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
