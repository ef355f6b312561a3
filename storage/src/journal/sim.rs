//! A simulated disk for fault-injection tests of the journal protocol.
//!
//! Every write, length change, creation and removal first sits in a queue of
//! pending operations; [`Storage::sync`] makes a file's pending contents
//! durable and [`Storage::sync_dir`] the pending creations and removals. A
//! crash ([`SimStorage::crash_disk`]) keeps what is durable plus any subset
//! of the pending content operations, applied in any order, where each
//! kept write may be torn at any byte (a prefix of it persists) and each
//! kept length change may stop anywhere between the old and the new length
//! (an extension reads as zeros). Pending directory operations persist as a
//! prefix of their issue order (directory metadata is ordered).
//!
//! [`SimStorage::crash_after`] makes the storage fail every operation after
//! a given number of mutating steps, as if the process died there.
//! [`SimStorage::set_capacity`] makes it a full disk instead: a write or
//! length change that would make the files larger than the capacity fails
//! with `StorageFull` (ENOSPC) and changes nothing, and the process lives on.
//! [`SimStorage::fail_at`] makes one chosen step fail with an I/O error
//! (EIO or ENOSPC), the operation either doing nothing or taking effect
//! before the error is reported, and the process lives on.
//!
//! The directory holds the database, the journal and the partial journal;
//! [`Storage::seal_journal`] renames the partial journal to the journal
//! (a pending directory operation like creations and removals).

use super::vfs::{FileKind, Storage};
use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

/// A small deterministic random source (SplitMix64) for crash choices.
#[derive(Debug, Clone)]
pub struct SimRng(u64);

impl SimRng {
    /// A source seeded with `seed`.
    pub fn new(seed: u64) -> SimRng {
        SimRng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }
}

/// What survives on a simulated disk: the durable bytes of the database,
/// of the journal and of the partial journal (`None` when absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimDisk {
    /// File name of the database.
    pub name: String,
    /// The database's bytes.
    pub db: Vec<u8>,
    /// The journal's bytes, if the journal exists.
    pub journal: Option<Vec<u8>>,
    /// The partial journal's bytes, if it exists.
    pub partial: Option<Vec<u8>>,
}

#[derive(Debug, Clone)]
enum Op {
    Write {
        file: FileKind,
        inode: u64,
        offset: u64,
        data: Vec<u8>,
    },
    SetLen {
        file: FileKind,
        inode: u64,
        from: u64,
        to: u64,
    },
}

/// The two directory entries besides the database: the journal and the
/// partial journal (inode numbers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Dir {
    journal: Option<u64>,
    partial: Option<u64>,
}

impl Dir {
    fn slot(&mut self, file: FileKind) -> Option<&mut Option<u64>> {
        match file {
            FileKind::Database => None,
            FileKind::Journal => Some(&mut self.journal),
            FileKind::PartialJournal => Some(&mut self.partial),
        }
    }

    fn apply(&mut self, op: DirOp) {
        match op {
            DirOp::Link(f, i) => {
                if let Some(s) = self.slot(f) {
                    *s = Some(i);
                }
            }
            DirOp::Unlink(f) => {
                if let Some(s) = self.slot(f) {
                    *s = None;
                }
            }
            DirOp::Seal => self.journal = self.partial.take(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum DirOp {
    Link(FileKind, u64),
    Unlink(FileKind),
    Seal,
}

/// A disk whose unflushed operations a crash may lose, reorder or tear.
#[derive(Debug, Clone)]
pub struct SimStorage {
    name: String,
    /// inode → durable contents
    durable: BTreeMap<u64, Vec<u8>>,
    /// inode → contents as the process sees them
    live: BTreeMap<u64, Vec<u8>>,
    db_inode: u64,
    /// durable directory entries of the journals
    durable_dir: Dir,
    /// directory entries of the journals as the process sees them
    live_dir: Dir,
    next_inode: u64,
    pending: Vec<Op>,
    pending_dir: Vec<DirOp>,
    steps: u64,
    crash_after: Option<u64>,
    crashed: bool,
    capacity: Option<u64>,
    full_refusals: u64,
    fail_at: Option<Fault>,
    faults: u64,
}

/// An I/O error injected at one mutating step ([`SimStorage::fail_at`]);
/// the process lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// The step (counted like [`SimStorage::steps`]) that fails.
    pub step: u64,
    /// The error returned (`Other` reads as EIO, `StorageFull` as ENOSPC).
    pub kind: io::ErrorKind,
    /// Whether the operation took effect before the error was reported (a
    /// write that reached the page cache, a flush that reached the disk);
    /// otherwise it did nothing.
    pub took_effect: bool,
}

fn crash_error() -> io::Error {
    io::Error::other("simulated crash")
}

fn write_into(buf: &mut Vec<u8>, offset: u64, data: &[u8]) {
    let Ok(start) = usize::try_from(offset) else {
        return;
    };
    let end = start.saturating_add(data.len());
    if buf.len() < end {
        buf.resize(end, 0);
    }
    if let Some(dst) = buf.get_mut(start..end) {
        dst.copy_from_slice(data);
    }
}

fn set_len_of(buf: &mut Vec<u8>, len: u64) {
    buf.resize(usize::try_from(len).unwrap_or(usize::MAX), 0);
}

impl SimStorage {
    /// A disk holding `disk` durably, nothing pending.
    pub fn from_disk(disk: &SimDisk) -> SimStorage {
        let mut durable = BTreeMap::new();
        durable.insert(0, disk.db.clone());
        let mut dir = Dir::default();
        if let Some(j) = &disk.journal {
            durable.insert(1, j.clone());
            dir.journal = Some(1);
        }
        if let Some(j) = &disk.partial {
            durable.insert(2, j.clone());
            dir.partial = Some(2);
        }
        SimStorage {
            name: disk.name.clone(),
            live: durable.clone(),
            durable,
            db_inode: 0,
            durable_dir: dir,
            live_dir: dir,
            next_inode: 3,
            pending: Vec::new(),
            pending_dir: Vec::new(),
            steps: 0,
            crash_after: None,
            crashed: false,
            capacity: None,
            full_refusals: 0,
            fail_at: None,
            faults: 0,
        }
    }

    /// A disk holding just a database image.
    pub fn new(name: &str, db: Vec<u8>) -> SimStorage {
        SimStorage::from_disk(&SimDisk {
            name: name.to_string(),
            db,
            journal: None,
            partial: None,
        })
    }

    /// Fails every operation after `steps` more mutating operations
    /// (writes, length changes, syncs, creations, removals, directory
    /// syncs); `None` never crashes.
    pub fn crash_after(&mut self, steps: Option<u64>) {
        self.crash_after = steps.map(|s| self.steps.saturating_add(s));
    }

    /// Limits the bytes the database and journal may occupy together
    /// (`None`: unlimited). A write or length change that would exceed it
    /// fails with [`io::ErrorKind::StorageFull`] and has no effect.
    pub fn set_capacity(&mut self, bytes: Option<u64>) {
        self.capacity = bytes;
    }

    /// Makes one mutating step fail with an I/O error (see [`Fault`]);
    /// every other step works. `None` injects nothing.
    pub fn fail_at(&mut self, fault: Option<Fault>) {
        self.fail_at = fault;
    }

    /// How many injected errors were returned so far.
    pub fn faults(&self) -> u64 {
        self.faults
    }

    /// Returns the injected error when this step is the failing one and
    /// the operation must not take effect; `Ok(Some(err))` when it takes
    /// effect and then fails; `Ok(None)` otherwise. Counts the step.
    fn fault(&mut self) -> io::Result<Option<io::Error>> {
        let now = self.steps;
        self.step()?;
        match self.fail_at {
            Some(f) if f.step == now => {
                self.faults = self.faults.saturating_add(1);
                let e = io::Error::new(f.kind, "injected I/O error");
                if f.took_effect { Ok(Some(e)) } else { Err(e) }
            }
            _ => Ok(None),
        }
    }

    /// How many operations the capacity refused so far.
    pub fn full_refusals(&self) -> u64 {
        self.full_refusals
    }

    /// Refuses an operation that would leave file `inode` `new_len` bytes
    /// long when that exceeds the capacity.
    fn check_room(&mut self, inode: u64, new_len: u64) -> io::Result<()> {
        let Some(cap) = self.capacity else {
            return Ok(());
        };
        let len_of = |i: u64| -> u64 {
            self.live
                .get(&i)
                .map_or(0, |b| u64::try_from(b.len()).unwrap_or(u64::MAX))
        };
        let mut total = new_len;
        for i in std::iter::once(self.db_inode)
            .chain(self.live_dir.journal)
            .chain(self.live_dir.partial)
        {
            if i != inode {
                total = total.saturating_add(len_of(i));
            }
        }
        if new_len > len_of(inode) && total > cap {
            self.full_refusals = self.full_refusals.saturating_add(1);
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "simulated disk full (ENOSPC)",
            ));
        }
        Ok(())
    }

    /// Mutating operations performed so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Whether the simulated process has died.
    pub fn crashed(&self) -> bool {
        self.crashed
    }

    /// Operations issued but not yet durable.
    pub fn pending_ops(&self) -> usize {
        self.pending.len().saturating_add(self.pending_dir.len())
    }

    /// The files as the process sees them now (what a clean shutdown keeps).
    pub fn live_disk(&self) -> SimDisk {
        SimDisk {
            name: self.name.clone(),
            db: self.live.get(&self.db_inode).cloned().unwrap_or_default(),
            journal: self
                .live_dir
                .journal
                .and_then(|i| self.live.get(&i).cloned()),
            partial: self
                .live_dir
                .partial
                .and_then(|i| self.live.get(&i).cloned()),
        }
    }

    /// One possible state of the disk after a crash now, chosen by `rng`:
    /// durable state plus a random subset of pending operations in random
    /// order, each write possibly torn, each length change possibly
    /// stopped midway; a random prefix of the pending directory operations.
    pub fn crash_disk(&self, rng: &mut SimRng) -> SimDisk {
        let mut files = self.durable.clone();
        // how eagerly this crash keeps pending work: none, some, most, all
        let keep_per_mille =
            [0u64, 250, 500, 750, 1000][usize::try_from(rng.below(5)).unwrap_or(0)];
        let mut kept: Vec<&Op> = self
            .pending
            .iter()
            .filter(|_| rng.below(1000) < keep_per_mille)
            .collect();
        // Fisher–Yates
        for i in (1..kept.len()).rev() {
            let j = usize::try_from(rng.below(u64::try_from(i).unwrap_or(0).saturating_add(1)))
                .unwrap_or(0);
            kept.swap(i, j);
        }
        for op in kept {
            let torn = rng.below(3) == 0;
            match op {
                Op::Write {
                    inode,
                    offset,
                    data,
                    ..
                } => {
                    let n = if torn {
                        usize::try_from(
                            rng.below(u64::try_from(data.len()).unwrap_or(0).saturating_add(1)),
                        )
                        .unwrap_or(0)
                    } else {
                        data.len()
                    };
                    let buf = files.entry(*inode).or_default();
                    write_into(buf, *offset, data.get(..n).unwrap_or(data));
                }
                Op::SetLen {
                    inode, from, to, ..
                } => {
                    let target = if torn {
                        let (lo, hi) = if from <= to {
                            (*from, *to)
                        } else {
                            (*to, *from)
                        };
                        lo.saturating_add(rng.below(hi.saturating_sub(lo).saturating_add(1)))
                    } else {
                        *to
                    };
                    set_len_of(files.entry(*inode).or_default(), target);
                }
            }
        }
        let mut dir = self.durable_dir;
        let dir_kept = usize::try_from(
            rng.below(
                u64::try_from(self.pending_dir.len())
                    .unwrap_or(0)
                    .saturating_add(1),
            ),
        )
        .unwrap_or(0);
        for op in self.pending_dir.iter().take(dir_kept) {
            dir.apply(*op);
        }
        SimDisk {
            name: self.name.clone(),
            db: files.get(&self.db_inode).cloned().unwrap_or_default(),
            journal: dir
                .journal
                .map(|i| files.get(&i).cloned().unwrap_or_default()),
            partial: dir
                .partial
                .map(|i| files.get(&i).cloned().unwrap_or_default()),
        }
    }

    fn step(&mut self) -> io::Result<()> {
        if self.crashed {
            return Err(crash_error());
        }
        if self.crash_after.is_some_and(|c| self.steps >= c) {
            self.crashed = true;
            return Err(crash_error());
        }
        self.steps = self.steps.saturating_add(1);
        Ok(())
    }

    fn inode(&self, file: FileKind) -> io::Result<u64> {
        let entry = match file {
            FileKind::Database => return Ok(self.db_inode),
            FileKind::Journal => self.live_dir.journal,
            FileKind::PartialJournal => self.live_dir.partial,
        };
        entry.ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such journal"))
    }

    fn live_of(&self, file: FileKind) -> io::Result<&Vec<u8>> {
        let i = self.inode(file)?;
        self.live
            .get(&i)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }
}

impl Storage for SimStorage {
    fn db_name(&self) -> &str {
        &self.name
    }

    fn path_of(&self, file: FileKind) -> PathBuf {
        match file {
            FileKind::Database => PathBuf::from(format!("sim:{}", self.name)),
            FileKind::Journal => PathBuf::from(format!("sim:{}.jetjournal", self.name)),
            FileKind::PartialJournal => {
                PathBuf::from(format!("sim:{}.jetjournal-partial", self.name))
            }
        }
    }

    fn exists(&mut self, file: FileKind) -> io::Result<bool> {
        if self.crashed {
            return Err(crash_error());
        }
        Ok(match file {
            FileKind::Database => true,
            FileKind::Journal => self.live_dir.journal.is_some(),
            FileKind::PartialJournal => self.live_dir.partial.is_some(),
        })
    }

    fn len(&mut self, file: FileKind) -> io::Result<u64> {
        if self.crashed {
            return Err(crash_error());
        }
        Ok(u64::try_from(self.live_of(file)?.len()).unwrap_or(u64::MAX))
    }

    fn read_at(&mut self, file: FileKind, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        if self.crashed {
            return Err(crash_error());
        }
        let src = self.live_of(file)?;
        let start = usize::try_from(offset).map_err(io::Error::other)?;
        let bytes = start
            .checked_add(buf.len())
            .and_then(|end| src.get(start..end))
            .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "read past end"))?;
        buf.copy_from_slice(bytes);
        Ok(())
    }

    fn write_at(&mut self, file: FileKind, offset: u64, data: &[u8]) -> io::Result<()> {
        let inode = self.inode(file)?;
        let cur = self
            .live
            .get(&inode)
            .map_or(0, |b| u64::try_from(b.len()).unwrap_or(u64::MAX));
        let end = offset.saturating_add(u64::try_from(data.len()).unwrap_or(u64::MAX));
        self.check_room(inode, end.max(cur))?;
        let late = self.fault()?;
        write_into(self.live.entry(inode).or_default(), offset, data);
        self.pending.push(Op::Write {
            file,
            inode,
            offset,
            data: data.to_vec(),
        });
        late.map_or(Ok(()), Err)
    }

    fn set_len(&mut self, file: FileKind, len: u64) -> io::Result<()> {
        let inode = self.inode(file)?;
        self.check_room(inode, len)?;
        let late = self.fault()?;
        let buf = self.live.entry(inode).or_default();
        let from = u64::try_from(buf.len()).unwrap_or(u64::MAX);
        set_len_of(buf, len);
        self.pending.push(Op::SetLen {
            file,
            inode,
            from,
            to: len,
        });
        late.map_or(Ok(()), Err)
    }

    fn sync(&mut self, file: FileKind) -> io::Result<()> {
        let inode = self.inode(file)?;
        let late = self.fault()?;
        let mut rest = Vec::new();
        for op in std::mem::take(&mut self.pending) {
            let (f, i) = match &op {
                Op::Write { file, inode, .. } | Op::SetLen { file, inode, .. } => (*file, *inode),
            };
            if f == file && i == inode {
                let buf = self.durable.entry(inode).or_default();
                match op {
                    Op::Write { offset, data, .. } => write_into(buf, offset, &data),
                    Op::SetLen { to, .. } => set_len_of(buf, to),
                }
            } else {
                rest.push(op);
            }
        }
        self.pending = rest;
        late.map_or(Ok(()), Err)
    }

    fn create(&mut self, file: FileKind) -> io::Result<()> {
        if file == FileKind::Database || self.inode(file).is_ok() {
            if self.crashed {
                return Err(crash_error());
            }
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, "file exists"));
        }
        let late = self.fault()?;
        let inode = self.next_inode;
        self.next_inode = self.next_inode.saturating_add(1);
        self.live.insert(inode, Vec::new());
        self.durable.insert(inode, Vec::new());
        self.live_dir.apply(DirOp::Link(file, inode));
        self.pending_dir.push(DirOp::Link(file, inode));
        late.map_or(Ok(()), Err)
    }

    fn remove(&mut self, file: FileKind) -> io::Result<()> {
        if file == FileKind::Database {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the simulated database is never removed",
            ));
        }
        self.inode(file)?;
        let late = self.fault()?;
        self.live_dir.apply(DirOp::Unlink(file));
        self.pending_dir.push(DirOp::Unlink(file));
        late.map_or(Ok(()), Err)
    }

    fn sync_dir(&mut self) -> io::Result<()> {
        let late = self.fault()?;
        for op in std::mem::take(&mut self.pending_dir) {
            self.durable_dir.apply(op);
        }
        late.map_or(Ok(()), Err)
    }

    fn seal_journal(&mut self) -> io::Result<()> {
        self.inode(FileKind::PartialJournal)?;
        let late = self.fault()?;
        self.live_dir.apply(DirOp::Seal);
        self.pending_dir.push(DirOp::Seal);
        late.map_or(Ok(()), Err)
    }
}
