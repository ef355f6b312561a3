//! Undo-journal decisions: record framing, classification of a journal's
//! bytes after a crash, which saved originals a rollback restores, and the
//! order of length changes within a transaction.
//!
//! A journal (`<db>.jetjournal`) is laid out as
//!
//! ```text
//! [header record][page record]*[commit record]?
//! ```
//!
//! Every record is a 32-byte frame, a payload and a 4-byte trailer:
//!
//! ```text
//! 0..4   MAGIC "JjRn"
//! 4      kind (1 header, 2 page, 3 commit)
//! 5..8   zero
//! 8..12  page number (u32 LE; 0 unless kind = page)
//! 12..16 payload length (u32 LE)
//! 16..32 checksum: 16 bytes computed by the caller over
//!        (salt, frame bytes 0..16, payload); the salt is the
//!        transaction id for page and commit records and empty for the header
//! ..     payload
//! ..     TRAILER "JjEd"
//! ```
//!
//! The writer appends the page records first, flushes, then writes the
//! header record into the space reserved at offset 0 and flushes again
//! ("seals" the journal). Only then does it touch the database. A header
//! whose trailer is missing therefore proves the database was never
//! written: the journal is [`Shape::Unsealed`]. A header whose trailer is
//! present but which fails its checks cannot come from a crash and is
//! [`Shape::Corrupt`]. Within a sealed journal every page record must be
//! whole and valid; a commit record may be absent or torn (the crash came
//! before it was flushed) but never present-and-invalid.
//!
//! Tearing is modelled at byte granularity as "a prefix of a write
//! persisted; the rest of the region reads as zeros or is absent".

use crate::Refusal;
use crate::bytes::{u8_at, u32_at, u64_at};
use crate::range::slice;

/// First four bytes of every record.
pub const MAGIC: [u8; 4] = *b"JjRn";
/// Last four bytes of every record.
pub const TRAILER: [u8; 4] = *b"JjEd";
/// Length of a record's frame.
pub const FRAME_LEN: usize = 32;
/// Length of a record's trailer.
pub const TRAILER_LEN: usize = 4;
/// Length of a record checksum.
pub const CHECKSUM_LEN: usize = 16;
/// The frame bytes the checksum covers (magic, kind, page, length).
pub const COVERED_LEN: usize = 16;
/// Journal format version written in the header.
pub const FORMAT_VERSION: u32 = 1;
/// Length of the header payload.
pub const HEADER_PAYLOAD_LEN: u32 = 104;
/// Length of the whole header record (frame, payload, trailer); page
/// records start here.
pub const HEADER_RECORD_LEN: usize = 140;
/// Length of the commit payload.
pub const COMMIT_PAYLOAD_LEN: u32 = 48;
/// Length of the whole commit record.
pub const COMMIT_RECORD_LEN: usize = 84;
/// Largest page size a journal admits.
pub const MAX_PAGE_SIZE: u32 = 65536;

/// What a record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Identifies the database and the transaction; seals the journal.
    Header,
    /// The original bytes of one page.
    Page,
    /// The commitment to the new image.
    Commit,
}

impl Kind {
    /// The kind byte of the frame.
    #[must_use]
    pub fn to_byte(self) -> u8 {
        match self {
            Kind::Header => 1,
            Kind::Page => 2,
            Kind::Commit => 3,
        }
    }

    /// The kind named by a frame byte, or `None` for any other byte.
    #[must_use]
    pub fn from_byte(b: u8) -> Option<Kind> {
        match b {
            1 => Some(Kind::Header),
            2 => Some(Kind::Page),
            3 => Some(Kind::Commit),
            _ => None,
        }
    }
}

/// A decoded record frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Record kind.
    pub kind: Kind,
    /// Page number (page records), else 0.
    pub page: u32,
    /// Payload length in bytes.
    pub payload_len: u32,
    /// Stored checksum.
    pub checksum: [u8; CHECKSUM_LEN],
}

fn put(out: &mut [u8], at: usize, bytes: &[u8]) {
    let end = at.saturating_add(bytes.len());
    if let Some(dst) = out.get_mut(at..end) {
        dst.copy_from_slice(bytes);
    }
}

fn array16(buf: &[u8], at: usize) -> Option<[u8; 16]> {
    slice(buf, at, 16)?.try_into().ok()
}

fn array32(buf: &[u8], at: usize) -> Option<[u8; 32]> {
    slice(buf, at, 32)?.try_into().ok()
}

/// Encodes a frame into its 32 bytes. Total: every frame encodes.
#[must_use]
pub fn encode_frame(f: &Frame) -> [u8; FRAME_LEN] {
    let mut out = [0u8; FRAME_LEN];
    put(&mut out, 0, &MAGIC);
    put(&mut out, 4, &[f.kind.to_byte()]);
    put(&mut out, 8, &f.page.to_le_bytes());
    put(&mut out, 12, &f.payload_len.to_le_bytes());
    put(&mut out, 16, &f.checksum);
    out
}

/// Decodes the frame at the start of `bytes`.
///
/// Refuses with [`Refusal::Torn`] when fewer than 32 bytes are present and
/// [`Refusal::BadRecord`] when the magic, kind or reserved bytes are wrong.
pub fn decode_frame(bytes: &[u8]) -> Result<Frame, Refusal> {
    let b = slice(bytes, 0, FRAME_LEN).ok_or(Refusal::Torn)?;
    if slice(b, 0, 4) != Some(&MAGIC[..]) || slice(b, 5, 3) != Some(&[0u8, 0, 0][..]) {
        return Err(Refusal::BadRecord);
    }
    let kind = u8_at(b, 4)
        .and_then(Kind::from_byte)
        .ok_or(Refusal::BadRecord)?;
    Ok(Frame {
        kind,
        page: u32_at(b, 8).ok_or(Refusal::Torn)?,
        payload_len: u32_at(b, 12).ok_or(Refusal::Torn)?,
        checksum: array16(b, 16).ok_or(Refusal::Torn)?,
    })
}

/// Total length of a record with `payload_len` payload bytes, or `None` on
/// overflow.
#[must_use]
pub fn record_len(payload_len: u32) -> Option<usize> {
    usize::try_from(payload_len)
        .ok()?
        .checked_add(FRAME_LEN)?
        .checked_add(TRAILER_LEN)
}

/// Whether `bytes` (up to `limit` of them) can be the persisted part of a
/// torn record write into a zeroed or absent region: the bytes present
/// start with a prefix of [`MAGIC`], and from the first byte that departs
/// from it every byte up to `limit` is zero.
#[must_use]
pub fn tear_shaped(bytes: &[u8], limit: usize) -> bool {
    let region = bytes.get(..limit.min(bytes.len())).unwrap_or(bytes);
    let mut i = 0usize;
    for (b, m) in region.iter().zip(MAGIC.iter()) {
        if b != m {
            break;
        }
        i = i.saturating_add(1);
    }
    if i >= MAGIC.len() {
        return true;
    }
    region.get(i..).unwrap_or(&[]).iter().all(|&b| b == 0)
}

/// What a caller expects at an offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect {
    /// The kind that must be there.
    pub kind: Kind,
    /// For header and commit records: their fixed payload length (the
    /// trailer's position is known before the frame is trusted).
    pub fixed_len: Option<u32>,
    /// Largest admitted payload.
    pub max_payload: u32,
}

/// The outcome of reading one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read<'a> {
    /// A whole, valid record.
    Record {
        /// Its frame.
        frame: Frame,
        /// Its payload.
        payload: &'a [u8],
        /// Offset just past its trailer.
        end: usize,
    },
    /// The record's trailer is not in place and the bytes present are the
    /// shape a torn write leaves.
    Torn,
    /// Bytes no crash can produce.
    Corrupt(Refusal),
}

/// Reads the record at `offset` of `journal`, expecting `expect`.
///
/// `sum(salt, covered, payload)` computes the 16-byte checksum the caller
/// uses (for example a truncated SHA-256). Returns [`Read::Record`] only
/// when magic, kind, reserved bytes, length, trailer and checksum all
/// check; [`Read::Torn`] when the trailer is missing and the bytes are
/// tear-shaped ([`tear_shaped`]); otherwise [`Read::Corrupt`].
pub fn read_record<'a, F>(
    journal: &'a [u8],
    offset: usize,
    expect: Expect,
    salt: &[u8],
    sum: &mut F,
) -> Read<'a>
where
    F: FnMut(&[u8], &[u8], &[u8]) -> [u8; CHECKSUM_LEN],
{
    let Some(rest) = journal.get(offset..) else {
        return Read::Corrupt(Refusal::OutOfBounds);
    };
    let trailer_in_place = |total: usize| -> bool {
        total
            .checked_sub(TRAILER_LEN)
            .and_then(|at| slice(rest, at, TRAILER_LEN))
            == Some(&TRAILER[..])
    };
    if let Some(fixed) = expect.fixed_len {
        let Some(total) = record_len(fixed) else {
            return Read::Corrupt(Refusal::BadCount);
        };
        if !trailer_in_place(total) {
            return if tear_shaped(rest, total) {
                Read::Torn
            } else {
                Read::Corrupt(Refusal::BadRecord)
            };
        }
    }
    let frame = match decode_frame(rest) {
        Ok(f) => f,
        Err(Refusal::Torn) if expect.fixed_len.is_none() && tear_shaped(rest, FRAME_LEN) => {
            return Read::Torn;
        }
        Err(Refusal::Torn) => return Read::Corrupt(Refusal::Torn),
        Err(r) => return Read::Corrupt(r),
    };
    if frame.kind != expect.kind {
        return Read::Corrupt(Refusal::BadRecord);
    }
    if expect.fixed_len.is_some_and(|l| l != frame.payload_len)
        || frame.payload_len > expect.max_payload
    {
        return Read::Corrupt(Refusal::BadCount);
    }
    let Some(total) = record_len(frame.payload_len) else {
        return Read::Corrupt(Refusal::BadCount);
    };
    if !trailer_in_place(total) {
        return Read::Torn;
    }
    let (Some(covered), Some(payload), Some(end)) = (
        rest.get(..COVERED_LEN),
        usize::try_from(frame.payload_len)
            .ok()
            .and_then(|l| slice(rest, FRAME_LEN, l)),
        offset.checked_add(total),
    ) else {
        return Read::Torn;
    };
    if sum(salt, covered, payload) != frame.checksum {
        return Read::Corrupt(Refusal::Checksum);
    }
    Read::Record {
        frame,
        payload,
        end,
    }
}

/// What the header record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Page size of the database.
    pub page_size: u32,
    /// Length in bytes of the database before the transaction (O).
    pub orig_len: u64,
    /// Length in bytes the transaction gives it (C): the length intent.
    pub new_len: u64,
    /// Number of page records.
    pub records: u32,
    /// Offset just past the last page record (where the commit goes).
    pub records_end: u64,
    /// Digest of O's page 0 (its first `min(page_size, orig_len)` bytes).
    pub page0: [u8; 32],
    /// Digest of the database's file name.
    pub name: [u8; 16],
    /// Transaction id; the salt of every later record's checksum.
    pub txn: [u8; 16],
}

/// Encodes a header payload.
#[must_use]
pub fn encode_header(h: &Header) -> [u8; 104] {
    let mut out = [0u8; 104];
    put(&mut out, 0, &FORMAT_VERSION.to_le_bytes());
    put(&mut out, 4, &h.page_size.to_le_bytes());
    put(&mut out, 8, &h.orig_len.to_le_bytes());
    put(&mut out, 16, &h.new_len.to_le_bytes());
    put(&mut out, 24, &h.records.to_le_bytes());
    put(&mut out, 32, &h.records_end.to_le_bytes());
    put(&mut out, 40, &h.page0);
    put(&mut out, 72, &h.name);
    put(&mut out, 88, &h.txn);
    out
}

/// Whether a page size is admitted: a power of two from 512 to
/// [`MAX_PAGE_SIZE`].
#[must_use]
pub fn page_size_ok(page_size: u32) -> bool {
    page_size.is_power_of_two() && (512..=MAX_PAGE_SIZE).contains(&page_size)
}

/// Decodes a header payload; refuses an unknown version, a bad page size,
/// non-zero reserved bytes or a records end before the first page record.
pub fn decode_header(p: &[u8]) -> Result<Header, Refusal> {
    if p.len() != 104 {
        return Err(Refusal::BadCount);
    }
    let bad = Refusal::BadRecord;
    if u32_at(p, 0) != Some(FORMAT_VERSION) || u32_at(p, 28) != Some(0) {
        return Err(bad);
    }
    let page_size = u32_at(p, 4).ok_or(bad)?;
    if !page_size_ok(page_size) {
        return Err(Refusal::BadCount);
    }
    let records_end = u64_at(p, 32).ok_or(bad)?;
    if records_end < 140 {
        return Err(Refusal::OutOfBounds);
    }
    Ok(Header {
        page_size,
        orig_len: u64_at(p, 8).ok_or(bad)?,
        new_len: u64_at(p, 16).ok_or(bad)?,
        records: u32_at(p, 24).ok_or(bad)?,
        records_end,
        page0: array32(p, 40).ok_or(bad)?,
        name: array16(p, 72).ok_or(bad)?,
        txn: array16(p, 88).ok_or(bad)?,
    })
}

/// What the commit record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commit {
    /// Length in bytes of C.
    pub new_len: u64,
    /// Page size of C.
    pub page_size: u32,
    /// SHA-256 commitment over C (computed by the caller).
    pub commitment: [u8; 32],
}

/// Encodes a commit payload.
#[must_use]
pub fn encode_commit(c: &Commit) -> [u8; 48] {
    let mut out = [0u8; 48];
    put(&mut out, 0, &c.new_len.to_le_bytes());
    put(&mut out, 8, &c.page_size.to_le_bytes());
    put(&mut out, 16, &c.commitment);
    out
}

/// Decodes a commit payload; refuses non-zero reserved bytes.
pub fn decode_commit(p: &[u8]) -> Result<Commit, Refusal> {
    if p.len() != 48 {
        return Err(Refusal::BadCount);
    }
    let bad = Refusal::BadRecord;
    if u32_at(p, 12) != Some(0) {
        return Err(bad);
    }
    Ok(Commit {
        new_len: u64_at(p, 0).ok_or(bad)?,
        page_size: u32_at(p, 8).ok_or(bad)?,
        commitment: array32(p, 16).ok_or(bad)?,
    })
}

/// The state a journal's bytes are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The header never became whole: the database was not touched.
    Unsealed,
    /// A whole header and every page record it announces.
    Sealed {
        /// The header.
        header: Header,
        /// The commit record, when one is whole and valid; `None` when it
        /// is absent or torn.
        commit: Option<Commit>,
    },
    /// Bytes no crash can produce.
    Corrupt {
        /// Offset of the offending record.
        offset: usize,
        /// Why.
        refusal: Refusal,
    },
}

/// The byte span `(start, len)` of page `page` within a file of `file_len`
/// bytes: the page's bytes clipped at the end of the file. `None` when the
/// page starts at or past the end, or on overflow.
#[must_use]
pub fn page_span(page: u32, page_size: u32, file_len: u64) -> Option<(u64, u64)> {
    let start = u64::from(page).checked_mul(u64::from(page_size))?;
    if start >= file_len {
        return None;
    }
    let end = start.checked_add(u64::from(page_size))?.min(file_len);
    Some((start, end.checked_sub(start)?))
}

/// Classifies a whole journal.
///
/// Calls `visit(page, payload_offset, payload_len)` for each page record in
/// order while walking a sealed journal; when the result is not
/// [`Shape::Sealed`] the caller must discard what it collected. Page
/// records must have strictly increasing page numbers (each page is saved
/// once) and exactly the length of that page's span in O ([`page_span`]).
pub fn classify<F, V>(journal: &[u8], sum: &mut F, visit: &mut V) -> Shape
where
    F: FnMut(&[u8], &[u8], &[u8]) -> [u8; CHECKSUM_LEN],
    V: FnMut(u32, usize, usize),
{
    let header_expect = Expect {
        kind: Kind::Header,
        fixed_len: Some(HEADER_PAYLOAD_LEN),
        max_payload: HEADER_PAYLOAD_LEN,
    };
    let header = match read_record(journal, 0, header_expect, &[], sum) {
        Read::Torn => return Shape::Unsealed,
        Read::Corrupt(refusal) => return Shape::Corrupt { offset: 0, refusal },
        Read::Record { payload, .. } => match decode_header(payload) {
            Ok(h) => h,
            Err(refusal) => return Shape::Corrupt { offset: 0, refusal },
        },
    };
    let corrupt = |offset: usize, refusal: Refusal| Shape::Corrupt { offset, refusal };
    let Ok(records_end) = usize::try_from(header.records_end) else {
        return corrupt(0, Refusal::OutOfBounds);
    };
    if records_end > journal.len() {
        return corrupt(0, Refusal::OutOfBounds);
    }
    let page_expect = Expect {
        kind: Kind::Page,
        fixed_len: None,
        max_payload: header.page_size,
    };
    let mut offset = HEADER_RECORD_LEN;
    let mut prev: Option<u32> = None;
    let mut count: u32 = 0;
    while offset < records_end {
        let (frame, end) = match read_record(journal, offset, page_expect, &header.txn, sum) {
            Read::Record { frame, end, .. } => (frame, end),
            Read::Torn => return corrupt(offset, Refusal::Torn),
            Read::Corrupt(r) => return corrupt(offset, r),
        };
        if prev.is_some_and(|p| frame.page <= p) {
            return corrupt(offset, Refusal::Disorder);
        }
        let Some((_, span_len)) = page_span(frame.page, header.page_size, header.orig_len) else {
            return corrupt(offset, Refusal::OutOfBounds);
        };
        if span_len != u64::from(frame.payload_len) {
            return corrupt(offset, Refusal::BadCount);
        }
        if end > records_end {
            return corrupt(offset, Refusal::OutOfBounds);
        }
        let Some(next_count) = count.checked_add(1) else {
            return corrupt(offset, Refusal::BadCount);
        };
        count = next_count;
        if let (Some(at), Ok(len)) = (
            offset.checked_add(FRAME_LEN),
            usize::try_from(frame.payload_len),
        ) {
            visit(frame.page, at, len);
        }
        prev = Some(frame.page);
        offset = end;
    }
    if offset != records_end || count != header.records {
        return corrupt(offset, Refusal::BadCount);
    }
    let tail = journal.get(records_end..).unwrap_or(&[]);
    if tail.is_empty() {
        return Shape::Sealed {
            header,
            commit: None,
        };
    }
    let commit_expect = Expect {
        kind: Kind::Commit,
        fixed_len: Some(COMMIT_PAYLOAD_LEN),
        max_payload: COMMIT_PAYLOAD_LEN,
    };
    match read_record(journal, records_end, commit_expect, &header.txn, sum) {
        Read::Torn if tail.len() <= COMMIT_RECORD_LEN => Shape::Sealed {
            header,
            commit: None,
        },
        Read::Torn => corrupt(records_end, Refusal::BadRecord),
        Read::Corrupt(r) => corrupt(records_end, r),
        Read::Record { payload, end, .. } => match decode_commit(payload) {
            Err(r) => corrupt(records_end, r),
            Ok(_) if end != journal.len() => corrupt(end, Refusal::BadCount),
            Ok(c) if c.page_size != header.page_size || c.new_len != header.new_len => {
                corrupt(records_end, Refusal::BadCount)
            }
            Ok(c) => Shape::Sealed {
                header,
                commit: Some(c),
            },
        },
    }
}

/// Whether a transaction taking a file from `orig_len` to `new_len` bytes
/// must save page `page` before it runs: the page has bytes in O and
/// either the transaction rewrites it or some of its bytes lie at or past
/// `new_len` (a shrink cuts them off).
///
/// Guarantee (checked by the oracle): restoring every saved span of O and
/// setting the length back to `orig_len` rebuilds O from any state the
/// transaction's writes and length changes can leave.
#[must_use]
pub fn must_save(page: u32, page_size: u32, orig_len: u64, new_len: u64, rewritten: bool) -> bool {
    match page_span(page, page_size, orig_len) {
        None => false,
        Some((start, len)) => rewritten || start.saturating_add(len) > new_len,
    }
}

/// The pages a shrink from `orig_len` to `new_len` cuts into, as
/// `first..end` (empty when the file does not shrink). Together with the
/// rewritten pages, these are the candidates for [`must_save`].
#[must_use]
pub fn shrink_pages(page_size: u32, orig_len: u64, new_len: u64) -> core::ops::Range<u32> {
    if new_len >= orig_len || page_size == 0 {
        return 0..0;
    }
    let ps = u64::from(page_size);
    let first = new_len.checked_div(ps).unwrap_or(0);
    let end = orig_len.div_ceil(ps);
    let clamp = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    clamp(first)..clamp(end)
}

/// When a transaction changes the file's length relative to its page
/// writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthOrder {
    /// The length does not change.
    Unchanged,
    /// Grow to the new length before writing pages (appended pages are
    /// then overwrites of a zero-filled extension).
    GrowFirst(u64),
    /// Write pages first, then cut the file to the new length (the cut
    /// pages were saved before).
    ShrinkLast(u64),
}

/// Decides the order of the length change; total.
#[must_use]
pub fn length_order(orig_len: u64, new_len: u64) -> LengthOrder {
    match new_len.cmp(&orig_len) {
        core::cmp::Ordering::Equal => LengthOrder::Unchanged,
        core::cmp::Ordering::Greater => LengthOrder::GrowFirst(new_len),
        core::cmp::Ordering::Less => LengthOrder::ShrinkLast(new_len),
    }
}

/// What recovery does with a journal of a given shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replay {
    /// Nothing reached the database: delete the journal.
    Discard,
    /// Restore every saved original and the original length, then delete
    /// the journal.
    RollBack {
        /// Length to restore.
        orig_len: u64,
    },
    /// Keep the database if it matches the commitment, then delete the
    /// journal; refuse otherwise.
    KeepIfCommitted(Commit),
    /// Refuse to open; leave every file as it is.
    Refuse,
}

/// Replay selection: maps a journal's [`Shape`] to the recovery action.
#[must_use]
pub fn select_replay(shape: &Shape) -> Replay {
    match shape {
        Shape::Unsealed => Replay::Discard,
        Shape::Sealed {
            header,
            commit: None,
        } => Replay::RollBack {
            orig_len: header.orig_len,
        },
        Shape::Sealed {
            commit: Some(c), ..
        } => Replay::KeepIfCommitted(*c),
        Shape::Corrupt { .. } => Replay::Refuse,
    }
}

#[cfg(test)]
mod tests {
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
        header_at: usize,
        commit_at: usize,
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
            page0: [1; 32],
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
        }
        Built {
            bytes,
            header_at: 0,
            commit_at,
        }
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
            page0: [5; 32],
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
        assert_eq!(select_replay(&Shape::Unsealed), Replay::Discard);
    }

    /// Every torn prefix of the header written over a zero-filled region
    /// (the records already in place) is Unsealed; every torn prefix of the
    /// commit is Sealed without a commit; the whole file is never Corrupt.
    #[test]
    fn every_tear_is_recoverable() {
        let b = build(512, 1500, 3000, &[1, 2], true);
        for t in 0..HEADER_RECORD_LEN {
            let mut j = b.bytes[..b.commit_at].to_vec();
            for x in &mut j[b.header_at + t..HEADER_RECORD_LEN] {
                *x = 0;
            }
            let (s, _) = shape(&j);
            assert_eq!(s, Shape::Unsealed, "header torn at {t}");
        }
        for t in 0..COMMIT_RECORD_LEN {
            let j = &b.bytes[..b.commit_at + t];
            let (s, _) = shape(j);
            assert!(
                matches!(s, Shape::Sealed { commit: None, .. }),
                "commit torn at {t}: {s:?}"
            );
        }
        // a journal created but never written, or only partly written
        assert_eq!(shape(&[]).0, Shape::Unsealed);
        for t in 0..b.commit_at {
            let mut j = vec![0u8; HEADER_RECORD_LEN.min(t)];
            j.extend_from_slice(b.bytes.get(HEADER_RECORD_LEN..t).unwrap_or(&[]));
            assert_eq!(shape(&j).0, Shape::Unsealed, "records torn at {t}");
        }
    }

    /// Every single-byte change of a whole sealed journal is either refused
    /// (Corrupt) or — only in the commit record — degrades to "no commit";
    /// it is never read as a different valid journal.
    #[test]
    fn every_byte_flip_is_caught() {
        let b = build(512, 1500, 1200, &[0, 2], true);
        let (good, _) = shape(&b.bytes);
        for i in 0..b.bytes.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut j = b.bytes.clone();
                j[i] ^= flip;
                let (s, _) = shape(&j);
                assert_ne!(s, good, "flip {flip:#x} at {i} went unnoticed");
                let in_commit = i >= b.commit_at;
                let in_header_trailer =
                    (HEADER_RECORD_LEN - TRAILER_LEN..HEADER_RECORD_LEN).contains(&i);
                match s {
                    Shape::Corrupt { .. } => {}
                    Shape::Sealed { commit: None, .. } if in_commit => {}
                    Shape::Unsealed if in_header_trailer => {}
                    other => panic!("flip at {i}: {other:?}"),
                }
            }
        }
        // bytes appended after the commit are refused
        let mut j = b.bytes.clone();
        j.push(0);
        assert!(matches!(shape(&j).0, Shape::Corrupt { .. }));
        // a different page-0 record order is refused
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
    fn junk_is_corrupt_not_unsealed() {
        assert!(matches!(shape(b"hello world").0, Shape::Corrupt { .. }));
        assert!(matches!(shape(&[0xFFu8; 300]).0, Shape::Corrupt { .. }));
        assert_eq!(shape(&[0u8; 300]).0, Shape::Unsealed);
    }

    fn oracle_tear_shaped(bytes: &[u8], limit: usize) -> bool {
        let region = &bytes[..limit.min(bytes.len())];
        // some prefix of the magic, then zeros
        (0..=4).any(|k| {
            region.len() >= k.min(region.len())
                && region[..k.min(region.len())] == MAGIC[..k.min(region.len())]
                && (k >= 4 || region[k.min(region.len())..].iter().all(|&b| b == 0))
        })
    }

    #[test]
    fn tear_shaped_exhaustive_small() {
        let alphabet = [0u8, b'J', b'j', b'R', b'n', 9];
        for len in 0..=5usize {
            let mut idx = vec![0usize; len];
            loop {
                let bytes: Vec<u8> = idx.iter().map(|&i| alphabet[i]).collect();
                for limit in 0..=6 {
                    assert_eq!(
                        tear_shaped(&bytes, limit),
                        oracle_tear_shaped(&bytes, limit),
                        "{bytes:?} {limit}"
                    );
                }
                let mut k = 0;
                loop {
                    if k == len {
                        break;
                    }
                    idx[k] += 1;
                    if idx[k] < alphabet.len() {
                        break;
                    }
                    idx[k] = 0;
                    k += 1;
                }
                if k == len {
                    break;
                }
            }
        }
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
            // a torn commit never yields Corrupt
            let cut = b.commit_at + cut % (b.bytes.len() - b.commit_at + 1);
            let (s, _) = shape(&b.bytes[..cut]);
            prop_assert!(matches!(s, Shape::Sealed { .. }), "{:?}", s);
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
}
