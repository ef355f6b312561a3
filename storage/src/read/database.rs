//! Opening a database: page 0, format detection, decoding layers; its
//! tables are in `table.rs`, the catalog reader in `objects.rs`.

use crate::error::{FormatError, Result, SchemaError};
use crate::format::{JetVersion, Protection, header, text};
use crate::journal::vfs::not_a_regular_file;
use crate::page::crypt::{CipherPageSource, HeaderFacts, PageCipher, Password, Unlocked};
use crate::page::{FilePageSource, MemPageSource, MmapPageSource, PageSource, rc4_apply};
use crate::read::scan::ScanSource;
use crate::read::table::Table;
use crate::schema::catalog::{CatalogEntry, ObjectKind};
use encoding_rs::Encoding;
use jet_kernels::bytes::{u16_at, u32_at};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How pages are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// Positional reads with a bounded page cache (default; safe while other
    /// processes write the file).
    #[default]
    File,
    /// A read-only memory map (fast bulk scans of files nothing modifies).
    Mmap,
}

/// Options for [`Database::open`].
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Page backend.
    pub backend: Backend,
    /// Pages the file backend caches.
    pub cache_pages: usize,
    /// The password of an encrypted or password-protected file (ignored
    /// for a file without one). It is checked against page 0 before any
    /// other page is decoded; `Debug` never prints it. Encrypted ACCDB and
    /// Money files need it; a Jet3/Jet4 database password (which protects
    /// no page) is checked when given, and the file opens without it.
    pub password: Option<Password>,
    /// Keep the shared lock while the [`Database`] lives (the default), so
    /// no writer in another process changes the file under it. `false`
    /// holds it only while opening: the caller then takes
    /// [`crate::journal::open_for_read`] around each use and opens the
    /// file again when [`FileStamp`] says it changed (a long-open shell
    /// that lets writers in between its statements).
    pub hold_lock: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            backend: Backend::File,
            cache_pages: FilePageSource::DEFAULT_CACHE_PAGES,
            password: None,
            hold_lock: true,
        }
    }
}

/// What identifies one state of a database file: its inode, length and
/// modification time. Every committed write changes the length or the
/// time (and a compaction, which renames a new file over it, the inode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    inode: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileStamp {
    /// The stamp of the file at `path` now.
    pub fn of(path: &Path) -> std::io::Result<FileStamp> {
        let m = std::fs::metadata(path)?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&m);
        #[cfg(not(unix))]
        let inode = 0;
        Ok(FileStamp {
            inode,
            len: m.len(),
            modified: m.modified().ok(),
        })
    }
}

/// What page 0 says about the file.
#[derive(Debug, Clone)]
pub struct HeaderInfo {
    /// Engine version.
    pub version: JetVersion,
    /// Default code page.
    pub code_page: u16,
    /// Default text sort order.
    pub sort_order: u32,
    /// Database key (non-zero: Jet3/Jet4 pages are RC4-encoded, ACCDB
    /// pages encrypted).
    pub db_key: u32,
    /// Whether the signature is MSISAM's (Microsoft Money, Jet4 layout).
    pub msisam: bool,
}

/// Decodes page 0: signature, version, and the RC4-masked header fields.
pub fn read_header(page0: &[u8]) -> Result<HeaderInfo, FormatError> {
    if page0.len() < 0x80 + header::MASK_START {
        return Err(FormatError::NotJet(
            "file is shorter than a database header".into(),
        ));
    }
    let sig = &page0[4..20];
    let msisam = sig == header::MSISAM_SIGNATURE;
    if !msisam && sig != header::JET_SIGNATURE && sig != header::ACE_SIGNATURE {
        return Err(FormatError::NotJet(format!(
            "signature {:?}",
            String::from_utf8_lossy(sig)
        )));
    }
    let vb = page0[header::VERSION];
    let version = JetVersion::from_byte(vb).ok_or(FormatError::UnsupportedVersion(vb))?;
    if msisam && version != JetVersion::Jet4 {
        return Err(FormatError::UnsupportedVersion(vb));
    }
    let h = unmasked_header(page0, version);
    let code_page = u16_at(&h, header::CODE_PAGE).unwrap_or(0);
    let db_key = u32_at(&h, header::DB_KEY).unwrap_or(0);
    let sort_order = if version.is_jet3() {
        u32::from(u16_at(&h, header::SORT_ORDER_JET3).unwrap_or(0))
    } else {
        u32_at(&h, header::SORT_ORDER_JET4).unwrap_or(0)
    };
    Ok(HeaderInfo {
        version,
        code_page,
        sort_order,
        db_key,
        msisam,
    })
}

/// Decides the protection of a file from its page 0 (as stored) and checks
/// `password` against it (see [`crate::page::crypt::unlock`]).
pub(crate) fn unlock_page0(
    page0: &[u8],
    header: &HeaderInfo,
    password: Option<&Password>,
) -> Result<Unlocked, crate::error::CryptError> {
    let unmasked = unmasked_header(page0, header.version);
    crate::page::crypt::unlock(
        &HeaderFacts {
            raw: page0,
            unmasked: &unmasked,
            version: header.version,
            msisam: header.msisam,
            db_key: header.db_key,
            encoding: text::encoding_for_code_page(header.code_page),
        },
        password,
    )
}

/// Page 0 with its RC4-masked header region decoded (the rest as it is).
pub fn unmasked_header(page0: &[u8], version: JetVersion) -> Vec<u8> {
    let mut h = page0.to_vec();
    let end = (header::MASK_START + version.layout().header_mask_len).min(h.len());
    if let Some(region) = h.get_mut(header::MASK_START..end) {
        rc4_apply(&header::MASK_KEY, region);
    }
    h
}

struct Inner {
    path: Option<PathBuf>,
    header: HeaderInfo,
    source: Arc<ScanSource>,
    catalog: Vec<CatalogEntry>,
    protection: Protection,
    /// The verified page cipher (for writers of encrypted files).
    cipher: Option<Arc<PageCipher>>,
    /// The shared advisory lock held while the database is open from a
    /// path (see `journal::lock`).
    _lock: Option<crate::journal::lock::FileLock>,
}

/// An open database (read-only). Cheap to clone; scans own what they need.
#[derive(Clone)]
pub struct Database {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("path", &self.inner.path)
            .field("version", &self.inner.header.version)
            .finish()
    }
}

impl Database {
    /// True when `self` and `other` are clones of one open database (the
    /// same image, read once); a write makes a new one. For caching what
    /// was read from a database.
    pub fn same_image(&self, other: &Database) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Opens the database at `path` read-only.
    ///
    /// Holds a shared advisory lock for the life of the database, so a
    /// writer in another process cannot change it meanwhile; waits up to
    /// `journal::lock::DEFAULT_LOCK_WAIT` for such a writer, then refuses
    /// with [`JournalError::Locked`](crate::JournalError::Locked). When a
    /// journal (`<path>.jetjournal`) is present, recovery runs first and
    /// its refusals surface as [`Error::Journal`]. An encrypted file is
    /// opened with `opts.password`, checked against page 0 before any other
    /// page is decoded; a missing or wrong password, a damaged or
    /// unsupported encryption header surface as [`Error::Crypt`].
    pub fn open(path: impl AsRef<Path>, opts: OpenOptions) -> Result<Database> {
        let path = path.as_ref();
        if let Some(kind) = not_a_regular_file(path) {
            return Err(FormatError::NotAFile {
                path: path.to_path_buf(),
                kind,
            }
            .into());
        }
        let lock = crate::journal::open_for_read(path, crate::journal::lock::DEFAULT_LOCK_WAIT)?;
        // without `hold_lock` the lock guards the open only
        let (kept, _opening) = if opts.hold_lock {
            (lock, None)
        } else {
            (None, lock)
        };
        // page 0 is read with the smaller (Jet3) size, then the real size is known
        let probe = FilePageSource::open(path, 2048, 0)?;
        let page0 = probe.read_page(0).map_err(|e| match e {
            FormatError::PageOutOfRange { .. } => {
                FormatError::NotJet("file is shorter than one page".into())
            }
            e => e,
        })?;
        let header = read_header(&page0)?;
        let ps = header.version.layout().page_size;
        let src: Box<dyn PageSource> = match opts.backend {
            Backend::File => Box::new(FilePageSource::open(path, ps, opts.cache_pages)?),
            Backend::Mmap => Box::new(MmapPageSource::open(path, ps)?),
        };
        Database::from_source(
            Some(path.to_path_buf()),
            header,
            src,
            kept,
            opts.password.as_ref(),
        )
    }

    /// Opens an in-memory database image (tests, fuzzing).
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>) -> Result<Database> {
        Database::from_bytes_with_password(bytes, None)
    }

    /// Opens an in-memory database image, with the password of an
    /// encrypted or password-protected image.
    pub fn from_bytes_with_password(
        bytes: impl Into<Arc<[u8]>>,
        password: Option<&Password>,
    ) -> Result<Database> {
        let bytes: Arc<[u8]> = bytes.into();
        let header = read_header(&bytes[..bytes.len().min(4096)])?;
        let ps = header.version.layout().page_size;
        Database::from_source(
            None,
            header,
            Box::new(MemPageSource::new(bytes, ps)),
            None,
            password,
        )
    }

    /// Opens a database over any page source (for example the committed
    /// image of a [`crate::Writer`]'s target), without a password:
    /// a file that needs one is refused with
    /// [`CryptError::PasswordRequired`](crate::CryptError::PasswordRequired)
    /// ([`crate::Writer::database`] opens encrypted images).
    pub fn from_page_source(src: Arc<dyn PageSource>) -> Result<Database> {
        let header = read_header(&src.read_page(0)?)?;
        Database::from_source(None, header, Box::new(SharedSource(src)), None, None)
    }

    fn from_source(
        path: Option<PathBuf>,
        header: HeaderInfo,
        src: Box<dyn PageSource>,
        lock: Option<crate::journal::lock::FileLock>,
        password: Option<&Password>,
    ) -> Result<Database> {
        // the password is checked against page 0 before any other page is read
        let unlocked = unlock_page0(&src.read_page(0)?, &header, password)?;
        Database::from_unlocked(path, header, src, lock, unlocked)
    }

    /// Opens the committed image `src` (pages as stored) of a file whose
    /// page 0 was already unlocked (a writer's database).
    pub(crate) fn from_page_source_unlocked(
        src: Arc<dyn PageSource>,
        unlocked: Unlocked,
    ) -> Result<Database> {
        let header = read_header(&src.read_page(0)?)?;
        Database::from_unlocked(None, header, Box::new(SharedSource(src)), None, unlocked)
    }

    fn from_unlocked(
        path: Option<PathBuf>,
        header: HeaderInfo,
        src: Box<dyn PageSource>,
        lock: Option<crate::journal::lock::FileLock>,
        unlocked: Unlocked,
    ) -> Result<Database> {
        let encoding = text::encoding_for_code_page(header.code_page);
        let src: Arc<dyn PageSource> = match &unlocked.cipher {
            Some(c) => Arc::new(CipherPageSource::new(src, c.clone())),
            None => Arc::from(src),
        };
        let source = Arc::new(ScanSource {
            src,
            version: header.version,
            encoding,
        });
        let catalog = super::objects::read_catalog(&source)?;
        Ok(Database {
            inner: Arc::new(Inner {
                path,
                header,
                source,
                catalog,
                protection: unlocked.protection,
                cipher: unlocked.cipher,
                _lock: lock,
            }),
        })
    }

    /// The file this database was opened from.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// Engine version of the file.
    pub fn version(&self) -> JetVersion {
        self.inner.header.version
    }

    /// What protects the file: its encryption scheme, cipher, key length
    /// and hash, and whether it has a password (never the password or a
    /// key). [`Protection`]'s `Display` reads as one line for people.
    pub fn protection(&self) -> &Protection {
        &self.inner.protection
    }

    /// The verified page cipher of an encrypted file (`None` for plain
    /// pages), for writing pages the way they are stored.
    pub fn page_cipher(&self) -> Option<&Arc<PageCipher>> {
        self.inner.cipher.as_ref()
    }

    /// Page-0 facts: code page, sort order, key.
    pub fn header(&self) -> &HeaderInfo {
        &self.inner.header
    }

    /// Every catalog entry (all object kinds, system objects included).
    pub fn catalog(&self) -> &[CatalogEntry] {
        &self.inner.catalog
    }

    /// Names of user tables whose rows are in this file, in catalog order.
    pub fn table_names(&self) -> Vec<String> {
        self.inner
            .catalog
            .iter()
            .filter(|e| e.kind == ObjectKind::Table && !e.is_system())
            .map(|e| e.name.clone())
            .collect()
    }

    /// Names of system tables (MSysObjects, …).
    pub fn system_table_names(&self) -> Vec<String> {
        self.inner
            .catalog
            .iter()
            .filter(|e| e.kind == ObjectKind::Table && e.is_system())
            .map(|e| e.name.clone())
            .collect()
    }

    /// Linked tables with their targets.
    pub fn linked_tables(&self) -> Vec<&CatalogEntry> {
        self.inner
            .catalog
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    ObjectKind::Linked { .. } | ObjectKind::LinkedOdbc { .. }
                )
            })
            .collect()
    }

    /// Pages served by the page source so far.
    pub fn pages_read(&self) -> u64 {
        self.inner.source.src.pages_read()
    }

    /// The page source (for index readers and tools).
    pub fn page_source(&self) -> &Arc<dyn PageSource> {
        &self.inner.source.src
    }

    /// Opens the table named `name` (case-insensitive, as Access compares).
    pub fn table(&self, name: &str) -> Result<Table> {
        let entry = self
            .inner
            .catalog
            .iter()
            .filter(|e| e.is_table())
            .find(|e| e.name == name)
            .or_else(|| {
                let lower = name.to_lowercase();
                self.inner
                    .catalog
                    .iter()
                    .filter(|e| e.is_table())
                    .find(|e| e.name.to_lowercase() == lower)
            })
            .ok_or_else(|| SchemaError::NoSuchTable(name.to_string()))?;
        match &entry.kind {
            ObjectKind::Table => {}
            ObjectKind::Linked {
                database,
                foreign_name,
            } => {
                return Err(SchemaError::Linked {
                    table: entry.name.clone(),
                    target: format!("{foreign_name} in {database}"),
                }
                .into());
            }
            ObjectKind::LinkedOdbc {
                connect,
                foreign_name,
            } => {
                return Err(SchemaError::Linked {
                    table: entry.name.clone(),
                    target: format!("{foreign_name} via ODBC {connect}"),
                }
                .into());
            }
            _ => return Err(SchemaError::NoSuchTable(name.to_string()).into()),
        }
        Table::load(
            &self.inner.source,
            &entry.name,
            entry.tdef_page(),
            &entry.props,
        )
        .map_err(|e| e.in_table(&entry.name))
    }
}

/// An `Arc`-shared page source as a boxed one.
struct SharedSource(Arc<dyn PageSource>);

impl PageSource for SharedSource {
    fn page_size(&self) -> usize {
        self.0.page_size()
    }
    fn page_count(&self) -> u32 {
        self.0.page_count()
    }
    fn read_page(&self, n: u32) -> Result<crate::page::Page, FormatError> {
        self.0.read_page(n)
    }
    fn pages_read(&self) -> u64 {
        self.0.pages_read()
    }
    fn read_page_streaming(&self, n: u32) -> Result<crate::page::Page, FormatError> {
        self.0.read_page_streaming(n)
    }
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn f<T: Send + Sync>() {}
    f::<Database>();
    f::<Table>();
    let _: Option<&'static Encoding> = None;
}
