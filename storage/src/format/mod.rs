//! The file format's vocabulary, at the bottom of the crate: versions, offsets, types, values.
//!
//! Exports: modules [`text`], [`values`] and [`page_type`]; [`JetVersion`],
//! [`Layout`], [`RawField`], [`OwnedField`], [`Protection`], [`Scheme`],
//! [`CipherAlgorithm`], [`HashAlgorithm`] and [`TextCollation`].
//!
//! Here: format versions and the one table of per-format offsets (no other
//! module holds a format offset as a bare number). Beside them: Jet types
//! ([`JetType`](crate::JetType), in `types.rs`), fixed-format values
//! ([`values`]), text decoding ([`text`]), a column's stored content in a
//! row ([`RawField`], [`OwnedField`]), what protects a file
//! ([`Protection`]) and the text sort orders of index keys
//! ([`TextCollation`]).

mod collation;
mod field;
mod protection;
pub mod text;
pub(crate) mod types;
pub mod values;

pub use collation::TextCollation;
pub use field::{OwnedField, RawField};
pub use protection::{CipherAlgorithm, HashAlgorithm, Protection, Scheme};

/// The Jet engine generation that wrote the file (page 0, offset 0x14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JetVersion {
    /// Jet 3: Access 97 (`.mdb`, 2 KiB pages, code-page text).
    Jet3,
    /// Jet 4: Access 2000–2003 (`.mdb`, 4 KiB pages, UCS-2 text).
    Jet4,
    /// ACE 12: Access 2007 (`.accdb`).
    Ace12,
    /// ACE 14: Access 2010.
    Ace14,
    /// ACE 15: Access 2013.
    Ace15,
    /// ACE 16: Access 2016.
    Ace16,
    /// ACE 17: Access 2019 and later.
    Ace17,
}

impl JetVersion {
    /// Maps the version byte; `None` for unknown values.
    pub fn from_byte(b: u8) -> Option<JetVersion> {
        Some(match b {
            0 => JetVersion::Jet3,
            1 => JetVersion::Jet4,
            2 => JetVersion::Ace12,
            3 => JetVersion::Ace14,
            4 => JetVersion::Ace15,
            5 => JetVersion::Ace16,
            6 => JetVersion::Ace17,
            _ => return None,
        })
    }

    /// Whether this is the Jet 3 layout (1-byte row fields, jump tables).
    pub fn is_jet3(self) -> bool {
        self == JetVersion::Jet3
    }

    /// Whether this is an ACE (`.accdb`) version.
    pub fn is_ace(self) -> bool {
        self >= JetVersion::Ace12
    }

    /// The byte offsets of this version's structures.
    pub fn layout(self) -> &'static Layout {
        if self.is_jet3() { &JET3 } else { &JET4 }
    }
}

impl std::fmt::Display for JetVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            JetVersion::Jet3 => "Jet3 (Access 97)",
            JetVersion::Jet4 => "Jet4 (Access 2000-2003)",
            JetVersion::Ace12 => "ACE12 (Access 2007)",
            JetVersion::Ace14 => "ACE14 (Access 2010)",
            JetVersion::Ace15 => "ACE15 (Access 2013)",
            JetVersion::Ace16 => "ACE16 (Access 2016)",
            JetVersion::Ace17 => "ACE17 (Access 2019+)",
        };
        f.write_str(s)
    }
}

/// Per-format byte offsets of pages, TDEFs and rows.
#[derive(Debug)]
pub struct Layout {
    /// Page size in bytes.
    pub page_size: usize,
    /// Bytes of page 0 masked with the fixed header RC4 key, from 0x18.
    pub header_mask_len: usize,
    /// Data page: offset of the row count; the slot table follows it.
    pub data_row_count: usize,
    /// Data page: offset of the owning TDEF page number.
    pub data_tdef_page: usize,
    /// TDEF: total definition length.
    pub tdef_len: usize,
    /// TDEF: row count.
    pub tdef_num_rows: usize,
    /// TDEF: next auto-number value.
    pub tdef_autonumber: usize,
    /// TDEF: the last complex id given to a row (ACE files only: the
    /// counter of the complex columns' shared id, Jackcess's
    /// `OFFSET_NEXT_COMPLEX_AUTO_NUMBER`; unused before ACE).
    pub tdef_complex_autonumber: usize,
    /// TDEF: table type byte (0x4e user, 0x53 system).
    pub tdef_table_type: usize,
    /// TDEF: max columns a row will have.
    pub tdef_max_cols: usize,
    /// TDEF: number of variable columns.
    pub tdef_num_var_cols: usize,
    /// TDEF: number of columns.
    pub tdef_num_cols: usize,
    /// TDEF: number of logical indexes.
    pub tdef_num_idx: usize,
    /// TDEF: number of real indexes.
    pub tdef_num_real_idx: usize,
    /// TDEF: row pointer of the owned-pages usage map.
    pub tdef_usage_map: usize,
    /// TDEF: row pointer of the free-space usage map.
    pub tdef_free_map: usize,
    /// TDEF: start of the real-index row-count block.
    pub tdef_block_end: usize,
    /// Size of one real-index count entry.
    pub real_idx_count_entry: usize,
    /// Size of one column descriptor.
    pub col_entry: usize,
    /// Column: type byte.
    pub col_type: usize,
    /// Column: column number (including deleted columns).
    pub col_num: usize,
    /// Column: index in the variable offset table.
    pub col_var_index: usize,
    /// Column: text sort order (2 bytes).
    pub col_sort_order: usize,
    /// Column: code page (Jet3 only).
    pub col_code_page: Option<usize>,
    /// Column: text sort order version byte (Jet4+ only: 0 General Legacy,
    /// 1 General 2010+).
    pub col_sort_version: Option<usize>,
    /// Column: numeric precision.
    pub col_precision: usize,
    /// Column: numeric scale.
    pub col_scale: usize,
    /// Column: flags byte.
    pub col_flags: usize,
    /// Column: extended flags byte (Jet4+ only).
    pub col_ext_flags: Option<usize>,
    /// Column: fixed-area offset.
    pub col_fixed_offset: usize,
    /// Column: length.
    pub col_len: usize,
    /// Bytes of a name length prefix (1 in Jet3, 2 in Jet4).
    pub name_len_size: usize,
    /// Size of a real-index definition.
    pub real_idx_entry: usize,
    /// Leading unknown bytes of a real-index definition.
    pub real_idx_prefix: usize,
    /// Unknown bytes between a real index's root page and its flags.
    pub real_idx_flags_skip: usize,
    /// Size of a logical-index definition.
    pub logical_idx_entry: usize,
    /// Leading unknown bytes of a logical-index definition.
    pub logical_idx_prefix: usize,
    /// Index page: offset of the entry-start bitmap.
    pub index_entry_mask: usize,
    /// Index page: bytes of the entry-start bitmap.
    pub index_entry_mask_len: usize,
    /// Index page: offset of the shared-prefix length.
    pub index_prefix_len: usize,
    /// Index page: previous page at this level.
    pub index_prev: usize,
    /// Index page: next page at this level.
    pub index_next: usize,
    /// Index page: tail leaf page.
    pub index_tail: usize,
    /// Length of the usage-map rows the writer creates: the type byte,
    /// then an inline map's start page and bitmap (128 bytes in Jet3, 64 in
    /// Jet4/ACE: Jackcess' `USAGE_MAP_TABLE_BYTE_LENGTH`) or a reference
    /// map's page pointers. Rows Access wrote may be longer (nwind.mdb's
    /// MSysACEs: 145 bytes); every byte of a row is its map when read.
    pub usage_map_row_len: usize,
}

const JET3: Layout = Layout {
    page_size: 2048,
    header_mask_len: 126,
    data_row_count: 0x08,
    data_tdef_page: 4,
    tdef_len: 8,
    tdef_num_rows: 12,
    tdef_autonumber: 16,
    tdef_complex_autonumber: 0,
    tdef_table_type: 20,
    tdef_max_cols: 21,
    tdef_num_var_cols: 23,
    tdef_num_cols: 25,
    tdef_num_idx: 27,
    tdef_num_real_idx: 31,
    tdef_usage_map: 35,
    tdef_free_map: 39,
    tdef_block_end: 43,
    real_idx_count_entry: 8,
    col_entry: 18,
    col_type: 0,
    col_num: 1,
    col_var_index: 3,
    col_sort_order: 9,
    col_code_page: Some(11),
    col_sort_version: None,
    col_precision: 11,
    col_scale: 12,
    col_flags: 13,
    col_ext_flags: None,
    col_fixed_offset: 14,
    col_len: 16,
    name_len_size: 1,
    real_idx_entry: 39,
    real_idx_prefix: 0,
    real_idx_flags_skip: 0,
    logical_idx_entry: 20,
    logical_idx_prefix: 0,
    index_entry_mask: 0x16,
    index_entry_mask_len: 226,
    index_prefix_len: 0x14,
    index_prev: 8,
    index_next: 12,
    index_tail: 16,
    usage_map_row_len: 133,
};

const JET4: Layout = Layout {
    page_size: 4096,
    header_mask_len: 128,
    data_row_count: 0x0c,
    data_tdef_page: 4,
    tdef_len: 8,
    tdef_num_rows: 16,
    tdef_autonumber: 20,
    tdef_complex_autonumber: 28,
    tdef_table_type: 40,
    tdef_max_cols: 41,
    tdef_num_var_cols: 43,
    tdef_num_cols: 45,
    tdef_num_idx: 47,
    tdef_num_real_idx: 51,
    tdef_usage_map: 55,
    tdef_free_map: 59,
    tdef_block_end: 63,
    real_idx_count_entry: 12,
    col_entry: 25,
    col_type: 0,
    col_num: 5,
    col_var_index: 7,
    col_sort_order: 11,
    col_code_page: None,
    col_sort_version: Some(14),
    col_precision: 11,
    col_scale: 12,
    col_flags: 15,
    col_ext_flags: Some(16),
    col_fixed_offset: 21,
    col_len: 23,
    name_len_size: 2,
    real_idx_entry: 52,
    real_idx_prefix: 4,
    real_idx_flags_skip: 4,
    logical_idx_entry: 28,
    logical_idx_prefix: 4,
    index_entry_mask: 0x1b,
    index_entry_mask_len: 453,
    index_prefix_len: 0x18,
    index_prev: 12,
    index_next: 16,
    index_tail: 20,
    usage_map_row_len: 69,
};

/// Page 0 (database definition page) fields.
pub(crate) mod header {
    /// Offset of the version byte.
    pub const VERSION: usize = 0x14;
    /// Offset where the RC4-masked region starts.
    pub const MASK_START: usize = 0x18;
    /// RC4 key that masks the header region.
    pub const MASK_KEY: [u8; 4] = [0xC7, 0xDA, 0x39, 0x6B];
    /// Jet3 sort order (2 bytes).
    pub const SORT_ORDER_JET3: usize = 0x3A;
    /// Default code page (2 bytes).
    pub const CODE_PAGE: usize = 0x3C;
    /// Database key: non-zero means pages are RC4-encoded (Jet3/Jet4).
    pub const DB_KEY: usize = 0x3E;
    /// Jet4+ sort order (4 bytes).
    pub const SORT_ORDER_JET4: usize = 0x6E;
    /// Signature of Jet files.
    pub const JET_SIGNATURE: &[u8] = b"Standard Jet DB\0";
    /// Signature of ACE files.
    pub const ACE_SIGNATURE: &[u8] = b"Standard ACE DB\0";
    /// Signature of MSISAM (Microsoft Money) files.
    pub const MSISAM_SIGNATURE: &[u8] = b"MSISAM Database\0";
}

/// Page type bytes.
pub mod page_type {
    /// Database definition page (page 0).
    pub const DB_DEF: u8 = 0x00;
    /// Data page (rows, LVAL rows, usage-map rows).
    pub const DATA: u8 = 0x01;
    /// Table definition.
    pub const TDEF: u8 = 0x02;
    /// Intermediate index page.
    pub const INDEX_NODE: u8 = 0x03;
    /// Leaf index page.
    pub const INDEX_LEAF: u8 = 0x04;
    /// Usage bitmap page.
    pub const USAGE_MAP: u8 = 0x05;
}
