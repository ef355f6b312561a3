//! The messages Jet tables and plans travel in between a client, a
//! scheduler and its executors (protocol buffers, written with `prost`'s
//! derive so no `.proto` compiler is needed). They name files, tables,
//! page ranges, key ranges, columns, filters and limits: never rows and
//! never passwords.
//!
//! Every message starts with [`MAGIC`], so bytes of another codec are
//! never taken for a Jet message.

use datafusion_proto::protobuf::{LogicalExprNode, PhysicalExprNode, Schema};

/// The first bytes of every Jet message (name and wire version).
pub const MAGIC: &[u8] = b"jetsql/1:";

/// One Jet table or plan.
#[derive(Clone, PartialEq, prost::Message)]
pub struct JetNode {
    /// What it is.
    #[prost(oneof = "jet_node::Kind", tags = "1, 2, 3, 4, 5, 6")]
    pub kind: Option<jet_node::Kind>,
}

/// The kinds of [`JetNode`].
pub mod jet_node {
    /// What a [`super::JetNode`] holds.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Kind {
        /// A table of one database (a `JetTable`).
        #[prost(message, tag = "1")]
        Table(super::DatabaseTable),
        /// A table over many files (a `JetFilesTable`).
        #[prost(message, tag = "2")]
        Files(super::FilesTable),
        /// A page-range scan (`JetScanExec`).
        #[prost(message, tag = "3")]
        Scan(super::Scan),
        /// An index seek (`IndexSeekExec`).
        #[prost(message, boxed, tag = "4")]
        Seek(Box<super::Seek>),
        /// A multi-file scan (`JetFilesExec`).
        #[prost(message, tag = "5")]
        FilesScan(super::FilesScan),
        /// A scan run in a task's slice of its partitions
        /// (`TaskSliceExec`).
        #[prost(message, tag = "6")]
        Slice(super::Slice),
    }
}

/// A table of the database at `path`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DatabaseTable {
    /// The database file (absolute).
    #[prost(string, tag = "1")]
    pub path: String,
    /// The table's name.
    #[prost(string, tag = "2")]
    pub table: String,
    /// Filters become index seeks.
    #[prost(bool, tag = "3")]
    pub pushdown: bool,
    /// Rows per batch.
    #[prost(uint64, tag = "4")]
    pub batch_size: u64,
}

/// How a multi-file table reads its files (its options less the password).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FilesOptions {
    /// Skip unreadable files.
    #[prost(bool, tag = "1")]
    pub skip_errors: bool,
    /// Files open at once.
    #[prost(uint64, tag = "2")]
    pub max_open: u64,
    /// Split files larger than this many bytes.
    #[prost(uint64, tag = "3")]
    pub split_bytes: u64,
    /// Filters become index seeks.
    #[prost(bool, tag = "4")]
    pub pushdown: bool,
    /// Rows per batch.
    #[prost(uint64, tag = "5")]
    pub batch_size: u64,
}

/// One file of a multi-file table or scan.
#[derive(Clone, PartialEq, prost::Message)]
pub struct File {
    /// The file (absolute).
    #[prost(string, tag = "1")]
    pub path: String,
    /// The path as `_file` shows it.
    #[prost(string, tag = "2")]
    pub shown: String,
    /// Its size in bytes.
    #[prost(uint64, tag = "3")]
    pub size: u64,
    /// Its columns: a number in [`FilesTable::schemas`] (unused in a scan).
    #[prost(uint64, tag = "4")]
    pub schema: u64,
}

/// A table over many files, with each file's columns (so the scheduler
/// opens none of them to plan).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FilesTable {
    /// The table read in every file.
    #[prost(string, tag = "1")]
    pub table: String,
    /// The distinct column lists of the files.
    #[prost(message, repeated, tag = "2")]
    pub schemas: Vec<Schema>,
    /// The files.
    #[prost(message, repeated, tag = "3")]
    pub files: Vec<File>,
    /// How files are read.
    #[prost(message, optional, tag = "4")]
    pub options: Option<FilesOptions>,
}

/// Column numbers.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Columns {
    /// The numbers, in order.
    #[prost(uint64, repeated, tag = "1")]
    pub columns: Vec<u64>,
}

/// Pages `start <= p < end`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PageRange {
    /// First page.
    #[prost(uint32, tag = "1")]
    pub start: u32,
    /// Page past the last.
    #[prost(uint32, tag = "2")]
    pub end: u32,
}

/// A page-range scan of one table.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Scan {
    /// The database and table.
    #[prost(message, optional, tag = "1")]
    pub table: Option<DatabaseTable>,
    /// Columns produced; all when absent.
    #[prost(message, optional, tag = "2")]
    pub projection: Option<Columns>,
    /// Row limit.
    #[prost(uint64, optional, tag = "3")]
    pub limit: Option<u64>,
    /// One page range per partition.
    #[prost(message, repeated, tag = "4")]
    pub ranges: Vec<PageRange>,
}

/// One end of a key range.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyBound {
    /// 0 unbounded, 1 included, 2 excluded.
    #[prost(uint32, tag = "1")]
    pub kind: u32,
    /// The encoded key prefix.
    #[prost(bytes = "vec", tag = "2")]
    pub key: Vec<u8>,
}

/// An encoded key range.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyRange {
    /// Lower end.
    #[prost(message, optional, tag = "1")]
    pub lower: Option<KeyBound>,
    /// Upper end.
    #[prost(message, optional, tag = "2")]
    pub upper: Option<KeyBound>,
}

/// The filter a seek re-checks and the columns it returns.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Recheck {
    /// The predicate over the decoded columns.
    #[prost(message, optional, tag = "1")]
    pub predicate: Option<PhysicalExprNode>,
    /// Positions of the returned columns among the decoded ones.
    #[prost(uint64, repeated, tag = "2")]
    pub output: Vec<u64>,
}

/// An index seek of one table.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Seek {
    /// The database and table.
    #[prost(message, optional, tag = "1")]
    pub table: Option<DatabaseTable>,
    /// Real index number.
    #[prost(uint64, tag = "2")]
    pub index: u64,
    /// The index's name (EXPLAIN).
    #[prost(string, tag = "3")]
    pub index_name: String,
    /// The value range (EXPLAIN).
    #[prost(string, tag = "4")]
    pub range_label: String,
    /// Key ranges, sorted by lower bound.
    #[prost(message, repeated, tag = "5")]
    pub ranges: Vec<KeyRange>,
    /// Columns decoded; all when absent.
    #[prost(message, optional, tag = "6")]
    pub projection: Option<Columns>,
    /// The seek's own filter and output columns.
    #[prost(message, optional, tag = "7")]
    pub recheck: Option<Recheck>,
}

/// The units one partition of a multi-file scan reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Group {
    /// Per unit: file number, part, parts (three numbers each).
    #[prost(uint64, repeated, tag = "1")]
    pub units: Vec<u64>,
}

/// A multi-file scan.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FilesScan {
    /// The table read in every file.
    #[prost(string, tag = "1")]
    pub table: String,
    /// The files read.
    #[prost(message, repeated, tag = "2")]
    pub files: Vec<File>,
    /// How files are read.
    #[prost(message, optional, tag = "3")]
    pub options: Option<FilesOptions>,
    /// The union schema.
    #[prost(message, optional, tag = "4")]
    pub union: Option<Schema>,
    /// The union columns produced.
    #[prost(uint64, repeated, tag = "5")]
    pub projection: Vec<u64>,
    /// Filters handed to the files.
    #[prost(message, repeated, tag = "6")]
    pub filters: Vec<LogicalExprNode>,
    /// Row limit.
    #[prost(uint64, optional, tag = "7")]
    pub limit: Option<u64>,
    /// The partitions.
    #[prost(message, repeated, tag = "8")]
    pub groups: Vec<Group>,
}

/// A scan run partition by partition as its one input (a list of
/// partition numbers) says.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Slice {
    /// The scan: an encoded [`JetNode`] (without [`MAGIC`]).
    #[prost(bytes = "vec", tag = "1")]
    pub scan: Vec<u8>,
}

/// `node` as bytes: [`MAGIC`] and the message.
pub fn encode(node: &JetNode, buf: &mut Vec<u8>) {
    use prost::Message;
    buf.extend_from_slice(MAGIC);
    node.encode(buf).expect("a Vec grows to hold any message");
}

/// The Jet message in `buf`: `None` when `buf` is not one (another
/// codec's bytes), an error when it starts as one but does not decode.
pub fn decode(buf: &[u8]) -> Option<Result<JetNode, prost::DecodeError>> {
    use prost::Message;
    let body = buf.strip_prefix(MAGIC)?;
    Some(JetNode::decode(body))
}
