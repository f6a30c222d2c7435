//! The write rules (rules §4): what a write may change, decided before any byte is written.
//! Every function here takes a [`Snapshot`] the host read and returns a plan of
//! [`Effect`]s for the host to apply, in order. A refused write has no effects.

pub mod entry;
pub mod forget;
pub mod guard;
pub mod read_plan;
pub mod remember;
pub mod similar;
pub mod snapshot;
pub mod yaml;

use serde::Serialize;

pub use snapshot::Snapshot;

/// One change for the host to make. Applied in order; each write is atomic on the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Effect {
    /// Write the whole file (UTF-8). `exclusive`: fail if it exists.
    #[serde(rename_all = "camelCase")]
    Write {
        path: String,
        text: String,
        exclusive: bool,
    },
    /// Remove a file, or a directory and everything in it.
    Remove { path: String },
    /// Rename a file or directory; the destination must not exist.
    Rename { from: String, to: String },
}
