//! Long values (MEMO, OLE): the 12-byte descriptor stored in the row, and the
//! budget that bounds walking a chain of LVAL rows.
//!
//! Descriptor: `u32` little-endian whose low 30 bits are the total length and
//! whose top two bits give the kind (`0x80..` inline after the descriptor,
//! `0x40..` one LVAL row, `0x00..` a chain of LVAL rows); then a row pointer
//! (`row` byte, 24-bit page) to the first LVAL row; then 4 unused bytes.

use crate::Refusal;
use crate::bytes::u32_at;
use crate::row_slot::{pack_row_pointer, unpack_row_pointer};

/// Length of a long-value descriptor in bytes.
pub const DESCRIPTOR_LEN: usize = 12;
/// Largest length a descriptor can state (30 bits).
pub const MAX_LEN: u32 = 0x3FFF_FFFF;

/// Where a long value's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LvalKind {
    /// In the row, right after the descriptor.
    Inline,
    /// In one LVAL row.
    SinglePage,
    /// In a chain of LVAL rows, each starting with the pointer to the next.
    Chained,
}

/// A decoded long-value descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LvalDescriptor {
    /// Total length of the value in bytes.
    pub length: u32,
    /// Where the bytes are.
    pub kind: LvalKind,
    /// First LVAL row (page, row); meaningless for [`LvalKind::Inline`].
    pub page: u32,
    /// Row number on `page`.
    pub row: u8,
}

/// Decodes the descriptor at the start of `bytes`.
///
/// Refuses fewer than 12 bytes ([`Refusal::OutOfBounds`]) and the kind bits
/// `0b11` ([`Refusal::BadDescriptor`]).
pub fn decode_descriptor(bytes: &[u8]) -> Result<LvalDescriptor, Refusal> {
    if bytes.len() < DESCRIPTOR_LEN {
        return Err(Refusal::OutOfBounds);
    }
    let head = u32_at(bytes, 0).ok_or(Refusal::OutOfBounds)?;
    let ptr = u32_at(bytes, 4).ok_or(Refusal::OutOfBounds)?;
    let kind = match head >> 30 {
        0b10 => LvalKind::Inline,
        0b01 => LvalKind::SinglePage,
        0b00 => LvalKind::Chained,
        _ => return Err(Refusal::BadDescriptor),
    };
    // the pointer is stored as row byte then 24-bit page: the same packing
    // as a row pointer read little-endian
    let (page, row) = unpack_row_pointer(ptr);
    Ok(LvalDescriptor {
        length: head & MAX_LEN,
        kind,
        page,
        row,
    })
}

/// Encodes a descriptor; `None` when the length needs more than 30 bits or
/// the page more than 24.
#[must_use]
pub fn encode_descriptor(d: &LvalDescriptor) -> Option<[u8; DESCRIPTOR_LEN]> {
    if d.length > MAX_LEN {
        return None;
    }
    let kind_bits: u32 = match d.kind {
        LvalKind::Inline => 0b10 << 30,
        LvalKind::SinglePage => 0b01 << 30,
        LvalKind::Chained => 0,
    };
    let ptr = pack_row_pointer(d.page, d.row)?;
    let mut out = [0u8; DESCRIPTOR_LEN];
    let (a, rest) = out.split_at_mut(4);
    a.copy_from_slice(&(d.length | kind_bits).to_le_bytes());
    let (b, _) = rest.split_at_mut(4);
    b.copy_from_slice(&ptr.to_le_bytes());
    Some(out)
}

/// The budget that bounds walking an LVAL chain.
///
/// Every step must deliver at least one byte (strict progress), no more than
/// the bytes still owed, must not point at itself, and must stay within a
/// link budget. So the walk ends after at most `min(bytes, links)` steps, and
/// never collects more than the declared length, whatever the pages say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainBudget {
    remaining_bytes: u32,
    remaining_links: u32,
}

impl ChainBudget {
    /// A budget for a value of `length` bytes in a file of `file_pages` pages.
    /// A file of `n` pages holds at most `n * 256` LVAL rows, so no honest
    /// chain has more links than that.
    #[must_use]
    pub fn new(length: u32, file_pages: u32) -> ChainBudget {
        ChainBudget {
            remaining_bytes: length,
            remaining_links: file_pages.saturating_mul(256),
        }
    }

    /// Bytes still owed by the chain.
    #[must_use]
    pub fn remaining_bytes(&self) -> u32 {
        self.remaining_bytes
    }

    /// Admits one segment of `segment_len` bytes found at `here`, whose next
    /// pointer is `next` (0 ends the chain). Returns how many bytes of the
    /// segment to take (a final segment may carry padding past the value).
    ///
    /// Refuses ([`Refusal::Budget`]) an empty segment, a segment after the
    /// value is complete, a segment pointing at itself, and a chain longer
    /// than its link budget.
    pub fn step(&mut self, segment_len: usize, here: u32, next: u32) -> Result<u32, Refusal> {
        if segment_len == 0 || self.remaining_bytes == 0 || self.remaining_links == 0 {
            return Err(Refusal::Budget);
        }
        if next != 0 && next == here {
            return Err(Refusal::Budget);
        }
        let seg = u32::try_from(segment_len).unwrap_or(u32::MAX);
        let take = seg.min(self.remaining_bytes);
        self.remaining_bytes = self.remaining_bytes.saturating_sub(take);
        self.remaining_links = self.remaining_links.saturating_sub(1);
        Ok(take)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn kinds_exhaustive_top_byte() {
        for top in 0..=255u8 {
            let mut b = [0u8; 12];
            b[3] = top;
            b[0] = 5;
            let d = decode_descriptor(&b);
            match top >> 6 {
                2 => assert_eq!(d.unwrap().kind, LvalKind::Inline),
                1 => assert_eq!(d.unwrap().kind, LvalKind::SinglePage),
                0 => assert_eq!(d.unwrap().kind, LvalKind::Chained),
                _ => assert_eq!(d, Err(Refusal::BadDescriptor)),
            }
            if let Ok(d) = d {
                assert_eq!(d.length, 5 + ((top as u32 & 0x3f) << 24));
            }
        }
        for n in 0..12 {
            assert_eq!(
                decode_descriptor(&[0u8; 12][..n]),
                Err(Refusal::OutOfBounds)
            );
        }
    }

    #[test]
    fn chain_budget_terminates_on_cycles() {
        // a cycle of two 1-byte segments in a 3-page file stops within 768 links
        let mut b = ChainBudget::new(MAX_LEN, 3);
        let mut steps = 0;
        while b.step(1, 10 + steps % 2, 11 - steps % 2).is_ok() {
            steps += 1;
        }
        assert_eq!(steps, 768);
        let mut b = ChainBudget::new(10, 100);
        assert_eq!(b.step(0, 1, 2), Err(Refusal::Budget));
        assert_eq!(b.step(4, 1, 1), Err(Refusal::Budget));
        assert_eq!(b.step(4, 1, 2), Ok(4));
        assert_eq!(b.step(100, 2, 0), Ok(6));
        assert_eq!(b.step(1, 3, 0), Err(Refusal::Budget));
    }

    proptest! {
        #[test]
        fn descriptor_roundtrip(length in 0u32..=MAX_LEN, k in 0u8..3, page in 0u32..0x1000000, row in any::<u8>()) {
            let kind = [LvalKind::Inline, LvalKind::SinglePage, LvalKind::Chained][k as usize];
            let d = LvalDescriptor { length, kind, page, row };
            let e = encode_descriptor(&d).unwrap();
            prop_assert_eq!(decode_descriptor(&e), Ok(d));
            // byte layout as the format documents it: row byte at 4, page at 5..8
            prop_assert_eq!(e[4], row);
            prop_assert_eq!(u32::from_le_bytes([e[5], e[6], e[7], 0]), page);
        }

        #[test]
        fn budget_never_overdelivers(segs in proptest::collection::vec(0usize..5000, 0..50), len in 0u32..100_000) {
            let mut b = ChainBudget::new(len, 10);
            let mut total = 0u64;
            for (i, s) in segs.iter().enumerate() {
                match b.step(*s, i as u32 + 1, i as u32 + 2) {
                    Ok(t) => { prop_assert!(t >= 1 && t as usize <= *s); total += t as u64; }
                    Err(_) => break,
                }
            }
            prop_assert!(total <= len as u64);
        }
    }
}
