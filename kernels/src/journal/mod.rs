//! Undo-journal decisions: record framing, classification of a journal's
//! bytes after a crash, which saved originals a rollback restores, and the
//! order of length changes within a transaction.
//!
//! A journal (`<db>.jetjournal`, format 2) is laid out as
//!
//! ```text
//! [header record][page record]*[commit slot: COMMIT_RECORD_LEN bytes]
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
//! # Why a journal that exists is always evidence
//!
//! The writer builds the whole journal — header, page records and a commit
//! slot of zeros — under a temporary name, flushes it, and only then
//! renames it to `<db>.jetjournal` and flushes the directory ("seals" it).
//! Nothing touches the database before that. So a file named
//! `<db>.jetjournal` was whole and valid when it got its name: every byte
//! of the header and the page records, and the journal's exact length
//! (`records_end + COMMIT_RECORD_LEN`), are known. Any journal that is
//! shorter, longer, or fails a check is damaged ([`Shape::Corrupt`]) and
//! recovery must refuse it: there is no "unsealed" shape to discard.
//!
//! # The commit decision
//!
//! The commit record is written *over the zeros of the commit slot*, whose
//! length was durable at sealing. A crash while writing it leaves a prefix
//! of the record followed by zeros (tearing is modelled at byte
//! granularity: "a prefix of a write persisted; the rest of the region
//! still reads as it was"). So the slot decides ([`commit_slot`]):
//!
//! - all zeros: never committed → roll back;
//! - the trailer in place: the record was completed; it must then be
//!   whole and valid, or the journal is refused (a complete record that
//!   later rotted is never mistaken for "never committed");
//! - otherwise: the bytes must be exactly a prefix of a commit record
//!   followed by zeros (every constant field within the prefix matches,
//!   and when the prefix holds the whole payload, the checksum matches);
//!   then the commit never completed → roll back; anything else is refused.
//!
//! A truncation inside the slot changes the journal's length and is
//! refused. What cannot be told apart is a torn prefix from a complete
//! record whose last bytes (including the four trailer bytes) were all
//! zeroed by damage — a multi-byte fault no single bit flip can produce.

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
pub const FORMAT_VERSION: u32 = 2;
/// Length of the header payload.
pub const HEADER_PAYLOAD_LEN: u32 = 104;
/// Length of the whole header record (frame, payload, trailer); page
/// records start here.
pub const HEADER_RECORD_LEN: usize = 140;
/// Length of the commit payload.
pub const COMMIT_PAYLOAD_LEN: u32 = 48;
/// Length of the whole commit record (and of the commit slot).
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

/// What a caller expects at an offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect {
    /// The kind that must be there.
    pub kind: Kind,
    /// For header and commit records: their fixed payload length.
    pub fixed_len: Option<u32>,
    /// Largest admitted payload.
    pub max_payload: u32,
}

/// Reads the whole record at `offset` of `journal`, expecting `expect`.
///
/// `sum(salt, covered, payload)` computes the 16-byte checksum the caller
/// uses (for example a truncated SHA-256). Returns the frame, the payload
/// and the offset just past the trailer only when magic, kind, reserved
/// bytes, length, trailer and checksum all check; otherwise the refusal
/// ([`Refusal::Torn`] when the record runs past the end of `journal`).
pub fn read_record<'a, F>(
    journal: &'a [u8],
    offset: usize,
    expect: Expect,
    salt: &[u8],
    sum: &mut F,
) -> Result<(Frame, &'a [u8], usize), Refusal>
where
    F: FnMut(&[u8], &[u8], &[u8]) -> [u8; CHECKSUM_LEN],
{
    let rest = journal.get(offset..).ok_or(Refusal::OutOfBounds)?;
    let frame = decode_frame(rest)?;
    if frame.kind != expect.kind {
        return Err(Refusal::BadRecord);
    }
    if expect.fixed_len.is_some_and(|l| l != frame.payload_len)
        || frame.payload_len > expect.max_payload
    {
        return Err(Refusal::BadCount);
    }
    let total = record_len(frame.payload_len).ok_or(Refusal::BadCount)?;
    let trailer_at = total.checked_sub(TRAILER_LEN).ok_or(Refusal::BadCount)?;
    let trailer = slice(rest, trailer_at, TRAILER_LEN).ok_or(Refusal::Torn)?;
    if trailer != &TRAILER[..] {
        return Err(Refusal::BadRecord);
    }
    let covered = rest.get(..COVERED_LEN).ok_or(Refusal::Torn)?;
    let payload = usize::try_from(frame.payload_len)
        .ok()
        .and_then(|l| slice(rest, FRAME_LEN, l))
        .ok_or(Refusal::Torn)?;
    if sum(salt, covered, payload) != frame.checksum {
        return Err(Refusal::Checksum);
    }
    let end = offset.checked_add(total).ok_or(Refusal::OutOfBounds)?;
    Ok((frame, payload, end))
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
    /// Offset just past the last page record (where the commit slot is).
    pub records_end: u64,
    /// Commitment (computed by the caller) over the whole of O: rollback
    /// is allowed only when the saved pages together with the database's
    /// other pages rebuild exactly this image.
    pub original: [u8; 32],
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
    put(&mut out, 40, &h.original);
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
        original: array32(p, 40).ok_or(bad)?,
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

/// The value every commit record has at byte `i` (frame constants, the
/// payload's reserved bytes, the trailer); `None` where it varies.
#[must_use]
pub fn commit_constant(i: usize) -> Option<u8> {
    let len = COMMIT_PAYLOAD_LEN.to_le_bytes();
    match i {
        0..4 => MAGIC.get(i).copied(),
        4 => Some(Kind::Commit.to_byte()),
        5..12 => Some(0),
        12..16 => len.get(i.wrapping_sub(12)).copied(),
        44..48 => Some(0),
        80..84 => TRAILER.get(i.wrapping_sub(80)).copied(),
        _ => None,
    }
}

/// The commit slot's decision: `Ok(Some(commit))` for a whole, valid
/// commit record; `Ok(None)` for a slot that never received a whole record
/// (all zeros, or a torn prefix of a commit record followed by zeros);
/// `Err` for bytes no crash can leave (see the module documentation).
///
/// `slot` must be exactly [`COMMIT_RECORD_LEN`] bytes; `txn` is the salt.
pub fn commit_slot<F>(slot: &[u8], txn: &[u8], sum: &mut F) -> Result<Option<Commit>, Refusal>
where
    F: FnMut(&[u8], &[u8], &[u8]) -> [u8; CHECKSUM_LEN],
{
    if slot.len() != COMMIT_RECORD_LEN {
        return Err(Refusal::BadCount);
    }
    let trailer_at = COMMIT_RECORD_LEN.saturating_sub(TRAILER_LEN);
    if slice(slot, trailer_at, TRAILER_LEN) == Some(&TRAILER[..]) {
        let expect = Expect {
            kind: Kind::Commit,
            fixed_len: Some(COMMIT_PAYLOAD_LEN),
            max_payload: COMMIT_PAYLOAD_LEN,
        };
        let (_, payload, _) = read_record(slot, 0, expect, txn, sum)?;
        return decode_commit(payload).map(Some);
    }
    // a torn prefix: everything after the last non-zero byte is zero by
    // construction; the prefix must agree with every constant of a record
    let prefix = slot
        .iter()
        .rposition(|&b| b != 0)
        .map_or(0, |i| i.saturating_add(1));
    for (i, &b) in slot.iter().enumerate().take(prefix) {
        if commit_constant(i).is_some_and(|c| c != b) {
            return Err(Refusal::BadRecord);
        }
    }
    if prefix > trailer_at {
        // frame and payload are whole: their checksum must hold
        let payload_end = FRAME_LEN.saturating_add(48);
        let (Some(covered), Some(stored), Some(payload)) = (
            slot.get(..COVERED_LEN),
            slot.get(COVERED_LEN..FRAME_LEN),
            slot.get(FRAME_LEN..payload_end),
        ) else {
            return Err(Refusal::Torn);
        };
        if sum(txn, covered, payload) != stored {
            return Err(Refusal::Checksum);
        }
    }
    Ok(None)
}

/// The state a journal's bytes are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A whole header, every page record it announces, and a commit slot of
    /// the exact length.
    Sealed {
        /// The header.
        header: Header,
        /// The commit record, when one is whole and valid; `None` when the
        /// slot is zeros or holds a torn prefix.
        commit: Option<Commit>,
    },
    /// Bytes no crash can produce: the journal must be refused.
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

/// Classifies a whole journal (one that carries the journal's name: see
/// the module documentation).
///
/// Calls `visit(page, payload_offset, payload_len)` for each page record in
/// order; when the result is not [`Shape::Sealed`] the caller must discard
/// what it collected. Page records must have strictly increasing page
/// numbers (each page is saved once) and exactly the length of that page's
/// span in O ([`page_span`]); the journal must end exactly at the end of
/// the commit slot.
pub fn classify<F, V>(journal: &[u8], sum: &mut F, visit: &mut V) -> Shape
where
    F: FnMut(&[u8], &[u8], &[u8]) -> [u8; CHECKSUM_LEN],
    V: FnMut(u32, usize, usize),
{
    let corrupt = |offset: usize, refusal: Refusal| Shape::Corrupt { offset, refusal };
    let header_expect = Expect {
        kind: Kind::Header,
        fixed_len: Some(HEADER_PAYLOAD_LEN),
        max_payload: HEADER_PAYLOAD_LEN,
    };
    let header = match read_record(journal, 0, header_expect, &[], sum) {
        Err(refusal) => return corrupt(0, refusal),
        Ok((_, payload, _)) => match decode_header(payload) {
            Ok(h) => h,
            Err(refusal) => return corrupt(0, refusal),
        },
    };
    let Ok(records_end) = usize::try_from(header.records_end) else {
        return corrupt(0, Refusal::OutOfBounds);
    };
    let Some(total) = records_end.checked_add(COMMIT_RECORD_LEN) else {
        return corrupt(0, Refusal::OutOfBounds);
    };
    if journal.len() < total {
        return corrupt(journal.len(), Refusal::Torn);
    }
    if journal.len() > total {
        return corrupt(total, Refusal::BadCount);
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
            Ok((frame, _, end)) => (frame, end),
            Err(r) => return corrupt(offset, r),
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
    let slot = journal.get(records_end..total).unwrap_or(&[]);
    match commit_slot(slot, &header.txn, sum) {
        Err(r) => corrupt(records_end, r),
        Ok(Some(c)) if c.page_size != header.page_size || c.new_len != header.new_len => {
            corrupt(records_end, Refusal::BadCount)
        }
        Ok(commit) => Shape::Sealed { header, commit },
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
    /// Restore every saved original and the original length, then delete
    /// the journal (after the caller checked that this rebuilds exactly
    /// the header's original image).
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
mod tests;
