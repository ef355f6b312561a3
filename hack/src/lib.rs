//! Build plumbing only (no code): depending on this crate gives every
//! workspace member the same features of the dependencies listed in its
//! manifest, so building one member alone (`cargo test -p jetsql`) reuses
//! the workspace build's DataFusion instead of compiling it again.
