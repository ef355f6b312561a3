//! The distributed crate's integration tests, one binary: the codecs'
//! round trips (`codec`) and a local cluster of processes (`cluster`).

mod support;

mod cluster;
mod codec;
