//! The undo-journal kernel's oracle: exhaustive and property tests of
//! framing, classification and rollback against the decisions in `mod.rs`.

extern crate std;
use super::*;
use proptest::prelude::*;
use std::vec;
use std::vec::Vec;

/// A toy checksum: position-weighted sums, enough to notice any single
/// byte change of the covered bytes.
fn toy(salt: &[u8], covered: &[u8], payload: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (i, b) in salt.iter().chain(covered).chain(payload).enumerate() {
        let k = i % 16;
        out[k] = out[k]
            .wrapping_mul(31)
            .wrapping_add(*b)
            .wrapping_add(i as u8);
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
    let enc = encode_frame(&f);
    f.checksum = toy(salt, &enc[..16], payload);
    let mut v = encode_frame(&f).to_vec();
    v.extend_from_slice(payload);
    v.extend_from_slice(&TRAILER);
    v
}

struct Built {
    bytes: Vec<u8>,
    commit_at: usize,
}

/// The commit record `build` writes for `ps` and `new_len`.
fn commit_record(ps: u32, new_len: u64) -> Vec<u8> {
    let c = Commit {
        new_len,
        page_size: ps,
        commitment: [3; 32],
    };
    record(Kind::Commit, 0, &encode_commit(&c), &[7u8; 16])
}

/// Builds a journal the way the writer does, for an image of `orig_len`
/// bytes (all bytes = page number + 1) with pages `pages` saved.
fn build(ps: u32, orig_len: u64, new_len: u64, pages: &[u32], commit: bool) -> Built {
    let txn = [7u8; 16];
    let mut body = Vec::new();
    for &p in pages {
        let (_, len) = page_span(p, ps, orig_len).unwrap();
        body.extend(record(
            Kind::Page,
            p,
            &vec![p as u8 + 1; len as usize],
            &txn,
        ));
    }
    let h = Header {
        page_size: ps,
        orig_len,
        new_len,
        records: pages.len() as u32,
        records_end: (HEADER_RECORD_LEN + body.len()) as u64,
        original: [1; 32],
        name: [2; 16],
        txn,
    };
    let mut bytes = record(Kind::Header, 0, &encode_header(&h), &[]);
    assert_eq!(bytes.len(), HEADER_RECORD_LEN);
    bytes.extend(body);
    let commit_at = bytes.len();
    if commit {
        let c = Commit {
            new_len,
            page_size: ps,
            commitment: [3; 32],
        };
        let r = record(Kind::Commit, 0, &encode_commit(&c), &txn);
        assert_eq!(r.len(), COMMIT_RECORD_LEN);
        bytes.extend(r);
    } else {
        bytes.extend([0u8; COMMIT_RECORD_LEN]);
    }
    Built { bytes, commit_at }
}

fn shape(j: &[u8]) -> (Shape, Vec<(u32, usize, usize)>) {
    let mut seen = Vec::new();
    let s = classify(j, &mut toy, &mut |p, o, l| seen.push((p, o, l)));
    (s, seen)
}

#[test]
fn frame_round_trip_and_refusals() {
    for kind in [Kind::Header, Kind::Page, Kind::Commit] {
        let f = Frame {
            kind,
            page: 0xDEAD_BEEF,
            payload_len: 4096,
            checksum: [9; 16],
        };
        let enc = encode_frame(&f);
        assert_eq!(decode_frame(&enc), Ok(f));
        for cut in 0..FRAME_LEN {
            assert_eq!(decode_frame(&enc[..cut]), Err(Refusal::Torn));
        }
        for i in [0usize, 1, 2, 3, 5, 6, 7] {
            let mut bad = enc;
            bad[i] ^= 0x40;
            assert_eq!(decode_frame(&bad), Err(Refusal::BadRecord));
        }
    }
    for b in 0..=255u8 {
        let want = match b {
            1 => Some(Kind::Header),
            2 => Some(Kind::Page),
            3 => Some(Kind::Commit),
            _ => None,
        };
        assert_eq!(Kind::from_byte(b), want);
        if let Some(k) = want {
            assert_eq!(k.to_byte(), b);
        }
    }
}

#[test]
fn payload_codecs_round_trip() {
    let h = Header {
        page_size: 4096,
        orig_len: 123_456,
        new_len: 7,
        records: 3,
        records_end: 999,
        original: [5; 32],
        name: [6; 16],
        txn: [7; 16],
    };
    assert_eq!(decode_header(&encode_header(&h)), Ok(h));
    let c = Commit {
        new_len: 77,
        page_size: 2048,
        commitment: [8; 32],
    };
    assert_eq!(decode_commit(&encode_commit(&c)), Ok(c));
    let mut bad = encode_header(&h);
    bad[4] = 3; // page size 4099
    assert!(decode_header(&bad).is_err());
    let mut bad = encode_commit(&c);
    bad[13] = 1;
    assert!(decode_commit(&bad).is_err());
}

#[test]
fn whole_journals_classify() {
    let b = build(512, 2048, 1024, &[0, 2, 3], false);
    let (s, seen) = shape(&b.bytes);
    assert!(matches!(s, Shape::Sealed { commit: None, .. }), "{s:?}");
    assert_eq!(seen.iter().map(|x| x.0).collect::<Vec<_>>(), [0, 2, 3]);
    for (p, o, l) in seen {
        assert!(b.bytes[o..o + l].iter().all(|&x| x == p as u8 + 1));
    }
    assert_eq!(select_replay(&s), Replay::RollBack { orig_len: 2048 });
    let b = build(512, 2048, 1024, &[0, 2, 3], true);
    let (s, _) = shape(&b.bytes);
    assert!(
        matches!(
            s,
            Shape::Sealed {
                commit: Some(_),
                ..
            }
        ),
        "{s:?}"
    );
    assert!(matches!(select_replay(&s), Replay::KeepIfCommitted(_)));
    assert_eq!(
        select_replay(&Shape::Corrupt {
            offset: 0,
            refusal: Refusal::Torn
        }),
        Replay::Refuse
    );
}

/// Every torn prefix of the commit record written over the zero slot
/// is "no commit"; every truncation of a journal, with or without a
/// commit, is refused (the journal's length was durable when it got
/// its name).
#[test]
fn tears_roll_back_truncations_are_refused() {
    let b = build(512, 1500, 3000, &[1, 2], true);
    let rec = commit_record(512, 3000);
    for t in 0..COMMIT_RECORD_LEN {
        let mut j = b.bytes.clone();
        j[b.commit_at + t..].fill(0);
        let (s, _) = shape(&j);
        assert!(
            matches!(s, Shape::Sealed { commit: None, .. }),
            "commit torn at {t}: {s:?}"
        );
        assert_eq!(&j[b.commit_at..b.commit_at + t], &rec[..t]);
    }
    let rolled = build(512, 1500, 3000, &[1, 2], false);
    for j in [&b.bytes, &rolled.bytes] {
        for cut in 0..j.len() {
            assert!(
                matches!(shape(&j[..cut]).0, Shape::Corrupt { .. }),
                "truncated at {cut}"
            );
        }
    }
    assert!(matches!(shape(&[]).0, Shape::Corrupt { .. }));
}

/// Every single-byte change of a whole journal (committed or not) is
/// refused; in a torn commit prefix a change may go unnoticed but is
/// never read as a commit.
#[test]
fn every_byte_flip_is_caught() {
    for commit in [true, false] {
        let b = build(512, 1500, 1200, &[0, 2], commit);
        for i in 0..b.bytes.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut j = b.bytes.clone();
                j[i] ^= flip;
                let (s, _) = shape(&j);
                assert!(
                    matches!(s, Shape::Corrupt { .. }),
                    "commit {commit}: flip {flip:#x} at {i}: {s:?}"
                );
            }
        }
        // bytes appended after the slot are refused
        let mut j = b.bytes.clone();
        j.push(0);
        assert!(matches!(shape(&j).0, Shape::Corrupt { .. }));
    }
    let b = build(512, 1500, 1200, &[0, 2], true);
    for t in 1..COMMIT_RECORD_LEN {
        for i in b.commit_at..b.commit_at + t {
            let mut j = b.bytes.clone();
            j[b.commit_at + t..].fill(0);
            j[i] ^= 0x10;
            let (s, _) = shape(&j);
            assert!(
                !matches!(
                    s,
                    Shape::Sealed {
                        commit: Some(_),
                        ..
                    }
                ),
                "torn at {t}, flip at {i}: {s:?}"
            );
        }
    }
    // a different page-record order is refused
    let swapped = build(512, 1500, 1200, &[2, 0], false);
    assert!(matches!(
        shape(&swapped.bytes).0,
        Shape::Corrupt {
            refusal: Refusal::Disorder,
            ..
        }
    ));
}

#[test]
fn junk_is_corrupt() {
    assert!(matches!(shape(b"hello world").0, Shape::Corrupt { .. }));
    assert!(matches!(shape(&[0xFFu8; 300]).0, Shape::Corrupt { .. }));
    assert!(matches!(shape(&[0u8; 300]).0, Shape::Corrupt { .. }));
}

/// The oracle of the commit slot, written from the framing: the whole
/// record is a commit; a slot whose trailer is in place but which is
/// not the record is refused; otherwise some prefix length `t` must
/// leave only zeros after it, agree with every constant byte of a
/// commit record before it, and (when the payload is whole) carry a
/// matching checksum.
fn oracle_slot(slot: &[u8], rec: &[u8]) -> Result<Option<()>, ()> {
    if slot == rec {
        return Ok(Some(()));
    }
    if slot[80..84] == TRAILER {
        return Err(());
    }
    for t in 0..=COMMIT_RECORD_LEN {
        if slot[t..].iter().any(|&b| b != 0) {
            continue;
        }
        let constants_ok = (0..t).all(|i| match i {
            0..4 => slot[i] == MAGIC[i],
            4 => slot[i] == 3,
            5..12 => slot[i] == 0,
            12 => slot[i] == 48,
            13..16 => slot[i] == 0,
            44..48 => slot[i] == 0,
            80..84 => slot[i] == TRAILER[i - 80],
            _ => true,
        });
        let sum_ok = t <= 80 || toy(&[7u8; 16], &slot[..16], &slot[32..80]) == slot[16..32];
        if constants_ok && sum_ok {
            return Ok(None);
        }
    }
    Err(())
}

#[test]
fn commit_slot_matches_oracle() {
    let rec = commit_record(4096, 77_777);
    let check = |slot: &[u8]| {
        let got = commit_slot(slot, &[7u8; 16], &mut toy)
            .map(|c| c.map(|_| ()))
            .map_err(|_| ());
        assert_eq!(got, oracle_slot(slot, &rec), "{slot:?}");
    };
    check(&rec);
    check(&[0u8; COMMIT_RECORD_LEN]);
    for t in 0..=COMMIT_RECORD_LEN {
        let mut torn = rec.clone();
        torn[t..].fill(0);
        check(&torn);
        for i in 0..COMMIT_RECORD_LEN {
            for flip in [0x01u8, 0x20, 0x80, 0xFF] {
                let mut j = torn.clone();
                j[i] ^= flip;
                check(&j);
            }
        }
    }
    assert!(commit_slot(&rec[..83], &[7u8; 16], &mut toy).is_err());
}

fn oracle_span(page: u32, ps: u32, len: u64) -> Option<(u64, u64)> {
    let start = page as u128 * ps as u128;
    if start >= len as u128 {
        return None;
    }
    let end = (start + ps as u128).min(len as u128);
    Some((start as u64, (end - start) as u64))
}

/// The save schedule and length order rebuild O from every state a
/// transaction can leave: exhaustive over small files, page sizes,
/// write sets and (possibly interrupted) length changes.
#[test]
fn schedule_restores_o_exhaustive() {
    for ps in 1u32..=3 {
        for orig_len in 0u64..=7 {
            for new_len in 0u64..=7 {
                let new_pages = new_len.div_ceil(ps as u64) as u32;
                for mask in 0u32..(1 << new_pages) {
                    let o: Vec<u8> = (0..orig_len).map(|i| 100 + i as u8).collect();
                    let rewritten = |p: u32| mask & (1 << p) != 0;
                    let mut candidates: Vec<u32> =
                        (0..new_pages).filter(|&p| rewritten(p)).collect();
                    candidates.extend(shrink_pages(ps, orig_len, new_len));
                    candidates.sort();
                    candidates.dedup();
                    let saved: Vec<(u64, Vec<u8>)> = candidates
                        .iter()
                        .filter(|&&p| must_save(p, ps, orig_len, new_len, rewritten(p)))
                        .map(|&p| {
                            let (s, l) = page_span(p, ps, orig_len).unwrap();
                            (s, o[s as usize..(s + l) as usize].to_vec())
                        })
                        .collect();
                    // every page the oracle says has O bytes at risk is saved
                    for p in 0..(orig_len.div_ceil(ps as u64) as u32 + 1) {
                        if let Some((s, l)) = oracle_span(p, ps, orig_len) {
                            let at_risk = (p < new_pages && rewritten(p)) || s + l > new_len;
                            assert_eq!(
                                saved.iter().any(|x| x.0 == s),
                                at_risk,
                                "ps {ps} o {orig_len} n {new_len} mask {mask} page {p}"
                            );
                        }
                    }
                    // any interleaving result: the length anywhere between,
                    // rewritten pages garbage; restoring gives O
                    for cur_len in 0..=8u64 {
                        let mut img: Vec<u8> = o.clone();
                        img.resize(cur_len as usize, 0xEE);
                        for p in 0..new_pages {
                            if rewritten(p) {
                                for i in (p * ps) as usize..((p + 1) * ps) as usize {
                                    if i < img.len() {
                                        img[i] = 0xAB;
                                    }
                                }
                            }
                        }
                        // a length change stops between its ends: growth never
                        // goes below O's length, a shrink never below C's
                        if cur_len < orig_len.min(new_len) {
                            continue;
                        }
                        img.resize(orig_len as usize, 0);
                        for (s, bytes) in &saved {
                            img[*s as usize..*s as usize + bytes.len()].copy_from_slice(bytes);
                        }
                        assert_eq!(
                            img, o,
                            "ps {ps} o {orig_len} n {new_len} mask {mask} cur {cur_len}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn length_order_exhaustive() {
    for a in 0..20u64 {
        for b in 0..20u64 {
            let want = if a == b {
                LengthOrder::Unchanged
            } else if b > a {
                LengthOrder::GrowFirst(b)
            } else {
                LengthOrder::ShrinkLast(b)
            };
            assert_eq!(length_order(a, b), want);
            for ps in 1..5u32 {
                let r = shrink_pages(ps, a, b);
                let want: Vec<u32> = (0..30u32)
                    .filter(|&p| oracle_span(p, ps, a).is_some_and(|(s, l)| b < a && s + l > b))
                    .collect();
                assert_eq!(r.collect::<Vec<_>>(), want, "ps {ps} {a}->{b}");
            }
        }
    }
}

proptest! {
    #[test]
    fn span_matches_oracle(p in any::<u32>(), ps in any::<u32>(), len in any::<u64>()) {
        prop_assert_eq!(page_span(p, ps, len), oracle_span(p, ps, len));
    }

    #[test]
    fn classify_never_panics_and_tears_never_corrupt(
        pages in proptest::collection::btree_set(0u32..12, 0..6),
        orig in 1u64..6000,
        newl in 1u64..6000,
        cut in 0usize..8000,
        commit in any::<bool>(),
        noise in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let pages: Vec<u32> = pages
            .into_iter()
            .filter(|&p| page_span(p, 512, orig).is_some())
            .collect();
        let b = build(512, orig, newl, &pages, commit);
        // a whole journal classifies as built
        let (s, seen) = shape(&b.bytes);
        let sealed = matches!(s, Shape::Sealed { commit: Some(_), .. });
        prop_assert!(
            sealed == commit,
            "{:?}", s
        );
        prop_assert_eq!(seen.len(), pages.len());
        // a torn commit (a prefix over the zero slot) is "no commit";
        // a truncation anywhere is refused
        let mut torn = b.bytes.clone();
        torn[b.commit_at + cut % COMMIT_RECORD_LEN..].fill(0);
        let (s, _) = shape(&torn);
        prop_assert!(matches!(s, Shape::Sealed { commit: None, .. }), "{:?}", s);
        let (s, _) = shape(&b.bytes[..cut % b.bytes.len()]);
        prop_assert!(matches!(s, Shape::Corrupt { .. }), "{:?}", s);
        // noise never panics
        let mut j = b.bytes.clone();
        for (i, x) in noise.iter().enumerate() {
            let at = (i * 7919 + *x as usize) % j.len();
            j[at] = *x;
        }
        let _ = shape(&j);
        let _ = shape(&noise);
    }
}
