//! Journal kernels: classification of arbitrary bytes never panics and
//! agrees with the framing it decodes; journals built from fuzzed inputs
//! classify as built, every torn commit degrades to "no commit", every
//! truncation and flipped byte is refused, and the
//! save schedule rebuilds O from any state the transaction can leave.
#![no_main]

use jet_kernels::journal::{
    COMMIT_RECORD_LEN, Commit, Frame, HEADER_RECORD_LEN, Header, Kind, Shape, TRAILER, classify,
    decode_frame, encode_commit, encode_frame, encode_header, must_save, page_span, select_replay,
    shrink_pages, Replay,
};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

/// A toy checksum (the storage layer uses truncated SHA-256): any change
/// of one covered byte changes it.
fn toy(salt: &[u8], covered: &[u8], payload: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (i, b) in salt.iter().chain(covered).chain(payload).enumerate() {
        let k = i % 16;
        out[k] = out[k].wrapping_mul(31).wrapping_add(*b).wrapping_add(i as u8);
    }
    out
}

fn record(kind: Kind, page: u32, payload: &[u8], salt: &[u8]) -> Vec<u8> {
    let mut f = Frame {
        kind,
        page,
        payload_len: payload.len() as u32,
        checksum: [0; 16],
    };
    f.checksum = toy(salt, &encode_frame(&f)[..16], payload);
    let mut v = encode_frame(&f).to_vec();
    v.extend_from_slice(payload);
    v.extend_from_slice(&TRAILER);
    v
}

fn arbitrary_bytes(u: &mut Unstructured<'_>) -> Result<()> {
    let n = u.int_in_range(0usize..=600)?.min(u.len());
    let bytes = u.bytes(n)?;
    let mut visited = 0usize;
    let shape = classify(bytes, &mut toy, &mut |_, off, len| {
        assert!(off + len <= bytes.len());
        visited += 1;
    });
    if let Shape::Sealed { header, .. } = shape {
        assert_eq!(visited, header.records as usize);
        assert!(header.records_end as usize <= bytes.len());
    }
    let _ = select_replay(&shape);
    if let Ok(f) = decode_frame(bytes) {
        assert_eq!(&encode_frame(&f)[..], &bytes[..32]);
    }
    Ok(())
}

fn built(u: &mut Unstructured<'_>) -> Result<()> {
    let ps = 1u32 << u.int_in_range(9u32..=12)?;
    let orig_len = u64::from(u.int_in_range(1u32..=40_000)?);
    let new_len = u64::from(u.int_in_range(0u32..=40_000)?);
    let mut pages: Vec<u32> = Vec::new();
    for _ in 0..u.int_in_range(0usize..=5)? {
        let p = u.int_in_range(0u32..=20)?;
        if page_span(p, ps, orig_len).is_some() {
            pages.push(p);
        }
    }
    pages.sort();
    pages.dedup();
    let txn: [u8; 16] = u.arbitrary()?;
    let mut body = Vec::new();
    for &p in &pages {
        let (_, l) = page_span(p, ps, orig_len).unwrap();
        body.extend(record(Kind::Page, p, &vec![p as u8; l as usize], &txn));
    }
    let h = Header {
        page_size: ps,
        orig_len,
        new_len,
        records: pages.len() as u32,
        records_end: (HEADER_RECORD_LEN + body.len()) as u64,
        original: u.arbitrary()?,
        name: u.arbitrary()?,
        txn,
    };
    let mut j = record(Kind::Header, 0, &encode_header(&h), &[]);
    j.extend(body);
    let commit_at = j.len();
    let c = Commit {
        new_len,
        page_size: ps,
        commitment: u.arbitrary()?,
    };
    j.extend(record(Kind::Commit, 0, &encode_commit(&c), &txn));
    assert_eq!(j.len(), commit_at + COMMIT_RECORD_LEN);
    let shape = classify(&j, &mut toy, &mut |_, _, _| {});
    assert_eq!(shape, Shape::Sealed { header: h, commit: Some(c) });
    assert_eq!(select_replay(&shape), Replay::KeepIfCommitted(c));
    // a torn commit (a prefix written over the zero slot) is "no commit"
    let cut = commit_at + u.int_in_range(0usize..=COMMIT_RECORD_LEN - 1)?;
    let mut torn = j.clone();
    torn[cut..].fill(0);
    let torn_shape = classify(&torn, &mut toy, &mut |_, _, _| {});
    assert_eq!(torn_shape, Shape::Sealed { header: h, commit: None });
    assert_eq!(
        select_replay(&torn_shape),
        Replay::RollBack { orig_len: h.orig_len }
    );
    // a truncation anywhere is refused (the length was durable at sealing)
    let t = u.int_in_range(0usize..=j.len() - 1)?;
    assert!(matches!(
        classify(&j[..t], &mut toy, &mut |_, _, _| {}),
        Shape::Corrupt { .. }
    ));
    // one changed byte of a whole journal is refused, except a change
    // that zeroes the record's last byte, which reads as a torn commit
    let at = u.int_in_range(0usize..=j.len() - 1)?;
    let flip: u8 = u.int_in_range(1u8..=255)?;
    j[at] ^= flip;
    match classify(&j, &mut toy, &mut |_, _, _| {}) {
        Shape::Corrupt { .. } => {}
        Shape::Sealed { commit: None, .. } if at == j.len() - 1 && j[at] == 0 => {}
        other => panic!("changed byte {at} read as {other:?}"),
    }
    Ok(())
}

fn schedule(u: &mut Unstructured<'_>) -> Result<()> {
    let ps = u.int_in_range(1u32..=64)?;
    let orig_len = u64::from(u.int_in_range(0u32..=2000)?);
    let new_len = u64::from(u.int_in_range(0u32..=2000)?);
    let o: Vec<u8> = (0..orig_len).map(|i| (i % 251) as u8 ^ 0x5A).collect();
    let new_pages = new_len.div_ceil(u64::from(ps)) as u32;
    let mut rewritten = Vec::new();
    for _ in 0..u.int_in_range(0usize..=8)? {
        if new_pages > 0 {
            rewritten.push(u.int_in_range(0..=new_pages - 1)?);
        }
    }
    let mut cand: Vec<u32> = rewritten.clone();
    cand.extend(shrink_pages(ps, orig_len, new_len));
    cand.sort();
    cand.dedup();
    let mut img = o.clone();
    let lo = orig_len.min(new_len);
    let hi = orig_len.max(new_len);
    let cur = lo + u64::from(u.int_in_range(0u32..=(hi - lo) as u32)?);
    img.resize(cur as usize, 0xEE);
    for &p in &rewritten {
        for i in (p * ps) as usize..((p + 1) * ps) as usize {
            if i < img.len() {
                img[i] = 0xAB;
            }
        }
    }
    img.resize(orig_len as usize, 0);
    for &p in &cand {
        if must_save(p, ps, orig_len, new_len, rewritten.contains(&p)) {
            let (s, l) = page_span(p, ps, orig_len).unwrap();
            img[s as usize..(s + l) as usize].copy_from_slice(&o[s as usize..(s + l) as usize]);
        }
    }
    assert_eq!(img, o);
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = match u.int_in_range(0u8..=2) {
        Ok(0) => arbitrary_bytes(&mut u),
        Ok(1) => built(&mut u),
        _ => schedule(&mut u),
    };
});
