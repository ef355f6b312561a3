//! Page sources: where page bytes come from.
//!
//! A [`PageSource`] hands out whole pages by number. Backends: positional
//! reads with a bounded page cache ([`FilePageSource`], the default, safe
//! while another process writes the file), a memory map for read-only bulk
//! scans ([`MmapPageSource`]) and an in-memory image for tests
//! ([`MemPageSource`]). Encoded and encrypted files are decoded page by
//! page over any backend by [`super::crypt::CipherPageSource`]. Every backend counts the pages it
//! serves, so tests and benches can show how many pages a plan touched.

use crate::error::FormatError;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One page's bytes, shared.
pub type Page = Arc<[u8]>;

/// A source of fixed-size pages.
pub trait PageSource: Send + Sync {
    /// Page size in bytes.
    fn page_size(&self) -> usize;
    /// Number of whole pages.
    fn page_count(&self) -> u32;
    /// The bytes of page `n`: exactly `page_size()` bytes, or an error for a
    /// page past the end or a failed read.
    fn read_page(&self, n: u32) -> Result<Page, FormatError>;
    /// Pages served so far (including cache hits).
    fn pages_read(&self) -> u64;
    /// Page `n` for a bulk scan, which reads each page once: the same bytes
    /// and errors as [`PageSource::read_page`], counted the same, but a
    /// source with a cache neither consults nor fills it (a scan would only
    /// evict the pages other readers reuse, and pay two cache locks a page).
    fn read_page_streaming(&self, n: u32) -> Result<Page, FormatError> {
        self.read_page(n)
    }
}

fn page_count_of(len: u64, page_size: usize) -> u32 {
    u32::try_from(len / page_size as u64).unwrap_or(u32::MAX)
}

/// Page `n` of a whole file image held in memory (a buffer or a map),
/// counting the read.
fn page_of_image(
    image: &[u8],
    page_size: usize,
    n: u32,
    reads: &AtomicU64,
) -> Result<Page, FormatError> {
    let pages = page_count_of(image.len() as u64, page_size);
    if n >= pages {
        return Err(FormatError::PageOutOfRange { page: n, pages });
    }
    reads.fetch_add(1, Ordering::Relaxed);
    let start = n as usize * page_size;
    Ok(Arc::from(&image[start..start + page_size]))
}

/// An in-memory database image (tests, fuzzing, generated files).
pub struct MemPageSource {
    bytes: Arc<[u8]>,
    page_size: usize,
    reads: AtomicU64,
}

impl MemPageSource {
    /// Wraps `bytes` as pages of `page_size`; a trailing partial page is ignored.
    pub fn new(bytes: impl Into<Arc<[u8]>>, page_size: usize) -> MemPageSource {
        MemPageSource {
            bytes: bytes.into(),
            page_size,
            reads: AtomicU64::new(0),
        }
    }
}

impl PageSource for MemPageSource {
    fn page_size(&self) -> usize {
        self.page_size
    }
    fn page_count(&self) -> u32 {
        page_count_of(self.bytes.len() as u64, self.page_size)
    }
    fn read_page(&self, n: u32) -> Result<Page, FormatError> {
        page_of_image(&self.bytes, self.page_size, n, &self.reads)
    }
    fn pages_read(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }
}

/// Positional reads (`pread`) with a bounded page cache.
///
/// The cache holds at most `capacity` pages and evicts in insertion order,
/// so memory stays bounded whatever the file size.
pub struct FilePageSource {
    file: File,
    path: PathBuf,
    page_size: usize,
    pages: u32,
    cache: Mutex<PageCache>,
    reads: AtomicU64,
}

struct PageCache {
    map: HashMap<u32, Page>,
    order: std::collections::VecDeque<u32>,
    capacity: usize,
}

impl FilePageSource {
    /// Default number of cached pages (1 MiB of 4 KiB pages).
    pub const DEFAULT_CACHE_PAGES: usize = 256;

    /// Opens `path` read-only with pages of `page_size`.
    pub fn open(
        path: &Path,
        page_size: usize,
        cache_pages: usize,
    ) -> Result<FilePageSource, FormatError> {
        let io = |source| FormatError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        Ok(FilePageSource {
            file,
            path: path.to_path_buf(),
            page_size,
            pages: page_count_of(len, page_size),
            cache: Mutex::new(PageCache {
                map: HashMap::new(),
                order: Default::default(),
                capacity: cache_pages,
            }),
            reads: AtomicU64::new(0),
        })
    }

    /// Reads page `n` straight into the shared buffer it is returned in
    /// (one allocation, no copy from a scratch vector).
    /// Refuses a page past the end of the file; counts the read otherwise.
    fn admit_read(&self, n: u32) -> Result<(), FormatError> {
        if n >= self.pages {
            return Err(FormatError::PageOutOfRange {
                page: n,
                pages: self.pages,
            });
        }
        self.reads.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn read_uncached(&self, n: u32) -> Result<Page, FormatError> {
        let mut page: Page = std::iter::repeat_n(0u8, self.page_size).collect();
        let offset = n as u64 * self.page_size as u64;
        let io = |source| FormatError::Io {
            path: self.path.clone(),
            source,
        };
        // the Arc was just created: this is its only reference
        let buf = Arc::get_mut(&mut page).ok_or_else(|| {
            io(std::io::Error::other(
                "freshly allocated page buffer is shared",
            ))
        })?;
        read_exact_at(&self.file, buf, offset).map_err(io)?;
        Ok(page)
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let mut done = 0usize;
    while done < buf.len() {
        let got = file.read_at(&mut buf[done..], offset + done as u64)?;
        match jet_kernels::range::exact_read_progress(done, got, buf.len()) {
            Some(next) => done = next,
            None => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "file ended inside a page",
                ));
            }
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

impl PageSource for FilePageSource {
    fn page_size(&self) -> usize {
        self.page_size
    }
    fn page_count(&self) -> u32 {
        self.pages
    }
    fn read_page(&self, n: u32) -> Result<Page, FormatError> {
        self.admit_read(n)?;
        if let Some(p) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .map
            .get(&n)
        {
            return Ok(p.clone());
        }
        let page = self.read_uncached(n)?;
        let mut c = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if c.capacity > 0 && !c.map.contains_key(&n) {
            while c.map.len() >= c.capacity {
                match c.order.pop_front() {
                    Some(old) => {
                        c.map.remove(&old);
                    }
                    None => break,
                }
            }
            c.map.insert(n, page.clone());
            c.order.push_back(n);
        }
        Ok(page)
    }
    fn pages_read(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }
    fn read_page_streaming(&self, n: u32) -> Result<Page, FormatError> {
        self.admit_read(n)?;
        self.read_uncached(n)
    }
}

/// A read-only memory map of the file.
///
/// Fast for bulk scans. Hazard: if another process truncates the file while
/// it is mapped, touching a vanished page raises SIGBUS and kills the
/// process. Use it only for files nothing else modifies; the default
/// [`FilePageSource`] has no such hazard.
pub struct MmapPageSource {
    map: memmap2::Mmap,
    page_size: usize,
    reads: AtomicU64,
}

impl MmapPageSource {
    /// Maps `path` read-only.
    pub fn open(path: &Path, page_size: usize) -> Result<MmapPageSource, FormatError> {
        let io = |source| FormatError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        // SAFETY: the map is read-only and private to this process. The
        // remaining hazard, another process truncating the file while it is
        // mapped, is documented on this type: callers choose this backend
        // only for files that are not being modified.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Ok(MmapPageSource {
            map,
            page_size,
            reads: AtomicU64::new(0),
        })
    }
}

impl PageSource for MmapPageSource {
    fn page_size(&self) -> usize {
        self.page_size
    }
    fn page_count(&self) -> u32 {
        page_count_of(self.map.len() as u64, self.page_size)
    }
    fn read_page(&self, n: u32) -> Result<Page, FormatError> {
        page_of_image(&self.map, self.page_size, n, &self.reads)
    }
    fn pages_read(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }
}

/// Applies the RC4 keystream of the 4-byte `key` to `data` in place.
pub fn rc4_apply(key: &[u8; 4], data: &mut [u8]) {
    use rc4::{KeyInit, StreamCipher};
    let mut c = rc4::Rc4::<rc4::consts::U4>::new(key.into());
    c.apply_keystream(data);
}

impl PageSource for Arc<dyn PageSource> {
    fn page_size(&self) -> usize {
        (**self).page_size()
    }
    fn page_count(&self) -> u32 {
        (**self).page_count()
    }
    fn read_page(&self, n: u32) -> Result<Page, FormatError> {
        (**self).read_page(n)
    }
    fn pages_read(&self) -> u64 {
        (**self).pages_read()
    }
    fn read_page_streaming(&self, n: u32) -> Result<Page, FormatError> {
        (**self).read_page_streaming(n)
    }
}

impl PageSource for Box<dyn PageSource> {
    fn page_size(&self) -> usize {
        (**self).page_size()
    }
    fn page_count(&self) -> u32 {
        (**self).page_count()
    }
    fn read_page(&self, n: u32) -> Result<Page, FormatError> {
        (**self).read_page(n)
    }
    fn pages_read(&self) -> u64 {
        (**self).pages_read()
    }
    fn read_page_streaming(&self, n: u32) -> Result<Page, FormatError> {
        (**self).read_page_streaming(n)
    }
}
