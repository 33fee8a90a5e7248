//! What the agents may cite, and whether what they cited is there (issue
//! 52). On the reading floor: it reads the files a person named and the
//! citations an agent wrote ([`crate::parse::citations`]), and knows no
//! protocol.
//!
//! - [`sources`]: the sources of a debate. The context documents and log
//!   files (their text is in the debate's definition), and a read-only
//!   source tree walked as git would (`.gitignore` honoured, links never
//!   followed, binary and oversized files left out, the whole capped).
//!   Each has a short name a citation uses and a recorded hash, so a later
//!   `quorum verdict` or `open` can say that a source changed.
//! - [`check`]: every citation checked mechanically against them: a quote
//!   must occur (whitespace and quotation marks normalised), a span must
//!   exist and hold its quoted text. Nothing is sent to a model.

pub mod check;
pub mod claim;
pub mod sources;

pub use check::{Checked, Status};
pub use claim::Claim;
pub use sources::{RepoLimits, SourceKind, SourceRecord, Sources};
