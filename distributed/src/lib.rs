//! # jet-distributed
//!
//! Jet tables on an Apache Ballista cluster, for archives one machine
//! cannot read fast enough. The same plans as on one machine (page-range
//! scans, index seeks, multi-file scans of `jet_files`) travel between
//! the client, a scheduler and executors as descriptions: files, tables,
//! page and key ranges, columns, filters, limits — never rows, never
//! passwords ([`codec`], [`wire`]). Every process opens the files itself,
//! so they must see them at the same paths (a shared file system), and
//! takes passwords from its own [`keyring`].
//!
//! - [`processes`]: the scheduler and executor, as the binaries
//!   `jetsql-scheduler` and `jetsql-executor` run them;
//! - [`client`]: a [`jet_provider::JetSession`] whose queries run on the
//!   cluster (`jetsql --cluster HOST:PORT`).
//!
//! What stays on one machine: writes (the cluster reads), and the index
//! walks that answer `ORDER BY … LIMIT` and `MIN`/`MAX` from index ends
//! (the cluster answers them from scans and seeks).

pub mod args;
pub mod client;
pub mod codec;
pub mod keyring;
pub mod node;
pub mod processes;
pub mod slice;
pub mod wire;

pub use client::remote_session;
pub use keyring::Keyring;
pub use node::Node;
